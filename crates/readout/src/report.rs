//! What a readout came to, per board and in total: [`ReadoutReport`],
//! typed, and serialised to exactly the JSON object `linerate fade recv
//! --json` prints (so scripts, the benchmark harness and tests read it
//! through these types instead of by guessed keys).

use linerate_fade::command::Completion;
use linerate_fade::host::ForeignCommand;
use linerate_fade::window::WindowCounters;
use linerate_metrics::{LatencyHistogram, LatencySummary};
use serde::{Deserialize, Serialize};

use crate::ack_clock::AckStampReport;
use crate::link::BackendReport;
use crate::timings::{latency_histogram, AckTimings, ThreadWork};

/// The whole readout: totals over all boards, fairness, each board, and
/// how the receive thread and its link fared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReadoutReport {
    /// In-order bytes delivered, all boards.
    pub bytes: u64,
    /// Seconds from the start of the readout to its end.
    pub seconds: f64,
    /// `bytes` over `seconds`, in Mbit/s.
    pub mbit_per_s: f64,
    /// DATA packets the boards marked as retransmissions, over all
    /// received DATA packets.
    pub retransmit_ratio: f64,
    /// Duplicates whose bytes differed from the first copy, all boards.
    pub conflicts: u64,
    /// Median ACK latency over all boards, µs (null: none measured).
    pub ack_latency_us_p50: Option<f64>,
    /// 99th percentile of the ACK latency over all boards, µs.
    pub ack_latency_us_p99: Option<f64>,
    /// Median receive stamp to the return of the ACK's send, µs.
    pub ack_return_us_p50: Option<f64>,
    /// 99th percentile of the same, µs.
    pub ack_return_us_p99: Option<f64>,
    /// Median receive stamp to the receive thread holding the frame, µs.
    pub pickup_us_p50: Option<f64>,
    /// 99th percentile of the same, µs.
    pub pickup_us_p99: Option<f64>,
    /// Words that failed verification, all boards.
    pub verify_errors: u64,
    /// Jain's fairness index of the boards' rates (1: all equal).
    pub jain_fairness: f64,
    /// Every board delivered all that was asked, without error.
    pub complete: bool,
    /// Each board, in the order the readout was given them.
    pub boards: Vec<BoardReport>,
    /// `fair` (pacing hints in the ACKs) or `seed` (plain ACKs).
    pub controller: String,
    /// The FADE wire version spoken (`1` or `10g`).
    pub version: String,
    /// The receive backend and its counters.
    pub backend: BackendSummary,
    /// How busy the receive thread was.
    pub receive_thread: ReceiveThreadReport,
    /// Where the reported ACK latency ends (`driver_stamp` or
    /// `send_return`).
    pub ack_sent_at: String,
    /// What the ACKs' transmit stamps came to.
    pub ack_stamps: AckStampsSummary,
    /// Rounds of the fair controller (absent with `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_rounds: Option<u64>,
    /// The link capacity the fair controller divided at the end, bit/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_capacity_bps: Option<u64>,
    /// Times the host's queue guard cut that capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_queue_cuts: Option<u64>,
    /// Rounds the controller ran late.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_late_rounds: Option<u64>,
}

