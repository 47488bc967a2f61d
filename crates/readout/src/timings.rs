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

#[cfg(test)]
mod tests {
    use super::*;

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
