//! Errors of the GigE Vision host.

use std::net::SocketAddrV4;

use linerate_gev::client::ClientError;

/// Anything that can go wrong while controlling a camera or receiving its stream.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A socket operation failed.
    #[error("{op} ({addr}): {source}")]
    Socket {
        /// What was attempted.
        op: &'static str,
        /// Address involved.
        addr: SocketAddrV4,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The I/O layer failed (batched receive, packet ring).
    #[error(transparent)]
    Io(#[from] linerate_io::Error),
    /// A GVCP command failed: timeout or refused.
    #[error("camera {device}: {source}")]
    Gvcp {
        /// The camera.
        device: SocketAddrV4,
        /// What went wrong.
        #[source]
        source: ClientError,
    },
    /// The camera answered with an ack of the wrong kind.
    #[error("camera {device}: unexpected answer to {what}")]
    UnexpectedAck {
        /// The camera.
        device: SocketAddrV4,
        /// The command that got it.
        what: &'static str,
    },
    /// Another host controls the camera.
    #[error("camera {device} is controlled by another host (control channel privilege {ccp:#x}); close the other application or wait for its heartbeat to expire")]
    ControlTaken {
        /// The camera.
        device: SocketAddrV4,
        /// The privilege register value read.
        ccp: u32,
    },
    /// We lost control of the camera while using it.
    #[error("lost control of camera {device}: {reason}")]
    ControlLost {
        /// The camera.
        device: SocketAddrV4,
        /// Why (heartbeat refused or unanswered).
        reason: String,
    },
    /// Registers this host set were changed by someone else while it held
    /// control: another program on this host, or a host forging its address
    /// (GVCP has no authentication). Reported instead of a bare timeout when
    /// the stream stops or the heartbeat notices.
    #[error("control interference on camera {device}: {} (not written by this program: another program on this host, or a host forging its address; see docs/security.md)", changes.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    ControlInterference {
        /// The camera.
        device: SocketAddrV4,
        /// What changed.
        changes: Vec<Interference>,
    },
    /// Discovery found no interface to broadcast on.
    #[error("no network interface is up and able to broadcast, so discovery has nowhere to ask (bring an interface up, or give the camera's IP address)")]
    NoBroadcastInterface,
    /// A device's name or serial was not found by discovery.
    #[error("no GigE Vision device {0:?} answered discovery (check the cable, the interface address, or give the IP address)")]
    NotFound(String),
    /// A setting is out of range.
    #[error("{what} = {value} is not allowed: {why}")]
    BadSetting {
        /// Which setting.
        what: &'static str,
        /// The offending value.
        value: String,
        /// Why.
        why: String,
    },
    /// The frame assembler refused its configuration.
    #[error("stream configuration: {0}")]
    Assembler(#[from] linerate_gev::assembler::ConfigError),
    /// Reading the GenICam XML or a feature failed.
    #[error(transparent)]
    GenICam(Box<linerate_genicam::Error>),
    /// Waiting for a frame timed out.
    #[error("no frame within {0:?}")]
    Timeout(std::time::Duration),
    /// The stream was stopped or its receive thread ended.
    #[error("stream closed: {0}")]
    StreamClosed(String),
    /// The TCP stream broke linerate's record framing: it cannot be
    /// resynchronised, so the stream ends.
    #[error("GVSP-over-TCP framing error: {0}")]
    StreamProtocol(String),
    /// A buffer handed in is too small for the camera's payload.
    #[error("buffer of {len} bytes is smaller than the payload size {payload}")]
    BufferTooSmall {
        /// Buffer length.
        len: usize,
        /// Payload size needed.
        payload: usize,
    },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// One sign that someone else is controlling the camera with this host's
/// identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Interference {
    /// A register this host set reads otherwise.
    Register(RegisterChange),
    /// The camera acknowledged a write this host never sent: someone sent
    /// it with this host's address and control port (the camera answers
    /// the port a command came from).
    UnrequestedWrite {
        /// The ack (`WRITEREG_ACK` or `WRITEMEM_ACK`).
        ack: &'static str,
        /// Its request id, which this host never used.
        request_id: u16,
    },
}

impl std::fmt::Display for Interference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Interference::Register(c) => c.fmt(f),
            Interference::UnrequestedWrite { ack, request_id } => write!(
                f,
                "the camera acknowledged a write this program never sent ({ack}, request id {request_id})"
            ),
        }
    }
}

/// A camera register that no longer holds what this host set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterChange {
    /// The register or feature name (e.g. `SCDA0`, `AcquisitionStatus`).
    pub name: &'static str,
    /// What the change means for the stream.
    pub meaning: &'static str,
    /// The value this host set (or, for a status, expects).
    pub expected: u32,
    /// The value read back.
    pub found: u32,
    /// How to print the values.
    pub shown_as: Shown,
}

/// How a register value reads best.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// An IPv4 address (SCDA).
    Ipv4,
    /// A plain number (ports, sizes, flags).
    Decimal,
    /// Bits (CCP).
    Hex,
}

impl Shown {
    fn show(self, v: u32) -> String {
        match self {
            Shown::Ipv4 => std::net::Ipv4Addr::from(v).to_string(),
            Shown::Decimal => v.to_string(),
            Shown::Hex => format!("{v:#x}"),
        }
    }
}

impl std::fmt::Display for RegisterChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} reads {}, expected {}: {}",
            self.name,
            self.shown_as.show(self.found),
            self.shown_as.show(self.expected),
            self.meaning
        )
    }
}
