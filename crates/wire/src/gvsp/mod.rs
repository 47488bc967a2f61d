//! GVSP, the GigE Vision stream protocol.
//!
//! A device sends each *block* (usually one image) as a *leader* packet, a
//! run of *payload* packets and a *trailer* packet, all numbered by packet
//! id within the block. Small blocks may travel as one *all-in* packet.
//! GigE Vision 2.0 adds *extended ids*: a 20-byte header with a 64-bit block
//! id and a 32-bit packet id, so ids never wrap in practice.
//!
//! ```text
//! standard: | status u16 | block id u16 | EI=0 | format (7 bits) | packet id (24 bits) | data
//! extended: | status u16 | flags u16    | EI=1 | format (7 bits) | reserved (24 bits)  |
//!           | block id u64 | packet id u32 | data
//! ```
//!
//! A packet whose status is [`crate::Status::PACKET_RESEND`] is a
//! retransmission; an error status with no data answers a resend request for
//! data the device no longer has.

mod header;
mod leader;
mod packet;
mod trailer;

pub use header::{HeaderRepr, Packet, PacketFormat, EXTENDED_HEADER_LEN, STANDARD_HEADER_LEN};
pub use leader::{ImageInfo, LeaderInfo, LeaderRepr};
pub use packet::{Body, PacketRepr};
pub use trailer::TrailerRepr;

/// Bytes of IPv4 + UDP headers, which SCPS packet sizes include.
pub const IP_UDP_OVERHEAD: usize = 20 + 8;

/// Payload bytes per packet for a given SCPS packet size, standard ids
/// (SCPS counts the IP, UDP and GVSP headers: 36 bytes).
pub const fn payload_per_packet(scps_packet_size: usize, extended: bool) -> usize {
    let header = if extended {
        EXTENDED_HEADER_LEN
    } else {
        STANDARD_HEADER_LEN
    };
    scps_packet_size.saturating_sub(IP_UDP_OVERHEAD + header)
}

/// The 16-bit payload type of a leader or trailer.
///
/// Bit 14 (0x4000) marks *extended chunk mode*: chunk data follows the
/// image. The newtype keeps unknown codes intact.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PayloadType(pub u16);

impl PayloadType {
    /// An image, described by an [`ImageInfo`].
    pub const IMAGE: PayloadType = PayloadType(0x0001);
    /// Opaque raw data of a stated size.
    pub const RAW_DATA: PayloadType = PayloadType(0x0002);
    /// A file.
    pub const FILE: PayloadType = PayloadType(0x0003);
    /// Chunk data only.
    pub const CHUNK_DATA: PayloadType = PayloadType(0x0004);
    /// The flag that adds chunk data to another payload type.
    pub const CHUNK_FLAG: u16 = 0x4000;
    /// An image followed by chunk data.
    pub const IMAGE_WITH_CHUNKS: PayloadType = PayloadType(0x4001);

    /// The payload type without the chunk flag.
    pub const fn base(self) -> u16 {
        self.0 & 0x3fff
    }

    /// True when the chunk flag is set.
    pub const fn has_chunks(self) -> bool {
        self.0 & Self::CHUNK_FLAG != 0
    }
}

impl core::fmt::Debug for PayloadType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let name = match self.base() {
            0x0001 => "Image",
            0x0002 => "RawData",
            0x0003 => "File",
            0x0004 => "ChunkData",
            _ => "Unknown",
        };
        if self.has_chunks() {
            write!(f, "{name}+Chunks({:#06x})", self.0)
        } else {
            write!(f, "{name}({:#06x})", self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_sizes_follow_scps() {
        assert_eq!(payload_per_packet(1500, false), 1464);
        assert_eq!(payload_per_packet(9000, true), 8952);
        assert_eq!(payload_per_packet(10, false), 0);
    }

    #[test]
    fn payload_type_bits() {
        assert!(PayloadType::IMAGE_WITH_CHUNKS.has_chunks());
        assert_eq!(PayloadType::IMAGE_WITH_CHUNKS.base(), 1);
        assert_eq!(format!("{:?}", PayloadType::RAW_DATA), "RawData(0x0002)");
    }
}
