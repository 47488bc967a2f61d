//! The stream's health as the page and scrapers see it: cumulative
//! counters the running stream publishes, turned once a second into rates
//! with the machine's CPU and kernel drops, kept for the last 60 s, as JSON
//! (`/api/stats`) and Prometheus text (`/metrics`).

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Seconds of history kept for the charts.
pub const HISTORY_SECONDS: usize = 60;

/// What a running stream has counted so far (totals since it started);
/// published by the stream's side whenever it likes, read once a second.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Counters {
    /// What is being shown: "grab" or "fade".
    pub source: String,
    /// Whether frames or data are flowing (false when stopped).
    pub running: bool,
    /// Frames delivered with every byte.
    pub frames_completed: u64,
    /// Frames delivered with bytes missing.
    pub frames_incomplete: u64,
    /// Payload bytes received.
    pub bytes: u64,
    /// Stream packets received (0 when the source does not count them).
    pub packets_received: u64,
    /// Packets never received.
    pub packets_missing: u64,
    /// Packets the camera resent on request.
    pub packets_resent: u64,
    /// Width of the latest frame.
    pub width: u32,
    /// Height of the latest frame.
    pub height: u32,
    /// Pixel format of the latest frame.
    pub pixel_format: String,
    /// Bytes per frame the camera announces (PayloadSize).
    pub payload_size: u64,
    /// CPU seconds the stream's receive thread has used (None when the
    /// source does not measure it).
    pub receive_thread_cpu_s: Option<f64>,
    /// Per-board counters (FADE readout).
    pub boards: Vec<BoardCounters>,
    /// Why the stream stopped, if an error stopped it.
    pub error: Option<String>,
}

/// One FADE board's totals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BoardCounters {
    /// The board's MAC address.
    pub name: String,
    /// Bytes read out of its ring.
    pub bytes: u64,
    /// Packets received from it.
    pub packets_received: u64,
    /// Packets it retransmitted.
    pub retransmitted: u64,
    /// Median ACK latency so far, microseconds.
    pub ack_latency_p50_us: Option<f64>,
    /// 99th percentile of the ACK latency so far, microseconds.
    pub ack_latency_p99_us: Option<f64>,
}

/// Machine-wide figures sampled alongside the counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Machine {
    /// Busiest core's utilisation over the last second, percent (the
    /// receiving core on a pinned or single-stream host).
    pub cpu_busiest_core_pct: f64,
    /// Average utilisation of all cores over the last second, percent.
    pub cpu_avg_pct: f64,
    /// Packets the kernel dropped (UDP receive-buffer errors, interface
    /// rx drops, softnet drops) since the view started.
    pub kernel_drops: u64,
}

/// One second of history.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Point {
    /// Seconds since the view started.
    pub t: f64,
    /// Frames delivered per second (complete or not).
    pub frames_per_s: f64,
    /// Payload Gbit/s.
    pub gbit_per_s: f64,
    /// Incomplete frames per second.
    pub incomplete_per_s: f64,
    /// Missing packets per second.
    pub missing_per_s: f64,
    /// Resent packets per second.
    pub resent_per_s: f64,
    /// Busiest core, percent.
    pub cpu_busiest_core_pct: f64,
    /// Average of all cores, percent.
    pub cpu_avg_pct: f64,
    /// Kernel drops per second.
    pub kernel_drops_per_s: f64,
    /// The receive thread's CPU, percent of one core.
    pub receive_thread_cpu_pct: Option<f64>,
    /// Each board's Mbit/s (FADE).
    pub board_mbit_per_s: Vec<f64>,
}

/// One board's figures now.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BoardStats {
    /// The board's MAC address.
    pub name: String,
    /// Bytes read so far.
    pub bytes: u64,
    /// Mbit/s over the rate window.
    pub mbit_per_s: f64,
    /// Packets received so far.
    pub packets_received: u64,
    /// Packets it retransmitted so far.
    pub retransmitted: u64,
    /// Median ACK latency so far, microseconds.
    pub ack_latency_p50_us: Option<f64>,
    /// 99th percentile of the ACK latency so far, microseconds.
    pub ack_latency_p99_us: Option<f64>,
}

