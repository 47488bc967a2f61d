//! The TCP transport's receiver against a real TCP connection on
//! loopback: records written in arbitrary pieces (so reads end anywhere,
//! mid-header or mid-data) must come out as exact frames, mostly placed by
//! prediction; a connection cut mid-frame must yield that frame incomplete
//! with its missing ranges, and a new connection must start over; a broken
//! framing must end the stream with an error, never a panic.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddrV4, TcpStream};
use std::time::{Duration, Instant};

use linerate_gev::assembler::{Assembler, Config, DeliveredFrame};
use linerate_gev::block_plan::BlockPlan;
use linerate_grab::clock::now_ns;
use linerate_grab::receive::{ReceiveConfig, Receiver, Transport};
use linerate_wire::gvsp::{
    ImageInfo, LeaderInfo, LeaderRepr, PayloadType, TrailerRepr, EXTENDED_HEADER_LEN,
    IP_UDP_OVERHEAD, STANDARD_HEADER_LEN,
};
use linerate_wire::gvsp_tcp::frame_gvsp;
use linerate_wire::{PixelFormat, Status};
use proptest::prelude::*;

/// A test stream: frames of `frame` bytes cut into `transfer`-byte records.
#[derive(Debug, Clone, Copy)]
struct Shape {
    frame: usize,
    transfer: usize,
    extended: bool,
}

fn plan(s: Shape, block_id: u64) -> BlockPlan {
    let width = 1000u32;
    let height = (s.frame / width as usize) as u32;
    let leader = LeaderRepr {
        flags: 0,
        payload_type: PayloadType::IMAGE,
        timestamp: block_id,
        info: LeaderInfo::Image(ImageInfo {
            pixel_format: PixelFormat::MONO8,
            width,
            height,
            ..ImageInfo::default()
        }),
    };
    let header = if s.extended {
        EXTENDED_HEADER_LEN
    } else {
        STANDARD_HEADER_LEN
    };
    // BlockPlan counts UDP's headers in the packet size; TCP has none.
    BlockPlan::new(
        block_id,
        s.extended,
        s.transfer + IP_UDP_OVERHEAD + header,
        s.frame,
        leader,
        TrailerRepr::image(height),
    )
    .expect("plan")
}

fn frame_data(s: Shape, block_id: u64) -> Vec<u8> {
    (0..s.frame)
        .map(|i| (i as u64).wrapping_mul(31).wrapping_add(block_id * 7) as u8)
        .collect()
}

/// The whole byte stream of frame `block_id`.
fn frame_bytes(s: Shape, block_id: u64) -> Vec<u8> {
    let p = plan(s, block_id);
    let data = frame_data(s, block_id);
    let mut out = Vec::new();
    let mut head = [0u8; 128];
    for id in 0..p.packet_count() {
        let (n, range) = p.write_head(id, Status::SUCCESS, &mut head).expect("head");
        let mut packet = head[..n].to_vec();
        packet.extend_from_slice(&data[range]);
        out.extend(frame_gvsp(&packet).expect("record"));
    }
    out
}

struct Bench {
    receiver: Receiver,
    assembler: Assembler,
    to: SocketAddrV4,
    shape: Shape,
}

impl Bench {
    fn new(shape: Shape) -> Bench {
        let mut rc = ReceiveConfig::new(Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST, shape.frame);
        rc.transport = Transport::Tcp;
        rc.recv_buffer = 4 << 20;
        rc.max_record = shape.transfer + 64;
        let receiver = Receiver::open(&rc).expect("receiver");
        let to = SocketAddrV4::new(Ipv4Addr::LOCALHOST, receiver.port());
        let mut config = Config::new(shape.frame);
        config.resend.enabled = false;
        config.buffer_count = 8;
        config.max_frames_in_flight = 2;
        config.data_per_packet = Some(shape.transfer);
        Bench {
            receiver,
            assembler: Assembler::new(config).expect("assembler"),
            to,
            shape,
        }
    }

