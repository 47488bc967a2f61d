//! GVSP data leader: what the block contains.

use super::PayloadType;
use crate::bytes::{be_u16, be_u32, be_u64, put_u16, put_u32, put_u64};
use crate::error::{ensure_len, Error, Result};
use crate::PixelFormat;

/// Byte offsets inside a leader, after the GVSP header.
mod field {
    pub const FLAGS: usize = 0;
    pub const PAYLOAD_TYPE: usize = 2;
    pub const TIMESTAMP: usize = 4;
    pub const INFO: usize = 12;
    // Image info, relative to INFO.
    pub const PIXEL_FORMAT: usize = 0;
    pub const SIZE_X: usize = 4;
    pub const SIZE_Y: usize = 8;
    pub const OFFSET_X: usize = 12;
    pub const OFFSET_Y: usize = 16;
    pub const PADDING_X: usize = 20;
    pub const PADDING_Y: usize = 22;
    pub const IMAGE_END: usize = 24;
    // Raw data info, relative to INFO.
    pub const PAYLOAD_SIZE: usize = 0;
    pub const RAW_END: usize = 8;
}

/// Geometry and pixel format of an image block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ImageInfo {
    /// PFNC pixel format.
    pub pixel_format: PixelFormat,
    /// Width in pixels.
    pub width: u32,
    /// Height in lines.
    pub height: u32,
    /// Horizontal offset of the region of interest.
    pub offset_x: u32,
    /// Vertical offset of the region of interest.
    pub offset_y: u32,
    /// Padding bytes at the end of each line.
    pub padding_x: u16,
    /// Padding bytes at the end of the image.
    pub padding_y: u16,
}

/// The payload-type-specific part of a leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum LeaderInfo {
    /// Image (payload type 0x0001, with or without chunk flag).
    Image(ImageInfo),
    /// Raw data (payload type 0x0002) of a stated size.
    RawData {
        /// Size of the block's data in bytes.
        payload_size: u64,
    },
    /// Chunk data only (payload type 0x0004): no further fields.
    ChunkData,
}

impl LeaderInfo {
    fn len(&self) -> usize {
        match self {
            LeaderInfo::Image(_) => field::IMAGE_END,
            LeaderInfo::RawData { .. } => field::RAW_END,
            LeaderInfo::ChunkData => 0,
        }
    }

    fn matches(&self, payload_type: PayloadType) -> bool {
        matches!(
            (self, payload_type.base()),
            (LeaderInfo::Image(_), 0x0001)
                | (LeaderInfo::RawData { .. }, 0x0002)
                | (LeaderInfo::ChunkData, 0x0004)
        )
    }
}

/// A parsed data leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LeaderRepr {
    /// Field info and generic flags (first two bytes); usually 0.
    pub flags: u16,
    /// What the block carries.
    pub payload_type: PayloadType,
    /// Device timestamp of the block, in ticks of the device's timestamp clock.
    pub timestamp: u64,
    /// Payload-type-specific fields; must agree with `payload_type`.
    pub info: LeaderInfo,
}

impl LeaderRepr {
    /// Parses a leader from the bytes after the GVSP header; returns it and the bytes used.
    pub fn parse(data: &[u8]) -> Result<(LeaderRepr, usize)> {
        ensure_len("GVSP leader", data, field::INFO)?;
        let payload_type = PayloadType(be_u16(data, field::PAYLOAD_TYPE));
        let rest = &data[field::INFO..];
        let info = match payload_type.base() {
            0x0001 => {
                ensure_len("GVSP image leader", rest, field::IMAGE_END)?;
                LeaderInfo::Image(ImageInfo {
                    pixel_format: PixelFormat(be_u32(rest, field::PIXEL_FORMAT)),
                    width: be_u32(rest, field::SIZE_X),
                    height: be_u32(rest, field::SIZE_Y),
                    offset_x: be_u32(rest, field::OFFSET_X),
                    offset_y: be_u32(rest, field::OFFSET_Y),
                    padding_x: be_u16(rest, field::PADDING_X),
                    padding_y: be_u16(rest, field::PADDING_Y),
                })
            }
            0x0002 => {
                ensure_len("GVSP raw data leader", rest, field::RAW_END)?;
                LeaderInfo::RawData {
                    payload_size: be_u64(rest, field::PAYLOAD_SIZE),
                }
            }
            0x0004 => LeaderInfo::ChunkData,
            _ => {
                return Err(Error::Unsupported {
                    what: "GVSP leader payload type",
                    value: payload_type.0.into(),
                })
            }
        };
        let repr = LeaderRepr {
            flags: be_u16(data, field::FLAGS),
            payload_type,
            timestamp: be_u64(data, field::TIMESTAMP),
            info,
        };
        Ok((repr, repr.buffer_len()))
    }

