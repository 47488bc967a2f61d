//! Writing a frame (served-frame header, then payload) into a slot.
//!
//! The test pattern costs the server almost nothing per frame, as an
//! encoder's output would (the server's job is sending, not making data):
//! every slot is filled with the same pattern once, and each frame then
//! rewrites only its header and the first 8 payload bytes (the sequence
//! number, so no two frames are alike). The CRC-32 of the payload is
//! combined from the CRC of those 8 bytes and the pattern's CRC, computed
//! once. A frame from a file is copied into the slot and summed in full.

use linerate_wire::served::{FrameHeaderRepr, HEADER_LEN};

use crate::error::{Error, Result};

/// Bytes a slot needs for a frame of `payload` bytes.
pub const fn slot_len(payload: usize) -> usize {
    HEADER_LEN + payload
}

/// The pattern byte at payload offset `i` (after the 8-byte sequence).
fn pattern_byte(i: usize) -> u8 {
    (i.wrapping_mul(31) ^ (i >> 8)) as u8
}

/// Makes test-pattern frames of one size.
#[derive(Debug, Clone)]
pub struct PatternMaker {
    payload: usize,
    rest_crc: crc32fast::Hasher,
}

impl PatternMaker {
    /// A maker of frames with `payload` bytes (at least 8, for the sequence).
    pub fn new(payload: usize) -> Result<PatternMaker> {
        if !(8..=linerate_wire::served::MAX_FRAME_LEN as usize).contains(&payload) {
            return Err(Error::BadConfig {
                what: "frame size",
                value: payload as u64,
                rule: "8 bytes to 64 MiB",
            });
        }
        let mut rest = vec![0u8; payload - 8];
        fill_pattern(&mut rest);
        let mut rest_crc = crc32fast::Hasher::new();
        rest_crc.update(&rest);
        Ok(PatternMaker { payload, rest_crc })
    }

    /// Payload bytes per frame.
    pub fn payload_len(&self) -> usize {
        self.payload
    }

    /// Fills a fresh slot with the pattern once, before its first frame.
    pub fn prepare_slot(&self, slot: &mut [u8]) -> Result<()> {
        let need = slot_len(self.payload);
        let have = slot.len();
        let s = slot
            .get_mut(HEADER_LEN + 8..need)
            .ok_or(Error::SlotTooSmall { need, have })?;
        fill_pattern(s);
        Ok(())
    }

    /// Writes frame `seq` captured at `capture_ns` into a prepared slot;
    /// returns the bytes the frame occupies.
    pub fn write(&self, slot: &mut [u8], seq: u64, capture_ns: u64) -> Result<usize> {
        let need = slot_len(self.payload);
        if slot.len() < need {
            return Err(Error::SlotTooSmall {
                need,
                have: slot.len(),
            });
        }
        let stamp = seq.to_le_bytes();
        slot[HEADER_LEN..HEADER_LEN + 8].copy_from_slice(&stamp);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&stamp);
        crc.combine(&self.rest_crc);
        let header = FrameHeaderRepr::whole(seq, self.payload as u32, crc.finalize(), capture_ns);
        header.emit(slot)?;
        Ok(need)
    }
}

fn fill_pattern(buf: &mut [u8]) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pattern_byte(i);
    }
}

/// Writes frame `seq` with `payload` copied from elsewhere (a file) into
/// `slot`; returns the bytes the frame occupies.
pub fn write_copied(slot: &mut [u8], payload: &[u8], seq: u64, capture_ns: u64) -> Result<usize> {
    let need = slot_len(payload.len());
    if slot.len() < need {
        return Err(Error::SlotTooSmall {
            need,
            have: slot.len(),
        });
    }
    let len = u32::try_from(payload.len()).map_err(|_| Error::BadConfig {
        what: "frame size",
        value: payload.len() as u64,
        rule: "at most 64 MiB",
    })?;
    slot[HEADER_LEN..need].copy_from_slice(payload);
    let header = FrameHeaderRepr::whole(seq, len, crc32fast::hash(payload), capture_ns);
    header.emit(slot)?;
    Ok(need)
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate_wire::served::FrameHeader;

    #[test]
    fn pattern_frames_carry_their_payloads_crc() {
        let m = PatternMaker::new(5000).expect("size");
        let mut slot = vec![0u8; slot_len(5000) + 10];
        m.prepare_slot(&mut slot).expect("fits");
        for seq in [0u64, 1, 77, u64::MAX] {
            let n = m.write(&mut slot, seq, 42).expect("fits");
            assert_eq!(n, slot_len(5000));
            let h = FrameHeaderRepr::parse(&FrameHeader::new_checked(&slot[..]).expect("view"))
                .expect("parses");
            assert_eq!((h.sequence, h.frame_len, h.capture_ns), (seq, 5000, 42));
            assert_eq!(h.checksum, crc32fast::hash(&slot[HEADER_LEN..n]));
        }
    }

    #[test]
    fn small_slots_and_sizes_are_refused() {
        assert!(PatternMaker::new(7).is_err());
        let m = PatternMaker::new(100).expect("size");
        let mut slot = vec![0u8; 100];
        assert!(matches!(
            m.write(&mut slot, 0, 0),
            Err(Error::SlotTooSmall {
                need: 140,
                have: 100
            })
        ));
        assert!(m.prepare_slot(&mut slot).is_err());
        assert!(write_copied(&mut slot, &[1; 61], 0, 0).is_err());
        let n = write_copied(&mut slot, &[1; 60], 3, 0).expect("fits");
        assert_eq!(n, 100);
    }
}
