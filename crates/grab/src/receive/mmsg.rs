//! The `mmsg` backend: one `recvmmsg` per batch, each datagram scattered so
//! its GVSP header lands in a side buffer and its payload straight in the
//! frame buffer, at the place the assembler predicts from the packet ids
//! seen so far ([`Assembler::guess_slots`]). In-order packets are copied once,
//! by the kernel; a wrong guess (loss, reordering, a resend, a leader or
//! trailer) costs one extra copy through a staging buffer.
//!
//! After each `recvmmsg` the batch is reconciled in two passes: first every
//! datagram that missed its guess is copied out to its own staging buffer,
//! then all are handed to the assembler in arrival order. Copying the misses
//! out first matters: a miss landed in a slot another datagram of the same
//! batch may belong in, and must leave before that one is written there.

use std::net::Ipv4Addr;
use std::time::Duration;

use linerate_gev::assembler::{Assembler, SlotGuess};
use linerate_io::memory::Region;
use linerate_io::scatter::{enable_udp_gro, ScatterBatch};
use linerate_wire::gvsp::{Packet, PacketFormat, EXTENDED_HEADER_LEN};

use super::guess::{header_confirms, header_len};
use super::socket::StreamSocket;
use super::train::TrainPath;
use super::{ReceiveConfig, ReceiveStats};
use crate::clock::now_ns;
use crate::error::Result;

/// Where datagram `i` of a batch was told to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// Whole datagram into `staging[i]`.
    Staging,
    /// Header into `heads[i]`, payload into the guessed slot (the region
    /// the assembler lent for it), excess into `overflow[i]`.
    Guess(SlotGuess, Region),
}

/// Largest receive: a UDP GRO train (the UDP payload limit, rounded up).
const MAX_RECEIVE: usize = 65_536;
/// Single-packet receives in a row after which train mode is left.
const TRAIN_MODE_EXIT: u32 = 64;

/// What the first pass decided for datagram `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Drop it (foreign source, truncated).
    Skip,
    /// Its payload sits in the guessed slot: `data_len` bytes.
    Placed { data_len: usize },
    /// Contiguous copy of `len` bytes in `staging[i]`.
    Staged { len: usize },
    /// A coalesced train of `len` bytes in `staging[i]`, packets of `segment` bytes.
    Train { len: usize, segment: usize },
}

/// See the module docs.
#[derive(Debug)]
pub struct MmsgReceiver {
    socket: StreamSocket,
    source: Ipv4Addr,
    batch: ScatterBatch,
    guesses: Vec<Option<SlotGuess>>,
    targets: Vec<Target>,
    outcomes: Vec<Outcome>,
    heads: Box<[[u8; EXTENDED_HEADER_LEN]]>,
    staging: Box<[Box<[u8]>]>,
    overflow: Box<[Box<[u8]>]>,
    stats: ReceiveStats,
    /// Train mode's state, allocated the first time trains are seen.
    train: Option<TrainPath>,
    /// Set while the device coalesces: one train per receive.
    train_mode: bool,
    gro: bool,
}

impl MmsgReceiver {
    /// Binds the stream socket and allocates the batch's buffers once.
    pub fn open(config: &ReceiveConfig) -> Result<MmsgReceiver> {
        let socket = StreamSocket::open(config)?;
        let gro = config.gro && enable_udp_gro(&socket.endpoint);
        let n = config.batch.clamp(1, linerate_io::udp::MAX_BATCH);
        // With UDP GRO any receive may be a whole train.
        let size = if gro {
            MAX_RECEIVE
        } else {
            super::copy::MAX_DATAGRAM + 1
        };
        let buffers = || {
            (0..n)
                .map(|_| vec![0u8; size].into_boxed_slice())
                .collect::<Vec<_>>()
                .into_boxed_slice()
        };
        Ok(MmsgReceiver {
            source: config.source_ip,
            batch: ScatterBatch::new(n)?,
            guesses: Vec::with_capacity(n),
            targets: Vec::with_capacity(n),
            outcomes: Vec::with_capacity(n),
            heads: vec![[0u8; EXTENDED_HEADER_LEN]; n].into_boxed_slice(),
            staging: buffers(),
            overflow: buffers(),
            stats: ReceiveStats {
                recv_buffer: socket.granted,
                ..ReceiveStats::default()
            },
            train: None,
            train_mode: false,
            gro,
            socket,
        })
    }

    /// Local port.
    pub fn port(&self) -> u16 {
        self.socket.port
    }

