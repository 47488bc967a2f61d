//! Whole-machine and per-core CPU from `/proc/stat`, including softirq,
//! with the busiest core.
//!
//! Benchmarks on veth links cannot trust per-process CPU time: the kernel
//! runs the *receiver's* protocol work (softirq) on whichever core raised it,
//! and bills it to whatever process happened to be running there, often the
//! sender. What cannot lie is the per-core tick counters in `/proc/stat`: if
//! the receiving host's packet processing is steered to one core (RPS) and its
//! process is pinned there too, that core's busy time *is* the host's cost.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::error::{Error, Result};

/// Cumulative CPU time of one core (or of all cores), in clock ticks
/// (`USER_HZ`), exactly as the kernel reports it in `/proc/stat`.
///
/// Kept in ticks (integers) so that subtracting two snapshots is exact;
/// convert with [`ticks_per_second`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CpuTimes {
    /// Time in user mode (includes guest time).
    pub user: u64,
    /// Time in user mode at low priority (nice).
    pub nice: u64,
    /// Time in kernel mode, outside interrupts.
    pub system: u64,
    /// Idle time.
    pub idle: u64,
    /// Idle time while waiting for I/O.
    pub iowait: u64,
    /// Time servicing hard interrupts.
    pub irq: u64,
    /// Time servicing soft interrupts: where veth receive processing shows up.
    pub softirq: u64,
    /// Time stolen by the hypervisor (not counted as busy or idle).
    pub steal: u64,
    /// Time running a guest (already included in `user`).
    pub guest: u64,
    /// Time running a niced guest (already included in `nice`).
    pub guest_nice: u64,
}

impl CpuTimes {
    /// Ticks the core spent doing work: user + nice + system + irq + softirq.
    ///
    /// Guest time is already inside user/nice; steal is time the core did
    /// *not* get, so neither is added.
    pub fn busy(&self) -> u64 {
        self.user
            .saturating_add(self.nice)
            .saturating_add(self.system)
            .saturating_add(self.irq)
            .saturating_add(self.softirq)
    }

    /// Ticks the core had nothing to do: idle + iowait.
    pub fn idle_total(&self) -> u64 {
        self.idle.saturating_add(self.iowait)
    }

    /// Busy plus idle ticks: the denominator for utilisation.
    pub fn total(&self) -> u64 {
        self.busy().saturating_add(self.idle_total())
    }

    /// Field-wise `self - earlier`, saturating at zero.
    ///
    /// Saturating because counters of an offlined and re-onlined core can
    /// restart; a negative delta would be meaningless.
    pub fn saturating_sub(&self, earlier: &CpuTimes) -> CpuTimes {
        CpuTimes {
            user: self.user.saturating_sub(earlier.user),
            nice: self.nice.saturating_sub(earlier.nice),
            system: self.system.saturating_sub(earlier.system),
            idle: self.idle.saturating_sub(earlier.idle),
            iowait: self.iowait.saturating_sub(earlier.iowait),
            irq: self.irq.saturating_sub(earlier.irq),
            softirq: self.softirq.saturating_sub(earlier.softirq),
            steal: self.steal.saturating_sub(earlier.steal),
            guest: self.guest.saturating_sub(earlier.guest),
            guest_nice: self.guest_nice.saturating_sub(earlier.guest_nice),
        }
    }

    /// Parses the numbers after the `cpu`/`cpuN` label of a `/proc/stat` line.
    ///
    /// Old kernels print fewer columns; missing trailing columns read as 0,
    /// but at least user, nice, system and idle must be present.
    fn parse_fields<'a>(line: &str, fields: impl Iterator<Item = &'a str>) -> Result<CpuTimes> {
        let mut v = [0u64; 10];
        let mut n = 0;
        for f in fields {
            if n == v.len() {
                break;
            }
            v[n] = f.parse::<u64>().map_err(|e| Error::Parse {
                line: line.to_owned(),
                reason: format!("column {} ({f:?}) is not a number: {e}", n + 1),
            })?;
            n += 1;
        }
        if n < 4 {
            return Err(Error::Parse {
                line: line.to_owned(),
                reason: format!("expected at least 4 columns, found {n}"),
            });
        }
        Ok(CpuTimes {
            user: v[0],
            nice: v[1],
            system: v[2],
            idle: v[3],
            iowait: v[4],
            irq: v[5],
            softirq: v[6],
            steal: v[7],
            guest: v[8],
            guest_nice: v[9],
        })
    }
}

