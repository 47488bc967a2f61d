//! The camera's resend buffer: the last N frames, kept so lost packets can
//! be sent again.
//!
//! Frame memory is allocated once per slot and reused; the oldest frame is
//! overwritten by the next one, so steady-state streaming allocates nothing.
//! The ring is bounded in bytes as well as in frames: big frames mean fewer
//! held (at least one), and [`FrameRing::release`] gives the memory back
//! when acquisition has ended.
//! A resend request is answered from here: packets of a frame still held go
//! out again with status PACKET_RESEND, and a request for a frame already
//! overwritten gets an error-status packet instead.

use crate::block_plan::BlockPlan;
use linerate_wire::Status;

/// Most packets one resend request may produce, so a bogus request for
/// packets 0..=0xffffff cannot make the camera flood the link.
pub const MAX_PACKETS_PER_REQUEST: u32 = 4096;

/// One held frame.
#[derive(Debug)]
struct Slot {
    plan: Option<BlockPlan>,
    data: Vec<u8>,
}

/// What to send for one requested packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResendItem {
    /// Resend packet `packet_id` of the held block.
    Packet {
        /// Packet id within the block.
        packet_id: u32,
    },
    /// Send a header-only packet with this error status.
    Error {
        /// Packet id the error refers to.
        packet_id: u32,
        /// Why it cannot be resent.
        status: Status,
    },
}

/// The ring of held frames.
#[derive(Debug)]
pub struct FrameRing {
    slots: Vec<Slot>,
    next: usize,
    /// Slots in use, `1..=slots.len()`: as many frames as fit `memory_limit`.
    active: usize,
    /// Most bytes of frame data held.
    memory_limit: usize,
}

impl FrameRing {
    /// A ring holding `frames` frames (at least 1), with no bound in bytes.
    pub fn new(frames: usize) -> FrameRing {
        FrameRing::with_memory_limit(frames, usize::MAX)
    }

    /// A ring holding at most `frames` frames (at least 1) and, once
    /// [`FrameRing::fit`] has been told the frame size, at most
    /// `memory_limit` bytes of them (but always one frame).
    pub fn with_memory_limit(frames: usize, memory_limit: usize) -> FrameRing {
        let frames = frames.max(1);
        FrameRing {
            slots: (0..frames)
                .map(|_| Slot {
                    plan: None,
                    data: Vec::new(),
                })
                .collect(),
            next: 0,
            active: frames,
            memory_limit,
        }
    }

    /// Frames held at most (slot indices run below this).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Frames held at most with the frame size last given to [`FrameRing::fit`].
    pub fn frames_held(&self) -> usize {
        self.active
    }

    /// Prepares for frames of `frame_len` bytes: holds as many as fit the
    /// memory limit (at least one, at most the capacity) and frees the
    /// slots beyond. Returns the frames that will be held.
    pub fn fit(&mut self, frame_len: usize) -> usize {
        let fit = self.memory_limit / frame_len.max(1);
        self.active = fit.clamp(1, self.slots.len());
        for slot in &mut self.slots[self.active..] {
            *slot = Slot {
                plan: None,
                data: Vec::new(),
            };
        }
        if self.next >= self.active {
            self.next = 0;
        }
        self.active
    }

    /// Forgets every held frame and gives its memory back (acquisition
    /// ended); resend requests are then answered as unavailable.
    pub fn release(&mut self) {
        for slot in &mut self.slots {
            *slot = Slot {
                plan: None,
                data: Vec::new(),
            };
        }
        self.next = 0;
    }

    /// Bytes of frame memory allocated now.
    pub fn allocated_bytes(&self) -> usize {
        self.slots.iter().map(|s| s.data.capacity()).sum()
    }

    /// The slot the next [`FrameRing::claim`] will take, so a sender whose
    /// kernel may still read that slot's memory (MSG_ZEROCOPY) can wait for
    /// it to be released before the frame is overwritten.
    pub fn next_slot(&self) -> usize {
        self.next
    }

    /// Takes the oldest slot for a new frame of `len` bytes and returns its
    /// index and memory. The frame it held is no longer resendable.
    /// Allocates only when the frame size grows.
    pub fn claim(&mut self, len: usize) -> (usize, &mut [u8]) {
        let index = self.next;
        self.next = (self.next + 1) % self.active;
        let slot = &mut self.slots[index];
        slot.plan = None;
        slot.data.resize(len, 0);
        (index, &mut slot.data[..])
    }

    /// Marks slot `index` as holding the block `plan` describes.
    pub fn commit(&mut self, index: usize, plan: BlockPlan) {
        if let Some(slot) = self.slots.get_mut(index) {
            slot.plan = Some(plan);
        }
    }