    /// One `recvmmsg` (waiting up to `timeout` for the first datagram),
    /// then reconciliation; returns datagrams taken.
    pub fn receive(
        &mut self,
        assembler: &mut Assembler,
        timeout: Duration,
        refill: &mut dyn FnMut(&mut Assembler),
    ) -> Result<usize> {
        if let Some(train) = self.train.as_mut().filter(|_| self.train_mode) {
            let n = train.receive(
                &mut self.socket,
                &mut self.stats,
                assembler,
                timeout,
                refill,
            )?;
            if train.singles >= TRAIN_MODE_EXIT {
                self.train_mode = false;
            }
            return Ok(n);
        }
        self.socket.set_timeout(timeout)?;
        let cap = self.batch.capacity();
        let guessed = assembler.guess_slots(&mut self.guesses, cap);
        // Ask for as many datagrams as were predicted: past the
        // prediction they would all be copies.
        let count = if guessed == 0 { cap.min(8) } else { guessed };
        self.targets.clear();
        for i in 0..count {
            let slot = match self.guesses.get(i) {
                Some(Some(g)) => assembler.slot_mut(g).map(|s| (*g, Region::of(s))),
                _ => None,
            };
            let target = slot.map_or(Target::Staging, |(g, r)| Target::Guess(g, r));
            self.targets.push(target);
            self.point(i, target);
        }
        let got = self.batch.recv(&self.socket.endpoint, count)?;
        if got == 0 {
            return Ok(0);
        }
        // Adding free buffers moves no frame buffer: the guesses stay valid.
        refill(assembler);
        self.stats.syscalls += 1;
        self.stats.datagrams += got as u64;
        // Pass 1: classify, and copy every miss out of the frame buffer.
        self.outcomes.clear();
        for i in 0..got {
            let outcome = self.classify(i);
            self.outcomes.push(outcome);
        }
        // Pass 2: hand everything to the assembler in arrival order.
        for i in 0..got {
            let now = now_ns();
            let (Some(&outcome), Some(&target)) = (self.outcomes.get(i), self.targets.get(i))
            else {
                break;
            };
            match (outcome, target) {
                (Outcome::Skip, _) => {}
                (Outcome::Placed { data_len }, Target::Guess(g, slot)) => {
                    self.settle_placed(assembler, i, (&g, slot), data_len, now);
                }
                (Outcome::Placed { .. }, Target::Staging) => {}
                (Outcome::Staged { len }, _) => {
                    let key = self.staging.get(i).and_then(|s| payload_key(s.get(..len)?));
                    self.settle_later_copy_first(assembler, i, key, now);
                    self.feed_staged(assembler, i, len, now);
                }
                (Outcome::Train { len, segment }, _) => {
                    for start in (0..len).step_by(segment.max(1)) {
                        let end = (start + segment).min(len);
                        let key = self
                            .staging
                            .get(i)
                            .and_then(|s| payload_key(s.get(start..end)?));
                        self.settle_later_copy_first(assembler, i, key, now);
                        if let Some(d) = self.staging.get(i).and_then(|s| s.get(start..end)) {
                            self.stats.copied += 1;
                            assembler.handle_packet(d, now);
                        }
                    }
                }
            }
        }
        // The device coalesces: take whole trains from now on.
        if self.gro
            && self
                .outcomes
                .iter()
                .any(|o| matches!(o, Outcome::Train { .. }))
        {
            if self.train.is_none() {
                self.train = Some(TrainPath::new(self.source)?);
            }
            if let Some(t) = self.train.as_mut() {
                t.singles = 0;
            }
            self.train_mode = true;
        }
        Ok(got)
    }

    /// Counters so far.
    pub fn stats(&mut self) -> ReceiveStats {
        self.stats.kernel_drops = self.socket.drops();
        self.stats
    }

    fn point(&mut self, i: usize, target: Target) {
        let (Some(head), Some(staging), Some(overflow)) = (
            self.heads.get_mut(i),
            self.staging.get_mut(i),
            self.overflow.get_mut(i),
        ) else {
            return;
        };
        // staging[i], heads[i] and overflow[i] are boxes of self, never
        // resized and untouched until recv returns; the slot is an
        // unreceived range of a frame buffer the assembler keeps in place
        // until its next call (SlotGuess's contract).
        match target {
            Target::Staging => self.batch.set(i, &[Region::of(staging)]),
            Target::Guess(g, slot) => self.batch.set(
                i,
                &[
                    Region::of(&mut head[..header_len(&g)]),
                    slot,
                    Region::of(overflow),
                ],
            ),
        }
    }

