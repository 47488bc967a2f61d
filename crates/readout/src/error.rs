//! Why a readout could not be set up or had to stop.

use linerate_fade::host::HostConfigError;

/// A readout failure, with the interface or operation involved.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A socket operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was attempted, with the interface.
        what: String,
        /// The I/O layer's error.
        #[source]
        source: linerate_io::Error,
    },
    /// FADE-10G's jumbo DATA frames do not fit the interface's MTU: every
    /// DATA send would fail and the readout would only stall.
    #[error("FADE-10G needs an MTU of at least {need} on {interface} ({need}-byte DATA packets), but it is {mtu}: use jumbo frames (e.g. ip link set {interface} mtu 9000)")]
    Mtu {
        /// The interface.
        interface: String,
        /// Its MTU.
        mtu: u32,
        /// The MTU a DATA packet needs.
        need: u32,
    },
    /// The readout's settings.
    #[error(transparent)]
    Config(#[from] HostConfigError),
}

impl Error {
    /// Wraps an I/O layer error with what was being done.
    pub fn io(what: impl Into<String>, source: linerate_io::Error) -> Error {
        Error::Io {
            what: what.into(),
            source,
        }
    }
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
