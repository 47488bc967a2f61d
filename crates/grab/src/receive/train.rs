//! Train mode of the `mmsg` backend, for hosts whose network device
//! coalesces a camera's packets (GRO) and a socket with UDP GRO on. One
//! `recvmsg` takes a train of up to 64 KiB of same-size GVSP packets, and its
//! regions are laid out as (header, payload slot) pairs predicted by the
//! assembler, so each packet of the train lands in its own place in the
//! frame: one copy, and one trip through the kernel's UDP receive path per
//! train instead of per packet.
//!
//! A train is checked packet by packet after the call. If any packet missed
//! its prediction, the whole train is first copied out contiguously to a
//! staging buffer (a miss may sit in a slot another packet belongs in), then
//! everything is handed to the assembler in order; confirmed packets are
//! recorded without copying. Without device GRO every train would be one
//! packet, so the backend leaves train mode when trains stop coming.

use std::net::Ipv4Addr;
use std::time::Duration;

use linerate_gev::assembler::{Assembler, SlotGuess};
use linerate_io::memory::Region;
use linerate_io::scatter::ScatterMsg;
use linerate_wire::gvsp::EXTENDED_HEADER_LEN;

use super::guess::{header_confirms, header_len};
use super::socket::StreamSocket;
use super::ReceiveStats;
use crate::clock::now_ns;
use crate::error::Result;

/// Most packets of one train laid out in frame slots.
const MAX_SEGMENTS: usize = 64;
/// Largest train (the UDP payload limit, rounded up).
const TRAIN: usize = 65_536;
/// Trains taken per call before the caller gets to send resends and deliver frames.
const TRAINS_PER_CALL: usize = 64;

/// See the module docs.
#[derive(Debug)]
pub(super) struct TrainPath {
    source: Ipv4Addr,
    msg: ScatterMsg,
    guesses: Vec<Option<SlotGuess>>,
    planned: Vec<SlotGuess>,
    /// The regions of the last receive, in order: (header, slot) pairs,
    /// then the overflow or staging buffer.
    parts: Vec<Region>,
    heads: Box<[[u8; EXTENDED_HEADER_LEN]]>,
    overflow: Box<[u8]>,
    staging: Box<[u8]>,
    /// Consecutive receives that returned a single packet.
    pub singles: u32,
}

impl TrainPath {
    pub fn new(source: Ipv4Addr) -> Result<TrainPath> {
        Ok(TrainPath {
            source,
            msg: ScatterMsg::new(2 * MAX_SEGMENTS + 1)?,
            guesses: Vec::with_capacity(MAX_SEGMENTS),
            planned: Vec::with_capacity(MAX_SEGMENTS),
            parts: Vec::with_capacity(2 * MAX_SEGMENTS + 1),
            heads: vec![[0u8; EXTENDED_HEADER_LEN]; MAX_SEGMENTS].into_boxed_slice(),
            overflow: vec![0u8; TRAIN].into_boxed_slice(),
            staging: vec![0u8; TRAIN].into_boxed_slice(),
            singles: 0,
        })
    }

    /// Takes trains until none is waiting (the first wait up to `timeout`).
    pub fn receive(
        &mut self,
        socket: &mut StreamSocket,
        stats: &mut ReceiveStats,
        assembler: &mut Assembler,
        timeout: Duration,
        refill: &mut dyn FnMut(&mut Assembler),
    ) -> Result<usize> {
        socket.set_timeout(timeout)?;
        let mut taken = 0;
        for call in 0..TRAINS_PER_CALL {
            let hl = self.lay_out(assembler);
            let Some(meta) = self.msg.recv(&socket.endpoint, call > 0)? else {
                break;
            };
            if call == 0 {
                // Adding free buffers moves no frame buffer: the layout stays valid.
                refill(assembler);
            }
            stats.syscalls += 1;
            if *meta.source.ip() != self.source {
                stats.foreign += 1;
                continue;
            }
            if meta.truncated || meta.len > TRAIN {
                stats.truncated += 1;
                continue;
            }
            let segment = meta.segment.max(1);
            let count = meta.len.div_ceil(segment);
            stats.datagrams += count as u64;
            if count > 1 {
                stats.trains += 1;
                self.singles = 0;
            } else {
                self.singles = self.singles.saturating_add(1);
            }
            taken += count;
            self.settle(stats, assembler, hl, meta.len, segment, count);
        }
        Ok(taken)
    }

