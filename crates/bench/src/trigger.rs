//! Scenario 5's run: software triggers to frames delivered.

use std::path::Path;

use crate::bed::PairBed;
use crate::config::BenchConfig;
use crate::error::{Error, Result};
use crate::peers::Stream;
use crate::report::Run;

/// Runs `rate_hz` software triggers against the camera with `backend`.
pub fn run(
    _pair: &PairBed,
    _config: &BenchConfig,
    backend: &str,
    _rate_hz: f64,
    _stream: &Stream,
    _dir: &Path,
    _run: &mut Run,
) -> Result<()> {
    Err(Error::Argument(format!(
        "trigger latency with backend {backend}: not built yet"
    )))
}
