//! The fan-out state machine: shared frame slots, per-client queues, drops.
//!
//! Frames live in a fixed pool of slots (the caller owns the memory, e.g. a
//! memfd mapping; the hub only counts). Publishing a frame pushes a
//! reference to its slot onto every client's queue: no bytes are copied
//! per client. A client's reference is released when the caller reports the
//! frame's bytes gone for good: once written, for methods that copy
//! ([`Release::OnWrite`]); once the peer acknowledged them (or the kernel
//! reported a zero-copy send complete), for methods that send from the
//! slot's pages ([`Release::OnAck`]), because until then the kernel may
//! still read (and retransmit) those pages and the slot must not be reused.
//!
//! Slow clients cannot slow the others or grow memory:
//! * a queue holds at most `queue_frames` frames not yet started; on
//!   overflow the oldest queued frame is dropped and counted (a video
//!   client prefers the newest frame);
//! * when a new frame needs a slot and every slot is referenced, the
//!   clients holding the oldest slot are cut loose (their ids returned for
//!   the caller to close), so a client that stopped reading is disconnected
//!   after the pool wraps, whatever its socket buffer holds.

use std::collections::VecDeque;

use crate::error::{Error, Result};

/// Identifies a client of a [`Hub`]; never reused.
pub type ClientId = u64;

/// When a client's reference to a frame ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// When its last byte was handed to the kernel (the kernel copied it).
    OnWrite,
    /// When the caller reports the stream acknowledged past its last byte
    /// ([`Hub::acked`]): the kernel sends from the slot's pages.
    OnAck,
}

/// Sizes of a hub.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HubConfig {
    /// Frame slots in the pool (at least 2).
    pub slots: usize,
    /// Frames a client may have queued and not started (at least 1).
    pub queue_frames: usize,
    /// Most clients at once.
    pub max_clients: usize,
    /// When references end.
    pub release: Release,
    /// Nanoseconds a client may have something to send and make no
    /// progress before [`Hub::cut_slow`] cuts it loose (0: never).
    pub stall_ns: u64,
}

/// Why a client was cut loose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutReason {
    /// It held the oldest slot when a new frame needed one.
    PoolFull,
    /// Its oldest frame still held was a whole pool behind the newest.
    Behind,
    /// It made no progress for the stall time.
    Stalled,
}

impl CutReason {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            CutReason::PoolFull => "pool_full",
            CutReason::Behind => "behind",
            CutReason::Stalled => "stalled",
        }
    }
}

/// A client cut loose: the caller closes its socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    /// The client.
    pub id: ClientId,
    /// Its counters at the end.
    pub counters: ClientCounters,
    /// Why.
    pub reason: CutReason,
}

/// A reference to a published frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRef {
    /// Slot index in the pool.
    pub slot: usize,
    /// Frame sequence number.
    pub seq: u64,
    /// Bytes the frame occupies in the slot (header + payload).
    pub len: usize,
}

/// The next bytes to send to a client: `len` bytes at `offset` in `slot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    /// The frame being sent.
    pub frame: FrameRef,
    /// Bytes of the frame already sent.
    pub offset: usize,
    /// Bytes left.
    pub len: usize,
}

/// Counters of one client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientCounters {
    /// Frames queued for this client.
    pub frames_queued: u64,
    /// Frames whose last byte was handed to the kernel.
    pub frames_sent: u64,
    /// Frames dropped from its queue because it was too slow.
    pub frames_dropped: u64,
    /// Bytes handed to the kernel.
    pub bytes_sent: u64,
}

/// Counters of the whole hub.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HubCounters {
    /// Frames published.
    pub frames_published: u64,
    /// Clients cut loose because they pinned the oldest slot.
    pub clients_cut: u64,
    /// Frames dropped from queues of slow clients, all clients together.
    pub frames_dropped: u64,
}

/// A slot the caller may now fill with frame `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The slot to fill, then [`Hub::publish`].
    pub slot: usize,
    /// The sequence number the frame gets.
    pub seq: u64,
    /// Clients cut loose to free the slot: the caller closes their sockets.
    pub cut: Vec<Cut>,
}

