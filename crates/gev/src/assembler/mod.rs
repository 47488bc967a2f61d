//! Host-side GVSP frame assembly and resend planning, sans-IO.
//!
//! The I/O loop hands every UDP payload of the stream to
//! [`Assembler::handle_packet`] with the current time, and between packets asks
//! [`Assembler::poll_transmit`] for resend requests to send,
//! [`Assembler::poll_frame`] for finished frames, and
//! [`Assembler::poll_timeout`] for how long it may block. Nothing here reads a
//! clock or touches a socket, so loss, reordering and timeouts are tested
//! deterministically.
//!
//! **Buffers.** The assembler owns up to `buffer_count` frame buffers of
//! `max_payload_size` bytes, allocated once each, and copies payload data
//! into them at `(packet_id - 1) × data_per_packet`. Every
//! [`Placement::Payload`] says where the bytes went, so a backend that
//! already knows the layout can check its prediction. A delivered frame
//! carries its buffer; give it back with [`Assembler::recycle`] so steady
//! streaming allocates nothing. With no free buffer a new block is dropped
//! and counted as an underrun.
//!
//! **Completeness.** A frame is complete only when its leader, its trailer
//! and every payload packet id the trailer implies arrived, with every
//! packet but the last exactly `data_per_packet` long. Anything else is
//! delivered incomplete with its missing byte ranges.
//!
//! **Order.** Frames come out in the order they finish: a frame that
//! completes while an older one still waits for resends is delivered first.
//!
//! **Forged and stray packets.** GVSP has no authentication, so a host that
//! forges the device's address can inject packets. The assembler limits
//! what they do: a packet that arrives again for a place already filled is
//! compared with the placed copy (only duplicates are compared, so the
//! normal path costs nothing), and if the bytes differ the frame is
//! delivered at once as [`FrameStatus::Conflict`], never complete. A new
//! block more than [`Config::max_blocks_ahead`] ahead of the newest one, or
//! more than `max_frames_in_flight` behind it, is ignored and counted: it
//! gets no buffer, evicts nothing and causes no resend request. Packets of
//! the other id form (extended or standard) than the stream's are ignored
//! and counted. A device whose ids really jump out of the window (it
//! restarted) is followed once no frame is in flight and
//! [`RESYNC_PACKETS`] of its packets (of one block or consecutive ones)
//! came in a row.

mod config;
mod counters;
mod frame;
mod memory;

use core::ops::Range;
use std::collections::VecDeque;

use linerate_wire::gvsp::{ImageInfo, LeaderInfo, LeaderRepr, Packet, PacketFormat, TrailerRepr};
use linerate_wire::Status;

pub use config::{Config, ConfigError, ResendConfig};
pub use counters::Counters;
use frame::{BlockKey, Frame};
pub use memory::{FrameMemory, LentMemory};

/// Packets outside the block-id window, in a row, of one block or of
/// consecutive blocks (small frames have few packets each), after which,
/// with no frame in flight, the window moves to their block: the device
/// restarted its ids or skipped far ahead. A stream does that; stray or
/// random ids do not. The block's first packets, dropped meanwhile, are
/// requested again like any other gap.
pub const RESYNC_PACKETS: u32 = 16;
/// Recently finished blocks remembered, so their late packets are ignored.
const FINISHED_MEMORY: usize = 32;
/// The 16-bit block id space: 1..=65535 (0 is never valid).
const STANDARD_IDS: u64 = 65535;

/// What `handle_packet` did with a datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Payload data was copied into the frame buffer of `block_id` at `offset`.
    Payload {
        /// Block the data belongs to.
        block_id: u64,
        /// Byte offset in the frame.
        offset: usize,
        /// Bytes copied.
        len: usize,
    },
    /// The block's leader was recorded.
    Leader {
        /// Block id.
        block_id: u64,
    },
    /// The block's trailer was recorded.
    Trailer {
        /// Block id.
        block_id: u64,
    },
    /// A whole block in one all-in packet.
    AllIn {
        /// Block id.
        block_id: u64,
    },
    /// The packet was already placed with different bytes (or a different
    /// leader or trailer): the frame was delivered as
    /// [`FrameStatus::Conflict`].
    Conflict {
        /// Block id.
        block_id: u64,
        /// Packet id.
        packet_id: u32,
    },
    /// The packet was already placed, with the same bytes; nothing copied.
    Duplicate {
        /// Block id.
        block_id: u64,
        /// Packet id.
        packet_id: u32,
    },
    /// An error-status packet (typically answering a resend request).
    Error {
        /// Block id.
        block_id: u64,
        /// Packet id the error refers to.
        packet_id: u32,
        /// The status.
        status: Status,
    },
    /// The datagram was ignored.
    Ignored(IgnoreReason),
}

/// Why a datagram was ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IgnoreReason {
    /// Not valid GVSP, or a block id of 0.
    Malformed,
    /// For a block already delivered, dropped or too old.
    Late,
    /// Its data would land outside the announced payload or the buffer, or
    /// its packet id is past the trailer or the id limit.
    OutOfBounds,
    /// Contradicts what the block already said (second trailer with another
    /// id, short packet in the middle of the block).
    Inconsistent,
    /// No frame buffer was free for a new block.
    NoBuffer,
    /// A new block too far ahead of the newest one, or too far behind it.
    OutOfWindow,
    /// Extended ids on a standard-id stream, or the reverse.
    WrongIdForm,
}

/// Why an incomplete frame was delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameStatus {
    /// Every byte, the leader and the trailer arrived.
    Complete,
    /// Frame retention expired after the last packet.
    TimedOut,
    /// A newer block needed the slot.
    Evicted,
    /// [`Assembler::flush`] was called (end of acquisition).
    Flushed,
    /// A packet arrived twice with different bytes: one copy is not the
    /// device's (forged, or the device is broken), and which one cannot be
    /// told, so the frame is never good, whatever else arrived.
    Conflict,
}

