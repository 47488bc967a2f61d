//! Splitting one block into GVSP packets, without touching the data.
//!
//! A sender asks the plan for packet `i`'s header bytes and the range of the
//! frame its data comes from, then hands both to a vectored send. The data is
//! never copied into a packet buffer; the header is written into a small side
//! buffer.

use core::ops::Range;

use linerate_wire::gvsp::{
    self, HeaderRepr, LeaderRepr, PacketFormat, TrailerRepr, EXTENDED_HEADER_LEN,
    STANDARD_HEADER_LEN,
};
use linerate_wire::Status;

/// Why a block cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The SCPS packet size leaves no room for data after the headers.
    #[error("packet size {packet_size} leaves no room for data (headers take {overhead} bytes)")]
    PacketTooSmall {
        /// The packet size asked for.
        packet_size: usize,
        /// IP + UDP + GVSP header bytes.
        overhead: usize,
    },
    /// A transfer size of zero cannot carry any data.
    #[error("data per packet is 0: every payload packet must carry at least one byte")]
    NoDataPerPacket,
    /// The block needs more packets than the id space allows.
    #[error("block of {data_len} bytes needs {packets} packets, more than the id space {max}")]
    TooManyPackets {
        /// Block size.
        data_len: usize,
        /// Packets needed.
        packets: u64,
        /// Largest packet id available.
        max: u64,
    },
    /// A header could not be encoded.
    #[error(transparent)]
    Wire(#[from] linerate_wire::Error),
}

/// Where a planned packet's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PacketContent {
    /// The leader: header and leader fields, no frame data.
    Leader,
    /// A payload packet carrying `range` of the block's data.
    Payload(Range<usize>),
    /// The trailer.
    Trailer,
}

/// The packets of one block for a given packet size.
#[derive(Debug, Clone)]
pub struct BlockPlan {
    block_id: u64,
    extended: bool,
    data_len: usize,
    data_per_packet: usize,
    payload_packets: u32,
    leader: LeaderRepr,
    trailer: TrailerRepr,
}

impl BlockPlan {
    /// Plans block `block_id` of `data_len` bytes for SCPS packet size
    /// `packet_size` (which counts IP, UDP and GVSP headers, as GigE Vision does).
    pub fn new(
        block_id: u64,
        extended: bool,
        packet_size: usize,
        data_len: usize,
        leader: LeaderRepr,
        trailer: TrailerRepr,
    ) -> Result<BlockPlan, PlanError> {
        let data_per_packet = gvsp::payload_per_packet(packet_size, extended);
        if data_per_packet == 0 {
            let header = if extended {
                EXTENDED_HEADER_LEN
            } else {
                STANDARD_HEADER_LEN
            };
            return Err(PlanError::PacketTooSmall {
                packet_size,
                overhead: gvsp::IP_UDP_OVERHEAD + header,
            });
        }
        Self::with_data_per_packet(
            block_id,
            extended,
            data_per_packet,
            data_len,
            leader,
            trailer,
        )
    }

    /// Plans block `block_id` with exactly `data_per_packet` data bytes in
    /// every payload packet but the last. For transports without a datagram
    /// limit (GVSP over TCP), where the transfer size is set directly and
    /// may be far above 65 535 bytes.
    pub fn with_data_per_packet(
        block_id: u64,
        extended: bool,
        data_per_packet: usize,
        data_len: usize,
        leader: LeaderRepr,
        trailer: TrailerRepr,
    ) -> Result<BlockPlan, PlanError> {
        if data_per_packet == 0 {
            return Err(PlanError::NoDataPerPacket);
        }
        let payload_packets = data_len.div_ceil(data_per_packet) as u64;
        // Packet ids: leader 0, payload 1..=n, trailer n+1.
        let max_id: u64 = if extended {
            u64::from(u32::MAX)
        } else {
            0x00ff_ffff
        };
        if payload_packets + 1 > max_id {
            return Err(PlanError::TooManyPackets {
                data_len,
                packets: payload_packets + 2,
                max: max_id,
            });
        }
        let plan = BlockPlan {
            block_id,
            extended,
            data_len,
            data_per_packet,
            payload_packets: payload_packets as u32,
            leader,
            trailer,
        };
        // Validate the ids once, so per-packet header writes cannot fail on them.
        plan.header(PacketFormat::Trailer, plan.trailer_id(), Status::SUCCESS)
            .validate()?;
        Ok(plan)
    }

