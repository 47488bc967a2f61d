//! What a CPU's absences do to a thread that serves a steady stream of
//! events on it: a single-server queue, replayed against the gaps a probe
//! recorded.
//!
//! Events (frames, say) arrive every `interarrival_ns`; each needs
//! `service_ns` of the CPU; the CPU is unavailable during every recorded
//! gap. Replaying the probe's own gaps, rather than a model of them, keeps
//! their real lengths and their clustering. The result estimates the wait
//! before the thread takes each event (its pickup) and the time until it
//! is done with it: what the measured noise alone, with that much work per
//! event, makes of a receiver's latency tail.

use serde::{Deserialize, Serialize};

use super::gaps::Gap;
use crate::latency::{LatencyHistogram, LatencySummary};

/// The load to replay: one event every `interarrival_ns`, each needing
/// `service_ns` of CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Load {
    /// Time between events, ns (a 1 GbE FADE v1 stream: about 8 900).
    pub interarrival_ns: u64,
    /// CPU time each event takes, ns.
    pub service_ns: u64,
}

/// The replay's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QueueEstimate {
    /// The load replayed.
    pub load: Load,
    /// Events replayed (those arriving within the probe).
    pub events: u64,
    /// `service_ns / interarrival_ns`: at 1 or more the queue only grows
    /// and the figures mean nothing.
    pub utilisation: f64,
    /// Arrival to the thread taking the event, µs.
    pub pickup_us: LatencySummary,
    /// Arrival to the thread being done with the event, µs.
    pub done_us: LatencySummary,
}

/// Moves `t` past every gap that covers it; `next` is the index of the
/// first gap not yet passed and only moves forward.
fn skip_gaps(gaps: &[Gap], next: &mut usize, mut t: u64) -> u64 {
    while let Some(g) = gaps.get(*next) {
        if g.end_ns() <= t {
            *next += 1;
        } else if g.start_ns <= t {
            t = g.end_ns();
            *next += 1;
        } else {
            break;
        }
    }
    t
}

/// Replays `load` over `duration_ns` against `gaps` (in time order, not
/// overlapping, as [`super::gaps::GapRecorder`] keeps them).
pub fn replay(gaps: &[Gap], duration_ns: u64, load: Load) -> QueueEstimate {
    let mut pickup = LatencyHistogram::new();
    let mut done = LatencyHistogram::new();
    let mut next = 0;
    let mut free = 0u64;
    let mut events = 0u64;
    let step = load.interarrival_ns.max(1);
    let mut arrival = 0u64;
    while arrival < duration_ns {
        let mut t = skip_gaps(gaps, &mut next, arrival.max(free));
        pickup.record_ns(t - arrival);
        let mut left = load.service_ns;
        while let Some(g) = gaps.get(next).filter(|g| g.start_ns < t + left) {
            left -= g.start_ns - t;
            t = skip_gaps(gaps, &mut next, g.start_ns);
        }
        t += left;
        done.record_ns(t - arrival);
        free = t;
        events += 1;
        arrival += step;
    }
    QueueEstimate {
        load,
        events,
        utilisation: load.service_ns as f64 / step as f64,
        pickup_us: pickup.summary(),
        done_us: done.summary(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOAD: Load = Load {
        interarrival_ns: 10_000,
        service_ns: 4_000,
    };

    #[test]
    fn a_quiet_cpu_takes_every_event_at_once() {
        let e = replay(&[], 1_000_000, LOAD);
        assert_eq!(e.events, 100);
        assert!(e.pickup_us.max_us <= 0.001, "{e:?}");
        assert!((e.done_us.max_us - 4.0).abs() < 0.01, "{e:?}");
        assert!((e.utilisation - 0.4).abs() < 1e-12);
    }

    #[test]
    fn a_gap_delays_the_events_behind_it_until_the_queue_drains() {
        // Away from 5 µs to 55 µs. The event of 0 is done at 4 µs, before
        // the gap; those of 10 ... 50 µs wait for 55 µs, then go one after
        // the other, 4 µs each, until the queue has drained at 87 µs.
        let gaps = [Gap {
            start_ns: 5_000,
            len_ns: 50_000,
        }];
        let e = replay(&gaps, 100_000, LOAD);
        // Pickups at 55, 59, ..., 83 µs for the events of 10 ... 80 µs;
        // the event of 90 µs finds the thread free. Done = pickup + 4.
        let mut h = LatencyHistogram::new();
        for us in [0, 45, 39, 33, 27, 21, 15, 9, 3, 0] {
            h.record_ns(us * 1000);
        }
        let want = h.summary();
        assert_eq!(e.events, 10);
        assert!((e.pickup_us.max_us - 45.0).abs() < 0.05, "{e:?}");
        assert!((e.pickup_us.mean_us - want.mean_us).abs() < 0.05, "{e:?}");
        assert!((e.done_us.max_us - 49.0).abs() < 0.05, "{e:?}");
    }

    #[test]
    fn a_gap_inside_the_work_stretches_it() {
        let gaps = [Gap {
            start_ns: 1_000,
            len_ns: 20_000,
        }];
        let e = replay(&gaps, 10_000, LOAD);
        assert_eq!(e.events, 1);
        // 1 µs of work, 20 µs away, 3 µs more.
        assert!((e.done_us.max_us - 24.0).abs() < 0.05, "{e:?}");
        assert!(e.pickup_us.max_us <= 0.001);
    }

    #[test]
    fn back_to_back_gaps_are_all_skipped() {
        let gaps = [
            Gap {
                start_ns: 0,
                len_ns: 5_000,
            },
            Gap {
                start_ns: 5_000,
                len_ns: 5_000,
            },
        ];
        let e = replay(&gaps, 10_000, LOAD);
        assert!((e.pickup_us.max_us - 10.0).abs() < 0.05, "{e:?}");
    }
}
