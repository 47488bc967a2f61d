//! `linerate camera` streaming GVSP over TCP (docs/gvsp-over-tcp.md), read
//! by a plain `std` listener with linerate's own record and GVSP codecs: the
//! host listens, writes its address into SCDA/SCP, selects GvspTcp and a
//! transfer size, starts acquisition and accepts the camera's connection.

use std::io::{ErrorKind, Read};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream, UdpSocket};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use linerate_gev::device::registers::bootstrap as bs;
use linerate_gev::device::registers::device as dev;
use linerate_gev::test_pattern;
use linerate_testbed::Testbed;

mod common;

use common::{stop_camera, Client};
use linerate_wire::gvcp::{Command, CommandRepr};
use linerate_wire::gvsp::{Body, LeaderInfo, PacketRepr};
use linerate_wire::gvsp_tcp::{RecordHeader, RecordKind, HEADER_LEN};
use linerate_wire::Status;

const SC: u32 = bs::STREAM_CHANNEL_BASE;

fn bed(name: &str) -> Testbed {
    assert!(
        name.starts_with("ctcp"),
        "namespaces of these tests are lr-ctcp*"
    );
    common::two_host_bed(name)
}

fn start_camera(bed: &Testbed, extra: &[&str]) -> Child {
    let args = [&["--width", "1024", "--height", "1024"][..], extra].concat();
    common::start_camera(bed, &args)
}

/// Takes control and points the stream at `listener` on TCP with `extra` settings.
fn configure(host: &mut Client, pc: Ipv4Addr, listener: &TcpListener, extra: &[(u32, u32)]) {
    assert_eq!(
        host.write(&[(bs::CONTROL_CHANNEL_PRIVILEGE, bs::ccp::CONTROL_ACCESS)]),
        Status::SUCCESS
    );
    let port = listener.local_addr().expect("addr").port();
    let mut writes = vec![
        (SC + bs::SCDA, u32::from(pc)),
        (SC + bs::SCP, u32::from(port)),
        (SC + bs::SCPS, 8000),
        (dev::TRANSPORT_SELECTOR, 1),
    ];
    writes.extend_from_slice(extra);
    assert_eq!(host.write(&writes), Status::SUCCESS);
}

fn accept(listener: &TcpListener) -> TcpStream {
    listener.set_nonblocking(true).expect("nonblocking");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false).expect("blocking");
                s.set_read_timeout(Some(Duration::from_secs(5)))
                    .expect("timeout");
                return s;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                assert!(Instant::now() < deadline, "the camera never connected");
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => panic!("accept: {e}"),
        }
    }
}

/// One GVSP packet read from the stream.
struct Packet {
    block_id: u64,
    packet_id: u32,
    extended: bool,
    status: Status,
    kind: Kind,
}

enum Kind {
    Leader { width: u32, height: u32 },
    Payload(Vec<u8>),
    Trailer,
}

/// Reads one record; `None` on a clean end of stream at a record boundary.
fn next_packet(s: &mut TcpStream) -> Option<Packet> {
    let mut head = [0u8; HEADER_LEN];
    let mut got = 0;
    while got < HEADER_LEN {
        let n = s.read(&mut head[got..]).expect("read record header");
        if n == 0 {
            assert_eq!(got, 0, "stream ended inside a record header");
            return None;
        }
        got += n;
    }
    let record = RecordHeader::parse(&head).expect("valid record header");
    assert_eq!(record.kind, RecordKind::Gvsp);
    let mut body = vec![0u8; record.body_len as usize];
    s.read_exact(&mut body)
        .expect("stream ended inside a record body");
    let p = PacketRepr::parse(&body).expect("valid GVSP packet");
    let kind = match p.body {
        Body::Leader(l) => match l.info {
            LeaderInfo::Image(i) => Kind::Leader {
                width: i.width,
                height: i.height,
            },
            other => panic!("unexpected leader {other:?}"),
        },
        Body::Payload(d) => Kind::Payload(d.to_vec()),
        Body::Trailer(_) => Kind::Trailer,
        other => panic!("unexpected packet {other:?}"),
    };
    Some(Packet {
        block_id: p.header.block_id,
        packet_id: p.header.packet_id,
        extended: p.header.extended,
        status: p.header.status,
        kind,
    })
}