    /// Total packets: leader, payload packets and trailer.
    pub fn packet_count(&self) -> u32 {
        self.payload_packets + 2
    }

    /// Data bytes per payload packet (all but the last carry exactly this).
    pub fn data_per_packet(&self) -> usize {
        self.data_per_packet
    }

    /// GVSP header length of this block's packets (8, or 20 with extended ids).
    pub fn header_len(&self) -> usize {
        if self.extended {
            EXTENDED_HEADER_LEN
        } else {
            STANDARD_HEADER_LEN
        }
    }

    /// The block id.
    pub fn block_id(&self) -> u64 {
        self.block_id
    }

    fn trailer_id(&self) -> u32 {
        self.payload_packets + 1
    }

    fn header(&self, format: PacketFormat, packet_id: u32, status: Status) -> HeaderRepr {
        HeaderRepr {
            status,
            block_id: self.block_id,
            packet_id,
            format,
            extended: self.extended,
            flags: 0,
        }
    }

    /// What packet `packet_id` carries, or `None` past the trailer.
    pub fn content(&self, packet_id: u32) -> Option<PacketContent> {
        if packet_id == 0 {
            Some(PacketContent::Leader)
        } else if packet_id <= self.payload_packets {
            let start = (packet_id as usize - 1) * self.data_per_packet;
            let end = (start + self.data_per_packet).min(self.data_len);
            Some(PacketContent::Payload(start..end))
        } else if packet_id == self.trailer_id() {
            Some(PacketContent::Trailer)
        } else {
            None
        }
    }