/// Everything `/api/stats` returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Stats {
    /// The stream's totals as last published.
    pub counters: Counters,
    /// The machine's figures over the last second.
    pub machine: Machine,
    /// Frames per second over the last second.
    pub frames_per_s: f64,
    /// Payload Gbit/s over the last second.
    pub gbit_per_s: f64,
    /// The stream's receive thread's CPU over the rate window, percent of
    /// one core (the receiving core's share this stream takes).
    pub receive_thread_cpu_pct: Option<f64>,
    /// Boards' rates (FADE; empty otherwise).
    pub boards: Vec<BoardStats>,
    /// Sum of the boards' Mbit/s.
    pub boards_total_mbit_per_s: f64,
    /// Jain's fairness index of the boards' rates (1: equal shares; None
    /// without boards or while none sends).
    pub jain_fairness: Option<f64>,
    /// The last 60 s, oldest first.
    pub history: Vec<Point>,
    /// Frames the display thread encoded.
    pub frames_displayed: u64,
    /// Pictures (JPEGs) sent to pages: what shows that a browser really
    /// has the page open and follows the stream (the bench's `view`
    /// scenario checks it).
    #[serde(default)]
    pub pictures_served: u64,
    /// Times the page itself was fetched.
    #[serde(default)]
    pub page_loads: u64,
}

/// Jain's fairness index of `rates`: (Σx)² / (n Σx²).
pub fn jain_fairness(rates: &[f64]) -> Option<f64> {
    let sum: f64 = rates.iter().sum();
    let squares: f64 = rates.iter().map(|x| x * x).sum();
    (!rates.is_empty() && squares > 0.0).then(|| sum * sum / (rates.len() as f64 * squares))
}

/// Seconds the headline rates average over: a 1-s window of a 25 fps
/// camera jitters by a frame (4 %); three seconds settle it.
pub const RATE_WINDOW_SECONDS: usize = 3;

/// A counter snapshot with when it was taken and the kernel drops then.
#[derive(Debug, Clone)]
struct Snapshot {
    at: Instant,
    counters: Counters,
    drops: u64,
}

/// Rates between two snapshots.
struct Rates {
    frames_per_s: f64,
    gbit_per_s: f64,
    receive_thread_cpu_pct: Option<f64>,
    boards: Vec<BoardStats>,
}

fn rates(before: &Snapshot, after: &Snapshot) -> Rates {
    let secs = after.at.duration_since(before.at).as_secs_f64().max(1e-6);
    let rate = |a: u64, b: u64| a.saturating_sub(b) as f64 / secs;
    let (a, b) = (&after.counters, &before.counters);
    Rates {
        frames_per_s: rate(
            a.frames_completed + a.frames_incomplete,
            b.frames_completed + b.frames_incomplete,
        ),
        gbit_per_s: rate(a.bytes, b.bytes) * 8.0 / 1e9,
        receive_thread_cpu_pct: a
            .receive_thread_cpu_s
            .zip(b.receive_thread_cpu_s)
            .map(|(a, b)| ((a - b) / secs * 100.0).max(0.0)),
        boards: a
            .boards
            .iter()
            .map(|board| {
                let earlier = b
                    .boards
                    .iter()
                    .find(|e| e.name == board.name)
                    .map_or(0, |e| e.bytes);
                BoardStats {
                    name: board.name.clone(),
                    bytes: board.bytes,
                    mbit_per_s: rate(board.bytes, earlier) * 8.0 / 1e6,
                    packets_received: board.packets_received,
                    retransmitted: board.retransmitted,
                    ack_latency_p50_us: board.ack_latency_p50_us,
                    ack_latency_p99_us: board.ack_latency_p99_us,
                }
            })
            .collect(),
    }
}

/// Turns successive counter snapshots into rates and history.
#[derive(Debug)]
pub struct Accumulator {
    started: Instant,
    recent: VecDeque<Snapshot>,
    history: VecDeque<Point>,
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            started: Instant::now(),
            recent: VecDeque::with_capacity(RATE_WINDOW_SECONDS + 1),
            history: VecDeque::with_capacity(HISTORY_SECONDS),
        }
    }
}

