//! The host's frame assembler and resend planner against a simulated camera
//! (the camera's own resend buffer, `FrameRing`, answering every request),
//! over a simulated link that loses chosen datagrams, with a clock that
//! moves only from event to event. Loss is injected where it happens in
//! life: on the camera's output (a send that fails and loses the rest of a
//! frame), on the host's input (random and in bursts), and on the resend
//! requests and their answers.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use linerate_gev::assembler::{Assembler, Config, FrameStatus, ResendRequest};
use linerate_gev::block_plan::BlockPlan;
use linerate_gev::frame_ring::{FrameRing, ResendItem};
use linerate_wire::gvsp::{HeaderRepr, PacketFormat, PayloadType, TrailerRepr};
use linerate_wire::gvsp::{LeaderInfo, LeaderRepr};
use linerate_wire::Status;

const US: u64 = 1_000;
const MS: u64 = 1_000_000;
/// Data bytes per payload packet.
const DPP: usize = 1000;
/// 130 payload packets per frame (132 with leader and trailer), like a
/// 1 MiB frame in 8000-byte packets.
const FRAME_LEN: usize = 130 * DPP;
/// 100 frames per second.
const PERIOD: u64 = 10 * MS;
/// Time between two packets on the wire (8000-byte packets at ~10 Gbit/s).
const PACKET_GAP: u64 = 6 * US;
/// One-way latency of the link.
const LATENCY: u64 = 50 * US;

/// One datagram as the loss model sees it.
#[derive(Debug, Clone, Copy)]
enum Datagram {
    /// A stream packet from the camera: resent or first transmission, and
    /// how many stream packets the camera sent before it.
    Stream { resent: bool, sequence: u64 },
    /// A resend request from the host, and how many requests came before it
    /// for the same block.
    Request { block_id: u64, nth_for_block: u32 },
}

/// Decides per datagram whether the link loses it.
trait Loss {
    fn drops(&mut self, d: Datagram) -> bool;
}

impl<F: FnMut(Datagram) -> bool> Loss for F {
    fn drops(&mut self, d: Datagram) -> bool {
        self(d)
    }
}

/// xorshift64*: a fixed, seeded stream of random numbers, so every run of a
/// test loses exactly the same packets.
struct Rng(u64);

impl Rng {
    fn per_mille(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % 1000
    }
}

enum Event {
    ToHost(Vec<u8>),
    ToCamera(ResendRequest),
}

/// What a run produced.
struct Outcome {
    complete: usize,
    incomplete: Vec<(u64, FrameStatus, usize)>,
    requests: u64,
    /// Packet ids asked for, over all requests.
    requested_packets: u64,
}

/// Frame `block_id`'s bytes: every byte differs from its neighbours and
/// from the same byte of the previous frame.
fn content(block_id: u64) -> Vec<u8> {
    let mut v: Vec<u8> = (0..=250u8).cycle().take(FRAME_LEN).collect();
    v.rotate_left(block_id as usize % 251);
    v
}

fn plan(block_id: u64) -> BlockPlan {
    BlockPlan::with_data_per_packet(
        block_id,
        false,
        DPP,
        FRAME_LEN,
        LeaderRepr {
            flags: 0,
            payload_type: PayloadType::RAW_DATA,
            timestamp: block_id,
            info: LeaderInfo::RawData {
                payload_size: FRAME_LEN as u64,
            },
        },
        TrailerRepr {
            payload_type: PayloadType::RAW_DATA,
            size_y: None,
            chunk_payload_length: None,
            chunk_layout_id: None,
        },
    )
    .expect("plans")
}

fn packet(p: &BlockPlan, data: &[u8], id: u32, status: Status) -> Vec<u8> {
    let mut head = [0u8; 128];
    let (n, range) = p.write_head(id, status, &mut head).expect("head");
    let mut v = head[..n].to_vec();
    v.extend_from_slice(&data[range]);
    v
}

fn error_packet(block_id: u64, packet_id: u32, status: Status) -> Vec<u8> {
    let mut v = vec![0u8; 8];
    HeaderRepr {
        status,
        block_id,
        packet_id,
        format: PacketFormat::Payload,
        extended: false,
        flags: 0,
    }
    .emit(&mut v)
    .expect("emits");
    v
}