    /// Points the message's regions at the predicted slots; returns the
    /// header length they assume (0 when nothing was predicted and the
    /// whole train goes to the staging buffer).
    fn lay_out(&mut self, assembler: &mut Assembler) -> usize {
        assembler.guess_slots(&mut self.guesses, MAX_SEGMENTS);
        self.planned.clear();
        self.parts.clear();
        for g in self.guesses.iter() {
            let Some(g) = g else { break };
            if self.planned.len() >= self.heads.len() {
                break;
            }
            // One train carries one block's packets, all the same size.
            let same = self.planned.first().map_or(true, |f| {
                f.block_id == g.block_id && f.extended == g.extended && f.len >= g.len
            });
            if !same {
                break;
            }
            self.planned.push(*g);
            if self.planned.first().is_some_and(|f| g.len < f.len) {
                break; // a short slot ends a train
            }
        }
        let hl = self.planned.first().map_or(0, header_len);
        // Heads, overflow and staging are boxes of self, never resized; the
        // slots are unreceived ranges of frame buffers the assembler keeps
        // in place until its next call (SlotGuess's contract). Nothing else
        // touches them until `recv` returns.
        let mut kept = 0;
        for (g, h) in self.planned.iter().zip(self.heads.iter_mut()) {
            let Some(slot) = assembler.slot_mut(g) else {
                break;
            };
            self.parts.push(Region::of(&mut h[..hl]));
            self.parts.push(Region::of(slot));
            kept += 1;
        }
        self.planned.truncate(kept);
        let hl = if kept == 0 { 0 } else { hl };
        let tail = if self.planned.is_empty() {
            &mut self.staging
        } else {
            &mut self.overflow
        };
        self.parts.push(Region::of(tail));
        self.msg.set(&self.parts);
        hl
    }

    /// Hands a received train of `count` packets of `segment` bytes
    /// (`len` in total) to the assembler.
    fn settle(
        &mut self,
        stats: &mut ReceiveStats,
        assembler: &mut Assembler,
        hl: usize,
        len: usize,
        segment: usize,
        count: usize,
    ) {
        if self.planned.is_empty() {
            // Everything went to the staging buffer, contiguous.
            for i in 0..count {
                let start = i * segment;
                let end = (start + segment).min(len);
                if let Some(d) = self.staging.get(start..end) {
                    stats.copied += 1;
                    assembler.handle_packet(d, now_ns());
                }
            }
            return;
        }
        let dpp = self.planned.first().map_or(0, |g| g.len);
        let aligned = segment == hl + dpp;
        let mut hit = [false; MAX_SEGMENTS];
        let mut misses = false;
        for (i, h) in hit.iter_mut().enumerate().take(count) {
            let seg_len = segment.min(len - i * segment);
            *h = aligned
                && seg_len > hl
                && self.planned.get(i).is_some_and(|g| {
                    seg_len - hl <= g.len
                        && self
                            .heads
                            .get(i)
                            .is_some_and(|head| header_confirms(&head[..hl], g))
                });
            misses |= !*h;
        }
        misses |= count > MAX_SEGMENTS;
        // Pass 1: with any miss, copy the train out before anything moves.
        let mut staged = false;
        if misses {
            self.stage(len);
            staged = true;
        }
        // Pass 2: in arrival order. After a miss every packet goes through
        // the staging copy: a missed packet placed by copy may overwrite a
        // slot the kernel filled for a later packet of the train (the same
        // packet twice), whose bytes must still be compared with it.
        for i in 0..count {
            let start = i * segment;
            let end = (start + segment).min(len);
            let now = now_ns();
            if !staged && hit.get(i).copied().unwrap_or(false) {
                if let (Some(g), Some(head)) = (self.planned.get(i).copied(), self.heads.get(i)) {
                    if assembler
                        .handle_placed_payload(&g, &head[..hl], end - start - hl, now)
                        .is_some()
                    {
                        stats.placed_in_frame += 1;
                        continue;
                    }
                }
                if !staged {
                    self.stage(len);
                    staged = true;
                }
            }
            if let Some(d) = self.staging.get(start..end) {
                stats.copied += 1;
                assembler.handle_packet(d, now);
            }
        }
    }

    /// Copies the first `len` bytes spread over the regions into the
    /// staging buffer, contiguously.
    fn stage(&mut self, len: usize) {
        let mut done = 0;
        for region in &self.parts {
            if done >= len {
                break;
            }
            let take = region.len().min(len - done);
            let Some(dst) = self.staging.get_mut(done..done + take) else {
                return;
            };
            // One of the regions of the last receive, still lent (its
            // contract, SlotGuess's for frame slots), of which the kernel
            // wrote the first `take` bytes.
            region.copy_to(dst);
            done += take;
        }
    }
}