    /// The slot holding block `block_id`, if it is still held.
    pub fn find(&self, block_id: u64) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.plan.as_ref().is_some_and(|p| p.block_id() == block_id))
    }

    /// The plan and data of a held block.
    pub fn get(&self, block_id: u64) -> Option<(&BlockPlan, &[u8])> {
        self.slot(self.find(block_id)?)
    }

    /// The plan and data held in slot `index`.
    pub fn slot(&self, index: usize) -> Option<(&BlockPlan, &[u8])> {
        let s = self.slots.get(index)?;
        s.plan.as_ref().map(|p| (p, &s.data[..]))
    }

    /// Decides what to send for a request of packets `first..=last` of `block_id`.
    pub fn plan_resend(&self, block_id: u64, first: u32, last: u32) -> Vec<ResendItem> {
        if last < first {
            return Vec::new();
        }
        let count = (last - first)
            .saturating_add(1)
            .min(MAX_PACKETS_PER_REQUEST);
        let ids = (0..count).map(|i| first + i);
        match self.get(block_id) {
            Some((plan, _)) => ids
                .map(|packet_id| {
                    if packet_id < plan.packet_count() {
                        ResendItem::Packet { packet_id }
                    } else {
                        ResendItem::Error {
                            packet_id,
                            status: Status::PACKET_UNAVAILABLE,
                        }
                    }
                })
                .collect(),
            // One error packet answers the whole range of a frame we no longer hold.
            None => vec![ResendItem::Error {
                packet_id: first,
                status: Status::PACKET_UNAVAILABLE,
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate_wire::gvsp::{LeaderInfo, LeaderRepr, PayloadType, TrailerRepr};

    fn plan(block_id: u64, len: usize) -> BlockPlan {
        BlockPlan::new(
            block_id,
            false,
            1000,
            len,
            LeaderRepr {
                flags: 0,
                payload_type: PayloadType::RAW_DATA,
                timestamp: 0,
                info: LeaderInfo::RawData {
                    payload_size: len as u64,
                },
            },
            TrailerRepr {
                payload_type: PayloadType::RAW_DATA,
                size_y: None,
                chunk_payload_length: None,
                chunk_layout_id: None,
            },
        )
        .expect("valid plan")
    }

    #[test]
    fn big_frames_are_held_fewer_within_the_memory_limit_and_released() {
        let mut ring = FrameRing::with_memory_limit(16, 10_000);
        assert_eq!(ring.fit(3000), 3);
        for block in 1..=5u64 {
            let (i, data) = ring.claim(3000);
            assert!(i < 3, "slot {i} beyond the 3 that fit");
            data.fill(1);
            ring.commit(i, plan(block, 3000));
        }
        assert!(ring.allocated_bytes() <= 10_000);
        assert!(ring.get(2).is_none() && ring.get(3).is_some() && ring.get(5).is_some());
        // A frame bigger than the limit is still held, alone.
        assert_eq!(ring.fit(50_000), 1);
        // Slots 1 and 2 (blocks 5 and 3) were freed; slot 0 keeps block 4.
        assert_eq!(ring.allocated_bytes(), 3000);
        assert!(ring.get(4).is_some() && ring.get(5).is_none());
        let (i, _) = ring.claim(50_000);
        assert_eq!((i, ring.next_slot()), (0, 0));
        ring.commit(i, plan(6, 50_000));
        assert_eq!(ring.allocated_bytes(), 50_000);
        ring.release();
        assert_eq!(ring.allocated_bytes(), 0);
        assert!(ring.get(6).is_none());
        assert_eq!(
            ring.plan_resend(6, 0, 0),
            vec![ResendItem::Error {
                packet_id: 0,
                status: Status::PACKET_UNAVAILABLE
            }]
        );
        // Small frames again: back to the frame count.
        assert_eq!(ring.fit(100), 16);
    }

    #[test]
    fn holds_the_last_frames_and_answers_resends() {
        let mut ring = FrameRing::new(2);
        for block in 1..=3u64 {
            let announced = ring.next_slot();
            let (i, data) = ring.claim(5000);
            assert_eq!(i, announced, "next_slot names the slot claim takes");
            data.fill(block as u8);
            ring.commit(i, plan(block, 5000));
        }
        // Block 1 was overwritten by block 3.
        assert!(ring.get(1).is_none());
        assert_eq!(ring.get(2).map(|(_, d)| d[0]), Some(2));
        assert_eq!(ring.get(3).map(|(p, _)| p.packet_count()), Some(2 + 6));
        assert_eq!(
            ring.plan_resend(3, 1, 2),
            vec![
                ResendItem::Packet { packet_id: 1 },
                ResendItem::Packet { packet_id: 2 }
            ]
        );
        assert_eq!(
            ring.plan_resend(3, 7, 8),
            vec![
                ResendItem::Packet { packet_id: 7 },
                ResendItem::Error {
                    packet_id: 8,
                    status: Status::PACKET_UNAVAILABLE
                }
            ]
        );
        assert_eq!(
            ring.plan_resend(1, 4, 5),
            vec![ResendItem::Error {
                packet_id: 4,
                status: Status::PACKET_UNAVAILABLE
            }]
        );
        assert!(ring.plan_resend(3, 5, 4).is_empty());
        assert_eq!(
            ring.plan_resend(3, 0, u32::MAX).len(),
            MAX_PACKETS_PER_REQUEST as usize
        );
    }
}
