//! Checks of a guessed slot: the receive paths that let the kernel write a
//! packet straight into the frame buffer it predicts (mmsg, GRO trains,
//! TCP records) confirm afterwards that the header which arrived is the
//! one they predicted.

use linerate_gev::assembler::SlotGuess;
use linerate_wire::gvsp::{Packet, PacketFormat, EXTENDED_HEADER_LEN, STANDARD_HEADER_LEN};

/// The length of a GVSP header in the id form `extended` says.
pub(super) fn gvsp_header_len(extended: bool) -> usize {
    if extended {
        EXTENDED_HEADER_LEN
    } else {
        STANDARD_HEADER_LEN
    }
}

/// The length of the header the guess `g` predicts.
pub(super) fn header_len(g: &SlotGuess) -> usize {
    gvsp_header_len(g.extended)
}

/// True when `head` is the header of payload packet `g.packet_id` of block `g.block_id`.
pub(super) fn header_confirms(head: &[u8], g: &SlotGuess) -> bool {
    let Ok(p) = Packet::new_checked(head) else {
        return false;
    };
    p.is_extended() == g.extended
        && p.block_id() == g.block_id
        && p.packet_id() == g.packet_id
        && !p.status().is_error()
        && PacketFormat::from_code(p.format_code()) == Ok(PacketFormat::Payload)
}