/// What one board's stream came to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BoardReport {
    /// The board's MAC address, as text.
    pub mac: String,
    /// In-order bytes delivered to the application (capped at the bytes
    /// asked for).
    pub bytes: u64,
    /// Seconds from the first DATA packet to the last byte delivered.
    pub seconds: f64,
    /// `bytes` over `seconds`, in Mbit/s.
    pub mbit_per_s: f64,
    /// Received DATA packets the board marked as retransmissions, over all
    /// received DATA packets.
    pub retransmit_ratio: f64,
    /// Median receive stamp to ACK sent, µs (null: none measured).
    pub ack_latency_us_p50: Option<f64>,
    /// 99th percentile of the same, µs.
    pub ack_latency_us_p99: Option<f64>,
    /// Largest of the same, µs.
    pub ack_latency_us_max: Option<f64>,
    /// ACKs whose latency was measured.
    pub acks: u64,
    /// The ACK latency's distribution.
    pub ack_latency: LatencySummary,
    /// Median receive stamp to the return of the ACK's send, µs (on veth
    /// this includes the peer's receive path).
    pub ack_return_us_p50: Option<f64>,
    /// 99th percentile of the same, µs.
    pub ack_return_us_p99: Option<f64>,
    /// Median receive stamp to the receive thread holding the frame, µs:
    /// how much of the latency passed before linerate saw the frame.
    pub pickup_us_p50: Option<f64>,
    /// 99th percentile of the same, µs.
    pub pickup_us_p99: Option<f64>,
    /// Words of the stream that did not verify (0 when not verifying).
    pub verify_errors: u64,
    /// Bytes the application's reader took from the ring.
    pub bytes_received: u64,
    /// Of those, the bytes checked against the counter stream: only when
    /// verifying (null otherwise).
    pub verified_bytes: Option<u64>,
    /// New DATA packets accepted.
    pub packets: u64,
    /// DATA packets seen that fit the stream.
    pub received: u64,
    /// Packets received again after they had been accepted.
    pub duplicates: u64,
    /// ACKs sent again for duplicates.
    pub reacks: u64,
    /// DATA packets the board sent before.
    pub retransmitted: u64,
    /// New packets dropped without ACK because the ring was full.
    pub no_room: u64,
    /// Payloads that were not valid DATA packets.
    pub rejected: u64,
    /// Command responses seen in DATA packets (FADE-10G).
    pub responses: u64,
    /// Duplicates whose bytes differ from the copy received first.
    pub conflicts: u64,
    /// Packets from before the stream's first packet, ignored.
    pub stale: u64,
    /// START/STOP answers (FADE-10G) for commands this host never sent.
    pub foreign_answers: u64,
    /// Every byte asked for arrived (and was read, when verifying).
    pub complete: bool,
    /// Why the stream broke, if it did.
    pub error: Option<String>,
    /// The user command's outcome (FADE-10G), when one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandReport>,
    /// The last of the `foreign_answers`, for a warning; not part of the
    /// JSON report.
    #[serde(skip)]
    pub last_foreign: Option<ForeignCommand>,
}

impl BoardReport {
    /// Why this board's readout did not succeed, in words; `None` when it
    /// did (all delivered, no conflict, command answered, all verified).
    pub fn problem(&self) -> Option<String> {
        if let Some(e) = &self.error {
            Some(e.clone())
        } else if self.conflicts > 0 {
            Some(format!(
                "board {}: {} packets arrived again with different bytes (conflicts): some \
                 delivered data may be forged or corrupt",
                self.mac, self.conflicts
            ))
        } else if let Some(CommandReport::Failed { error }) = &self.command {
            Some(format!("board {}: --command: {error}", self.mac))
        } else if !self.complete {
            Some(format!(
                "board {}: only {} bytes arrived",
                self.mac, self.bytes
            ))
        } else if self.verify_errors > 0 {
            Some(format!(
                "board {}: {} words failed verification",
                self.mac, self.verify_errors
            ))
        } else {
            None
        }
    }
}

/// The outcome of a FADE-10G user command: the board's answer, or why
/// there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum CommandReport {
    /// The board answered.
    Answered(CommandAnswer),
    /// No answer: why.
    Failed {
        /// What went wrong.
        error: String,
    },
}

/// A user command's answer, as `linerate fade command --json` and the
/// readout report show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommandAnswer {
    /// The command's code.
    pub code: u16,
    /// Its seq.
    pub seq: u16,
    /// Its argument.
    pub arg: u32,
    /// The board-defined 8 bytes of the answer, in hex.
    pub response_hex: String,
    /// The same bytes as two big-endian words.
    pub response_words: [u32; 2],
    /// Sends it took.
    pub tries: u32,
    /// From the first send to the answer, µs.
    pub rtt_us: f64,
}

impl From<&Completion> for CommandAnswer {
    fn from(c: &Completion) -> CommandAnswer {
        let word = |at: usize| {
            u32::from_be_bytes([c.data[at], c.data[at + 1], c.data[at + 2], c.data[at + 3]])
        };
        CommandAnswer {
            code: c.command.code(),
            seq: c.seq,
            arg: c.arg,
            response_hex: c.data.iter().map(|b| format!("{b:02x}")).collect(),
            response_words: [word(0), word(4)],
            tries: c.tries,
            rtt_us: c.elapsed_ns as f64 / 1000.0,
        }
    }
}

