//! The pure part of a noise probe: a [`GapRecorder`] is fed the clock
//! readings of a thread that does nothing but read the clock, and keeps
//! every jump between two readings longer than a threshold. Such a jump is
//! time the CPU spent elsewhere: an interrupt handler, a softirq, another
//! task, or (in a virtual machine) the hypervisor running something else.
//!
//! Memory is bounded: the gaps themselves are kept up to a limit (for the
//! queue estimate of [`super::queue`]), and everything else (counts, sums,
//! the histogram, the floors) is accumulated as the gaps come.

use serde::{Deserialize, Serialize};

use crate::latency::{LatencyHistogram, LatencySummary};

/// One stretch of time the spinning thread did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Gap {
    /// When it began, in ns since the probe started.
    pub start_ns: u64,
    /// How long it lasted, in ns.
    pub len_ns: u64,
}

impl Gap {
    /// When it ended, in ns since the probe started.
    pub fn end_ns(&self) -> u64 {
        self.start_ns.saturating_add(self.len_ns)
    }
}

/// For one latency target: how often the CPU's absences alone put an
/// event over it.
///
/// A gap of length `L` covers `L - target` ns of moments at which the CPU
/// stays away for more than `target` ns more; an event (a frame arriving,
/// say) that lands in one of them cannot be handled within `target` by any
/// thread on that CPU, however little work it has. Summed over the gaps and
/// divided by the probe's duration, that is a lower bound on the share of
/// events over `target`: if it reaches 1 %, a p99 under `target` is out of
/// reach on this CPU whatever the software does.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Floor {
    /// The latency target, µs.
    pub target_us: f64,
    /// Gaps longer than the target.
    pub gaps_over: u64,
    /// Lower bound on the share (0..=1) of events that wait longer than the
    /// target.
    pub share_over: f64,
}

/// What a probe's gaps add up to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GapSummary {
    /// How long the probe ran, ns.
    pub duration_ns: u64,
    /// Shortest jump counted as a gap, ns.
    pub threshold_ns: u64,
    /// Gaps counted.
    pub gaps: u64,
    /// Their total length, ns.
    pub lost_ns: u64,
    /// `lost_ns / duration_ns`.
    pub lost_share: f64,
    /// Gap lengths, µs.
    pub gap_us: LatencySummary,
    /// One entry per latency target, in the order asked.
    pub floors: Vec<Floor>,
    /// Gaps not kept for the queue estimate (beyond the recorder's limit).
    pub gaps_not_kept: u64,
}

/// Collects the gaps of one probe.
#[derive(Debug, Clone)]
pub struct GapRecorder {
    threshold_ns: u64,
    first_ns: Option<u64>,
    last_ns: u64,
    hist: LatencyHistogram,
    lost_ns: u64,
    targets_ns: Vec<u64>,
    over: Vec<(u64, u64)>,
    kept: Vec<Gap>,
    keep_at_most: usize,
    not_kept: u64,
}

impl GapRecorder {
    /// A recorder counting jumps longer than `threshold_ns`, computing the
    /// floor for each of `targets_ns`, and keeping at most `keep_at_most`
    /// gaps (16 bytes each) for the queue estimate.
    pub fn new(threshold_ns: u64, targets_ns: &[u64], keep_at_most: usize) -> GapRecorder {
        GapRecorder {
            threshold_ns,
            first_ns: None,
            last_ns: 0,
            hist: LatencyHistogram::new(),
            lost_ns: 0,
            targets_ns: targets_ns.to_vec(),
            over: vec![(0, 0); targets_ns.len()],
            kept: Vec::with_capacity(keep_at_most.min(1 << 16)),
            keep_at_most,
            not_kept: 0,
        }
    }

    /// Takes the next clock reading (ns on any monotonic clock). A reading
    /// before the previous one is ignored.
    #[inline]
    pub fn observe(&mut self, now_ns: u64) {
        let Some(first) = self.first_ns else {
            self.first_ns = Some(now_ns);
            self.last_ns = now_ns;
            return;
        };
        if now_ns <= self.last_ns {
            return;
        }
        let len = now_ns - self.last_ns;
        if len > self.threshold_ns {
            self.gap(self.last_ns - first, len);
        }
        self.last_ns = now_ns;
    }

    fn gap(&mut self, start_ns: u64, len_ns: u64) {
        self.hist.record_ns(len_ns);
        self.lost_ns = self.lost_ns.saturating_add(len_ns);
        for (&t, (count, excess)) in self.targets_ns.iter().zip(self.over.iter_mut()) {
            if len_ns > t {
                *count += 1;
                *excess = excess.saturating_add(len_ns - t);
            }
        }
        if self.kept.len() < self.keep_at_most {
            self.kept.push(Gap { start_ns, len_ns });
        } else {
            self.not_kept += 1;
        }
    }