    /// Receives until `want` frames came out or `limit` passed; checks
    /// each frame's bytes and gives its buffer back at once.
    fn collect(&mut self, want: usize, limit: Duration) -> Vec<Seen> {
        let mut out = Vec::new();
        let start = Instant::now();
        let mut refill = |_: &mut Assembler| {};
        while out.len() < want && start.elapsed() < limit {
            self.receiver
                .receive(&mut self.assembler, Duration::from_millis(5), &mut refill)
                .expect("receive");
            // As the stream loop does: expiries happen between reads too.
            while self.assembler.poll_transmit(now_ns()).is_some() {}
            while let Some(f) = self.assembler.poll_frame() {
                out.push(self.check(&f));
                self.assembler.recycle(f);
            }
        }
        out
    }

    fn check(&self, f: &DeliveredFrame) -> Seen {
        let expected = frame_data(self.shape, f.block_id);
        if f.is_complete() {
            assert_eq!(f.data(), &expected[..], "block {} wrong", f.block_id);
        } else {
            let mut pos = 0;
            for r in f
                .missing
                .iter()
                .chain(std::iter::once(&(f.size()..f.size())))
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
        Seen {
            block_id: f.block_id,
            complete: f.is_complete(),
            missing: f.missing.clone(),
        }
    }
}

/// What a delivered frame was, after its bytes were checked.
#[derive(Debug)]
struct Seen {
    block_id: u64,
    complete: bool,
    missing: Vec<std::ops::Range<usize>>,
}

/// Writes `bytes` in pieces of the given sizes (cycled), pausing now and
/// then so the receiver's reads end at arbitrary places. Pauses come every
/// 7 pieces but at most once per 4 KiB, so even one-byte pieces send a
/// frame in well under a second.
fn write_in_pieces(stream: &mut TcpStream, bytes: &[u8], pieces: &[usize]) {
    let mut at = 0;
    let mut k = 0;
    let mut since_pause = 0;
    while at < bytes.len() {
        let n = pieces[k % pieces.len()].max(1).min(bytes.len() - at);
        stream.write_all(&bytes[at..at + n]).expect("write");
        at += n;
        k += 1;
        since_pause += n;
        if k % 7 == 0 && since_pause >= 4096 {
            std::thread::sleep(Duration::from_micros(300));
            since_pause = 0;
        }
    }
}

/// Sends `frames` frames over one connection and checks they all arrive exact.
fn run_stream(
    shape: Shape,
    frames: u64,
    pieces: Vec<usize>,
) -> linerate_grab::receive::ReceiveStats {
    let mut bench = Bench::new(shape);
    let to = bench.to;
    let writer = std::thread::spawn(move || {
        let mut s = TcpStream::connect(to).expect("connect");
        for b in 1..=frames {
            write_in_pieces(&mut s, &frame_bytes(shape, b), &pieces);
        }
        // Keep the connection open until the receiver is done.
        std::thread::sleep(Duration::from_millis(300));
    });
    let got = bench.collect(frames as usize, Duration::from_secs(20));
    writer.join().expect("writer");
    assert_eq!(got.len() as u64, frames, "every frame delivered");
    let complete = got.iter().filter(|f| f.complete).count();
    assert_eq!(complete as u64, frames, "every frame complete");
    bench.receiver.stats()
}

#[test]
fn whole_writes_of_8000_byte_transfers_land_in_place() {
    let shape = Shape {
        frame: 1_000_000,
        transfer: 8000,
        extended: false,
    };
    let stats = run_stream(shape, 20, vec![1 << 20]);
    let payload = 20 * shape.frame.div_ceil(shape.transfer) as u64;
    // All but the first frame's first packet are predicted; a few reads
    // ending mid-header may cost a copy.
    assert!(
        stats.placed_in_frame * 100 >= payload * 95,
        "only {} of {payload} payload records placed in the frame: {stats:?}",
        stats.placed_in_frame
    );
    assert_eq!(stats.tcp.connections, 1);
    assert_eq!(stats.tcp.connections_lost, 0);
}

#[test]
fn megabyte_transfers_and_extended_ids() {
    let shape = Shape {
        frame: 3_000_000,
        transfer: 1 << 20,
        extended: true,
    };
    let stats = run_stream(shape, 6, vec![100_000, 7, 1 << 20]);
    assert!(stats.placed_in_frame >= 6 * 3 - 1, "{stats:?}");
}

#[test]
fn a_connection_cut_mid_frame_gives_an_incomplete_frame_then_a_new_stream_works() {
    let shape = Shape {
        frame: 200_000,
        transfer: 63_000,
        extended: false,
    };
    let mut bench = Bench::new(shape);
    let to = bench.to;
    let writer = std::thread::spawn(move || {
        let mut s = TcpStream::connect(to).expect("connect");
        s.write_all(&frame_bytes(shape, 1)).expect("frame 1");
        let second = frame_bytes(shape, 2);
        // Half of frame 2, cut inside a record's data.
        s.write_all(&second[..second.len() / 2 + 11]).expect("half");
        std::thread::sleep(Duration::from_millis(100));
        drop(s);
        std::thread::sleep(Duration::from_millis(100));
        // The camera comes back: block ids start over.
        let mut s = TcpStream::connect(to).expect("reconnect");
        for b in 1..=3 {
            s.write_all(&frame_bytes(shape, b)).expect("frame");
        }
        std::thread::sleep(Duration::from_millis(300));
    });
    let got = bench.collect(5, Duration::from_secs(10));
    writer.join().expect("writer");
    let summary: Vec<(u64, bool)> = got.iter().map(|f| (f.block_id, f.complete)).collect();
    assert_eq!(
        summary,
        vec![(1, true), (2, false), (1, true), (2, true), (3, true)],
        "frames in order, the cut one incomplete"
    );
    let cut = &got[1];
    assert!(
        !cut.missing.is_empty(),
        "the cut frame names what is missing"
    );
    let missing: usize = cut.missing.iter().map(|r| r.len()).sum();
    assert!(
        missing > 0 && missing < shape.frame,
        "part of frame 2 arrived, part is missing: {:?}",
        cut.missing
    );
    let stats = bench.receiver.stats();
    assert_eq!(stats.tcp.connections, 2);
    assert_eq!(stats.tcp.connections_lost, 1);
}

/// The stream of the stall tests: frames 1..=4 of five records each.
const STALLED: Shape = Shape {
    frame: 200_000,
    transfer: 40_000,
    extended: false,
};

/// Where frame 2's bytes stop in the stall tests: inside the data of its
/// second payload record, as a camera whose stream stalls mid-record.
fn stall_point(shape: Shape) -> usize {
    shape.transfer + shape.transfer / 2
}

#[test]
fn a_stall_inside_a_record_past_the_retention_loses_that_frame_only() {
    let shape = STALLED;
    let mut bench = Bench::new(shape);
    let mut s = TcpStream::connect(bench.to).expect("connect");
    s.write_all(&frame_bytes(shape, 1)).expect("frame 1");
    let second = frame_bytes(shape, 2);
    let cut = stall_point(shape);
    s.write_all(&second[..cut]).expect("start of frame 2");
    // Nothing more arrives until the receiver has given frame 2 up
    // (retention 100 ms)...
    let mut got = bench.collect(2, Duration::from_secs(5));
    assert_eq!(got.len(), 2, "frame 2 given up while stalled");
    // ...then the rest of its stalled record is already waiting when the
    // receiver reads next, followed by the next frames.
    s.write_all(&second[cut..]).expect("rest of frame 2");
    for b in 3..=4 {
        s.write_all(&frame_bytes(shape, b)).expect("frame");
    }
    std::thread::sleep(Duration::from_millis(20));
    got.extend(bench.collect(2, Duration::from_secs(5)));
    let summary: Vec<(u64, bool)> = got.iter().map(|f| (f.block_id, f.complete)).collect();
    assert_eq!(
        summary,
        vec![(1, true), (2, false), (3, true), (4, true)],
        "the stalled frame is given up, the stream stays in record sync"
    );
    let missing: usize = got[1].missing.iter().map(|r| r.len()).sum();
    assert!(
        missing >= shape.transfer / 2 && missing < shape.frame,
        "frame 2 misses at least the rest of the stalled record: {:?}",
        got[1].missing
    );
    assert_eq!(bench.receiver.stats().tcp.records_skipped, 1);
}

#[test]
fn a_record_trickling_in_longer_than_the_retention_still_completes_its_frame() {
    let shape = STALLED;
    let mut bench = Bench::new(shape);
    let to = bench.to;
    let writer = std::thread::spawn(move || {
        let mut s = TcpStream::connect(to).expect("connect");
        s.set_nodelay(true).expect("nodelay");
        s.write_all(&frame_bytes(shape, 1)).expect("frame 1");
        let second = frame_bytes(shape, 2);
        let mut at = stall_point(shape);
        s.write_all(&second[..at]).expect("start of frame 2");
        // 400 ms of one byte per 10 ms inside one record: slower than the
        // 100 ms retention allows for a whole record, never silent long.
        let end = Instant::now() + Duration::from_millis(400);
        while Instant::now() < end {
            s.write_all(&second[at..at + 1]).expect("trickle");
            at += 1;
            std::thread::sleep(Duration::from_millis(10));
        }
        s.write_all(&second[at..]).expect("rest of frame 2");
        for b in 3..=4 {
            s.write_all(&frame_bytes(shape, b)).expect("frame");
        }
        std::thread::sleep(Duration::from_millis(300));
    });
    let got = bench.collect(4, Duration::from_secs(10));
    writer.join().expect("writer");
    let summary: Vec<(u64, bool)> = got.iter().map(|f| (f.block_id, f.complete)).collect();
    assert_eq!(
        summary,
        vec![(1, true), (2, true), (3, true), (4, true)],
        "bytes still arriving keep the frame alive"
    );
}

#[test]
fn broken_framing_ends_the_stream_with_an_error() {
    let shape = Shape {
        frame: 100_000,
        transfer: 8000,
        extended: false,
    };
    let mut bench = Bench::new(shape);
    let to = bench.to;
    let writer = std::thread::spawn(move || {
        let mut s = TcpStream::connect(to).expect("connect");
        let mut bytes = frame_bytes(shape, 1);
        bytes.extend_from_slice(b"this is not a record header at all");
        s.write_all(&bytes).expect("write");
        std::thread::sleep(Duration::from_millis(500));
    });
    let mut refill = |_: &mut Assembler| {};
    let start = Instant::now();
    let err = loop {
        match bench
            .receiver
            .receive(&mut bench.assembler, Duration::from_millis(5), &mut refill)
        {
            Ok(_) => assert!(start.elapsed() < Duration::from_secs(5), "no error"),
            Err(e) => break e,
        }
    };
    writer.join().expect("writer");
    let text = err.to_string();
    assert!(text.contains("framing"), "{text}");
    let first = bench
        .assembler
        .poll_frame()
        .expect("frame 1 before the garbage");
    assert!(first.is_complete());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Any transfer size, header form and write pattern: exact frames.
    #[test]
    fn any_chunking_gives_exact_frames(
        transfer in 512usize..70_000,
        extended in any::<bool>(),
        pieces in prop::collection::vec(1usize..20_000, 1..6),
    ) {
        let shape = Shape { frame: 150_000, transfer, extended };
        run_stream(shape, 4, pieces);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// A damaged byte anywhere in the stream: the receiver either takes
    /// it (a payload byte) or ends with a framing error; it never panics or
    /// hangs, and frames before the damage come out exact.
    #[test]
    fn a_damaged_stream_never_panics(at in 0usize..90_000, value in any::<u8>()) {
        let shape = Shape { frame: 40_000, transfer: 3000, extended: false };
        let mut bench = Bench::new(shape);
        let to = bench.to;
        let mut bytes: Vec<u8> = (1..=2).flat_map(|b| frame_bytes(shape, b)).collect();
        let at = at % bytes.len();
        bytes[at] = value;
        let writer = std::thread::spawn(move || {
            let mut s = TcpStream::connect(to).expect("connect");
            let _ = s.write_all(&bytes);
            std::thread::sleep(Duration::from_millis(100));
        });
        let mut refill = |_: &mut Assembler| {};
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(400) {
            if bench.receiver.receive(&mut bench.assembler, Duration::from_millis(5), &mut refill).is_err() {
                break;
            }
            while let Some(f) = bench.assembler.poll_frame() {
                // Frame 1 ends before a damage in frame 2's bytes: exact.
                if f.block_id == 1 && at >= frame_bytes(shape, 1).len() {
                    prop_assert!(f.is_complete());
                    prop_assert_eq!(f.data(), &frame_data(shape, 1)[..]);
                }
                bench.assembler.recycle(f);
            }
        }
        writer.join().expect("writer");
    }
}