/// The receive backend and its counters (`backend` in the report). The
/// kernel's counts, or why they could not be read; with AF_XDP also the
/// attachment and the socket's counters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BackendSummary {
    /// `ring`, `raw` or `xdp`.
    pub name: String,
    /// Frames the packet socket matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_frames: Option<u64>,
    /// Frames the kernel dropped for want of room: the boards resend them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_drops: Option<u64>,
    /// Why the kernel's counts could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_counts_error: Option<String>,
    /// AF_XDP: `native` or `generic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_mode: Option<String>,
    /// AF_XDP: whether the socket ran in zero-copy mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_copy: Option<bool>,
    /// AF_XDP: frames that came in through the raw socket instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_to_kernel: Option<u64>,
    /// AF_XDP: frames the program saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<u64>,
    /// AF_XDP: frames received through the socket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<u64>,
    /// AF_XDP: frames still waiting in the socket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<u64>,
    /// AF_XDP: frames dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u64>,
    /// AF_XDP: times the fill ring was empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_ring_empty: Option<u64>,
    /// AF_XDP: multi-buffer frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_buffer: Option<u64>,
    /// AF_XDP: why its counters could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats_error: Option<String>,
}

impl From<&BackendReport> for BackendSummary {
    fn from(r: &BackendReport) -> BackendSummary {
        let mut v = BackendSummary {
            name: r.backend.name().into(),
            kernel_frames: None,
            kernel_drops: None,
            kernel_counts_error: None,
            attach_mode: None,
            zero_copy: None,
            passed_to_kernel: None,
            seen: None,
            received: None,
            pending: None,
            dropped: None,
            fill_ring_empty: None,
            multi_buffer: None,
            stats_error: None,
        };
        match &r.socket {
            Ok(c) => {
                v.kernel_frames = Some(c.frames);
                v.kernel_drops = Some(c.drops);
            }
            Err(e) => v.kernel_counts_error = Some(e.clone()),
        }
        if let Some(x) = &r.xdp {
            v.attach_mode = Some(x.attach_mode.name().into());
            v.zero_copy = Some(x.zero_copy);
            v.passed_to_kernel = Some(x.passed_to_kernel);
            match &x.stats {
                Ok(s) => {
                    v.seen = Some(s.seen);
                    v.received = Some(s.received);
                    v.pending = Some(s.pending);
                    v.dropped = Some(s.dropped);
                    v.fill_ring_empty = Some(s.fill_ring_empty);
                    v.multi_buffer = Some(s.multi_buffer);
                }
                Err(e) => v.stats_error = Some(e.clone()),
            }
        }
        v
    }
}

/// How busy the receive thread was (`receive_thread` in the report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReceiveThreadReport {
    /// Frames handed to the readout.
    pub frames: u64,
    /// Batches that held at least one frame.
    pub batches: u64,
    /// Mean work per frame, µs.
    pub work_us_per_frame: f64,
    /// Share (0..=1) of the run spent handling frames.
    pub busy_share: f64,
}

impl From<ThreadWork> for ReceiveThreadReport {
    fn from(w: ThreadWork) -> ReceiveThreadReport {
        ReceiveThreadReport {
            frames: w.frames,
            batches: w.batches,
            work_us_per_frame: w.us_per_frame(),
            busy_share: w.busy_share(),
        }
    }
}

/// What the ACKs' transmit stamps came to (`ack_stamps` in the report).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AckStampsSummary {
    /// Where the reported ACK latency ends.
    pub sent_at: String,
    /// One ACK in this many asked for a stamp.
    pub stamp_every: u32,
    /// Stamps matched to their ACK.
    pub stamps: u64,
    /// Stamps that never came back.
    pub missing_stamps: u64,
}

impl From<&AckStampReport> for AckStampsSummary {
    fn from(r: &AckStampReport) -> AckStampsSummary {
        AckStampsSummary {
            sent_at: r.sent_at.name().into(),
            stamp_every: r.stamp_every,
            stamps: r.stamps,
            missing_stamps: r.missing_stamps,
        }
    }
}

/// One board's raw results, from which its [`BoardReport`] and the
/// totals are computed.
#[derive(Debug, Clone)]
pub(crate) struct BoardRun {
    pub mac: String,
    pub bytes: u64,
    pub seconds: f64,
    pub counters: WindowCounters,
    pub timings: AckTimings,
    pub verify_errors: u64,
    pub bytes_received: u64,
    pub verified: bool,
    pub error: Option<String>,
    pub complete: bool,
    pub command: Option<CommandReport>,
    pub foreign_answers: u64,
    pub last_foreign: Option<ForeignCommand>,
}

impl BoardRun {
    fn mbit_per_s(&self) -> f64 {
        mbit(self.bytes, self.seconds)
    }

