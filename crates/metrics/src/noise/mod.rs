//! How quiet a CPU is, and what that puts out of reach.
//!
//! A receive thread that must answer every frame within microseconds (a
//! FADE ACK, a GigE Vision resend request) can only be as quick as its CPU
//! is available. [`probe`] pins a thread to the CPU and has it read the
//! clock in a tight loop for a while; every jump between two readings is
//! time the CPU spent elsewhere: the timer tick, other interrupts and
//! softirqs, another task, or the hypervisor. From those gaps it derives,
//! for each latency target, the share of events no software on that CPU
//! can handle in time ([`gaps::Floor`]), and [`queue::replay`] estimates
//! what they do to a thread with a given amount of work per event.
//!
//! It is the same measurement as the kernel's `osnoise` tracer or
//! `hwlatdetect`, done from user space so it runs where those are not
//! built in, and reported in the terms of a receiver's latency budget.

pub mod gaps;
pub mod interrupts;
pub mod queue;
pub mod survey;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::cpu::{ticks_per_second, CpuSnapshot};
use crate::error::{Error, Result};
pub use gaps::{Floor, Gap, GapRecorder, GapSummary};
pub use interrupts::{InterruptCount, InterruptSnapshot};
pub use queue::{replay, Load, QueueEstimate};
pub use survey::{
    choose_cpus, survey, CpuReport, SurveyConfig, SurveyError, SurveyObserver, SurveyReport,
};

/// What to probe and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeConfig {
    /// The CPU to pin the probe to (`None`: wherever the scheduler puts
    /// it, which says little).
    pub cpu: Option<usize>,
    /// How long to spin.
    pub duration: Duration,
    /// Shortest jump between two clock readings counted as a gap; a loop
    /// turn itself takes some tens of nanoseconds.
    pub threshold: Duration,
    /// Latency targets to compute the floor for.
    pub targets: Vec<Duration>,
    /// Gaps kept for [`queue::replay`] (16 bytes each); the rest still
    /// count in the summary.
    pub keep_gaps: usize,
}

impl Default for ProbeConfig {
    /// 5 s unpinned, gaps over 1 µs, floors for 10, 30 and 100 µs, up to a
    /// million gaps kept (16 MiB).
    fn default() -> Self {
        ProbeConfig {
            cpu: None,
            duration: Duration::from_secs(5),
            threshold: Duration::from_micros(1),
            targets: [10, 30, 100].map(Duration::from_micros).to_vec(),
            keep_gaps: 1_000_000,
        }
    }
}

/// A probe's findings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NoiseReport {
    /// The CPU probed, if pinned.
    pub cpu: Option<usize>,
    /// The gaps and the floors they set.
    #[serde(flatten)]
    pub gaps: GapSummary,
    /// Share of the probe's time the hypervisor reported stolen from the
    /// CPU (`steal` in `/proc/stat`; 0 on bare metal), if it could be read.
    pub steal_share: Option<f64>,
    /// Interrupts the CPU took during the probe, busiest source first.
    pub interrupts: Vec<InterruptCount>,
}

/// A finished probe: the report, and the gaps for [`queue::replay`].
#[derive(Debug, Clone)]
pub struct Probe {
    /// What it found.
    pub report: NoiseReport,
    /// The gaps kept, in time order.
    pub gaps: Vec<Gap>,
}

impl Probe {
    /// Replays `load` against this probe's gaps ([`queue::replay`]).
    pub fn replay(&self, load: Load) -> QueueEstimate {
        queue::replay(&self.gaps, self.report.gaps.duration_ns, load)
    }
}

/// Spins on `config.cpu` for `config.duration` and reports the gaps. Runs
/// on a thread of its own, so the caller's affinity is left alone. Fails
/// only if the thread cannot be pinned or started; `/proc` figures that
/// cannot be read are left out of the report.
pub fn probe(config: &ProbeConfig) -> Result<Probe> {
    probe_until(config, Arc::new(AtomicBool::new(false)))
}