impl Accumulator {
    /// Takes in the counters and machine figures at `now` (call about once
    /// a second) and returns the stats: the headline rates over the last
    /// [`RATE_WINDOW_SECONDS`], the history point over the last call.
    pub fn sample(&mut self, now: Instant, counters: Counters, machine: Machine) -> Stats {
        let current = Snapshot {
            at: now,
            counters,
            drops: machine.kernel_drops,
        };
        if let Some(previous) = self.recent.back() {
            let r = rates(previous, &current);
            let secs = now.duration_since(previous.at).as_secs_f64().max(1e-6);
            let per_s = |a: u64, b: u64| a.saturating_sub(b) as f64 / secs;
            let (a, b) = (&current.counters, &previous.counters);
            if self.history.len() == HISTORY_SECONDS {
                self.history.pop_front();
            }
            self.history.push_back(Point {
                t: now.duration_since(self.started).as_secs_f64(),
                frames_per_s: r.frames_per_s,
                gbit_per_s: r.gbit_per_s,
                incomplete_per_s: per_s(a.frames_incomplete, b.frames_incomplete),
                missing_per_s: per_s(a.packets_missing, b.packets_missing),
                resent_per_s: per_s(a.packets_resent, b.packets_resent),
                cpu_busiest_core_pct: machine.cpu_busiest_core_pct,
                cpu_avg_pct: machine.cpu_avg_pct,
                kernel_drops_per_s: per_s(current.drops, previous.drops),
                receive_thread_cpu_pct: r.receive_thread_cpu_pct,
                board_mbit_per_s: r.boards.iter().map(|b| b.mbit_per_s).collect(),
            });
        }
        let headline = match self.recent.front() {
            Some(oldest) => rates(oldest, &current),
            None => Rates {
                frames_per_s: 0.0,
                gbit_per_s: 0.0,
                receive_thread_cpu_pct: None,
                boards: rates(&current, &current).boards,
            },
        };
        if self.recent.len() == RATE_WINDOW_SECONDS {
            self.recent.pop_front();
        }
        self.recent.push_back(current.clone());
        let board_rates: Vec<f64> = headline.boards.iter().map(|b| b.mbit_per_s).collect();
        Stats {
            counters: current.counters,
            machine,
            frames_per_s: headline.frames_per_s,
            gbit_per_s: headline.gbit_per_s,
            receive_thread_cpu_pct: headline.receive_thread_cpu_pct,
            boards_total_mbit_per_s: board_rates.iter().fold(0.0, |a, b| a + b),
            jain_fairness: jain_fairness(&board_rates),
            boards: headline.boards,
            history: self.history.iter().cloned().collect(),
            frames_displayed: 0,
            pictures_served: 0,
            page_loads: 0,
        }
    }
}

