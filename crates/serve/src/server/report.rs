//! What a frame server did, as `linerate serve --json` prints it: typed, so
//! the CLI, the benchmarks and tests read fields rather than guessed keys.

use serde::{Deserialize, Serialize};

/// One TCP client's outcome, as reported at the end.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClientReport {
    /// The client's address.
    pub peer: String,
    /// How it ended: "connected" (still at the end), "closed" (by the
    /// client or an error), or "cut" (cut loose, see `cut_reason`).
    pub end: String,
    /// Why it was cut: "stalled" (took nothing for the stall timeout),
    /// "behind" (still on a frame a whole pool old) or "pool_full" (held
    /// the oldest slot when a new frame needed it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_reason: Option<String>,
    /// Frames queued for it.
    pub frames_queued: u64,
    /// Frames fully handed to its socket.
    pub frames_sent: u64,
    /// Frames dropped from its queue because it was slow.
    pub frames_dropped: u64,
    /// Bytes handed to its socket.
    pub bytes_sent: u64,
    /// Send syscalls (for uring: send SQEs queued for this client).
    pub syscalls: u64,
    /// Send syscalls that found the socket full (for uring: sends that came
    /// back short and were sent again).
    pub would_block: u64,
    /// MSG_ZEROCOPY completions and how many of them were copied anyway.
    pub zc_completions: u64,
    /// Completions the kernel copied.
    pub zc_copied: u64,
}

impl ClientReport {
    /// A client just accepted from `peer`, nothing sent yet.
    pub(crate) fn connected(peer: String) -> ClientReport {
        ClientReport {
            peer,
            end: "connected".into(),
            cut_reason: None,
            frames_queued: 0,
            frames_sent: 0,
            frames_dropped: 0,
            bytes_sent: 0,
            syscalls: 0,
            would_block: 0,
            zc_completions: 0,
            zc_copied: 0,
        }
    }
}

/// The report of a server run.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ServeReport {
    /// The address served, IP:PORT (the port the kernel chose for port 0).
    pub address: String,
    /// Send method.
    pub method: String,
    /// Payload bytes per frame.
    pub frame_size: usize,
    /// Frames per second asked.
    pub fps: f64,
    /// Seconds served.
    pub seconds: f64,
    /// Frames made and published.
    pub frames_published: u64,
    /// Frame ticks missed because the loop ran late (frames not made).
    pub frames_late: u64,
    /// Clients accepted.
    pub clients_accepted: u64,
    /// Connections refused for the client limits.
    pub clients_refused: u64,
    /// Of those, refused because their address had its per-source limit.
    pub clients_refused_per_source: u64,
    /// Clients cut loose.
    pub clients_cut: u64,
    /// Frames dropped for slow clients, all together.
    pub frames_dropped: u64,
    /// Bytes handed to sockets, all clients.
    pub bytes_sent: u64,
    /// Send syscalls, all clients (for uring: `io_uring_enter` calls).
    pub syscalls: u64,
    /// uring: whether the frame pool was registered as fixed buffers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uring_fixed_buffers: Option<bool>,
    /// uring: send SQEs queued, all clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uring_sends: Option<u64>,
    /// uring: cancel requests for clients cut loose with a send in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uring_cancels: Option<u64>,
    /// Process CPU seconds (user + system; softirq work it triggers may be
    /// charged elsewhere, see docs/serve.md).
    pub cpu_seconds: f64,
    /// Largest resident set of the process, MiB (VmHWM); the same name
    /// and unit as grab's report.
    pub max_rss_mib: f64,
    /// The frame pool's size in bytes (slots × slot length).
    pub frame_pool_bytes: usize,
    /// Every client, in order of arrival.
    pub clients: Vec<ClientReport>,
    /// Whether UDP subscribers were served.
    pub udp: bool,
    /// Most UDP subscribers at once: the client limit, or fewer if the
    /// stream times that many would pass the UDP rate cap.
    pub udp_max_subscribers: usize,
    /// Confirmed UDP subscriptions refused: the most subscribers (or the
    /// total rate) reached, or the per-source limit for their address.
    pub udp_refused: u64,
    /// Cookies sent in answer to a Hello or a Join with a stale or bad
    /// cookie (each the size of what provoked it).
    pub udp_challenges: u64,
    /// Joins and Leaves with a cookie not valid for their source: forged,
    /// or older than two cookie epochs.
    pub udp_bad_cookies: u64,
    /// Datagrams on the UDP port that were no valid subscription message.
    pub udp_invalid: u64,
    /// Every UDP subscriber, in order of joining.
    pub udp_subscribers: Vec<UdpReport>,
    /// The multicast group's sends (with a group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multicast: Option<MulticastReport>,
}

/// What was sent to the multicast group.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MulticastReport {
    /// The group and port.
    pub group: String,
    /// Frames sent whole (each once, whatever the number of receivers).
    pub frames_sent: u64,
    /// Datagrams sent.
    pub datagrams: u64,
    /// Frames not sent whole (the socket was full, or an error).
    pub frames_failed: u64,
}

/// One UDP subscriber's outcome.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UdpReport {
    /// The subscriber's address.
    pub peer: String,
    /// How it ended: "subscribed" (at the end), "left", "expired" or
    /// "unreachable" (its address answered with an ICMP error).
    pub end: String,
    /// Frames sent to it whole.
    pub frames_sent: u64,
    /// Datagrams sent.
    pub datagrams: u64,
    /// Frames not sent whole (the socket was full, or an error).
    pub frames_failed: u64,
}

/// A snapshot of a running server's progress, for a progress line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServeCounters {
    /// Frames made and published so far.
    pub frames_published: u64,
    /// TCP clients connected now.
    pub clients_connected: u64,
    /// TCP clients accepted so far.
    pub clients_accepted: u64,
}
