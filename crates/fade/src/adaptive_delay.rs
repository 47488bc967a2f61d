//! The published FADE core's adaptive inter-packet delay, as a board
//! computes it.
//!
//! The board counts packets it sent and packets it had to resend. Every
//! `window` packets it compares the resend ratio with two thresholds: above
//! `t_high` it multiplies its delay by `alpha_incr` (> 1), below `t_low` by
//! `alpha_decr` (< 1). The controller needs no communication between boards,
//! which is why the FADE paper found it shares a link unfairly; linerate
//! keeps it as the baseline compatible with the published boards.

/// Why a controller configuration is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// Thresholds must satisfy 0 <= t_low <= t_high <= 1.
    #[error(
        "thresholds must satisfy 0 <= t_low <= t_high <= 1, got t_low={t_low} t_high={t_high}"
    )]
    Thresholds {
        /// Lower threshold given.
        t_low: f64,
        /// Upper threshold given.
        t_high: f64,
    },
    /// Factors must satisfy 0 < alpha_decr < 1 < alpha_incr.
    #[error("factors must satisfy 0 < alpha_decr < 1 < alpha_incr, got alpha_decr={alpha_decr} alpha_incr={alpha_incr}")]
    Factors {
        /// Decrease factor given.
        alpha_decr: f64,
        /// Increase factor given.
        alpha_incr: f64,
    },
    /// The evaluation window must hold at least one packet.
    #[error("evaluation window must be at least 1 packet, got {0}")]
    Window(u32),
    /// Delay bounds must satisfy min <= initial <= max.
    #[error("delay bounds must satisfy min <= initial <= max, got min={min_ns} initial={initial_ns} max={max_ns} ns")]
    Bounds {
        /// Smallest delay.
        min_ns: u64,
        /// Starting delay.
        initial_ns: u64,
        /// Largest delay.
        max_ns: u64,
    },
}

/// Parameters of the controller; [`Default`] gives the published core's values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Resend ratio above which the delay grows (published: 1/8).
    pub t_high: f64,
    /// Resend ratio below which the delay shrinks (published: 1/32).
    pub t_low: f64,
    /// Growth factor (published: 1.25).
    pub alpha_incr: f64,
    /// Shrink factor (published: 0.75).
    pub alpha_decr: f64,
    /// Packets between evaluations (published: 10 000).
    pub window: u32,
    /// Starting delay in nanoseconds.
    pub initial_ns: u64,
    /// Smallest delay the controller will choose.
    pub min_ns: u64,
    /// Largest delay the controller will choose.
    pub max_ns: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            t_high: 1.0 / 8.0,
            t_low: 1.0 / 32.0,
            alpha_incr: 1.25,
            alpha_decr: 0.75,
            window: 10_000,
            initial_ns: 1_000,
            min_ns: 0,
            max_ns: 10_000_000,
        }
    }
}

impl Config {
    /// Checks the parameters make a stable controller.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let ok_t = (0.0..=1.0).contains(&self.t_low)
            && (0.0..=1.0).contains(&self.t_high)
            && self.t_low <= self.t_high;
        if !ok_t {
            return Err(ConfigError::Thresholds {
                t_low: self.t_low,
                t_high: self.t_high,
            });
        }
        let factors_ok = self.alpha_decr > 0.0
            && self.alpha_decr < 1.0
            && self.alpha_incr > 1.0
            && self.alpha_incr.is_finite();
        if !factors_ok {
            return Err(ConfigError::Factors {
                alpha_decr: self.alpha_decr,
                alpha_incr: self.alpha_incr,
            });
        }
        if self.window == 0 {
            return Err(ConfigError::Window(self.window));
        }
        if !(self.min_ns <= self.initial_ns && self.initial_ns <= self.max_ns) {
            return Err(ConfigError::Bounds {
                min_ns: self.min_ns,
                initial_ns: self.initial_ns,
                max_ns: self.max_ns,
            });
        }
        Ok(())
    }
}