    fn report(&self) -> BoardReport {
        let c = &self.counters;
        let t = &self.timings;
        let summary = t.latency.summary();
        BoardReport {
            mac: self.mac.clone(),
            bytes: self.bytes,
            seconds: self.seconds,
            mbit_per_s: self.mbit_per_s(),
            retransmit_ratio: ratio(c.retransmitted, c.received),
            ack_latency_us_p50: us(&t.latency, 50.0),
            ack_latency_us_p99: us(&t.latency, 99.0),
            ack_latency_us_max: (t.latency.count() > 0).then_some(summary.max_us),
            acks: t.latency.count(),
            ack_latency: summary,
            ack_return_us_p50: us(&t.returned, 50.0),
            ack_return_us_p99: us(&t.returned, 99.0),
            pickup_us_p50: us(&t.pickup, 50.0),
            pickup_us_p99: us(&t.pickup, 99.0),
            verify_errors: self.verify_errors,
            bytes_received: self.bytes_received,
            verified_bytes: self.verified.then_some(self.bytes_received),
            packets: c.packets,
            received: c.received,
            duplicates: c.duplicates,
            reacks: c.reacks,
            retransmitted: c.retransmitted,
            no_room: c.no_room,
            rejected: c.rejected,
            responses: c.responses,
            conflicts: c.conflicts,
            stale: c.stale,
            foreign_answers: self.foreign_answers,
            complete: self.complete,
            error: self.error.clone(),
            command: self.command.clone(),
            last_foreign: self.last_foreign,
        }
    }
}

/// The parts of a [`ReadoutReport`] that are not per board.
#[derive(Debug, Clone)]
pub(crate) struct RunFacts {
    pub seconds: f64,
    pub controller: &'static str,
    pub version: &'static str,
    pub backend: BackendSummary,
    pub receive_thread: ReceiveThreadReport,
    pub ack_stamps: AckStampsSummary,
    /// Rounds, capacity, queue cuts and late rounds of the fair controller.
    pub fair: Option<[u64; 4]>,
}

impl ReadoutReport {
    /// Totals over `boards` and each board's report.
    pub(crate) fn new(boards: &[BoardRun], facts: RunFacts) -> ReadoutReport {
        let bytes: u64 = boards.iter().map(|b| b.bytes).sum();
        let received: u64 = boards.iter().map(|b| b.counters.received).sum();
        let retransmitted: u64 = boards.iter().map(|b| b.counters.retransmitted).sum();
        let conflicts: u64 = boards.iter().map(|b| b.counters.conflicts).sum();
        let mut all = latency_histogram();
        let mut pickup = latency_histogram();
        let mut returned = latency_histogram();
        for b in boards {
            all.merge(&b.timings.latency);
            pickup.merge(&b.timings.pickup);
            returned.merge(&b.timings.returned);
        }
        let rates: Vec<f64> = boards.iter().map(BoardRun::mbit_per_s).collect();
        let seconds = facts.seconds;
        ReadoutReport {
            bytes,
            seconds,
            mbit_per_s: mbit(bytes, seconds),
            retransmit_ratio: ratio(retransmitted, received),
            conflicts,
            ack_latency_us_p50: us(&all, 50.0),
            ack_latency_us_p99: us(&all, 99.0),
            ack_return_us_p50: us(&returned, 50.0),
            ack_return_us_p99: us(&returned, 99.0),
            pickup_us_p50: us(&pickup, 50.0),
            pickup_us_p99: us(&pickup, 99.0),
            verify_errors: boards.iter().map(|b| b.verify_errors).sum(),
            jain_fairness: jain(&rates),
            complete: boards.iter().all(|b| b.complete && b.error.is_none()),
            boards: boards.iter().map(BoardRun::report).collect(),
            controller: facts.controller.into(),
            version: facts.version.into(),
            ack_sent_at: facts.ack_stamps.sent_at.clone(),
            backend: facts.backend,
            receive_thread: facts.receive_thread,
            ack_stamps: facts.ack_stamps,
            fair_rounds: facts.fair.map(|f| f[0]),
            fair_capacity_bps: facts.fair.map(|f| f[1]),
            fair_queue_cuts: facts.fair.map(|f| f[2]),
            fair_late_rounds: facts.fair.map(|f| f[3]),
        }
    }

