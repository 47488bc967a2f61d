//! The header of a frame sent by `linerate serve` (see `docs/serve.md`).
//!
//! A video server sends the same encoded frames to many clients. Each frame
//! (or, on UDP, each piece of a frame) is preceded by one fixed 40-byte
//! header, so a client can find frame boundaries in a TCP byte stream,
//! notice frames it never got (a gap in the sequence), verify the payload
//! (CRC-32 of the whole frame payload) and measure latency (capture time).
//!
//! ```text
//!  0 magic u32 = 0x4c525356 ("LRSV")   4 version u8 = 1   5 flags u8   6 header length u16 = 40
//!  8 frame sequence u64
//! 16 frame payload length u32         20 payload CRC-32 (IEEE) u32
//! 24 capture time, ns since the Unix epoch (CLOCK_REALTIME) u64
//! 32 piece offset u32                 36 piece length u32
//! 40 piece bytes ...
//! ```
//!
//! On TCP a frame is one piece: offset 0, piece length = frame length. On
//! UDP a frame is cut into datagrams, each with its own header carrying the
//! offset of its piece. The header is built once per frame by the server
//! and shared by every client; only UDP pieces differ in the last 8 bytes.

use crate::bytes::{be_u16, be_u32, be_u64, put_u16, put_u32, put_u64};
use crate::error::{ensure_len, Error, Result};

/// Byte offsets of the header fields.
mod field {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 4;
    pub const FLAGS: usize = 5;
    pub const HEADER_LEN: usize = 6;
    pub const SEQUENCE: usize = 8;
    pub const FRAME_LEN: usize = 16;
    pub const CHECKSUM: usize = 20;
    pub const CAPTURE_NS: usize = 24;
    pub const PIECE_OFFSET: usize = 32;
    pub const PIECE_LEN: usize = 36;
    pub const PIECE: usize = 40;
}

/// Length of the header.
pub const HEADER_LEN: usize = field::PIECE;

/// "LRSV": opens every header, to catch a desynchronised stream.
pub const MAGIC: u32 = 0x4c52_5356;

/// The version this code speaks.
pub const VERSION: u8 = 1;

/// Flag bit: this is a piece of a frame cut into datagrams (UDP).
pub const FLAG_DATAGRAM: u8 = 0x01;

/// Largest frame a receiver accepts: bounds memory whatever a peer claims.
pub const MAX_FRAME_LEN: u32 = 64 * 1024 * 1024;

