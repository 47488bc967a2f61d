//! Why a camera could not start, or stopped on its own.

use std::net::{Ipv4Addr, SocketAddrV4};

use linerate_gev::device::DeviceError;
use linerate_wire::PixelFormat;

/// A camera that could not start or keep running.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CameraError {
    /// The configured address is on none of this host's interfaces (in the
    /// namespace the camera was started in).
    #[error("no local interface has address {ip} (give --bind one of this host's IPv4 addresses)")]
    NoInterface {
        /// The address asked for.
        ip: Ipv4Addr,
    },
    /// The pixel format is not one the camera's GenICam XML lists.
    #[error("pixel format {format:?} is not one the camera offers")]
    UnsupportedPixelFormat {
        /// The format asked for.
        format: PixelFormat,
    },
    /// The image, rate or packet settings are out of range.
    #[error("invalid camera settings")]
    Settings {
        /// Which setting, and why.
        #[source]
        source: DeviceError,
    },
    /// The GVCP register model refused the identity or settings.
    #[error("building the camera")]
    Device {
        /// What it refused.
        #[source]
        source: DeviceError,
    },
    /// Another socket holds the camera's GVCP address and port.
    #[error(
        "GVCP address {addr} is already in use: another camera (or program) is bound there; \
         stop it, or give this camera another --bind address or --port"
    )]
    ControlPortInUse {
        /// The address and port asked for.
        addr: SocketAddrV4,
    },
    /// A GVCP socket could not be made or bound.
    #[error("cannot bind the GVCP port at {addr}")]
    ControlSocket {
        /// The address and port asked for.
        addr: SocketAddrV4,
        /// The socket error.
        #[source]
        source: std::io::Error,
    },
    /// The stream socket could not be bound.
    #[error("binding the stream socket at {addr}")]
    StreamSocket {
        /// The address and source port asked for.
        addr: SocketAddrV4,
        /// The socket error.
        #[source]
        source: linerate_io::Error,
    },
    /// Waiting for or reading a GVCP datagram failed.
    #[error("{op} on GVCP sockets")]
    ControlReceive {
        /// "poll" or "recv".
        op: &'static str,
        /// The socket error.
        #[source]
        source: std::io::Error,
    },
    /// A thread of the camera could not be started.
    #[error("starting the {thread} thread")]
    Thread {
        /// Which thread.
        thread: &'static str,
        /// The error the system gave.
        #[source]
        source: std::io::Error,
    },
    /// The stream thread ended while the camera was running.
    #[error("the stream thread ended unexpectedly")]
    StreamThreadEnded,
    /// The control thread panicked.
    #[error("the camera's control thread panicked")]
    ControlThreadPanicked,
}