/// [`probe`], ended early when `stop` becomes true (a signal, say): the
/// report then covers the time spun until then.
pub fn probe_until(config: &ProbeConfig, stop: Arc<AtomicBool>) -> Result<Probe> {
    let config = config.clone();
    let cpu = config.cpu;
    let interrupts_before = cpu.and_then(|c| InterruptSnapshot::take(c).ok());
    let stat_before = CpuSnapshot::take().ok();
    let recorder = std::thread::Builder::new()
        .name("noise-probe".into())
        .spawn(move || spin(&config, &stop))
        .map_err(|source| Error::Probe {
            reason: format!("cannot start the probe thread: {source}"),
        })?
        .join()
        .map_err(|_| Error::Probe {
            reason: "the probe thread panicked".into(),
        })??;
    let summary = recorder.summary();
    let steal_share = match (cpu, stat_before, CpuSnapshot::take().ok()) {
        (Some(c), Some(before), Some(after)) => {
            let d = after.delta_since(&before);
            let secs = d.elapsed.as_secs_f64();
            d.cores
                .iter()
                .find(|(n, _)| *n == c)
                .map(|(_, t)| t.steal as f64 / ticks_per_second() as f64 / secs.max(1e-9))
        }
        _ => None,
    };
    let interrupts = match (cpu, interrupts_before) {
        (Some(c), Some(before)) => InterruptSnapshot::take(c)
            .map(|after| after.since(&before))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    Ok(Probe {
        report: NoiseReport {
            cpu,
            gaps: summary,
            steal_share,
            interrupts,
        },
        gaps: recorder.into_gaps(),
    })
}

/// The probe thread: pin, then read the clock until the time is up.
/// Clock readings between two looks at the stop flag.
const TURNS_PER_STOP_CHECK: u32 = 4096;

fn spin(config: &ProbeConfig, stop: &AtomicBool) -> Result<GapRecorder> {
    if let Some(cpu) = config.cpu {
        crate::thread::pin_current_thread(cpu).map_err(|error| Error::Pin { cpu, error })?;
    }
    let nanos = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    let targets: Vec<u64> = config.targets.iter().map(|&t| nanos(t)).collect();
    let mut recorder = GapRecorder::new(nanos(config.threshold), &targets, config.keep_gaps);
    let end = nanos(config.duration);
    let start = Instant::now();
    recorder.observe(0);
    let mut turns = 0u32;
    loop {
        let now = nanos(start.elapsed());
        recorder.observe(now);
        if now >= end {
            break;
        }
        turns = turns.wrapping_add(1);
        if turns % TURNS_PER_STOP_CHECK == 0 && stop.load(Ordering::Relaxed) {
            break;
        }
    }
    Ok(recorder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_stop_flag_ends_a_long_probe_early() {
        let stop = Arc::new(AtomicBool::new(true));
        let t0 = Instant::now();
        let p = probe_until(
            &ProbeConfig {
                cpu: Some(0),
                duration: Duration::from_secs(60),
                ..ProbeConfig::default()
            },
            stop,
        )
        .expect("CPU 0 is always online");
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert!(p.report.gaps.duration_ns < 5_000_000_000);
    }

    #[test]
    fn a_short_probe_covers_its_duration_and_reports_its_cpu() {
        let p = probe(&ProbeConfig {
            cpu: Some(0),
            duration: Duration::from_millis(50),
            ..ProbeConfig::default()
        })
        .expect("CPU 0 is always online");
        let g = &p.report.gaps;
        assert!(g.duration_ns >= 50_000_000, "{g:?}");
        assert!(g.lost_ns <= g.duration_ns, "{g:?}");
        assert_eq!(g.floors.len(), 3);
        assert_eq!(p.report.cpu, Some(0));
        assert_eq!(p.gaps.len() as u64 + g.gaps_not_kept, g.gaps);
    }

    #[test]
    fn a_cpu_that_does_not_exist_is_refused_by_number() {
        let e = probe(&ProbeConfig {
            cpu: Some(100_000),
            duration: Duration::from_millis(1),
            ..ProbeConfig::default()
        })
        .expect_err("no such CPU");
        assert!(e.to_string().contains("100000"), "{e}");
    }
}
