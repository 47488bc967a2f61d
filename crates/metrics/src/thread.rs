//! One thread's CPU time from `/proc/self/task/TID/stat`.
//!
//! A receive thread's own user and system time, next to the machine's
//! per-core figures, tells how much of a core the application itself spends
//! and how much is the kernel's softirq work around it. Beware on a veth
//! bench: tick accounting bills softirq to whichever task is running, so a
//! thread can be charged for the sender's or receiver's packet processing.
//! Pin and steer (see [`crate::cpu`]) before trusting the split.
//!
//! The stat line is parsed with `procfs-core`, which copes with thread names
//! holding spaces and parentheses.

use std::path::{Path, PathBuf};
use std::time::Duration;

use procfs_core::FromRead;
use serde::{Deserialize, Serialize};

use crate::cpu::ticks_per_second;
use crate::error::{read_text, Error, Result};

/// The kernel thread id of the calling thread (what `/proc/self/task/`
/// lists), to hand to another thread that reads this one's CPU time.
pub use linerate_io::sched::current_thread_id;

/// Pins the calling thread to a CPU: what a receive thread (and a noise
/// probe measuring its core) does before its CPU time means anything.
pub use linerate_io::sched::pin_current_thread;

/// Cumulative CPU time of one thread, in clock ticks (`USER_HZ`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ThreadCpu {
    /// Ticks in user mode.
    pub utime: u64,
    /// Ticks in kernel mode (system calls, and softirq the tick caught
    /// while this thread ran).
    pub stime: u64,
}

impl ThreadCpu {
    /// Reads thread `tid` of this process from `/proc`.
    pub fn read(tid: i32) -> Result<ThreadCpu> {
        Self::read_from(Path::new("/proc"), tid)
    }

    /// Reads the calling thread's counters.
    pub fn current() -> Result<ThreadCpu> {
        Self::read(current_thread_id())
    }

    /// Reads thread `tid` under a `/proc` root (a fake one in tests).
    pub fn read_from(proc_root: &Path, tid: i32) -> Result<ThreadCpu> {
        let path: PathBuf = proc_root.join(format!("self/task/{tid}/stat"));
        let text = read_text(&path)?;
        Self::parse(&text).map_err(|reason| Error::Format { path, reason })
    }

    /// Parses the text of a `stat` file; the error says what was wrong.
    pub fn parse(text: &str) -> std::result::Result<ThreadCpu, String> {
        parse_stat(text).map(|stat| ThreadCpu::of(&stat))
    }

    /// The CPU times of a parsed `stat` line.
    fn of(stat: &procfs_core::process::Stat) -> ThreadCpu {
        ThreadCpu {
            utime: stat.utime,
            stime: stat.stime,
        }
    }

    /// Field-wise `self - earlier`, saturating at zero.
    pub fn saturating_sub(&self, earlier: &ThreadCpu) -> ThreadCpu {
        ThreadCpu {
            utime: self.utime.saturating_sub(earlier.utime),
            stime: self.stime.saturating_sub(earlier.stime),
        }
    }

    /// These ticks in seconds over a run of `wall` time.
    pub fn usage(&self, wall: Duration) -> ThreadCpuUsage {
        let hz = ticks_per_second().max(1) as f64;
        let user_s = self.utime as f64 / hz;
        let system_s = self.stime as f64 / hz;
        let total_s = user_s + system_s;
        let wall_s = wall.as_secs_f64();
        ThreadCpuUsage {
            user_s,
            system_s,
            total_s,
            pct: if wall_s > 0.0 {
                total_s / wall_s * 100.0
            } else {
                0.0
            },
        }
    }
}

/// One thread of another process, with its name: what tells a receive
/// engine's threads (named by it) from the application's around them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedThreadCpu {
    /// Kernel thread id.
    pub tid: i32,
    /// The thread's name (`comm`), as the process set it.
    pub name: String,
    /// Its cumulative CPU time.
    pub cpu: ThreadCpu,
}

/// Every thread of process `pid`, from `/proc/PID/task/*/stat`. Threads
/// that exit while the directory is read are left out, not an error.
pub fn threads_of(pid: u32) -> Result<Vec<NamedThreadCpu>> {
    threads_of_from(Path::new("/proc"), pid)
}

