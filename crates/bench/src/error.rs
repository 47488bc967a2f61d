//! Errors of a bench run, each naming the program, file or value at fault.

use std::path::PathBuf;

/// Why a bench run could not be set up or measured.
///
/// A run whose receiver merely lost frames is not an error: that is a
/// result, and it is reported in its row.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Building or driving the namespace test bench failed.
    #[error("test bench: {0}")]
    Testbed(#[from] linerate_testbed::Error),
    /// Reading CPU counters failed.
    #[error("CPU accounting: {0}")]
    Metrics(#[from] linerate_metrics::Error),
    /// A program the bench runs is not installed.
    #[error("{program} is not installed ({hint})")]
    MissingTool {
        /// The program looked for.
        program: String,
        /// How to get it.
        hint: String,
    },
    /// The Python scenario's interpreter cannot import a package it needs.
    #[error(
        "{python} cannot import {module} ({detail}); scripts/install-deps and scripts/test \
         put it into target/venv (the linerate package with `maturin develop --release -m \
         crates/python/Cargo.toml`, harvesters with pip), or name another interpreter with \
         --python"
    )]
    MissingPythonPackage {
        /// The interpreter tried.
        python: String,
        /// The module it could not import.
        module: String,
        /// What it said.
        detail: String,
    },
    /// A program could not be started.
    #[error("could not start {program}: {source}")]
    Spawn {
        /// The command line.
        program: String,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A program did not finish in time and was killed.
    #[error("{program} did not finish within {seconds:.0} s and was killed")]
    Timeout {
        /// The command line.
        program: String,
        /// How long the bench waited.
        seconds: f64,
    },
    /// A program's output could not be understood.
    #[error("could not read {what} from {program}'s output: {detail}")]
    Output {
        /// The command line.
        program: String,
        /// What the bench looked for.
        what: String,
        /// What was wrong, with an excerpt of the output.
        detail: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// Loading or attaching an XDP program failed.
    #[error("XDP: {0}")]
    Xdp(#[from] linerate_io::Error),
    /// A chart could not be drawn.
    #[error("chart {path}: {detail}")]
    Chart {
        /// The PNG file being drawn.
        path: PathBuf,
        /// The plotting library's message.
        detail: String,
    },
    /// A stop was asked for (SIGINT or SIGTERM) while the run waited.
    #[error("stopped on request")]
    Interrupted,
    /// A bench argument is out of range.
    #[error("{0}")]
    Argument(String),
}

/// Result of the bench's operations.
pub type Result<T> = std::result::Result<T, Error>;
