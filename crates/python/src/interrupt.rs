//! Blocking calls that Ctrl-C can interrupt: the work runs on a thread of
//! its own while the caller waits without the GIL, looking for signals
//! every 50 ms. A call that is interrupted is left to finish on its
//! thread (it is bounded by its own timeout) and its result is dropped.

use std::sync::mpsc;
use std::time::Duration;

use pyo3::prelude::*;

use crate::errors;

/// How often a wait looks for Ctrl-C (and other signals).
pub const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own (which inherits this thread's
/// network namespace) and waits for its result with the GIL released,
/// raising KeyboardInterrupt within [`SIGNAL_POLL`] of a Ctrl-C.
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name(what.into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| errors::Error::new_err(format!("starting the {what} thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver goes into the GIL-free closure and back (it may
        // not be shared between threads).
        let (got, back) = py.detach(move || (rx.recv_timeout(SIGNAL_POLL), rx));
        rx = back;
        match got {
            Ok(value) => return Ok(value),
            Err(mpsc::RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(errors::Error::new_err(format!(
                    "the {what} thread panicked"
                )))
            }
        }
    }
}
