//! The GVSP packet header, in standard and extended-id forms.

use crate::bytes::{be_u16, be_u32, be_u64, put_u16, put_u32, put_u64};
use crate::error::{ensure_len, Error, Result};
use crate::Status;

/// Byte offsets of the GVSP header.
mod field {
    pub const STATUS: usize = 0;
    /// Block id (standard) or flags (extended).
    pub const BLOCK_ID_OR_FLAGS: usize = 2;
    /// EI bit, packet format and (standard) 24-bit packet id.
    pub const PACKET_INFOS: usize = 4;
    pub const EXT_BLOCK_ID: usize = 8;
    pub const EXT_PACKET_ID: usize = 16;
    pub const STANDARD_DATA: usize = 8;
    pub const EXTENDED_DATA: usize = 20;
}

/// Length of a standard GVSP header.
pub const STANDARD_HEADER_LEN: usize = field::STANDARD_DATA;
/// Length of an extended-id GVSP header.
pub const EXTENDED_HEADER_LEN: usize = field::EXTENDED_DATA;

const EXTENDED_ID_BIT: u32 = 0x8000_0000;
const FORMAT_MASK: u32 = 0x7f00_0000;
const PACKET_ID_MASK: u32 = 0x00ff_ffff;

/// What a GVSP packet carries (the "content type" or packet format).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum PacketFormat {
    /// First packet of a block: describes the payload.
    Leader,
    /// Last packet of a block.
    Trailer,
    /// A slice of the block's data.
    Payload,
    /// Leader, trailer and data in one packet.
    AllIn,
}

impl PacketFormat {
    /// The code on the wire.
    pub const fn code(self) -> u8 {
        match self {
            PacketFormat::Leader => 1,
            PacketFormat::Trailer => 2,
            PacketFormat::Payload => 3,
            PacketFormat::AllIn => 4,
        }
    }

    /// Decodes a format code; H.264, multi-zone, multi-part and GenDC are not supported.
    pub fn from_code(code: u8) -> Result<PacketFormat> {
        Ok(match code {
            1 => PacketFormat::Leader,
            2 => PacketFormat::Trailer,
            3 => PacketFormat::Payload,
            4 => PacketFormat::AllIn,
            other => {
                return Err(Error::Unsupported {
                    what: "GVSP packet format",
                    value: other.into(),
                })
            }
        })
    }
}

