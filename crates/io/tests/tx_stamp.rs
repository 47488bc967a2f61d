//! Driver transmit stamps on a raw socket across a real veth pair between
//! two namespaces: every stamped frame's stamp comes back under its own
//! key, taken between the send's start and its return; unstamped frames
//! produce none; received frames keep their receive stamps. Needs root.

use linerate_io::clock::realtime_ns;
use linerate_io::raw::{RawConfig, RawSocket};
use linerate_io::tx_stamp::TxStamp;
use linerate_testbed::Testbed;

const FADE: u16 = 0xfade;

/// A bed named `name` with feb and pc on one veth pair, and a raw socket
/// in each (pc's, then feb's); the bed must outlive them.
fn pair(name: &str) -> (Testbed, RawSocket, RawSocket) {
    // SAFETY: geteuid has no preconditions.
    assert!(
        unsafe { libc::geteuid() } == 0,
        "raw socket tests need root"
    );
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let bed = Testbed::builder(name)
        .hosts(["feb", "pc"])
        .link("feb", "pc")
        .build()
        .expect("bed");
    let open = |host: &str| {
        let iface = bed.iface(host).expect("iface").name.clone();
        bed.run_in(host, None, move || {
            RawSocket::open(&iface, FADE, &RawConfig::default())
        })
        .expect("netns")
        .expect("raw socket")
    };
    let (pc, feb) = (open("pc"), open("feb"));
    (bed, pc, feb)
}

#[test]
fn stamped_frames_come_back_under_their_keys() {
    let (_bed, mut pc, mut feb) = pair("txstamp");
    pc.enable_tx_stamps().expect("enable stamps");

    let mut frame = vec![0u8; 60];
    assert!(pc.write_header(&mut frame, feb.mac()));
    let mut stamps: Vec<TxStamp> = Vec::new();
    let mut got = Vec::new();
    for i in 0..200u32 {
        frame[14..18].copy_from_slice(&i.to_be_bytes());
        let key = i.wrapping_mul(2_654_435_761); // keys need not be in order
        let before = realtime_ns();
        if i % 4 == 3 {
            // Unstamped: must not produce a stamp.
            assert!(pc.send(&frame).expect("send"));
        } else {
            assert!(pc.send_stamped(&frame, key).expect("stamped send"));
        }
        let after = realtime_ns();
        pc.take_tx_stamps(&mut stamps).expect("drain");
        for s in &stamps {
            got.push((i, key, before, after, *s));
        }
    }
    let stamped: Vec<u32> = (0..200u32).filter(|i| i % 4 != 3).collect();
    assert_eq!(got.len(), stamped.len(), "one stamp per stamped frame");
    for (i, key, before, after, s) in got {
        assert_eq!(s.key, key, "frame {i}: its own key");
        assert!(
            before <= s.ns && s.ns <= after,
            "frame {i}: stamp {} outside its send [{before}, {after}]",
            s.ns
        );
    }
    // The frames arrived, with receive stamps, and nothing more is queued.
    let mut arrived = 0;
    while feb
        .recv(Some(std::time::Duration::from_millis(100)))
        .expect("recv")
        > 0
    {
        for f in feb.frames() {
            assert!(f.timestamp_ns > 0, "receive stamp kept");
            arrived += 1;
        }
    }
    assert_eq!(arrived, 200);
    assert_eq!(pc.take_tx_stamps(&mut stamps).expect("drain"), 0);
}

#[test]
fn a_stamped_batch_brings_the_stamps_asked_for() {
    let (_bed, mut pc, mut feb) = pair("txstampb");
    pc.enable_tx_stamps().expect("enable stamps");
    let frames: Vec<Vec<u8>> = (0..10u8)
        .map(|i| {
            let mut f = vec![i; 60];
            assert!(pc.write_header(&mut f, feb.mac()));
            f
        })
        .collect();
    let refs: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
    // Every third frame asks, under keys 100, 103, ...; the last two
    // frames lie past the keys given and go unstamped.
    let keys: Vec<Option<u32>> = (0..8u32).map(|i| (i % 3 == 0).then_some(100 + i)).collect();
    let before = realtime_ns();
    assert_eq!(pc.send_batch_stamped(&refs, &keys).expect("batch"), 10);
    let after = realtime_ns();
    let mut stamps: Vec<TxStamp> = Vec::new();
    pc.take_tx_stamps(&mut stamps).expect("drain");
    let got: Vec<u32> = stamps.iter().map(|s| s.key).collect();
    assert_eq!(got, vec![100, 103, 106]);
    assert!(
        stamps.iter().all(|s| before <= s.ns && s.ns <= after),
        "{stamps:?}"
    );
    let mut arrived = 0;
    while feb
        .recv(Some(std::time::Duration::from_millis(100)))
        .expect("recv")
        > 0
    {
        arrived += feb.frames().count();
    }
    assert_eq!(arrived, 10);
}

#[test]
fn stamped_send_without_enabling_is_an_error() {
    let (_bed, pc, _feb) = pair("txstamp0");
    let mut frame = vec![0u8; 60];
    assert!(pc.write_header(&mut frame, [0x02, 0, 0, 0, 0, 1]));
    let e = pc.send_stamped(&frame, 1).expect_err("keys need enabling");
    assert!(e.to_string().contains("stamped"), "{e}");
}
