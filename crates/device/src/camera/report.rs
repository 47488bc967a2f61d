//! What a camera did, handed back when it stops: the counters
//! `linerate camera --json` prints, as types.

use linerate_metrics::ThreadCpuUsage;
use serde::{Deserialize, Serialize};

/// A stopped camera's totals (since it last started serving: a FORCEIP
/// move restarts them, as a camera's network stack restarting would).
/// Serialises to the JSON object `linerate camera --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CameraReport {
    /// Serial number the camera reported.
    pub serial: String,
    /// Seconds it served.
    pub seconds: f64,
    /// Frames sent.
    pub frames_sent: u64,
    /// Frames skipped because the sender fell behind the frame rate (or,
    /// on TCP, because no host was connected).
    pub frames_skipped: u64,
    /// GVSP packets sent (first transmissions).
    pub packets_sent: u64,
    /// Bytes of those packets, headers included.
    pub bytes_sent: u64,
    /// Packets resent on request.
    pub packets_resent: u64,
    /// Resend requests for data no longer held.
    pub resend_unavailable: u64,
    /// Packets that could not be sent (no route, buffer full).
    pub send_errors: u64,
    /// Last software trigger to first packet, in microseconds.
    pub trigger_latency_us: u64,
    /// TCP stream connections made to the host.
    pub tcp_connections: u64,
    /// TCP connections that broke while sending.
    pub tcp_connections_lost: u64,
    /// TCP connection attempts that failed.
    pub tcp_connect_failures: u64,
    /// Resend requests ignored because the stream ran on TCP.
    pub tcp_resend_ignored: u64,
    /// `sendmsg` calls with MSG_ZEROCOPY that queued data.
    pub zerocopy_sends: u64,
    /// Zerocopy sends the kernel reported complete.
    pub zerocopy_completions: u64,
    /// Completed zerocopy sends the kernel had copied after all.
    pub zerocopy_copied: u64,
    /// CPU time of the stream (send) thread, if it could be read.
    pub send_thread_cpu: Option<ThreadCpuUsage>,
    /// How UDP stream datagrams left.
    pub udp_send: UdpSend,
    /// Commands refused for want of control.
    pub gvcp_access_denied: AccessDenied,
}

/// How the UDP stream's datagrams left the camera: as GSO super-datagrams
/// (where the egress interface cuts them before the wire) or one by one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UdpSend {
    /// The egress interface, if found.
    pub interface: Option<String>,
    /// Its driver, if it reports one.
    pub driver: Option<String>,
    /// UDP GSO was used.
    pub gso: bool,
    /// Why, in words ("--no-gso" when it was switched off).
    pub reason: String,
    /// What the decision was made for: "stream destination" (a stream
    /// ran) or "bound interface" (none did).
    pub decided_for: String,
}

/// GVCP commands refused because another host holds control; from the
/// controller's IP on another port they are a second program or forgeries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessDenied {
    /// From the controlling host's IP address, another UDP port.
    pub controller_ip_other_port: u64,
    /// From any other address.
    pub other_hosts: u64,
}

impl From<linerate_gev::device::AccessDenied> for AccessDenied {
    fn from(d: linerate_gev::device::AccessDenied) -> AccessDenied {
        AccessDenied {
            controller_ip_other_port: d.controller_ip_other_port,
            other_hosts: d.other_hosts,
        }
    }
}
