//! Frames over UDP: cutting a frame into datagrams and putting it together.
//!
//! Each datagram is a 40-byte served-frame header (with
//! [`FLAG_DATAGRAM`](linerate_wire::served::FLAG_DATAGRAM) and the piece's
//! offset and length) followed by the piece. All datagrams of a frame but
//! the last have the same size, so a server can hand a whole frame to UDP
//! GSO: the headers are built once per frame and shared by every
//! subscriber, the pieces point into the frame's slot.

use linerate_wire::served::{
    FrameHeader, FrameHeaderRepr, FLAG_DATAGRAM, HEADER_LEN, MAX_FRAME_LEN,
};

use crate::error::{Error, Result};

/// The headers of a frame's datagrams: piece `i` covers payload bytes
/// `i*chunk ..` and is preceded by `headers[i]`. `datagram` is the whole
/// datagram size (header + piece), more than 40 bytes.
pub fn piece_headers(frame: &FrameHeaderRepr, datagram: usize) -> Result<Vec<[u8; HEADER_LEN]>> {
    if datagram <= HEADER_LEN || datagram > 65_507 {
        return Err(Error::BadConfig {
            what: "datagram size",
            value: datagram as u64,
            rule: "41 to 65507 bytes",
        });
    }
    let chunk = datagram - HEADER_LEN;
    let len = frame.frame_len as usize;
    let count = len.div_ceil(chunk).max(1);
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let offset = i * chunk;
        let piece = chunk.min(len - offset);
        let h = FrameHeaderRepr {
            flags: frame.flags | FLAG_DATAGRAM,
            piece_offset: offset as u32,
            piece_len: piece as u32,
            ..*frame
        };
        out.push(h.to_bytes()?);
    }
    Ok(out)
}

/// A frame put together from datagrams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assembled {
    /// The frame's header (piece fields of its first datagram).
    pub header: FrameHeaderRepr,
    /// CRC-32 of the assembled payload.
    pub payload_crc: u32,
}

/// Puts frames together from their datagrams, one frame at a time: a piece
/// of a newer frame abandons the frame in progress (its loss shows as a gap
/// in the sequence). Pieces before the first offset-0 piece are ignored, so
/// a client joining mid-frame starts with the next whole frame.
#[derive(Debug, Default)]
pub struct Reassembler {
    current: Option<Current>,
    last_seq: Option<u64>,
    /// Frames abandoned incomplete.
    pub abandoned: u64,
    /// Datagrams that were not valid served-frame pieces.
    pub invalid: u64,
}

#[derive(Debug)]
struct Current {
    header: FrameHeaderRepr,
    buf: Vec<u8>,
    chunk: usize,
    seen: Vec<bool>,
    received: usize,
}

impl Reassembler {
    /// A reassembler that has seen nothing.
    pub fn new() -> Reassembler {
        Reassembler::default()
    }

    /// Takes one datagram; returns the frame it completes, if any.
    pub fn push(&mut self, datagram: &[u8]) -> Option<Assembled> {
        let Ok(h) = FrameHeader::new_checked(datagram).and_then(|v| FrameHeaderRepr::parse(&v))
        else {
            self.invalid += 1;
            return None;
        };
        let piece = &datagram[HEADER_LEN..];
        if h.flags & FLAG_DATAGRAM == 0 || piece.len() != h.piece_len as usize {
            self.invalid += 1;
            return None;
        }
        if self.last_seq.is_some_and(|l| h.sequence <= l) {
            return None;
        }
        let same = self
            .current
            .as_ref()
            .is_some_and(|c| c.header.sequence == h.sequence);
        if !same {
            if self.current.take().is_some() {
                self.abandoned += 1;
            }
            if h.piece_offset != 0 || h.frame_len > MAX_FRAME_LEN {
                return None;
            }
            let chunk = (h.piece_len as usize).max(1);
            let pieces = (h.frame_len as usize).div_ceil(chunk).max(1);
            self.current = Some(Current {
                header: h,
                buf: vec![0; h.frame_len as usize],
                chunk,
                seen: vec![false; pieces],
                received: 0,
            });
        }
        let c = self.current.as_mut()?;
        let off = h.piece_offset as usize;
        let i = off / c.chunk;
        if h.frame_len != c.header.frame_len
            || off % c.chunk != 0
            || i >= c.seen.len()
            || off + piece.len() > c.buf.len()
        {
            self.invalid += 1;
            return None;
        }
        if c.seen[i] {
            return None;
        }
        c.seen[i] = true;
        c.buf[off..off + piece.len()].copy_from_slice(piece);
        c.received += piece.len();
        if c.received < c.buf.len() && !c.buf.is_empty() {
            return None;
        }
        let done = self.current.take()?;
        self.last_seq = Some(done.header.sequence);
        Some(Assembled {
            header: done.header,
            payload_crc: crc32fast::hash(&done.buf),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(seq: u64, payload: &[u8]) -> FrameHeaderRepr {
        FrameHeaderRepr::whole(seq, payload.len() as u32, crc32fast::hash(payload), 5)
    }

    fn datagrams(seq: u64, payload: &[u8], size: usize) -> Vec<Vec<u8>> {
        let heads = piece_headers(&frame(seq, payload), size).expect("headers");
        let chunk = size - HEADER_LEN;
        heads
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let end = ((i + 1) * chunk).min(payload.len());
                [&h[..], &payload[i * chunk..end]].concat()
            })
            .collect()
    }

    #[test]
    fn frames_survive_the_round_trip_and_losses_show_as_gaps() {
        let payload: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        let mut r = Reassembler::new();
        let d0 = datagrams(0, &payload, 1040);
        assert_eq!(d0.len(), 10);
        assert!(d0.iter().all(|d| d.len() <= 1040));
        // Joining mid-frame: pieces of frame 0 after the first are ignored.
        for d in &d0[1..] {
            assert_eq!(r.push(d), None);
        }
        // Frame 1 arrives whole, in a shuffled order.
        let mut d1 = datagrams(1, &payload, 1040);
        d1.swap(3, 7);
        let got: Vec<_> = d1.iter().filter_map(|d| r.push(d)).collect();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].header.sequence, 1);
        assert_eq!(got[0].payload_crc, got[0].header.checksum);
        // Frame 2 loses a piece; frame 3 completes and frame 2 is abandoned.
        let d2 = datagrams(2, &payload, 1040);
        for (i, d) in d2.iter().enumerate() {
            if i != 4 {
                assert_eq!(r.push(d), None);
            }
        }
        let d3 = datagrams(3, &payload, 1040);
        let got: Vec<_> = d3.iter().filter_map(|d| r.push(d)).collect();
        assert_eq!(got.len(), 1);
        assert_eq!(r.abandoned, 1);
        // Old or garbage datagrams change nothing.
        assert_eq!(r.push(&d1[0]), None);
        assert_eq!(r.push(&[0u8; 50]), None);
        assert_eq!(r.invalid, 1);
    }

    #[test]
    fn datagram_sizes_are_checked() {
        let f = frame(0, &[1, 2, 3]);
        assert!(piece_headers(&f, 40).is_err());
        assert!(piece_headers(&f, 70_000).is_err());
        assert_eq!(piece_headers(&f, 41).expect("ok").len(), 3);
    }
}
