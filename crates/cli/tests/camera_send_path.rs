//! The camera's UDP send path: how it chooses between UDP GSO and one
//! datagram per packet for its egress interface, and what it does with
//! send errors (a packet filter on the camera's own output, nftables
//! `hook output`, makes sends fail with EPERM, as behind a host firewall:
//! no frame may lose its tail; what did not leave is sent or resent).

use std::process::Stdio;

mod common;

const STREAM_PORT: u16 = 40_100;

#[test]
fn eperm_from_an_output_filter_loses_no_frame() {
    let bed = common::two_host_bed("camperm");
    // Drop 5% of the stream's datagrams as the camera sends them.
    let script = format!(
        "table inet camloss {{\n  chain out {{\n    type filter hook output priority 0;\n    \
         udp sport {STREAM_PORT} numgen random mod 1000 < 50 counter drop\n  }}\n}}\n"
    );
    let mut nft = bed
        .command("cam", "nft")
        .expect("command")
        .into_command()
        .expect("command");
    let mut child = nft
        .args(["-f", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("nft (scripts/test installs nftables)");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), script.as_bytes())
        .expect("nft script");
    assert!(child.wait().expect("nft").success(), "nft refused {script}");

    let camera = common::start_camera(&bed, &["--stream-port", &STREAM_PORT.to_string()]);
    let ip = bed.addr("cam").expect("addr").to_string();
    let out = bed
        .command("pc", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command")
        .args([
            "grab",
            &ip,
            "--frames",
            "300",
            "--width",
            "1024",
            "--height",
            "1024",
            "--fps",
            "100",
            "--packet-size",
            "8000",
            "--verify",
            "--json",
        ])
        .output()
        .expect("run grab");
    let counters = common::stop_camera(camera);
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value =
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("grab JSON ({e}): {text}"));
    let rules = bed
        .command("cam", "nft")
        .expect("command")
        .into_command()
        .expect("command")
        .args(["list", "table", "inet", "camloss"])
        .output()
        .expect("nft list");
    let listing = String::from_utf8_lossy(&rules.stdout);
    eprintln!(
        "grab: {} complete, {} incomplete, {} resent; camera: {} send errors; {}",
        v["frames_completed"],
        v["frames_incomplete"],
        v["packets_resent"],
        counters["send_errors"],
        listing
            .lines()
            .find(|l| l.contains("counter"))
            .unwrap_or("")
            .trim()
    );
    assert!(
        !listing.contains("counter packets 0 "),
        "the filter dropped nothing: {listing}"
    );
    assert!(
        counters["send_errors"].as_u64().is_some_and(|n| n > 0),
        "no send failed, so nothing was tested: {counters}"
    );
    assert_eq!(v["frames_corrupt"], 0, "{v}");
    assert_eq!(v["frames_completed"], 300, "{v}");
    assert_eq!(v["frames_incomplete"], 0, "{v}");
}

/// veth passes GSO super-datagrams through while its tx-udp-segmentation
/// is on (the default), and gets them cut by the kernel when it is off:
/// the camera uses GSO only in the second case.
#[test]
fn gso_is_used_only_where_the_egress_segments() {
    let bed = common::two_host_bed("camgsochoice");
    let start_stop = || {
        let camera = common::start_camera(&bed, &[]);
        std::thread::sleep(std::time::Duration::from_millis(300));
        common::stop_camera(camera)
    };
    let default = start_stop();
    assert_eq!(default["udp_send"]["interface"], "eth0", "{default}");
    assert_eq!(default["udp_send"]["driver"], "veth", "{default}");
    assert_eq!(default["udp_send"]["gso"], false, "{default}");

    let off = bed
        .command("cam", "ethtool")
        .expect("command")
        .into_command()
        .expect("command")
        .args(["-K", "eth0", "tx-udp-segmentation", "off"])
        .status()
        .expect("ethtool (scripts/test installs it)");
    assert!(off.success());
    let segmented = start_stop();
    assert_eq!(segmented["udp_send"]["gso"], true, "{segmented}");
    assert!(
        segmented["udp_send"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("tx-udp-segmentation is off")),
        "{segmented}"
    );
}