#[derive(Debug, Default)]
struct Client {
    id: ClientId,
    queue: VecDeque<FrameRef>,
    current: Option<(FrameRef, usize)>,
    /// Frames fully written but not yet released, with the stream position
    /// just past their last byte.
    unacked: VecDeque<(FrameRef, u64)>,
    stream_pos: u64,
    /// Frames sent whole when [`Hub::cut_slow`] last saw progress, and
    /// when that was (ns; `None` before the first look).
    progress: u64,
    progress_ns: Option<u64>,
    counters: ClientCounters,
}

/// Fan-out of frames from one producer to many clients.
#[derive(Debug)]
pub struct Hub {
    config: HubConfig,
    /// Per slot: the frame in it (if published) and how many references.
    slots: Vec<(Option<u64>, u32)>,
    clients: Vec<Client>,
    next_id: ClientId,
    next_seq: u64,
    counters: HubCounters,
}

impl Hub {
    /// A hub with `config`'s sizes; fails on a pool of fewer than 2 slots,
    /// an empty queue or no client.
    pub fn new(config: HubConfig) -> Result<Hub> {
        if config.slots < 2 || config.slots > 1 << 16 {
            return Err(Error::BadConfig {
                what: "frame slots",
                value: config.slots as u64,
                rule: "2 to 65536",
            });
        }
        if config.queue_frames == 0 || config.queue_frames >= config.slots {
            return Err(Error::BadConfig {
                what: "queued frames per client",
                value: config.queue_frames as u64,
                rule: "at least 1 and fewer than the slots",
            });
        }
        if config.max_clients == 0 {
            return Err(Error::BadConfig {
                what: "max clients",
                value: 0,
                rule: "at least 1",
            });
        }
        Ok(Hub {
            config,
            slots: vec![(None, 0); config.slots],
            clients: Vec::new(),
            next_id: 0,
            next_seq: 0,
            counters: HubCounters::default(),
        })
    }

    /// The hub's sizes.
    pub fn config(&self) -> &HubConfig {
        &self.config
    }

    /// Hub-wide counters.
    pub fn counters(&self) -> HubCounters {
        self.counters
    }

    /// Clients connected now.
    pub fn client_count(&self) -> usize {
        self.clients.len()
    }

