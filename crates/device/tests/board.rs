//! The emulated FADE board started in-process from its library, on a
//! real veth pair between two network namespaces: what it does with no
//! host, when stopped, and on a link too small for its frames. (Boards
//! streaming to a host are tested with the readout library, in
//! crates/readout/tests.) Needs root.

use std::time::{Duration, Instant};

use linerate_device::board::{
    self, BoardConfig, BoardError, BoardHandle, BoardReport, WireVersion,
};
use linerate_testbed::Testbed;

/// Starts a board on `host` with `config`, from a thread inside the
/// host's namespace (the board's thread inherits it).
fn start(bed: &Testbed, host: &str, config: BoardConfig) -> Result<BoardHandle, BoardError> {
    let interface = bed.iface(host).expect("iface").name.clone();
    bed.run_in(host, None, move || {
        board::spawn(BoardConfig {
            interface,
            ..config
        })
    })
    .expect("netns")
}

/// The keys of `linerate fade feb --json`.
const REPORT_KEYS: [&str; 28] = [
    "acks",
    "bytes_confirmed",
    "clamped_hints",
    "commands",
    "confirmed_packets",
    "controller",
    "delay_ns",
    "done",
    "error",
    "foreign_acks",
    "foreign_commands",
    "hint_gap_ns",
    "kernel_drops",
    "kernel_frames",
    "mac",
    "owner",
    "rejected",
    "resent",
    "reset",
    "response_packets",
    "retransmit_timeout_ns",
    "ring_slots",
    "send_refused",
    "sent",
    "stale_acks",
    "seconds",
    "takeovers",
    "version",
];

#[test]
fn a_board_without_a_host_gives_up_after_its_duration_and_an_endless_one_stops_when_told() {
    let bed = Testbed::builder("devboard")
        .hosts(["feb", "pc"])
        .build()
        .expect("bed (needs root)");
    let mac = bed.mac("feb").expect("mac");

    // No host sends START: the board ends on its own after its duration,
    // its report naming the failure.
    let started = Instant::now();
    let b = start(
        &bed,
        "feb",
        BoardConfig {
            duration: Some(Duration::from_millis(200)),
            ..BoardConfig::default()
        },
    )
    .expect("board");
    assert_eq!(b.mac(), mac);
    assert!(!b.snapshot().streaming);
    assert!(b.wait_timeout(Duration::from_secs(5)), "ended on its own");
    assert!(started.elapsed() >= Duration::from_millis(200));
    let r: BoardReport = b.wait().expect("report");
    assert!(
        r.error
            .as_deref()
            .is_some_and(|e| e.contains("no host sent START")),
        "{r:?}"
    );
    assert_eq!((r.sent, r.bytes_confirmed, r.seconds), (0, 0, 0.0));
    assert_eq!((r.mac.clone(), r.version.as_str()), (mac.to_string(), "1"));
    assert_eq!(r.controller, "fair");
    assert_eq!(r.ring_slots, 256);
    // Its kernel counters come from the ring the board read.
    assert!(
        r.kernel_frames.is_some() && r.kernel_drops == Some(0),
        "{r:?}"
    );

    // The JSON is that of `fade feb --json`: its keys, and back again.
    let v = serde_json::to_value(&r).expect("json");
    let mut keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    let mut want = REPORT_KEYS.to_vec();
    keys.sort_unstable();
    want.sort_unstable();
    assert_eq!(keys, want);
    let back: BoardReport = serde_json::from_value(v).expect("parses back");
    assert_eq!(back, r);

    // Without a limit the board waits for START until told to stop.
    let b = start(&bed, "feb", BoardConfig::default()).expect("board");
    std::thread::sleep(Duration::from_millis(100));
    assert!(!b.is_finished());
    let r = b.stop().expect("report");
    assert!(!r.done && r.error.is_none() && r.owner.is_none(), "{r:?}");

    // FADE-10G's jumbo frames do not fit this link's MTU: refused up
    // front, naming the interface and both sizes.
    let e = start(
        &bed,
        "feb",
        BoardConfig {
            version: WireVersion::TenG,
            ..BoardConfig::default()
        },
    )
    .expect_err("MTU 1500");
    assert!(
        matches!(&e, BoardError::Mtu { mtu: 1500, need: 8218, interface } if interface == "eth0"),
        "{e}"
    );
}
