//! linerate's FADE v1 extension: a pacing hint in the ACK padding.
//!
//! A v1 ACK is 64 bytes, of which only the first 6 mean anything to the
//! published core; the rest is padding (`0xa5`) that it never reads. The
//! receiver can use 6 of those bytes to tell the board the smallest gap it
//! should keep between two DATA packet starts, so that boards sharing a
//! link each get their share instead of fighting over it with
//! retransmissions. A board that does not know the extension ignores the
//! bytes, as it ignores all padding; a board that does only has to compare
//! a 16-bit marker and latch a 32-bit register.
//!
//! | Offset | Size | Field | Notes |
//! |---:|---:|---|---|
//! | 6 | 2 | marker | [`HINT_MARKER`]; anything else (the `0xa5a5` padding) means no hint |
//! | 8 | 4 | gap | nanoseconds between two DATA packet starts; 0 means no limit |
//!
//! Both fields are big-endian, like the rest of FADE.

use super::v1;

/// The word at offset 6 that marks an ACK carrying a pacing hint. The
/// published driver's padding there reads `0xa5a5`.
pub const HINT_MARKER: u16 = 0xfa1e;

/// Offset of the marker, right after the ACK's tag.
pub const MARKER_AT: usize = v1::CONTROL_HEADER_LEN;

/// Offset of the gap.
pub const GAP_AT: usize = MARKER_AT + 2;

/// Bytes an ACK payload needs to carry a hint.
pub const HINT_END: usize = GAP_AT + 4;

/// Writes a pacing hint of `gap_ns` into an ACK payload (64 bytes as
/// emitted). Returns false, leaving the payload untouched, when it is too
/// short or is not an ACK.
pub fn write_hint(ack: &mut [u8], gap_ns: u32) -> bool {
    if ack.len() < HINT_END || ack[..2] != v1::Command::Ack.code().to_be_bytes() {
        return false;
    }
    ack[MARKER_AT..GAP_AT].copy_from_slice(&HINT_MARKER.to_be_bytes());
    ack[GAP_AT..HINT_END].copy_from_slice(&gap_ns.to_be_bytes());
    true
}

/// The pacing hint in an ACK payload: `Some(gap_ns)` when the marker is
/// there, `None` for a plain ACK, any other packet, or a short one.
pub fn read_hint(ack: &[u8]) -> Option<u32> {
    if ack.len() < HINT_END || ack[..2] != v1::Command::Ack.code().to_be_bytes() {
        return None;
    }
    if ack[MARKER_AT..GAP_AT] != HINT_MARKER.to_be_bytes() {
        return None;
    }
    let mut gap = [0u8; 4];
    gap.copy_from_slice(&ack[GAP_AT..HINT_END]);
    Some(u32::from_be_bytes(gap))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fade::v1::{ControlRepr, Repr, Tag};

    fn ack() -> Vec<u8> {
        Repr::Control(ControlRepr::Ack(Tag::new(7, 3, 1).expect("tag"))).to_vec()
    }

    #[test]
    fn a_plain_ack_has_no_hint_and_a_hinted_one_round_trips() {
        let mut a = ack();
        assert_eq!(a.len(), 64);
        assert_eq!(read_hint(&a), None, "0xa5 padding is not a hint");
        assert!(write_hint(&mut a, 25_728));
        assert_eq!(read_hint(&a), Some(25_728));
        assert_eq!(&a[6..12], &[0xfa, 0x1e, 0, 0, 0x64, 0x80]);
        // The tag a published core reads is unchanged.
        match Repr::parse_bytes(&a) {
            Ok(Repr::Control(ControlRepr::Ack(t))) => {
                assert_eq!(t, Tag::new(7, 3, 1).expect("tag"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_acks_long_enough_carry_hints() {
        let mut start = Repr::Control(ControlRepr::Start).to_vec();
        assert!(!write_hint(&mut start, 1));
        start[6..8].copy_from_slice(&HINT_MARKER.to_be_bytes());
        assert_eq!(read_hint(&start), None);
        let mut short = ack();
        short.truncate(HINT_END - 1);
        assert!(!write_hint(&mut short, 1));
        assert_eq!(read_hint(&short), None);
        assert_eq!(read_hint(&[]), None);
    }
}
