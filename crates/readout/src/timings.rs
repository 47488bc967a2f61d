//! The ACK timings of one board, which the receive thread keeps: the
//! figures that say whether the host answers within microseconds.

use std::time::Duration;

use linerate_metrics::LatencyHistogram;

use crate::ack_clock::SentAt;

/// Highest latency the histograms resolve: 10 s, far past any ACK (a
/// board's idle timeout ends a readout long before); longer ones count as
/// 10 s.
const LATENCY_MAX: Duration = Duration::from_secs(10);

/// An empty latency histogram (linerate's one type for latencies: 1 ns to
/// 10 s, three significant digits).
pub fn latency_histogram() -> LatencyHistogram {
    LatencyHistogram::with_max(LATENCY_MAX)
}

/// One board's ACK timings, in nanoseconds.
#[derive(Debug, Clone)]
pub struct AckTimings {
    /// Receive timestamp to ACK sent: the driver's transmit stamp where
    /// the kernel gives one (a sample, see [`crate::ack_clock`]),
    /// otherwise the return of the ACK's send.
    pub latency: LatencyHistogram,
    /// Receive timestamp to the return of the ACK's send, every ACK (on
    /// veth this includes the peer's receive path, run inside the send).
    pub returned: LatencyHistogram,
    /// Receive timestamp to the receive thread holding the frame: the part
    /// of `latency` spent before linerate had the frame (the kernel's or
    /// the XDP ring's share, and any time the thread was not running).
    pub pickup: LatencyHistogram,
}

impl Default for AckTimings {
    fn default() -> Self {
        AckTimings {
            latency: latency_histogram(),
            returned: latency_histogram(),
            pickup: latency_histogram(),
        }
    }
}

impl AckTimings {
    /// The ACK of a frame stamped `received_ns` (0: no stamp) came back
    /// from its send at `returned_ns`; without driver stamps that is
    /// when it left.
    pub fn sent(&mut self, received_ns: u64, returned_ns: u64, sent_at: SentAt) {
        if received_ns > 0 {
            let t = returned_ns.saturating_sub(received_ns).max(1);
            self.returned.record_ns(t);
            if sent_at == SentAt::SendReturn {
                self.latency.record_ns(t);
            }
        }
    }
}

/// How busy the receive thread was: the time it spent handling frames
/// (from a batch's arrival in its hands to the last of that batch's ACKs,
/// copies, stamp reads and timers) against the time it ran. A thread near
/// saturation queues frames behind every interruption of its CPU, which
/// is where an ACK latency tail comes from; together with a noise probe
/// of that CPU (`linerate noise`) this says how much of a tail the work
/// explains.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadWork {
    /// Frames handed to the readout (DATA and everything else).
    pub frames: u64,
    /// Batches that held at least one frame.
    pub batches: u64,
    /// Nanoseconds spent handling them.
    pub work_ns: u64,
    /// Nanoseconds the receive loop ran.
    pub run_ns: u64,
}

impl ThreadWork {
    /// Counts a batch of `frames` handled in `work_ns`.
    pub fn batch(&mut self, frames: usize, work_ns: u64) {
        self.frames += frames as u64;
        self.batches += 1;
        self.work_ns = self.work_ns.saturating_add(work_ns);
    }

    /// Mean work per frame, µs (0 without frames).
    pub fn us_per_frame(&self) -> f64 {
        if self.frames == 0 {
            0.0
        } else {
            self.work_ns as f64 / self.frames as f64 / 1000.0
        }
    }

    /// Share (0..=1) of the run spent handling frames.
    pub fn busy_share(&self) -> f64 {
        if self.run_ns == 0 {
            0.0
        } else {
            (self.work_ns as f64 / self.run_ns as f64).min(1.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_work_divides_by_frames_and_run_time() {
        let mut w = ThreadWork::default();
        assert_eq!((w.us_per_frame(), w.busy_share()), (0.0, 0.0));
        w.batch(3, 9_000);
        w.batch(1, 3_000);
        w.run_ns = 48_000;
        assert_eq!(w.frames, 4);
        assert_eq!(w.batches, 2);
        assert!((w.us_per_frame() - 3.0).abs() < 1e-12);
        assert!((w.busy_share() - 0.25).abs() < 1e-12);
    }

    #[test]
    fn the_send_return_is_the_latency_only_without_driver_stamps() {
        let mut t = AckTimings::default();
        t.sent(1_000, 6_000, SentAt::DriverStamp);
        assert_eq!((t.returned.count(), t.latency.count()), (1, 0));
        t.sent(1_000, 6_000, SentAt::SendReturn);
        assert_eq!((t.returned.count(), t.latency.count()), (2, 1));
        t.sent(0, 6_000, SentAt::SendReturn);
        assert_eq!(
            t.returned.count(),
            2,
            "a frame without a stamp is not timed"
        );
    }
}
