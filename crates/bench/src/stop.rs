//! A bench run's stop request. The command line sets it from its SIGINT
//! and SIGTERM handlers; the bench checks it wherever it waits, so an
//! interrupted run kills its programs, removes its namespaces and still
//! reports what it measured. One bench runs per process, so the request is
//! process-wide, like the signals that raise it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// How often a waiting bench looks at the request.
const POLL: Duration = Duration::from_millis(50);

/// Asks the running bench to stop as soon as it can: the current run ends
/// at its next wait, and no further run starts.
pub fn request_stop() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Whether a stop was asked for.
pub fn stop_requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Sleeps for `length`, or less if a stop is asked for, which is then an
/// error ([`Error::Interrupted`]) that ends the run.
pub fn pause(length: Duration) -> Result<()> {
    let end = Instant::now() + length;
    loop {
        if stop_requested() {
            return Err(Error::Interrupted);
        }
        let now = Instant::now();
        if now >= end {
            return Ok(());
        }
        thread::sleep(POLL.min(end - now));
    }
}
