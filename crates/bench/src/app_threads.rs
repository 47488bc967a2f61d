//! The receiver's own application threads, apart from linerate's receive
//! engine inside it: what lets a row say how much of the receiving core
//! went to the receive path and how much to the program around it (a
//! Python loop, Harvesters' fetch loop, grab's session thread).
//!
//! The engine names its threads ([`ENGINE_THREADS`]); every other thread of
//! the receiver's process is the application's. The split is only exact
//! when the whole process runs on the receiving core, as the bench pins it.

use std::time::Duration;

use linerate_metrics::{threads_of, ticks_per_second, NamedThreadCpu};

/// Names of the threads linerate's receive engine starts (in grab, the
/// Python package and the GenTL producer alike).
pub const ENGINE_THREADS: [&str; 2] = ["gvsp-receive", "gvcp-heartbeat"];

/// The receiver's threads at one moment.
#[derive(Debug, Clone, Default)]
pub struct AppThreads {
    threads: Vec<NamedThreadCpu>,
}

impl AppThreads {
    /// Reads the threads of process `pid`; an unreadable process gives an
    /// empty snapshot, so a window is never lost to this side figure.
    pub fn take(pid: Option<u32>) -> AppThreads {
        AppThreads {
            threads: pid.and_then(|p| threads_of(p).ok()).unwrap_or_default(),
        }
    }

    /// CPU time the application's threads (all but the engine's) used
    /// between `earlier` and this snapshot; `None` when either is empty.
    /// A thread born in between counts from zero.
    pub fn application_since(&self, earlier: &AppThreads) -> Option<Duration> {
        if self.threads.is_empty() || earlier.threads.is_empty() {
            return None;
        }
        let ticks: u64 = self
            .threads
            .iter()
            .filter(|t| !ENGINE_THREADS.contains(&t.name.as_str()))
            .map(|t| {
                let before = earlier
                    .threads
                    .iter()
                    .find(|e| e.tid == t.tid)
                    .map(|e| e.cpu)
                    .unwrap_or_default();
                let d = t.cpu.saturating_sub(&before);
                d.utime + d.stime
            })
            .sum();
        Some(Duration::from_secs_f64(
            ticks as f64 / ticks_per_second().max(1) as f64,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate_metrics::ThreadCpu;

    fn thread(tid: i32, name: &str, utime: u64) -> NamedThreadCpu {
        NamedThreadCpu {
            tid,
            name: name.to_owned(),
            cpu: ThreadCpu { utime, stime: 0 },
        }
    }

    #[test]
    fn only_threads_the_engine_did_not_start_count() {
        let before = AppThreads {
            threads: vec![thread(1, "python", 100), thread(2, "gvsp-receive", 100)],
        };
        let after = AppThreads {
            threads: vec![
                thread(1, "python", 100 + 2 * ticks_per_second()),
                thread(2, "gvsp-receive", 100 + 50 * ticks_per_second()),
                thread(3, "python", ticks_per_second()),
            ],
        };
        let app = after.application_since(&before).expect("both read");
        assert!((app.as_secs_f64() - 3.0).abs() < 1e-9, "{app:?}");
    }

    #[test]
    fn an_unread_process_gives_no_figure() {
        let none = AppThreads::take(None);
        assert!(none.application_since(&none).is_none());
        let gone = AppThreads::take(Some(u32::MAX));
        assert!(gone
            .application_since(&AppThreads::take(Some(std::process::id())))
            .is_none());
    }
}
