//! The figures `linerate fade recv` reports: per board and totals, as one
//! JSON object or a few lines of text.

use linerate_fade::window::WindowCounters;
use linerate_metrics::LatencyHistogram;
use serde_json::{json, Value};

use linerate_readout::ack_clock::AckStampReport;
use linerate_readout::link::BackendReport;
pub use linerate_readout::timings::latency_histogram;

/// What one board's stream came to.
#[derive(Debug, Clone)]
pub struct BoardReport {
    /// The board's MAC address, as text.
    pub mac: String,
    /// In-order bytes delivered to the application (capped at the bytes
    /// asked for).
    pub bytes: u64,
    /// Seconds from the first DATA packet to the last byte delivered.
    pub seconds: f64,
    /// The window's counters.
    pub counters: WindowCounters,
    /// Receive timestamp to ACK sent, nanoseconds.
    pub latency: LatencyHistogram,
    /// Receive timestamp to the return of the ACK's send, nanoseconds
    /// (on veth this includes the peer's receive path).
    pub returned: LatencyHistogram,
    /// Receive timestamp to the receive thread holding the frame,
    /// nanoseconds: how much of `latency` passed before linerate saw the
    /// frame (the kernel's or the XDP ring's share, and any time the
    /// thread was not running).
    pub pickup: LatencyHistogram,
    /// Words of the stream that did not verify (0 when not verifying).
    pub verify_errors: u64,
    /// Bytes the application's reader took from the ring.
    pub bytes_received: u64,
    /// Of those, the bytes checked against the counter stream: only with
    /// `--verify` (null in the JSON otherwise).
    pub verified_bytes: Option<u64>,
    /// Why the stream broke, if it did.
    pub error: Option<String>,
    /// Every byte asked for arrived.
    pub complete: bool,
    /// The `--command` outcome (FADE-10G): its answer, or `{"error": ...}`.
    pub command: Option<Value>,
    /// START/STOP answers (FADE-10G) for commands this host never sent.
    pub foreign_answers: u64,
}

impl BoardReport {
    /// Payload rate in Mbit/s.
    pub fn mbit_per_s(&self) -> f64 {
        mbit(self.bytes, self.seconds)
    }

    /// Received DATA packets the board marked as retransmissions, over all
    /// received DATA packets.
    pub fn retransmit_ratio(&self) -> f64 {
        ratio(self.counters.retransmitted, self.counters.received)
    }

    fn json(&self) -> Value {
        let c = &self.counters;
        let summary = self.latency.summary();
        let mut v = json!({
            "mac": self.mac,
            "bytes": self.bytes,
            "seconds": self.seconds,
            "mbit_per_s": self.mbit_per_s(),
            "retransmit_ratio": self.retransmit_ratio(),
            "ack_latency_us_p50": us(&self.latency, 50.0),
            "ack_latency_us_p99": us(&self.latency, 99.0),
            "ack_latency_us_max": (self.latency.count() > 0).then_some(summary.max_us),
            "acks": self.latency.count(),
            "ack_latency": summary,
            "ack_return_us_p50": us(&self.returned, 50.0),
            "ack_return_us_p99": us(&self.returned, 99.0),
            "pickup_us_p50": us(&self.pickup, 50.0),
            "pickup_us_p99": us(&self.pickup, 99.0),
            "verify_errors": self.verify_errors,
            "bytes_received": self.bytes_received,
            "verified_bytes": self.verified_bytes,
            "packets": c.packets,
            "received": c.received,
            "duplicates": c.duplicates,
            "reacks": c.reacks,
            "retransmitted": c.retransmitted,
            "no_room": c.no_room,
            "rejected": c.rejected,
            "responses": c.responses,
            "conflicts": c.conflicts,
            "stale": c.stale,
            "foreign_answers": self.foreign_answers,
            "complete": self.complete,
            "error": self.error,
        });
        if let Some(c) = &self.command {
            v["command"] = c.clone();
        }
        v
    }
}

/// The whole run: totals over all boards, fairness, and each board.
pub fn json(boards: &[BoardReport], seconds: f64) -> Value {
    let bytes: u64 = boards.iter().map(|b| b.bytes).sum();
    let received: u64 = boards.iter().map(|b| b.counters.received).sum();
    let retransmitted: u64 = boards.iter().map(|b| b.counters.retransmitted).sum();
    let conflicts: u64 = boards.iter().map(|b| b.counters.conflicts).sum();
    let mut all = latency_histogram();
    let mut pickup = latency_histogram();
    let mut returned = latency_histogram();
    for b in boards {
        all.merge(&b.latency);
        pickup.merge(&b.pickup);
        returned.merge(&b.returned);
    }
    let rates: Vec<f64> = boards.iter().map(BoardReport::mbit_per_s).collect();
    json!({
        "bytes": bytes,
        "seconds": seconds,
        "mbit_per_s": mbit(bytes, seconds),
        "retransmit_ratio": ratio(retransmitted, received),
        "conflicts": conflicts,
        "ack_latency_us_p50": us(&all, 50.0),
        "ack_latency_us_p99": us(&all, 99.0),
        "ack_return_us_p50": us(&returned, 50.0),
        "ack_return_us_p99": us(&returned, 99.0),
        "pickup_us_p50": us(&pickup, 50.0),
        "pickup_us_p99": us(&pickup, 99.0),
        "verify_errors": boards.iter().map(|b| b.verify_errors).sum::<u64>(),
        "jain_fairness": jain(&rates),
        "complete": boards.iter().all(|b| b.complete && b.error.is_none()),
        "boards": boards.iter().map(BoardReport::json).collect::<Vec<_>>(),
    })
}