    fn classify(&mut self, i: usize) -> Outcome {
        let meta = self.batch.meta(i);
        if *meta.source.ip() != self.source {
            self.stats.foreign += 1;
            return Outcome::Skip;
        }
        if meta.truncated || meta.len > MAX_RECEIVE {
            self.stats.truncated += 1;
            return Outcome::Skip;
        }
        if let Some(segment) = self.batch.segment(i) {
            self.stats.trains += 1;
            self.stats.datagrams += (meta.len.div_ceil(segment) - 1) as u64;
            let len = match self.targets.get(i).copied() {
                Some(Target::Guess(g, slot)) => self.stage_guessed(i, (&g, slot), meta.len),
                _ => meta.len,
            };
            return Outcome::Train { len, segment };
        }
        match self.targets.get(i).copied() {
            Some(Target::Guess(g, slot)) => {
                let hl = header_len(&g);
                let data_len = meta.len.saturating_sub(hl);
                let hit = meta.len > hl
                    && data_len <= g.len
                    && self
                        .heads
                        .get(i)
                        .is_some_and(|h| header_confirms(&h[..hl], &g));
                if hit {
                    Outcome::Placed { data_len }
                } else {
                    Outcome::Staged {
                        len: self.stage_guessed(i, (&g, slot), meta.len),
                    }
                }
            }
            Some(Target::Staging) => Outcome::Staged { len: meta.len },
            None => Outcome::Skip,
        }
    }

    /// Rebuilds datagram `i` (received split over header, slot and
    /// overflow) contiguously in `staging[i]`; returns its length.
    fn stage_guessed(&mut self, i: usize, (g, slot): (&SlotGuess, Region), len: usize) -> usize {
        let hl = header_len(g);
        let (Some(head), Some(staging), Some(overflow)) = (
            self.heads.get(i),
            self.staging.get_mut(i),
            self.overflow.get(i),
        ) else {
            return 0;
        };
        let head_part = len.min(hl);
        let slot_part = len.saturating_sub(hl).min(g.len);
        let over_part = len.saturating_sub(hl + g.len).min(overflow.len());
        let total = head_part + slot_part + over_part;
        if total > staging.len() {
            return 0;
        }
        staging[..head_part].copy_from_slice(&head[..head_part]);
        // The kernel wrote `slot_part` bytes at the slot, which stays lent
        // (SlotGuess's contract).
        slot.copy_to(&mut staging[head_part..head_part + slot_part]);
        staging[head_part + slot_part..total].copy_from_slice(&overflow[..over_part]);
        self.stats.copied += 1;
        total
    }

    /// Records datagram `i`, which the kernel wrote into the slot of `g`.
    fn settle_placed(
        &mut self,
        assembler: &mut Assembler,
        i: usize,
        (g, slot): (&SlotGuess, Region),
        data_len: usize,
        now: u64,
    ) {
        let head = self.heads.get(i).map(|h| &h[..header_len(g)]);
        let placed = head.and_then(|h| assembler.handle_placed_payload(g, h, data_len, now));
        if placed.is_some() {
            self.stats.placed_in_frame += 1;
        } else {
            // The layout moved under it: copy as a miss.
            let len = self.stage_guessed(i, (g, slot), header_len(g) + data_len);
            self.feed_staged(assembler, i, len, now);
        }
    }

    /// Before a copied datagram of payload packet `key` (from position `i`
    /// of the batch) is placed, records any later datagram of the batch
    /// that the kernel already wrote into that packet's slot: placing the
    /// copy first would overwrite those bytes unseen, and the assembler
    /// could not compare the two (a forged copy and the camera's must be
    /// told apart as a conflict). Rare: it takes the same packet twice in
    /// one batch.
    fn settle_later_copy_first(
        &mut self,
        assembler: &mut Assembler,
        i: usize,
        key: Option<(bool, u64, u32)>,
        now: u64,
    ) {
        let Some((extended, block_id, packet_id)) = key else {
            return;
        };
        let later = (i + 1..self.outcomes.len()).find(|&j| {
            matches!(self.outcomes.get(j), Some(Outcome::Placed { .. }))
                && matches!(self.targets.get(j), Some(Target::Guess(g, _))
                    if g.extended == extended && g.block_id == block_id && g.packet_id == packet_id)
        });
        let Some(j) = later else {
            return;
        };
        if let (Some(&Outcome::Placed { data_len }), Some(&Target::Guess(g, slot))) =
            (self.outcomes.get(j), self.targets.get(j))
        {
            self.settle_placed(assembler, j, (&g, slot), data_len, now);
        }
        if let Some(o) = self.outcomes.get_mut(j) {
            *o = Outcome::Skip;
        }
    }

    fn feed_staged(&mut self, assembler: &mut Assembler, i: usize, len: usize, now: u64) {
        if let Some(d) = self.staging.get(i).and_then(|s| s.get(..len)) {
            if !matches!(self.targets.get(i), Some(Target::Guess(..))) {
                self.stats.copied += 1;
            }
            assembler.handle_packet(d, now);
        }
    }
}

/// (extended, block id, packet id) of a GVSP payload packet.
fn payload_key(datagram: &[u8]) -> Option<(bool, u64, u32)> {
    let p = Packet::new_checked(datagram).ok()?;
    (PacketFormat::from_code(p.format_code()) == Ok(PacketFormat::Payload))
        .then(|| (p.is_extended(), p.block_id(), p.packet_id()))
}