/// A whole frame as it came off the stream.
struct Frame {
    block_id: u64,
    frame_number: u64,
    extended: bool,
}

/// Reads records up to the end of the next whole block, checking that
/// packets come in order, every payload but the last carries exactly
/// `transfer` bytes, and the test pattern verifies. `None` at end of stream.
/// Reads the next whole block, checks its layout and its test pattern, byte
/// by byte against the formula (docs/test-pattern.md).
fn next_frame(s: &mut TcpStream, transfer: usize) -> Option<Frame> {
    next_frame_checked(s, transfer, test_pattern::verify_pixels)
}

/// Like [`next_frame`], with `check` for the frame's content.
fn next_frame_checked(
    s: &mut TcpStream,
    transfer: usize,
    check: fn(&[u8]) -> Result<u64, test_pattern::PatternError>,
) -> Option<Frame> {
    // Skip to a leader (the stream starts with one; after a reconnect the
    // rest of a broken block never arrives).
    let leader = loop {
        let p = next_packet(s)?;
        if matches!(p.kind, Kind::Leader { .. }) {
            break p;
        }
    };
    let Kind::Leader { width, height } = leader.kind else {
        unreachable!()
    };
    assert_eq!(leader.packet_id, 0);
    let len = (width * height) as usize;
    let payloads = len.div_ceil(transfer);
    let mut frame = Vec::with_capacity(len);
    for i in 1..=payloads {
        let p = next_packet(s).expect("stream ended inside a block");
        assert_eq!(
            (p.block_id, p.packet_id),
            (leader.block_id, i as u32),
            "packets out of order"
        );
        assert_eq!(p.status, Status::SUCCESS, "no resend status on TCP");
        let Kind::Payload(d) = p.kind else {
            panic!("packet {i} of {payloads} is not a payload packet");
        };
        let want = if i < payloads {
            transfer
        } else {
            len - transfer * (payloads - 1)
        };
        assert_eq!(d.len(), want, "payload {i} of {payloads}");
        frame.extend_from_slice(&d);
    }
    let t = next_packet(s).expect("stream ended before the trailer");
    assert!(matches!(t.kind, Kind::Trailer), "no trailer after the data");
    assert_eq!(
        (t.block_id, t.packet_id),
        (leader.block_id, payloads as u32 + 1)
    );
    let frame_number = check(&frame).expect("frame verifies");
    Some(Frame {
        block_id: leader.block_id,
        frame_number,
        extended: leader.extended,
    })
}

/// Reads frames until the stream ends; the end must be clean, at a record boundary.
fn drain_to_eof(s: &mut TcpStream) -> usize {
    let mut records = 0;
    while next_packet(s).is_some() {
        records += 1;
    }
    records
}

fn assert_in_order(frames: &[Frame]) {
    for w in frames.windows(2) {
        assert!(
            w[1].frame_number > w[0].frame_number,
            "frames {} then {}",
            w[0].frame_number,
            w[1].frame_number
        );
        assert_eq!(
            w[1].block_id,
            w[0].block_id + 1,
            "block ids not consecutive"
        );
    }
}

