//! The stream's counters: written by the sender (UDP or TCP), read by the
//! control thread, which publishes them in registers and the report.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use linerate_io::netdev::GsoEgress;

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
}

impl StreamCounters {
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
