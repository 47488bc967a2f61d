//! AF_XDP receive across a real veth pair between two namespaces: frames
//! of the ethertype arrive whole, in order and time-stamped, jumbo frames
//! included; other ethertypes still reach the kernel; dropping the
//! receiver detaches its program. Needs root.

use std::time::{Duration, Instant};

use linerate_io::clock::monotonic_ns;
use linerate_io::raw::{RawConfig, RawSocket};
use linerate_io::xdp::{AttachMode, XdpConfig, XdpReceiver};
use linerate_testbed::Testbed;

const FADE: u16 = 0xfade;
const OTHER: u16 = 0x88b5;

/// Frame `i` of `len` bytes: header, then the index and a byte pattern.
fn frame(tx: &RawSocket, to: [u8; 6], i: u32, len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len).map(|b| (b as u32 ^ i) as u8).collect();
    assert!(tx.write_header(&mut f, to));
    f[14..18].copy_from_slice(&i.to_be_bytes());
    f
}

/// Sends `count` frames of `len` bytes from feb to pc's XDP receiver and
/// checks every one.
fn frames_arrive_whole_in_order_and_stamped(name: &str, mtu: u32, len: usize, count: u32) {
    // SAFETY: geteuid has no preconditions.
    assert!(unsafe { libc::geteuid() } == 0, "XDP tests need root");
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let bed = Testbed::builder(name)
        .hosts(["feb", "pc"])
        .link("feb", "pc")
        .mtu(mtu)
        .build()
        .expect("bed");
    let feb_if = bed.iface("feb").expect("iface").name.clone();
    let pc_if = bed.iface("pc").expect("iface").name.clone();
    let pc_if2 = pc_if.clone();
    let (rx, other_rx) = bed
        .run_in("pc", None, move || {
            (
                XdpReceiver::open(&pc_if, FADE, &XdpConfig::default()),
                RawSocket::open(&pc_if, OTHER, &RawConfig::default()),
            )
        })
        .expect("netns");
    let mut rx = rx.expect("open xdp");
    let mut other_rx = other_rx.expect("open raw");
    assert_eq!(rx.mode(), AttachMode::Native, "veth has native XDP");
    assert!(!rx.zero_copy(), "veth has no AF_XDP zero-copy");
    let pc_mac = bed
        .run_in("pc", None, move || {
            RawSocket::open(&pc_if2, FADE, &RawConfig::default()).map(|s| s.mac())
        })
        .expect("netns")
        .expect("mac");
    let (tx, other_tx) = bed
        .run_in("feb", None, move || {
            (
                RawSocket::open(&feb_if, FADE, &RawConfig::default()),
                RawSocket::open(&feb_if, OTHER, &RawConfig::default()),
            )
        })
        .expect("netns");
    let (tx, other_tx) = (tx.expect("tx"), other_tx.expect("other tx"));

    let before = monotonic_ns();
    let sent: Vec<Vec<u8>> = (0..count).map(|i| frame(&tx, pc_mac, i, len)).collect();
    let to_send = sent.clone();
    // The receiver reads while the board sends, as in real use: the rings
    // hold 2048 frames, fewer than the test sends.
    let sender = std::thread::spawn(move || {
        for (i, f) in to_send.iter().enumerate() {
            assert!(tx.send(f).expect("send"));
            if i % 64 == 63 {
                std::thread::sleep(Duration::from_micros(500));
            }
        }
        let mut foreign = vec![7u8; 100];
        assert!(other_tx.write_header(&mut foreign, pc_mac));
        assert!(other_tx.send(&foreign).expect("send"));
        tx
    });

    let mut got = 0u32;
    let deadline = Instant::now() + Duration::from_secs(10);
    while got < count && Instant::now() < deadline {
        rx.recv(Some(Duration::from_millis(100))).expect("recv");
        for f in rx.frames() {
            assert!(!f.truncated);
            assert_eq!(f.data, sent[got as usize].as_slice(), "frame {got}");
            assert!(
                f.timestamp_ns >= before && f.timestamp_ns <= monotonic_ns(),
                "frame {got}: stamp {} outside {before}..now",
                f.timestamp_ns
            );
            got += 1;
        }
    }
    let tx = sender.join().expect("sender");
    assert_eq!(got, count, "every frame arrived");
    let stats = rx.stats().expect("stats");
    assert_eq!(stats.seen, u64::from(count), "{stats:?}");
    assert_eq!(stats.received, u64::from(count), "{stats:?}");
    assert_eq!(stats.dropped + stats.fill_ring_empty, 0, "{stats:?}");
    if len > 4096 - 256 {
        assert_eq!(
            stats.multi_buffer,
            u64::from(count),
            "jumbo frames span UMEM frames"
        );
    }

    // The other ethertype went on to the kernel and its packet socket.
    let mut other_got = 0;
    let deadline = Instant::now() + Duration::from_secs(2);
    while other_got == 0 && Instant::now() < deadline {
        other_rx
            .recv(Some(Duration::from_millis(100)))
            .expect("recv");
        other_got += other_rx.frames().count();
    }
    assert_eq!(
        other_got, 1,
        "a frame of another ethertype reaches the kernel"
    );
    assert_eq!(rx.recv(Some(Duration::from_millis(50))).expect("recv"), 0);

    // Frames left on the ring count once each as pending, however many
    // UMEM frames they span, so the account balances.
    for f in &sent[..5] {
        assert!(tx.send(f).expect("send"));
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut stats = rx.stats().expect("stats");
    while stats.seen < u64::from(count) + 5 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
        stats = rx.stats().expect("stats");
    }
    assert_eq!(stats.pending, 5, "{stats:?}");
    assert_eq!(stats.seen, stats.received + stats.pending, "{stats:?}");

    // Dropping the receiver detaches the program: a packet socket on the
    // ethertype receives again.
    drop(rx);
    let pc_if = bed.iface("pc").expect("iface").name.clone();
    let mut plain = bed
        .run_in("pc", None, move || {
            RawSocket::open(&pc_if, FADE, &RawConfig::default())
        })
        .expect("netns")
        .expect("raw");
    assert!(tx.send(&sent[0]).expect("send"));
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut back = 0;
    while back == 0 && Instant::now() < deadline {
        plain.recv(Some(Duration::from_millis(100))).expect("recv");
        back += plain.frames().count();
    }
    assert_eq!(back, 1, "the program was detached with the receiver");
}

#[test]
fn fade_v1_frames_cross_by_xdp() {
    frames_arrive_whole_in_order_and_stamped("xdpv1", 1500, 1048, 5000);
}

#[test]
fn jumbo_frames_cross_by_xdp_in_several_umem_frames() {
    frames_arrive_whole_in_order_and_stamped("xdpjumbo", 9000, 8232, 3000);
}

#[test]
fn an_unknown_interface_is_a_clear_error() {
    let e = XdpReceiver::open("nosuchif0", FADE, &XdpConfig::default()).expect_err("no such if");
    assert!(e.to_string().contains("nosuchif0"), "{e}");
}
