//! When a controlling host must talk to its camera to keep control.

/// Tracks the last command sent to a device and says when the next
/// heartbeat is due: a third of the device's heartbeat timeout after the
/// last traffic, so two lost heartbeats in a row still leave time for a
/// third before the device gives control away.
#[derive(Debug, Clone)]
pub struct Heartbeat {
    interval_ns: u64,
    last_sent_ns: u64,
}

impl Heartbeat {
    /// A heartbeat for a device whose timeout is `device_timeout_ms`.
    pub fn new(device_timeout_ms: u32, now_ns: u64) -> Heartbeat {
        Heartbeat {
            interval_ns: (u64::from(device_timeout_ms) * 1_000_000 / 3).max(1_000_000),
            last_sent_ns: now_ns,
        }
    }

    /// Any command sent to the device counts as a heartbeat.
    pub fn on_sent(&mut self, now_ns: u64) {
        self.last_sent_ns = self.last_sent_ns.max(now_ns);
    }

    /// When the next heartbeat is due.
    pub fn next_due_ns(&self) -> u64 {
        self.last_sent_ns.saturating_add(self.interval_ns)
    }

    /// True when a heartbeat must be sent now.
    pub fn due(&self, now_ns: u64) -> bool {
        now_ns >= self.next_due_ns()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_third_of_the_timeout() {
        let mut h = Heartbeat::new(3000, 0);
        assert_eq!(h.next_due_ns(), 1_000_000_000);
        assert!(!h.due(999_999_999));
        assert!(h.due(1_000_000_000));
        h.on_sent(1_500_000_000);
        assert_eq!(h.next_due_ns(), 2_500_000_000);
        // Time never goes backwards for the heartbeat.
        h.on_sent(10);
        assert_eq!(h.next_due_ns(), 2_500_000_000);
        assert_eq!(Heartbeat::new(0, 0).next_due_ns(), 1_000_000);
    }
}
