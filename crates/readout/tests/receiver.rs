//! The receiver library in-process: `linerate_readout::spawn` started from
//! a thread inside a test-bed namespace (its threads inherit it), against
//! a board core answering over a raw socket in another namespace. No
//! child process.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use linerate_fade::board::{BoardConfig, BoardPoll, FadeBoard};
use linerate_fade::host::HostConfig;
use linerate_fade::stream;
use linerate_fade::version::{Version, V1};
use linerate_readout::link::open_socket;
use linerate_readout::receiver::{ReceiverConfig, WireVersion};
use linerate_readout::{LinkConfig, ReadoutReport};
use linerate_testbed::Testbed;

/// A bed with `feb1` and `pc` on one switch.
fn bed(name: &str) -> Testbed {
    assert!(
        linerate_io::privilege::is_root(),
        "receiver tests need root (namespaces, raw sockets)"
    );
    Testbed::builder(name)
        .hosts(["feb1", "pc"])
        .switch()
        .build()
        .expect("bed")
}

/// A v1 board core on `feb1` until `stop`, streaming to whoever sends it
/// frames first.
fn board(bed: &Testbed, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    let iface = bed.iface("feb1").expect("iface").name.clone();
    bed.spawn_in("feb1", None, move || {
        let mut sock = open_socket::<V1>(&iface, 256).expect("board socket");
        let mut core = FadeBoard::<V1>::new(BoardConfig::default()).expect("board");
        let mut out = vec![0u8; 14 + V1::DATA_PACKET_LEN];
        let mut host: Option<[u8; 6]> = None;
        let t0 = Instant::now();
        let now = || t0.elapsed().as_nanos() as u64;
        while !stop.load(Ordering::Relaxed) {
            let mut wait = Duration::from_millis(1);
            if let Some(to) = host {
                match core.poll_transmit(now(), &mut out[14..]) {
                    BoardPoll::Send(len) => {
                        sock.write_header(&mut out, to);
                        sock.send(&out[..14 + len]).expect("board send");
                        wait = Duration::ZERO;
                    }
                    BoardPoll::WaitUntil(_) => wait = Duration::from_micros(20),
                    BoardPoll::Idle => {}
                }
            }
            if sock.recv(Some(wait)).expect("board recv") == 0 {
                continue;
            }
            let me = sock.mac();
            for f in sock.frames() {
                // A board's MAC filter: the switch floods frames for
                // stations it has not learnt yet.
                let (Some(dst), Some(src), Some(payload)) =
                    (f.data.get(..6), f.data.get(6..12), f.data.get(14..))
                else {
                    continue;
                };
                if dst == me {
                    host.get_or_insert_with(|| src.try_into().expect("6 bytes"));
                    let _ = core.handle_packet(payload, now());
                }
            }
        }
    })
    .expect("board thread")
}

/// A receiver config for `feb1` on `pc`'s interface.
fn config(bed: &Testbed, host: HostConfig) -> ReceiverConfig {
    let iface = bed.iface("pc").expect("iface").name.clone();
    ReceiverConfig {
        version: WireVersion::V1,
        ..ReceiverConfig::new(
            LinkConfig::new(iface),
            HostConfig {
                boards: vec![bed.mac("feb1").expect("mac").0],
                ring_bytes: 4 << 20,
                ..host
            },
        )
    }
}

#[test]
fn a_spawned_receiver_reads_verifies_and_writes_out_every_byte() {
    let bed = bed("rcvlib");
    let stop = Arc::new(AtomicBool::new(false));
    let feb = board(&bed, stop.clone());
    let limit = 8 << 20;
    let out = std::env::temp_dir().join(format!("linerate-receiver-{}", std::process::id()));
    let mut c = config(
        &bed,
        HostConfig {
            limit_bytes: Some(limit),
            ..HostConfig::default()
        },
    );
    c.verify = true;
    c.outputs = vec![out.clone()];
    let (report, counted) = bed
        .run_in("pc", None, move || {
            let receiver = linerate_readout::spawn(c).expect("spawn");
            let counters = receiver.counters();
            let report = receiver.join().expect("readout");
            (report, counters.bytes_read())
        })
        .expect("netns");
    stop.store(true, Ordering::Relaxed);
    feb.join().expect("board");
    let written = std::fs::read(&out).expect("output file");
    let _ = std::fs::remove_file(&out);

    assert!(report.problems().is_empty(), "{:?}", report.problems());
    assert!(report.complete);
    let b = &report.boards[0];
    assert_eq!((b.bytes, b.bytes_received), (limit, limit));
    assert_eq!((b.verified_bytes, b.verify_errors), (Some(limit), 0));
    assert!(b.acks > 0 && b.ack_latency_us_p50.is_some(), "{b:?}");
    assert_eq!(counted, vec![limit], "the counters saw every byte read");
    assert_eq!(written.len() as u64, limit);
    assert_eq!(stream::mismatches(0, &written), 0);
    assert_eq!(
        (report.controller.as_str(), report.version.as_str()),
        ("fair", "1")
    );
    // The typed report is the JSON and back (floats to the last digit or
    // so: serde_json's default float parsing may miss by one ulp).
    let json = serde_json::to_value(&report).expect("json");
    let back: ReadoutReport = serde_json::from_value(json.clone()).expect("parse");
    assert_eq!((back.bytes, &back.boards[0].mac), (limit, &b.mac));
    same(&serde_json::to_value(&back).expect("json"), &json, "report");
}

