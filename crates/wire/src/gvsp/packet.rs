//! A whole GVSP packet: header plus its format-specific body.

use super::header::{HeaderRepr, Packet, PacketFormat};
use super::leader::LeaderRepr;
use super::trailer::TrailerRepr;
use crate::error::{ensure_len, Error, Result};

/// The format-specific part of a GVSP packet. Data is borrowed, never copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Body<'a> {
    /// A data leader.
    Leader(LeaderRepr),
    /// A data trailer.
    Trailer(TrailerRepr),
    /// A slice of block data.
    #[cfg_attr(feature = "serde", serde(rename = "payload_bytes"))]
    Payload(
        #[cfg_attr(
            feature = "serde",
            serde(serialize_with = "crate::serde_support::byte_count")
        )]
        &'a [u8],
    ),
    /// Leader, trailer and the whole block's data in one packet.
    AllIn {
        /// The leader fields.
        leader: LeaderRepr,
        /// The trailer fields.
        trailer: TrailerRepr,
        /// The block's data.
        #[cfg_attr(
            feature = "serde",
            serde(
                rename = "data_bytes",
                serialize_with = "crate::serde_support::byte_count"
            )
        )]
        data: &'a [u8],
    },
    /// A header with an error status and nothing after it, as a device sends
    /// when it cannot honour a resend request.
    Empty,
}

/// A parsed GVSP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PacketRepr<'a> {
    /// The header.
    pub header: HeaderRepr,
    /// What follows it.
    pub body: Body<'a>,
}