    /// Bytes the leader occupies after the GVSP header.
    pub fn buffer_len(&self) -> usize {
        field::INFO + self.info.len()
    }

    /// Writes the leader into `buf`, returning the bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        if !self.info.matches(self.payload_type) {
            return Err(Error::BadValue {
                field: "GVSP leader payload type (does not match its info)",
                value: self.payload_type.0.into(),
            });
        }
        let len = self.buffer_len();
        ensure_len("GVSP leader buffer", buf, len)?;
        put_u16(buf, field::FLAGS, self.flags);
        put_u16(buf, field::PAYLOAD_TYPE, self.payload_type.0);
        put_u64(buf, field::TIMESTAMP, self.timestamp);
        let rest = &mut buf[field::INFO..len];
        match &self.info {
            LeaderInfo::Image(i) => {
                put_u32(rest, field::PIXEL_FORMAT, i.pixel_format.0);
                put_u32(rest, field::SIZE_X, i.width);
                put_u32(rest, field::SIZE_Y, i.height);
                put_u32(rest, field::OFFSET_X, i.offset_x);
                put_u32(rest, field::OFFSET_Y, i.offset_y);
                put_u16(rest, field::PADDING_X, i.padding_x);
                put_u16(rest, field::PADDING_Y, i.padding_y);
            }
            LeaderInfo::RawData { payload_size } => {
                put_u64(rest, field::PAYLOAD_SIZE, *payload_size)
            }
            LeaderInfo::ChunkData => {}
        }
        Ok(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_leader_is_36_bytes() {
        let l = LeaderRepr {
            flags: 0,
            payload_type: PayloadType::IMAGE,
            timestamp: 0x0102_0304_0506_0708,
            info: LeaderInfo::Image(ImageInfo {
                pixel_format: PixelFormat::MONO8,
                width: 640,
                height: 480,
                ..ImageInfo::default()
            }),
        };
        let mut b = [0u8; 36];
        assert_eq!(l.emit(&mut b), Ok(36));
        assert_eq!(&b[..12], &[0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&b[12..20], &[0x01, 0x08, 0, 1, 0, 0, 2, 0x80]);
        assert_eq!(LeaderRepr::parse(&b), Ok((l, 36)));
    }

    #[test]
    fn raw_and_chunk_leaders() {
        let raw = LeaderRepr {
            flags: 0,
            payload_type: PayloadType::RAW_DATA,
            timestamp: 5,
            info: LeaderInfo::RawData {
                payload_size: 1 << 40,
            },
        };
        let mut b = [0u8; 20];
        assert_eq!(raw.emit(&mut b), Ok(20));
        assert_eq!(LeaderRepr::parse(&b), Ok((raw, 20)));
        let chunk = LeaderRepr {
            payload_type: PayloadType::CHUNK_DATA,
            info: LeaderInfo::ChunkData,
            ..raw
        };
        assert_eq!(chunk.emit(&mut b), Ok(12));
        assert_eq!(LeaderRepr::parse(&b[..12]), Ok((chunk, 12)));
    }

    #[test]
    fn rejects_mismatch_and_truncation() {
        let bad = LeaderRepr {
            flags: 0,
            payload_type: PayloadType::IMAGE,
            timestamp: 0,
            info: LeaderInfo::ChunkData,
        };
        assert!(bad.emit(&mut [0u8; 64]).is_err());
        let mut b = [0u8; 36];
        b[3] = 1;
        assert!(LeaderRepr::parse(&b[..35]).is_err());
        b[3] = 0x33;
        assert!(matches!(
            LeaderRepr::parse(&b),
            Err(Error::Unsupported { value: 0x33, .. })
        ));
    }
}