/// A zero-copy view of a served-frame header at the start of a buffer.
#[derive(Debug, Clone)]
pub struct FrameHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> FrameHeader<T> {
    /// Wraps `buffer` after checking it holds a whole header (it may hold
    /// the piece too). Field values are checked by [`FrameHeaderRepr::parse`].
    pub fn new_checked(buffer: T) -> Result<Self> {
        ensure_len("served frame header", buffer.as_ref(), HEADER_LEN)?;
        Ok(FrameHeader { buffer })
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// The magic number (should be [`MAGIC`]).
    pub fn magic(&self) -> u32 {
        be_u32(self.b(), field::MAGIC)
    }
    /// The framing version.
    pub fn version(&self) -> u8 {
        self.b()[field::VERSION]
    }
    /// Flag bits ([`FLAG_DATAGRAM`]).
    pub fn flags(&self) -> u8 {
        self.b()[field::FLAGS]
    }
    /// Header length as sent (40 in version 1).
    pub fn header_len(&self) -> u16 {
        be_u16(self.b(), field::HEADER_LEN)
    }
    /// Frame sequence number, one more for every frame the server makes.
    pub fn sequence(&self) -> u64 {
        be_u64(self.b(), field::SEQUENCE)
    }
    /// Length of the whole frame payload.
    pub fn frame_len(&self) -> u32 {
        be_u32(self.b(), field::FRAME_LEN)
    }
    /// CRC-32 (IEEE) of the whole frame payload.
    pub fn checksum(&self) -> u32 {
        be_u32(self.b(), field::CHECKSUM)
    }
    /// Capture time in nanoseconds since the Unix epoch.
    pub fn capture_ns(&self) -> u64 {
        be_u64(self.b(), field::CAPTURE_NS)
    }
    /// Where this piece starts in the frame payload.
    pub fn piece_offset(&self) -> u32 {
        be_u32(self.b(), field::PIECE_OFFSET)
    }
    /// Bytes of payload following this header.
    pub fn piece_len(&self) -> u32 {
        be_u32(self.b(), field::PIECE_LEN)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> FrameHeader<T> {
    /// Rewrites the piece fields in place (the server does this per datagram).
    pub fn set_piece(&mut self, offset: u32, len: u32) {
        let b = self.buffer.as_mut();
        put_u32(b, field::PIECE_OFFSET, offset);
        put_u32(b, field::PIECE_LEN, len);
    }
}

/// A served-frame header as a plain value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeaderRepr {
    /// Flag bits ([`FLAG_DATAGRAM`]).
    pub flags: u8,
    /// Frame sequence number.
    pub sequence: u64,
    /// Length of the whole frame payload, at most [`MAX_FRAME_LEN`].
    pub frame_len: u32,
    /// CRC-32 (IEEE) of the whole frame payload.
    pub checksum: u32,
    /// Capture time, ns since the Unix epoch.
    pub capture_ns: u64,
    /// Where the piece after this header starts in the frame payload.
    pub piece_offset: u32,
    /// Bytes of payload after this header.
    pub piece_len: u32,
}

impl FrameHeaderRepr {
    /// A TCP header: the whole frame as one piece.
    pub fn whole(sequence: u64, frame_len: u32, checksum: u32, capture_ns: u64) -> Self {
        FrameHeaderRepr {
            flags: 0,
            sequence,
            frame_len,
            checksum,
            capture_ns,
            piece_offset: 0,
            piece_len: frame_len,
        }
    }

    /// Parses and validates a header: magic, version, header length, and a
    /// piece that lies inside a frame no larger than [`MAX_FRAME_LEN`].
    pub fn parse<T: AsRef<[u8]>>(h: &FrameHeader<T>) -> Result<Self> {
        if h.magic() != MAGIC {
            return Err(Error::BadValue {
                field: "served frame magic",
                value: h.magic().into(),
            });
        }
        if h.version() != VERSION {
            return Err(Error::BadValue {
                field: "served frame version",
                value: h.version().into(),
            });
        }
        if usize::from(h.header_len()) != HEADER_LEN {
            return Err(Error::BadLength {
                what: "served frame header",
                len: h.header_len().into(),
                rule: "version 1 headers are 40 bytes",
            });
        }
        let repr = FrameHeaderRepr {
            flags: h.flags(),
            sequence: h.sequence(),
            frame_len: h.frame_len(),
            checksum: h.checksum(),
            capture_ns: h.capture_ns(),
            piece_offset: h.piece_offset(),
            piece_len: h.piece_len(),
        };
        repr.check()?;
        Ok(repr)
    }

    fn check(&self) -> Result<()> {
        if self.frame_len > MAX_FRAME_LEN {
            return Err(Error::BadLength {
                what: "served frame",
                len: self.frame_len as usize,
                rule: "larger than the 64 MiB limit",
            });
        }
        let end = u64::from(self.piece_offset) + u64::from(self.piece_len);
        if end > u64::from(self.frame_len) {
            return Err(Error::BadLength {
                what: "served frame piece",
                len: end as usize,
                rule: "piece ends past the frame",
            });
        }
        Ok(())
    }

    /// Bytes [`emit`](Self::emit) writes.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        self.check()?;
        ensure_len("served frame header buffer", buf, HEADER_LEN)?;
        put_u32(buf, field::MAGIC, MAGIC);
        buf[field::VERSION] = VERSION;
        buf[field::FLAGS] = self.flags;
        put_u16(buf, field::HEADER_LEN, HEADER_LEN as u16);
        put_u64(buf, field::SEQUENCE, self.sequence);
        put_u32(buf, field::FRAME_LEN, self.frame_len);
        put_u32(buf, field::CHECKSUM, self.checksum);
        put_u64(buf, field::CAPTURE_NS, self.capture_ns);
        put_u32(buf, field::PIECE_OFFSET, self.piece_offset);
        put_u32(buf, field::PIECE_LEN, self.piece_len);
        Ok(HEADER_LEN)
    }

    /// The header as an array.
    pub fn to_bytes(&self) -> Result<[u8; HEADER_LEN]> {
        let mut b = [0u8; HEADER_LEN];
        self.emit(&mut b)?;
        Ok(b)
    }
}

/// "LRSB": opens a UDP subscription message from a client to the server.
pub const SUBSCRIBE_MAGIC: u32 = 0x4c52_5342;

/// Length of a subscription message.
pub const SUBSCRIBE_LEN: usize = 8;

/// What a UDP client asks of the server.
///
/// ```text
/// 0 magic u32 = 0x4c525342 ("LRSB")   4 version u8 = 1   5 action u8   6 reserved u16 = 0
/// ```
///
/// A client sends `Join` to the server's UDP port and repeats it at least
/// every second; the server sends every frame to each address that joined
/// within its expiry time, and forgets an address on `Leave`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subscribe {
    /// Send me the frames (renews the subscription).
    Join,
    /// Stop sending me frames.
    Leave,
}