/// A frame handed out by [`Assembler::poll_frame`].
#[derive(Debug)]
pub struct DeliveredFrame {
    /// Block id (16-bit ids widened).
    pub block_id: u64,
    /// Whether the block used extended ids.
    pub extended: bool,
    /// Complete, or why not.
    pub status: FrameStatus,
    /// The leader, if it arrived.
    pub leader: Option<LeaderRepr>,
    /// The trailer, if it arrived.
    pub trailer: Option<TrailerRepr>,
    /// Payload bytes actually received.
    pub received_bytes: usize,
    /// Merged, sorted byte ranges of the frame that never arrived (empty when complete).
    pub missing: Vec<Range<usize>>,
    /// The `now_ns` of the frame's last packet: the start of its delivery
    /// latency (last packet received → frame handed to the application).
    pub last_packet_ns: u64,
    size: usize,
    buffer: FrameMemory,
}

impl DeliveredFrame {
    /// True when every byte arrived.
    pub fn is_complete(&self) -> bool {
        self.status == FrameStatus::Complete
    }

    /// The frame's bytes: exact for complete frames; for incomplete ones as
    /// far as the leader, trailer or received data tell, with missing ranges
    /// left as whatever the buffer held.
    pub fn data(&self) -> &[u8] {
        self.buffer.get(..self.size).unwrap_or(&self.buffer)
    }

    /// Device timestamp from the leader.
    pub fn timestamp(&self) -> Option<u64> {
        self.leader.map(|l| l.timestamp)
    }

    /// Image geometry and pixel format from the leader.
    pub fn image_info(&self) -> Option<ImageInfo> {
        match self.leader?.info {
            LeaderInfo::Image(i) => Some(i),
            _ => None,
        }
    }

    /// Length of [`DeliveredFrame::data`].
    pub fn size(&self) -> usize {
        self.size.min(self.buffer.len())
    }

    /// Takes the frame buffer and the missing-ranges vector out, so a grab
    /// API can hand the memory to its caller and later give both back with
    /// [`Assembler::supply`] (nothing is allocated per frame).
    pub fn take_buffers(&mut self) -> (FrameMemory, Vec<Range<usize>>) {
        (
            core::mem::take(&mut self.buffer),
            core::mem::take(&mut self.missing),
        )
    }
}

/// Where one payload packet is predicted to land in a frame buffer, so a
/// receive backend can point the kernel's copy straight at it (recvmmsg
/// scatter) instead of copying from a staging buffer.
///
/// A guess names a place, not memory: [`Assembler::slot_mut`] lends the
/// slot's bytes. The frame buffers stay where they are (the assembler never
/// reallocates one while its block is in flight, and a delivered frame
/// carries its buffer away without moving its bytes) until the next call on
/// the [`Assembler`] other than [`Assembler::guess_slots`],
/// [`Assembler::slot_mut`] and [`Assembler::supply`], and a guessed slot is
/// a range no packet has filled yet, so a wrong guess can only scribble over
/// bytes that are still missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotGuess {
    /// Block the packet is expected to belong to.
    pub block_id: u64,
    /// Whether that block uses extended ids (20-byte GVSP header instead of 8).
    pub extended: bool,
    /// Expected packet id.
    pub packet_id: u32,
    /// Byte offset of the slot in the frame.
    pub offset: usize,
    /// Slot length: data per packet, or less at the end of the frame.
    pub len: usize,
}

/// How the newest block laid its payload out, so the next one can be
/// predicted the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    key: BlockKey,
    dpp: usize,
    bound: usize,
    last_id: u32,
}

impl Layout {
    fn of(f: &Frame, cap: usize) -> Option<Layout> {
        let dpp = f.dpp.filter(|&d| d > 0)?;
        let bound = f.announced.map_or(cap, |a| a.min(cap)).min(f.buffer.len());
        let last_id = u32::try_from(bound.div_ceil(dpp)).ok()?;
        Some(Layout {
            key: f.key,
            dpp,
            bound,
            last_id,
        })
    }

    /// The slot of payload packet `id` of block `key`.
    fn slot(&self, key: BlockKey, id: u32) -> Option<SlotGuess> {
        let offset = (id as usize).checked_sub(1)?.checked_mul(self.dpp)?;
        let len = self.dpp.min(self.bound.checked_sub(offset)?);
        if len == 0 {
            return None;
        }
        Some(SlotGuess {
            block_id: key.block_id,
            extended: key.extended,
            packet_id: id,
            offset,
            len,
        })
    }
}

/// Payload data handed to `on_payload`: bytes to copy, or bytes the
/// kernel already wrote into the frame buffer at `offset`.
#[derive(Debug, Clone, Copy)]
enum Data<'a> {
    Copy(&'a [u8]),
    InPlace { offset: usize, len: usize },
}

impl Data<'_> {
    fn len(&self) -> usize {
        match self {
            Data::Copy(b) => b.len(),
            Data::InPlace { len, .. } => *len,
        }
    }
}

/// The block after `key` (ids skip 0; standard ids wrap at 65535).
fn next_block(key: BlockKey) -> BlockKey {
    BlockKey {
        extended: key.extended,
        block_id: if key.extended {
            key.block_id.wrapping_add(1).max(1)
        } else {
            key.block_id % STANDARD_IDS + 1
        },
    }
}

/// Where a new block's id lies relative to the block-id window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    /// Ahead of the newest block, within `max_blocks_ahead`.
    Ahead,
    /// Behind the newest block, within `max_frames_in_flight`.
    Behind,
    /// Anywhere else.
    Outside,
}

/// A resend request to send to the device (GVCP PACKETRESEND).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResendRequest {
    /// Block to resend from.
    pub block_id: u64,
    /// First packet id, inclusive.
    pub first_packet_id: u32,
    /// Last packet id, inclusive.
    pub last_packet_id: u32,
    /// Whether to use the extended-id form of the request.
    pub extended: bool,
}

