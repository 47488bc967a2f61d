//! The crate's error type.

use std::process::ExitStatus;

/// Everything that can go wrong building, driving or tearing down a bed.
///
/// Command failures carry the full command line and its stderr, because the
/// kernel's complaint (`RTNETLINK answers: File exists`, an nft syntax error)
/// is the only useful diagnosis and must not be lost.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The spec or an argument is invalid; nothing was changed on the system.
    #[error("invalid testbed spec: {0}")]
    Spec(String),

    /// A host (or interface) name that the bed does not have.
    #[error("testbed {bed:?} has no {what} {name:?}")]
    Unknown {
        /// Bed name.
        bed: String,
        /// "host" or "interface".
        what: &'static str,
        /// The name looked up.
        name: String,
    },

    /// No bed of that name is up (no `lr-<name>-*` namespaces), e.g. for
    /// `Testbed::attach` after `down`.
    #[error("no testbed named {0:?} is up (no lr-{0}-* network namespaces)")]
    NotFound(String),

    /// A command could not be started at all (binary missing, not root...).
    #[error("cannot run `{cmdline}`: {source}{hint}", hint = spawn_hint(source))]
    Spawn {
        /// The command line, shell-quoted for copy and paste.
        cmdline: String,
        /// Why exec failed.
        source: std::io::Error,
    },

    /// A program a feature needs is not on PATH.
    #[error("{program} is not on PATH; {purpose} needs it (install {package})")]
    MissingTool {
        /// The program looked for, e.g. "nft".
        program: &'static str,
        /// What it is needed for, e.g. "packet loss emulation".
        purpose: &'static str,
        /// The usual package, e.g. "nftables".
        package: &'static str,
    },

    /// A command ran and exited non-zero.
    #[error("`{cmdline}` failed ({status}): {stderr}")]
    Command {
        /// The command line, shell-quoted for copy and paste.
        cmdline: String,
        /// Exit status.
        status: ExitStatus,
        /// Its standard error, trimmed.
        stderr: String,
    },

    /// A command succeeded but printed something we could not understand.
    #[error("unexpected output from `{cmdline}`: {detail}")]
    Output {
        /// The command line.
        cmdline: String,
        /// What did not parse.
        detail: String,
    },

    /// A system call or file access failed (setns, affinity, sockets).
    #[error("{context}: {source}")]
    Io {
        /// What we were doing.
        context: String,
        /// The OS error.
        source: std::io::Error,
    },

    /// Reading CPU counters failed.
    #[error(transparent)]
    Metrics(#[from] linerate_metrics::Error),
}

impl Error {
    pub(crate) fn io(context: impl Into<String>, source: impl Into<std::io::Error>) -> Error {
        Error::Io {
            context: context.into(),
            source: source.into(),
        }
    }
}

/// Result alias for this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// The likely fix for a command that could not start, only where the
/// cause points to one: a missing program or a missing privilege. Other
/// causes (an invalid CPU for the pinning, say) speak for themselves.
fn spawn_hint(source: &std::io::Error) -> &'static str {
    match source.kind() {
        std::io::ErrorKind::NotFound => " (are iproute2 and nftables installed?)",
        std::io::ErrorKind::PermissionDenied => " (network namespaces need root)",
        _ => "",
    }
}

#[cfg(test)]
mod spawn_hint_tests {
    use super::*;

    #[test]
    fn the_hint_follows_the_cause() {
        let spawn = |kind| Error::Spawn {
            cmdline: "ip netns exec x true".into(),
            source: std::io::Error::from(kind),
        };
        let missing = spawn(std::io::ErrorKind::NotFound).to_string();
        assert!(missing.contains("iproute2"), "{missing}");
        let invalid = spawn(std::io::ErrorKind::InvalidInput).to_string();
        assert!(
            !invalid.contains("iproute2") && !invalid.contains("root"),
            "{invalid}"
        );
    }
}