impl Subscribe {
    /// Parses a subscription message (exactly [`SUBSCRIBE_LEN`] bytes).
    pub fn parse(buf: &[u8]) -> Result<Subscribe> {
        ensure_len("served subscription", buf, SUBSCRIBE_LEN)?;
        if buf.len() != SUBSCRIBE_LEN {
            return Err(Error::BadLength {
                what: "served subscription",
                len: buf.len(),
                rule: "exactly 8 bytes",
            });
        }
        let magic = be_u32(buf, 0);
        if magic != SUBSCRIBE_MAGIC {
            return Err(Error::BadValue {
                field: "served subscription magic",
                value: magic.into(),
            });
        }
        if buf[4] != VERSION {
            return Err(Error::BadValue {
                field: "served subscription version",
                value: buf[4].into(),
            });
        }
        let reserved = u32::from(buf[6]) << 8 | u32::from(buf[7]);
        if reserved != 0 {
            return Err(Error::BadValue {
                field: "served subscription reserved bytes (must be 0)",
                value: reserved.into(),
            });
        }
        match buf[5] {
            1 => Ok(Subscribe::Join),
            2 => Ok(Subscribe::Leave),
            other => Err(Error::Unsupported {
                what: "served subscription action",
                value: other.into(),
            }),
        }
    }