    /// Ids of the clients connected now.
    pub fn client_ids(&self) -> impl Iterator<Item = ClientId> + '_ {
        self.clients.iter().map(|c| c.id)
    }

    /// References currently held on `slot` (0 for an unknown slot).
    pub fn slot_refs(&self, slot: usize) -> u32 {
        self.slots.get(slot).map_or(0, |s| s.1)
    }

    /// Adds a client; it receives frames published from now on.
    pub fn add_client(&mut self) -> Result<ClientId> {
        if self.clients.len() >= self.config.max_clients {
            return Err(Error::TooManyClients {
                max: self.config.max_clients,
            });
        }
        let id = self.next_id;
        self.next_id += 1;
        self.clients.push(Client {
            id,
            ..Client::default()
        });
        Ok(id)
    }

    fn index(&self, id: ClientId) -> Result<usize> {
        self.clients
            .iter()
            .position(|c| c.id == id)
            .ok_or(Error::NoClient(id))
    }

    /// Removes a client and releases everything it held; returns its counters.
    pub fn remove_client(&mut self, id: ClientId) -> Result<ClientCounters> {
        let i = self.index(id)?;
        let c = self.clients.swap_remove(i);
        let held = c
            .queue
            .iter()
            .chain(c.current.iter().map(|(f, _)| f))
            .chain(c.unacked.iter().map(|(f, _)| f));
        for f in held {
            self.unref(f.slot);
        }
        Ok(c.counters)
    }

    /// A client's counters.
    pub fn client_counters(&self, id: ClientId) -> Result<ClientCounters> {
        Ok(self.clients[self.index(id)?].counters)
    }

    fn unref(&mut self, slot: usize) {
        if let Some(s) = self.slots.get_mut(slot) {
            s.1 = s.1.saturating_sub(1);
        }
    }

    /// Picks the slot for the next frame: a free one, else the one with the
    /// oldest frame after cutting loose every client that holds it.
    pub fn claim_slot(&mut self) -> Claim {
        let seq = self.next_seq;
        let free = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.1 == 0)
            .min_by_key(|(_, s)| s.0.map_or(0, |q| q + 1))
            .map(|(i, _)| i);
        if let Some(slot) = free {
            self.slots[slot].0 = None;
            return Claim {
                slot,
                seq,
                cut: Vec::new(),
            };
        }
        let slot = self
            .slots
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| s.0.unwrap_or(0))
            .map_or(0, |(i, _)| i);
        let holders: Vec<ClientId> = self
            .clients
            .iter()
            .filter(|c| {
                c.queue.iter().any(|f| f.slot == slot)
                    || c.current.is_some_and(|(f, _)| f.slot == slot)
                    || c.unacked.iter().any(|(f, _)| f.slot == slot)
            })
            .map(|c| c.id)
            .collect();
        let mut cut = Vec::with_capacity(holders.len());
        for id in holders {
            if let Ok(counters) = self.remove_client(id) {
                self.counters.clients_cut += 1;
                cut.push(Cut {
                    id,
                    counters,
                    reason: CutReason::PoolFull,
                });
            }
        }
        self.slots[slot] = (None, 0);
        Claim { slot, seq, cut }
    }

    /// Cuts loose, and returns for the caller to close, every client that
    /// * has had something to send or unacknowledged for `stall_ns` and
    ///   handed no frame whole to its socket meanwhile (a client that never
    ///   reads: its socket is full; a receiver that frees a few bytes now
    ///   and then by collapsing its queue does not count as progress), or
    /// * still holds a frame more than a pool (`slots` frames) older than
    ///   the next one to be made (one that reads, but too slowly to finish
    ///   a frame before the pool wraps; with io_uring's one send in flight
    ///   it would never pin enough slots for [`Hub::claim_slot`] to cut it).
    ///
    /// Call it often (every frame); `now_ns` is any monotonic clock. A
    /// client's stall time starts at the first call that sees it waiting.
    pub fn cut_slow(&mut self, now_ns: u64) -> Vec<Cut> {
        let next = self.next_seq;
        let max_behind = self.config.slots as u64;
        let stall_ns = self.config.stall_ns;
        let mut doomed = Vec::new();
        for c in &mut self.clients {
            let oldest = c
                .unacked
                .front()
                .map(|(f, _)| f.seq)
                .or(c.current.map(|(f, _)| f.seq));
            if oldest.is_some_and(|seq| next.saturating_sub(seq) > max_behind) {
                doomed.push((c.id, CutReason::Behind));
                continue;
            }
            let waiting = c.current.is_some() || !c.queue.is_empty() || !c.unacked.is_empty();
            let pos = c.counters.frames_sent;
            match c.progress_ns {
                Some(since) if waiting && pos == c.progress => {
                    if stall_ns > 0 && now_ns.saturating_sub(since) >= stall_ns {
                        doomed.push((c.id, CutReason::Stalled));
                    }
                }
                _ => {
                    c.progress = pos;
                    c.progress_ns = Some(now_ns);
                }
            }
        }
        let mut cut = Vec::with_capacity(doomed.len());
        for (id, reason) in doomed {
            if let Ok(counters) = self.remove_client(id) {
                self.counters.clients_cut += 1;
                cut.push(Cut {
                    id,
                    counters,
                    reason,
                });
            }
        }
        cut
    }

    /// Publishes the frame the caller wrote into `claim`'s slot (`len`
    /// bytes) to every client, dropping the oldest queued frame of a client
    /// whose queue is full.
    pub fn publish(&mut self, claim: &Claim, len: usize) {
        let f = FrameRef {
            slot: claim.slot,
            seq: claim.seq,
            len,
        };
        self.next_seq = claim.seq + 1;
        self.counters.frames_published += 1;
        let mut dropped_slots = Vec::new();
        for c in &mut self.clients {
            if c.queue.len() >= self.config.queue_frames {
                if let Some(old) = c.queue.pop_front() {
                    dropped_slots.push(old.slot);
                    c.counters.frames_dropped += 1;
                }
            }
            c.queue.push_back(f);
            c.counters.frames_queued += 1;
        }
        self.counters.frames_dropped += dropped_slots.len() as u64;
        let refs = self.clients.len() as u32;
        self.slots[claim.slot] = (Some(claim.seq), refs);
        for s in dropped_slots {
            self.unref(s);
        }
    }

    /// What to send to client `id` next, if anything.
    pub fn pending(&mut self, id: ClientId) -> Option<Pending> {
        let i = self.index(id).ok()?;
        let c = &mut self.clients[i];
        if c.current.is_none() {
            c.current = c.queue.pop_front().map(|f| (f, 0));
        }
        c.current.map(|(frame, offset)| Pending {
            frame,
            offset,
            len: frame.len - offset,
        })
    }

    /// Frames queued for client `id` behind the one in progress (0 for an
    /// unknown client): a sender may tell the kernel more data follows.
    pub fn queued(&self, id: ClientId) -> usize {
        self.index(id).map_or(0, |i| self.clients[i].queue.len())
    }

    /// Reports `n` more bytes of the pending frame handed to the kernel.
    pub fn sent(&mut self, id: ClientId, n: usize) -> Result<()> {
        let i = self.index(id)?;
        let release = self.config.release;
        let c = &mut self.clients[i];
        let Some((frame, offset)) = c.current.as_mut() else {
            return Ok(());
        };
        let n = n.min(frame.len - *offset);
        *offset += n;
        c.stream_pos += n as u64;
        c.counters.bytes_sent += n as u64;
        if *offset == frame.len {
            let frame = *frame;
            c.current = None;
            c.counters.frames_sent += 1;
            match release {
                Release::OnWrite => self.unref(frame.slot),
                Release::OnAck => c.unacked.push_back((frame, c.stream_pos)),
            }
        }
        Ok(())
    }

    /// Bytes of client `id`'s stream handed to the kernel so far.
    pub fn stream_pos(&self, id: ClientId) -> Result<u64> {
        Ok(self.clients[self.index(id)?].stream_pos)
    }

    /// Whether client `id` has sent frames still waiting for [`Hub::acked`].
    pub fn has_unacked(&self, id: ClientId) -> bool {
        self.index(id)
            .map(|i| !self.clients[i].unacked.is_empty())
            .unwrap_or(false)
    }

    /// Reports that the kernel no longer needs bytes of client `id`'s
    /// stream before position `pos` (acknowledged by the peer, or a
    /// zero-copy send reported complete): frames ending there are released.
    pub fn acked(&mut self, id: ClientId, pos: u64) -> Result<()> {
        let i = self.index(id)?;
        let mut freed = Vec::new();
        let c = &mut self.clients[i];
        while let Some(&(f, end)) = c.unacked.front() {
            if end > pos {
                break;
            }
            c.unacked.pop_front();
            freed.push(f.slot);
        }
        for s in freed {
            self.unref(s);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hub(slots: usize, queue: usize, release: Release) -> Hub {
        Hub::new(HubConfig {
            slots,
            queue_frames: queue,
            max_clients: 64,
            release,
            stall_ns: 0,
        })
        .expect("config")
    }

    fn send_all(h: &mut Hub, id: ClientId) -> usize {
        let mut frames = 0;
        while let Some(p) = h.pending(id) {
            h.sent(id, p.len).expect("client");
            frames += 1;
        }
        frames
    }

    #[test]
    fn one_frame_many_clients_shares_one_slot() {
        let mut h = hub(4, 2, Release::OnWrite);
        let ids: Vec<_> = (0..5).map(|_| h.add_client().expect("room")).collect();
        let c = h.claim_slot();
        h.publish(&c, 100);
        assert_eq!(h.slot_refs(c.slot), 5);
        for &id in &ids {
            let p = h.pending(id).expect("frame");
            assert_eq!((p.frame.slot, p.offset, p.len), (c.slot, 0, 100));
            h.sent(id, 60).expect("client");
            assert_eq!(h.pending(id).expect("rest").len, 40);
            h.sent(id, 40).expect("client");
        }
        assert_eq!(h.slot_refs(c.slot), 0);
    }

    #[test]
    fn on_ack_holds_the_slot_until_acked() {
        let mut h = hub(4, 2, Release::OnAck);
        let id = h.add_client().expect("room");
        let c = h.claim_slot();
        h.publish(&c, 100);
        assert_eq!(send_all(&mut h, id), 1);
        assert_eq!(h.slot_refs(c.slot), 1);
        h.acked(id, 99).expect("client");
        assert_eq!(h.slot_refs(c.slot), 1);
        h.acked(id, 100).expect("client");
        assert_eq!(h.slot_refs(c.slot), 0);
        assert!(!h.has_unacked(id));
    }

    #[test]
    fn a_full_queue_drops_its_oldest_frame() {
        let mut h = hub(8, 2, Release::OnWrite);
        let slow = h.add_client().expect("room");
        let fast = h.add_client().expect("room");
        for _ in 0..5 {
            let c = h.claim_slot();
            assert!(c.cut.is_empty());
            h.publish(&c, 10);
            send_all(&mut h, fast);
        }
        // The slow client keeps frames 3 and 4; 0, 1, 2 were dropped.
        assert_eq!(h.pending(slow).expect("frame").frame.seq, 3);
        let s = h.client_counters(slow).expect("client");
        assert_eq!((s.frames_queued, s.frames_dropped), (5, 3));
        assert_eq!(h.client_counters(fast).expect("client").frames_sent, 5);
        assert_eq!(h.counters().frames_dropped, 3);
        // Only the slow client's two frames hold slots.
        let held: u32 = (0..8).map(|s| h.slot_refs(s)).sum();
        assert_eq!(held, 2);
    }

    #[test]
    fn a_client_pinning_the_oldest_slot_is_cut_loose() {
        let mut h = hub(4, 2, Release::OnAck);
        let stuck = h.add_client().expect("room");
        let good = h.add_client().expect("room");
        let mut cut = Vec::new();
        for _ in 0..10 {
            let c = h.claim_slot();
            cut.extend(c.cut.iter().map(|k| k.id));
            h.publish(&c, 10);
            send_all(&mut h, good);
            let pos = h.stream_pos(good).expect("client");
            h.acked(good, pos).expect("client");
            // The stuck client's kernel took three frames (its socket
            // buffer's worth) and never got them acked.
            if h.stream_pos(stuck).is_ok_and(|p| p < 30) {
                let p = h.pending(stuck).expect("frame");
                h.sent(stuck, p.len).expect("client");
            }
        }
        assert_eq!(cut, vec![stuck]);
        assert_eq!(h.counters().clients_cut, 1);
        assert_eq!(h.client_count(), 1);
        assert_eq!(h.client_counters(good).expect("client").frames_sent, 10);
    }

    #[test]
    fn bad_configs_are_refused() {
        for (slots, queue, clients) in [(1, 1, 1), (4, 0, 1), (4, 4, 1), (4, 2, 0)] {
            assert!(Hub::new(HubConfig {
                slots,
                queue_frames: queue,
                max_clients: clients,
                release: Release::OnWrite,
                stall_ns: 0,
            })
            .is_err());
        }
        let mut h = Hub::new(HubConfig {
            slots: 2,
            queue_frames: 1,
            max_clients: 1,
            release: Release::OnWrite,
            stall_ns: 0,
        })
        .expect("config");
        h.add_client().expect("room");
        assert_eq!(h.add_client(), Err(Error::TooManyClients { max: 1 }));
        assert_eq!(h.remove_client(7), Err(Error::NoClient(7)));
    }

    #[test]
    fn a_client_stuck_on_an_old_frame_is_cut_a_pool_behind() {
        let mut h = hub(8, 2, Release::OnAck);
        let stuck = h.add_client().expect("client");
        let fine = h.add_client().expect("client");
        for round in 0..12u64 {
            let c = h.claim_slot();
            assert!(c.cut.is_empty());
            h.publish(&c, 100);
            // The fine client sends and is acked at once; the stuck one
            // took only part of the first frame, then a byte a round (so
            // it is never stalled, only behind).
            send_all(&mut h, fine);
            let pos = h.stream_pos(fine).expect("pos");
            h.acked(fine, pos).expect("ack");
            h.pending(stuck);
            h.sent(stuck, if round == 0 { 10 } else { 1 })
                .expect("sent");
            let cut = h.cut_slow(round * 1_000_000);
            if round < 8 {
                assert!(cut.is_empty(), "round {round}");
            } else {
                assert_eq!(cut.len(), 1, "round {round}");
                assert_eq!(cut[0].id, stuck);
                assert_eq!(cut[0].reason, CutReason::Behind);
                assert_eq!(cut[0].counters.bytes_sent, 10 + round);
                break;
            }
        }
        assert_eq!(h.client_ids().collect::<Vec<_>>(), vec![fine]);
        assert_eq!(h.counters().clients_cut, 1);
        // Every slot the stuck client held was released.
        let refs: u32 = (0..8).map(|s| h.slot_refs(s)).sum();
        assert_eq!(refs, 0);
    }

    #[test]
    fn a_client_without_progress_is_cut_after_the_stall_time_whatever_it_holds() {
        for release in [Release::OnWrite, Release::OnAck] {
            let mut h = Hub::new(HubConfig {
                slots: 32,
                queue_frames: 4,
                max_clients: 4,
                release,
                stall_ns: 3_000,
            })
            .expect("config");
            let never_reads = h.add_client().expect("client");
            let fine = h.add_client().expect("client");
            let idle = h.add_client().expect("client");
            let mut cut = Vec::new();
            // One frame per 100 ns; the non-reader's socket took 50 bytes
            // of the first frame and then nothing.
            for t in (0..5_000u64).step_by(100) {
                let c = h.claim_slot();
                assert!(c.cut.is_empty());
                if t < 1_000 {
                    h.publish(&c, 100);
                }
                send_all(&mut h, fine);
                let pos = h.stream_pos(fine).expect("pos");
                h.acked(fine, pos).expect("ack");
                if t == 0 {
                    h.pending(never_reads);
                    h.sent(never_reads, 50).expect("sent");
                }
                // The idle client reads everything, then frames stop:
                // having nothing to send is no stall.
                send_all(&mut h, idle);
                let pos = h.stream_pos(idle).expect("pos");
                h.acked(idle, pos).expect("ack");
                for k in h.cut_slow(t) {
                    cut.push((t, k));
                }
            }
            assert_eq!(cut.len(), 1, "{release:?}: {cut:?}");
            let (t, k) = cut[0];
            assert_eq!((k.id, k.reason), (never_reads, CutReason::Stalled));
            assert_eq!(t, 3_000, "{release:?}");
            assert_eq!(k.counters.bytes_sent, 50);
            assert_eq!(h.client_count(), 2);
        }
    }

    proptest! {
        /// Whatever clients do, references never exceed what the queues,
        /// sends in progress and unacknowledged frames account for, and a
        /// client that keeps up gets every frame published while connected.
        #[test]
        fn references_balance(ops in proptest::collection::vec((0u8..6, 0usize..4, 1usize..200), 1..300),
                              on_ack: bool) {
            let release = if on_ack { Release::OnAck } else { Release::OnWrite };
            let mut h = hub(6, 3, release);
            let keeper = h.add_client().expect("room");
            let mut ids = vec![keeper];
            let mut published = 0u64;
            for (op, who, n) in ops {
                let id = ids[who % ids.len()];
                match op {
                    0 => { let c = h.claim_slot();
                           prop_assert!(c.cut.iter().all(|k| k.id != keeper));
                           ids.retain(|i| !c.cut.iter().any(|k| k.id == *i));
                           h.publish(&c, 200); published += 1;
                           send_all(&mut h, keeper);
                           let p = h.stream_pos(keeper).expect("keeper");
                           h.acked(keeper, p).expect("keeper"); }
                    1 => { if let Some(p) = h.pending(id) { let _ = h.sent(id, n.min(p.len)); } }
                    2 => { if let Ok(p) = h.stream_pos(id) { let _ = h.acked(id, p.saturating_sub(n as u64)); } }
                    3 if ids.len() < 5 => { if let Ok(i) = h.add_client() { ids.push(i); } }
                    4 if id != keeper => { let _ = h.remove_client(id); ids.retain(|&i| i != id); }
                    _ => {}
                }
                let total: u32 = (0..6).map(|s| h.slot_refs(s)).sum();
                let expected: usize = h.clients.iter().map(|c| c.queue.len() + usize::from(c.current.is_some()) + c.unacked.len()).sum();
                prop_assert_eq!(total as usize, expected);
            }
            let k = h.client_counters(keeper).expect("keeper");
            prop_assert_eq!(k.frames_sent, published);
            prop_assert_eq!(k.frames_dropped, 0);
        }
    }
}