/// The kernel's clock-tick rate (`USER_HZ`, almost always 100), needed to
/// turn `/proc/stat` ticks into seconds.
pub fn ticks_per_second() -> u64 {
    linerate_io::clock::ticks_per_second()
}

/// CPU counters of every core at one instant.
///
/// Take one before and one after a workload and subtract with
/// [`CpuSnapshot::delta_since`].
#[derive(Debug, Clone)]
pub struct CpuSnapshot {
    /// When the snapshot was read (monotonic clock).
    pub taken: Instant,
    /// The aggregate `cpu` line: all cores together.
    pub total: CpuTimes,
    /// One entry per `cpuN` line, `(N, times)`, in the kernel's order.
    /// Offline cores are absent, so index by N, not by position.
    pub cores: Vec<(usize, CpuTimes)>,
}

impl CpuSnapshot {
    /// Reads `/proc/stat` now.
    pub fn take() -> Result<CpuSnapshot> {
        let path = PathBuf::from("/proc/stat");
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Io { path, source })?;
        Self::parse(&text)
    }

    /// Parses the text of `/proc/stat`, stamping it with the current time.
    ///
    /// Separate from [`CpuSnapshot::take`] so the parser can be tested on
    /// fixed input. Lines other than `cpu`/`cpuN` are ignored.
    pub fn parse(text: &str) -> Result<CpuSnapshot> {
        let mut total = None;
        let mut cores = Vec::new();
        for line in text.lines() {
            let mut fields = line.split_ascii_whitespace();
            let Some(label) = fields.next() else { continue };
            let Some(suffix) = label.strip_prefix("cpu") else {
                continue;
            };
            let times = CpuTimes::parse_fields(line, fields)?;
            if suffix.is_empty() {
                total = Some(times);
            } else {
                let n = suffix.parse::<usize>().map_err(|e| Error::Parse {
                    line: line.to_owned(),
                    reason: format!("bad cpu number {suffix:?}: {e}"),
                })?;
                cores.push((n, times));
            }
        }
        let total = total.ok_or_else(|| Error::Parse {
            line: String::new(),
            reason: "no aggregate `cpu` line found".into(),
        })?;
        Ok(CpuSnapshot {
            taken: Instant::now(),
            total,
            cores,
        })
    }

    /// Counters of core `cpu`, if it was online.
    pub fn core(&self, cpu: usize) -> Option<&CpuTimes> {
        self.cores.iter().find(|(n, _)| *n == cpu).map(|(_, t)| t)
    }

    /// What happened between `earlier` and `self`.
    ///
    /// Cores present in only one of the two snapshots (hot-plugged) are left
    /// out rather than guessed.
    pub fn delta_since(&self, earlier: &CpuSnapshot) -> CpuDelta {
        let cores = self
            .cores
            .iter()
            .filter_map(|(n, now)| earlier.core(*n).map(|then| (*n, now.saturating_sub(then))))
            .collect();
        CpuDelta {
            elapsed: self.taken.saturating_duration_since(earlier.taken),
            ticks_per_sec: ticks_per_second(),
            total: self.total.saturating_sub(&earlier.total),
            cores,
        }
    }
}

/// CPU time spent between two snapshots, per core and in total.
#[derive(Debug, Clone)]
pub struct CpuDelta {
    /// Wall-clock time between the snapshots.
    pub elapsed: Duration,
    /// Tick rate used to convert to seconds (see [`ticks_per_second`]).
    pub ticks_per_sec: u64,
    /// Aggregate over all cores, in ticks.
    pub total: CpuTimes,
    /// Per core `(N, ticks)`.
    pub cores: Vec<(usize, CpuTimes)>,
}