/// The link and both ends, driven by one event queue.
struct Sim<'a> {
    now: u64,
    seq: u64,
    queue: BinaryHeap<Reverse<(u64, u64)>>,
    events: Vec<Option<Event>>,
    ring: FrameRing,
    /// The camera is busy sending until then; a resend waits for it.
    camera_free_at: u64,
    stream_sent: u64,
    requests_for: Vec<u32>,
    loss: &'a mut dyn Loss,
    /// The camera's first transmission of a frame stops after this packet
    /// id (a send error that loses the rest of the frame).
    send_fails: &'a dyn Fn(u64) -> Option<u32>,
}

impl Sim<'_> {
    fn schedule(&mut self, at: u64, e: Event) {
        self.events.push(Some(e));
        self.queue.push(Reverse((at, self.seq)));
        self.seq += 1;
    }

    /// The camera sends `ids` of `block_id` one packet gap apart from `start`.
    fn send(&mut self, block_id: u64, ids: &[u32], status: Status, start: u64) {
        let Some((p, data)) = self.ring.get(block_id) else {
            return;
        };
        let packets: Vec<Vec<u8>> = ids.iter().map(|&id| packet(p, data, id, status)).collect();
        let mut at = start;
        for bytes in packets {
            let d = Datagram::Stream {
                resent: status == Status::PACKET_RESEND,
                sequence: self.stream_sent,
            };
            self.stream_sent += 1;
            if !self.loss.drops(d) {
                self.schedule(at + LATENCY, Event::ToHost(bytes));
            }
            at += PACKET_GAP;
        }
        self.camera_free_at = at;
    }

    fn start_frame(&mut self, block_id: u64) {
        let data = content(block_id);
        let (slot, mem) = self.ring.claim(FRAME_LEN);
        mem.copy_from_slice(&data);
        let p = plan(block_id);
        let count = p.packet_count();
        self.ring.commit(slot, p);
        let last = (self.send_fails)(block_id).unwrap_or(count - 1);
        let ids: Vec<u32> = (0..=last.min(count - 1)).collect();
        let start = self.now.max(self.camera_free_at);
        self.send(block_id, &ids, Status::SUCCESS, start);
    }

    fn answer(&mut self, r: ResendRequest) {
        let items = self
            .ring
            .plan_resend(r.block_id, r.first_packet_id, r.last_packet_id);
        let mut ids = Vec::new();
        let start = self.now.max(self.camera_free_at);
        for item in items {
            match item {
                ResendItem::Packet { packet_id } => ids.push(packet_id),
                ResendItem::Error { packet_id, status } => {
                    let e = error_packet(r.block_id, packet_id, status);
                    self.schedule(start + LATENCY, Event::ToHost(e));
                }
            }
        }
        self.send(r.block_id, &ids, Status::PACKET_RESEND, start);
    }
}

/// Streams `frames` frames through the link and the assembler; returns
/// what was delivered. Every complete frame is checked byte for byte.
fn run(frames: u64, loss: &mut dyn Loss, send_fails: &dyn Fn(u64) -> Option<u32>) -> Outcome {
    let mut config = Config::new(FRAME_LEN);
    config.min_data_per_packet = 16;
    let mut host = Assembler::new(config).expect("config");
    let mut sim = Sim {
        now: 0,
        seq: 0,
        queue: BinaryHeap::new(),
        events: Vec::new(),
        ring: FrameRing::new(4),
        camera_free_at: 0,
        stream_sent: 0,
        requests_for: vec![0; frames as usize + 2],
        loss,
        send_fails,
    };
    let mut out = Outcome {
        complete: 0,
        incomplete: Vec::new(),
        requests: 0,
        requested_packets: 0,
    };
    let mut next_frame = 1u64;
    let end = frames * PERIOD + 200 * MS;
    while sim.now < end {
        let frame_at = (next_frame <= frames).then(|| (next_frame - 1) * PERIOD);
        let event_at = sim.queue.peek().map(|Reverse((t, _))| *t);
        let wake = host.poll_timeout();
        let Some(t) = [frame_at, event_at, wake].into_iter().flatten().min() else {
            break;
        };
        sim.now = t.max(sim.now);
        if frame_at == Some(t) {
            sim.start_frame(next_frame);
            next_frame += 1;
        } else if event_at == Some(t) {
            let Some(Reverse((_, i))) = sim.queue.pop() else {
                break;
            };
            match sim.events.get_mut(i as usize).and_then(Option::take) {
                Some(Event::ToHost(d)) => {
                    host.handle_packet(&d, sim.now);
                }
                Some(Event::ToCamera(r)) => sim.answer(r),
                None => {}
            }
        }
        while let Some(r) = host.poll_transmit(sim.now) {
            out.requests += 1;
            out.requested_packets += u64::from(r.last_packet_id - r.first_packet_id) + 1;
            let nth = sim
                .requests_for
                .get_mut(r.block_id as usize)
                .map(|n| {
                    *n += 1;
                    *n - 1
                })
                .unwrap_or(0);
            let d = Datagram::Request {
                block_id: r.block_id,
                nth_for_block: nth,
            };
            if !sim.loss.drops(d) {
                sim.schedule(sim.now + LATENCY, Event::ToCamera(r));
            }
        }
        while let Some(f) = host.poll_frame() {
            if f.is_complete() {
                assert_eq!(f.data(), &content(f.block_id)[..], "block {}", f.block_id);
                out.complete += 1;
            } else {
                out.incomplete.push((f.block_id, f.status, f.missing.len()));
            }
            host.recycle(f);
        }
    }
    host.flush();
    while let Some(f) = host.poll_frame() {
        out.incomplete.push((f.block_id, f.status, f.missing.len()));
    }
    out
}

