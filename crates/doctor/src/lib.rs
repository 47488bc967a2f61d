//! Host checks for a line-rate stream (`linerate doctor`).
//!
//! Reading the host is in [`facts`], judging in [`checks`] (pure,
//! unit-tested).

pub mod checks;
pub mod facts;
