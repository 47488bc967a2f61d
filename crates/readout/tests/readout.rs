//! The readout library against boards on real veth links between network
//! namespaces: emulated boards (`linerate_device::board`, started
//! in-process, each in its own namespace) behind a switch, the readout in
//! the host's namespace, nftables dropping FADE frames both ways. Needs
//! root.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use linerate_device::board::{self, BoardConfig, BoardHandle, BoardReport};
use linerate_fade::host::{BoardFailure, HostConfig};
use linerate_fade::stream;
use linerate_fade::version::{TenG, V1};
use linerate_io::raw::RawSocket;
use linerate_readout::link::{open_socket, Backend};
use linerate_readout::ring::RingReader;
use linerate_readout::{Error, LinkConfig, Readout};
use linerate_testbed::{LossRule, Testbed};

fn root() {
    assert!(
        linerate_io::privilege::is_root(),
        "readout tests need root (namespaces, raw sockets)"
    );
}

/// A bed with boards `feb1..febN` and `pc` on one switch.
fn bed(name: &str, boards: usize) -> Testbed {
    root();
    let mut hosts: Vec<String> = (1..=boards).map(|i| format!("feb{i}")).collect();
    hosts.push("pc".into());
    Testbed::builder(name)
        .hosts(hosts.iter().map(String::as_str))
        .switch()
        .build()
        .expect("bed")
}

/// Starts the emulated board of `linerate_device::board` on `host`,
/// in-process: spawned from a thread that entered the host's namespace,
/// so the board's socket and thread live there.
fn board(bed: &Testbed, host: &str, config: BoardConfig) -> BoardHandle {
    let interface = bed.iface(host).expect("iface").name.clone();
    bed.run_in(host, None, move || {
        board::spawn(BoardConfig {
            interface,
            ..config
        })
    })
    .expect("netns")
    .expect("board")
}

/// Reads a ring to its end; returns (bytes, words that failed to verify,
/// the stream's error).
fn read(mut ring: RingReader) -> JoinHandle<(u64, u64, Option<String>)> {
    std::thread::spawn(move || {
        let mut bad = 0;
        loop {
            let p = ring.wait(Duration::from_millis(100));
            if p.available == 0 && (p.eof || p.error.is_some()) {
                return (p.tail, bad, p.error);
            }
            bad += stream::mismatches(p.tail, ring.data());
            let n = ring.data().len() as u64;
            ring.commit(n).expect("commit what was there");
        }
    })
}

fn host_config(bed: &Testbed, boards: usize) -> HostConfig {
    HostConfig {
        boards: (1..=boards)
            .map(|i| bed.mac(&format!("feb{i}")).expect("mac").0)
            .collect(),
        ring_bytes: 4 << 20,
        ..HostConfig::default()
    }
}

#[test]
fn two_boards_through_five_percent_loss_both_ways_deliver_every_byte_verified() {
    through_loss("rdloss", Backend::Raw);
}

#[test]
fn the_ring_backend_delivers_every_byte_through_loss_too() {
    through_loss("rdring", Backend::Ring);
}

/// Two boards through 5 % loss both ways, the readout on `backend`.
fn through_loss(name: &str, backend: Backend) {
    let bed = bed(name, 2);
    bed.set_loss(&LossRule::new("pc", 5.0).ingress().ethertype(0xfade))
        .expect("ingress loss");
    bed.set_loss(&LossRule::new("pc", 5.0).egress().ethertype(0xfade))
        .expect("egress loss");
    let limit = 48 << 20;
    // Boards with the host's byte limit: each ends on its own once the
    // host has every byte (its last ACK, or the host's RESET after it).
    let boards: Vec<_> = ["feb1", "feb2"]
        .iter()
        .map(|h| {
            let config = BoardConfig {
                limit_bytes: Some(limit),
                ..BoardConfig::default()
            };
            board(&bed, h, config)
        })
        .collect();
    let iface = bed.iface("pc").expect("iface").name.clone();
    let host = HostConfig {
        limit_bytes: Some(limit),
        ..host_config(&bed, 2)
    };
    let (outcomes, timings, stamps) = bed
        .run_in("pc", None, move || {
            let link = LinkConfig {
                backend,
                ..LinkConfig::new(iface)
            };
            let (mut readout, rings) = Readout::<V1>::open(link, host).expect("open");
            assert_eq!(readout.backend_report().backend, backend);
            let readers: Vec<_> = rings.into_iter().map(read).collect();
            readout.run(&AtomicBool::new(false)).expect("run");
            for r in readers {
                let (bytes, bad, error) = r.join().expect("reader");
                assert_eq!((bytes, bad, error), (limit, 0, None));
            }
            (
                readout.outcomes(),
                readout.timings().to_vec(),
                readout.ack_stamps(),
            )
        })
        .expect("netns");
    let reports: Vec<BoardReport> = boards
        .into_iter()
        .map(|b| {
            assert!(
                b.wait_timeout(Duration::from_secs(5)),
                "the board ends once the host has its stream"
            );
            b.wait().expect("board report")
        })
        .collect();
    for ((o, t), c) in outcomes.iter().zip(&timings).zip(&reports) {
        assert!(o.complete(Some(limit)), "{o:?}");
        assert_eq!(o.delivered, limit);
        // The board streamed its whole counter stream, ended by its last
        // ACK or the host's RESET, and sent no more than its limit in
        // first sends (1024-byte v1 packets).
        assert!((c.done || c.reset) && c.error.is_none(), "{c:?}");
        assert_eq!(c.sent, limit / 1024, "{c:?}");
        assert!(c.bytes_confirmed <= limit, "{c:?}");
        // Both directions lost frames: the board resent, the host re-ACKed.
        assert!(c.resent > 0 && o.counters.duplicates > 0, "{c:?} {o:?}");
        assert!(o.counters.retransmitted > 0);
        assert!(t.pickup.count() > 0 && t.returned.count() > 0);
        assert!(t.latency.count() > 0, "some ACK latency measured");
    }
    assert!(stamps.stamps > 0 || stamps.stamp_every == 0, "{stamps:?}");
}