    /// Why the readout did not succeed, one line per board that failed
    /// (empty: every board delivered all it was asked for, verified).
    pub fn problems(&self) -> Vec<String> {
        self.boards
            .iter()
            .filter_map(BoardReport::problem)
            .collect()
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ack_clock::SentAt;

    #[test]
    fn jain_index_bounds() {
        assert!((jain(&[100.0, 100.0, 100.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[300.0, 0.0, 0.0]) - 1.0 / 3.0).abs() < 1e-12);
        // The published three-board figures: 385/416/87 Mbit/s.
        let j = jain(&[385.0, 416.0, 87.0]);
        assert!((j - 0.7993).abs() < 1e-4, "{j}");
        assert_eq!(jain(&[]), 1.0);
    }

    fn facts(seconds: f64, fair: Option<[u64; 4]>) -> RunFacts {
        RunFacts {
            seconds,
            controller: if fair.is_some() { "fair" } else { "seed" },
            version: "1",
            backend: BackendSummary::from(&BackendReport {
                backend: crate::link::Backend::Ring,
                xdp: None,
                socket: Err("not read".into()),
            }),
            receive_thread: ThreadWork::default().into(),
            ack_stamps: AckStampsSummary::from(&AckStampReport {
                sent_at: SentAt::SendReturn,
                stamp_every: 8,
                stamps: 0,
                missing_stamps: 0,
            }),
            fair,
        }
    }

    fn board(bytes: u64, timings: AckTimings, verified: bool) -> BoardRun {
        BoardRun {
            mac: "02:00:00:00:00:01".into(),
            bytes,
            seconds: if bytes > 0 { 1.0 } else { 0.0 },
            counters: WindowCounters {
                received: 10,
                retransmitted: 1,
                ..WindowCounters::default()
            },
            timings,
            verify_errors: 0,
            bytes_received: bytes,
            verified,
            error: None,
            complete: bytes > 0,
            command: None,
            foreign_answers: 0,
            last_foreign: None,
        }
    }

    #[test]
    fn totals_add_up_over_boards_and_the_json_round_trips() {
        let mut t = AckTimings::default();
        t.latency.record_ns(3_000);
        let b = board(125_000_000, t, true);
        let r = ReadoutReport::new(&[b.clone(), b], facts(2.0, Some([5, 6, 7, 8])));
        let v = serde_json::to_value(&r).expect("json");
        assert_eq!(v["bytes"], 250_000_000);
        assert!((r.mbit_per_s - 1000.0).abs() < 1e-9);
        assert!((r.retransmit_ratio - 0.2 / 2.0).abs() < 1e-12);
        assert!((v["ack_latency_us_p50"].as_f64().expect("p50") - 3.0).abs() < 0.01);
        assert_eq!(v["jain_fairness"], 1.0);
        assert_eq!(v["complete"], true);
        assert_eq!(v["fair_late_rounds"], 8);
        assert_eq!(v["boards"][0]["verified_bytes"], 125_000_000);
        assert!(v["boards"][0].get("command").is_none(), "{v}");
        assert!(r.problems().is_empty());
        let back: ReadoutReport = serde_json::from_value(v).expect("read back");
        assert_eq!(back, r);
    }

    #[test]
    fn nothing_measured_is_null_not_zero_and_seed_has_no_fair_keys() {
        let r = ReadoutReport::new(&[board(0, AckTimings::default(), false)], facts(0.0, None));
        let v = serde_json::to_value(&r).expect("json");
        assert!(v["ack_latency_us_p50"].is_null(), "{v}");
        let b = &v["boards"][0];
        for key in [
            "ack_latency_us_p50",
            "ack_latency_us_p99",
            "ack_latency_us_max",
            "verified_bytes",
            "error",
        ] {
            assert!(b.get(key).is_some_and(|k| k.is_null()), "{key}: {b}");
        }
        assert_eq!(b["bytes_received"], 0);
        assert!(v.get("fair_rounds").is_none(), "{v}");
        assert_eq!(v["backend"]["kernel_counts_error"], "not read");
        assert!(v["backend"].get("kernel_drops").is_none());
        assert_eq!(
            r.problems(),
            ["board 02:00:00:00:00:01: only 0 bytes arrived"]
        );
    }

    #[test]
    fn a_failed_command_is_an_error_object_and_a_problem() {
        let mut b = board(1, AckTimings::default(), false);
        b.command = Some(CommandReport::Failed {
            error: "never sent: the board did not stream".into(),
        });
        let r = ReadoutReport::new(&[b], facts(1.0, None));
        let v = serde_json::to_value(&r).expect("json");
        assert_eq!(
            v["boards"][0]["command"],
            serde_json::json!({"error": "never sent: the board did not stream"})
        );
        assert!(r.problems()[0].contains("--command: never sent"));
    }
}