/// The frame assembler and resend planner. See the module docs.
#[derive(Debug)]
pub struct Assembler {
    config: Config,
    frames: Vec<Frame>,
    free_buffers: Vec<FrameMemory>,
    free_missing: Vec<Vec<Range<usize>>>,
    allocated: usize,
    delivered: VecDeque<DeliveredFrame>,
    finished: [Option<BlockKey>; FINISHED_MEMORY],
    /// Whether each remembered block was delivered complete.
    finished_complete: [bool; FINISHED_MEMORY],
    finished_at: usize,
    newest: Option<BlockKey>,
    /// Layout of the newest block when it finished, for predicting the next.
    last_layout: Option<Layout>,
    /// A free buffer set aside for the predicted next block, which
    /// `guess_slots` may already have pointed the kernel at.
    spare: Option<(BlockKey, FrameMemory)>,
    next_seq: u64,
    max_packet_id: u32,
    /// The block outside the window seen last, and how many of its packets
    /// came in a row (see [`RESYNC_PACKETS`]).
    outsider: Option<(BlockKey, u32)>,
    counters: Counters,
}

impl Assembler {
    /// An assembler with `config`; fails on settings it cannot honour.
    pub fn new(config: Config) -> Result<Assembler, ConfigError> {
        config.validate()?;
        let min_dpp = config.data_per_packet.unwrap_or(config.min_data_per_packet);
        let payload_ids = config.max_payload_size.div_ceil(min_dpp);
        // Payload ids 1..=n and the trailer n+1 must fit the 32-bit id space.
        let max_packet_id = u32::try_from(payload_ids.saturating_add(1)).unwrap_or(u32::MAX);
        let frames = (0..config.max_frames_in_flight)
            .map(|_| Frame::empty())
            .collect();
        Ok(Assembler {
            frames,
            free_buffers: Vec::with_capacity(config.buffer_count),
            free_missing: Vec::with_capacity(config.buffer_count),
            allocated: 0,
            delivered: VecDeque::with_capacity(config.buffer_count),
            finished: [None; FINISHED_MEMORY],
            finished_complete: [false; FINISHED_MEMORY],
            finished_at: 0,
            newest: None,
            last_layout: None,
            spare: None,
            next_seq: 0,
            max_packet_id,
            outsider: None,
            counters: Counters::default(),
            config,
        })
    }

    /// The settings in use.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Running totals.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Takes one GVSP datagram (the UDP payload) received at `now_ns`.
    /// Never panics; anything invalid is ignored and counted.
    pub fn handle_packet(&mut self, datagram: &[u8], now_ns: u64) -> Placement {
        self.counters.packets_received += 1;
        self.expire(now_ns);
        let Ok(packet) = Packet::new_checked(datagram) else {
            return self.ignore(IgnoreReason::Malformed);
        };
        let key = BlockKey {
            extended: packet.is_extended(),
            block_id: packet.block_id(),
        };
        let packet_id = packet.packet_id();
        let status = packet.status();
        if key.block_id == 0 {
            return self.ignore(IgnoreReason::Malformed);
        }
        let form = self.config.extended_ids.or(self.newest.map(|k| k.extended));
        if form.is_some_and(|extended| extended != key.extended) {
            // A device that switched form (only when none was configured)
            // is followed like one that restarted its ids.
            if self.config.extended_ids.is_none() && self.note_outsider(key) {
                self.resync();
            }
            return self.ignore(IgnoreReason::WrongIdForm);
        }
        if status.is_error() {
            return self.on_error(key, packet_id, status);
        }
        let Ok(format) = PacketFormat::from_code(packet.format_code()) else {
            return self.ignore(IgnoreReason::Malformed);
        };
        let data = packet.data();
        let resent = status == Status::PACKET_RESEND;
        match format {
            PacketFormat::Leader => match LeaderRepr::parse(data) {
                Ok((leader, _)) if packet_id == 0 => self.on_leader(key, leader, resent, now_ns),
                _ => self.ignore(IgnoreReason::Malformed),
            },
            PacketFormat::Trailer => match TrailerRepr::parse(data) {
                Ok((trailer, _)) if packet_id > 0 => {
                    self.on_trailer(key, packet_id, trailer, resent, now_ns)
                }
                _ => self.ignore(IgnoreReason::Malformed),
            },
            PacketFormat::Payload if packet_id > 0 && !data.is_empty() => self
                .on_payload(key, packet_id, Data::Copy(data), resent, now_ns)
                .unwrap_or_else(|| self.ignore(IgnoreReason::Inconsistent)),
            PacketFormat::Payload => self.ignore(IgnoreReason::Malformed),
            PacketFormat::AllIn => self.on_all_in(key, packet_id, data, now_ns),
        }
    }

    /// Next resend request due at `now_ns`, oldest frame first; call until
    /// `None`. Also delivers frames whose retention expired.
    pub fn poll_transmit(&mut self, now_ns: u64) -> Option<ResendRequest> {
        self.expire(now_ns);
        if !self.config.resend.enabled {
            return None;
        }
        // A frame gone silent before its trailer lost its tail: ask now
        // rather than when the next frame (if any) begins.
        let tail_timeout = self.config.resend.tail_timeout_ns;
        for f in self.frames.iter_mut().filter(|f| f.active) {
            if f.tail_due(tail_timeout).is_some_and(|due| due <= now_ns) {
                f.note_tail(Some(now_ns));
            }
        }
        let mut after: Option<u64> = None;
        loop {
            // Oldest due frame after the ones already tried in this call.
            let i = self
                .frames
                .iter()
                .enumerate()
                .filter(|(_, f)| f.active && f.next_deadline <= now_ns)
                .filter(|(_, f)| after.map_or(true, |a| f.seq > a))
                .min_by_key(|(_, f)| f.seq)
                .map(|(i, _)| i)?;
            let budget = self.budget(i);
            let repeat = self.config.resend.repeat_timeout_ns;
            let f = self.frames.get_mut(i)?;
            after = Some(f.seq);
            if let Some((first, last)) = f.plan_request(now_ns, repeat, budget) {
                self.counters.resend_requests += 1;
                self.counters.resend_packets_requested += u64::from(last - first) + 1;
                return Some(ResendRequest {
                    block_id: f.key.block_id,
                    first_packet_id: first,
                    last_packet_id: last,
                    extended: f.key.extended,
                });
            }
        }
    }

