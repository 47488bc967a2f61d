//! GVCP commands (host to device): parse and emit.

use super::header::{CommandPacket, HEADER_LEN};
use super::{code, flags, MAX_MEMORY_DATA, MAX_READ_REGISTERS, MAX_WRITE_REGISTERS};
use crate::bytes::{be_u16, be_u32, put_u16, put_u32};
use crate::error::{ensure_len, Error, Result};

/// Largest packet id a standard (24-bit) resend request can name.
const MAX_STANDARD_PACKET_ID: u32 = 0x00ff_ffff;

/// One register write inside a writereg command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RegisterWrite {
    /// Register address (4-byte aligned).
    pub address: u32,
    /// Value to write.
    pub value: u32,
}

/// A packet-resend request: "send packets `first..=last` of block `block_id` again".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PacketResend {
    /// Stream channel index.
    pub channel: u16,
    /// Block (frame) id: 16 bits in standard mode, 64 bits with extended ids.
    pub block_id: u64,
    /// First packet id to resend.
    pub first_packet_id: u32,
    /// Last packet id to resend (inclusive).
    pub last_packet_id: u32,
    /// Use the GigE Vision 2.0 extended-id layout (flag 0x10 in the header).
    pub extended: bool,
}

impl PacketResend {
    const STANDARD_LEN: usize = 12;
    const EXTENDED_LEN: usize = 20;

    fn payload_len(&self) -> usize {
        if self.extended {
            Self::EXTENDED_LEN
        } else {
            Self::STANDARD_LEN
        }
    }

    fn parse(payload: &[u8], extended: bool) -> Result<Self> {
        if extended {
            ensure_len("GVCP extended packet resend", payload, Self::EXTENDED_LEN)?;
            Ok(PacketResend {
                channel: be_u16(payload, 0),
                block_id: (u64::from(be_u32(payload, 12)) << 32) | u64::from(be_u32(payload, 16)),
                first_packet_id: be_u32(payload, 4),
                last_packet_id: be_u32(payload, 8),
                extended: true,
            })
        } else {
            ensure_len("GVCP packet resend", payload, Self::STANDARD_LEN)?;
            // The top byte of each packet id word is reserved in standard mode.
            Ok(PacketResend {
                channel: be_u16(payload, 0),
                block_id: be_u16(payload, 2).into(),
                first_packet_id: be_u32(payload, 4) & MAX_STANDARD_PACKET_ID,
                last_packet_id: be_u32(payload, 8) & MAX_STANDARD_PACKET_ID,
                extended: false,
            })
        }
    }

    fn validate(&self) -> Result<()> {
        if !self.extended {
            if self.block_id > u64::from(u16::MAX) {
                return Err(Error::Overflow {
                    field: "packet resend block id (standard ids)",
                    value: self.block_id,
                    max: u16::MAX.into(),
                });
            }
            for id in [self.first_packet_id, self.last_packet_id] {
                if id > MAX_STANDARD_PACKET_ID {
                    return Err(Error::Overflow {
                        field: "packet resend packet id (standard ids)",
                        value: id.into(),
                        max: MAX_STANDARD_PACKET_ID.into(),
                    });
                }
            }
        }
        Ok(())
    }

    fn emit(&self, p: &mut [u8]) {
        put_u16(p, 0, self.channel);
        put_u32(p, 4, self.first_packet_id);
        put_u32(p, 8, self.last_packet_id);
        if self.extended {
            put_u16(p, 2, 0);
            put_u32(p, 12, (self.block_id >> 32) as u32);
            put_u32(p, 16, self.block_id as u32);
        } else {
            put_u16(p, 2, self.block_id as u16);
        }
    }
}

/// Force a device with a given MAC to take a static IP configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ForceIp {
    /// MAC address of the device that must obey.
    pub mac: crate::ethernet::MacAddr,
    /// New IPv4 address.
    pub ip: core::net::Ipv4Addr,
    /// New subnet mask.
    pub subnet_mask: core::net::Ipv4Addr,
    /// New default gateway.
    pub gateway: core::net::Ipv4Addr,
}

