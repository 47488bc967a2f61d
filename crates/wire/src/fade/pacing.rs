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
//!
//! A FADE-10G ACK is 64 bytes too, of which the core reads 14 (version,
//! code, seq, packet number, delay); the same two fields follow right after
//! them, at offsets 14 and 16 ([`write_hint_ten_g`], [`read_hint_ten_g`]).

use super::{ten_g, v1};

/// The word at offset 6 that marks an ACK carrying a pacing hint. The
/// published driver's padding there reads `0xa5a5`.
pub const HINT_MARKER: u16 = 0xfa1e;

/// Offset of the marker, right after the ACK's tag.
pub const MARKER_AT: usize = v1::CONTROL_HEADER_LEN;

/// Offset of the gap.
pub const GAP_AT: usize = MARKER_AT + 2;

/// Bytes an ACK payload needs to carry a hint.
pub const HINT_END: usize = GAP_AT + 4;

/// Offset of the marker in a FADE-10G ACK, right after the echoed delay.
pub const TEN_G_MARKER_AT: usize = ten_g::CONTROL_HEADER_LEN;

/// Bytes a FADE-10G ACK payload needs to carry a hint.
pub const TEN_G_HINT_END: usize = TEN_G_MARKER_AT + 6;

/// The first four bytes of a FADE-10G ACK: version and code.
const TEN_G_ACK_PREFIX: [u8; 4] = {
    let v = ten_g::VERSION.to_be_bytes();
    let c = ten_g::CMD_ACK.to_be_bytes();
    [v[0], v[1], c[0], c[1]]
};

/// Writes a pacing hint of `gap_ns` into a v1 ACK payload (64 bytes as
/// emitted). Returns false, leaving the payload untouched, when it is too
/// short or is not an ACK.
pub fn write_hint(ack: &mut [u8], gap_ns: u32) -> bool {
    let is_ack = ack.get(..2) == Some(&v1::Command::Ack.code().to_be_bytes()[..]);
    is_ack && put(ack, MARKER_AT, gap_ns)
}

/// The pacing hint in a v1 ACK payload: `Some(gap_ns)` when the marker is
/// there, `None` for a plain ACK, any other packet, or a short one.
pub fn read_hint(ack: &[u8]) -> Option<u32> {
    let is_ack = ack.get(..2) == Some(&v1::Command::Ack.code().to_be_bytes()[..]);
    is_ack.then(|| get(ack, MARKER_AT)).flatten()
}

/// Writes a pacing hint into a FADE-10G ACK payload, after its 14 bytes of
/// fields. Returns false, leaving the payload untouched, when it is too
/// short or is not a FADE-10G ACK.
pub fn write_hint_ten_g(ack: &mut [u8], gap_ns: u32) -> bool {
    ack.get(..4) == Some(&TEN_G_ACK_PREFIX[..]) && put(ack, TEN_G_MARKER_AT, gap_ns)
}

/// The pacing hint in a FADE-10G ACK payload, as [`read_hint`] for v1.
pub fn read_hint_ten_g(ack: &[u8]) -> Option<u32> {
    if ack.get(..4) != Some(&TEN_G_ACK_PREFIX[..]) {
        return None;
    }
    get(ack, TEN_G_MARKER_AT)
}

/// Writes marker and gap at `at` if the payload has room.
fn put(ack: &mut [u8], at: usize, gap_ns: u32) -> bool {
    let Some(field) = ack.get_mut(at..at + 6) else {
        return false;
    };
    field[..2].copy_from_slice(&HINT_MARKER.to_be_bytes());
    field[2..].copy_from_slice(&gap_ns.to_be_bytes());
    true
}

/// Reads the gap at `at` if the marker is there.
fn get(ack: &[u8], at: usize) -> Option<u32> {
    let field = ack.get(at..at + 6)?;
    if field[..2] != HINT_MARKER.to_be_bytes() {
        return None;
    }
    let mut gap = [0u8; 4];
    gap.copy_from_slice(&field[2..]);
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

    #[test]
    fn ten_g_acks_carry_the_hint_after_their_fields() {
        use crate::fade::ten_g;
        let ack = ten_g::ControlRepr::Ack(ten_g::AckRepr {
            seq: 3,
            packet_number: 0xdead_beef,
            delay: 9,
        });
        let mut a = ten_g::Repr::Control(ack).to_vec();
        assert_eq!(a.len(), 64);
        assert_eq!(read_hint_ten_g(&a), None, "0xa5 padding is not a hint");
        assert!(write_hint_ten_g(&mut a, 70_000));
        assert_eq!(read_hint_ten_g(&a), Some(70_000));
        assert_eq!(&a[14..20], &[0xfa, 0x1e, 0, 1, 0x11, 0x70]);
        // The fields a published core reads are unchanged.
        assert_eq!(
            ten_g::Repr::parse_bytes(&a).expect("valid"),
            ten_g::Repr::Control(ack)
        );
        // A v1 reader sees no hint in it, and neither reader in the other
        // version's ACK or in a 10G command.
        assert_eq!(read_hint(&a), None);
        let mut v1_ack = super::tests::ack();
        assert!(!write_hint_ten_g(&mut v1_ack, 1));
        let mut start = ten_g::Repr::Control(ten_g::ControlRepr::Command(ten_g::CommandRepr {
            command: ten_g::Command::Start,
            seq: 1,
            arg: 0,
        }))
        .to_vec();
        assert!(!write_hint_ten_g(&mut start, 1));
        a.truncate(TEN_G_HINT_END - 1);
        assert!(!write_hint_ten_g(&mut a, 1));
        assert_eq!(read_hint_ten_g(&a), None);
    }
}