    /// Next finished frame, complete or not.
    pub fn poll_frame(&mut self) -> Option<DeliveredFrame> {
        self.delivered.pop_front()
    }

    /// Gives a delivered frame's buffers back for reuse.
    pub fn recycle(&mut self, frame: DeliveredFrame) {
        let mut buffer = frame.buffer;
        buffer.fit(self.config.max_payload_size);
        if self.free_buffers.len() < self.allocated {
            self.free_buffers.push(buffer);
        }
        if self.free_missing.len() < self.config.buffer_count {
            self.free_missing.push(frame.missing);
        }
    }

    /// Adds a buffer the caller owns (or gives back one taken with
    /// [`DeliveredFrame::take_buffers`]) to the free pool; it is resized to
    /// `max_payload_size` if needed. With `buffer_count` 0 in the config the
    /// assembler allocates nothing itself and uses only supplied buffers.
    pub fn supply(&mut self, buffer: impl Into<FrameMemory>, mut missing: Vec<Range<usize>>) {
        let mut buffer = buffer.into();
        buffer.fit(self.config.max_payload_size);
        missing.clear();
        self.free_buffers.push(buffer);
        self.allocated = self.allocated.max(self.free_buffers.len());
        self.free_missing.push(missing);
    }

    /// Buffers free for new blocks right now.
    pub fn free_buffer_count(&self) -> usize {
        self.free_buffers.len()
    }

    /// Predicts, in arrival order, what the next datagrams will be, so a
    /// receive backend can point each one's payload at its final place:
    /// `Some(slot)` for a payload packet, `None` for a leader or trailer
    /// (which go to a staging buffer). The prediction runs through the
    /// newest frame's missing ids above the highest one seen, its trailer,
    /// then the next block's leader and payload packets, laid out like the
    /// newest frame, in a buffer set aside for it. Writes up to `max`
    /// entries to `out` (cleared first) and returns how many. Empty when
    /// the packet size is not known yet.
    pub fn guess_slots(&mut self, out: &mut Vec<Option<SlotGuess>>, max: usize) -> usize {
        out.clear();
        let Some(newest) = self.newest else {
            return 0;
        };
        let cap = self.config.max_payload_size;
        let mut layout = self.last_layout.filter(|l| l.key == newest);
        if let Some(f) = self.find(newest).and_then(|i| self.frames.get_mut(i)) {
            let Some(l) = Layout::of(f, cap) else {
                return 0;
            };
            layout = Some(l);
            let first = f.highest.map_or(1, |h| h.saturating_add(1)).max(1);
            let last = f
                .trailer_id
                .map_or(l.last_id, |t| l.last_id.min(t.saturating_sub(1)));
            for id in first..=last {
                if out.len() >= max {
                    return out.len();
                }
                if !f.is_received(id) {
                    out.push(l.slot(f.key, id));
                }
            }
            if f.trailer_id.is_none() && out.len() < max {
                out.push(None);
            }
        }
        let Some(l) = layout else {
            return out.len();
        };
        if out.len() + 1 >= max {
            return out.len();
        }
        // The next block, in a buffer set aside until it arrives.
        let next = next_block(newest);
        if self.find(next).is_some() {
            return out.len();
        }
        if self.spare.as_ref().is_some_and(|(k, _)| *k != next) {
            if let Some((_, b)) = self.spare.take() {
                self.free_buffers.push(b);
            }
        }
        if self.spare.is_none() {
            let Some(b) = self.free_buffers.pop() else {
                return out.len();
            };
            self.spare = Some((next, b));
        }
        let Some((_, spare)) = self.spare.as_mut() else {
            return out.len();
        };
        let l = Layout {
            bound: l.bound.min(spare.len()),
            ..l
        };
        out.push(None);
        for id in 1..=l.last_id {
            if out.len() >= max {
                break;
            }
            out.push(l.slot(next, id));
        }
        out.len()
    }

    /// Notes that part of `guess`'s packet arrived at `now_ns` without the
    /// packet being whole yet (a stream transport reading a long record in
    /// pieces). Bytes still flowing mean the frame is alive, so its
    /// retention counts from here rather than from its last whole packet;
    /// a record trickling in over a slow or retransmitting connection is
    /// then not given up while it arrives. Does nothing for a block not in
    /// flight.
    pub fn handle_progress(&mut self, guess: &SlotGuess, now_ns: u64) {
        let key = BlockKey {
            extended: guess.extended,
            block_id: guess.block_id,
        };
        if let Some(f) = self.find(key).and_then(|i| self.frames.get_mut(i)) {
            f.last_packet_ns = f.last_packet_ns.max(now_ns);
        }
    }

    /// The bytes of `guess`'s slot, for a receive backend to lend to the
    /// kernel's copy (see [`SlotGuess`] for how long they stay in place).
    /// `None` when the guess no longer names a missing slot: its block is
    /// neither in flight nor the one a buffer was set aside for, or its
    /// packet arrived meanwhile.
    pub fn slot_mut(&mut self, guess: &SlotGuess) -> Option<&mut [u8]> {
        let key = BlockKey {
            extended: guess.extended,
            block_id: guess.block_id,
        };
        let end = guess.offset.checked_add(guess.len)?;
        if let Some(i) = self.find(key) {
            let f = self.frames.get_mut(i)?;
            if f.is_received(guess.packet_id) {
                return None;
            }
            return f.buffer.get_mut(guess.offset..end);
        }
        match self.spare.as_mut() {
            Some((k, b)) if *k == key => b.get_mut(guess.offset..end),
            _ => None,
        }
    }