/// Jain's fairness index of `x`: (sum x)^2 / (n * sum x^2), 1 when all are
/// equal, 1/n when one takes everything; 1 for no or all-zero values.
pub fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || sq == 0.0 {
        return 1.0;
    }
    sum * sum / (x.len() as f64 * sq)
}

fn mbit(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds / 1e6
    } else {
        0.0
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The `percent` percentile of `h` in microseconds; `None` (JSON null)
/// when nothing was measured, so an empty histogram never reads as 0 µs.
pub fn us(h: &LatencyHistogram, percent: f64) -> Option<f64> {
    if h.count() == 0 {
        return None;
    }
    h.quantile(percent / 100.0)
        .map(|d| d.as_nanos() as f64 / 1000.0)
}

/// The receive backend and its counters as JSON (`backend` in the report).
pub fn backend_json(r: &BackendReport) -> Value {
    let mut v = json!({ "name": r.backend.name() });
    match &r.socket {
        Ok(c) => {
            v["kernel_frames"] = c.frames.into();
            v["kernel_drops"] = c.drops.into();
        }
        Err(e) => v["kernel_counts_error"] = e.as_str().into(),
    }
    if let Some(x) = &r.xdp {
        v["attach_mode"] = x.attach_mode.name().into();
        v["zero_copy"] = x.zero_copy.into();
        v["passed_to_kernel"] = x.passed_to_kernel.into();
        match &x.stats {
            Ok(s) => {
                v["seen"] = s.seen.into();
                v["received"] = s.received.into();
                v["pending"] = s.pending.into();
                v["dropped"] = s.dropped.into();
                v["fill_ring_empty"] = s.fill_ring_empty.into();
                v["multi_buffer"] = s.multi_buffer.into();
            }
            Err(e) => v["stats_error"] = e.as_str().into(),
        }
    }
    v
}

/// What the ACKs' transmit stamps came to, as JSON (`ack_stamps`).
pub fn stamps_json(r: &AckStampReport) -> Value {
    json!({
        "sent_at": r.sent_at.name(),
        "stamp_every": r.stamp_every,
        "stamps": r.stamps,
        "missing_stamps": r.missing_stamps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_bounds() {
        assert!((jain(&[100.0, 100.0, 100.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[300.0, 0.0, 0.0]) - 1.0 / 3.0).abs() < 1e-12);
        // Seed 004's three boards: 385/416/87 Mbit/s.
        let j = jain(&[385.0, 416.0, 87.0]);
        assert!((j - 0.7993).abs() < 1e-4, "{j}");
        assert_eq!(jain(&[]), 1.0);
    }

    #[test]
    fn totals_add_up_over_boards() {
        let mut h = latency_histogram();
        h.record_ns(3_000);
        let b = BoardReport {
            mac: "02:00:00:00:00:01".into(),
            bytes: 125_000_000,
            seconds: 1.0,
            counters: WindowCounters {
                received: 10,
                retransmitted: 1,
                ..WindowCounters::default()
            },
            latency: h.clone(),
            returned: h.clone(),
            pickup: h,
            verify_errors: 0,
            bytes_received: 125_000_000,
            verified_bytes: Some(125_000_000),
            error: None,
            complete: true,
            command: None,
            foreign_answers: 0,
        };
        let v = json(&[b.clone(), b], 2.0);
        assert_eq!(v["bytes"], 250_000_000);
        assert!((v["mbit_per_s"].as_f64().expect("rate") - 1000.0).abs() < 1e-9);
        assert!((v["retransmit_ratio"].as_f64().expect("ratio") - 0.1).abs() < 1e-12);
        assert!((v["ack_latency_us_p50"].as_f64().expect("p50") - 3.0).abs() < 0.01);
        assert_eq!(v["jain_fairness"], 1.0);
        assert_eq!(v["complete"], true);
        assert_eq!(v["boards"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn nothing_measured_is_null_not_zero() {
        let empty = latency_histogram();
        let b = BoardReport {
            mac: "02:00:00:00:00:01".into(),
            bytes: 0,
            seconds: 0.0,
            counters: WindowCounters::default(),
            latency: empty.clone(),
            returned: empty.clone(),
            pickup: empty,
            verify_errors: 0,
            bytes_received: 0,
            verified_bytes: None,
            error: None,
            complete: false,
            command: None,
            foreign_answers: 0,
        };
        let v = json(&[b], 0.0);
        assert!(v["ack_latency_us_p50"].is_null(), "{v}");
        let board = &v["boards"][0];
        for key in [
            "ack_latency_us_p50",
            "ack_latency_us_p99",
            "ack_latency_us_max",
        ] {
            assert!(board[key].is_null(), "{key}: {board}");
        }
        assert!(board["verified_bytes"].is_null(), "{board}");
        assert_eq!(board["bytes_received"], 0);
    }
}
