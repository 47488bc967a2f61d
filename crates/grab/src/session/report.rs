//! The typed report of a grab session, and how it is put together from
//! the tally of delivered frames, the stream's counters and the machine's
//! CPU figures.

use std::net::Ipv4Addr;

use linerate_metrics::{CpuDelta, KernelDropsDelta, LatencySummary, ThreadCpuUsage};
use serde::{Deserialize, Serialize};

use super::tally::{IncompleteFrame, Tally};
use crate::camera::DeviceInfo;
use crate::receive::Transport;
use crate::stream::StreamStats;

/// Results of a grab: what arrived, what was lost, what it cost. Its JSON
/// form is what `linerate grab --json` prints, and reading that JSON back
/// into this type is how scripts and benchmarks should consume it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GrabReport {
    /// Camera vendor.
    pub vendor: String,
    /// Camera model.
    pub model: String,
    /// Transport used: udp or tcp.
    pub transport: String,
    /// Backend used (UDP; "tcp" for the TCP transport).
    pub backend: String,
    /// Frames asked for (0 with --duration).
    pub frames_requested: u64,
    /// Frames delivered with every byte.
    pub frames_completed: u64,
    /// Frames delivered with bytes missing.
    pub frames_incomplete: u64,
    /// Complete frames that failed verification.
    pub frames_corrupt: u64,
    /// Complete frames that passed verification.
    pub frames_verified: u64,
    /// Of the incomplete frames, those with a conflict: a packet arrived
    /// twice with different bytes, so one copy was forged (or the camera is
    /// broken). Never saved or counted good.
    pub frames_conflict: u64,
    /// Blocks dropped for want of a free buffer.
    pub underruns: u64,
    /// Datagrams handed to the assembler.
    pub packets_received: u64,
    /// Packets still missing in incomplete frames.
    pub packets_missing: u64,
    /// Packets that arrived twice.
    pub packets_duplicate: u64,
    /// Retransmitted packets that filled a gap.
    pub packets_resent: u64,
    /// Duplicates whose bytes differed from the copy already placed.
    pub packets_conflict: u64,
    /// Packets of new blocks far outside the expected block ids (stray or
    /// forged): ignored, never given a buffer or a resend request.
    pub packets_out_of_window: u64,
    /// Packets with the id form (standard or extended) the stream did not
    /// negotiate: ignored.
    pub packets_wrong_id_form: u64,
    /// First transmissions of packets for frames already delivered
    /// complete: what the camera's packets look like when a forger's
    /// copies completed a frame first, but also originals overtaken by
    /// their own resends on a loaded host (a hint, not proof).
    pub packets_after_complete: u64,
    /// Packets ignored (malformed, late, out of bounds, foreign source).
    pub packets_ignored: u64,
    /// Resend requests sent.
    pub resend_requests: u64,
    /// Payload bytes received.
    pub bytes: u64,
    /// Wall-clock seconds from acquisition start to the last frame.
    pub seconds: f64,
    /// Payload throughput; null when the run was too short for a rate to
    /// mean anything (fewer than 2 frames or under 10 ms).
    pub gbit_per_s: Option<f64>,
    /// CPU seconds (user + system, all threads) this process used during
    /// the run: linerate's own cost, unlike the machine-wide cpu_* figures.
    pub process_cpu_seconds: f64,
    /// The machine's busiest core during the run (all processes, from
    /// /proc/stat), busy percentage.
    pub cpu_busy_core_pct: f64,
    /// Which core was busiest (null when /proc/stat could not be read).
    pub cpu_busy_core: Option<usize>,
    /// Of the busiest core's time, the percentage in soft interrupts
    /// (NAPI, RPS, the receive protocol stack), tick-sampled.
    pub cpu_busy_core_softirq_pct: f64,
    /// Average busy percentage over all cores (all processes).
    pub cpu_avg_pct: f64,
    /// Machine-wide CPU-seconds (all cores, all processes) per GB of payload.
    pub cpu_seconds_per_gb: f64,
    /// Receive syscalls that returned data.
    pub syscalls: u64,
    /// mmsg: payload packets the kernel wrote straight into the frame.
    pub packets_placed_in_frame: u64,
    /// Datagrams copied through a staging buffer.
    pub packets_copied: u64,
    /// mmsg: receives that returned a coalesced train (UDP GRO).
    pub gro_trains: u64,
    /// Datagrams the kernel dropped before the receiver saw them (socket
    /// buffer full, or the ring's drop count).
    pub kernel_drops: u64,
    /// Datagrams from other addresses, dropped.
    pub packets_foreign: u64,
    /// Receive buffer granted, bytes.
    pub recv_buffer: usize,
    /// Frame buffers lent to the stream (--buffers, or as many of the
    /// default 16 as fit --buffer-memory).
    pub buffers: usize,
    /// TCP: connections the camera opened to us.
    pub tcp_connections: u64,
    /// TCP: connections that ended while receiving (each leaves the frames
    /// then in flight incomplete).
    pub tcp_connections_lost: u64,
    /// TCP: bytes that went through a staging buffer (unpredicted records).
    pub tcp_bytes_copied: u64,
    /// Host settings in force that change what the stream costs.
    pub host: HostTuning,
    /// Complete frames' delivery latency: the receive thread reading the
    /// frame's last packet → `Stream::wait` returning it to this program.
    pub frame_delivery_latency_us: LatencySummary,
    /// With --trigger-software: TriggerSoftware command sent → its frame
    /// returned complete (the GVCP round trip, the camera's work, the
    /// frame on the wire and its delivery). Null otherwise.
    pub trigger_to_frame_latency_us: Option<LatencySummary>,
    /// CPU time of the receive thread alone (user + system, from
    /// /proc/self/task/TID/stat) over the stream's lifetime. On veth,
    /// softirq work can be billed to it: see docs/grab.md.
    pub receive_thread_cpu: Option<ThreadCpuUsage>,
    /// Growth of the kernel's drop counters during the run (UDP receive
    /// buffer errors, interface rx drops, softnet backlog drops); null when
    /// /proc/net could not be read. `kernel_drops` above is the receive
    /// backend's own count.
    pub kernel_drop_counters: Option<KernelDropsDelta>,
    /// Peak resident memory of this process (VmHWM), MiB: stays flat
    /// whatever the stream sends, since buffers are allocated up front.
    pub max_rss_mib: f64,
    /// Missing byte ranges of the first incomplete frames (block id, ranges), at most 16.
    pub incomplete_examples: Vec<IncompleteFrame>,
    /// First verification failures, at most 16.
    pub corrupt_examples: Vec<String>,
    /// Why the run ended early (control lost, connection closed,
    /// "interrupted by SIGINT"...), if it did.
    pub error: Option<String>,
    /// A stop request ended the run (its `error` says so). Not part of the
    /// JSON, where a front end states the cause (a signal, say) in `error`.
    #[serde(skip)]
    pub stopped: bool,
    /// True when every frame asked for arrived complete (and verified with
    /// --verify) and nothing ended the run early.
    pub ok: bool,
}

