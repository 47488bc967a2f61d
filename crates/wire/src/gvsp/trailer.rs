//! GVSP data trailer: closes a block.

use super::PayloadType;
use crate::bytes::{be_u16, be_u32, put_u16, put_u32};
use crate::error::{ensure_len, Error, Result};

/// Byte offsets inside a trailer, after the GVSP header.
mod field {
    pub const RESERVED: usize = 0;
    pub const PAYLOAD_TYPE: usize = 2;
    pub const OPTIONAL: usize = 4;
}

/// Which optional 32-bit words follow the payload type, by payload type.
#[derive(Clone, Copy)]
struct Layout {
    size_y: bool,
    chunk_payload_length: bool,
    chunk_layout_id: bool,
}

impl Layout {
    fn of(payload_type: PayloadType) -> Result<Layout> {
        let chunks = payload_type.has_chunks();
        Ok(match payload_type.base() {
            0x0001 => Layout {
                size_y: true,
                chunk_payload_length: chunks,
                chunk_layout_id: chunks,
            },
            0x0002 => Layout {
                size_y: false,
                chunk_payload_length: chunks,
                chunk_layout_id: chunks,
            },
            0x0004 => Layout {
                size_y: false,
                chunk_payload_length: true,
                chunk_layout_id: false,
            },
            _ => {
                return Err(Error::Unsupported {
                    what: "GVSP trailer payload type",
                    value: payload_type.0.into(),
                })
            }
        })
    }

    fn len(self) -> usize {
        field::OPTIONAL
            + 4 * (usize::from(self.size_y)
                + usize::from(self.chunk_payload_length)
                + usize::from(self.chunk_layout_id))
    }
}

/// A parsed data trailer.
///
/// Which optional fields are present depends on the payload type: images
/// carry `size_y`; the chunk flag adds chunk length and layout id; chunk-data
/// blocks carry their chunk length only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TrailerRepr {
    /// What the block carried; must match the leader's.
    pub payload_type: PayloadType,
    /// Image blocks: lines actually transmitted (may be fewer than the leader's height).
    pub size_y: Option<u32>,
    /// Chunk data length, when the payload type carries chunks.
    pub chunk_payload_length: Option<u32>,
    /// Chunk layout id, for image or raw data with the chunk flag.
    pub chunk_layout_id: Option<u32>,
}

impl TrailerRepr {
    /// The trailer of an image block of `size_y` lines.
    pub fn image(size_y: u32) -> TrailerRepr {
        TrailerRepr {
            payload_type: PayloadType::IMAGE,
            size_y: Some(size_y),
            chunk_payload_length: None,
            chunk_layout_id: None,
        }
    }

    /// Parses a trailer from the bytes after the GVSP header; returns it and the bytes used.
    pub fn parse(data: &[u8]) -> Result<(TrailerRepr, usize)> {
        ensure_len("GVSP trailer", data, field::OPTIONAL)?;
        let payload_type = PayloadType(be_u16(data, field::PAYLOAD_TYPE));
        let layout = Layout::of(payload_type)?;
        let len = layout.len();
        ensure_len("GVSP trailer", data, len)?;
        let mut at = field::OPTIONAL;
        let mut next = |present: bool| {
            present.then(|| {
                let v = be_u32(data, at);
                at += 4;
                v
            })
        };
        let size_y = next(layout.size_y);
        let chunk_payload_length = next(layout.chunk_payload_length);
        let chunk_layout_id = next(layout.chunk_layout_id);
        Ok((
            TrailerRepr {
                payload_type,
                size_y,
                chunk_payload_length,
                chunk_layout_id,
            },
            len,
        ))
    }

    /// Bytes the trailer occupies after the GVSP header.
    pub fn buffer_len(&self) -> Result<usize> {
        Ok(Layout::of(self.payload_type)?.len())
    }

    /// Writes the trailer into `buf`, returning the bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let layout = Layout::of(self.payload_type)?;
        let fields = [
            (layout.size_y, self.size_y, "GVSP trailer size_y"),
            (
                layout.chunk_payload_length,
                self.chunk_payload_length,
                "GVSP trailer chunk payload length",
            ),
            (
                layout.chunk_layout_id,
                self.chunk_layout_id,
                "GVSP trailer chunk layout id",
            ),
        ];
        for (wanted, value, name) in fields {
            if wanted != value.is_some() {
                return Err(Error::BadValue {
                    field: name,
                    value: self.payload_type.0.into(),
                });
            }
        }
        let len = layout.len();
        ensure_len("GVSP trailer buffer", buf, len)?;
        put_u16(buf, field::RESERVED, 0);
        put_u16(buf, field::PAYLOAD_TYPE, self.payload_type.0);
        let mut at = field::OPTIONAL;
        for v in fields.iter().filter_map(|f| f.1) {
            put_u32(buf, at, v);
            at += 4;
        }
        Ok(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_trailer_is_8_bytes() {
        let t = TrailerRepr::image(480);
        let mut b = [0u8; 8];
        assert_eq!(t.emit(&mut b), Ok(8));
        assert_eq!(b, [0, 0, 0, 1, 0, 0, 0x01, 0xe0]);
        assert_eq!(TrailerRepr::parse(&b), Ok((t, 8)));
    }

    #[test]
    fn chunk_variants() {
        let t = TrailerRepr {
            payload_type: PayloadType::IMAGE_WITH_CHUNKS,
            size_y: Some(4),
            chunk_payload_length: Some(64),
            chunk_layout_id: Some(9),
        };
        let mut b = [0u8; 16];
        assert_eq!(t.emit(&mut b), Ok(16));
        assert_eq!(TrailerRepr::parse(&b), Ok((t, 16)));
        let raw = TrailerRepr {
            payload_type: PayloadType::RAW_DATA,
            size_y: None,
            chunk_payload_length: None,
            chunk_layout_id: None,
        };
        assert_eq!(raw.emit(&mut b), Ok(4));
        let chunk = TrailerRepr {
            payload_type: PayloadType::CHUNK_DATA,
            chunk_payload_length: Some(12),
            ..raw
        };
        assert_eq!(chunk.emit(&mut b), Ok(8));
        assert_eq!(TrailerRepr::parse(&b[..8]), Ok((chunk, 8)));
    }

    #[test]
    fn rejects_inconsistent_fields() {
        let t = TrailerRepr {
            size_y: None,
            ..TrailerRepr::image(1)
        };
        assert!(t.emit(&mut [0u8; 16]).is_err());
        assert!(TrailerRepr::parse(&[0, 0, 0, 1, 0, 0]).is_err());
        assert!(TrailerRepr::parse(&[0, 0, 0, 9, 0, 0, 0, 0]).is_err());
    }
}
