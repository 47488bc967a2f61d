//! GVCP acknowledges (device to host): parse and emit.

use super::discovery::{DiscoveryAck, DISCOVERY_ACK_LEN};
use super::header::{AckPacket, HEADER_LEN};
use super::{code, MAX_MEMORY_DATA, MAX_READ_REGISTERS};
use crate::bytes::{be_u16, be_u32, put_u16, put_u32};
use crate::error::{ensure_len, Error, Result};
use crate::Status;

/// The acks this crate understands, with their payloads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Ack {
    /// Answer to discovery: the device's identity (boxed: it is 248 bytes).
    Discovery(Box<DiscoveryAck>),
    /// Answer to FORCEIP or to Aravis's bye (code 0x0005, empty payload).
    Bye,
    /// Register values, in the order requested.
    ReadReg {
        /// One value per register read.
        values: Vec<u32>,
    },
    /// Answer to writereg.
    WriteReg {
        /// Number of writes that succeeded, or the index of the failing one.
        index: u16,
    },
    /// Memory contents.
    ReadMem {
        /// Start address echoed from the command.
        address: u32,
        /// The bytes read.
        #[cfg_attr(feature = "serde", serde(serialize_with = "crate::serde_support::hex"))]
        data: Vec<u8>,
    },
    /// Answer to writemem.
    WriteMem {
        /// Number of bytes written, or the offset of the failing one.
        index: u16,
    },
    /// The device needs more time; the real ack follows within this delay.
    PendingAck {
        /// Milliseconds the host should wait before timing out.
        time_to_completion_ms: u16,
    },
    /// An error ack with an empty payload, as a device sends for a command it
    /// does not implement or cannot parse.
    Bare {
        /// The ack code (usually the command code plus one).
        answer: u16,
    },
}

impl Ack {
    /// The ack code on the wire.
    pub fn code(&self) -> u16 {
        match self {
            Ack::Discovery(_) => code::DISCOVERY_ACK,
            Ack::Bye => code::BYE_ACK,
            Ack::ReadReg { .. } => code::READREG_ACK,
            Ack::WriteReg { .. } => code::WRITEREG_ACK,
            Ack::ReadMem { .. } => code::READMEM_ACK,
            Ack::WriteMem { .. } => code::WRITEMEM_ACK,
            Ack::PendingAck { .. } => code::PENDING_ACK,
            Ack::Bare { answer } => *answer,
        }
    }

    fn payload_len(&self) -> usize {
        match self {
            Ack::Discovery(_) => DISCOVERY_ACK_LEN,
            Ack::Bye | Ack::Bare { .. } => 0,
            Ack::ReadReg { values } => 4 * values.len(),
            Ack::WriteReg { .. } | Ack::WriteMem { .. } | Ack::PendingAck { .. } => 4,
            Ack::ReadMem { data, .. } => 4 + data.len(),
        }
    }

    fn validate(&self) -> Result<()> {
        let too_many = |field, n: usize, max: usize| {
            if n > max {
                Err(Error::Overflow {
                    field,
                    value: n as u64,
                    max: max as u64,
                })
            } else {
                Ok(())
            }
        };
        match self {
            Ack::ReadReg { values } => {
                too_many("readreg ack values", values.len(), MAX_READ_REGISTERS)
            }
            Ack::ReadMem { data, .. } => {
                if data.len() % 4 != 0 {
                    return Err(Error::BadLength {
                        what: "readmem ack data",
                        len: data.len(),
                        rule: "must be a multiple of 4",
                    });
                }
                too_many("readmem ack data", data.len(), MAX_MEMORY_DATA)
            }
            _ => Ok(()),
        }
    }
}

/// A parsed GVCP ack.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AckRepr {
    /// Outcome of the command.
    pub status: Status,
    /// Request id of the command being answered.
    pub ack_id: u16,
    /// The ack and its payload.
    pub ack: Ack,
}

impl AckRepr {
    /// Parses the ack in `packet`.
    pub fn parse<T: AsRef<[u8]>>(packet: &AckPacket<T>) -> Result<AckRepr> {
        let status = packet.status();
        let p = packet.payload();
        let answer = packet.answer();
        let ack = if p.is_empty() && status.is_error() && answer != code::BYE_ACK {
            Ack::Bare { answer }
        } else {
            match answer {
                code::DISCOVERY_ACK => Ack::Discovery(Box::new(DiscoveryAck::parse(p)?)),
                code::BYE_ACK => Ack::Bye,
                code::READREG_ACK => {
                    if p.len() % 4 != 0 {
                        return Err(Error::BadLength {
                            what: "GVCP readreg ack",
                            len: p.len(),
                            rule: "must be a multiple of 4",
                        });
                    }
                    Ack::ReadReg {
                        values: p.chunks_exact(4).map(|c| be_u32(c, 0)).collect(),
                    }
                }
                code::WRITEREG_ACK => {
                    ensure_len("GVCP writereg ack", p, 4)?;
                    Ack::WriteReg {
                        index: be_u16(p, 2),
                    }
                }
                code::READMEM_ACK => {
                    ensure_len("GVCP readmem ack", p, 4)?;
                    Ack::ReadMem {
                        address: be_u32(p, 0),
                        data: p[4..].to_vec(),
                    }
                }
                code::WRITEMEM_ACK => {
                    ensure_len("GVCP writemem ack", p, 4)?;
                    Ack::WriteMem {
                        index: be_u16(p, 2),
                    }
                }
                code::PENDING_ACK => {
                    ensure_len("GVCP pending ack", p, 4)?;
                    Ack::PendingAck {
                        time_to_completion_ms: be_u16(p, 2),
                    }
                }
                other => {
                    return Err(Error::Unsupported {
                        what: "GVCP ack",
                        value: other.into(),
                    })
                }
            }
        };
        ack.validate()?;
        Ok(AckRepr {
            status,
            ack_id: packet.ack_id(),
            ack,
        })
    }