impl<'a> PacketRepr<'a> {
    /// Parses a whole GVSP datagram.
    pub fn parse(datagram: &'a [u8]) -> Result<PacketRepr<'a>> {
        let packet = Packet::new_checked(datagram)?;
        let header = HeaderRepr::parse(&packet)?;
        let data = &datagram[header.buffer_len()..];
        if data.is_empty() && header.status.is_error() {
            return Ok(PacketRepr {
                header,
                body: Body::Empty,
            });
        }
        let body = match header.format {
            PacketFormat::Leader => Body::Leader(LeaderRepr::parse(data)?.0),
            PacketFormat::Trailer => Body::Trailer(TrailerRepr::parse(data)?.0),
            PacketFormat::Payload => Body::Payload(data),
            PacketFormat::AllIn => {
                let (leader, used) = LeaderRepr::parse(data)?;
                let rest = &data[used..];
                let (trailer, used) = TrailerRepr::parse(rest)?;
                if trailer.payload_type != leader.payload_type {
                    return Err(Error::BadValue {
                        field: "GVSP all-in trailer payload type (differs from leader)",
                        value: trailer.payload_type.0.into(),
                    });
                }
                Body::AllIn {
                    leader,
                    trailer,
                    data: &rest[used..],
                }
            }
        };
        Ok(PacketRepr { header, body })
    }

    /// Bytes the encoded packet occupies.
    pub fn buffer_len(&self) -> Result<usize> {
        let body = match &self.body {
            Body::Leader(l) => l.buffer_len(),
            Body::Trailer(t) => t.buffer_len()?,
            Body::Payload(d) => d.len(),
            Body::AllIn {
                leader,
                trailer,
                data,
            } => leader.buffer_len() + trailer.buffer_len()? + data.len(),
            Body::Empty => 0,
        };
        Ok(self.header.buffer_len() + body)
    }

    /// Encodes into `buf`, returning the bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let expected = match self.body {
            Body::Leader(_) => Some(PacketFormat::Leader),
            Body::Trailer(_) => Some(PacketFormat::Trailer),
            Body::Payload(_) => Some(PacketFormat::Payload),
            Body::AllIn { .. } => Some(PacketFormat::AllIn),
            Body::Empty => None,
        };
        if expected.is_some_and(|f| f != self.header.format) {
            return Err(Error::BadValue {
                field: "GVSP packet format (does not match the body)",
                value: self.header.format.code().into(),
            });
        }
        if matches!(self.body, Body::Empty) && !self.header.status.is_error() {
            return Err(Error::BadValue {
                field: "GVSP status of an empty packet (must be an error)",
                value: self.header.status.0.into(),
            });
        }
        let len = self.buffer_len()?;
        ensure_len("GVSP packet buffer", buf, len)?;
        let mut at = self.header.emit(buf)?;
        match &self.body {
            Body::Leader(l) => at += l.emit(&mut buf[at..])?,
            Body::Trailer(t) => at += t.emit(&mut buf[at..])?,
            Body::Payload(d) => {
                buf[at..at + d.len()].copy_from_slice(d);
                at += d.len();
            }
            Body::AllIn {
                leader,
                trailer,
                data,
            } => {
                if trailer.payload_type != leader.payload_type {
                    return Err(Error::BadValue {
                        field: "GVSP all-in trailer payload type (differs from leader)",
                        value: trailer.payload_type.0.into(),
                    });
                }
                at += leader.emit(&mut buf[at..])?;
                at += trailer.emit(&mut buf[at..])?;
                buf[at..at + data.len()].copy_from_slice(data);
                at += data.len();
            }
            Body::Empty => {}
        }
        Ok(at)
    }

    /// Encodes into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()?];
        self.emit(&mut v)?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gvsp::{ImageInfo, LeaderInfo, PayloadType};
    use crate::{PixelFormat, Status};

    fn header(format: PacketFormat, packet_id: u32) -> HeaderRepr {
        HeaderRepr {
            status: Status::SUCCESS,
            block_id: 1,
            packet_id,
            format,
            extended: false,
            flags: 0,
        }
    }

    fn leader() -> LeaderRepr {
        LeaderRepr {
            flags: 0,
            payload_type: PayloadType::IMAGE,
            timestamp: 42,
            info: LeaderInfo::Image(ImageInfo {
                pixel_format: PixelFormat::MONO8,
                width: 4,
                height: 2,
                ..ImageInfo::default()
            }),
        }
    }

    #[test]
    fn a_whole_block_round_trips() {
        let data = [7u8; 8];
        let packets = [
            PacketRepr {
                header: header(PacketFormat::Leader, 0),
                body: Body::Leader(leader()),
            },
            PacketRepr {
                header: header(PacketFormat::Payload, 1),
                body: Body::Payload(&data),
            },
            PacketRepr {
                header: header(PacketFormat::Trailer, 2),
                body: Body::Trailer(TrailerRepr::image(2)),
            },
        ];
        let lens: Vec<usize> = packets
            .iter()
            .map(|p| {
                let v = p.to_vec().expect("emits");
                assert_eq!(PacketRepr::parse(&v).expect("parses"), *p);
                v.len()
            })
            .collect();
        assert_eq!(lens, [44, 16, 16]);
    }

    #[test]
    fn all_in_and_resend_error() {
        let data = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let p = PacketRepr {
            header: HeaderRepr {
                extended: true,
                block_id: 1 << 40,
                ..header(PacketFormat::AllIn, 0)
            },
            body: Body::AllIn {
                leader: leader(),
                trailer: TrailerRepr::image(2),
                data: &data,
            },
        };
        let v = p.to_vec().expect("emits");
        assert_eq!(v.len(), 20 + 36 + 8 + 8);
        assert_eq!(PacketRepr::parse(&v).expect("parses"), p);

        let e = PacketRepr {
            header: HeaderRepr {
                status: Status::PACKET_UNAVAILABLE,
                ..header(PacketFormat::Payload, 9)
            },
            body: Body::Empty,
        };
        let v = e.to_vec().expect("emits");
        assert_eq!(v.len(), 8);
        assert_eq!(PacketRepr::parse(&v).expect("parses"), e);
    }

    #[test]
    fn rejects_mismatches() {
        let p = PacketRepr {
            header: header(PacketFormat::Trailer, 0),
            body: Body::Leader(leader()),
        };
        assert!(p.to_vec().is_err());
        let p = PacketRepr {
            header: header(PacketFormat::Payload, 0),
            body: Body::Empty,
        };
        assert!(p.to_vec().is_err());
        // leader packet with truncated leader
        assert!(PacketRepr::parse(&[0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1]).is_err());
    }
}
