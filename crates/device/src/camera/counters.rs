//! The stream's counters: written by the sender (UDP or TCP), read by the
//! control thread, which publishes them in registers and the report.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use linerate_io::netdev::GsoEgress;
use serde::{Deserialize, Serialize};

/// Counters shared with the control thread, which publishes them in registers.
#[derive(Debug, Default)]
pub struct StreamCounters {
    /// Frames sent.
    pub frames_sent: AtomicU64,
    /// Frames skipped because the sender fell behind the frame rate.
    pub frames_skipped: AtomicU64,
    /// GVSP packets sent (first transmissions).
    pub packets_sent: AtomicU64,
    /// Bytes sent in GVSP packets (first transmissions, headers included).
    pub bytes_sent: AtomicU64,
    /// Packets resent on request.
    pub packets_resent: AtomicU64,
    /// Resend requests for data no longer held.
    pub resend_unavailable: AtomicU64,
    /// Last software trigger to first packet time, in microseconds.
    pub trigger_latency_us: AtomicU64,
    /// Send errors (e.g. no route, buffer full).
    pub send_errors: AtomicU64,
    /// TCP connections made to the host.
    pub tcp_connections: AtomicU64,
    /// TCP connections that broke while sending (host gone, or stalled at a stop).
    pub tcp_connections_lost: AtomicU64,
    /// TCP connection attempts that failed.
    pub tcp_connect_failures: AtomicU64,
    /// Packet resend requests ignored because the stream runs on TCP.
    pub tcp_resend_ignored: AtomicU64,
    /// `sendmsg` calls with MSG_ZEROCOPY that queued data.
    pub zerocopy_sends: AtomicU64,
    /// Zerocopy sends the kernel reported complete.
    pub zerocopy_completions: AtomicU64,
    /// Completed zerocopy sends the kernel had copied after all.
    pub zerocopy_copied: AtomicU64,
    /// True (1) while acquiring.
    pub acquiring: AtomicU64,
    /// How the last UDP stream's datagrams leave: GSO where the egress
    /// interface segments before the wire, one by one elsewhere.
    pub udp_egress: std::sync::Mutex<Option<GsoEgress>>,
    /// Acquisitions that ended by themselves (single/multi frame done).
    pub runs_finished: AtomicU64,
    /// True (1) while the transport register selects TCP (written by the
    /// control thread).
    pub tcp_selected: AtomicU64,
}

/// The stream's counters at one moment, for progress lines and for
/// the GVCP statistics registers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CameraCounters {
    /// Frames sent.
    pub frames_sent: u64,
    /// Frames skipped because the sender fell behind (or no TCP host).
    pub frames_skipped: u64,
    /// GVSP packets sent (first transmissions).
    pub packets_sent: u64,
    /// Bytes of those packets, headers included.
    pub bytes_sent: u64,
    /// Packets resent on request.
    pub packets_resent: u64,
    /// Resend requests for data no longer held.
    pub resend_unavailable: u64,
    /// Packets that could not be sent.
    pub send_errors: u64,
    /// A stream is running.
    pub acquiring: bool,
    /// The transport register selects TCP (GVSP/TCP instead of GVSP/UDP).
    pub tcp: bool,
}

impl StreamCounters {
    /// The counters now.
    pub fn snapshot(&self) -> CameraCounters {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        CameraCounters {
            frames_sent: get(&self.frames_sent),
            frames_skipped: get(&self.frames_skipped),
            packets_sent: get(&self.packets_sent),
            bytes_sent: get(&self.bytes_sent),
            packets_resent: get(&self.packets_resent),
            resend_unavailable: get(&self.resend_unavailable),
            send_errors: get(&self.send_errors),
            acquiring: get(&self.acquiring) != 0,
            tcp: get(&self.tcp_selected) != 0,
        }
    }

    /// Counts `packets` first transmissions of `bytes`, and when they open
    /// a triggered frame, the time from that software trigger until now.
    pub(super) fn record_sent(&self, trigger: Option<Instant>, packets: u64, bytes: u64) {
        if let Some(t) = trigger {
            self.trigger_latency_us
                .store(t.elapsed().as_micros() as u64, Ordering::Relaxed);
        }
        self.packets_sent.fetch_add(packets, Ordering::Relaxed);
        self.bytes_sent.fetch_add(bytes, Ordering::Relaxed);
    }
}