/// The receiving host's settings that matter for throughput and loss,
/// read at the end of the run, so a report says what was in force.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostTuning {
    /// Interface facing the camera.
    pub interface: String,
    /// Its MTU.
    pub mtu: u32,
    /// Generic receive offload on the interface (null: not reported).
    pub gro: Option<bool>,
    /// Large receive offload on the interface (null: not reported).
    pub lro: Option<bool>,
    /// net.core.rmem_max: the largest receive buffer an unprivileged socket may ask for.
    pub rmem_max: Option<u64>,
    /// net.ipv4.tcp_rmem: min, default and max TCP receive buffer.
    pub tcp_rmem: Option<String>,
    /// net.core.netdev_max_backlog: packets queued per CPU before drops.
    pub netdev_max_backlog: Option<u64>,
}

impl HostTuning {
    /// Reads the settings for the interface that owns `local_ip`.
    pub fn read(local_ip: Ipv4Addr) -> HostTuning {
        let sysctl = |path: &str| {
            std::fs::read_to_string(path)
                .ok()
                .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        };
        let number = |path: &str| sysctl(path).and_then(|s| s.parse().ok());
        let (interface, offloads) = match linerate_io::netdev::Link::owning(local_ip) {
            Ok(link) => {
                let o = linerate_io::netdev::offloads(&link.name).unwrap_or_default();
                (link.name, o)
            }
            Err(_) => (String::new(), linerate_io::netdev::Offloads::default()),
        };
        HostTuning {
            interface,
            mtu: offloads.mtu,
            gro: offloads.gro,
            lro: offloads.lro,
            rmem_max: number("/proc/sys/net/core/rmem_max"),
            tcp_rmem: sysctl("/proc/sys/net/ipv4/tcp_rmem"),
            netdev_max_backlog: number("/proc/sys/net/core/netdev_max_backlog"),
        }
    }
}

