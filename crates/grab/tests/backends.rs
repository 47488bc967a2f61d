//! The `copy` and `mmsg` receive backends against real sockets on
//! loopback: frames sent with packets lost, duplicated, reordered and
//! spoofed (from another address, or forged with the camera's own as a
//! conflicting copy) must come out exact when complete, a conflict when
//! forged, and incomplete (with the
//! right missing ranges) otherwise. `mmsg` places data by prediction, so a
//! wrong guess that went unnoticed would show up here as corrupt data.

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::time::Duration;

use linerate_gev::assembler::{Assembler, Config, DeliveredFrame, FrameStatus};
use linerate_grab::receive::{Backend, ReceiveConfig, Receiver};
use linerate_wire::Status;
use proptest::prelude::*;

mod common;

use common::{frame_data, packet, plan, FRAME, PACKET_SIZE};

/// What happens to each packet of a frame on the way.
#[derive(Debug, Clone)]
struct Mangle {
    drop: Vec<bool>,
    duplicate: Vec<bool>,
    swap: Vec<bool>,
    spoof: Vec<bool>,
    /// After the genuine packet, a copy with other bytes from the camera's
    /// own address (a forger with its address): a conflict.
    forge: Vec<bool>,
}

fn mangle() -> impl Strategy<Value = Mangle> {
    let n = 40; // > packets per frame (31 payload + leader + trailer)
    (
        prop::collection::vec(prop::bool::weighted(0.05), n),
        prop::collection::vec(prop::bool::weighted(0.05), n),
        prop::collection::vec(prop::bool::weighted(0.1), n),
        prop::collection::vec(prop::bool::weighted(0.05), n),
        prop::collection::vec(prop::bool::weighted(0.02), n),
    )
        .prop_map(|(drop, duplicate, swap, spoof, forge)| Mangle {
            drop,
            duplicate,
            swap,
            spoof,
            forge,
        })
}

struct Bench {
    receiver: Receiver,
    assembler: Assembler,
    camera: UdpSocket,
    spoofer: UdpSocket,
    to: SocketAddrV4,
    conflicts: usize,
}

impl Bench {
    fn new(backend: Backend) -> Bench {
        // 127.0.0.2 plays the camera; 127.0.0.3 a stranger on the same port.
        let camera = UdpSocket::bind("127.0.0.2:0").expect("camera socket");
        let spoofer = UdpSocket::bind("127.0.0.3:0").expect("spoofer socket");
        let mut rc = ReceiveConfig::new(Ipv4Addr::LOCALHOST, Ipv4Addr::new(127, 0, 0, 2), FRAME);
        rc.backend = backend;
        rc.recv_buffer = 4 << 20;
        let receiver = Receiver::open(&rc).expect("receiver");
        let to = SocketAddrV4::new(Ipv4Addr::LOCALHOST, receiver.port());
        let mut config = Config::new(FRAME);
        config.resend.enabled = false;
        config.buffer_count = 64;
        config.max_frames_in_flight = 2;
        config.data_per_packet = Some(PACKET_SIZE - 28 - 8);
        Bench {
            receiver,
            assembler: Assembler::new(config).expect("assembler"),
            camera,
            spoofer,
            to,
            conflicts: 0,
        }
    }

    fn send_frame(&self, block_id: u64, m: &Mangle) -> Vec<usize> {
        let p = plan(block_id, false);
        let data = frame_data(block_id);
        let mut order: Vec<u32> = (0..p.packet_count()).collect();
        for i in 0..order.len().saturating_sub(1) {
            if m.swap[i] {
                order.swap(i, i + 1);
            }
        }
        let mut dropped = Vec::new();
        for &id in &order {
            let i = id as usize;
            if m.spoof[i] {
                // Same block and id, wrong bytes, wrong source address.
                let mut fake = packet(&p, &data, id, Status::SUCCESS);
                for b in fake.iter_mut().skip(8) {
                    *b = !*b;
                }
                self.spoofer.send_to(&fake, self.to).expect("spoof");
            }
            if m.drop[i] {
                dropped.push(i);
                continue;
            }
            let bytes = packet(&p, &data, id, Status::SUCCESS);
            self.camera.send_to(&bytes, self.to).expect("send");
            if m.duplicate[i] {
                self.camera.send_to(&bytes, self.to).expect("send dup");
            }
            let payload = (1..p.packet_count() as usize - 1).contains(&i);
            if m.forge[i] && payload {
                let mut fake = bytes.clone();
                for b in fake.iter_mut().skip(8) {
                    *b = !*b;
                }
                self.camera.send_to(&fake, self.to).expect("forge");
            }
        }
        dropped
    }

    fn drain(&mut self) -> Vec<DeliveredFrame> {
        let mut refill = |_: &mut Assembler| {};
        while self
            .receiver
            .receive(&mut self.assembler, Duration::from_millis(5), &mut refill)
            .expect("receive")
            > 0
        {}
        let mut out = Vec::new();
        while let Some(f) = self.assembler.poll_frame() {
            out.push(f);
        }
        out
    }
}