#[test]
fn transfer_sizes_from_8000_to_1_mib_deliver_whole_verified_frames() {
    let bed = bed("ctcpsizes");
    let camera = start_camera(&bed, &[]);
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let resend_from = bed.addr("pc").expect("addr");
    bed.run_in("pc", None, move || {
        std::thread::sleep(Duration::from_millis(300));
        let mut host = Client::new(cam);
        for transfer in [8000usize, 63_000, 1 << 20] {
            let listener = TcpListener::bind(SocketAddrV4::new(pc, 0)).expect("listen");
            configure(
                &mut host,
                pc,
                &listener,
                &[
                    (dev::LINERATE_TRANSFER_SIZE, transfer as u32),
                    (dev::ACQUISITION_FRAME_RATE, 50f32.to_bits()),
                    (dev::ACQUISITION_START, 1),
                ],
            );
            let mut s = accept(&listener);
            // Locked while streaming.
            assert_eq!(
                host.write(&[(dev::LINERATE_TRANSFER_SIZE, 4096)]),
                Status::WRITE_PROTECT
            );
            let frames: Vec<Frame> = (0..6)
                .map(|_| next_frame(&mut s, transfer).expect("a frame"))
                .collect();
            assert_in_order(&frames);
            assert!(frames.iter().all(|f| !f.extended));
            // Resend requests mean nothing on TCP: ignored and counted.
            let resend = CommandRepr::new(
                Command::PacketResend(linerate_wire::gvcp::PacketResend {
                    channel: 0,
                    block_id: frames[0].block_id,
                    first_packet_id: 1,
                    last_packet_id: 1,
                    extended: false,
                }),
                9,
            );
            let udp = UdpSocket::bind(SocketAddrV4::new(resend_from, 0)).expect("bind");
            udp.send_to(&resend.to_vec().expect("encode"), cam)
                .expect("send");
            assert_eq!(host.write(&[(dev::ACQUISITION_STOP, 1)]), Status::SUCCESS);
            // The stop ends the connection cleanly, at a record boundary.
            drain_to_eof(&mut s);
        }
        // Out-of-range transfer sizes are refused.
        assert_eq!(
            host.write(&[(dev::LINERATE_TRANSFER_SIZE, 511)]),
            Status::INVALID_PARAMETER
        );
        assert_eq!(
            host.write(&[(dev::LINERATE_TRANSFER_SIZE, (16 << 20) + 1)]),
            Status::INVALID_PARAMETER
        );
    })
    .expect("run in pc");
    let c = stop_camera(camera);
    assert_eq!(c["tcp_connections"], 3, "{c}");
    assert_eq!(c["tcp_connections_lost"], 0, "{c}");
    assert_eq!(c["tcp_resend_ignored"], 3, "{c}");
    assert_eq!(c["packets_resent"], 0, "{c}");
    assert!(c["frames_sent"].as_u64().is_some_and(|n| n >= 18), "{c}");
}

#[test]
fn extended_ids_and_the_scps_default_transfer_size() {
    let bed = bed("ctcpext");
    let camera = start_camera(&bed, &[]);
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let frames = bed
        .run_in("pc", None, move || {
            std::thread::sleep(Duration::from_millis(300));
            let mut host = Client::new(cam);
            let listener = TcpListener::bind(SocketAddrV4::new(pc, 0)).expect("listen");
            configure(
                &mut host,
                pc,
                &listener,
                &[
                    (bs::GVSP_CONFIGURATION, bs::gvsp_configuration::EXTENDED_IDS),
                    // 0: follow SCPS (8000): 8000 - 48 data bytes with extended ids.
                    (dev::LINERATE_TRANSFER_SIZE, 0),
                    (dev::ACQUISITION_START, 1),
                ],
            );
            let mut s = accept(&listener);
            // FireTestPacket means nothing on TCP: no datagram reaches SCDA:SCP.
            let port = listener.local_addr().expect("addr").port();
            let udp = UdpSocket::bind(SocketAddrV4::new(pc, port)).expect("udp on the same port");
            udp.set_read_timeout(Some(Duration::from_millis(300)))
                .expect("timeout");
            assert_eq!(
                host.write(&[(SC + bs::SCPS, 0x8000_0000 | 8000)]),
                Status::SUCCESS
            );
            let mut probe = [0u8; 9000];
            assert!(
                udp.recv(&mut probe).is_err(),
                "a test packet went out on TCP"
            );
            let frames: Vec<Frame> = (0..3)
                .map(|_| next_frame(&mut s, 8000 - 48).expect("a frame"))
                .collect();
            host.write(&[(dev::ACQUISITION_STOP, 1)]);
            drain_to_eof(&mut s);
            frames
        })
        .expect("run in pc");
    stop_camera(camera);
    assert_in_order(&frames);
    assert!(
        frames.iter().all(|f| f.extended),
        "standard ids on the stream"
    );
    assert_eq!(frames[0].block_id, 1);
}