/// A zero-copy view of a GVSP packet.
///
/// `new_checked` accepts both header forms; accessors read the form the EI
/// bit announces, so a receiver's hot path can use the view without building
/// a [`HeaderRepr`].
#[derive(Debug, Clone)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps `buffer` after checking it holds the whole header its EI bit announces.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        ensure_len("GVSP header", b, STANDARD_HEADER_LEN)?;
        if be_u32(b, field::PACKET_INFOS) & EXTENDED_ID_BIT != 0 {
            ensure_len("GVSP extended header", b, EXTENDED_HEADER_LEN)?;
        }
        Ok(Packet { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn infos(&self) -> u32 {
        be_u32(self.buffer.as_ref(), field::PACKET_INFOS)
    }

    /// Packet status; [`Status::PACKET_RESEND`] marks a retransmission.
    pub fn status(&self) -> Status {
        Status(be_u16(self.buffer.as_ref(), field::STATUS))
    }

    /// True when the packet uses the 20-byte extended-id header.
    pub fn is_extended(&self) -> bool {
        self.infos() & EXTENDED_ID_BIT != 0
    }

    /// The raw 7-bit packet format code.
    pub fn format_code(&self) -> u8 {
        ((self.infos() & FORMAT_MASK) >> 24) as u8
    }

    /// Extended-header flags (0 for standard headers).
    pub fn flags(&self) -> u16 {
        if self.is_extended() {
            be_u16(self.buffer.as_ref(), field::BLOCK_ID_OR_FLAGS)
        } else {
            0
        }
    }

    /// Block id, widened to 64 bits.
    pub fn block_id(&self) -> u64 {
        let b = self.buffer.as_ref();
        if self.is_extended() {
            be_u64(b, field::EXT_BLOCK_ID)
        } else {
            be_u16(b, field::BLOCK_ID_OR_FLAGS).into()
        }
    }

    /// Packet id within the block.
    pub fn packet_id(&self) -> u32 {
        if self.is_extended() {
            be_u32(self.buffer.as_ref(), field::EXT_PACKET_ID)
        } else {
            self.infos() & PACKET_ID_MASK
        }
    }

    /// Header length of this packet.
    pub fn header_len(&self) -> usize {
        if self.is_extended() {
            EXTENDED_HEADER_LEN
        } else {
            STANDARD_HEADER_LEN
        }
    }

    /// Everything after the header.
    pub fn data(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
}

/// The parsed GVSP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HeaderRepr {
    /// Packet status.
    pub status: Status,
    /// Block id; never 0. At most 0xffff with standard ids.
    pub block_id: u64,
    /// Packet id; at most 0xff_ffff with standard ids.
    pub packet_id: u32,
    /// What the packet carries.
    pub format: PacketFormat,
    /// Use the 20-byte extended-id header.
    pub extended: bool,
    /// Extended-header flags; must be 0 with standard ids.
    pub flags: u16,
}

impl HeaderRepr {
    /// Parses the header of `packet`.
    pub fn parse<T: AsRef<[u8]>>(packet: &Packet<T>) -> Result<HeaderRepr> {
        let format = PacketFormat::from_code(packet.format_code())?;
        let block_id = packet.block_id();
        if block_id == 0 {
            return Err(Error::BadValue {
                field: "GVSP block id",
                value: 0,
            });
        }
        Ok(HeaderRepr {
            status: packet.status(),
            block_id,
            packet_id: packet.packet_id(),
            format,
            extended: packet.is_extended(),
            flags: packet.flags(),
        })
    }

    /// Header length in bytes.
    pub const fn buffer_len(&self) -> usize {
        if self.extended {
            EXTENDED_HEADER_LEN
        } else {
            STANDARD_HEADER_LEN
        }
    }

    /// Checks the ids fit the chosen header form.
    pub fn validate(&self) -> Result<()> {
        if self.block_id == 0 {
            return Err(Error::BadValue {
                field: "GVSP block id",
                value: 0,
            });
        }
        if !self.extended {
            if self.block_id > u64::from(u16::MAX) {
                return Err(Error::Overflow {
                    field: "GVSP block id (standard ids)",
                    value: self.block_id,
                    max: u16::MAX.into(),
                });
            }
            if self.packet_id > PACKET_ID_MASK {
                return Err(Error::Overflow {
                    field: "GVSP packet id (standard ids)",
                    value: self.packet_id.into(),
                    max: PACKET_ID_MASK.into(),
                });
            }
            if self.flags != 0 {
                return Err(Error::BadValue {
                    field: "GVSP flags (standard ids have none)",
                    value: self.flags.into(),
                });
            }
        }
        Ok(())
    }

    /// Writes the header into the start of `buf`, returning its length.
    ///
    /// This is the streamer's hot path: it writes only the header, so the
    /// data can already sit in place behind it.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        self.validate()?;
        let len = self.buffer_len();
        ensure_len("GVSP header buffer", buf, len)?;
        let format = u32::from(self.format.code()) << 24;
        put_u16(buf, field::STATUS, self.status.0);
        if self.extended {
            put_u16(buf, field::BLOCK_ID_OR_FLAGS, self.flags);
            put_u32(buf, field::PACKET_INFOS, EXTENDED_ID_BIT | format);
            put_u64(buf, field::EXT_BLOCK_ID, self.block_id);
            put_u32(buf, field::EXT_PACKET_ID, self.packet_id);
        } else {
            put_u16(buf, field::BLOCK_ID_OR_FLAGS, self.block_id as u16);
            put_u32(buf, field::PACKET_INFOS, format | self.packet_id);
        }
        Ok(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(extended: bool) -> HeaderRepr {
        HeaderRepr {
            status: Status::SUCCESS,
            block_id: 0x1234,
            packet_id: 0x56,
            format: PacketFormat::Payload,
            extended,
            flags: 0,
        }
    }

    #[test]
    fn standard_header_bytes() {
        let mut b = [0u8; 8];
        assert_eq!(header(false).emit(&mut b), Ok(8));
        assert_eq!(b, [0, 0, 0x12, 0x34, 0x03, 0, 0, 0x56]);
        let p = Packet::new_checked(&b[..]).expect("valid");
        assert_eq!(HeaderRepr::parse(&p), Ok(header(false)));
    }

    #[test]
    fn extended_header_bytes() {
        let mut b = [0u8; 20];
        let h = HeaderRepr {
            block_id: 0x0102_0304_0506_0708,
            packet_id: 0x0a0b_0c0d,
            status: Status::PACKET_RESEND,
            ..header(true)
        };
        assert_eq!(h.emit(&mut b), Ok(20));
        assert_eq!(&b[..8], &[0x01, 0x00, 0, 0, 0x83, 0, 0, 0]);
        assert_eq!(&b[8..], &[1, 2, 3, 4, 5, 6, 7, 8, 0x0a, 0x0b, 0x0c, 0x0d]);
        let p = Packet::new_checked(&b[..]).expect("valid");
        assert_eq!(HeaderRepr::parse(&p), Ok(h));
    }

    #[test]
    fn rejects_bad_headers() {
        // extended bit but only 8 bytes
        assert!(Packet::new_checked(&[0, 0, 0, 1, 0x83, 0, 0, 0][..]).is_err());
        // block id 0
        let p = Packet::new_checked(&[0, 0, 0, 0, 0x03, 0, 0, 1][..]).expect("len ok");
        assert!(HeaderRepr::parse(&p).is_err());
        // format 9
        let p = Packet::new_checked(&[0, 0, 0, 1, 0x09, 0, 0, 1][..]).expect("len ok");
        assert!(matches!(
            HeaderRepr::parse(&p),
            Err(Error::Unsupported { value: 9, .. })
        ));
        // standard ids overflow
        let mut b = [0u8; 8];
        let h = HeaderRepr {
            block_id: 0x1_0000,
            ..header(false)
        };
        assert!(h.emit(&mut b).is_err());
        let h = HeaderRepr {
            packet_id: 0x100_0000,
            ..header(false)
        };
        assert!(h.emit(&mut b).is_err());
    }
}
