//! When the camera produces its next frame, and how many it had to skip.
//!
//! Frames are due at `start + k × period`. When the sender falls behind
//! (the link is saturated), the frames whose slot has already passed are
//! skipped before they get a block id and counted, so a saturated link
//! shows up as skipped frames instead of as an ever-growing backlog. This is
//! what makes "how fast can it go" measurable: ask for 1000 fps and count.

/// What the clock says at a given moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    /// Produce a frame now; `skipped` frames were dropped since the last one.
    Produce {
        /// Frames whose slot passed while the sender was busy.
        skipped: u64,
    },
    /// Nothing is due before this time (nanoseconds, same epoch as `now`).
    WaitUntil(u64),
}

/// A free-running frame clock.
#[derive(Debug, Clone)]
pub struct FrameClock {
    start_ns: u64,
    period_ns: u64,
    next_index: u64,
}

impl FrameClock {
    /// A clock at `fps` frames per second, first frame due at `now_ns`.
    /// Rates at or below zero, or not finite, produce a frame per second.
    pub fn new(fps: f64, now_ns: u64) -> FrameClock {
        let period_ns = if fps.is_finite() && fps > 0.0 {
            ((1e9 / fps).round() as u64).max(1)
        } else {
            1_000_000_000
        };
        FrameClock {
            start_ns: now_ns,
            period_ns,
            next_index: 0,
        }
    }

    /// Nanoseconds between frames.
    pub fn period_ns(&self) -> u64 {
        self.period_ns
    }

    /// When the next frame is due.
    pub fn next_due_ns(&self) -> u64 {
        self.start_ns
            .saturating_add(self.next_index.saturating_mul(self.period_ns))
    }

    /// Asks whether a frame is due at `now_ns`.
    pub fn poll(&mut self, now_ns: u64) -> Tick {
        let due = self.next_due_ns();
        if now_ns < due {
            return Tick::WaitUntil(due);
        }
        // Every slot that started before now, except the latest, is lost.
        let behind = (now_ns - due) / self.period_ns;
        self.next_index += behind + 1;
        Tick::Produce { skipped: behind }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_time_and_counts_skips() {
        let mut c = FrameClock::new(100.0, 1_000);
        assert_eq!(c.period_ns(), 10_000_000);
        assert_eq!(c.poll(1_000), Tick::Produce { skipped: 0 });
        assert_eq!(c.poll(5_000_000), Tick::WaitUntil(10_001_000));
        assert_eq!(c.poll(10_001_000), Tick::Produce { skipped: 0 });
        // 3.5 periods late: frames 2, 3 and 4 are skipped, 5 is produced.
        assert_eq!(
            c.poll(10_001_000 + 45_000_000),
            Tick::Produce { skipped: 3 }
        );
        assert_eq!(c.next_due_ns(), 60_001_000);
    }

    #[test]
    fn odd_rates_are_safe() {
        assert_eq!(FrameClock::new(0.0, 0).period_ns(), 1_000_000_000);
        assert_eq!(FrameClock::new(f64::NAN, 0).period_ns(), 1_000_000_000);
        assert_eq!(FrameClock::new(1e12, 0).period_ns(), 1);
        let mut c = FrameClock::new(1e12, 0);
        assert_eq!(
            c.poll(u64::MAX / 2),
            Tick::Produce {
                skipped: u64::MAX / 2
            }
        );
    }
}
