//! Why a frame server could not start or had to stop.

use std::net::SocketAddrV4;
use std::path::PathBuf;

/// A frame server's failure, with the value or address at fault.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A setting of [`super::ServerConfig`] is out of range.
    #[error("{setting} {value} must be {rule}")]
    Config {
        /// The setting at fault.
        setting: &'static str,
        /// The value given.
        value: String,
        /// What it must be.
        rule: &'static str,
    },
    /// The shared frame pool could not be created (memfd or mapping).
    #[error("creating the shared frame pool: {0}")]
    FramePool(#[source] std::io::Error),
    /// io_uring could not be set up for `Method::Uring`.
    #[error(transparent)]
    Uring(#[from] linerate_io::uring::UringError),
    /// The frame source file could not be opened.
    #[error("opening --source {}: {source}", path.display())]
    OpenSource {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The frame source file could not be read.
    #[error("reading {}: {source}", path.display())]
    ReadSource {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The frame source file holds no byte to make a frame of.
    #[error("{} is empty", .0.display())]
    EmptySource(PathBuf),
    /// The TCP listener could not be opened.
    #[error("listening on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: SocketAddrV4,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The UDP socket (subscribers or multicast) could not be set up.
    #[error("UDP on {addr}: {source}")]
    Udp {
        /// The address asked for.
        addr: SocketAddrV4,
        /// The failure.
        #[source]
        source: linerate_io::Error,
    },
    /// A system call of the serving loop failed (named by `op`).
    #[error("{op}: {source}")]
    Io {
        /// What was attempted.
        op: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The hub named a frame slot the pool does not have (a bug).
    #[error("the hub named slot {0}, past the frame pool")]
    SlotPastPool(usize),
    /// The server core refused a request.
    #[error(transparent)]
    Core(#[from] crate::Error),
    /// The server's thread could not be started, or it panicked.
    #[error("the server thread {0}")]
    Thread(&'static str),
}

impl ServeError {
    /// Wraps an OS error with what was being done.
    pub(crate) fn io(op: &'static str) -> impl FnOnce(std::io::Error) -> ServeError {
        move |source| ServeError::Io { op, source }
    }
}