    /// Writes everything of packet `packet_id` except frame data into `buf`
    /// (the GVSP header, plus leader or trailer fields) and returns the bytes
    /// written and the frame range to send after them.
    pub fn write_head(
        &self,
        packet_id: u32,
        status: Status,
        buf: &mut [u8],
    ) -> Result<(usize, Range<usize>), PlanError> {
        let content = self
            .content(packet_id)
            .ok_or(linerate_wire::Error::BadValue {
                field: "packet id past the trailer",
                value: packet_id.into(),
            })?;
        let (format, range) = match &content {
            PacketContent::Leader => (PacketFormat::Leader, 0..0),
            PacketContent::Payload(r) => (PacketFormat::Payload, r.clone()),
            PacketContent::Trailer => (PacketFormat::Trailer, 0..0),
        };
        let mut at = self.header(format, packet_id, status).emit(buf)?;
        match content {
            PacketContent::Leader => at += self.leader.emit(&mut buf[at..])?,
            PacketContent::Trailer => at += self.trailer.emit(&mut buf[at..])?,
            PacketContent::Payload(_) => {}
        }
        Ok((at, range))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate_wire::gvsp::{Body, ImageInfo, LeaderInfo, PacketRepr, PayloadType};
    use linerate_wire::PixelFormat;

    fn plan(extended: bool, packet_size: usize, len: usize) -> Result<BlockPlan, PlanError> {
        BlockPlan::new(
            7,
            extended,
            packet_size,
            len,
            LeaderRepr {
                flags: 0,
                payload_type: PayloadType::IMAGE,
                timestamp: 1,
                info: LeaderInfo::Image(ImageInfo {
                    pixel_format: PixelFormat::MONO8,
                    width: len as u32,
                    height: 1,
                    ..ImageInfo::default()
                }),
            },
            TrailerRepr::image(1),
        )
    }

    #[test]
    fn packets_cover_the_block_exactly() {
        let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        let p = plan(false, 1500, data.len()).expect("plans");
        assert_eq!(p.data_per_packet(), 1464);
        assert_eq!(p.packet_count(), 2 + 7);
        let mut rebuilt = Vec::new();
        let mut head = [0u8; 64];
        for id in 0..p.packet_count() {
            let (n, range) = p.write_head(id, Status::SUCCESS, &mut head).expect("head");
            let mut packet = head[..n].to_vec();
            packet.extend_from_slice(&data[range]);
            match PacketRepr::parse(&packet).expect("valid GVSP").body {
                Body::Payload(d) => rebuilt.extend_from_slice(d),
                Body::Leader(_) => assert_eq!(id, 0),
                Body::Trailer(_) => assert_eq!(id, p.packet_count() - 1),
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(rebuilt, data);
        assert!(p.content(p.packet_count()).is_none());
        assert!(p
            .write_head(p.packet_count(), Status::SUCCESS, &mut head)
            .is_err());
    }

    #[test]
    fn rejects_impossible_plans() {
        assert!(matches!(
            plan(false, 36, 10),
            Err(PlanError::PacketTooSmall { overhead: 36, .. })
        ));
        assert!(matches!(
            plan(false, 37, 0x0100_0000),
            Err(PlanError::TooManyPackets { .. })
        ));
        assert!(plan(true, 49, 0x0100_0000).is_ok());
    }

    #[test]
    fn empty_block_has_leader_and_trailer_only() {
        let p = plan(true, 9000, 0).expect("plans");
        assert_eq!(p.packet_count(), 2);
        assert_eq!(p.content(1), Some(PacketContent::Trailer));
    }

    fn big(extended: bool, per_packet: usize, len: usize) -> Result<BlockPlan, PlanError> {
        let p = plan(extended, 1500, len).expect("template");
        BlockPlan::with_data_per_packet(7, extended, per_packet, len, p.leader, p.trailer)
    }

    #[test]
    fn transfer_sizes_beyond_a_datagram() {
        let data: Vec<u8> = (0..(1usize << 20) + 5).map(|i| (i % 251) as u8).collect();
        let p = big(false, 1 << 20, data.len()).expect("1 MiB transfers, standard ids");
        assert_eq!(p.data_per_packet(), 1 << 20);
        assert_eq!(p.packet_count(), 2 + 2);
        assert_eq!(p.content(1), Some(PacketContent::Payload(0..1 << 20)));
        assert_eq!(
            p.content(2),
            Some(PacketContent::Payload(1 << 20..data.len()))
        );
        let mut head = [0u8; 64];
        let mut rebuilt = Vec::new();
        for id in 1..=2 {
            let (n, range) = p.write_head(id, Status::SUCCESS, &mut head).expect("head");
            let mut packet = head[..n].to_vec();
            packet.extend_from_slice(&data[range]);
            match PacketRepr::parse(&packet).expect("valid GVSP").body {
                Body::Payload(d) => rebuilt.extend_from_slice(d),
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(rebuilt, data);
    }

    #[test]
    fn same_packets_as_scps_when_the_size_matches() {
        for extended in [false, true] {
            let udp = plan(extended, 9000, 100_000).expect("plans");
            let tcp = big(extended, udp.data_per_packet(), 100_000).expect("plans");
            assert_eq!(udp.packet_count(), tcp.packet_count());
            for id in 0..udp.packet_count() {
                assert_eq!(udp.content(id), tcp.content(id));
            }
        }
    }

    #[test]
    fn data_per_packet_must_be_positive_and_ids_must_fit() {
        assert_eq!(
            big(false, 0, 10).map(|p| p.packet_count()),
            Err(PlanError::NoDataPerPacket)
        );
        // 2^24 - 2 payload packets is the most 24-bit ids allow.
        assert!(matches!(
            big(false, 1, 0x00ff_ffff),
            Err(PlanError::TooManyPackets { .. })
        ));
        assert!(big(true, 1, 0x00ff_ffff).is_ok());
        assert_eq!(big(false, 512, 0).expect("empty").packet_count(), 2);
    }
}
