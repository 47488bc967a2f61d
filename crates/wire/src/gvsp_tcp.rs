//! linerate's framing for GVSP over TCP (see `docs/gvsp-over-tcp.md`).
//!
//! GigE Vision defines no TCP transport, so linerate defines one: the byte
//! stream is a sequence of *records*. Each record is an 8-byte record header
//! followed by a body; a GVSP record's body is one GVSP packet exactly as it
//! would travel in a UDP datagram (standard or extended header, then data).
//! Payload packets may be far larger than a UDP datagram: their size is the
//! transfer size the host configures.
//!
//! ```text
//! | magic u16 = 0x4c52 ("LR") | version u8 = 1 | kind u8 | body length u32 | body ...
//! ```
//!
//! The decoder here is sans-IO: [`peek`] looks at the bytes buffered so far
//! and says how many more are needed or where the next record ends.

use crate::bytes::{be_u16, be_u32, put_u16, put_u32};
use crate::error::{ensure_len, Error, Result};

/// Byte offsets of the record header.
mod field {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 2;
    pub const KIND: usize = 3;
    pub const LENGTH: usize = 4;
    pub const BODY: usize = 8;
}

/// Length of a record header.
pub const HEADER_LEN: usize = field::BODY;

/// The two bytes "LR" that open every record, to catch a desynchronised stream.
pub const MAGIC: u16 = 0x4c52;

/// The framing version this code speaks.
pub const VERSION: u8 = 1;

/// Largest body a receiver accepts: bounds memory whatever a peer claims.
pub const MAX_BODY_LEN: u32 = 64 * 1024 * 1024;

/// What a record carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RecordKind {
    /// One GVSP packet (leader, payload, trailer or all-in).
    Gvsp,
}

impl RecordKind {
    /// The kind code on the wire.
    pub const fn code(self) -> u8 {
        match self {
            RecordKind::Gvsp => 1,
        }
    }

    /// Decodes a kind code.
    pub fn from_code(code: u8) -> Result<RecordKind> {
        match code {
            1 => Ok(RecordKind::Gvsp),
            other => Err(Error::Unsupported {
                what: "GVSP-over-TCP record kind",
                value: other.into(),
            }),
        }
    }
}

/// A parsed record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RecordHeader {
    /// What the body carries.
    pub kind: RecordKind,
    /// Body length in bytes, at most [`MAX_BODY_LEN`].
    pub body_len: u32,
}

impl RecordHeader {
    /// Parses and validates the 8-byte record header at the start of `buf`.
    pub fn parse(buf: &[u8]) -> Result<RecordHeader> {
        ensure_len("GVSP-over-TCP record header", buf, HEADER_LEN)?;
        let magic = be_u16(buf, field::MAGIC);
        if magic != MAGIC {
            return Err(Error::BadValue {
                field: "GVSP-over-TCP magic",
                value: magic.into(),
            });
        }
        let version = buf[field::VERSION];
        if version != VERSION {
            return Err(Error::BadValue {
                field: "GVSP-over-TCP version",
                value: version.into(),
            });
        }
        let kind = RecordKind::from_code(buf[field::KIND])?;
        let body_len = be_u32(buf, field::LENGTH);
        if body_len > MAX_BODY_LEN {
            return Err(Error::BadLength {
                what: "GVSP-over-TCP record body",
                len: body_len as usize,
                rule: "larger than the 64 MiB limit",
            });
        }
        Ok(RecordHeader { kind, body_len })
    }

    /// Bytes the header occupies.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        if self.body_len > MAX_BODY_LEN {
            return Err(Error::Overflow {
                field: "GVSP-over-TCP body length",
                value: self.body_len.into(),
                max: MAX_BODY_LEN.into(),
            });
        }
        ensure_len("GVSP-over-TCP header buffer", buf, HEADER_LEN)?;
        put_u16(buf, field::MAGIC, MAGIC);
        buf[field::VERSION] = VERSION;
        buf[field::KIND] = self.kind.code();
        put_u32(buf, field::LENGTH, self.body_len);
        Ok(HEADER_LEN)
    }

    /// The header as an array, for vectored writes.
    pub fn to_bytes(&self) -> Result<[u8; HEADER_LEN]> {
        let mut b = [0u8; HEADER_LEN];
        self.emit(&mut b)?;
        Ok(b)
    }
}

/// What the buffered bytes hold, as far as framing is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// At least this many more bytes must arrive before anything can be decided.
    NeedMore(usize),
    /// A whole record is buffered: header, and body of `body_len` bytes;
    /// it ends at byte `HEADER_LEN + body_len`.
    Complete(RecordHeader),
}

