//! What a board did, as `linerate fade feb --json` prints it.

use serde::{Deserialize, Serialize};

/// A board's counters and end state when it stopped. Field names are
/// those of `linerate fade feb --json`; serialised through
/// `serde_json::Value` (sorted keys) it is that output exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BoardReport {
    /// Wire version: `1` or `10g`.
    pub version: String,
    /// The board's MAC address, `aa:bb:cc:dd:ee:ff`.
    pub mac: String,
    /// DATA packets sent for the first time.
    pub sent: u64,
    /// DATA packets sent again because no ACK came in time.
    pub resent: u64,
    /// ACKs that confirmed an outstanding packet.
    pub acks: u64,
    /// ACKs for nothing outstanding.
    pub stale_acks: u64,
    /// Packets ignored because they could not be parsed.
    pub rejected: u64,
    /// Frames the interface's queue refused: lost before the wire.
    pub send_refused: u64,
    /// Packets confirmed in order over the board's life.
    pub confirmed_packets: u64,
    /// Commands answered with a response (FADE-10G).
    pub commands: u64,
    /// Commands from hosts other than the owner, ignored.
    pub foreign_commands: u64,
    /// ACKs from hosts other than the owner, ignored.
    pub foreign_acks: u64,
    /// Pacing hints above the largest gap the board accepts, clamped.
    pub clamped_hints: u64,
    /// Times another host took the board over from a silent owner.
    pub takeovers: u64,
    /// MAC of the host whose START the board runs, if any.
    pub owner: Option<String>,
    /// Response-only packets sent when no DATA packet could carry a
    /// command's answer (FADE-10G).
    pub response_packets: u64,
    /// The controller's delay between packets at the end, in nanoseconds.
    pub delay_ns: u64,
    /// The pacing controller: `fair` or `seed`.
    pub controller: String,
    /// The gap the host's last pacing hint asked for, in nanoseconds.
    pub hint_gap_ns: Option<u64>,
    /// The retransmission timeout at the end, in nanoseconds.
    pub retransmit_timeout_ns: u64,
    /// Every byte of the stream was acknowledged.
    pub done: bool,
    /// The owner sent RESET after streaming began.
    pub reset: bool,
    /// Slots of the board's receive ring (0: `recvmmsg`).
    pub ring_slots: usize,
    /// Frames from the host the kernel matched to the board's socket.
    pub kernel_frames: Option<u64>,
    /// Of those, frames dropped for want of room: ACKs lost on the
    /// board's side, which only retransmission repairs.
    pub kernel_drops: Option<u64>,
    /// Stream bytes acknowledged (at most the byte limit).
    pub bytes_confirmed: u64,
    /// Seconds from the first START to the end (0 without a START).
    pub seconds: f64,
    /// Why the board failed, if it did: no host sent START within its
    /// duration.
    pub error: Option<String>,
}

impl BoardReport {
    /// Acknowledged stream throughput in bits/s, if the board streamed.
    pub fn bits_per_sec(&self) -> Option<f64> {
        (self.seconds > 0.0).then(|| self.bytes_confirmed as f64 * 8.0 / self.seconds)
    }
}
