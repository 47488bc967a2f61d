//! Live per-board figures while a readout runs (retransmissions, ACKs and
//! ACK latency), for a live view: the receive thread publishes them about
//! four times a second through a try-lock, so it never waits. When a
//! reader holds the lock that moment, that update is skipped.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Nanoseconds between two updates.
pub(crate) const EVERY_NS: u64 = 250_000_000;

/// One board's figures so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LiveBoard {
    /// Packets received (new and duplicate).
    pub received: u64,
    /// Packets the board sent again (seen as retransmissions).
    pub retransmitted: u64,
    /// ACK latency samples taken.
    pub acks: u64,
    /// Median ACK latency so far, microseconds (None before any sample).
    pub ack_latency_p50_us: Option<f64>,
    /// 99th percentile of the ACK latency so far, microseconds.
    pub ack_latency_p99_us: Option<f64>,
}

/// The figures, shared between the receive thread and its watchers.
/// Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct LiveFigures(Arc<Mutex<Vec<LiveBoard>>>);

impl LiveFigures {
    /// Each board's figures at the last update, in the order of the boards
    /// (empty before the first).
    pub fn boards(&self) -> Vec<LiveBoard> {
        match self.0.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Replaces the figures unless a watcher holds the lock right now.
    pub(crate) fn try_publish(&self, boards: Vec<LiveBoard>) {
        if let Ok(mut g) = self.0.try_lock() {
            *g = boards;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_figures_are_read_back_and_a_held_lock_skips_the_update() {
        let live = LiveFigures::default();
        assert!(live.boards().is_empty());
        let board = LiveBoard {
            retransmitted: 3,
            ..LiveBoard::default()
        };
        live.try_publish(vec![board.clone()]);
        assert_eq!(live.boards(), vec![board.clone()]);
        let held = live.0.lock();
        live.try_publish(Vec::new());
        drop(held);
        assert_eq!(live.boards(), vec![board]);
    }
}