/// One core's (or all cores') usage over a [`CpuDelta`], in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CoreUsage {
    /// Core number, or `None` for the all-cores total.
    pub cpu: Option<usize>,
    /// Seconds busy: wall time minus idle time (see [`CpuDelta`]'s
    /// notes on tick sampling), or user + nice + system + irq + softirq
    /// when the snapshots carry no wall time.
    pub busy_secs: f64,
    /// Seconds idle (idle + iowait).
    pub idle_secs: f64,
    /// Of the busy time, seconds in user mode (user + nice), as sampled by the tick.
    pub user_secs: f64,
    /// Of the busy time, seconds in kernel mode outside interrupts.
    pub system_secs: f64,
    /// Of the busy time, seconds in hard and soft interrupts: network
    /// receive work on veth lands here.
    pub irq_secs: f64,
    /// Of `irq_secs`, the soft-interrupt part alone: NAPI polling, RPS and
    /// the protocol stack's receive work.
    pub softirq_secs: f64,
    /// busy / (busy + idle), 0..=1 (per core; for the total, averaged over
    /// the cores). 0 when no ticks elapsed.
    pub utilisation: f64,
}

impl CpuDelta {
    fn usage(&self, cpu: Option<usize>, t: &CpuTimes) -> CoreUsage {
        let hz = self.ticks_per_sec.max(1) as f64;
        let total = t.total();
        let idle_secs = t.idle_total() as f64 / hz;
        let sampled = t.busy() as f64 / hz;
        // Wall time this figure covers: one core, or all of them.
        let cores = if cpu.is_some() {
            1
        } else {
            self.cores.len().max(1)
        };
        let wall = self.elapsed.as_secs_f64() * cores as f64;
        // On a tickless kernel idle time is measured exactly, but busy time
        // is sampled by the timer tick, which aliases with periodic load (a
        // camera at 250 fps on a 250 Hz kernel can look 2% busy while 15%
        // busy). Wall time minus idle does not alias; the sampled sum is
        // the fallback when the snapshots carry no wall time.
        let (busy_secs, utilisation) = if wall > 0.0 && idle_secs <= wall * 1.02 {
            let busy = (wall - idle_secs).max(0.0);
            (busy, (busy / wall).clamp(0.0, 1.0))
        } else if total == 0 {
            (sampled, 0.0)
        } else {
            (sampled, t.busy() as f64 / total as f64)
        };
        CoreUsage {
            cpu,
            busy_secs,
            idle_secs,
            user_secs: (t.user + t.nice) as f64 / hz,
            system_secs: t.system as f64 / hz,
            irq_secs: (t.irq + t.softirq) as f64 / hz,
            softirq_secs: t.softirq as f64 / hz,
            utilisation,
        }
    }

    /// Usage of core `cpu`, or `None` if it was not in both snapshots.
    pub fn core(&self, cpu: usize) -> Option<CoreUsage> {
        self.cores
            .iter()
            .find(|(n, _)| *n == cpu)
            .map(|(n, t)| self.usage(Some(*n), t))
    }

    /// Usage of every core, in the kernel's order.
    pub fn per_core(&self) -> Vec<CoreUsage> {
        self.cores
            .iter()
            .map(|(n, t)| self.usage(Some(*n), t))
            .collect()
    }

    /// The core with the most busy time: the bottleneck of a pipeline that
    /// should be spread out, or the one doing the work of a pinned one.
    pub fn busiest(&self) -> Option<CoreUsage> {
        self.per_core()
            .into_iter()
            .max_by(|a, b| a.busy_secs.total_cmp(&b.busy_secs))
    }

    /// All cores together (`busy_secs` is CPU-seconds, and may exceed
    /// `elapsed`).
    pub fn total(&self) -> CoreUsage {
        self.usage(None, &self.total)
    }
}

/// Runs `f` and returns its result with the CPU time spent meanwhile.
///
/// A convenience for the snapshot/run/snapshot pattern; everything on the
/// machine is counted, not just `f`, which is the point on a pinned bench.
pub fn measure<T>(f: impl FnOnce() -> T) -> Result<(T, CpuDelta)> {
    let before = CpuSnapshot::take()?;
    let out = f();
    let after = CpuSnapshot::take()?;
    Ok((out, after.delta_since(&before)))
}

/// Parses a kernel CPU list (`0-3,8,10-11`, as in
/// `/sys/devices/system/cpu/online` or `smp_affinity_list`); `None` for
/// text that is not one (a backwards or absurdly long range included).
pub fn parse_cpu_list(text: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                if b < a || b - a > 4096 {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().ok()?),
        }
    }
    Some(cpus)
}