/// The stats in Prometheus' text exposition format.
pub fn prometheus(stats: &Stats) -> String {
    let mut out = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, value: f64| {
        let _ = writeln!(out, "# HELP linerate_{name} {help}");
        let _ = writeln!(out, "# TYPE linerate_{name} {kind}");
        let _ = writeln!(out, "linerate_{name} {value}");
    };
    let c = &stats.counters;
    metric(
        "frames_per_second",
        "gauge",
        "Frames delivered per second over the last second.",
        stats.frames_per_s,
    );
    metric(
        "gbit_per_second",
        "gauge",
        "Payload Gbit/s over the last second.",
        stats.gbit_per_s,
    );
    metric(
        "frames_completed_total",
        "counter",
        "Frames delivered with every byte.",
        c.frames_completed as f64,
    );
    metric(
        "frames_incomplete_total",
        "counter",
        "Frames delivered with bytes missing.",
        c.frames_incomplete as f64,
    );
    metric(
        "bytes_total",
        "counter",
        "Payload bytes received.",
        c.bytes as f64,
    );
    metric(
        "packets_received_total",
        "counter",
        "Stream packets received.",
        c.packets_received as f64,
    );
    metric(
        "packets_missing_total",
        "counter",
        "Stream packets never received.",
        c.packets_missing as f64,
    );
    metric(
        "packets_resent_total",
        "counter",
        "Stream packets resent on request.",
        c.packets_resent as f64,
    );
    metric(
        "kernel_drops_total",
        "counter",
        "Packets the kernel dropped since the view started.",
        stats.machine.kernel_drops as f64,
    );
    metric(
        "cpu_busiest_core_percent",
        "gauge",
        "Busiest core's utilisation over the last second.",
        stats.machine.cpu_busiest_core_pct,
    );
    metric(
        "cpu_average_percent",
        "gauge",
        "Average utilisation of all cores over the last second.",
        stats.machine.cpu_avg_pct,
    );
    if let Some(pct) = stats.receive_thread_cpu_pct {
        metric(
            "receive_thread_cpu_percent",
            "gauge",
            "The stream's receive thread's CPU, percent of one core.",
            pct,
        );
    }
    metric(
        "frame_width_pixels",
        "gauge",
        "Width of the latest frame.",
        f64::from(c.width),
    );
    metric(
        "frame_height_pixels",
        "gauge",
        "Height of the latest frame.",
        f64::from(c.height),
    );
    if !stats.boards.is_empty() {
        type BoardValue = fn(&BoardStats) -> Option<f64>;
        let per_board: [(&str, &str, &str, BoardValue); 5] = [
            (
                "board_mbit_per_second",
                "gauge",
                "A FADE board's Mbit/s over the rate window.",
                |b| Some(b.mbit_per_s),
            ),
            (
                "board_bytes_total",
                "counter",
                "Bytes read from a FADE board.",
                |b| Some(b.bytes as f64),
            ),
            (
                "board_retransmitted_total",
                "counter",
                "Packets a FADE board retransmitted.",
                |b| Some(b.retransmitted as f64),
            ),
            (
                "board_ack_latency_p50_microseconds",
                "gauge",
                "Median ACK latency of a FADE board so far.",
                |b| b.ack_latency_p50_us,
            ),
            (
                "board_ack_latency_p99_microseconds",
                "gauge",
                "99th percentile of a FADE board's ACK latency so far.",
                |b| b.ack_latency_p99_us,
            ),
        ];
        for (name, kind, help, value) in per_board {
            let _ = writeln!(out, "# HELP linerate_{name} {help}");
            let _ = writeln!(out, "# TYPE linerate_{name} {kind}");
            for b in &stats.boards {
                if let Some(v) = value(b) {
                    let _ = writeln!(out, "linerate_{name}{{board=\"{}\"}} {v}", escape(&b.name));
                }
            }
        }
        if let Some(j) = stats.jain_fairness {
            let _ = writeln!(
                out,
                "# HELP linerate_jain_fairness Jain's fairness index of the boards' rates."
            );
            let _ = writeln!(out, "# TYPE linerate_jain_fairness gauge");
            let _ = writeln!(out, "linerate_jain_fairness {j}");
        }
    }
    out
}