/// Like [`threads_of`] under a `/proc` root (a fake one in tests).
pub fn threads_of_from(proc_root: &Path, pid: u32) -> Result<Vec<NamedThreadCpu>> {
    let dir = proc_root.join(format!("{pid}/task"));
    let entries = std::fs::read_dir(&dir).map_err(|source| Error::Io {
        path: dir.clone(),
        source,
    })?;
    let mut threads = Vec::new();
    for entry in entries.flatten() {
        let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        let path = entry.path().join("stat");
        // Gone between the listing and the read: it ran no longer.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let stat = parse_stat(&text).map_err(|reason| Error::Format {
            path: path.clone(),
            reason,
        })?;
        threads.push(NamedThreadCpu {
            tid,
            cpu: ThreadCpu::of(&stat),
            name: stat.comm,
        });
    }
    Ok(threads)
}

/// Parses a task's `stat` line; the error says what was wrong.
fn parse_stat(text: &str) -> std::result::Result<procfs_core::process::Stat, String> {
    procfs_core::process::Stat::from_read(text.as_bytes())
        .map_err(|e| format!("not a task stat line: {e}"))
}

/// A thread's CPU time in seconds, ready for a JSON report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ThreadCpuUsage {
    /// Seconds in user mode.
    pub user_s: f64,
    /// Seconds in kernel mode.
    pub system_s: f64,
    /// user + system.
    pub total_s: f64,
    /// total over the wall time, in percent of one core.
    pub pct: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Captured from a receive thread whose name has a space and a
    /// parenthesis, the case that breaks naive whitespace splitting.
    const STAT: &str = "4242 (gvsp (rx) 1) S 4200 4200 11382 0 -1 4194368 98 0 0 0 \
                        1234 567 0 0 20 0 3 0 2753039 3133440 358 18446744073709551615 \
                        1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

    #[test]
    fn parses_utime_and_stime_past_a_tricky_name() {
        let t = ThreadCpu::parse(STAT).expect("valid");
        assert_eq!(
            t,
            ThreadCpu {
                utime: 1234,
                stime: 567
            }
        );
    }

    #[test]
    fn threads_of_a_process_carry_their_names() {
        let dir = std::env::temp_dir().join(format!("lr-metrics-threads-{}", std::process::id()));
        for (tid, stat) in [
            (4242, STAT),
            (4243, &STAT.replace("gvsp (rx) 1", "python")[..]),
        ] {
            let task = dir.join(format!("4200/task/{tid}"));
            std::fs::create_dir_all(&task).expect("mkdir");
            std::fs::write(task.join("stat"), stat).expect("write");
        }
        let mut threads = threads_of_from(&dir, 4200).expect("reads");
        threads.sort_by_key(|t| t.tid);
        let names: Vec<&str> = threads.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["gvsp (rx) 1", "python"]);
        assert_eq!(threads[1].cpu.utime, 1234);
        assert!(threads_of_from(&dir, 4201).is_err(), "no such process");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(ThreadCpu::parse("").is_err());
        assert!(ThreadCpu::parse("12 (x) S 1 2").is_err());
        assert!(ThreadCpu::parse("no parens at all").is_err());
    }

    #[test]
    fn fake_root_and_deltas() {
        let dir = std::env::temp_dir().join(format!("lr-metrics-thread-{}", std::process::id()));
        let task = dir.join("self/task/77");
        std::fs::create_dir_all(&task).expect("mkdir");
        std::fs::write(task.join("stat"), STAT).expect("write");
        let t = ThreadCpu::read_from(&dir, 77).expect("reads");
        assert_eq!(t.utime, 1234);
        let e = ThreadCpu::read_from(&dir, 78).expect_err("no such task");
        assert!(e.to_string().contains("task/78"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
        let d = t.saturating_sub(&ThreadCpu {
            utime: 1000,
            stime: 600,
        });
        assert_eq!(
            d,
            ThreadCpu {
                utime: 234,
                stime: 0
            }
        );
        let u = ThreadCpu {
            utime: 100,
            stime: 50,
        }
        .usage(Duration::from_secs(3));
        let hz = ticks_per_second() as f64;
        assert!((u.total_s - 150.0 / hz).abs() < 1e-9);
        assert!((u.pct - 150.0 / hz / 3.0 * 100.0).abs() < 1e-9);
    }

    #[test]
    fn live_thread_time_grows_with_work() {
        let before = ThreadCpu::current().expect("own stat");
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(60) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let after = ThreadCpu::current().expect("own stat");
        let d = after.saturating_sub(&before);
        assert!(d.utime + d.stime >= 1, "{d:?} after 60 ms of spinning");
    }
}
