//! `linerate.cti`: a GenTL producer (the GenICam Transport Layer C ABI,
//! version 1.6) built on linerate's GigE Vision stack, so Harvesters,
//! HALCON, MATLAB and every other GenTL consumer can list, control and
//! grab from GigE Vision cameras through linerate's discovery, control
//! connection and one-copy grab engine (resend, GVSP over TCP, the
//! receive backends).
//!
//! The modules follow the standard's: the system ([`system::System`], one
//! per producer), interfaces (one per network interface that can
//! broadcast), devices ([`device::Device`], found by GVCP discovery), the
//! data stream ([`stream::DataStream`]), buffers and the NEW_BUFFER event.
//! The C functions live in `ffi` (the only module with `unsafe` code); all
//! the logic behind them is safe Rust in [`producer`] and the modules it
//! uses, reachable through the rlib for tests.
//!
//! The shared library builds as `liblinerate_gentl.so`; consumers look for
//! `*.cti` files in the directories of `GENICAM_GENTL64_PATH`, so it is
//! installed (copied) as `linerate.cti` (see docs/gentl.md).

pub mod abi;
pub mod device;
pub mod error;
mod ffi;
pub mod handles;
pub mod info;
pub mod local_port;
pub mod producer;
pub mod stream;
pub mod stream_options;
pub mod system;