/// The controller state.
#[derive(Debug, Clone)]
pub struct AdaptiveDelay {
    config: Config,
    delay_ns: f64,
    sent: u32,
    resent: u32,
}

impl AdaptiveDelay {
    /// A controller starting at `config.initial_ns`.
    pub fn new(config: Config) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(AdaptiveDelay {
            config,
            delay_ns: config.initial_ns as f64,
            sent: 0,
            resent: 0,
        })
    }

    /// The delay to wait before the next packet, in nanoseconds.
    pub fn delay_ns(&self) -> u64 {
        self.delay_ns.round() as u64
    }

    /// Records one transmission (`resend` true when the packet was sent
    /// before) and returns the new delay when this packet closed a window.
    pub fn on_packet_sent(&mut self, resend: bool) -> Option<u64> {
        self.sent += 1;
        self.resent += u32::from(resend);
        if self.sent < self.config.window {
            return None;
        }
        let ratio = f64::from(self.resent) / f64::from(self.sent);
        let c = &self.config;
        if ratio > c.t_high {
            // A zero delay cannot grow by multiplication: start from 1 ns.
            self.delay_ns = (self.delay_ns.max(1.0) * c.alpha_incr).min(c.max_ns as f64);
        } else if ratio < c.t_low {
            self.delay_ns = (self.delay_ns * c.alpha_decr).max(c.min_ns as f64);
        }
        self.sent = 0;
        self.resent = 0;
        Some(self.delay_ns())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_window(c: &mut AdaptiveDelay, window: u32, resends: u32) -> Option<u64> {
        let mut last = None;
        for i in 0..window {
            last = c.on_packet_sent(i < resends);
        }
        last
    }

    #[test]
    fn follows_the_seed_rule() {
        let config = Config {
            window: 100,
            initial_ns: 1000,
            ..Config::default()
        };
        let mut c = AdaptiveDelay::new(config).expect("valid");
        // 20% resends > 1/8: delay x1.25
        assert_eq!(run_window(&mut c, 100, 20), Some(1250));
        // 10% is between 1/32 and 1/8: unchanged
        assert_eq!(run_window(&mut c, 100, 10), Some(1250));
        // 1% < 1/32: delay x0.75
        assert_eq!(run_window(&mut c, 100, 1), Some(938));
        // no decision before the window closes
        assert_eq!(c.on_packet_sent(true), None);
    }

    #[test]
    fn stays_within_bounds() {
        let config = Config {
            window: 1,
            initial_ns: 0,
            min_ns: 0,
            max_ns: 2,
            ..Config::default()
        };
        let mut c = AdaptiveDelay::new(config).expect("valid");
        for _ in 0..10 {
            c.on_packet_sent(true);
        }
        assert_eq!(c.delay_ns(), 2);
        for _ in 0..100 {
            c.on_packet_sent(false);
        }
        assert_eq!(c.delay_ns(), 0);
    }

    #[test]
    fn rejects_unstable_configs() {
        let bad = [
            Config {
                t_low: 0.5,
                t_high: 0.1,
                ..Config::default()
            },
            Config {
                alpha_incr: 0.9,
                ..Config::default()
            },
            Config {
                alpha_decr: 1.0,
                ..Config::default()
            },
            Config {
                window: 0,
                ..Config::default()
            },
            Config {
                initial_ns: 5,
                min_ns: 6,
                ..Config::default()
            },
        ];
        for c in bad {
            assert!(AdaptiveDelay::new(c).is_err(), "{c:?} accepted");
        }
        let e = AdaptiveDelay::new(Config {
            window: 0,
            ..Config::default()
        })
        .map(|_| ());
        assert_eq!(
            e.map_err(|e| e.to_string()),
            Err("evaluation window must be at least 1 packet, got 0".into())
        );
    }
}
