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

/// "LRSB": opens a UDP subscription message (client and server alike).
pub const SUBSCRIBE_MAGIC: u32 = 0x4c52_5342;

/// The subscription messages' version: 2, the handshake with a cookie
/// (version 1's 8-byte join without a cookie is refused).
pub const SUBSCRIBE_VERSION: u8 = 2;

/// Length of a subscription cookie.
pub const COOKIE_LEN: usize = 16;

/// Length of every subscription message: the server's reply (a
/// [`SubscribeRepr::Challenge`]) is never longer than the message that
/// provoked it, so it cannot amplify a spoofed request.
pub const SUBSCRIBE_LEN: usize = 24;

/// A subscription cookie: an opaque value the server derives from the
/// subscriber's address and port and a time epoch with a secret key.
pub type Cookie = [u8; COOKIE_LEN];

/// Byte offsets of the subscription message fields.
mod sub_field {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 4;
    pub const KIND: usize = 5;
    pub const RESERVED: usize = 6;
    pub const COOKIE: usize = 8;
    pub const END: usize = 24;
}

/// Message kinds.
mod kind {
    pub const HELLO: u8 = 1;
    pub const CHALLENGE: u8 = 2;
    pub const JOIN: u8 = 3;
    pub const LEAVE: u8 = 4;
}

/// A zero-copy view of a UDP subscription message (docs/serve.md).
///
/// ```text
///  0 magic u32 = 0x4c525342 ("LRSB")   4 version u8 = 2   5 kind u8   6 reserved u16 = 0
///  8 cookie [16 bytes] (zero in a Hello)
/// 24 end: every message is exactly 24 bytes
/// ```
///
/// Kinds: 1 Hello (client: send me a cookie), 2 Challenge (server: this
/// cookie), 3 Join (client: the cookie echoed from the address it was sent
/// to; subscribes or renews), 4 Leave (client: the cookie; stop). The
/// server sends frames only to an address that echoed a valid cookie, so a
/// request with a forged source address reaches the victim as one
/// Challenge of the request's own size, and never as frames.
#[derive(Debug, Clone)]
pub struct SubscribeMessage<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> SubscribeMessage<T> {
    /// Wraps `buffer` after checking it is exactly one message long.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let len = buffer.as_ref().len();
        ensure_len("served subscription", buffer.as_ref(), SUBSCRIBE_LEN)?;
        if len != SUBSCRIBE_LEN {
            return Err(Error::BadLength {
                what: "served subscription",
                len,
                rule: "exactly 24 bytes",
            });
        }
        Ok(SubscribeMessage { buffer })
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// The magic number (should be [`SUBSCRIBE_MAGIC`]).
    pub fn magic(&self) -> u32 {
        be_u32(self.b(), sub_field::MAGIC)
    }
    /// The version (should be [`SUBSCRIBE_VERSION`]).
    pub fn version(&self) -> u8 {
        self.b()[sub_field::VERSION]
    }
    /// The message kind.
    pub fn kind(&self) -> u8 {
        self.b()[sub_field::KIND]
    }
    /// The reserved bytes (must be 0).
    pub fn reserved(&self) -> u16 {
        be_u16(self.b(), sub_field::RESERVED)
    }
    /// The cookie field.
    pub fn cookie(&self) -> Cookie {
        let mut c = [0u8; COOKIE_LEN];
        c.copy_from_slice(&self.b()[sub_field::COOKIE..sub_field::END]);
        c
    }
}

/// A UDP subscription message as a plain value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscribeRepr {
    /// Client to server: send me a cookie.
    Hello,
    /// Server to client: echo this cookie from the address it came to.
    Challenge(Cookie),
    /// Client to server: the cookie; send me the frames (renews).
    Join(Cookie),
    /// Client to server: the cookie; stop sending me frames.
    Leave(Cookie),
}

impl SubscribeRepr {
    /// Parses and validates a message: magic, version, reserved bytes,
    /// kind, and a zero cookie field in a Hello.
    pub fn parse<T: AsRef<[u8]>>(m: &SubscribeMessage<T>) -> Result<Self> {
        if m.magic() != SUBSCRIBE_MAGIC {
            return Err(Error::BadValue {
                field: "served subscription magic",
                value: m.magic().into(),
            });
        }
        if m.version() != SUBSCRIBE_VERSION {
            return Err(Error::BadValue {
                field: "served subscription version",
                value: m.version().into(),
            });
        }
        if m.reserved() != 0 {
            return Err(Error::BadValue {
                field: "served subscription reserved bytes (must be 0)",
                value: m.reserved().into(),
            });
        }
        let cookie = m.cookie();
        match m.kind() {
            kind::HELLO if cookie == [0; COOKIE_LEN] => Ok(SubscribeRepr::Hello),
            kind::HELLO => Err(Error::BadValue {
                field: "served subscription hello cookie (must be 0)",
                value: be_u64(&cookie, 0) | be_u64(&cookie, 8),
            }),
            kind::CHALLENGE => Ok(SubscribeRepr::Challenge(cookie)),
            kind::JOIN => Ok(SubscribeRepr::Join(cookie)),
            kind::LEAVE => Ok(SubscribeRepr::Leave(cookie)),
            other => Err(Error::Unsupported {
                what: "served subscription kind",
                value: other.into(),
            }),
        }
    }