fn never_fails(_: u64) -> Option<u32> {
    None
}

#[test]
fn two_percent_random_loss_on_every_datagram_completes_every_frame() {
    // Stream packets, resent packets and resend requests alike: 2% each.
    for seed in 1..=4u64 {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed);
        let mut loss = |_: Datagram| rng.per_mille() < 20;
        let out = run(50, &mut loss, &never_fails);
        assert_eq!(out.complete, 50, "seed {seed}: {:?}", out.incomplete);
        assert!(out.requests > 0);
    }
}

#[test]
fn a_frame_whose_send_failed_is_recovered_even_when_the_tail_request_is_lost() {
    // The camera's send fails part-way (as an nftables drop at its output
    // hook makes sendmmsg fail) and the rest of the frame never goes out;
    // the host's first request for the tail is lost as well, and 2% of
    // everything else. Measured on the bench: blocks that lost their last
    // 95 and 129 packets this way ran out of a one-frame request budget.
    let fails = |block_id: u64| match block_id {
        5 => Some(38),
        9 => Some(4),
        // The last frame: no next frame reveals its tail.
        20 => Some(70),
        _ => None,
    };
    for seed in 1..=5u64 {
        let mut rng = Rng(0x5851_f42d_4c95_7f2d ^ seed);
        let mut loss = |d: Datagram| match d {
            Datagram::Request {
                block_id: 5 | 9 | 20,
                nth_for_block: 0,
            } => true,
            _ => rng.per_mille() < 20,
        };
        let out = run(20, &mut loss, &fails);
        assert_eq!(out.complete, 20, "seed {seed}: {:?}", out.incomplete);
    }
}

#[test]
fn a_burst_of_fifty_lost_packets_and_a_lost_answer_are_recovered() {
    // 50 consecutive stream packets lost at the host's input (a receive
    // ring overflowing) every 700 packets, and the first two answers (the
    // first 100 resent packets: the same overflow again) lost too.
    let mut answer_drops_left = 100u32;
    let mut loss = |d: Datagram| match d {
        Datagram::Stream {
            sequence,
            resent: false,
            ..
        } => sequence % 700 >= 300 && sequence % 700 < 350,
        Datagram::Stream { resent: true, .. } if answer_drops_left > 0 => {
            answer_drops_left -= 1;
            true
        }
        _ => false,
    };
    let out = run(30, &mut loss, &never_fails);
    assert_eq!(out.complete, 30, "{:?}", out.incomplete);
    assert_eq!(answer_drops_left, 0, "the first two answers were lost");
}

#[test]
fn a_camera_that_never_answers_is_not_flooded() {
    // Every frame loses its tail and no request is ever answered: the
    // planner gives up within its budget of unanswered ids per frame.
    let fails = |_: u64| Some(60);
    let mut loss = |d: Datagram| matches!(d, Datagram::Request { .. });
    let out = run(10, &mut loss, &fails);
    assert_eq!(out.complete, 0);
    assert_eq!(out.incomplete.len(), 10);
    // At most two frames' worth (132 packets each) per frame, though the
    // retention would allow some 20 repeats of the 72 missing ids.
    assert!(out.requested_packets > 72 * 10, "asked again");
    assert!(
        out.requested_packets <= 2 * 132 * 10,
        "{} packets requested",
        out.requested_packets
    );
}