#[test]
fn a_host_closing_its_end_is_counted_and_the_next_start_reconnects() {
    let bed = bed("ctcplost");
    let camera = start_camera(&bed, &[]);
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let (first, second) = bed
        .run_in("pc", None, move || {
            std::thread::sleep(Duration::from_millis(300));
            let mut host = Client::new(cam);
            let listener = TcpListener::bind(SocketAddrV4::new(pc, 0)).expect("listen");
            let port = listener.local_addr().expect("addr").port();
            configure(
                &mut host,
                pc,
                &listener,
                &[
                    (dev::LINERATE_TRANSFER_SIZE, 1 << 20),
                    (dev::ACQUISITION_FRAME_RATE, 100f32.to_bits()),
                    (dev::ACQUISITION_START, 1),
                ],
            );
            let mut s = accept(&listener);
            let first = next_frame(&mut s, 1 << 20).expect("a frame");
            // The host goes away: connection and listener.
            drop(s);
            drop(listener);
            std::thread::sleep(Duration::from_millis(700));
            assert_eq!(host.write(&[(dev::ACQUISITION_STOP, 1)]), Status::SUCCESS);
            // It comes back on the same port; the next start connects again.
            let listener = TcpListener::bind(SocketAddrV4::new(pc, port)).expect("listen again");
            assert_eq!(host.write(&[(dev::ACQUISITION_START, 1)]), Status::SUCCESS);
            let mut s = accept(&listener);
            let second: Vec<Frame> = (0..3)
                .map(|_| next_frame(&mut s, 1 << 20).expect("a frame"))
                .collect();
            host.write(&[(dev::ACQUISITION_STOP, 1)]);
            drain_to_eof(&mut s);
            (first, second)
        })
        .expect("run in pc");
    let c = stop_camera(camera);
    assert_in_order(&second);
    assert!(second[0].block_id > first.block_id);
    assert_eq!(c["tcp_connections"], 2, "{c}");
    assert!(
        c["tcp_connections_lost"].as_u64().is_some_and(|n| n >= 1),
        "{c}"
    );
    // With the listener gone, reconnecting while acquiring failed (and was
    // retried no more than every 500 ms), and the frames that fell due were skipped.
    let failures = c["tcp_connect_failures"].as_u64().unwrap_or(0);
    assert!((1..=3).contains(&failures), "{c}");
    assert!(c["frames_skipped"].as_u64().is_some_and(|n| n >= 20), "{c}");
}

#[test]
fn a_thousand_fps_with_a_slow_reader_skips_frames_in_sync() {
    let bed = bed("ctcpslow");
    let camera = start_camera(&bed, &[]);
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let (frames, skipped_early, skipped_late) = bed
        .run_in("pc", None, move || {
            std::thread::sleep(Duration::from_millis(300));
            let mut host = Client::new(cam);
            let listener = TcpListener::bind(SocketAddrV4::new(pc, 0)).expect("listen");
            configure(
                &mut host,
                pc,
                &listener,
                &[
                    (dev::LINERATE_TRANSFER_SIZE, 1 << 20),
                    (dev::ACQUISITION_FRAME_RATE, 1000f32.to_bits()),
                ],
            );
            assert_eq!(
                f32::from_bits(host.read(dev::ACQUISITION_FRAME_RATE)),
                1000.0
            );
            assert_eq!(host.write(&[(dev::ACQUISITION_START, 1)]), Status::SUCCESS);
            let mut s = accept(&listener);
            let mut frames = Vec::new();
            let mut skipped_early = 0;
            let t = Instant::now();
            while t.elapsed() < Duration::from_millis(1500) {
                // The CRC only: checking every pixel would slow this host further.
                let frame = next_frame_checked(&mut s, 1 << 20, test_pattern::verify);
                frames.push(frame.expect("a frame"));
                // A slow host: 20 ms per frame, 50 frames/s of 1000.
                std::thread::sleep(Duration::from_millis(20));
                if frames.len() == 10 {
                    skipped_early = host.read(dev::FRAMES_SKIPPED);
                }
            }
            let skipped_late = host.read(dev::FRAMES_SKIPPED);
            host.write(&[(dev::ACQUISITION_STOP, 1)]);
            drain_to_eof(&mut s);
            (frames, skipped_early, skipped_late)
        })
        .expect("run in pc");
    let c = stop_camera(camera);
    assert_in_order(&frames);
    assert!(frames.len() >= 30, "{} frames", frames.len());
    assert!(
        skipped_late > skipped_early && skipped_early > 0,
        "skipped {skipped_early} then {skipped_late}"
    );
    // Most due frames were skipped, before taking a block id.
    assert!(skipped_late > 500, "{skipped_late} skipped");
    assert_eq!(c["tcp_connections_lost"], 0, "{c}");
}

