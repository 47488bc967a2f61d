//! What a camera did, handed back when it stops: the counters
//! `linerate camera --json` prints, as types.

use linerate_metrics::ThreadCpuUsage;
use serde::{Deserialize, Serialize};

/// A stopped camera's totals (since it last started serving: a FORCEIP
/// move restarts them, as a camera's network stack restarting would).
/// Serialises to the JSON object `linerate camera --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> CameraReport {
        CameraReport {
            serial: "LR001002".into(),
            seconds: 1.5,
            frames_sent: 3,
            frames_skipped: 0,
            packets_sent: 300,
            bytes_sent: 450_000,
            packets_resent: 0,
            resend_unavailable: 0,
            send_errors: 0,
            trigger_latency_us: 0,
            tcp_connections: 0,
            tcp_connections_lost: 0,
            tcp_connect_failures: 0,
            tcp_resend_ignored: 0,
            zerocopy_sends: 0,
            zerocopy_completions: 0,
            zerocopy_copied: 0,
            send_thread_cpu: None,
            udp_send: UdpSend {
                interface: Some("veth0".into()),
                driver: None,
                gso: false,
                reason: "--no-gso".into(),
                decided_for: "bound interface".into(),
            },
            gvcp_access_denied: AccessDenied::default(),
        }
    }

    /// Scripts read these keys: a rename here breaks them.
    #[test]
    fn serialises_to_the_keys_linerate_camera_json_prints() {
        let json = serde_json::to_value(report()).expect("JSON");
        let keys: Vec<&str> = json
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "bytes_sent",
                "frames_sent",
                "frames_skipped",
                "gvcp_access_denied",
                "packets_resent",
                "packets_sent",
                "resend_unavailable",
                "seconds",
                "send_errors",
                "send_thread_cpu",
                "serial",
                "tcp_connect_failures",
                "tcp_connections",
                "tcp_connections_lost",
                "tcp_resend_ignored",
                "trigger_latency_us",
                "udp_send",
                "zerocopy_completions",
                "zerocopy_copied",
                "zerocopy_sends",
            ]
        );
        assert!(json["send_thread_cpu"].is_null());
        assert_eq!(json["udp_send"]["decided_for"], "bound interface");
        assert_eq!(json["gvcp_access_denied"]["controller_ip_other_port"], 0);
        let back: CameraReport = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, report());
    }
}
