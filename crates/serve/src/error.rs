//! Errors of the server core.

/// Why the server core refused a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A configuration value is out of range.
    #[error("{what} = {value} is out of range ({rule})")]
    BadConfig {
        /// The setting at fault.
        what: &'static str,
        /// The value given.
        value: u64,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// The server already has as many clients as it may.
    #[error("client limit of {max} reached")]
    TooManyClients {
        /// The limit.
        max: usize,
    },
    /// A client id that the hub does not know (already removed).
    #[error("no client with id {0}")]
    NoClient(u64),
    /// A slot or frame buffer is too small for the frame.
    #[error("frame of {need} bytes does not fit a slot of {have}")]
    SlotTooSmall {
        /// Bytes needed (header + payload).
        need: usize,
        /// Bytes the slot has.
        have: usize,
    },
    /// The wire codec refused a value.
    #[error(transparent)]
    Wire(#[from] linerate_wire::Error),
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;