#[test]
fn a_silent_board_fails_by_its_mac_and_a_stop_interrupts_the_rest() {
    let bed = bed("rdstop", 2);
    // Only feb1 runs a board, endlessly; feb2 is silent.
    let b = board(&bed, "feb1", BoardConfig::default());
    let iface = bed.iface("pc").expect("iface").name.clone();
    let host = HostConfig {
        idle_timeout_ns: 300_000_000,
        ..host_config(&bed, 2)
    };
    let stop = Arc::new(AtomicBool::new(false));
    let stopper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(800));
            stop.store(true, Ordering::Relaxed);
        })
    };
    let outcomes = bed
        .run_in("pc", None, move || {
            let (mut readout, rings) =
                Readout::<V1>::open(LinkConfig::new(iface), host).expect("open");
            let readers: Vec<_> = rings.into_iter().map(read).collect();
            readout.run(&stop).expect("run");
            let ended = readout.ended_ns().expect("ended");
            // Past feb2's idle timeout, on until the stop (the stopper's
            // 800 ms began before the readout's clock).
            assert!(ended >= 600_000_000, "ran until the stop: {ended} ns");
            let errors: Vec<_> = readers
                .into_iter()
                .map(|r| r.join().expect("reader").2)
                .collect();
            (readout.outcomes(), errors)
        })
        .expect("netns");
    stopper.join().expect("stopper");
    let (outcomes, errors) = outcomes;
    let feb2 = bed.mac("feb2").expect("mac");
    assert!(
        matches!(outcomes[1].failure, Some(BoardFailure::Silent { mac, .. }) if mac == feb2),
        "{:?}",
        outcomes[1]
    );
    assert!(matches!(
        outcomes[0].failure,
        Some(BoardFailure::Interrupted { .. })
    ));
    assert!(outcomes[0].delivered > 0);
    for (o, e) in outcomes.iter().zip(errors) {
        assert_eq!(
            e,
            o.failure.as_ref().map(ToString::to_string),
            "the reader is told"
        );
    }
    // The STOP reached the running board: it sends nothing more, and
    // runs on (an endless board never ends on a command) until stopped.
    std::thread::sleep(Duration::from_millis(50));
    let before = b.snapshot();
    std::thread::sleep(Duration::from_millis(100));
    let after = b.snapshot();
    assert_eq!((before.sent, before.resent), (after.sent, after.resent));
    assert!(!b.is_finished());
    let c = b.stop().expect("board report");
    assert!(c.sent > 0 && !c.done && c.error.is_none(), "{c:?}");
}

#[test]
fn ten_g_without_jumbo_frames_is_refused_before_anything_is_sent() {
    let bed = bed("rdmtu", 1);
    let iface = bed.iface("pc").expect("iface").name.clone();
    let host = host_config(&bed, 1);
    let e = bed
        .run_in("pc", None, move || {
            let mut link = LinkConfig::new(iface);
            link.backend = Backend::Raw;
            Readout::<TenG>::open(link, host)
                .map(|_| ())
                .expect_err("MTU 1500")
        })
        .expect("netns");
    assert!(
        matches!(
            e,
            Error::Mtu {
                mtu: 1500,
                need: 8218,
                ..
            }
        ),
        "{e}"
    );
}

