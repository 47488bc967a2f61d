//! The client's check of the frames it receives.
//!
//! A client counts every frame sent while it was connected: the first frame
//! it sees sets the start, and from then on each frame must carry the next
//! sequence number. A gap means frames the server dropped for this client
//! (or a desynchronised stream); a checksum mismatch means corrupt data.
//! Latency is the receive time minus the frame's capture time (both
//! CLOCK_REALTIME, so server and client must share a clock, as namespaces
//! on one machine do).

use linerate_wire::served::FrameHeaderRepr;

/// What a client saw so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VerifyCounters {
    /// Frames received whole with a matching checksum.
    pub frames_ok: u64,
    /// Frames received whose payload did not match the checksum.
    pub frames_corrupt: u64,
    /// Frames missing between received ones (sequence gaps).
    pub frames_missing: u64,
    /// Frames that went backwards or repeated (never on a sane stream).
    pub frames_out_of_order: u64,
    /// Payload bytes received.
    pub bytes: u64,
    /// First and last sequence seen.
    pub first_seq: Option<u64>,
    /// Last sequence seen.
    pub last_seq: Option<u64>,
}

impl VerifyCounters {
    /// True when every frame from the first seen to the last arrived intact.
    pub fn complete(&self) -> bool {
        self.frames_ok > 0
            && self.frames_corrupt == 0
            && self.frames_missing == 0
            && self.frames_out_of_order == 0
    }
}

/// The verdict on one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Intact and in sequence (`missing` frames were skipped before it).
    Ok {
        /// Frames missing just before this one.
        missing: u64,
    },
    /// The payload does not match the header's checksum.
    Corrupt,
    /// Sequence went backwards or repeated.
    OutOfOrder,
}

/// Checks a client's frames one after the other.
#[derive(Debug, Clone, Default)]
pub struct Verifier {
    counters: VerifyCounters,
}

impl Verifier {
    /// A verifier that has seen nothing.
    pub fn new() -> Verifier {
        Verifier::default()
    }

    /// Checks one whole frame: its header and its payload's CRC-32.
    pub fn frame(&mut self, header: &FrameHeaderRepr, payload_crc: u32) -> Verdict {
        let c = &mut self.counters;
        if let Some(last) = c.last_seq {
            if header.sequence <= last {
                c.frames_out_of_order += 1;
                return Verdict::OutOfOrder;
            }
        }
        let missing = c.last_seq.map_or(0, |l| header.sequence - l - 1);
        c.frames_missing += missing;
        c.first_seq.get_or_insert(header.sequence);
        c.last_seq = Some(header.sequence);
        c.bytes += u64::from(header.frame_len);
        if payload_crc != header.checksum {
            c.frames_corrupt += 1;
            return Verdict::Corrupt;
        }
        c.frames_ok += 1;
        Verdict::Ok { missing }
    }

    /// The counters so far.
    pub fn counters(&self) -> VerifyCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(seq: u64, crc: u32) -> FrameHeaderRepr {
        FrameHeaderRepr::whole(seq, 10, crc, 0)
    }

    #[test]
    fn counts_gaps_corruption_and_reordering() {
        let mut v = Verifier::new();
        assert_eq!(v.frame(&h(5, 1), 1), Verdict::Ok { missing: 0 });
        assert_eq!(v.frame(&h(6, 1), 1), Verdict::Ok { missing: 0 });
        assert!(v.counters().complete());
        assert_eq!(v.frame(&h(9, 1), 1), Verdict::Ok { missing: 2 });
        assert_eq!(v.frame(&h(10, 1), 2), Verdict::Corrupt);
        assert_eq!(v.frame(&h(10, 1), 1), Verdict::OutOfOrder);
        let c = v.counters();
        assert_eq!(
            (
                c.frames_ok,
                c.frames_missing,
                c.frames_corrupt,
                c.frames_out_of_order
            ),
            (3, 2, 1, 1)
        );
        assert_eq!((c.first_seq, c.last_seq), (Some(5), Some(10)));
        assert!(!c.complete());
        assert!(!Verifier::new().counters().complete());
    }
}