    /// Takes a payload packet whose data the kernel already wrote into the
    /// slot of `guess`: `header` is the GVSP header alone and `data_len` the
    /// bytes that followed it. When the header confirms the guess the packet
    /// is recorded without copying and the placement returned; otherwise
    /// nothing changes and `None` tells the caller to fall back to
    /// [`Assembler::handle_packet`] with a contiguous copy of the datagram.
    pub fn handle_placed_payload(
        &mut self,
        guess: &SlotGuess,
        header: &[u8],
        data_len: usize,
        now_ns: u64,
    ) -> Option<Placement> {
        let packet = Packet::new_checked(header).ok()?;
        let status = packet.status();
        let is_payload = PacketFormat::from_code(packet.format_code()) == Ok(PacketFormat::Payload);
        let key = BlockKey {
            extended: packet.is_extended(),
            block_id: packet.block_id(),
        };
        let expected = BlockKey {
            extended: guess.extended,
            block_id: guess.block_id,
        };
        if !is_payload
            || status.is_error()
            || !packet.data().is_empty()
            || key != expected
            || packet.packet_id() != guess.packet_id
            || data_len == 0
            || data_len > guess.len
        {
            return None;
        }
        let resent = status == Status::PACKET_RESEND;
        // Same bookkeeping as a copied packet, minus the copy. A refused
        // packet comes back through `handle_packet`, which counts it then.
        self.expire(now_ns);
        let placed = self.on_payload(
            key,
            guess.packet_id,
            Data::InPlace {
                offset: guess.offset,
                len: data_len,
            },
            resent,
            now_ns,
        );
        if placed.is_some() {
            self.counters.packets_received += 1;
        }
        placed
    }

    /// The earliest time (ns) a resend request or a retention timeout is
    /// due, when [`Assembler::poll_transmit`] has work again, so the I/O
    /// loop knows how long it may block; `None` when nothing is pending.
    pub fn poll_timeout(&self) -> Option<u64> {
        let retention = self.config.frame_retention_ns;
        let resend = &self.config.resend;
        self.frames
            .iter()
            .filter(|f| f.active)
            .map(|f| {
                let expiry = f.last_packet_ns.saturating_add(retention);
                if resend.enabled {
                    let tail = f.tail_due(resend.tail_timeout_ns).unwrap_or(frame::NEVER);
                    expiry.min(f.next_deadline).min(tail)
                } else {
                    expiry
                }
            })
            .min()
    }

    /// Delivers every frame still in flight as incomplete (end of acquisition).
    pub fn flush(&mut self) {
        while let Some(i) = self.oldest_active() {
            self.finish(i, FrameStatus::Flushed);
        }
        if let Some((_, b)) = self.spare.take() {
            self.free_buffers.push(b);
        }
    }

    /// Flushes every frame in flight (delivered incomplete) and forgets the
    /// block-id history: the newest block, the finished blocks and the
    /// layout. For a device whose stream started over (a new TCP
    /// connection, a restarted camera): its block ids begin again at 1 and
    /// must start frames, not be dropped as late packets of old blocks.
    pub fn restart(&mut self) {
        self.flush();
        self.newest = None;
        self.finished = [None; FINISHED_MEMORY];
        self.finished_at = 0;
        self.last_layout = None;
        self.outsider = None;
    }

    /// Moves the window to a block outside it (see [`RESYNC_PACKETS`]).
    fn resync(&mut self) {
        self.restart();
        self.counters.block_id_resyncs += 1;
    }

    /// Counts a packet of `key`, outside the window; true when it is the
    /// [`RESYNC_PACKETS`]th in a row of that block or the blocks just before
    /// it, and no frame is in flight.
    fn note_outsider(&mut self, key: BlockKey) -> bool {
        let count = match self.outsider {
            Some((k, n)) if k == key || next_block(k) == key => n.saturating_add(1),
            _ => 1,
        };
        self.outsider = Some((key, count));
        count >= RESYNC_PACKETS && !self.frames.iter().any(|f| f.active)
    }

    /// Delivers slot `i` as a conflict: `packet_id` arrived again and differs.
    fn conflict(&mut self, i: usize, key: BlockKey, packet_id: u32) -> Placement {
        self.counters.packets_conflict += 1;
        self.finish(i, FrameStatus::Conflict);
        Placement::Conflict {
            block_id: key.block_id,
            packet_id,
        }
    }

    fn ignore(&mut self, reason: IgnoreReason) -> Placement {
        let c = &mut self.counters;
        c.packets_ignored += 1;
        match reason {
            IgnoreReason::Malformed => c.packets_malformed += 1,
            IgnoreReason::Late => c.packets_late += 1,
            IgnoreReason::OutOfBounds => c.packets_out_of_bounds += 1,
            IgnoreReason::OutOfWindow => c.packets_out_of_window += 1,
            IgnoreReason::WrongIdForm => c.packets_wrong_id_form += 1,
            IgnoreReason::Inconsistent | IgnoreReason::NoBuffer => {}
        }
        Placement::Ignored(reason)
    }

    fn gap_at(&self, now_ns: u64) -> Option<u64> {
        self.config
            .resend
            .enabled
            .then(|| now_ns.saturating_add(self.config.resend.initial_timeout_ns))
    }

    fn budget(&self, i: usize) -> u64 {
        let Some(f) = self.frames.get(i) else {
            return 0;
        };
        let packets = match (f.trailer_id, f.announced, f.dpp) {
            (Some(t), _, _) => u64::from(t) + 1,
            (None, Some(a), Some(d)) => (a.div_ceil(d) as u64).saturating_add(2),
            _ => f.highest.map_or(1, |h| u64::from(h) + 1),
        };
        ((packets as f64 * self.config.resend.request_ratio).ceil() as u64).max(1)
    }