/// Byte offsets in the FORCEIP payload (after the 8-byte header): each
/// value is right-aligned in a 16-byte field, as in the bootstrap registers.
mod force_ip_field {
    use core::ops::Range;
    /// Device MAC address (after 2 reserved bytes).
    pub const MAC: Range<usize> = 2..8;
    /// New IPv4 address (last 4 bytes of bytes 8..24).
    pub const IP: usize = 20;
    /// New subnet mask (last 4 bytes of bytes 24..40).
    pub const SUBNET_MASK: usize = 36;
    /// New default gateway (last 4 bytes of bytes 40..56).
    pub const GATEWAY: usize = 52;
    /// Payload length.
    pub const LEN: usize = 56;
}

impl ForceIp {
    const LEN: usize = force_ip_field::LEN;

    fn parse(p: &[u8]) -> Result<Self> {
        use force_ip_field as f;
        ensure_len("GVCP forceip", p, Self::LEN)?;
        let mut mac = [0u8; 6];
        mac.copy_from_slice(&p[f::MAC]);
        Ok(ForceIp {
            mac: crate::ethernet::MacAddr(mac),
            ip: be_u32(p, f::IP).into(),
            subnet_mask: be_u32(p, f::SUBNET_MASK).into(),
            gateway: be_u32(p, f::GATEWAY).into(),
        })
    }

    fn emit(&self, p: &mut [u8]) {
        use force_ip_field as f;
        p[..Self::LEN].fill(0);
        p[f::MAC].copy_from_slice(&self.mac.0);
        put_u32(p, f::IP, self.ip.into());
        put_u32(p, f::SUBNET_MASK, self.subnet_mask.into());
        put_u32(p, f::GATEWAY, self.gateway.into());
    }
}

/// The commands this crate understands, with their payloads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Command {
    /// Find devices; the device answers with a [`super::DiscoveryAck`].
    Discovery,
    /// Aravis's "bye": command 0x0004 with an empty payload, sent by Aravis
    /// hosts to end a session. The standard assigns 0x0004 to FORCEIP (see
    /// [`Command::ForceIp`]), so Wireshark flags an empty one as malformed;
    /// linerate parses it for compatibility but its own host releases
    /// control by clearing the CCP register instead.
    Bye,
    /// Standard FORCEIP (0x0004 with a 56-byte payload).
    ForceIp(ForceIp),
    /// Read 32-bit registers at these addresses.
    ReadReg {
        /// Register addresses, at most [`MAX_READ_REGISTERS`].
        addresses: Vec<u32>,
    },
    /// Write 32-bit registers.
    WriteReg {
        /// Address/value pairs, at most [`MAX_WRITE_REGISTERS`].
        writes: Vec<RegisterWrite>,
    },
    /// Read `count` bytes of device memory starting at `address`.
    ReadMem {
        /// Start address (4-byte aligned).
        address: u32,
        /// Bytes to read: a multiple of 4, at most [`MAX_MEMORY_DATA`].
        count: u16,
    },
    /// Write bytes to device memory.
    WriteMem {
        /// Start address (4-byte aligned).
        address: u32,
        /// Data: a multiple of 4 bytes, at most [`MAX_MEMORY_DATA`].
        #[cfg_attr(feature = "serde", serde(serialize_with = "crate::serde_support::hex"))]
        data: Vec<u8>,
    },
    /// Ask the device to resend stream packets.
    PacketResend(PacketResend),
}

impl Command {
    /// The command code on the wire.
    pub fn code(&self) -> u16 {
        match self {
            Command::Discovery => code::DISCOVERY_CMD,
            Command::Bye | Command::ForceIp(_) => code::BYE_CMD,
            Command::ReadReg { .. } => code::READREG_CMD,
            Command::WriteReg { .. } => code::WRITEREG_CMD,
            Command::ReadMem { .. } => code::READMEM_CMD,
            Command::WriteMem { .. } => code::WRITEMEM_CMD,
            Command::PacketResend(_) => code::PACKET_RESEND_CMD,
        }
    }