impl Bench {
    /// Checks delivered frames, gives their buffers back, and adds them to the tallies.
    fn settle(
        &mut self,
        frames: Vec<DeliveredFrame>,
        dropped: &[Vec<usize>],
        delivered: usize,
        complete: usize,
    ) -> (usize, usize) {
        check(&frames, dropped);
        let n = frames.len();
        let c = frames.iter().filter(|f| f.is_complete()).count();
        self.conflicts += frames
            .iter()
            .filter(|f| f.status == FrameStatus::Conflict)
            .count();
        for f in frames {
            self.assembler.recycle(f);
        }
        (delivered + n, complete + c)
    }
}

fn check(frames: &[DeliveredFrame], dropped: &[Vec<usize>]) {
    for f in frames {
        let k = (f.block_id - 1) as usize;
        let expected = frame_data(f.block_id);
        if f.is_complete() {
            assert_eq!(
                f.data(),
                &expected[..],
                "block {} complete but wrong",
                f.block_id
            );
            // A frame with a dropped payload packet cannot be complete.
            let last_payload = plan(f.block_id, false).packet_count() as usize - 2;
            let lost_payload = dropped[k].iter().any(|&i| (1..=last_payload).contains(&i));
            assert!(!lost_payload, "block {} complete despite loss", f.block_id);
        } else if f.status != FrameStatus::Conflict {
            // Every byte outside the missing ranges is right.
            let mut pos = 0;
            for r in f
                .missing
                .iter()
                .chain(std::iter::once(&(f.data().len()..f.data().len())))
            {
                assert_eq!(
                    &f.data()[pos..r.start],
                    &expected[pos..r.start],
                    "block {} wrong outside its missing ranges",
                    f.block_id
                );
                pos = r.end;
            }
        }
    }
}

/// (complete frames, foreign datagrams, conflict frames).
fn run(backend: Backend, mangles: &[Mangle]) -> (usize, usize, usize) {
    let mut bench = Bench::new(backend);
    let mut dropped = Vec::new();
    let (mut delivered, mut complete) = (0, 0);
    for (k, m) in mangles.iter().enumerate() {
        dropped.push(bench.send_frame(k as u64 + 1, m));
        let frames = bench.drain();
        (delivered, complete) = bench.settle(frames, &dropped, delivered, complete);
    }
    bench.assembler.flush();
    let frames = bench.drain();
    (delivered, complete) = bench.settle(frames, &dropped, delivered, complete);
    assert_eq!(delivered, mangles.len(), "every frame accounted for");
    (
        complete,
        bench.receiver.stats().foreign as usize,
        bench.conflicts,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn mmsg_and_copy_agree_on_mangled_streams(mangles in prop::collection::vec(mangle(), 6)) {
        let (mmsg, mmsg_foreign, mmsg_conflicts) = run(Backend::Mmsg, &mangles);
        let (copy, copy_foreign, copy_conflicts) = run(Backend::Copy, &mangles);
        prop_assert_eq!(mmsg, copy);
        prop_assert_eq!(mmsg_foreign, copy_foreign);
        // Forged copies after the genuine packet: the same conflicts on both.
        prop_assert_eq!(mmsg_conflicts, copy_conflicts);
        let packets = plan(1, false).packet_count() as usize;
        let spoofed: usize = mangles
            .iter()
            .map(|m| m.spoof.iter().take(packets).filter(|&&s| s).count())
            .sum();
        prop_assert_eq!(mmsg_foreign, spoofed);
    }
}

#[test]
fn clean_stream_is_placed_without_copies() {
    let clean = Mangle {
        drop: vec![false; 40],
        duplicate: vec![false; 40],
        swap: vec![false; 40],
        spoof: vec![false; 40],
        forge: vec![false; 40],
    };
    let mut bench = Bench::new(Backend::Mmsg);
    let dropped = vec![Vec::new(); 20];
    let mut complete = 0;
    for k in 0..20u64 {
        bench.send_frame(k + 1, &clean);
        let frames = bench.drain();
        (_, complete) = bench.settle(frames, &dropped, 0, complete);
    }
    assert_eq!(complete, 20);
    let stats = bench.receiver.stats();
    let payload = plan(1, false).packet_count() as u64 - 2;
    // The first frame teaches the layout; from then on every payload
    // packet, across frame boundaries too, lands in place.
    assert!(
        stats.placed_in_frame >= 19 * payload,
        "only {} of {} payload packets placed in the frame: {stats:?}",
        stats.placed_in_frame,
        20 * payload
    );
}

#[test]
fn a_forged_copy_from_the_cameras_address_is_a_conflict_on_every_backend() {
    let mut forge = vec![false; 40];
    forge[5] = true;
    let m = Mangle {
        drop: vec![false; 40],
        duplicate: vec![false; 40],
        swap: vec![false; 40],
        spoof: vec![false; 40],
        forge,
    };
    let clean = Mangle {
        forge: vec![false; 40],
        ..m.clone()
    };
    for backend in [Backend::Mmsg, Backend::Copy] {
        // A clean frame teaches mmsg the layout; the forged copy of the
        // next frame's packet 5 then arrives while it is placed in place.
        let (complete, foreign, conflicts) =
            run(backend, &[clean.clone(), m.clone(), clean.clone()]);
        assert_eq!((complete, foreign, conflicts), (2, 0, 1), "{backend:?}");
    }
}