    fn expire(&mut self, now_ns: u64) {
        let retention = self.config.frame_retention_ns;
        while let Some(i) = self
            .frames
            .iter()
            .position(|f| f.active && now_ns >= f.last_packet_ns.saturating_add(retention))
        {
            self.finish(i, FrameStatus::TimedOut);
        }
    }

    fn oldest_active(&self) -> Option<usize> {
        self.frames
            .iter()
            .enumerate()
            .filter(|(_, f)| f.active)
            .min_by_key(|(_, f)| f.seq)
            .map(|(i, _)| i)
    }

    fn find(&self, key: BlockKey) -> Option<usize> {
        self.frames.iter().position(|f| f.active && f.key == key)
    }

    /// Where a block not in flight and not finished lies relative to the
    /// newest block: the window is `max_blocks_ahead` ahead of it and
    /// `max_frames_in_flight` behind (older blocks may still be in flight;
    /// anything older is done with).
    fn position(&self, key: BlockKey) -> Position {
        let Some(newest) = self.newest else {
            return Position::Ahead;
        };
        if newest.extended != key.extended {
            return Position::Outside;
        }
        let (ahead, behind) = if key.extended {
            (
                key.block_id.wrapping_sub(newest.block_id),
                newest.block_id.wrapping_sub(key.block_id),
            )
        } else {
            // Ids 1..=65535 on a ring of 65535.
            let ring = |from: u64, to: u64| {
                (to % STANDARD_IDS + STANDARD_IDS - from % STANDARD_IDS) % STANDARD_IDS
            };
            (
                ring(newest.block_id, key.block_id),
                ring(key.block_id, newest.block_id),
            )
        };
        if (1..=self.config.max_blocks_ahead).contains(&ahead) {
            Position::Ahead
        } else if behind <= self.config.max_frames_in_flight as u64 {
            Position::Behind
        } else {
            Position::Outside
        }
    }

    /// The slot assembling `key`, starting one if the block is new.
    /// `resent`: the packet answers a resend request.
    fn slot_for(
        &mut self,
        key: BlockKey,
        resent: bool,
        now_ns: u64,
    ) -> Result<usize, IgnoreReason> {
        if let Some(i) = self.find(key) {
            return Ok(i);
        }
        if let Some(at) = self.finished.iter().position(|k| *k == Some(key)) {
            // A first transmission for a block that completed: a second
            // copy of a packet it already had (see the counter's docs).
            if !resent && self.finished_complete.get(at).copied().unwrap_or(false) {
                self.counters.packets_after_complete += 1;
            }
            return Err(IgnoreReason::Late);
        }
        let newer = match self.position(key) {
            Position::Ahead => true,
            Position::Behind => false,
            Position::Outside if self.note_outsider(key) => {
                self.resync();
                true
            }
            Position::Outside => return Err(IgnoreReason::OutOfWindow),
        };
        let free = self.frames.iter().position(|f| !f.active);
        if !newer && free.is_none() {
            return Err(IgnoreReason::Late);
        }
        if newer {
            self.newest = Some(key);
            // Older blocks will send nothing more: their tails are gaps now.
            if let Some(at) = self.gap_at(now_ns) {
                for f in self.frames.iter_mut().filter(|f| f.active) {
                    f.note_tail(Some(at));
                }
            }
        }
        let spare = match self.spare.take() {
            Some((k, b)) if k == key => Some(b),
            other => {
                self.spare = other;
                None
            }
        };
        let buffer = match spare.or_else(|| self.free_buffers.pop()) {
            Some(b) => b,
            None if self.allocated < self.config.buffer_count => {
                self.allocated += 1;
                FrameMemory::from(vec![0u8; self.config.max_payload_size])
            }
            None => {
                self.counters.underruns += 1;
                self.remember_finished(key, false);
                return Err(IgnoreReason::NoBuffer);
            }
        };
        let i = match free {
            Some(i) => i,
            None => {
                let i = self.oldest_active().ok_or(IgnoreReason::NoBuffer)?;
                self.finish(i, FrameStatus::Evicted);
                i
            }
        };
        let missing = self.free_missing.pop().unwrap_or_default();
        let seq = self.next_seq;
        self.next_seq += 1;
        let dpp = self.config.data_per_packet;
        let f = self.frames.get_mut(i).ok_or(IgnoreReason::NoBuffer)?;
        f.start(key, seq, buffer, missing, dpp, now_ns);
        Ok(i)
    }

    fn remember_finished(&mut self, key: BlockKey, complete: bool) {
        if let Some(slot) = self.finished.get_mut(self.finished_at) {
            *slot = Some(key);
        }
        if let Some(slot) = self.finished_complete.get_mut(self.finished_at) {
            *slot = complete;
        }
        self.finished_at = (self.finished_at + 1) % FINISHED_MEMORY;
    }

    /// Delivers slot `i` with `status` (downgraded to the real state).
    fn finish(&mut self, i: usize, status: FrameStatus) {
        let cap = self.config.max_payload_size;
        let Some(f) = self.frames.get_mut(i) else {
            return;
        };
        f.infer_dpp(None, cap);
        if self.newest == Some(f.key) {
            self.last_layout = Layout::of(f, cap);
        }
        let complete = f.is_complete() && status != FrameStatus::Conflict;
        let status = if complete {
            FrameStatus::Complete
        } else {
            status
        };
        let size = f.extent(cap);
        let missing_packets = if complete { 0 } else { f.compute_missing(size) };
        if complete {
            f.missing.clear();
        }
        f.active = false;
        let frame = DeliveredFrame {
            block_id: f.key.block_id,
            extended: f.key.extended,
            status,
            leader: f.leader,
            trailer: f.trailer,
            received_bytes: f.bytes,
            missing: core::mem::take(&mut f.missing),
            last_packet_ns: f.last_packet_ns,
            size,
            buffer: core::mem::take(&mut f.buffer),
        };
        let key = f.key;
        let c = &mut self.counters;
        match status {
            FrameStatus::Complete => c.frames_completed += 1,
            FrameStatus::TimedOut => c.frames_timed_out += 1,
            FrameStatus::Evicted => c.frames_evicted += 1,
            FrameStatus::Conflict => c.frames_conflict += 1,
            FrameStatus::Flushed => {}
        }
        if !complete {
            c.frames_incomplete += 1;
            c.packets_missing += missing_packets;
        }
        self.remember_finished(key, complete);
        self.delivered.push_back(frame);
    }