    /// The message's bytes.
    pub fn to_bytes(self) -> [u8; SUBSCRIBE_LEN] {
        let mut b = [0u8; SUBSCRIBE_LEN];
        put_u32(&mut b, 0, SUBSCRIBE_MAGIC);
        b[4] = VERSION;
        b[5] = match self {
            Subscribe::Join => 1,
            Subscribe::Leave => 2,
        };
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn subscription_with_reserved_bytes_set_is_refused() {
        // Found by the fuzz smoke run: these bytes used to parse as Join,
        // and emitting Join gave back different bytes.
        let bytes = [76, 82, 83, 66, 1, 1, 247, 0];
        let err = Subscribe::parse(&bytes).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("reserved") && e.contains("0xf700")));
        let mut ok = Subscribe::Join.to_bytes();
        assert_eq!(Subscribe::parse(&ok).ok(), Some(Subscribe::Join));
        ok[7] = 1;
        assert!(Subscribe::parse(&ok).is_err());
    }

    #[test]
    fn header_bytes() {
        let h = FrameHeaderRepr::whole(0x0102_0304_0506_0708, 0x10, 0xdead_beef, 7);
        let b = h.to_bytes().expect("emits");
        assert_eq!(&b[..8], &[0x4c, 0x52, 0x53, 0x56, 1, 0, 0, 40]);
        assert_eq!(&b[8..16], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&b[16..24], &[0, 0, 0, 0x10, 0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(&b[32..40], &[0, 0, 0, 0, 0, 0, 0, 0x10]);
        let view = FrameHeader::new_checked(&b[..]).expect("long enough");
        assert_eq!(FrameHeaderRepr::parse(&view), Ok(h));
    }

    #[test]
    fn set_piece_rewrites_only_the_piece() {
        let h = FrameHeaderRepr::whole(9, 1000, 1, 2);
        let mut b = h.to_bytes().expect("emits");
        let mut view = FrameHeader::new_checked(&mut b[..]).expect("view");
        view.set_piece(100, 200);
        let got = FrameHeaderRepr::parse(&view).expect("parses");
        assert_eq!((got.piece_offset, got.piece_len), (100, 200));
        assert_eq!(got.sequence, 9);
    }

    #[test]
    fn rejects_garbage() {
        assert!(FrameHeader::new_checked(&[0u8; 39][..]).is_err());
        let good = FrameHeaderRepr::whole(1, 10, 0, 0)
            .to_bytes()
            .expect("emits");
        let mut b = good;
        b[0] = 0;
        let v = FrameHeader::new_checked(&b[..]).expect("view");
        assert!(matches!(
            FrameHeaderRepr::parse(&v),
            Err(Error::BadValue {
                value: 0x0052_5356,
                ..
            })
        ));
        let mut b = good;
        b[4] = 2;
        assert!(FrameHeaderRepr::parse(&FrameHeader::new_checked(&b[..]).expect("v")).is_err());
        let mut b = good;
        b[7] = 41;
        assert!(FrameHeaderRepr::parse(&FrameHeader::new_checked(&b[..]).expect("v")).is_err());
        let mut b = good;
        b[39] = 11; // piece longer than the frame
        assert!(FrameHeaderRepr::parse(&FrameHeader::new_checked(&b[..]).expect("v")).is_err());
        let mut too_big = FrameHeaderRepr::whole(1, MAX_FRAME_LEN, 0, 0);
        too_big.frame_len += 1;
        assert!(too_big.to_bytes().is_err());
    }

    #[test]
    fn subscriptions_round_trip_and_reject_garbage() {
        for s in [Subscribe::Join, Subscribe::Leave] {
            assert_eq!(Subscribe::parse(&s.to_bytes()), Ok(s));
        }
        let b = Subscribe::Join.to_bytes();
        assert_eq!(b, [0x4c, 0x52, 0x53, 0x42, 1, 1, 0, 0]);
        assert!(Subscribe::parse(&b[..7]).is_err());
        assert!(Subscribe::parse(&[&b[..], &[0][..]].concat()).is_err());
        let mut bad = b;
        bad[5] = 3;
        assert!(Subscribe::parse(&bad).is_err());
        bad = b;
        bad[0] = 0;
        assert!(Subscribe::parse(&bad).is_err());
    }

    proptest! {
        #[test]
        fn round_trips(flags: u8, sequence: u64, frame_len in 0..=MAX_FRAME_LEN, checksum: u32,
                       capture_ns: u64, a: u32, b: u32) {
            let piece_offset = a % (frame_len + 1);
            let piece_len = b % (frame_len - piece_offset + 1);
            let h = FrameHeaderRepr { flags, sequence, frame_len, checksum, capture_ns, piece_offset, piece_len };
            let bytes = h.to_bytes().expect("emits");
            let v = FrameHeader::new_checked(&bytes[..]).expect("view");
            prop_assert_eq!(FrameHeaderRepr::parse(&v), Ok(h));
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Ok(v) = FrameHeader::new_checked(&bytes[..]) {
                let _ = FrameHeaderRepr::parse(&v);
            }
        }
    }
}
