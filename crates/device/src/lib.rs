//! Device-side runtimes of linerate: the devices a host talks to, emulated
//! so that tests, demos, benchmarks and other front-ends (the CLI, the
//! Python package) can start them in-process.
//!
//! Each device is a runtime around a sans-IO protocol core: it owns the
//! sockets and threads (through `linerate-io`) and is started with
//! `spawn(config) -> Handle`; the handle stops it and returns a typed
//! report.

pub mod board;
pub mod camera;