    fn finish_if_complete(&mut self, i: usize) {
        if self.frames.get(i).is_some_and(|f| f.is_complete()) {
            self.finish(i, FrameStatus::Complete);
        }
    }

    fn on_error(&mut self, key: BlockKey, packet_id: u32, status: Status) -> Placement {
        self.counters.packets_error += 1;
        if let Some(f) = self.find(key).and_then(|i| self.frames.get_mut(i)) {
            let gone = match status {
                // Worth asking again later.
                Status::PACKET_NOT_YET_AVAILABLE | Status::PACKET_TEMPORARILY_UNAVAILABLE => 0,
                Status::PACKET_AND_PREV_REMOVED_FROM_MEMORY => {
                    (0..=packet_id).filter(|&p| f.abandon(p)).count() as u64
                }
                _ => u64::from(f.abandon(packet_id)),
            };
            self.counters.packets_unavailable += gone;
        }
        Placement::Error {
            block_id: key.block_id,
            packet_id,
            status,
        }
    }

    fn on_leader(
        &mut self,
        key: BlockKey,
        leader: LeaderRepr,
        resent: bool,
        now_ns: u64,
    ) -> Placement {
        let cap = self.config.max_payload_size;
        let i = match self.slot_for(key, resent, now_ns) {
            Ok(i) => i,
            Err(r) => return self.ignore(r),
        };
        let gap_at = self.gap_at(now_ns);
        let Some(f) = self.frames.get_mut(i) else {
            return self.ignore(IgnoreReason::NoBuffer);
        };
        if let Some(placed) = f.leader {
            self.counters.packets_duplicate += 1;
            if placed != leader {
                return self.conflict(i, key, 0);
            }
            return Placement::Duplicate {
                block_id: key.block_id,
                packet_id: 0,
            };
        }
        f.last_packet_ns = now_ns;
        if resent {
            f.answered(now_ns);
        }
        let dropped = f.apply_leader(leader);
        f.note_id(0, gap_at);
        f.infer_dpp(gap_at, cap);
        self.counters.packets_out_of_bounds += u64::from(dropped);
        self.finish_if_complete(i);
        Placement::Leader {
            block_id: key.block_id,
        }
    }

    fn on_trailer(
        &mut self,
        key: BlockKey,
        packet_id: u32,
        trailer: TrailerRepr,
        resent: bool,
        now_ns: u64,
    ) -> Placement {
        if packet_id > self.max_packet_id {
            return self.ignore(IgnoreReason::OutOfBounds);
        }
        let cap = self.config.max_payload_size;
        let i = match self.slot_for(key, resent, now_ns) {
            Ok(i) => i,
            Err(r) => return self.ignore(r),
        };
        let gap_at = self.gap_at(now_ns);
        let Some(f) = self.frames.get_mut(i) else {
            return self.ignore(IgnoreReason::NoBuffer);
        };
        if let Some(t) = f.trailer_id {
            // A trailer again: the same one, or a contradiction.
            self.counters.packets_duplicate += 1;
            if t != packet_id || f.trailer != Some(trailer) {
                return self.conflict(i, key, packet_id);
            }
            return Placement::Duplicate {
                block_id: key.block_id,
                packet_id,
            };
        }
        f.last_packet_ns = now_ns;
        if resent {
            f.answered(now_ns);
        }
        let dropped = f.apply_trailer(packet_id, trailer, gap_at);
        f.infer_dpp(gap_at, cap);
        self.counters.packets_out_of_bounds += u64::from(dropped);
        self.finish_if_complete(i);
        Placement::Trailer {
            block_id: key.block_id,
        }
    }