/// Whether two JSON values are the same, floats within 1e-12 relative.
fn same(a: &serde_json::Value, b: &serde_json::Value, at: &str) {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(x), keys(y), "{at}");
            for (k, v) in x {
                same(v, &y[k], &format!("{at}.{k}"));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                same(v, w, &format!("{at}[{i}]"));
            }
        }
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().expect("f64"), y.as_f64().expect("f64"));
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                "{at}: {x} {y}"
            );
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

#[test]
fn stopping_a_receiver_interrupts_its_boards_and_says_so() {
    let bed = bed("rcvstop");
    let stop = Arc::new(AtomicBool::new(false));
    let feb = board(&bed, stop.clone());
    let c = config(
        &bed,
        HostConfig {
            duration_ns: Some(60_000_000_000),
            ..HostConfig::default()
        },
    );
    let started = Instant::now();
    let report = bed
        .run_in("pc", None, move || {
            let receiver = linerate_readout::spawn(c).expect("spawn");
            let counters = receiver.counters();
            while counters.total_bytes_read() < 1 << 20 {
                assert!(!receiver.is_finished(), "ended before any data");
                std::thread::sleep(Duration::from_millis(5));
            }
            receiver.stop();
            receiver.join().expect("readout")
        })
        .expect("netns");
    stop.store(true, Ordering::Relaxed);
    feb.join().expect("board");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "stop() did not end it"
    );
    let b = &report.boards[0];
    assert!(b.bytes >= 1 << 20, "{b:?}");
    assert!(
        b.error
            .as_deref()
            .is_some_and(|e| e.ends_with("interrupted")),
        "{b:?}"
    );
    assert!(!report.complete);
    assert_eq!(report.problems().len(), 1);
}

#[test]
fn an_application_reads_the_rings_itself_through_leases() {
    let bed = bed("rcvapp");
    let stop = Arc::new(AtomicBool::new(false));
    let feb = board(&bed, stop.clone());
    let limit = 8 << 20;
    let c = config(
        &bed,
        HostConfig {
            limit_bytes: Some(limit),
            ..HostConfig::default()
        },
    );
    let (report, read, errors, largest_held) = bed
        .run_in("pc", None, move || {
            let (receiver, mut rings) = linerate_readout::spawn_with_rings(c).expect("spawn");
            assert_eq!(rings.len(), 1);
            let mut ring = rings.remove(0);
            let (base, size) = (ring.base_address(), ring.capacity());
            // Keep the last two leases alive, as a Python loop does (the
            // loop variable holds one while the next is asked for).
            let mut held = std::collections::VecDeque::new();
            let (mut read, mut errors, mut largest_held) = (0u64, 0u64, 0usize);
            loop {
                if let Some(lease) = ring.lend(1 << 20) {
                    assert_eq!(lease.offset(), read);
                    let at = lease.as_ptr() as usize;
                    assert_eq!(at, base + (lease.offset() % size as u64) as usize);
                    errors += stream::mismatches(lease.offset(), &lease);
                    read += lease.len() as u64;
                    held.push_back(lease);
                    if held.len() > 2 {
                        held.pop_front();
                    }
                    largest_held = largest_held.max(held.iter().map(|l| l.len()).sum());
                    continue;
                }
                let p = ring.wait(Duration::from_millis(100));
                if p.head == ring.lent() && (p.eof || p.error.is_some()) {
                    break;
                }
            }
            // The report waits for the application to let go of the ring.
            assert!(!receiver.is_finished());
            drop(ring);
            // The leases still held outlive the ring and keep their bytes.
            let report = receiver.join().expect("readout");
            for l in &held {
                assert_eq!(stream::mismatches(l.offset(), l), 0);
            }
            (report, read, errors, largest_held)
        })
        .expect("netns");
    stop.store(true, Ordering::Relaxed);
    feb.join().expect("board");
    assert_eq!((read, errors), (limit, 0));
    assert!(largest_held > 0);
    assert!(report.complete, "{:?}", report.problems());
    let b = &report.boards[0];
    assert_eq!((b.bytes, b.bytes_received), (limit, limit));
    assert_eq!(
        b.verified_bytes, None,
        "the application verifies, not the receiver"
    );
}
