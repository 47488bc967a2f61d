//! Frames of GVSP packets built with the camera's own block plan, shared
//! by the receive tests.

#![allow(dead_code)] // each test binary uses its own subset

use linerate_gev::block_plan::BlockPlan;
use linerate_wire::gvsp::{ImageInfo, LeaderInfo, LeaderRepr, PayloadType, TrailerRepr};
use linerate_wire::{PixelFormat, Status};

/// GVSP packet size (SCPS) of the test streams.
pub const PACKET_SIZE: usize = 1400;
/// Bytes per test frame (200x200 Mono8).
pub const FRAME: usize = 40_000;

/// The block plan of frame `block_id`.
pub fn plan(block_id: u64, extended: bool) -> BlockPlan {
    let leader = LeaderRepr {
        flags: 0,
        payload_type: PayloadType::IMAGE,
        timestamp: block_id,
        info: LeaderInfo::Image(ImageInfo {
            pixel_format: PixelFormat::MONO8,
            width: 200,
            height: 200,
            ..ImageInfo::default()
        }),
    };
    BlockPlan::new(
        block_id,
        extended,
        PACKET_SIZE,
        FRAME,
        leader,
        TrailerRepr::image(200),
    )
    .expect("plan")
}

/// The pixels of frame `block_id`, different for every frame.
pub fn frame_data(block_id: u64) -> Vec<u8> {
    (0..FRAME)
        .map(|i| (i as u64).wrapping_mul(7).wrapping_add(block_id * 13) as u8)
        .collect()
}

/// Packet `id` of the frame planned by `p` holding `data`.
pub fn packet(p: &BlockPlan, data: &[u8], id: u32, status: Status) -> Vec<u8> {
    let mut head = [0u8; 128];
    let (n, range) = p.write_head(id, status, &mut head).expect("head");
    let mut v = head[..n].to_vec();
    v.extend_from_slice(&data[range]);
    v
}

/// Every packet of frame `block_id`, in order.
pub fn frame_packets(block_id: u64) -> Vec<Vec<u8>> {
    let p = plan(block_id, false);
    let data = frame_data(block_id);
    (0..p.packet_count())
        .map(|id| packet(&p, &data, id, Status::SUCCESS))
        .collect()
}
