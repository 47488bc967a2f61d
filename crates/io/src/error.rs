//! Errors of the I/O layer.

use std::net::SocketAddr;

/// An I/O failure, with the operation and the address involved.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A socket call failed.
    #[error("{op} on {addr}: {source}")]
    Socket {
        /// What was attempted, e.g. "bind".
        op: &'static str,
        /// The local or remote address concerned.
        addr: SocketAddr,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Datagrams handed to a GSO send were not all of the segment size.
    #[error("UDP GSO needs every datagram but the last to be exactly {segment} bytes (and at most 65507)")]
    GsoSegment {
        /// The segment size asked for.
        segment: usize,
    },
    /// A batch was larger than one syscall can carry.
    #[error("batch of {len} datagrams exceeds the limit of {max}")]
    BatchTooLarge {
        /// Datagrams requested.
        len: usize,
        /// Largest batch accepted.
        max: usize,
    },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;
