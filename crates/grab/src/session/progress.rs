//! Progress of a running grab, readable from any thread: counters the
//! session updates once per frame, a snapshot of them, and the stop
//! request, so a progress bar, a live view or a binding can watch and end
//! a run without touching the session itself.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::report::gbit;
use super::tally::Tally;
use crate::stream::Buffer;

/// The frames counted so far, as a snapshot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct GrabProgress {
    /// Frames delivered with every byte.
    pub frames_completed: u64,
    /// Frames delivered with bytes missing.
    pub frames_incomplete: u64,
    /// Complete frames that passed verification.
    pub frames_verified: u64,
    /// Complete frames that failed verification.
    pub frames_corrupt: u64,
    /// Payload bytes of the frames delivered.
    pub bytes: u64,
    /// Seconds since acquisition started (0 before it does).
    pub seconds: f64,
}

impl GrabProgress {
    /// Frames delivered, complete or not.
    pub fn frames_delivered(&self) -> u64 {
        self.frames_completed + self.frames_incomplete
    }

    /// Payload throughput so far (0 before any time has passed).
    pub fn gbit_per_s(&self) -> f64 {
        gbit(self.bytes, self.seconds)
    }
}

/// The counters behind [`GrabProgress`], shared between the session and
/// its monitors.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    started: OnceLock<Instant>,
    completed: AtomicU64,
    incomplete: AtomicU64,
    verified: AtomicU64,
    corrupt: AtomicU64,
    bytes: AtomicU64,
}

impl Counters {
    /// Marks acquisition as started now.
    pub fn start(&self, at: Instant) {
        let _ = self.started.set(at);
    }

    /// Takes in the tally after `buffer` was counted.
    pub fn record(&self, tally: &Tally, buffer: &Buffer) {
        self.completed.store(tally.completed, Ordering::Relaxed);
        self.incomplete.store(tally.incomplete, Ordering::Relaxed);
        self.verified.store(tally.verified, Ordering::Relaxed);
        self.corrupt.store(tally.corrupt, Ordering::Relaxed);
        self.bytes
            .fetch_add(buffer.info().received_bytes as u64, Ordering::Relaxed);
    }

    /// The counters as they are now.
    pub fn snapshot(&self) -> GrabProgress {
        GrabProgress {
            frames_completed: self.completed.load(Ordering::Relaxed),
            frames_incomplete: self.incomplete.load(Ordering::Relaxed),
            frames_verified: self.verified.load(Ordering::Relaxed),
            frames_corrupt: self.corrupt.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            seconds: self
                .started
                .get()
                .map_or(0.0, |s| s.elapsed().as_secs_f64()),
        }
    }
}

/// Watches a session from another thread: its progress, and a way to end
/// it early. Cheap to clone; every clone watches the same session.
#[derive(Debug, Clone)]
pub struct GrabMonitor {
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) counters: Arc<Counters>,
}

impl GrabMonitor {
    /// The frames counted so far.
    pub fn progress(&self) -> GrabProgress {
        self.counters.snapshot()
    }

    /// Asks the session to end: it stops acquisition, releases the camera
    /// and reports what arrived (within about 50 ms, or at once if it has
    /// not started acquiring).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_monitor_sees_the_counters_and_sets_the_stop_flag() {
        let monitor = GrabMonitor {
            stop: Arc::new(AtomicBool::new(false)),
            counters: Arc::new(Counters::default()),
        };
        assert_eq!(monitor.progress(), GrabProgress::default());
        let tally = Tally {
            completed: 3,
            incomplete: 1,
            verified: 2,
            corrupt: 1,
            ..Tally::default()
        };
        monitor.counters.start(Instant::now());
        monitor.counters.record(&tally, &Buffer::default());
        let p = monitor.clone().progress();
        assert_eq!(
            (
                p.frames_completed,
                p.frames_incomplete,
                p.frames_verified,
                p.frames_corrupt
            ),
            (3, 1, 2, 1)
        );
        assert_eq!(p.frames_delivered(), 4);
        assert!(p.seconds >= 0.0 && p.gbit_per_s() == 0.0);
        assert!(!monitor.stop_requested());
        monitor.clone().stop();
        assert!(monitor.stop_requested());
    }
}
