//! Code generated from the ESS schemas in `schemas/` by planus 1.3.0
//! (`planus rust -o src/ess/ad00.rs schemas/ad00_area_detector_array.fbs`,
//! likewise for f144; see `schemas/README.md`). Not edited by hand.

#[allow(missing_docs, clippy::all, clippy::pedantic, unused)]
pub mod ad00;
#[allow(missing_docs, clippy::all, clippy::pedantic, unused)]
pub mod f144;