/// Inspects the start of a receive buffer without consuming it.
///
/// A receiver that wants one copy reads the header (and the GVSP header
/// inside the body) first, then reads the data straight to its final place.
pub fn peek(buf: &[u8]) -> Result<Progress> {
    if buf.len() < HEADER_LEN {
        return Ok(Progress::NeedMore(HEADER_LEN - buf.len()));
    }
    let header = RecordHeader::parse(buf)?;
    let total = HEADER_LEN + header.body_len as usize;
    if buf.len() < total {
        Ok(Progress::NeedMore(total - buf.len()))
    } else {
        Ok(Progress::Complete(header))
    }
}

/// A zero-copy view of one complete record.
#[derive(Debug, Clone)]
pub struct Record<T: AsRef<[u8]>> {
    buffer: T,
    header: RecordHeader,
}

impl<T: AsRef<[u8]>> Record<T> {
    /// Wraps `buffer`, which must start with a complete record (it may hold more).
    pub fn new_checked(buffer: T) -> Result<Self> {
        match peek(buffer.as_ref())? {
            Progress::Complete(header) => Ok(Record { buffer, header }),
            Progress::NeedMore(_) => Err(Error::Truncated {
                what: "GVSP-over-TCP record",
                got: buffer.as_ref().len(),
                need: HEADER_LEN + RecordHeader::parse(buffer.as_ref())?.body_len as usize,
            }),
        }
    }

    /// The record header.
    pub fn header(&self) -> RecordHeader {
        self.header
    }

    /// The body: for [`RecordKind::Gvsp`], one GVSP packet.
    pub fn body(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.total_len()]
    }

    /// Header plus body length, i.e. where the next record starts.
    pub fn total_len(&self) -> usize {
        HEADER_LEN + self.header.body_len as usize
    }
}

/// Frames one GVSP packet into a new vector (header + body), for tests and tools.
pub fn frame_gvsp(packet: &[u8]) -> Result<Vec<u8>> {
    let body_len = u32::try_from(packet.len()).map_err(|_| Error::Overflow {
        field: "GVSP-over-TCP body length",
        value: packet.len() as u64,
        max: MAX_BODY_LEN.into(),
    })?;
    let header = RecordHeader {
        kind: RecordKind::Gvsp,
        body_len,
    };
    let mut v = Vec::with_capacity(HEADER_LEN + packet.len());
    v.extend_from_slice(&header.to_bytes()?);
    v.extend_from_slice(packet);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_bytes() {
        let h = RecordHeader {
            kind: RecordKind::Gvsp,
            body_len: 0x0102_0304 & 0x00ff_ffff,
        };
        let b = h.to_bytes().expect("emits");
        assert_eq!(b, [0x4c, 0x52, 1, 1, 0x00, 0x02, 0x03, 0x04]);
        assert_eq!(RecordHeader::parse(&b), Ok(h));
    }

    #[test]
    fn peek_walks_a_stream() {
        let mut stream = frame_gvsp(&[1, 2, 3]).expect("frames");
        stream.extend(frame_gvsp(&[4; 10]).expect("frames"));
        assert_eq!(peek(&stream[..5]), Ok(Progress::NeedMore(3)));
        assert_eq!(peek(&stream[..9]), Ok(Progress::NeedMore(2)));
        let r = Record::new_checked(&stream[..]).expect("complete");
        assert_eq!(r.body(), &[1, 2, 3]);
        let next = &stream[r.total_len()..];
        let r2 = Record::new_checked(next).expect("complete");
        assert_eq!(r2.body(), &[4; 10]);
        assert_eq!(r2.total_len(), next.len());
        assert!(Record::new_checked(&next[..10]).is_err());
    }

    #[test]
    fn rejects_garbage() {
        assert!(matches!(
            peek(&[0x4c, 0x53, 1, 1, 0, 0, 0, 0]),
            Err(Error::BadValue { value: 0x4c53, .. })
        ));
        assert!(peek(&[0x4c, 0x52, 2, 1, 0, 0, 0, 0]).is_err());
        assert!(peek(&[0x4c, 0x52, 1, 7, 0, 0, 0, 0]).is_err());
        assert!(matches!(
            peek(&[0x4c, 0x52, 1, 1, 0xff, 0xff, 0xff, 0xff]),
            Err(Error::BadLength { .. })
        ));
        let too_big = RecordHeader {
            kind: RecordKind::Gvsp,
            body_len: MAX_BODY_LEN + 1,
        };
        assert!(too_big.to_bytes().is_err());
    }
}