    fn payload_len(&self) -> usize {
        match self {
            Command::Discovery | Command::Bye => 0,
            Command::ForceIp(_) => ForceIp::LEN,
            Command::ReadReg { addresses } => 4 * addresses.len(),
            Command::WriteReg { writes } => 8 * writes.len(),
            Command::ReadMem { .. } => 8,
            Command::WriteMem { data, .. } => 4 + data.len(),
            Command::PacketResend(r) => r.payload_len(),
        }
    }

    fn validate(&self) -> Result<()> {
        match self {
            Command::ReadReg { addresses } => {
                check_count("readreg addresses", addresses.len(), 1, MAX_READ_REGISTERS)
            }
            Command::WriteReg { writes } => {
                check_count("writereg writes", writes.len(), 1, MAX_WRITE_REGISTERS)
            }
            Command::ReadMem { count, .. } => check_memory_len("readmem count", (*count).into()),
            Command::WriteMem { data, .. } => check_memory_len("writemem data", data.len()),
            Command::PacketResend(r) => r.validate(),
            Command::Discovery | Command::Bye | Command::ForceIp(_) => Ok(()),
        }
    }
}

fn check_count(field: &'static str, n: usize, min: usize, max: usize) -> Result<()> {
    if n < min {
        return Err(Error::BadLength {
            what: field,
            len: n,
            rule: "must not be empty",
        });
    }
    if n > max {
        return Err(Error::Overflow {
            field,
            value: n as u64,
            max: max as u64,
        });
    }
    Ok(())
}

fn check_memory_len(field: &'static str, n: usize) -> Result<()> {
    if n == 0 || n % 4 != 0 {
        return Err(Error::BadLength {
            what: field,
            len: n,
            rule: "must be a non-zero multiple of 4",
        });
    }
    check_count(field, n, 1, MAX_MEMORY_DATA)
}

fn check_multiple(what: &'static str, payload: &[u8], unit: usize) -> Result<()> {
    if payload.is_empty() || payload.len() % unit != 0 {
        return Err(Error::BadLength {
            what,
            len: payload.len(),
            rule: "payload must be a non-empty multiple of the entry size",
        });
    }
    Ok(())
}

/// A parsed GVCP command.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CommandRepr {
    /// Header flag bits, see [`super::flags`]. `emit` sets the extended-ids
    /// bit itself for extended packet-resend commands.
    pub flags: u8,
    /// Request id, never 0; the ack echoes it.
    pub request_id: u16,
    /// The command and its payload.
    pub command: Command,
}

impl CommandRepr {
    /// Builds a command that asks for an ack, with the flags the standard expects.
    pub fn new(command: Command, request_id: u16) -> CommandRepr {
        let mut flags = flags::ACK_REQUIRED;
        match &command {
            Command::Discovery => flags |= flags::ALLOW_BROADCAST_ACK,
            Command::PacketResend(r) => {
                // Packet resend is never acknowledged.
                flags = if r.extended { flags::EXTENDED_IDS } else { 0 };
            }
            _ => {}
        }
        CommandRepr {
            flags,
            request_id,
            command,
        }
    }

    /// True when the host asked for an acknowledge.
    pub fn ack_required(&self) -> bool {
        self.flags & flags::ACK_REQUIRED != 0
    }

    /// Parses the command in `packet`.
    pub fn parse<T: AsRef<[u8]>>(packet: &CommandPacket<T>) -> Result<CommandRepr> {
        let request_id = packet.request_id();
        if request_id == 0 {
            return Err(Error::BadValue {
                field: "GVCP request id",
                value: 0,
            });
        }
        let p = packet.payload();
        let command = match packet.command() {
            code::DISCOVERY_CMD => Command::Discovery,
            code::BYE_CMD if p.is_empty() => Command::Bye,
            code::BYE_CMD => Command::ForceIp(ForceIp::parse(p)?),
            code::READREG_CMD => {
                check_multiple("GVCP readreg", p, 4)?;
                Command::ReadReg {
                    addresses: p.chunks_exact(4).map(|c| be_u32(c, 0)).collect(),
                }
            }
            code::WRITEREG_CMD => {
                check_multiple("GVCP writereg", p, 8)?;
                Command::WriteReg {
                    writes: p
                        .chunks_exact(8)
                        .map(|c| RegisterWrite {
                            address: be_u32(c, 0),
                            value: be_u32(c, 4),
                        })
                        .collect(),
                }
            }
            code::READMEM_CMD => {
                ensure_len("GVCP readmem", p, 8)?;
                Command::ReadMem {
                    address: be_u32(p, 0),
                    count: be_u16(p, 6),
                }
            }
            code::WRITEMEM_CMD => {
                ensure_len("GVCP writemem", p, 8)?;
                Command::WriteMem {
                    address: be_u32(p, 0),
                    data: p[4..].to_vec(),
                }
            }
            code::PACKET_RESEND_CMD => Command::PacketResend(PacketResend::parse(
                p,
                packet.flags() & flags::EXTENDED_IDS != 0,
            )?),
            other => {
                return Err(Error::Unsupported {
                    what: "GVCP command",
                    value: other.into(),
                })
            }
        };
        // The same limits apply to what we accept as to what we emit, so a
        // parsed command can always be re-encoded.
        command.validate()?;
        Ok(CommandRepr {
            flags: packet.flags(),
            request_id,
            command,
        })
    }

