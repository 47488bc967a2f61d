//! The emulated GigE Vision camera's control logic, sans-IO.
//!
//! [`Device`] answers GVCP commands the way a GigE Vision 2.0 camera does:
//! discovery, register and memory reads and writes (concatenated), the
//! control channel privilege with its heartbeat, Aravis's "bye", and packet
//! resend requests, which it turns into [`DeviceEvent`]s for the stream
//! sender. It owns the register map ([`registers`]) and serves the GenICam
//! XML ([`GENICAM_XML`]) that describes it at the first URL.
//!
//! The module is split by concern:
//! * `config`: identity and model defaults, validated once;
//! * `memory`: the address space and per-register access rules;
//! * `privilege`: who may write, and the heartbeat that keeps control;
//! * `server`: command dispatch, acks and events.

pub mod registers;

mod config;
mod memory;
mod privilege;
mod server;

pub use config::{DeviceConfig, DeviceError, DeviceIdentity, HEARTBEAT_TIMEOUT_MIN_MS};
pub use memory::{AcquisitionMode, TRANSFER_SIZE_MAX, TRANSFER_SIZE_MIN};
pub use privilege::{ControlLossReason, Privilege};
pub use server::{AccessDenied, Counters, Device, DeviceEvent, HandleResult, Reply, StreamConfig};

/// The GenICam XML describing [`registers`], served at
/// [`registers::device::XML_BASE`] and named by the first URL register, so a
/// host can discover every feature without linerate-specific code.
pub const GENICAM_XML: &[u8] = include_bytes!("linerate-camera.xml");

/// The XML's file name in the first URL (`Local:<name>;<address>;<length>`);
/// hosts use the extension to tell plain XML from a zip.
pub const XML_FILE_NAME: &str = "linerate-camera.xml";