/// The online CPUs, from `/sys/devices/system/cpu/online`: what a probe
/// or a pinned thread may be placed on.
pub fn online_cpus() -> Result<Vec<usize>> {
    let path = std::path::Path::new("/sys/devices/system/cpu/online");
    let text = crate::error::read_text(path)?;
    parse_cpu_list(&text).ok_or_else(|| Error::Format {
        path: path.to_owned(),
        reason: format!("not a CPU list: {:?}", text.trim()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT_A: &str = "cpu  100 5 50 1000 10 1 20 0 0 0
cpu0 60 5 30 400 5 1 15 0 0 0
cpu1 40 0 20 600 5 0 5 0 0 0
intr 12345 0 0
ctxt 999
btime 1700000000
";
    const STAT_B: &str = "cpu  200 5 80 1100 10 1 60 0 0 0
cpu0 70 5 35 480 5 1 20 0 0 0
cpu1 130 0 45 620 5 0 40 0 0 0
intr 12345 0 0
";

    #[test]
    fn parses_aggregate_and_cores() -> Result<()> {
        let s = CpuSnapshot::parse(STAT_A)?;
        assert_eq!(s.total.user, 100);
        assert_eq!(s.cores.len(), 2);
        let c0 = s.core(0).copied().unwrap_or_default();
        assert_eq!(c0.softirq, 15);
        assert_eq!(c0.busy(), 60 + 5 + 30 + 1 + 15);
        assert_eq!(c0.idle_total(), 405);
        assert!(s.core(7).is_none());
        Ok(())
    }

    #[test]
    fn delta_and_busiest() -> Result<()> {
        let a = CpuSnapshot::parse(STAT_A)?;
        let b = CpuSnapshot::parse(STAT_B)?;
        let mut d = b.delta_since(&a);
        d.ticks_per_sec = 100;
        let c1 = d.core(1).ok_or_else(|| Error::Parse {
            line: String::new(),
            reason: "no cpu1".into(),
        })?;
        // cpu1: user 90, system 25, softirq 35 => 150 busy ticks, 20 idle.
        assert!((c1.busy_secs - 1.5).abs() < 1e-9);
        assert!((c1.idle_secs - 0.2).abs() < 1e-9);
        assert!((c1.irq_secs - 0.35).abs() < 1e-9);
        assert!((c1.softirq_secs - 0.35).abs() < 1e-9);
        let c0 = d.core(0).ok_or_else(|| Error::Parse {
            line: String::new(),
            reason: "no cpu0".into(),
        })?;
        assert!((c0.softirq_secs - 0.05).abs() < 1e-9);
        assert!((c1.utilisation - 150.0 / 170.0).abs() < 1e-9);
        assert_eq!(d.busiest().and_then(|u| u.cpu), Some(1));
        assert!((d.total().busy_secs - 1.70).abs() < 1e-9);
        assert_eq!(d.per_core().len(), 2);
        Ok(())
    }

    #[test]
    fn old_kernel_short_lines_and_errors() {
        let s = CpuSnapshot::parse("cpu 1 2 3 4\ncpu0 1 2 3 4\n");
        assert!(matches!(s, Ok(ref s) if s.total.iowait == 0 && s.cores.len() == 1));
        assert!(matches!(
            CpuSnapshot::parse("cpu 1 2 3\n"),
            Err(Error::Parse { .. })
        ));
        assert!(matches!(
            CpuSnapshot::parse("cpu 1 2 x 4\n"),
            Err(Error::Parse { .. })
        ));
        assert!(matches!(
            CpuSnapshot::parse("cpu 1 2 3 4\ncpuX 1 2 3 4\n"),
            Err(Error::Parse { .. })
        ));
        assert!(matches!(
            CpuSnapshot::parse("intr 1\n"),
            Err(Error::Parse { .. })
        ));
    }

    #[test]
    fn counters_going_backwards_saturate() -> Result<()> {
        let a = CpuSnapshot::parse(STAT_B)?;
        let b = CpuSnapshot::parse(STAT_A)?;
        let d = b.delta_since(&a);
        assert_eq!(d.total.busy(), 0);
        Ok(())
    }

    #[test]
    fn live_proc_stat_reads() -> Result<()> {
        let (_, d) = measure(|| std::thread::sleep(Duration::from_millis(20)))?;
        assert!(!d.cores.is_empty());
        assert!(d.elapsed >= Duration::from_millis(20));
        assert!(ticks_per_second() > 0);
        Ok(())
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-3,8"), Some(vec![0, 1, 2, 3, 8]));
        assert_eq!(parse_cpu_list("1"), Some(vec![1]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("x"), None);
    }
}
