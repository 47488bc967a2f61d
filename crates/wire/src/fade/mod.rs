//! FADE: a small reliable raw-Ethernet transport for FPGA front-end boards.
//!
//! FADE (by W. M. Zabolotny, published as the OpenCores project
//! `fade_ether_protocol`) moves a stream of sensor data from an FPGA that
//! has almost no buffer memory to a Linux host. It runs directly on
//! Ethernet II with the unregistered ethertype `0xfade`, so it is meant for
//! private, switched networks without routers.
//!
//! The FPGA keeps a small ring of data packets. The host acknowledges every
//! data packet it stores, as early as it can; the FPGA retransmits whatever
//! is not acknowledged and adapts its inter-packet delay to the observed
//! retransmission ratio. Two incompatible wire versions exist:
//!
//! * [`v1`]: the original core. 1024 data bytes per packet, packets grouped
//!   in *sets* of 32, a 16-bit set number that wraps at 65536.
//! * [`ten_g`]: FADE-10G, the rework for jumbo frames on 1 and 10 Gb/s
//!   links. A protocol version word, 8192 data bytes per packet, a 32-bit
//!   packet number with a window of 16 packets, and user commands with
//!   12-byte responses.
//!
//! Both codecs work on the Ethernet *payload*: the bytes after the
//! ethertype. [`crate::ethernet`] handles the header and the ethertype
//! ([`ETHERTYPE`]). Host-to-FPGA control packets are always emitted with a
//! [`CONTROL_LEN`]-byte payload filled with [`FILL_BYTE`], exactly as the
//! published Linux driver sends them; the FADE-10G receiver core relies on
//! that frame length. Parsers accept any padding after the meaningful
//! fields. See `docs/fade-wire.md` for the byte tables and sources.

pub mod pacing;
pub mod ten_g;
pub mod v1;

use crate::ethernet::{HEADER_LEN, MIN_FRAME_LEN};

/// FADE's ethertype, re-exported so FADE users need not reach into `ethernet`.
pub use crate::ethernet::ETHERTYPE_FADE as ETHERTYPE;

/// Payload length of every host-to-FPGA control packet (START, STOP, ACK, ...).
///
/// The reference driver always sends 64 bytes after the ethertype, and the
/// FADE-10G receiver core only accepts frames of that length, so we emit
/// exactly this many bytes; it also clears the Ethernet minimum.
pub const CONTROL_LEN: usize = 64;

/// The byte the reference driver pads control packets with.
///
/// Receivers ignore padding, but matching the driver byte for byte makes our
/// frames identical to the published implementation's in captures.
pub const FILL_BYTE: u8 = 0xa5;

/// Smallest Ethernet payload: shorter payloads get padded by the sender.
///
/// Parsers accept packets padded up to (or beyond) this length.
pub const MIN_PAYLOAD_LEN: usize = MIN_FRAME_LEN - HEADER_LEN;

// A control frame must never be a runt.
const _: () = assert!(HEADER_LEN + CONTROL_LEN >= MIN_FRAME_LEN);

/// Fills `buf` with [`FILL_BYTE`]; shared by both codecs' control emitters.
pub(crate) fn fill(buf: &mut [u8]) {
    buf.fill(FILL_BYTE);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_frames_clear_the_ethernet_minimum() {
        assert_eq!(ETHERTYPE, 0xfade);
        assert_eq!(MIN_PAYLOAD_LEN, 46);
        assert_eq!(HEADER_LEN + CONTROL_LEN, 78);
        let mut b = [0u8; 3];
        fill(&mut b);
        assert_eq!(b, [0xa5; 3]);
    }
}