    /// Records a payload packet. `None` only for [`Data::InPlace`] when the
    /// data does not sit where the frame's layout wants it (nothing changed).
    fn on_payload(
        &mut self,
        key: BlockKey,
        packet_id: u32,
        data: Data<'_>,
        resent: bool,
        now_ns: u64,
    ) -> Option<Placement> {
        // The trailer takes max_packet_id; payload ids stay below it.
        if packet_id >= self.max_packet_id {
            return Some(self.ignore(IgnoreReason::OutOfBounds));
        }
        let i = match self.slot_for(key, resent, now_ns) {
            Ok(i) => i,
            Err(r) => return Some(self.ignore(r)),
        };
        let gap_at = self.gap_at(now_ns);
        let fixed = self.config.data_per_packet.is_some();
        let cap = self.config.max_payload_size;
        let Some(f) = self.frames.get_mut(i) else {
            return Some(self.ignore(IgnoreReason::NoBuffer));
        };
        if f.is_received(packet_id) {
            self.counters.packets_duplicate += 1;
            let same = match data {
                Data::Copy(bytes) => f.placed_payload(packet_id) == Some(bytes),
                // Guessed slots are never filled ones, so the kernel wrote
                // this over a slot an earlier packet of the same batch then
                // filled: its bytes are gone and cannot be shown equal.
                Data::InPlace { .. } => false,
            };
            if !same {
                return Some(self.conflict(i, key, packet_id));
            }
            return Some(Placement::Duplicate {
                block_id: key.block_id,
                packet_id,
            });
        }
        if f.trailer_id.is_some_and(|t| packet_id >= t) {
            return Some(self.ignore(IgnoreReason::OutOfBounds));
        }
        let len = data.len();
        let in_place_at = match data {
            Data::InPlace { offset, .. } => Some(offset),
            Data::Copy(_) => None,
        };
        // Decide the packet size this frame uses, without changing anything yet.
        enum Plan {
            Full,
            Short,
            Reset(usize),
        }
        let plan = match f.dpp {
            None => Plan::Reset(len),
            Some(d) if len == d => Plan::Full,
            Some(d) if len > d => {
                if fixed {
                    return Some(self.ignore(IgnoreReason::OutOfBounds));
                }
                Plan::Reset(len)
            }
            Some(_) => {
                let last_ok = f.trailer_id.map_or(true, |t| packet_id + 1 == t);
                let other_short = f.short.filter(|&(s, _)| s != packet_id);
                if last_ok && other_short.is_none() {
                    Plan::Short
                } else if f.dpp_confirmed || fixed {
                    return Some(self.ignore(IgnoreReason::Inconsistent));
                } else {
                    Plan::Reset(other_short.map_or(len, |(_, l)| l.max(len)))
                }
            }
        };
        let dpp = match plan {
            Plan::Reset(d) => d,
            _ => f.dpp.unwrap_or(len),
        };
        let bound = f.announced.map_or(cap, |a| a.min(cap));
        let offset = (packet_id as usize - 1).checked_mul(dpp);
        let end = offset.and_then(|o| o.checked_add(len));
        let (Some(offset), Some(end)) = (offset, end) else {
            return Some(self.ignore(IgnoreReason::OutOfBounds));
        };
        if end > bound {
            return Some(self.ignore(IgnoreReason::OutOfBounds));
        }
        if end > f.buffer.len() {
            return Some(self.ignore(IgnoreReason::OutOfBounds));
        }
        // Data already in the buffer must sit exactly where this layout puts
        // it, and a re-layout would move other packets over it.
        if in_place_at.is_some_and(|at| at != offset || matches!(plan, Plan::Reset(_))) {
            return None;
        }
        // Re-layout first: the kept packet moves before new data lands.
        match plan {
            Plan::Full => f.dpp_confirmed = true,
            Plan::Short => f.short = Some((packet_id, len)),
            Plan::Reset(d) => {
                if f.dpp.is_some() {
                    f.reset_payload(d, gap_at, bound);
                } else {
                    f.dpp = Some(d);
                }
                if len < d {
                    if f.short.is_some() {
                        // The kept packet is the last one; this one cannot be.
                        return Some(self.ignore(IgnoreReason::Inconsistent));
                    }
                    f.short = Some((packet_id, len));
                }
            }
        }
        if let Data::Copy(bytes) = data {
            let Some(dst) = f.buffer.get_mut(offset..end) else {
                return Some(self.ignore(IgnoreReason::OutOfBounds));
            };
            dst.copy_from_slice(bytes);
        }
        f.mark(packet_id);
        f.note_id(packet_id, gap_at);
        f.payload_received += 1;
        f.bytes += len;
        f.written_end = f.written_end.max(end);
        f.last_packet_ns = now_ns;
        if resent {
            f.answered(now_ns);
        }
        self.counters.bytes_received += len as u64;
        if resent {
            self.counters.packets_resent += 1;
        }
        self.finish_if_complete(i);
        Some(Placement::Payload {
            block_id: key.block_id,
            offset,
            len,
        })
    }

    fn on_all_in(&mut self, key: BlockKey, packet_id: u32, data: &[u8], now_ns: u64) -> Placement {
        let Ok((leader, used)) = LeaderRepr::parse(data) else {
            return self.ignore(IgnoreReason::Malformed);
        };
        let rest = data.get(used..).unwrap_or_default();
        let Ok((trailer, used)) = TrailerRepr::parse(rest) else {
            return self.ignore(IgnoreReason::Malformed);
        };
        let payload = rest.get(used..).unwrap_or_default();
        if packet_id != 0 {
            return self.ignore(IgnoreReason::Malformed);
        }
        if payload.len() > self.config.max_payload_size {
            return self.ignore(IgnoreReason::OutOfBounds);
        }
        let i = match self.slot_for(key, false, now_ns) {
            Ok(i) => i,
            Err(r) => return self.ignore(r),
        };
        let Some(f) = self.frames.get_mut(i) else {
            return self.ignore(IgnoreReason::NoBuffer);
        };
        if f.leader.is_some() || f.highest.is_some() {
            self.counters.packets_duplicate += 1;
            let same = f.leader == Some(leader)
                && f.trailer == Some(trailer)
                && f.bytes == payload.len()
                && f.buffer.get(..payload.len()) == Some(payload);
            if !same {
                return self.conflict(i, key, packet_id);
            }
            return Placement::Duplicate {
                block_id: key.block_id,
                packet_id,
            };
        }
        let Some(dst) = f.buffer.get_mut(..payload.len()) else {
            return self.ignore(IgnoreReason::OutOfBounds);
        };
        dst.copy_from_slice(payload);
        f.last_packet_ns = now_ns;
        f.apply_leader(leader);
        // Recorded as leader 0, one payload packet 1 (if any data) and trailer.
        f.announced = Some(payload.len());
        let trailer_id = if payload.is_empty() {
            1
        } else {
            f.dpp = Some(payload.len());
            f.dpp_confirmed = true;
            f.mark(1);
            f.payload_received = 1;
            f.bytes = payload.len();
            f.written_end = payload.len();
            2
        };
        f.note_id(trailer_id, None);
        f.trailer = Some(trailer);
        f.trailer_id = Some(trailer_id);
        self.counters.bytes_received += payload.len() as u64;
        self.finish_if_complete(i);
        Placement::AllIn {
            block_id: key.block_id,
        }
    }
}

#[cfg(test)]
mod tests;
