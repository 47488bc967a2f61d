//! Latency histograms with bounded memory: HdrHistogram recording
//! nanoseconds, summarised in microseconds for reports.
//!
//! One type for every latency linerate measures — frame delivery (last
//! packet received → buffer handed to the application), software trigger →
//! frame delivered, FADE ACK latency — so reports share one JSON shape.
//! Memory is fixed when the histogram is made (about 200 KiB for the
//! default 1 ns … 60 s range at three significant digits); values above the
//! range are recorded as the range's top and counted in `clamped`.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest latency the default histogram resolves: a minute, well past
/// any frame retention or trigger timeout.
pub const DEFAULT_MAX: Duration = Duration::from_secs(60);

/// A latency histogram in nanoseconds with three significant digits.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    hist: Histogram<u64>,
    clamped: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// A histogram for 1 ns … [`DEFAULT_MAX`].
    pub fn new() -> LatencyHistogram {
        Self::with_max(DEFAULT_MAX)
    }

    /// A histogram for 1 ns … `max` (at least 1 µs); memory grows with
    /// log2 of `max`.
    pub fn with_max(max: Duration) -> LatencyHistogram {
        let high = u64::try_from(max.as_nanos()).unwrap_or(u64::MAX).max(1_000);
        // 1 ≤ low, high ≥ 2·low and 3 significant digits are always valid
        // bounds (`high` is at least 1000), so this cannot fail.
        let hist = Histogram::new_with_bounds(1, high, 3)
            .expect("1 ns .. high (>= 1 us) at 3 digits is a valid range");
        LatencyHistogram { hist, clamped: 0 }
    }

    /// Records one latency.
    pub fn record(&mut self, latency: Duration) {
        self.record_ns(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX));
    }

    /// Records one latency given in nanoseconds (0 is recorded as 1 ns,
    /// the histogram's floor).
    pub fn record_ns(&mut self, ns: u64) {
        let high = self.hist.high();
        let v = if ns > high {
            self.clamped += 1;
            high
        } else {
            ns.max(1)
        };
        self.hist.saturating_record(v);
    }

    /// Records the time between two readings of one nanosecond clock;
    /// a `later` before `earlier` (a clock that went backwards) is skipped.
    pub fn record_between_ns(&mut self, earlier_ns: u64, later_ns: u64) {
        if let Some(d) = later_ns.checked_sub(earlier_ns) {
            self.record_ns(d);
        }
    }

    /// Adds every value of `other` (e.g. per-thread histograms at the end).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        // Both have the same bounds or `other`'s fit; values beyond ours
        // are clamped by adding them one bucket at a time.
        if self.hist.add(&other.hist).is_err() {
            for v in other.hist.iter_recorded() {
                let n = v.count_at_value();
                let value = v.value_iterated_to().min(self.hist.high());
                self.hist.saturating_record_n(value, n);
                self.clamped += n;
            }
        }
        self.clamped += other.clamped;
    }

    /// Values recorded so far.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// Forgets every value (memory is kept).
    pub fn reset(&mut self) {
        self.hist.reset();
        self.clamped = 0;
    }

    /// The latency at `quantile` (0..=1), or `None` when empty.
    pub fn quantile(&self, quantile: f64) -> Option<Duration> {
        (!self.hist.is_empty())
            .then(|| Duration::from_nanos(self.hist.value_at_quantile(quantile.clamp(0.0, 1.0))))
    }

    /// Count, mean and percentiles in microseconds, for reports.
    pub fn summary(&self) -> LatencySummary {
        if self.hist.is_empty() {
            return LatencySummary::default();
        }
        let us = |ns: u64| ns as f64 / 1000.0;
        let q = |x: f64| us(self.hist.value_at_quantile(x));
        LatencySummary {
            count: self.hist.len(),
            min_us: us(self.hist.min()),
            mean_us: self.hist.mean() / 1000.0,
            p50_us: q(0.50),
            p90_us: q(0.90),
            p99_us: q(0.99),
            p999_us: q(0.999),
            max_us: us(self.hist.max()),
            clamped: self.clamped,
        }
    }
}

/// A latency distribution in microseconds, as reports print it. All zero
/// when nothing was recorded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencySummary {
    /// Values recorded.
    pub count: u64,
    /// Smallest value.
    pub min_us: f64,
    /// Arithmetic mean.
    pub mean_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// Largest value.
    pub max_us: f64,
    /// Values above the histogram's range, recorded as its top.
    pub clamped: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_known_distribution() {
        let mut h = LatencyHistogram::new();
        for us in 1..=1000u64 {
            h.record(Duration::from_micros(us));
        }
        let s = h.summary();
        assert_eq!(s.count, 1000);
        // Three significant digits: within 0.1 %.
        let near = |a: f64, b: f64| (a - b).abs() <= b * 0.001 + 0.001;
        assert!(near(s.p50_us, 500.0), "{s:?}");
        assert!(near(s.p90_us, 900.0), "{s:?}");
        assert!(near(s.p99_us, 990.0), "{s:?}");
        assert!(near(s.p999_us, 999.0), "{s:?}");
        assert!(near(s.max_us, 1000.0), "{s:?}");
        assert!(near(s.min_us, 1.0), "{s:?}");
        assert!(near(s.mean_us, 500.5), "{s:?}");
        assert_eq!(s.clamped, 0);
        assert_eq!(h.quantile(0.5).map(|d| d.as_micros()), Some(500));
    }

    #[test]
    fn empty_is_all_zero_and_sub_microsecond_resolves() {
        let mut h = LatencyHistogram::new();
        assert_eq!(h.summary(), LatencySummary::default());
        assert_eq!(h.quantile(0.5), None);
        h.record_ns(0);
        h.record_ns(3_000);
        h.record_between_ns(10, 5); // backwards: skipped
        let s = h.summary();
        assert_eq!(s.count, 2);
        assert!((s.min_us - 0.001).abs() < 1e-9, "{s:?}");
        assert!((s.max_us - 3.0).abs() < 0.01, "{s:?}");
    }

    #[test]
    fn values_beyond_the_range_are_clamped_and_counted() {
        let mut h = LatencyHistogram::with_max(Duration::from_millis(1));
        h.record(Duration::from_secs(5));
        h.record(Duration::from_micros(10));
        let s = h.summary();
        assert_eq!(s.count, 2);
        assert_eq!(s.clamped, 1);
        assert!(s.max_us <= 1001.0, "{s:?}");
    }

    #[test]
    fn merge_adds_counts_and_reset_empties() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        a.record(Duration::from_micros(5));
        b.record(Duration::from_micros(7));
        b.record(Duration::from_micros(9));
        a.merge(&b);
        assert_eq!(a.count(), 3);
        let mut small = LatencyHistogram::with_max(Duration::from_millis(1));
        small.merge(&{
            let mut big = LatencyHistogram::new();
            big.record(Duration::from_secs(2));
            big
        });
        assert_eq!(small.summary().clamped, 1);
        a.reset();
        assert_eq!(a.count(), 0);
    }

    #[test]
    fn summary_serialises_in_microseconds() {
        let mut h = LatencyHistogram::new();
        h.record(Duration::from_micros(42));
        let json = serde_json::to_value(h.summary()).expect("serialises");
        assert_eq!(json["count"], 1);
        assert!(json["p99_us"]
            .as_f64()
            .is_some_and(|v| (v - 42.0).abs() < 0.05));
    }
}
