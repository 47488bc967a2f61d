//! The crate's one error type: every reader here fails the same few ways
//! (a file that cannot be read, text that is not what the kernel prints),
//! and a noise probe that cannot be pinned.

use std::path::PathBuf;

/// Errors from reading or parsing `/proc` files.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read; carries the path so the message says which.
    #[error("cannot read {path}: {source}")]
    Io {
        /// File that failed to read.
        path: PathBuf,
        /// Underlying I/O error.
        source: std::io::Error,
    },
    /// A line did not have the expected shape; carries the line so a
    /// kernel format change is diagnosable from the message alone.
    #[error("malformed /proc line {line:?}: {reason}")]
    Parse {
        /// The offending line.
        line: String,
        /// What was wrong with it.
        reason: String,
    },
    /// A whole file lacked what was looked for (a section, a column, an
    /// interface); carries the path and what was missing.
    #[error("{path}: {reason}")]
    Format {
        /// File that was parsed.
        path: PathBuf,
        /// What was missing or wrong.
        reason: String,
    },
    /// A noise probe could not be pinned to the CPU asked for.
    #[error("cannot pin the noise probe to CPU {cpu}: {error}")]
    Pin {
        /// The CPU asked for.
        cpu: usize,
        /// What sched_setaffinity said.
        error: std::io::Error,
    },
    /// A noise probe's thread could not run.
    #[error("noise probe: {reason}")]
    Probe {
        /// What went wrong.
        reason: String,
    },
}

/// Result alias for this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Reads a whole `/proc` or `/sys` file, naming it in the error.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })
}
