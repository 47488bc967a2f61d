//! The state of one block being assembled: which packet ids arrived, where
//! its data goes, and when each gap is due for a resend request.

use core::ops::Range;

use super::memory::FrameMemory;
use linerate_wire::gvsp::{LeaderInfo, LeaderRepr, TrailerRepr};

/// Deadline value meaning "nothing planned for this packet id".
pub(crate) const NEVER: u64 = u64::MAX;

/// Identifies a block: standard (16-bit) and extended (64-bit) ids are
/// separate spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockKey {
    pub extended: bool,
    pub block_id: u64,
}

/// One frame slot. Its vectors keep their capacity from frame to frame.
#[derive(Debug)]
pub(crate) struct Frame {
    pub active: bool,
    pub key: BlockKey,
    /// Start order, to find the oldest frame.
    pub seq: u64,
    /// The frame buffer, `max_payload_size` long; empty while not active.
    pub buffer: FrameMemory,
    pub missing: Vec<Range<usize>>,
    /// Bit `p` set: packet id `p` placed (0 = leader, 1..=n payload).
    received: Vec<u64>,
    /// Per packet id: when to request it next, or [`NEVER`].
    deadlines: Vec<u64>,
    pub highest: Option<u32>,
    pub leader: Option<LeaderRepr>,
    pub announced: Option<usize>,
    pub trailer: Option<TrailerRepr>,
    pub trailer_id: Option<u32>,
    pub dpp: Option<usize>,
    pub dpp_confirmed: bool,
    /// The one payload packet shorter than `dpp` (must be the last): id and length.
    pub short: Option<(u32, usize)>,
    pub payload_received: u32,
    pub bytes: usize,
    pub written_end: usize,
    pub last_packet_ns: u64,
    /// When the frame's first packet arrived, for its mean packet gap.
    pub first_packet_ns: u64,
    /// Its tail has been scheduled for a request (by [`Frame::note_tail`]).
    pub tail_noted: bool,
    pub next_deadline: u64,
    /// Packet ids requested and not answered yet: every id of a request
    /// counts, and every resent packet placed gives one back (see
    /// [`Frame::answered`]).
    pub requested: u64,
    /// Planning stopped because `requested` reached the budget; an answer
    /// wakes it up again.
    pub exhausted: bool,
}

impl Frame {
    pub fn empty() -> Frame {
        Frame {
            active: false,
            key: BlockKey {
                extended: false,
                block_id: 0,
            },
            seq: 0,
            buffer: FrameMemory::default(),
            missing: Vec::new(),
            received: Vec::new(),
            deadlines: Vec::new(),
            highest: None,
            leader: None,
            announced: None,
            trailer: None,
            trailer_id: None,
            dpp: None,
            dpp_confirmed: false,
            short: None,
            payload_received: 0,
            bytes: 0,
            written_end: 0,
            last_packet_ns: 0,
            first_packet_ns: 0,
            tail_noted: false,
            next_deadline: NEVER,
            requested: 0,
            exhausted: false,
        }
    }

    /// Starts assembling `key` in this slot.
    pub fn start(
        &mut self,
        key: BlockKey,
        seq: u64,
        buffer: FrameMemory,
        missing: Vec<Range<usize>>,
        dpp: Option<usize>,
        now_ns: u64,
    ) {
        self.active = true;
        self.key = key;
        self.seq = seq;
        self.buffer = buffer;
        self.missing = missing;
        self.missing.clear();
        self.received.clear();
        self.deadlines.clear();
        self.highest = None;
        self.leader = None;
        self.announced = None;
        self.trailer = None;
        self.trailer_id = None;
        self.dpp = dpp;
        self.dpp_confirmed = dpp.is_some();
        self.short = None;
        self.payload_received = 0;
        self.bytes = 0;
        self.written_end = 0;
        self.last_packet_ns = now_ns;
        self.first_packet_ns = now_ns;
        self.tail_noted = false;
        self.next_deadline = NEVER;
        self.requested = 0;
        self.exhausted = false;
    }

    /// When the silence since the last packet means the tail was lost:
    /// `min_ns` after it, or 16 mean packet gaps if that is longer. `None`
    /// when the tail is already scheduled, the trailer came, or the size
    /// of the frame is unknown (there is no tail to ask for).
    pub fn tail_due(&self, min_ns: u64) -> Option<u64> {
        if min_ns == 0
            || self.tail_noted
            || self.trailer_id.is_some()
            || self.announced.is_none()
            || self.dpp.is_none()
        {
            return None;
        }
        let gaps = u64::from(self.payload_received.max(1));
        let mean_gap = self.last_packet_ns.saturating_sub(self.first_packet_ns) / gaps;
        Some(
            self.last_packet_ns
                .saturating_add(min_ns.max(mean_gap.saturating_mul(16))),
        )
    }