/// A label value with Prometheus' escapes.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn counters(frames: u64, bytes: u64, boards: &[(&str, u64)]) -> Counters {
        Counters {
            frames_completed: frames,
            bytes,
            boards: boards
                .iter()
                .map(|(n, b)| BoardCounters {
                    name: (*n).into(),
                    bytes: *b,
                    ..BoardCounters::default()
                })
                .collect(),
            ..Counters::default()
        }
    }

    #[test]
    fn rates_come_from_the_difference_of_two_samples() {
        let mut acc = Accumulator::default();
        let t0 = Instant::now();
        let first = acc.sample(t0, counters(10, 1000, &[]), Machine::default());
        assert_eq!(first.frames_per_s, 0.0);
        assert!(first.history.is_empty());
        let later = t0 + Duration::from_secs(2);
        let s = acc.sample(later, counters(60, 250_001_000, &[]), Machine::default());
        assert!((s.frames_per_s - 25.0).abs() < 1e-9);
        assert!((s.gbit_per_s - 1.0).abs() < 1e-9);
        assert_eq!(s.history.len(), 1);
        // The headline averages over the window; the history point is the last second.
        let s = acc.sample(
            t0 + Duration::from_secs(3),
            counters(160, 250_001_000, &[]),
            Machine::default(),
        );
        assert!((s.frames_per_s - 50.0).abs() < 1e-9, "{}", s.frames_per_s);
        assert!((s.history[1].frames_per_s - 100.0).abs() < 1e-9);
    }

    #[test]
    fn the_receive_threads_cpu_seconds_become_a_percentage() {
        let mut acc = Accumulator::default();
        let t0 = Instant::now();
        let with_cpu = |s: f64| Counters {
            receive_thread_cpu_s: Some(s),
            ..Counters::default()
        };
        acc.sample(t0, with_cpu(1.0), Machine::default());
        let s = acc.sample(
            t0 + Duration::from_secs(2),
            with_cpu(1.5),
            Machine::default(),
        );
        assert_eq!(s.receive_thread_cpu_pct, Some(25.0));
        assert_eq!(s.history[0].receive_thread_cpu_pct, Some(25.0));
        assert!(prometheus(&s).contains("linerate_receive_thread_cpu_percent 25\n"));
        let s = acc.sample(
            t0 + Duration::from_secs(3),
            Counters::default(),
            Machine::default(),
        );
        assert_eq!(s.receive_thread_cpu_pct, None);
    }

    #[test]
    fn history_keeps_the_last_sixty_seconds() {
        let mut acc = Accumulator::default();
        let t0 = Instant::now();
        for i in 0..100u64 {
            acc.sample(
                t0 + Duration::from_secs(i),
                counters(i, 0, &[]),
                Machine::default(),
            );
        }
        let s = acc.sample(
            t0 + Duration::from_secs(100),
            counters(100, 0, &[]),
            Machine::default(),
        );
        assert_eq!(s.history.len(), HISTORY_SECONDS);
        assert!((s.history[HISTORY_SECONDS - 1].t - s.history[0].t - 59.0).abs() < 1e-6);
    }

    #[test]
    fn board_rates_sum_to_the_total_and_give_jain_fairness() {
        let mut acc = Accumulator::default();
        let t0 = Instant::now();
        acc.sample(
            t0,
            counters(0, 0, &[("a", 0), ("b", 0)]),
            Machine::default(),
        );
        let s = acc.sample(
            t0 + Duration::from_secs(1),
            counters(0, 0, &[("a", 1_000_000), ("b", 3_000_000)]),
            Machine::default(),
        );
        assert_eq!(s.boards[0].mbit_per_s, 8.0);
        assert_eq!(s.boards[1].mbit_per_s, 24.0);
        assert_eq!(s.boards_total_mbit_per_s, 32.0);
        assert_eq!(s.jain_fairness, Some(32.0 * 32.0 / (2.0 * (64.0 + 576.0))));
        assert_eq!(jain_fairness(&[5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain_fairness(&[0.0, 0.0]), None);
    }

    #[test]
    fn prometheus_text_has_help_type_and_labelled_boards() {
        let stats = Stats {
            frames_per_s: 25.0,
            counters: counters(7, 0, &[]),
            boards: vec![BoardStats {
                name: "02:00:00:00:00:01".into(),
                bytes: 5,
                mbit_per_s: 1.5,
                ack_latency_p99_us: Some(42.0),
                ..BoardStats::default()
            }],
            ..Stats::default()
        };
        let text = prometheus(&stats);
        assert!(text
            .contains("# TYPE linerate_frames_per_second gauge\nlinerate_frames_per_second 25\n"));
        assert!(text.contains("linerate_frames_completed_total 7\n"));
        assert!(text.contains("linerate_board_mbit_per_second{board=\"02:00:00:00:00:01\"} 1.5\n"));
        assert!(text.contains("# TYPE linerate_board_retransmitted_total counter\n"));
        assert!(text.contains(
            "linerate_board_ack_latency_p99_microseconds{board=\"02:00:00:00:00:01\"} 42\n"
        ));
        assert!(text
            .lines()
            .all(|l| l.starts_with('#') || l.starts_with("linerate_")));
        assert_eq!(escape("a\"b\\"), "a\\\"b\\\\");
    }
}