    /// Bytes the encoded command occupies.
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.command.payload_len()
    }

    /// Encodes into `buf`, returning the number of bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        if self.request_id == 0 {
            return Err(Error::BadValue {
                field: "GVCP request id",
                value: 0,
            });
        }
        self.command.validate()?;
        let len = self.buffer_len();
        ensure_len("GVCP command buffer", buf, len)?;
        let buf = &mut buf[..len];
        let mut flags = self.flags;
        if let Command::PacketResend(r) = &self.command {
            if r.extended {
                flags |= flags::EXTENDED_IDS;
            } else {
                flags &= !flags::EXTENDED_IDS;
            }
        }
        let payload_len = (len - HEADER_LEN) as u16;
        CommandPacket::new_for_emit(&mut *buf)?.set_header(
            flags,
            self.command.code(),
            payload_len,
            self.request_id,
        );
        let p = &mut buf[HEADER_LEN..];
        match &self.command {
            Command::Discovery | Command::Bye => {}
            Command::ForceIp(f) => f.emit(p),
            Command::ReadReg { addresses } => {
                for (i, a) in addresses.iter().enumerate() {
                    put_u32(p, 4 * i, *a);
                }
            }
            Command::WriteReg { writes } => {
                for (i, w) in writes.iter().enumerate() {
                    put_u32(p, 8 * i, w.address);
                    put_u32(p, 8 * i + 4, w.value);
                }
            }
            Command::ReadMem { address, count } => {
                put_u32(p, 0, *address);
                put_u16(p, 4, 0);
                put_u16(p, 6, *count);
            }
            Command::WriteMem { address, data } => {
                put_u32(p, 0, *address);
                p[4..].copy_from_slice(data);
            }
            Command::PacketResend(r) => r.emit(p),
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

    fn parse(bytes: &[u8]) -> Result<CommandRepr> {
        CommandRepr::parse(&CommandPacket::new_checked(bytes)?)
    }

    #[test]
    fn discovery_bytes() {
        let c = CommandRepr::new(Command::Discovery, 1);
        let v = c.to_vec().expect("emits");
        assert_eq!(v, [0x42, 0x11, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01]);
        assert_eq!(parse(&v), Ok(c));
    }

    #[test]
    fn readreg_and_writereg() {
        let c = CommandRepr::new(
            Command::ReadReg {
                addresses: vec![0x0a00, 0x0d04],
            },
            7,
        );
        let v = c.to_vec().expect("emits");
        assert_eq!(
            v,
            [0x42, 1, 0, 0x80, 0, 8, 0, 7, 0, 0, 0x0a, 0, 0, 0, 0x0d, 0x04]
        );
        assert_eq!(parse(&v), Ok(c));
        let c = CommandRepr::new(
            Command::WriteReg {
                writes: vec![RegisterWrite {
                    address: 0x0a00,
                    value: 2,
                }],
            },
            8,
        );
        assert_eq!(parse(&c.to_vec().expect("emits")), Ok(c));
    }

    #[test]
    fn memory_commands() {
        let c = CommandRepr::new(
            Command::ReadMem {
                address: 0x200,
                count: 512,
            },
            3,
        );
        let v = c.to_vec().expect("emits");
        assert_eq!(&v[8..], &[0, 0, 2, 0, 0, 0, 2, 0]);
        assert_eq!(parse(&v), Ok(c));
        let c = CommandRepr::new(
            Command::WriteMem {
                address: 0xe8,
                data: b"cam1".to_vec(),
            },
            4,
        );
        assert_eq!(parse(&c.to_vec().expect("emits")), Ok(c));
    }

    #[test]
    fn memory_limits() {
        let c = CommandRepr::new(
            Command::ReadMem {
                address: 0,
                count: 3,
            },
            1,
        );
        assert!(matches!(c.to_vec(), Err(Error::BadLength { len: 3, .. })));
        let c = CommandRepr::new(
            Command::WriteMem {
                address: 0,
                data: vec![0; MAX_MEMORY_DATA + 4],
            },
            1,
        );
        assert!(matches!(c.to_vec(), Err(Error::Overflow { .. })));
    }

    #[test]
    fn standard_and_extended_resend() {
        let std = PacketResend {
            channel: 0,
            block_id: 0x1234,
            first_packet_id: 5,
            last_packet_id: 9,
            extended: false,
        };
        let c = CommandRepr::new(Command::PacketResend(std), 11);
        let v = c.to_vec().expect("emits");
        assert_eq!(v[1], 0x00);
        assert_eq!(&v[8..], &[0, 0, 0x12, 0x34, 0, 0, 0, 5, 0, 0, 0, 9]);
        assert_eq!(parse(&v), Ok(c));

        let ext = PacketResend {
            block_id: 0x0102_0304_0506_0708,
            first_packet_id: 0x0100_0000,
            last_packet_id: 0x0100_0002,
            extended: true,
            ..std
        };
        let c = CommandRepr::new(Command::PacketResend(ext), 12);
        let v = c.to_vec().expect("emits");
        assert_eq!(v[1], flags::EXTENDED_IDS);
        assert_eq!(v.len(), 28);
        assert_eq!(&v[20..], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(parse(&v), Ok(c));

        let too_big = PacketResend {
            block_id: 0x1_0000,
            ..std
        };
        assert!(CommandRepr::new(Command::PacketResend(too_big), 1)
            .to_vec()
            .is_err());
    }

    #[test]
    fn bye_and_force_ip_share_a_code() {
        let bye = CommandRepr::new(Command::Bye, 2);
        let v = bye.to_vec().expect("emits");
        assert_eq!(v, [0x42, 1, 0, 4, 0, 0, 0, 2]);
        assert_eq!(parse(&v), Ok(bye));
        let f = CommandRepr::new(
            Command::ForceIp(ForceIp {
                mac: crate::ethernet::MacAddr([2, 0, 0, 0, 0, 9]),
                ip: [169, 254, 3, 4].into(),
                subnet_mask: [255, 255, 0, 0].into(),
                gateway: [0, 0, 0, 0].into(),
            }),
            3,
        );
        let v = f.to_vec().expect("emits");
        assert_eq!(v.len(), 64);
        assert_eq!(&v[8 + 20..8 + 24], &[169, 254, 3, 4]);
        assert_eq!(parse(&v), Ok(f));
        assert!(parse(&v[..20]).is_err());
    }

    #[test]
    fn rejects_bad_input() {
        // request id 0
        assert!(matches!(
            parse(&[0x42, 1, 0, 2, 0, 0, 0, 0]),
            Err(Error::BadValue { value: 0, .. })
        ));
        // unknown command 0x0999
        assert!(matches!(
            parse(&[0x42, 1, 0x09, 0x99, 0, 0, 0, 1]),
            Err(Error::Unsupported { value: 0x999, .. })
        ));
        // readreg with 3 payload bytes, and empty
        assert!(parse(&[0x42, 1, 0, 0x80, 0, 3, 0, 1, 0, 0, 0]).is_err());
        assert!(parse(&[0x42, 1, 0, 0x80, 0, 0, 0, 1]).is_err());
        // truncated resend
        assert!(parse(&[0x42, 0, 0, 0x40, 0, 4, 0, 1, 0, 0, 0, 1]).is_err());
    }
}