#[test]
fn zerocopy_sends_verify_and_report_their_completions() {
    let bed = bed("ctcpzc");
    let camera = start_camera(&bed, &["--tcp-zerocopy"]);
    // More frames than the 16 slots: slots are reused while the kernel may
    // still hold earlier sends.
    let frames = stream_frames(&bed, &[], 1 << 20, 200.0, 40, test_pattern::verify_pixels);
    let c = stop_camera(camera);
    assert_in_order(&frames);
    let sends = c["zerocopy_sends"].as_u64().unwrap_or(0);
    assert!(sends >= 40, "{c}");
    assert_eq!(c["zerocopy_completions"].as_u64(), Some(sends), "{c}");
    assert!(
        c["zerocopy_copied"].as_u64().is_some_and(|n| n <= sends),
        "{c}"
    );
}

#[test]
fn the_gradient_pattern_streams_drawn_frames() {
    let bed = bed("ctcpgrad");
    let camera = start_camera(&bed, &[]);
    // More frames than the ring's slots: every one drawn anew.
    let test_pattern = [(dev::TEST_PATTERN, 1)];
    let frames = stream_frames(&bed, &test_pattern, 63_000, 100.0, 20, gradient_frame);
    stop_camera(camera);
    assert_in_order(&frames);
}

/// Takes control of the bed's camera, streams `count` frames over TCP in
/// `transfer`-byte records at `fps` after writing `registers`, checks each
/// with `check`, stops and reads the stream to its clean end.
fn stream_frames(
    bed: &Testbed,
    registers: &[(u32, u32)],
    transfer: usize,
    fps: f32,
    count: usize,
    check: fn(&[u8]) -> Result<u64, test_pattern::PatternError>,
) -> Vec<Frame> {
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let mut writes = registers.to_vec();
    writes.extend_from_slice(&[
        (dev::LINERATE_TRANSFER_SIZE, transfer as u32),
        (dev::ACQUISITION_FRAME_RATE, fps.to_bits()),
        (dev::ACQUISITION_START, 1),
    ]);
    bed.run_in("pc", None, move || {
        std::thread::sleep(Duration::from_millis(300));
        let mut host = Client::new(cam);
        let listener = TcpListener::bind(SocketAddrV4::new(pc, 0)).expect("listen");
        configure(&mut host, pc, &listener, &writes);
        let mut s = accept(&listener);
        let frames: Vec<Frame> = (0..count)
            .map(|_| next_frame_checked(&mut s, transfer, check).expect("a frame"))
            .collect();
        host.write(&[(dev::ACQUISITION_STOP, 1)]);
        drain_to_eof(&mut s);
        frames
    })
    .expect("run in pc")
}

/// A gradient frame: stamped and whole, but not the verifiable pattern.
fn gradient_frame(frame: &[u8]) -> Result<u64, test_pattern::PatternError> {
    let n = test_pattern::verify(frame)?;
    assert!(
        test_pattern::verify_pixels(frame).is_err(),
        "frame {n} carries the fast pattern, not the gradient"
    );
    // Line 1 is line 0 moved by one pixel.
    assert_eq!(frame[1024 + 20], frame[21], "frame {n}");
    Ok(n)
}