    /// Bytes [`emit`](Self::emit) writes.
    pub const fn buffer_len(&self) -> usize {
        SUBSCRIBE_LEN
    }

    /// Writes the message into the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        ensure_len("served subscription buffer", buf, SUBSCRIBE_LEN)?;
        let (k, cookie) = match *self {
            SubscribeRepr::Hello => (kind::HELLO, [0; COOKIE_LEN]),
            SubscribeRepr::Challenge(c) => (kind::CHALLENGE, c),
            SubscribeRepr::Join(c) => (kind::JOIN, c),
            SubscribeRepr::Leave(c) => (kind::LEAVE, c),
        };
        put_u32(buf, sub_field::MAGIC, SUBSCRIBE_MAGIC);
        buf[sub_field::VERSION] = SUBSCRIBE_VERSION;
        buf[sub_field::KIND] = k;
        put_u16(buf, sub_field::RESERVED, 0);
        buf[sub_field::COOKIE..sub_field::END].copy_from_slice(&cookie);
        Ok(SUBSCRIBE_LEN)
    }

    /// The message's bytes.
    pub fn to_bytes(&self) -> [u8; SUBSCRIBE_LEN] {
        let mut b = [0u8; SUBSCRIBE_LEN];
        // The array is exactly one message long.
        let _ = self.emit(&mut b);
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn subscription_with_reserved_bytes_set_is_refused() {
        let mut b = SubscribeRepr::Join([7; COOKIE_LEN]).to_bytes();
        b[6] = 0xf7;
        let m = SubscribeMessage::new_checked(&b[..]).expect("24 bytes");
        let err = SubscribeRepr::parse(&m).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("reserved") && e.contains("0xf700")));
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
    fn subscription_bytes_and_offsets() {
        let cookie: Cookie = core::array::from_fn(|i| i as u8 + 1);
        let b = SubscribeRepr::Join(cookie).to_bytes();
        assert_eq!(&b[..8], &[0x4c, 0x52, 0x53, 0x42, 2, 3, 0, 0]);
        assert_eq!(&b[8..], &cookie[..]);
        let m = SubscribeMessage::new_checked(&b[..]).expect("view");
        assert_eq!(
            (m.magic(), m.version(), m.kind(), m.reserved()),
            (SUBSCRIBE_MAGIC, 2, 3, 0)
        );
        assert_eq!(m.cookie(), cookie);
        assert_eq!(
            SubscribeRepr::Hello.to_bytes(),
            [0x4c, 0x52, 0x53, 0x42, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn subscriptions_round_trip_and_reject_garbage() {
        let c = [0xa5; COOKIE_LEN];
        for s in [
            SubscribeRepr::Hello,
            SubscribeRepr::Challenge(c),
            SubscribeRepr::Join(c),
            SubscribeRepr::Leave(c),
        ] {
            let b = s.to_bytes();
            assert_eq!(s.buffer_len(), b.len());
            let m = SubscribeMessage::new_checked(&b[..]).expect("view");
            assert_eq!(SubscribeRepr::parse(&m), Ok(s));
        }
        let b = SubscribeRepr::Join(c).to_bytes();
        // Wrong lengths, including version 1's 8-byte join.
        assert!(SubscribeMessage::new_checked(&b[..23]).is_err());
        assert!(SubscribeMessage::new_checked(&[&b[..], &[0][..]].concat()[..]).is_err());
        assert!(SubscribeMessage::new_checked(&[0x4c, 0x52, 0x53, 0x42, 1, 1, 0, 0][..]).is_err());
        let parse = |b: &[u8]| SubscribeRepr::parse(&SubscribeMessage::new_checked(b).expect("v"));
        for (at, value) in [(0, 0), (4, 1), (5, 0), (5, 5), (7, 1)] {
            let mut bad = b;
            bad[at] = value;
            assert!(parse(&bad).is_err(), "byte {at} = {value}");
        }
        // A hello carries no cookie.
        let mut hello = SubscribeRepr::Hello.to_bytes();
        hello[20] = 1;
        assert!(parse(&hello).is_err());
        assert!(SubscribeRepr::Hello.emit(&mut [0u8; 23]).is_err());
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
        fn subscriptions_parse_back_to_their_bytes(bytes in proptest::collection::vec(any::<u8>(), 24..=24), kind in 0u8..6) {
            let mut bytes = bytes;
            bytes[..4].copy_from_slice(&SUBSCRIBE_MAGIC.to_be_bytes());
            bytes[4] = SUBSCRIBE_VERSION;
            bytes[5] = kind;
            if let Ok(m) = SubscribeMessage::new_checked(&bytes[..]) {
                if let Ok(r) = SubscribeRepr::parse(&m) {
                    prop_assert_eq!(&r.to_bytes()[..], &bytes[..]);
                }
            }
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Ok(v) = FrameHeader::new_checked(&bytes[..]) {
                let _ = FrameHeaderRepr::parse(&v);
            }
            if let Ok(m) = SubscribeMessage::new_checked(&bytes[..]) {
                let _ = SubscribeRepr::parse(&m);
            }
        }
    }
}