    /// Bytes the encoded ack occupies.
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.ack.payload_len()
    }

    /// Encodes into `buf`, returning the number of bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        self.ack.validate()?;
        let len = self.buffer_len();
        ensure_len("GVCP ack buffer", buf, len)?;
        let buf = &mut buf[..len];
        AckPacket::new_for_emit(&mut *buf)?.set_header(
            self.status,
            self.ack.code(),
            (len - HEADER_LEN) as u16,
            self.ack_id,
        );
        let p = &mut buf[HEADER_LEN..];
        match &self.ack {
            Ack::Discovery(d) => {
                d.emit(p)?;
            }
            Ack::Bye | Ack::Bare { .. } => {}
            Ack::ReadReg { values } => {
                for (i, v) in values.iter().enumerate() {
                    put_u32(p, 4 * i, *v);
                }
            }
            Ack::WriteReg { index } | Ack::WriteMem { index } => {
                put_u16(p, 0, 0);
                put_u16(p, 2, *index);
            }
            Ack::ReadMem { address, data } => {
                put_u32(p, 0, *address);
                p[4..].copy_from_slice(data);
            }
            Ack::PendingAck {
                time_to_completion_ms,
            } => {
                put_u16(p, 0, 0);
                put_u16(p, 2, *time_to_completion_ms);
            }
        }
        Ok(len)
    }

    /// Encodes into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        self.emit(&mut v)?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> Result<AckRepr> {
        AckRepr::parse(&AckPacket::new_checked(bytes)?)
    }

    fn ok(ack: Ack, id: u16) -> AckRepr {
        AckRepr {
            status: Status::SUCCESS,
            ack_id: id,
            ack,
        }
    }

    #[test]
    fn simple_acks_round_trip() {
        for a in [
            ok(Ack::Bye, 1),
            ok(
                Ack::ReadReg {
                    values: vec![1, 2, 0xffff_ffff],
                },
                2,
            ),
            ok(Ack::WriteReg { index: 3 }, 3),
            ok(
                Ack::ReadMem {
                    address: 0x200,
                    data: b"Local:a.xml;0;10".to_vec(),
                },
                4,
            ),
            ok(Ack::WriteMem { index: 16 }, 5),
            ok(
                Ack::PendingAck {
                    time_to_completion_ms: 250,
                },
                6,
            ),
            AckRepr {
                status: Status::NOT_IMPLEMENTED,
                ack_id: 7,
                ack: Ack::Bare { answer: 0x0999 },
            },
        ] {
            let v = a.to_vec().expect("emits");
            assert_eq!(parse(&v), Ok(a));
        }
    }

    #[test]
    fn discovery_ack_is_256_bytes() {
        let a = ok(Ack::Discovery(Box::default()), 1);
        let v = a.to_vec().expect("emits");
        assert_eq!(v.len(), 8 + 248);
        assert_eq!(&v[..8], &[0, 0, 0, 3, 0, 248, 0, 1]);
        assert_eq!(parse(&v), Ok(a));
    }

    #[test]
    fn pending_ack_bytes() {
        let a = ok(
            Ack::PendingAck {
                time_to_completion_ms: 0x0102,
            },
            9,
        );
        assert_eq!(
            a.to_vec().expect("emits"),
            [0, 0, 0, 0x89, 0, 4, 0, 9, 0, 0, 1, 2]
        );
    }

    #[test]
    fn rejects_bad_input() {
        // discovery ack with 4 bytes of payload
        assert!(parse(&[0, 0, 0, 3, 0, 4, 0, 1, 0, 0, 0, 0]).is_err());
        // readreg ack with 2 bytes
        assert!(parse(&[0, 0, 0, 0x81, 0, 2, 0, 1, 0, 0]).is_err());
        // unknown successful ack
        assert!(matches!(
            parse(&[0, 0, 0x77, 0x77, 0, 0, 0, 1]),
            Err(Error::Unsupported { value: 0x7777, .. })
        ));
        // readmem ack data not a multiple of 4 cannot be emitted
        assert!(ok(
            Ack::ReadMem {
                address: 0,
                data: vec![1]
            },
            1
        )
        .to_vec()
        .is_err());
    }
}
