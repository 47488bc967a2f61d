//! GVCP, the GigE Vision control protocol (UDP port 3956).
//!
//! A host sends *commands*, each starting with the key byte `0x42`; the
//! device answers with *acks* that echo the request id. Both share an 8-byte
//! header followed by a payload whose length the header states. This module
//! covers the commands a streaming host and an emulated camera need:
//! discovery, bye, register and memory access, packet resend and pending ack.
//!
//! ```text
//! command: | 0x42 | flags | command u16 | length u16 | request id u16 | payload ...
//! ack:     | status u16   | answer  u16 | length u16 | ack id     u16 | payload ...
//! ```

mod ack;
mod command;
mod discovery;
mod header;

pub use ack::{Ack, AckRepr};
pub use command::{Command, CommandRepr, ForceIp, PacketResend, RegisterWrite};
pub use discovery::{DiscoveryAck, FixedString};
pub use header::{AckPacket, CommandPacket, HEADER_LEN};

/// The UDP port GVCP devices listen on.
pub const PORT: u16 = 3956;

/// The first byte of every GVCP command.
pub const KEY: u8 = 0x42;

/// Largest GVCP datagram payload: the standard caps a GVCP IP datagram at 576 bytes.
pub const MAX_UDP_PAYLOAD: usize = 576 - 20 - 8;

/// Largest GVCP message payload after the 8-byte header.
pub const MAX_PAYLOAD: usize = MAX_UDP_PAYLOAD - HEADER_LEN;

/// Most bytes one readmem/writemem may move (payload minus the address word).
pub const MAX_MEMORY_DATA: usize = MAX_PAYLOAD - 4;

/// Most registers one readreg may name.
pub const MAX_READ_REGISTERS: usize = MAX_PAYLOAD / 4;

/// Most register writes one writereg may carry.
pub const MAX_WRITE_REGISTERS: usize = MAX_PAYLOAD / 8;

/// Command flag bits (the second header byte of a command).
pub mod flags {
    /// The host wants an acknowledge.
    pub const ACK_REQUIRED: u8 = 0x01;
    /// Discovery: the device may answer to the broadcast address.
    pub const ALLOW_BROADCAST_ACK: u8 = 0x10;
    /// Packet resend: the payload uses 64-bit block ids and 32-bit packet ids.
    pub const EXTENDED_IDS: u8 = 0x10;
}

/// Command and ack codes. An ack's code is its command's code plus one.
pub mod code {
    /// Discovery command.
    pub const DISCOVERY_CMD: u16 = 0x0002;
    /// Discovery ack.
    pub const DISCOVERY_ACK: u16 = 0x0003;
    /// FORCEIP in the standard; Aravis also sends it with an empty payload as "bye".
    pub const BYE_CMD: u16 = 0x0004;
    /// Ack of FORCEIP or of Aravis's bye.
    pub const BYE_ACK: u16 = 0x0005;
    /// Standard name of 0x0004.
    pub const FORCEIP_CMD: u16 = BYE_CMD;
    /// Standard name of 0x0005.
    pub const FORCEIP_ACK: u16 = BYE_ACK;
    /// Packet resend command (no ack: the device resends stream packets).
    pub const PACKET_RESEND_CMD: u16 = 0x0040;
    /// Read registers command.
    pub const READREG_CMD: u16 = 0x0080;
    /// Read registers ack.
    pub const READREG_ACK: u16 = 0x0081;
    /// Write registers command.
    pub const WRITEREG_CMD: u16 = 0x0082;
    /// Write registers ack.
    pub const WRITEREG_ACK: u16 = 0x0083;
    /// Read memory command.
    pub const READMEM_CMD: u16 = 0x0084;
    /// Read memory ack.
    pub const READMEM_ACK: u16 = 0x0085;
    /// Write memory command.
    pub const WRITEMEM_CMD: u16 = 0x0086;
    /// Write memory ack.
    pub const WRITEMEM_ACK: u16 = 0x0087;
    /// Pending ack: the device needs more time before the real ack.
    pub const PENDING_ACK: u16 = 0x0089;
}

/// A GVCP datagram of either direction, told apart by the key byte.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Message {
    /// A host-to-device command.
    Command(CommandRepr),
    /// A device-to-host acknowledge.
    Ack(AckRepr),
}

impl Message {
    /// Parses a whole GVCP datagram (the UDP payload).
    ///
    /// Commands start with [`KEY`]; a status word never does, because valid
    /// statuses are 0x0000, 0x01xx or have bit 15 set.
    pub fn parse(datagram: &[u8]) -> crate::Result<Message> {
        if datagram.first() == Some(&KEY) {
            let packet = CommandPacket::new_checked(datagram)?;
            Ok(Message::Command(CommandRepr::parse(&packet)?))
        } else {
            let packet = AckPacket::new_checked(datagram)?;
            Ok(Message::Ack(AckRepr::parse(&packet)?))
        }
    }

    /// Encodes the message into a new datagram.
    pub fn to_vec(&self) -> crate::Result<Vec<u8>> {
        match self {
            Message::Command(c) => c.to_vec(),
            Message::Ack(a) => a.to_vec(),
        }
    }
}