/// Runs shorter than this report no throughput: the time is mostly the
/// camera starting, not the stream.
const MIN_RATE_SECONDS: f64 = 0.01;

/// Gbit/s of `bytes` over `seconds` (0 for no time).
pub(crate) fn gbit(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds / 1e9
    } else {
        0.0
    }
}

/// What the run was: the camera, the transport and backend, and the
/// frames asked for, for [`GrabReport::tallied`].
pub(crate) struct RunShape<'a> {
    /// The camera's identity.
    pub camera: &'a DeviceInfo,
    /// The stream transport.
    pub transport: Transport,
    /// The UDP receive backend's name.
    pub backend: &'static str,
    /// Frames asked for (0: no limit).
    pub target: u64,
}

impl GrabReport {
    /// The report's counts from the tally and the stream's final
    /// counters; the caller fills in what only the session knows (host
    /// settings, latencies, the error).
    pub(crate) fn tallied(
        run: &RunShape<'_>,
        tally: &Tally,
        stats: &StreamStats,
        seconds: f64,
        cpu: Option<CpuDelta>,
    ) -> GrabReport {
        let a = &stats.assembler;
        let r = &stats.receive;
        let busiest = cpu.as_ref().and_then(|c| c.busiest());
        let total = cpu.as_ref().map(|c| c.total());
        let bytes = a.bytes_received;
        let cpu_secs = total.map_or(0.0, |t| t.busy_secs);
        let delivered = tally.completed + tally.incomplete;
        let all_asked = run.target == 0 || delivered >= run.target;
        GrabReport {
            vendor: run.camera.vendor.clone(),
            model: run.camera.model.clone(),
            transport: run.transport.name().into(),
            backend: match run.transport {
                Transport::Udp => run.backend.into(),
                Transport::Tcp => "tcp".into(),
            },
            frames_requested: run.target,
            frames_completed: tally.completed,
            frames_incomplete: tally.incomplete,
            frames_corrupt: tally.corrupt,
            frames_verified: tally.verified,
            frames_conflict: tally.conflict,
            underruns: a.underruns,
            packets_received: a.packets_received,
            packets_missing: a.packets_missing,
            packets_duplicate: a.packets_duplicate,
            packets_resent: a.packets_resent,
            packets_conflict: a.packets_conflict,
            packets_out_of_window: a.packets_out_of_window,
            packets_wrong_id_form: a.packets_wrong_id_form,
            packets_after_complete: a.packets_after_complete,
            packets_ignored: a.packets_ignored + r.foreign,
            resend_requests: a.resend_requests,
            bytes,
            seconds,
            gbit_per_s: (delivered >= 2 && seconds >= MIN_RATE_SECONDS)
                .then(|| gbit(bytes, seconds)),
            process_cpu_seconds: 0.0,
            cpu_busy_core_pct: busiest.map_or(0.0, |b| b.utilisation * 100.0),
            cpu_busy_core: busiest.and_then(|b| b.cpu),
            cpu_busy_core_softirq_pct: busiest.map_or(0.0, |b| {
                if seconds > 0.0 {
                    (b.softirq_secs / seconds * 100.0).min(100.0)
                } else {
                    0.0
                }
            }),
            cpu_avg_pct: total.map_or(0.0, |t| t.utilisation * 100.0),
            cpu_seconds_per_gb: if bytes > 0 {
                cpu_secs / (bytes as f64 / 1e9)
            } else {
                0.0
            },
            syscalls: r.syscalls,
            packets_placed_in_frame: r.placed_in_frame,
            packets_copied: r.copied,
            gro_trains: r.trains,
            kernel_drops: r.kernel_drops,
            packets_foreign: r.foreign,
            recv_buffer: r.recv_buffer,
            buffers: 0,
            tcp_connections: r.tcp.connections,
            tcp_connections_lost: r.tcp.connections_lost,
            tcp_bytes_copied: r.tcp.bytes_copied,
            host: HostTuning::default(),
            frame_delivery_latency_us: LatencySummary::default(),
            trigger_to_frame_latency_us: None,
            receive_thread_cpu: None,
            kernel_drop_counters: None,
            error: None,
            stopped: false,
            max_rss_mib: linerate_io::memory::peak_resident_mib(),
            incomplete_examples: tally.incomplete_examples.clone(),
            corrupt_examples: tally.corrupt_examples.clone(),
            // A block dropped for want of a buffer is a lost frame too.
            ok: all_asked
                && delivered > 0
                && tally.incomplete == 0
                && tally.conflict == 0
                && a.packets_conflict == 0
                && tally.corrupt == 0
                && a.underruns == 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON field names scripts rely on, in the order they are printed.
    const FIELDS: &[&str] = &[
        "vendor",
        "model",
        "transport",
        "backend",
        "frames_requested",
        "frames_completed",
        "frames_incomplete",
        "frames_corrupt",
        "frames_verified",
        "frames_conflict",
        "underruns",
        "packets_received",
        "packets_missing",
        "packets_duplicate",
        "packets_resent",
        "packets_conflict",
        "packets_out_of_window",
        "packets_wrong_id_form",
        "packets_after_complete",
        "packets_ignored",
        "resend_requests",
        "bytes",
        "seconds",
        "gbit_per_s",
        "process_cpu_seconds",
        "cpu_busy_core_pct",
        "cpu_busy_core",
        "cpu_busy_core_softirq_pct",
        "cpu_avg_pct",
        "cpu_seconds_per_gb",
        "syscalls",
        "packets_placed_in_frame",
        "packets_copied",
        "gro_trains",
        "kernel_drops",
        "packets_foreign",
        "recv_buffer",
        "buffers",
        "tcp_connections",
        "tcp_connections_lost",
        "tcp_bytes_copied",
        "host",
        "frame_delivery_latency_us",
        "trigger_to_frame_latency_us",
        "receive_thread_cpu",
        "kernel_drop_counters",
        "max_rss_mib",
        "incomplete_examples",
        "corrupt_examples",
        "error",
        "ok",
    ];

    fn sample() -> GrabReport {
        GrabReport {
            vendor: "linerate".into(),
            transport: "udp".into(),
            backend: "mmsg".into(),
            frames_requested: 10,
            frames_completed: 9,
            frames_incomplete: 1,
            gbit_per_s: Some(1.5),
            cpu_busy_core: Some(1),
            host: HostTuning {
                interface: "veth0".into(),
                mtu: 9000,
                gro: Some(true),
                tcp_rmem: Some("4096 131072 6291456".into()),
                ..HostTuning::default()
            },
            frame_delivery_latency_us: LatencySummary {
                count: 9,
                p50_us: 12.5,
                ..LatencySummary::default()
            },
            trigger_to_frame_latency_us: Some(LatencySummary::default()),
            receive_thread_cpu: Some(ThreadCpuUsage {
                user_s: 0.25,
                ..ThreadCpuUsage::default()
            }),
            kernel_drop_counters: Some(KernelDropsDelta {
                rx_dropped: 3,
                ..KernelDropsDelta::default()
            }),
            incomplete_examples: vec![IncompleteFrame {
                block_id: 7,
                status: "Timeout".into(),
                missing: vec![(8000, 16000)],
                leader_missing: false,
                trailer_missing: true,
            }],
            corrupt_examples: vec!["block 3: bad".into()],
            error: Some("stopped on request".into()),
            stopped: true,
            ..GrabReport::default()
        }
    }

    #[test]
    fn the_json_has_the_fields_scripts_read_in_order() {
        let json = serde_json::to_string(&sample()).expect("serialise");
        let mut at = 0;
        for field in FIELDS {
            let key = format!("\"{field}\":");
            let found = json[at..]
                .find(&key)
                .unwrap_or_else(|| panic!("{field} missing or out of order in {json}"));
            at += found + key.len();
        }
        let value: serde_json::Value = serde_json::from_str(&json).expect("parse");
        assert_eq!(value.as_object().map(|o| o.len()), Some(FIELDS.len()));
        assert_eq!(value["incomplete_examples"][0]["missing"][0][1], 16000);
    }

    #[test]
    fn the_json_reads_back_into_the_same_report() {
        let report = sample();
        let json = serde_json::to_string(&report).expect("serialise");
        let back: GrabReport = serde_json::from_str(&json).expect("deserialise");
        assert_eq!(serde_json::to_string(&back).expect("serialise"), json);
        assert_eq!(back.host, report.host);
        assert_eq!(back.incomplete_examples, report.incomplete_examples);
        // Not in the JSON: the front end says why in `error`.
        assert!(!back.stopped);
    }
}