    /// Time covered by the readings so far, ns.
    pub fn elapsed_ns(&self) -> u64 {
        self.first_ns.map_or(0, |f| self.last_ns - f)
    }

    /// The gaps kept, in time order.
    pub fn gaps(&self) -> &[Gap] {
        &self.kept
    }

    /// The gaps kept, in time order, without copying them.
    pub fn into_gaps(self) -> Vec<Gap> {
        self.kept
    }

    /// What the gaps add up to so far.
    pub fn summary(&self) -> GapSummary {
        let duration_ns = self.elapsed_ns();
        let share = |ns: u64| {
            if duration_ns == 0 {
                0.0
            } else {
                ns as f64 / duration_ns as f64
            }
        };
        GapSummary {
            duration_ns,
            threshold_ns: self.threshold_ns,
            gaps: self.hist.count(),
            lost_ns: self.lost_ns,
            lost_share: share(self.lost_ns),
            gap_us: self.hist.summary(),
            floors: self
                .targets_ns
                .iter()
                .zip(&self.over)
                .map(|(&t, &(gaps_over, excess))| Floor {
                    target_us: t as f64 / 1000.0,
                    gaps_over,
                    share_over: share(excess),
                })
                .collect(),
            gaps_not_kept: self.not_kept,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Readings every 100 ns from 0 to `end`, with the CPU away over each
    /// `(start, len)`.
    fn feed(r: &mut GapRecorder, end: u64, away: &[(u64, u64)]) {
        let mut t = 0;
        while t <= end {
            r.observe(t);
            t += 100;
            if let Some(&(_, len)) = away.iter().find(|&&(s, _)| s == t) {
                t += len;
            }
        }
    }

    #[test]
    fn gaps_over_the_threshold_are_counted_with_their_start() {
        let mut r = GapRecorder::new(1_000, &[30_000], 10);
        feed(&mut r, 1_000_000, &[(10_000, 40_000), (500_000, 900)]);
        // The 900 ns absence is a 1000 ns jump: not over the threshold.
        assert_eq!(
            r.gaps(),
            &[Gap {
                start_ns: 9_900,
                len_ns: 40_100
            }]
        );
        let s = r.summary();
        assert_eq!(s.gaps, 1);
        assert_eq!(s.lost_ns, 40_100);
        assert_eq!(s.floors[0].gaps_over, 1);
        // 10.1 µs of moments at which the CPU stays away over 30 µs more.
        let want = 10_100.0 / s.duration_ns as f64;
        assert!((s.floors[0].share_over - want).abs() < 1e-12, "{s:?}");
    }

    #[test]
    fn floors_follow_each_target() {
        let mut r = GapRecorder::new(1_000, &[10_000, 50_000, 100_000], 10);
        // 1 ms in all: gaps of 20 µs and 60 µs (each jump 100 ns longer).
        feed(&mut r, 1_000_000, &[(100_000, 20_000), (300_000, 60_000)]);
        let s = r.summary();
        let f: Vec<_> = s
            .floors
            .iter()
            .map(|f| (f.gaps_over, f.share_over))
            .collect();
        let d = s.duration_ns as f64;
        assert_eq!(f[0].0, 2);
        assert!((f[0].1 - (10_100.0 + 50_100.0) / d).abs() < 1e-12);
        assert_eq!(f[1].0, 1);
        assert!((f[1].1 - 10_100.0 / d).abs() < 1e-12);
        assert_eq!(f[2], (0, 0.0));
    }

    #[test]
    fn memory_is_bounded_and_the_rest_still_counts() {
        let mut r = GapRecorder::new(10, &[], 2);
        for t in (0..100u64).map(|k| k * 1000) {
            r.observe(t);
        }
        assert_eq!(r.gaps().len(), 2);
        let s = r.summary();
        assert_eq!(s.gaps, 99);
        assert_eq!(s.gaps_not_kept, 97);
    }

    #[test]
    fn a_clock_going_backwards_is_ignored_and_empty_is_zero() {
        let mut r = GapRecorder::new(10, &[5], 4);
        assert_eq!(r.summary().duration_ns, 0);
        assert_eq!(r.summary().floors[0].share_over, 0.0);
        r.observe(1_000);
        r.observe(500);
        r.observe(1_005);
        assert_eq!(r.summary().gaps, 0);
        assert_eq!(r.elapsed_ns(), 5);
    }
}