    /// Grows the per-id tables to cover `id` (callers bound `id`).
    fn cover(&mut self, id: u32) {
        let id = id as usize;
        if self.deadlines.len() <= id {
            self.deadlines.resize(id + 1, NEVER);
        }
        let words = id / 64 + 1;
        if self.received.len() < words {
            self.received.resize(words, 0);
        }
    }

    pub fn is_received(&self, id: u32) -> bool {
        let i = id as usize;
        self.received
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    fn set_received(&mut self, id: u32, on: bool) {
        self.cover(id);
        let i = id as usize;
        if let Some(w) = self.received.get_mut(i / 64) {
            if on {
                *w |= 1u64 << (i % 64);
            } else {
                *w &= !(1u64 << (i % 64));
            }
        }
    }

    fn set_deadline(&mut self, id: u32, at: u64) {
        self.cover(id);
        if let Some(d) = self.deadlines.get_mut(id as usize) {
            *d = at;
        }
        self.next_deadline = self.next_deadline.min(at);
    }

    /// Marks packet `id` as placed.
    pub fn mark(&mut self, id: u32) {
        self.set_received(id, true);
        if let Some(d) = self.deadlines.get_mut(id as usize) {
            *d = NEVER;
        }
    }

    /// The device said `id` is gone: never request it again.
    pub fn abandon(&mut self, id: u32) -> bool {
        let received = self.is_received(id);
        match self.deadlines.get_mut(id as usize) {
            Some(d) if *d != NEVER && !received => {
                *d = NEVER;
                true
            }
            _ => false,
        }
    }

    /// The bytes of payload packet `id` where it was placed, if it was.
    pub fn placed_payload(&self, id: u32) -> Option<&[u8]> {
        if id == 0 || !self.is_received(id) {
            return None;
        }
        let start = (id as usize - 1).checked_mul(self.dpp?)?;
        let end = start.checked_add(self.payload_len(id))?;
        self.buffer.get(start..end)
    }

    /// Length of payload packet `id`, given it was placed.
    fn payload_len(&self, id: u32) -> usize {
        match self.short {
            Some((s, len)) if s == id => len,
            _ => self.dpp.unwrap_or(0),
        }
    }

    /// Un-places payload packet `id` (it turned out to be wrong) and, when
    /// `retry_at` is given, plans a request for it.
    pub fn unplace(&mut self, id: u32, retry_at: Option<u64>) {
        if id == 0 || !self.is_received(id) {
            return;
        }
        let len = self.payload_len(id);
        self.set_received(id, false);
        self.payload_received = self.payload_received.saturating_sub(1);
        self.bytes = self.bytes.saturating_sub(len);
        if matches!(self.short, Some((s, _)) if s == id) {
            self.short = None;
        }
        if let Some(at) = retry_at {
            self.set_deadline(id, at);
        }
    }

    /// Starts over with packet size `dpp` (the size learned so far was too
    /// small). Every packet placed so far was shorter than `dpp`, so at most
    /// one of them can be right: the highest id, as the block's last packet.
    /// It is moved to its new offset; the others are requested again.
    pub fn reset_payload(&mut self, dpp: usize, retry_at: Option<u64>, bound: usize) {
        let top = self.highest.unwrap_or(0);
        let keeper = (1..=top)
            .rev()
            .find(|&id| self.is_received(id))
            .filter(|&id| self.trailer_id.map_or(true, |t| id + 1 == t))
            .map(|id| (id, self.payload_len(id)));
        let old = self.dpp;
        for id in 1..=top {
            if keeper.map_or(true, |(k, _)| k != id) {
                self.unplace(id, retry_at);
            }
        }
        self.short = None;
        self.payload_received = 0;
        self.bytes = 0;
        self.written_end = 0;
        self.dpp = Some(dpp);
        self.dpp_confirmed = false;
        let Some((id, len)) = keeper else {
            return;
        };
        let index = id as usize - 1;
        let from = old.and_then(|o| index.checked_mul(o));
        let to = index.checked_mul(dpp);
        let fits = match (from, to) {
            (Some(from), Some(to)) => {
                to.saturating_add(len) <= bound.min(self.buffer.len())
                    && from.saturating_add(len) <= self.buffer.len()
            }
            _ => false,
        };
        if let (true, Some(from), Some(to)) = (fits, from, to) {
            self.buffer.copy_within(from..from + len, to);
            self.payload_received = 1;
            self.bytes = len;
            self.written_end = to + len;
            if len < dpp {
                self.short = Some((id, len));
            }
        } else {
            // Cannot be placed under the new size: forget it and ask again.
            self.set_received(id, false);
            if let Some(at) = retry_at {
                self.set_deadline(id, at);
            }
        }
    }

    /// With only the block's last packet placed, the packet size learned
    /// from it is a guess; leader size and trailer id pin it down:
    /// `(announced - last_len) / (payload_packets - 1)`. Re-lays the frame out.
    pub fn infer_dpp(&mut self, retry_at: Option<u64>, cap: usize) {
        if self.dpp_confirmed || self.payload_received != 1 {
            return;
        }
        let (Some(a), Some(t), Some(old)) = (self.announced, self.trailer_id, self.dpp) else {
            return;
        };
        if t < 3 || !self.is_received(t - 1) {
            return;
        }
        let last = self.payload_len(t - 1);
        let others = t as usize - 2;
        let Some(rest) = a.checked_sub(last) else {
            return;
        };
        if rest % others != 0 {
            return;
        }
        let dpp = rest / others;
        if dpp < last || dpp == old {
            return;
        }
        self.reset_payload(dpp, retry_at, a.min(cap));
        self.dpp_confirmed = true;
    }

    /// Packet `id` arrived: ids between the previous highest and it are gaps.
    pub fn note_id(&mut self, id: u32, gap_at: Option<u64>) {
        let from = match self.highest {
            None => 0,
            Some(h) if id > h => h + 1,
            Some(_) => return,
        };
        self.highest = Some(id);
        self.cover(id);
        if let Some(at) = gap_at {
            for q in from..id {
                if !self.is_received(q) {
                    self.set_deadline(q, at);
                }
            }
        }
    }

    /// A newer block started, so nothing more of this one is in flight:
    /// every id from the highest seen up to the trailer the leader implies
    /// is a gap (a lost trailer or last packets would otherwise only be
    /// noticed when retention expires).
    pub fn note_tail(&mut self, gap_at: Option<u64>) {
        let (Some(at), None, Some(a), Some(dpp)) =
            (gap_at, self.trailer_id, self.announced, self.dpp)
        else {
            return;
        };
        self.tail_noted = true;
        // Bounded by the buffer, whatever the leader claims.
        let a = a.min(self.buffer.len());
        let Ok(trailer) = u32::try_from(a.div_ceil(dpp).saturating_add(1)) else {
            return;
        };
        let from = self.highest.map_or(0, |h| h.saturating_add(1));
        for q in from..=trailer {
            let due = self.deadlines.get(q as usize).map_or(true, |&d| d == NEVER);
            if due && !self.is_received(q) {
                self.set_deadline(q, at);
            }
        }
    }

    /// Applies the leader's announced size: payload placed beyond it is dropped.
    pub fn apply_leader(&mut self, leader: LeaderRepr) -> u32 {
        self.leader = Some(leader);
        self.announced = announced_size(&leader);
        self.mark(0);
        let mut dropped = 0;
        if let (Some(a), Some(dpp), Some(top)) = (self.announced, self.dpp, self.highest) {
            for id in 1..=top {
                if self.is_received(id) {
                    let end = (id as usize - 1).saturating_mul(dpp) + self.payload_len(id);
                    if end > a {
                        self.unplace(id, None);
                        dropped += 1;
                    }
                }
            }
        }
        dropped
    }

    /// Applies the trailer: payload ids at or past it, and a short packet
    /// that is not the last, are dropped. Returns how many were dropped.
    pub fn apply_trailer(&mut self, id: u32, trailer: TrailerRepr, retry_at: Option<u64>) -> u32 {
        self.trailer = Some(trailer);
        self.trailer_id = Some(id);
        let mut dropped = 0;
        if let Some(top) = self.highest {
            for q in id..=top {
                if self.is_received(q) {
                    self.unplace(q, None);
                    dropped += 1;
                }
            }
        }
        // Nothing at or past the trailer is asked for any more: not the
        // trailer itself, nor a lost tail planned up to it.
        for d in self.deadlines.iter_mut().skip(id as usize) {
            *d = NEVER;
        }
        if let Some((s, _)) = self.short {
            if s + 1 != id {
                self.unplace(s, retry_at);
                dropped += 1;
            }
        }
        self.note_id(id, retry_at);
        dropped
    }

    /// True when leader, trailer and every payload packet are in.
    pub fn is_complete(&self) -> bool {
        match self.trailer_id {
            Some(t) => {
                self.leader.is_some()
                    && self.payload_received == t - 1
                    && self.short.map_or(true, |(s, _)| s + 1 == t)
            }
            None => false,
        }
    }

    /// Bytes of the frame as far as known (the exact size once complete).
    pub fn extent(&self, cap: usize) -> usize {
        let exact = match (self.trailer_id, self.dpp) {
            (Some(t), Some(dpp)) if t >= 2 && self.is_received(t - 1) => {
                Some((t as usize - 2).saturating_mul(dpp) + self.payload_len(t - 1))
            }
            (Some(1), _) => Some(0),
            _ => None,
        };
        let e = exact
            .or(self.announced)
            .or(match (self.trailer_id, self.dpp) {
                (Some(t), Some(dpp)) => Some((t as usize).saturating_sub(1).saturating_mul(dpp)),
                _ => None,
            })
            .unwrap_or(self.written_end)
            .max(self.written_end);
        e.min(cap)
    }

    /// Fills `self.missing` with the merged byte ranges not received, up to
    /// `extent`; returns how many packets (leader and trailer included) are missing.
    pub fn compute_missing(&mut self, extent: usize) -> u64 {
        self.missing.clear();
        let mut packets = u64::from(self.leader.is_none()) + u64::from(self.trailer_id.is_none());
        let Some(dpp) = self.dpp else {
            if extent > 0 {
                self.missing.push(0..extent);
            }
            return packets;
        };
        let last = match self.trailer_id {
            Some(t) => t.saturating_sub(1),
            None => u32::try_from(extent.div_ceil(dpp)).unwrap_or(u32::MAX),
        };
        for id in 1..=last {
            if self.is_received(id) {
                continue;
            }
            let start = (id as usize - 1).saturating_mul(dpp);
            if start >= extent {
                break;
            }
            packets += 1;
            let end = start.saturating_add(dpp).min(extent);
            match self.missing.last_mut() {
                Some(r) if r.end == start => r.end = end,
                _ => self.missing.push(start..end),
            }
        }
        packets
    }

    /// A resent packet was placed: the device answered one requested id,
    /// so that id no longer counts against the budget. When planning had
    /// stopped for want of budget, it resumes at `now_ns` (once per batch
    /// of answers, not once per packet: the next plan re-arms it).
    pub fn answered(&mut self, now_ns: u64) {
        self.requested = self.requested.saturating_sub(1);
        if self.exhausted {
            self.exhausted = false;
            self.next_deadline = self.next_deadline.min(now_ns);
        }
    }

    /// Plans one resend request: the first run of consecutive due gaps,
    /// within `budget` unanswered packet ids for this frame. Recomputes
    /// `next_deadline`.
    pub fn plan_request(&mut self, now_ns: u64, repeat_ns: u64, budget: u64) -> Option<(u32, u32)> {
        let Some(top) = self.highest else {
            self.next_deadline = NEVER;
            return None;
        };
        let mut range: Option<(u32, u32)> = None;
        let mut closed = false;
        let mut next = NEVER;
        let again = now_ns.saturating_add(repeat_ns);
        // Tail gaps (see note_tail) lie above the highest id seen.
        let top =
            top.max(u32::try_from(self.deadlines.len().saturating_sub(1)).unwrap_or(u32::MAX));
        for q in 0..=top {
            let d = self.deadlines.get(q as usize).copied().unwrap_or(NEVER);
            if d == NEVER || self.is_received(q) {
                closed |= range.is_some();
                continue;
            }
            let joins = match range {
                None => true,
                Some((_, last)) => !closed && last + 1 == q,
            };
            if d <= now_ns && joins && self.requested < budget {
                range = Some((range.map_or(q, |r| r.0), q));
                if let Some(slot) = self.deadlines.get_mut(q as usize) {
                    *slot = again;
                }
                self.requested += 1;
                next = next.min(again);
            } else {
                closed |= range.is_some();
                next = next.min(d);
            }
        }
        // Out of budget with gaps still open: sleep until an answer comes
        // (or the frame's retention ends).
        self.exhausted = self.requested >= budget && next != NEVER;
        self.next_deadline = if self.exhausted { NEVER } else { next };
        range
    }
}

/// Payload bytes the leader announces, when it says (images without chunks, raw data).
fn announced_size(leader: &LeaderRepr) -> Option<usize> {
    if leader.payload_type.has_chunks() {
        return None;
    }
    let bytes = match leader.info {
        LeaderInfo::Image(i) => {
            if i.pixel_format.bits_per_pixel() == 0 {
                return None;
            }
            let lines = i.pixel_format.image_bytes(i.width, i.height)?;
            let pad = u64::from(i.padding_x)
                .checked_mul(u64::from(i.height))?
                .checked_add(u64::from(i.padding_y))?;
            lines.checked_add(pad)?
        }
        LeaderInfo::RawData { payload_size } => payload_size,
        LeaderInfo::ChunkData => return None,
    };
    usize::try_from(bytes).ok()
}
