//! Why a board could not start, or had to stop.

use linerate_fade::adaptive_delay::ConfigError;

/// A board failure, with the interface or setting involved.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    /// The adaptive delay's parameters make no stable controller.
    #[error("adaptive delay parameters: {0}")]
    Delay(#[from] ConfigError),
    /// FADE-10G's jumbo DATA frames do not fit the interface's MTU: every
    /// send would fail and the host would only stall.
    #[error("FADE-10G needs an MTU of at least {need} on {interface} ({need}-byte DATA packets), but it is {mtu}: use jumbo frames (e.g. ip link set {interface} mtu 9000)")]
    Mtu {
        /// The interface.
        interface: String,
        /// Its MTU.
        mtu: u32,
        /// The MTU a DATA packet needs.
        need: u32,
    },
    /// A socket operation failed.
    #[error("{what} on {interface}: {source}")]
    Io {
        /// What was attempted.
        what: &'static str,
        /// The board's interface.
        interface: String,
        /// The I/O layer's error.
        #[source]
        source: linerate_io::Error,
    },
    /// The board thread could not be started.
    #[error("starting the board thread: {0}")]
    Thread(#[source] std::io::Error),
    /// The board thread panicked: a bug, reported instead of propagated.
    #[error("the board thread panicked")]
    Panicked,
}
