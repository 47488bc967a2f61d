//! The GigE Vision host side of linerate: everything between a camera on
//! the wire and frames in the application's buffers.
//!
//! * [`control`]: the GVCP control connection (privilege, heartbeat,
//!   register and memory access, control-loss detection);
//! * [`receive`]: the stream receive backends — `copy` (one datagram per
//!   syscall into a staging buffer, then a copy: the two-copy baseline),
//!   `mmsg` (recvmmsg scattering each payload straight into its predicted
//!   place in the frame buffer: one copy) and `ring` (PF_PACKET TPACKET_V3,
//!   the method Aravis uses as root);
//! * [`stream`]: the receive thread that runs a backend, the sans-IO frame
//!   assembler from `linerate-gev` and resend requests, and the grab API
//!   (queue buffers, wait, retrieve, requeue) on top of it;
//! * [`session`]: a whole grab (settings, trigger pacing, verification,
//!   saving, the tally and its typed report), as `linerate grab` runs it,
//!   for any front end to start and watch.
//!
//! The protocol logic lives in `linerate-gev` and the byte layouts in
//! `linerate-wire`; this crate only drives them with sockets and threads.

pub mod camera;
pub mod clock;
pub mod control;
pub mod discovery;
pub mod error;
pub mod features;
pub mod force_ip;
pub mod receive;
pub mod save;
pub mod session;
pub mod stream;
pub mod verify;

pub use camera::{Camera, DeviceInfo, StreamOptions};
pub use control::{Control, ControlConfig};
pub use error::{Error, Interference, RegisterChange, Result, Shown};
pub use features::{ApplyError, FeatureSession, Setting};
/// The GenICam layer [`FeatureSession`] returns (feature descriptions,
/// values, the XML document), re-exported so front ends need one dependency.
pub use linerate_genicam as genicam;