/// CPU seconds (user + system) a process has used, from /proc/<pid>/stat.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    // Fields after the parenthesised command name; utime and stime are 14 and 15.
    let rest = &stat[stat.rfind(')').expect("comm") + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let hz = linerate_metrics::cpu::ticks_per_second() as f64;
    let ticks: u64 = f[11].parse::<u64>().expect("utime") + f[12].parse::<u64>().expect("stime");
    ticks as f64 / hz
}

/// The MSG_ZEROCOPY figures in docs/camera.md: camera pinned to CPU 0,
/// reader (and its receive processing) on CPU 1, 1024×1024 Mono8 in 1 MiB
/// records at `LR_ZC_FPS` (default 400) for `LR_ZC_SECONDS` (default 5),
/// alternating copy and zerocopy runs. Run with
/// `cargo test --release -p linerate-cli --test camera_tcp -- --ignored --nocapture`.
#[test]
#[ignore = "measurement; numbers depend on the machine"]
fn measure_zerocopy_cpu_per_gigabyte() {
    let env = |k: &str, d: f64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let fps = env("LR_ZC_FPS", 400.0) as f32;
    let seconds = env("LR_ZC_SECONDS", 5.0);
    let bed = bed("ctcpzcbench");
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let linerate = env!("CARGO_BIN_EXE_linerate");
    for round in 0..2 {
        for zerocopy in [false, true] {
            let ip = cam.ip().to_string();
            let mut cmd = bed
                .command("cam", "taskset")
                .expect("command")
                .into_command()
                .expect("command");
            cmd.args(["-c", "0", linerate, "camera", "--bind", &ip])
                .args(["--stats-interval", "0", "--json"])
                .args(["--width", "1024", "--height", "1024"])
                .args(if zerocopy {
                    &["--tcp-zerocopy"][..]
                } else {
                    &[][..]
                })
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let camera = cmd.spawn().expect("camera");
            let pid = camera.id();
            let (bytes, cpu, wall) = bed
                .run_in("pc", Some(&[1]), move || {
                    std::thread::sleep(Duration::from_millis(300));
                    let mut host = Client::new(cam);
                    let listener = TcpListener::bind(SocketAddrV4::new(pc, 0)).expect("listen");
                    configure(
                        &mut host,
                        pc,
                        &listener,
                        &[
                            // The reader sends no GVCP while it measures.
                            (bs::HEARTBEAT_TIMEOUT, 60_000),
                            (dev::LINERATE_TRANSFER_SIZE, 1 << 20),
                            (dev::ACQUISITION_FRAME_RATE, fps.to_bits()),
                            (dev::ACQUISITION_START, 1),
                        ],
                    );
                    let mut s = accept(&listener);
                    let mut buf = vec![0u8; 4 << 20];
                    // Warm up, then measure.
                    let t = Instant::now();
                    while t.elapsed() < Duration::from_millis(500) {
                        assert!(s.read(&mut buf).expect("read") > 0, "stream ended");
                    }
                    let cpu0 = cpu_seconds(pid);
                    let t = Instant::now();
                    let mut bytes = 0u64;
                    while t.elapsed().as_secs_f64() < seconds {
                        bytes += s.read(&mut buf).expect("read") as u64;
                    }
                    let cpu = cpu_seconds(pid) - cpu0;
                    let wall = t.elapsed().as_secs_f64();
                    host.write(&[(dev::ACQUISITION_STOP, 1)]);
                    while s.read(&mut buf).is_ok_and(|n| n > 0) {}
                    (bytes, cpu, wall)
                })
                .expect("run in pc");
            let c = stop_camera(camera);
            let gb = bytes as f64 / 1e9;
            println!(
                "round {round} zerocopy={zerocopy}: {:.2} Gbit/s, camera CPU {:.0}% = {:.3} CPU-s/GB; \
                 skipped {}, zerocopy sends {} completions {} copied {}",
                gb * 8.0 / wall,
                cpu / wall * 100.0,
                cpu / gb,
                c["frames_skipped"],
                c["zerocopy_sends"],
                c["zerocopy_completions"],
                c["zerocopy_copied"],
            );
            if std::env::var_os("LR_ZC_VERBOSE").is_some() {
                println!("{c}");
            }
        }
    }
}