/// A v1 raw socket on the board's end of a one-board bed and one on the
/// host's, for tests that send ACKs by hand.
fn board_and_host_sockets(bed: &Testbed) -> (RawSocket, RawSocket) {
    let (from, to) = (
        bed.iface("pc").expect("iface").name.clone(),
        bed.iface("feb1").expect("iface").name.clone(),
    );
    let rx = bed
        .run_in("feb1", None, move || open_socket::<V1>(&to, 0))
        .expect("netns")
        .expect("board socket");
    let tx = bed
        .run_in("pc", None, move || open_socket::<V1>(&from, 0))
        .expect("netns")
        .expect("host socket");
    (rx, tx)
}

/// More ACKs than one `sendmmsg` takes at once go out in order, all of
/// them, and the stamped ones (one in 8) all come back matched: the
/// batched path splits into `sendmmsg` calls of `MAX_BATCH` without losing a frame
/// or a stamp.
#[test]
fn a_batch_of_acks_larger_than_one_call_goes_out_whole_and_stamped() {
    use linerate_io::raw::MAX_BATCH;
    use linerate_readout::ack_clock::AckClock;
    let bed = bed("rdbatch", 1);
    let (mut rx, mut tx) = board_and_host_sockets(&bed);
    let mut clock = AckClock::new(&mut tx, 8);
    let count = 2 * MAX_BATCH + 5;
    let frames: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            let mut f = vec![0u8; 64];
            assert!(tx.write_header(&mut f, rx.mac()));
            f[14..18].copy_from_slice(&(i as u32).to_be_bytes());
            f
        })
        .collect();
    let refs: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
    // Receive stamps in the past, board 0.
    let received: Vec<(u64, usize)> = (0..count).map(|i| (1 + i as u64, 0)).collect();
    assert_eq!(
        clock.send_batch(&tx, &refs, &received).expect("send"),
        count
    );
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while got.len() < count && Instant::now() < deadline {
        rx.recv(Some(Duration::from_millis(100))).expect("recv");
        for f in rx.frames() {
            got.push(u32::from_be_bytes(
                f.data[14..18].try_into().expect("4 bytes"),
            ));
        }
    }
    assert_eq!(got, (0..count as u32).collect::<Vec<_>>(), "all, in order");
    let mut matched = 0;
    let deadline = Instant::now() + Duration::from_secs(5);
    while matched < count / 8 && Instant::now() < deadline {
        clock
            .collect(&tx, || 0, |_, _| matched += 1)
            .expect("stamps");
    }
    let r = clock.report();
    if r.sent_at == linerate_readout::ack_clock::SentAt::DriverStamp {
        assert_eq!(matched, count / 8, "{r:?}");
        assert_eq!((r.stamps, r.missing_stamps), ((count / 8) as u64, 0));
    } else {
        eprintln!("no keyed transmit stamps on this kernel: only the frames were checked");
    }
}

/// While frames keep coming the receive loop reads stamps only once
/// enough are waiting (`collect_when_due`): with fewer outstanding it
/// makes no call and matches nothing, and the stamps stay queued with
/// their times until a full `collect` takes them.
#[test]
fn stamps_are_read_in_batches_while_busy_and_all_when_idle() {
    use linerate_readout::ack_clock::{AckClock, SentAt};
    let bed = bed("rdlazy", 1);
    let (rx, mut tx) = board_and_host_sockets(&bed);
    // One stamp per ACK, so the count outstanding is the count sent.
    let mut clock = AckClock::new(&mut tx, 1);
    if clock.sent_at() != SentAt::DriverStamp {
        eprintln!("no keyed transmit stamps on this kernel: nothing to batch");
        return;
    }
    let mut frame = vec![0u8; 64];
    assert!(tx.write_header(&mut frame, rx.mac()));
    let send = |clock: &mut AckClock, n: u64| {
        for i in 0..n {
            assert!(clock.send(&tx, &frame, 1 + i, 0).expect("send"));
        }
    };
    let mut matched = 0;
    let due = linerate_io::tx_stamp::MAX_STAMPS as u64;
    send(&mut clock, 3);
    // Stamps are made inside the send on veth: all three are queued now.
    std::thread::sleep(Duration::from_millis(20));
    clock
        .collect_when_due(&tx, || 0, |_, _| matched += 1)
        .expect("stamps");
    assert_eq!(matched, 0, "three outstanding: not yet worth a call");
    send(&mut clock, due - 3);
    std::thread::sleep(Duration::from_millis(20));
    clock
        .collect_when_due(&tx, || 0, |_, _| matched += 1)
        .expect("stamps");
    assert_eq!(
        matched, due,
        "a full read's worth outstanding: all read at once"
    );
    send(&mut clock, 2);
    std::thread::sleep(Duration::from_millis(20));
    clock
        .collect(&tx, || 0, |_, _| matched += 1)
        .expect("stamps");
    assert_eq!(matched, due + 2, "an idle collect takes the rest");
    assert_eq!(clock.report().missing_stamps, 0);
}
