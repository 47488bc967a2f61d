//! Host-side GVSP frame assembly and resend planning, sans-IO.
//!
//! The I/O loop hands every UDP payload of the stream to
//! [`Assembler::on_packet`] with the current time, and between packets asks
//! [`Assembler::poll_transmit`] for resend requests to send,
//! [`Assembler::poll_frame`] for finished frames, and
//! [`Assembler::next_wakeup`] for how long it may block. Nothing here reads a
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

mod config;
mod counters;
mod frame;

use core::ops::Range;
use std::collections::VecDeque;

use linerate_wire::gvsp::{ImageInfo, LeaderInfo, LeaderRepr, Packet, PacketFormat, TrailerRepr};
use linerate_wire::Status;

pub use config::{Config, ConfigError, ResendConfig};
pub use counters::Counters;
use frame::{BlockKey, Frame};

/// Blocks this far behind the newest one are "late"; farther back means the
/// device restarted its block ids, so they start new frames.
const LATE_WINDOW: u64 = 1024;
/// Recently finished blocks remembered, so their late packets are ignored.
const FINISHED_MEMORY: usize = 32;
/// The 16-bit block id space: 1..=65535 (0 is never valid).
const STANDARD_IDS: u64 = 65535;

/// What `on_packet` did with a datagram.
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
    /// The packet was already placed; nothing copied.
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
    size: usize,
    buffer: Vec<u8>,
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
    free_buffers: Vec<Vec<u8>>,
    free_missing: Vec<Vec<Range<usize>>>,
    allocated: usize,
    delivered: VecDeque<DeliveredFrame>,
    finished: [Option<BlockKey>; FINISHED_MEMORY],
    finished_at: usize,
    newest: Option<BlockKey>,
    next_seq: u64,
    max_packet_id: u32,
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
            finished_at: 0,
            newest: None,
            next_seq: 0,
            max_packet_id,
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
    pub fn on_packet(&mut self, datagram: &[u8], now_ns: u64) -> Placement {
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
                Ok((leader, _)) if packet_id == 0 => self.on_leader(key, leader, now_ns),
                _ => self.ignore(IgnoreReason::Malformed),
            },
            PacketFormat::Trailer => match TrailerRepr::parse(data) {
                Ok((trailer, _)) if packet_id > 0 => {
                    self.on_trailer(key, packet_id, trailer, now_ns)
                }
                _ => self.ignore(IgnoreReason::Malformed),
            },
            PacketFormat::Payload if packet_id > 0 && !data.is_empty() => {
                self.on_payload(key, packet_id, data, resent, now_ns)
            }
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
        if buffer.len() != self.config.max_payload_size {
            buffer.resize(self.config.max_payload_size, 0);
        }
        if self.free_buffers.len() < self.allocated {
            self.free_buffers.push(buffer);
        }
        if self.free_missing.len() < self.config.buffer_count {
            self.free_missing.push(frame.missing);
        }
    }

    /// The earliest time a resend request or a retention timeout is due, so
    /// the I/O loop knows how long it may block; `None` when nothing is pending.
    pub fn next_wakeup(&self) -> Option<u64> {
        let retention = self.config.frame_retention_ns;
        let resend = self.config.resend.enabled;
        self.frames
            .iter()
            .filter(|f| f.active)
            .map(|f| {
                let expiry = f.last_packet_ns.saturating_add(retention);
                if resend {
                    expiry.min(f.next_deadline)
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
    }

    fn ignore(&mut self, reason: IgnoreReason) -> Placement {
        let c = &mut self.counters;
        c.packets_ignored += 1;
        match reason {
            IgnoreReason::Malformed => c.packets_malformed += 1,
            IgnoreReason::Late => c.packets_late += 1,
            IgnoreReason::OutOfBounds => c.packets_out_of_bounds += 1,
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

    /// True when `key` is ahead of the newest block seen (or the id space restarted).
    fn is_newer(&self, key: BlockKey) -> bool {
        let Some(newest) = self.newest else {
            return true;
        };
        if newest.extended != key.extended {
            return true;
        }
        let behind = if key.extended {
            newest.block_id.wrapping_sub(key.block_id)
        } else {
            // Ids 1..=65535 on a ring of 65535.
            (newest.block_id + STANDARD_IDS - key.block_id % STANDARD_IDS) % STANDARD_IDS
        };
        behind > LATE_WINDOW
    }

    /// The slot assembling `key`, starting one if the block is new.
    fn slot_for(&mut self, key: BlockKey, now_ns: u64) -> Result<usize, IgnoreReason> {
        if let Some(i) = self.find(key) {
            return Ok(i);
        }
        if self.finished.contains(&Some(key)) {
            return Err(IgnoreReason::Late);
        }
        let newer = self.is_newer(key);
        let free = self.frames.iter().position(|f| !f.active);
        if !newer && free.is_none() {
            return Err(IgnoreReason::Late);
        }
        if newer {
            self.newest = Some(key);
        }
        let buffer = match self.free_buffers.pop() {
            Some(b) => b,
            None if self.allocated < self.config.buffer_count => {
                self.allocated += 1;
                vec![0u8; self.config.max_payload_size]
            }
            None => {
                self.counters.underruns += 1;
                self.remember_finished(key);
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

    fn remember_finished(&mut self, key: BlockKey) {
        if let Some(slot) = self.finished.get_mut(self.finished_at) {
            *slot = Some(key);
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
        let complete = f.is_complete();
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
            size,
            buffer: core::mem::take(&mut f.buffer),
        };
        let key = f.key;
        let c = &mut self.counters;
        match status {
            FrameStatus::Complete => c.frames_completed += 1,
            FrameStatus::TimedOut => c.frames_timed_out += 1,
            FrameStatus::Evicted => c.frames_evicted += 1,
            FrameStatus::Flushed => {}
        }
        if !complete {
            c.frames_incomplete += 1;
            c.packets_missing += missing_packets;
        }
        self.remember_finished(key);
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

    fn on_leader(&mut self, key: BlockKey, leader: LeaderRepr, now_ns: u64) -> Placement {
        let cap = self.config.max_payload_size;
        let i = match self.slot_for(key, now_ns) {
            Ok(i) => i,
            Err(r) => return self.ignore(r),
        };
        let gap_at = self.gap_at(now_ns);
        let Some(f) = self.frames.get_mut(i) else {
            return self.ignore(IgnoreReason::NoBuffer);
        };
        if f.leader.is_some() {
            self.counters.packets_duplicate += 1;
            return Placement::Duplicate {
                block_id: key.block_id,
                packet_id: 0,
            };
        }
        f.last_packet_ns = now_ns;
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
        now_ns: u64,
    ) -> Placement {
        if packet_id > self.max_packet_id {
            return self.ignore(IgnoreReason::OutOfBounds);
        }
        let cap = self.config.max_payload_size;
        let i = match self.slot_for(key, now_ns) {
            Ok(i) => i,
            Err(r) => return self.ignore(r),
        };
        let gap_at = self.gap_at(now_ns);
        let Some(f) = self.frames.get_mut(i) else {
            return self.ignore(IgnoreReason::NoBuffer);
        };
        match f.trailer_id {
            Some(t) if t == packet_id => {
                self.counters.packets_duplicate += 1;
                return Placement::Duplicate {
                    block_id: key.block_id,
                    packet_id,
                };
            }
            Some(_) => return self.ignore(IgnoreReason::Inconsistent),
            None => {}
        }
        f.last_packet_ns = now_ns;
        let dropped = f.apply_trailer(packet_id, trailer, gap_at);
        f.infer_dpp(gap_at, cap);
        self.counters.packets_out_of_bounds += u64::from(dropped);
        self.finish_if_complete(i);
        Placement::Trailer {
            block_id: key.block_id,
        }
    }

    fn on_payload(
        &mut self,
        key: BlockKey,
        packet_id: u32,
        data: &[u8],
        resent: bool,
        now_ns: u64,
    ) -> Placement {
        // The trailer takes max_packet_id; payload ids stay below it.
        if packet_id >= self.max_packet_id {
            return self.ignore(IgnoreReason::OutOfBounds);
        }
        let i = match self.slot_for(key, now_ns) {
            Ok(i) => i,
            Err(r) => return self.ignore(r),
        };
        let gap_at = self.gap_at(now_ns);
        let fixed = self.config.data_per_packet.is_some();
        let cap = self.config.max_payload_size;
        let Some(f) = self.frames.get_mut(i) else {
            return self.ignore(IgnoreReason::NoBuffer);
        };
        if f.is_received(packet_id) {
            self.counters.packets_duplicate += 1;
            return Placement::Duplicate {
                block_id: key.block_id,
                packet_id,
            };
        }
        if f.trailer_id.is_some_and(|t| packet_id >= t) {
            return self.ignore(IgnoreReason::OutOfBounds);
        }
        let len = data.len();
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
                    return self.ignore(IgnoreReason::OutOfBounds);
                }
                Plan::Reset(len)
            }
            Some(_) => {
                let last_ok = f.trailer_id.map_or(true, |t| packet_id + 1 == t);
                let other_short = f.short.filter(|&(s, _)| s != packet_id);
                if last_ok && other_short.is_none() {
                    Plan::Short
                } else if f.dpp_confirmed || fixed {
                    return self.ignore(IgnoreReason::Inconsistent);
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
            return self.ignore(IgnoreReason::OutOfBounds);
        };
        if end > bound {
            return self.ignore(IgnoreReason::OutOfBounds);
        }
        if end > f.buffer.len() {
            return self.ignore(IgnoreReason::OutOfBounds);
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
                        return self.ignore(IgnoreReason::Inconsistent);
                    }
                    f.short = Some((packet_id, len));
                }
            }
        }
        let Some(dst) = f.buffer.get_mut(offset..end) else {
            return self.ignore(IgnoreReason::OutOfBounds);
        };
        dst.copy_from_slice(data);
        f.mark(packet_id);
        f.note_id(packet_id, gap_at);
        f.payload_received += 1;
        f.bytes += len;
        f.written_end = f.written_end.max(end);
        f.last_packet_ns = now_ns;
        self.counters.bytes_received += len as u64;
        if resent {
            self.counters.packets_resent += 1;
        }
        self.finish_if_complete(i);
        Placement::Payload {
            block_id: key.block_id,
            offset,
            len,
        }
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
        let i = match self.slot_for(key, now_ns) {
            Ok(i) => i,
            Err(r) => return self.ignore(r),
        };
        let Some(f) = self.frames.get_mut(i) else {
            return self.ignore(IgnoreReason::NoBuffer);
        };
        if f.leader.is_some() || f.highest.is_some() {
            self.counters.packets_duplicate += 1;
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
