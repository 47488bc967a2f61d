//! `linerate camera` driven over raw GVCP with our own codec: heartbeat
//! expiry stops the stream, a second host is refused while one holds
//! control, and garbage datagrams never bring the camera down.

use std::net::{SocketAddrV4, UdpSocket};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use linerate_gev::device::registers::bootstrap as bs;
use linerate_gev::device::registers::device as dev;
use linerate_testbed::Testbed;

mod common;

use common::{stop_camera, Client};
use linerate_wire::gvcp::{Command, CommandRepr};
use linerate_wire::gvsp::PacketRepr;
use linerate_wire::Status;

fn bed(name: &str) -> Testbed {
    common::two_host_bed(name)
}

fn start_camera(bed: &Testbed) -> Child {
    common::start_camera(bed, &["--width", "256", "--height", "64"])
}

#[test]
fn heartbeat_expiry_releases_control_and_stops_the_stream() {
    let bed = bed("gvcphb");
    let camera_child = start_camera(&bed);
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let (packets_while_alive, packets_after_silence, ccp_after) = bed
        .run_in("pc", None, move || {
            std::thread::sleep(Duration::from_millis(300));
            let stream = UdpSocket::bind(SocketAddrV4::new(pc, 0)).expect("stream socket");
            stream
                .set_read_timeout(Some(Duration::from_millis(100)))
                .expect("timeout");
            let port = stream.local_addr().expect("addr").port();
            let mut host = Client::new(cam);
            assert_eq!(
                host.write(&[(bs::CONTROL_CHANNEL_PRIVILEGE, bs::ccp::CONTROL_ACCESS)]),
                Status::SUCCESS
            );
            // A second host may read but not write while the first holds control.
            let mut other = Client::new(cam);
            assert_eq!(other.write(&[(dev::WIDTH, 128)]), Status::ACCESS_DENIED);
            assert_eq!(other.read(dev::WIDTH), 256);
            let sc = bs::STREAM_CHANNEL_BASE;
            assert_eq!(
                host.write(&[
                    (bs::HEARTBEAT_TIMEOUT, 600),
                    (sc + bs::SCDA, u32::from(pc)),
                    (sc + bs::SCP, u32::from(port)),
                    (sc + bs::SCPS, 1500),
                    (dev::ACQUISITION_FRAME_RATE, 200f32.to_bits()),
                    (dev::ACQUISITION_START, 1),
                ]),
                Status::SUCCESS
            );
            // Keep control alive for a second: frames flow.
            let mut buf = vec![0u8; 9000];
            let mut alive = 0u32;
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(1) {
                if t.elapsed().as_millis() % 200 < 5 {
                    host.read(bs::CONTROL_CHANNEL_PRIVILEGE);
                }
                if let Ok(n) = stream.recv(&mut buf) {
                    PacketRepr::parse(&buf[..n]).expect("valid GVSP");
                    alive += 1;
                }
            }
            // Fall silent: after 600 ms the camera must stop streaming.
            std::thread::sleep(Duration::from_millis(1200));
            while stream.recv(&mut buf).is_ok() {}
            let mut after = 0u32;
            let t = Instant::now();
            while t.elapsed() < Duration::from_millis(500) {
                if stream.recv(&mut buf).is_ok() {
                    after += 1;
                }
            }
            (alive, after, other.read(bs::CONTROL_CHANNEL_PRIVILEGE))
        })
        .expect("run in pc");
    let counters = stop_camera(camera_child);
    assert!(
        packets_while_alive > 100,
        "only {packets_while_alive} packets while in control"
    );
    assert_eq!(
        packets_after_silence, 0,
        "stream went on after the heartbeat expired"
    );
    assert_eq!(
        ccp_after, 0,
        "control not released after the heartbeat expired"
    );
    assert!(
        counters["frames_sent"].as_u64().is_some_and(|n| n > 10),
        "{counters}"
    );
    // The stream thread's own CPU time, read as it exited.
    let cpu = &counters["send_thread_cpu"];
    let total = cpu["total_s"].as_f64().unwrap_or(-1.0);
    let parts = cpu["user_s"].as_f64().unwrap_or(0.0) + cpu["system_s"].as_f64().unwrap_or(0.0);
    assert!(total >= 0.0 && (total - parts).abs() < 1e-6, "{counters}");
    assert!(
        cpu["pct"]
            .as_f64()
            .is_some_and(|p| (0.0..=100.5).contains(&p)),
        "{counters}"
    );
}

#[test]
fn garbage_datagrams_never_bring_the_camera_down() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;

    let bed = bed("gvcpjunk");
    let camera_child = start_camera(&bed);
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let answered = bed
        .run_in("pc", None, move || {
            std::thread::sleep(Duration::from_millis(300));
            let sock = UdpSocket::bind("0.0.0.0:0").expect("bind");
            let mut runner = TestRunner::deterministic();
            let junk = proptest::collection::vec(proptest::num::u8::ANY, 0..600);
            for i in 0..3000u32 {
                let mut d = junk.new_tree(&mut runner).expect("value").current();
                // Make a third of them look like commands, to reach the parsers.
                if i % 3 == 0 && d.len() >= 8 {
                    d[0] = 0x42;
                    let len = (d.len() - 8) as u16;
                    d[4..6].copy_from_slice(&len.to_be_bytes());
                }
                sock.send_to(&d, cam).expect("send");
            }
            // The camera still answers a well-formed command.
            let mut c = Client::new(cam);
            c.read(bs::VERSION)
        })
        .expect("run in pc");
    assert_eq!(answered, 0x0002_0000);
    stop_camera(camera_child);
}

/// One datagram and the kernel's arrival timestamp (SO_TIMESTAMPNS).
fn recv_stamped(socket: &UdpSocket, buf: &mut [u8]) -> Option<(usize, Duration)> {
    linerate_io::socket::recv_with_arrival_time(socket, buf).ok()
}

/// Takes control, points stream channel 0 at a fresh socket in the host
/// namespace, applies `extra` register writes and starts acquisition.
fn start_stream(
    cam: SocketAddrV4,
    pc: std::net::Ipv4Addr,
    extra: &[(u32, u32)],
) -> (Client, UdpSocket) {
    let stream = UdpSocket::bind(SocketAddrV4::new(pc, 0)).expect("stream socket");
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("timeout");
    let port = stream.local_addr().expect("addr").port();
    let mut host = Client::new(cam);
    assert_eq!(
        host.write(&[(bs::CONTROL_CHANNEL_PRIVILEGE, bs::ccp::CONTROL_ACCESS)]),
        Status::SUCCESS
    );
    let sc = bs::STREAM_CHANNEL_BASE;
    let mut writes = vec![
        (sc + bs::SCDA, u32::from(pc)),
        (sc + bs::SCP, u32::from(port)),
        (sc + bs::SCPS, 1500),
    ];
    writes.extend_from_slice(extra);
    writes.push((dev::ACQUISITION_START, 1));
    assert_eq!(host.write(&writes), Status::SUCCESS);
    (host, stream)
}

#[test]
fn extended_ids_when_the_host_enables_them() {
    let bed = bed("gvcpext");
    let camera_child = start_camera(&bed);
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let headers = bed
        .run_in("pc", None, move || {
            std::thread::sleep(Duration::from_millis(300));
            let ext = bs::gvsp_configuration::EXTENDED_IDS;
            let (mut host, stream) = start_stream(cam, pc, &[(bs::GVSP_CONFIGURATION, ext)]);
            let mut buf = vec![0u8; 9000];
            let mut headers = Vec::new();
            while headers.len() < 50 {
                let n = stream.recv(&mut buf).expect("stream packet");
                headers.push(PacketRepr::parse(&buf[..n]).expect("valid GVSP").header);
            }
            host.write(&[(dev::ACQUISITION_STOP, 1)]);
            headers
        })
        .expect("run in pc");
    stop_camera(camera_child);
    assert!(
        headers.iter().all(|h| h.extended),
        "standard header while extended ids are on"
    );
    assert!(headers.iter().all(|h| h.block_id >= 1));
}

#[test]
fn resend_serves_held_frames_and_refuses_lost_ones() {
    use linerate_wire::gvcp::PacketResend;
    use linerate_wire::gvsp::Body;

    let bed = bed("gvcpresend");
    let camera_child = start_camera(&bed);
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let (resent, unavailable) = bed
        .run_in("pc", None, move || {
            std::thread::sleep(Duration::from_millis(300));
            // 256x64 Mono8 at 200 fps: 16 frames (the default ring) last 80 ms.
            let (mut host, stream) =
                start_stream(cam, pc, &[(dev::ACQUISITION_FRAME_RATE, 200f32.to_bits())]);
            let mut buf = vec![0u8; 9000];
            let mut newest = 0u64;
            let t = Instant::now();
            while t.elapsed() < Duration::from_millis(500) {
                if let Ok(n) = stream.recv(&mut buf) {
                    newest =
                        newest.max(PacketRepr::parse(&buf[..n]).expect("GVSP").header.block_id);
                }
            }
            host.write(&[(dev::ACQUISITION_STOP, 1)]);
            std::thread::sleep(Duration::from_millis(100));
            while stream.recv(&mut buf).is_ok() {}
            // The request comes from the stream socket, as Aravis sends it.
            let mut ask = |block_id: u64| {
                let cmd = CommandRepr::new(
                    Command::PacketResend(PacketResend {
                        channel: 0,
                        block_id,
                        first_packet_id: 1,
                        last_packet_id: 2,
                        extended: false,
                    }),
                    77,
                );
                stream
                    .send_to(&cmd.to_vec().expect("encode"), cam)
                    .expect("send");
                let mut got = Vec::new();
                while let Ok(n) = stream.recv(&mut buf) {
                    let p = PacketRepr::parse(&buf[..n]).expect("GVSP");
                    got.push((
                        p.header.status,
                        p.header.block_id,
                        p.header.packet_id,
                        matches!(p.body, Body::Empty),
                    ));
                }
                got
            };
            let held = ask(newest);
            (held, ask(1))
        })
        .expect("run in pc");
    let counters = stop_camera(camera_child);
    assert_eq!(resent.len(), 2, "{resent:?}");
    assert!(
        resent
            .iter()
            .all(|&(s, _, _, empty)| s == Status::PACKET_RESEND && !empty),
        "{resent:?}"
    );
    assert_eq!(unavailable.len(), 1, "{unavailable:?}");
    assert_eq!(unavailable[0].0, Status::PACKET_UNAVAILABLE);
    assert!(unavailable[0].3, "an error-status packet carries no data");
    assert_eq!(counters["packets_resent"], 2, "{counters}");
    assert_eq!(counters["resend_unavailable"], 1, "{counters}");
}

#[test]
fn packet_delay_spreads_a_frame_over_time() {
    let bed = bed("gvcpscpd");
    let camera_child = start_camera(&bed);
    let cam = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let pc = bed.addr("pc").expect("addr");
    let sc = bs::STREAM_CHANNEL_BASE;
    // Time from the first to the last packet of each whole block received,
    // in microseconds.
    let spreads = move |delay_ns: u32| {
        let (mut host, stream) = start_stream(
            cam,
            pc,
            &[
                (sc + bs::SCPD, delay_ns),
                (dev::ACQUISITION_FRAME_RATE, 10f32.to_bits()),
            ],
        );
        let mut buf = vec![0u8; 9000];
        // Arrival times from the kernel (SO_TIMESTAMPNS), so a receive
        // thread scheduled late on a busy machine does not shorten the spread.
        linerate_io::socket::enable_arrival_times(&stream).expect("SO_TIMESTAMPNS");
        let mut times: Vec<(u64, Duration)> = Vec::new();
        while times.len() < 60 {
            if let Some((n, at)) = recv_stamped(&stream, &mut buf) {
                let h = PacketRepr::parse(&buf[..n]).expect("GVSP").header;
                times.push((h.block_id, at));
            }
        }
        host.write(&[
            (dev::ACQUISITION_STOP, 1),
            (bs::CONTROL_CHANNEL_PRIVILEGE, 0),
        ]);
        // 256x64 Mono8 in 1500-byte packets: 14 packets a block. The
        // blocks after the first (which may have started before the
        // socket listened) and before the last (cut off at 60 packets).
        let first = times[0].0;
        let last = times[times.len() - 1].0;
        let mut blocks: Vec<u64> = times.iter().map(|t| t.0).collect();
        blocks.dedup();
        let whole: Vec<u128> = blocks
            .into_iter()
            .filter(|&b| b != first && b != last)
            .map(|block| {
                let of_block: Vec<Duration> =
                    times.iter().filter(|t| t.0 == block).map(|t| t.1).collect();
                assert_eq!(
                    of_block.len(),
                    14,
                    "block {block}: {} packets",
                    of_block.len()
                );
                (of_block[13] - of_block[0]).as_micros()
            })
            .collect();
        assert!(whole.len() >= 2, "only {} whole blocks", whole.len());
        whole
    };
    let (fast, paced) = bed
        .run_in("pc", None, move || {
            std::thread::sleep(Duration::from_millis(300));
            (spreads(0), spreads(250_000))
        })
        .expect("run in pc");
    stop_camera(camera_child);
    // 13 gaps of 250 µs leave the sender 3.25 ms apart from first to last
    // packet; the receiver sees at least 2.6 ms of that in every block, even
    // when a first packet reaches it late. Unpaced, a block is a burst: a
    // sender preempted on a busy machine can stretch one, so the quickest
    // block is the one that shows it.
    let paced_min = paced.iter().copied().min().unwrap_or(0);
    assert!(
        paced_min >= 2_600,
        "SCPD 250 µs spread a block over only {paced_min} µs: {paced:?}"
    );
    let fast_min = fast.iter().copied().min().unwrap_or(u128::MAX);
    assert!(
        fast_min < 2_000,
        "every unpaced block took 2 ms or more: {fast:?} µs"
    );
}

#[test]
fn discover_lists_our_camera_and_aravis_fake_camera() {
    assert!(linerate_io::privilege::is_root(), "needs root");
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let bed = Testbed::builder("disco")
        .hosts(["cam", "fake", "pc"])
        .switch()
        .build()
        .expect("bench");
    let ours = start_camera(&bed);
    let fake_ip = bed.addr("fake").expect("addr");
    let mut fake = bed
        .command("fake", "arv-fake-gv-camera-0.8")
        .expect("command")
        .into_command()
        .expect("command");
    let mut fake = fake
        .args(["-i", "eth0", "-s", "FAKE42"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("arv-fake-gv-camera-0.8 (scripts/test installs aravis-tools)");
    std::thread::sleep(Duration::from_millis(500));
    let pc_ip = bed.addr("pc").expect("addr").to_string();
    let out = bed
        .command("pc", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .args(["discover", "--interface", &pc_ip, "--json"])
        .output()
        .expect("discover");
    // Aravis's fake camera has no FORCEIP: force-ip says it neither
    // acknowledged nor moved, instead of claiming success.
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let fake_mac = listed["devices"]
        .as_array()
        .and_then(|l| l.iter().find(|d| d["serial"] == "FAKE42"))
        .and_then(|d| d["mac"].as_str())
        .unwrap_or_else(|| panic!("fake camera not listed: {listed}"))
        .to_owned();
    let o = bed.addr("pc").expect("addr").octets();
    let unused = format!("{}.{}.{}.200", o[0], o[1], o[2]);
    let forced = bed
        .command("pc", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .args(["force-ip", &fake_mac, &unused, "--interface", &pc_ip])
        .args(["--json", "--wait-ms", "600"])
        .output()
        .expect("force-ip");
    let _ = fake.kill();
    let _ = fake.wait();
    stop_camera(ours);
    let report: serde_json::Value = serde_json::from_slice(&forced.stdout).expect("JSON");
    assert!(!forced.status.success(), "{report}");
    assert_eq!(report["ack"], serde_json::Value::Null, "{report}");
    assert_eq!(
        report["answers_at"],
        fake_ip.to_string().as_str(),
        "{report}"
    );
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.contains("no FORCEIP ack")),
        "{report}"
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let list = list["devices"].as_array().expect("array");
    let cam_ip = bed.addr("cam").expect("addr").to_string();
    let ours = list
        .iter()
        .find(|d| d["ip"] == cam_ip.as_str())
        .unwrap_or_else(|| panic!("{list:?}"));
    assert_eq!(ours["vendor"], "linerate");
    assert_eq!(ours["serial"], "LR001001");
    assert_eq!(ours["mac"], bed.mac("cam").expect("mac").to_string());
    let fake = list
        .iter()
        .find(|d| d["ip"] == fake_ip.to_string().as_str())
        .unwrap_or_else(|| panic!("{list:?}"));
    assert_eq!(fake["serial"], "FAKE42");
    assert_eq!(fake["vendor"], "Aravis");
}

/// Runs `ip -n NETNS ARGS` and fails the test if it fails.
fn ip_in(netns: &str, args: &[&str]) {
    let out = std::process::Command::new("ip")
        .arg("-n")
        .arg(netns)
        .args(args)
        .output()
        .expect("ip");
    assert!(
        out.status.success(),
        "ip -n {netns} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `linerate discover ARGS` on host "pc"; returns exit success, stdout, stderr.
fn discover_from_pc(bed: &Testbed, args: &[&str]) -> (bool, String, String) {
    let out = bed
        .command("pc", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .arg("discover")
        .args(args)
        .output()
        .expect("discover");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn discover_asks_every_interface_not_only_the_default_route() {
    common::require_root();
    // pc has two interfaces: one to the camera, one to a router "gw"
    // that carries its default route.
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let bed = Testbed::builder("discoif")
        .hosts(["cam", "pc", "gw"])
        .link("cam", "pc")
        .link("pc", "gw")
        .build()
        .expect("bench");
    let pc_ns = bed.netns("pc").expect("netns").to_owned();
    let gw_ip = bed.addr_seen_from("pc", "gw").expect("gw addr").to_string();
    let pc_to_cam = bed
        .host("pc")
        .expect("pc")
        .ifaces
        .iter()
        .find(|i| i.peer_host == "cam")
        .expect("pc's interface to cam")
        .clone();
    ip_in(&pc_ns, &["route", "add", "default", "via", &gw_ip]);
    let camera = common::start_camera(&bed, &["--width", "256", "--height", "64"]);
    std::thread::sleep(Duration::from_millis(300));
    let cam_ip = bed.addr("cam").expect("addr").to_string();

    let find = |json: &str| -> serde_json::Value {
        let list: serde_json::Value = serde_json::from_str(json).expect("JSON");
        list["devices"]
            .as_array()
            .expect("array")
            .iter()
            .find(|d| d["ip"] == cam_ip.as_str())
            .cloned()
            .unwrap_or_else(|| panic!("camera {cam_ip} not discovered: {json}"))
    };
    let (ok, out, err) = discover_from_pc(&bed, &["--json", "--wait-ms", "300"]);
    assert!(ok, "{err}");
    let dev = find(&out);
    assert_eq!(dev["interface"], pc_to_cam.name.as_str());
    assert_eq!(dev["interface_ip"], pc_to_cam.ipv4.to_string().as_str());
    assert_eq!(dev["reachable"], true);

    // By interface name and by address, and with no default route at all.
    let (ok, out, err) = discover_from_pc(
        &bed,
        &["--json", "--wait-ms", "300", "--interface", &pc_to_cam.name],
    );
    assert!(ok, "{err}");
    find(&out);
    ip_in(&pc_ns, &["route", "del", "default"]);
    let by_ip = pc_to_cam.ipv4.to_string();
    let (ok, out, err) =
        discover_from_pc(&bed, &["--json", "--wait-ms", "300", "--interface", &by_ip]);
    assert!(ok, "{err}");
    find(&out);
    let (ok, out, err) = discover_from_pc(&bed, &["--json", "--wait-ms", "300"]);
    assert!(ok, "{err}");
    find(&out);

    // A bad interface is named in the error.
    let (ok, _, err) = discover_from_pc(&bed, &["--interface", "nosuch0"]);
    assert!(!ok);
    assert!(err.contains("nosuch0"), "{err}");

    // A second camera on an address outside pc's (now /24) subnet answers,
    // and is reported as one this host cannot reach.
    let cam_ns = bed.netns("cam").expect("netns").to_owned();
    let cam_iface = bed.iface("cam").expect("iface").name.clone();
    ip_in(
        &cam_ns,
        &["addr", "add", "169.254.7.1/16", "dev", &cam_iface],
    );
    let pc_cidr16 = format!("{}/16", pc_to_cam.ipv4);
    let pc_cidr24 = format!("{}/24", pc_to_cam.ipv4);
    ip_in(&pc_ns, &["addr", "del", &pc_cidr16, "dev", &pc_to_cam.name]);
    ip_in(&pc_ns, &["addr", "add", &pc_cidr24, "dev", &pc_to_cam.name]);
    let mut other = bed
        .command("cam", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command");
    let other = other
        .args([
            "camera",
            "--bind",
            "169.254.7.1",
            "--stats-interval",
            "0",
            "--json",
        ])
        .args(["--serial", "LR007"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("second camera");
    std::thread::sleep(Duration::from_millis(300));
    let (ok, out, err) = discover_from_pc(&bed, &["--json", "--wait-ms", "300"]);
    let (table_ok, table, warnings) = discover_from_pc(&bed, &["--wait-ms", "300"]);
    let _ = linerate_io::process::send_signal(other.id(), linerate_io::process::Signal::Terminate);
    let _ = other.wait_with_output();
    stop_camera(camera);
    assert!(ok && table_ok, "{err} {warnings}");
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let far = list["devices"]
        .as_array()
        .expect("array")
        .iter()
        .find(|d| d["ip"] == "169.254.7.1")
        .unwrap_or_else(|| panic!("second camera not discovered: {out}"));
    assert_eq!(far["reachable"], false);
    assert_eq!(find(&out)["reachable"], true);
    assert!(table.contains("169.254.7.1"), "{table}");
    assert!(
        warnings.contains("169.254.7.1") && warnings.contains("not on that interface's subnet"),
        "{warnings}"
    );
}

#[test]
fn a_second_camera_on_the_same_address_is_refused_by_name() {
    let bed = bed("gvcpdup");
    let first = start_camera(&bed);
    std::thread::sleep(Duration::from_millis(300));
    let ip = bed.addr("cam").expect("addr").to_string();
    let second = bed
        .command("cam", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .args(["camera", "--bind", &ip, "--stats-interval", "0"])
        .output()
        .expect("second camera");
    let counters = stop_camera(first);
    assert!(!second.status.success(), "the second camera started");
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains(&format!("{ip}:3956")) && err.contains("already in use"),
        "{err}"
    );
    assert!(counters.is_object(), "{counters}");
}

/// The ports a Linux host picks its GVCP socket from (ip_local_port_range):
/// an attacker who knows the host's address sweeps them all.
const EPHEMERAL_PORTS: std::ops::RangeInclusive<u16> = 32768..=60999;

/// What a port sweep did: datagrams forged, how long the sweep took, grab's
/// exit and JSON report, when grab ended (from the sweep's start), and the
/// camera's counters.
struct Sweep {
    forged: u64,
    sweep_took: Duration,
    grab: std::process::Output,
    report: serde_json::Value,
    grab_ended_after: Duration,
    camera: serde_json::Value,
}

/// A camera on "srv", `linerate grab` on "vic", and an attacker on "atk"
/// that forges `writes` as a WRITEREG from vic's IP, once from every
/// ephemeral port.
fn sweep_ports_with(name: &str, writes: impl Fn(SocketAddrV4) -> Vec<(u32, u32)>) -> Sweep {
    let bed = common::spoof::spoof_bed(name);
    let cam_ip = bed.addr("srv").expect("addr");
    let host_ip = bed.addr("vic").expect("addr");
    let attacker = SocketAddrV4::new(bed.addr("atk").expect("addr"), 50_000);
    let ip = cam_ip.to_string();
    let camera = bed
        .command("srv", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command")
        .args(["camera", "--bind", &ip, "--stats-interval", "0", "--json"])
        .args(["--width", "256", "--height", "64"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start camera");
    let camera = common::KillOnDrop::new(camera);
    std::thread::sleep(Duration::from_millis(300));
    let grab = bed
        .command("vic", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command")
        .args(["grab", &ip, "--duration", "20", "--fps", "100", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start grab");
    let grab = common::KillOnDrop::new(grab);
    std::thread::sleep(Duration::from_millis(1500));
    let writes = writes(attacker)
        .into_iter()
        .map(|(address, value)| linerate_wire::gvcp::RegisterWrite { address, value })
        .collect();
    let command = CommandRepr::new(Command::WriteReg { writes }, 0x7a11)
        .to_vec()
        .expect("encode");
    let camera_gvcp = SocketAddrV4::new(cam_ip, 3956);
    let started = Instant::now();
    let forged = bed
        .run_in("atk", None, move || {
            let sock = linerate_io::inject::Ipv4Injector::open().expect("raw socket");
            let mut sent = 0u64;
            for port in EPHEMERAL_PORTS {
                let from = SocketAddrV4::new(host_ip, port);
                let packet = common::spoof::udp_packet(from, camera_gvcp, &command);
                sock.send(&packet, camera_gvcp).expect("spoofed send");
                sent += 1;
                // Paced (about 30 000 a second) so that the camera, on a
                // shared 2-core machine, reads nearly every one.
                if sent % 16 == 0 {
                    std::thread::sleep(Duration::from_micros(500));
                }
            }
            sent
        })
        .expect("namespace");
    let sweep_took = started.elapsed();
    let grab = grab.take().wait_with_output().expect("grab exit");
    let grab_ended_after = started.elapsed();
    let camera = stop_camera(camera.take());
    let report = serde_json::from_slice(&grab.stdout).expect("grab prints JSON on failure");
    let sweep = Sweep {
        forged,
        sweep_took,
        grab,
        report,
        grab_ended_after,
        camera,
    };
    eprintln!(
        "forged {} datagrams in {:?}; grab exit {:?} {:?} after the sweep began: {}; camera: {}",
        sweep.forged,
        sweep.sweep_took,
        sweep.grab.status.code(),
        sweep.grab_ended_after,
        sweep.report["error"],
        sweep.camera["gvcp_access_denied"]
    );
    sweep
}

/// Every forged command the camera read but the one that hit the host's
/// own port was refused: as from the controller's IP on another port while
/// the host held control, as from a stranger after it let go.
fn assert_refused_and_counted(s: &Sweep) {
    let denied = &s.camera["gvcp_access_denied"];
    let other_port = denied["controller_ip_other_port"]
        .as_u64()
        .expect("counter");
    let strangers = denied["other_hosts"].as_u64().expect("counter");
    assert!(
        other_port + strangers + 1 >= s.forged * 90 / 100 && other_port + strangers < s.forged,
        "{other_port} + {strangers} of {} forged commands refused",
        s.forged
    );
    assert!(other_port >= 1000, "{other_port} refused while in control");
}

#[test]
fn a_port_sweep_forged_from_the_hosts_address_is_refused_counted_and_named() {
    // A forged AcquisitionStop from the controlling host's IP,
    // one datagram per source port, sent by a third host on the switch.
    let s = sweep_ports_with("gvsweep", |_| vec![(dev::ACQUISITION_STOP, 1)]);
    let error = s.report["error"].as_str().unwrap_or_default();
    assert!(!s.grab.status.success(), "the grab ran on: {}", s.report);
    assert!(
        error.contains("control interference") && error.contains("AcquisitionStatus reads 0"),
        "the stop is not named as someone else's: {error}"
    );
    // The one forgery that hit the host's port was acknowledged to it.
    assert!(
        error.contains(
            "acknowledged a write this program never sent (WRITEREG_ACK, request id 31249)"
        ),
        "{error}"
    );
    assert_refused_and_counted(&s);
}

#[test]
fn a_forged_stream_redirect_is_named_by_the_heartbeat() {
    // The same sweep pointing the stream at the attacker: the heartbeat
    // reads SCDA0 back and ends the grab well before a frame timeout.
    let s = sweep_ports_with("gvredir", |atk| {
        vec![(bs::STREAM_CHANNEL_BASE + bs::SCDA, u32::from(*atk.ip()))]
    });
    let error = s.report["error"].as_str().unwrap_or_default();
    assert!(!s.grab.status.success(), "the grab ran on: {}", s.report);
    assert!(
        error.contains("control interference") && error.contains("SCDA0"),
        "the redirect is not named: {error}"
    );
    assert!(error.contains("never sent"), "{error}");
    // Within a heartbeat (1 s) of the hit, which comes before the sweep ends.
    assert!(
        s.grab_ended_after < s.sweep_took + Duration::from_millis(2000),
        "the grab ended {:?} after a sweep of {:?}",
        s.grab_ended_after,
        s.sweep_took
    );
    assert_refused_and_counted(&s);
}

#[test]
fn force_ip_brings_a_camera_from_another_subnet_onto_the_hosts() {
    // A camera on a subnet pc cannot reach: `discover` offers the
    // exact FORCEIP command; the camera takes the address once its
    // interface has it (the emulator leaves interface addresses alone),
    // and then discover, grab and Aravis find it there.
    let bed = bed("forceip");
    let pc_ns = bed.netns("pc").expect("netns").to_owned();
    let cam_ns = bed.netns("cam").expect("netns").to_owned();
    let pc_if = bed.iface("pc").expect("iface").clone();
    let cam_if = bed.iface("cam").expect("iface").name.clone();
    let pc_cidr = |p: u32| format!("{}/{p}", pc_if.ipv4);
    ip_in(&pc_ns, &["addr", "del", &pc_cidr(16), "dev", &pc_if.name]);
    ip_in(&pc_ns, &["addr", "add", &pc_cidr(24), "dev", &pc_if.name]);
    ip_in(&cam_ns, &["addr", "add", "169.254.7.77/24", "dev", &cam_if]);
    let camera = common::KillOnDrop::new(common::start_camera_at(
        &bed,
        "169.254.7.77",
        &["--width", "256", "--height", "64"],
    ));
    std::thread::sleep(Duration::from_millis(300));

    let (ok, out, warnings) = discover_from_pc(&bed, &["--wait-ms", "300"]);
    assert!(ok && out.contains("169.254.7.77"), "{out} {warnings}");
    let offered = warnings
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("linerate force-ip "))
        .unwrap_or_else(|| panic!("no force-ip command offered: {warnings}"))
        .to_owned();
    let words: Vec<&str> = offered.split_whitespace().collect();
    let new_ip = words[3].to_owned();
    let o = pc_if.ipv4.octets();
    assert_eq!(
        new_ip,
        format!("{}.{}.{}.77", o[0], o[1], o[2]),
        "{offered}"
    );
    assert!(
        offered.ends_with(&format!("--mask 255.255.255.0 --interface {}", pc_if.name)),
        "{offered}"
    );
    let (ok, out, _) = discover_from_pc(&bed, &["--json", "--wait-ms", "300"]);
    assert!(
        ok && out.contains(&offered),
        "JSON lacks the command: {out}"
    );

    // The offered command, as printed. The camera acknowledges and reports
    // the address, but cannot answer there yet: force-ip says so.
    let force_ip = |json: bool| {
        let mut c = bed
            .command("pc", env!("CARGO_BIN_EXE_linerate"))
            .expect("command");
        c.args(&words[1..]);
        if json {
            c.arg("--json");
        }
        c.output().expect("force-ip")
    };
    let first = force_ip(true);
    let report: serde_json::Value = serde_json::from_slice(&first.stdout).expect("JSON");
    assert!(!first.status.success(), "{report}");
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.contains("has not moved")),
        "{report}"
    );
    assert!(
        report["ack"]
            .as_str()
            .is_some_and(|a| a.starts_with("SUCCESS")),
        "{report}"
    );
    assert_eq!(report["reports_ip"], new_ip.as_str(), "{report}");
    assert_eq!(report["answers_at"], "169.254.7.77", "{report}");
    assert!(
        String::from_utf8_lossy(&first.stderr).contains("has not moved"),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );

    // Its interface gets the address (as the device's own network stack
    // would): the camera moves there, and force-ip confirms it.
    ip_in(
        &cam_ns,
        &["addr", "add", &format!("{new_ip}/24"), "dev", &cam_if],
    );
    std::thread::sleep(Duration::from_millis(300));
    let second = force_ip(false);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let (ok, out, _) = discover_from_pc(&bed, &["--json", "--wait-ms", "300"]);
    assert!(ok, "{out}");
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let dev = list["devices"]
        .as_array()
        .expect("array")
        .iter()
        .find(|d| d["ip"] == new_ip.as_str())
        .unwrap_or_else(|| panic!("not at {new_ip}: {out}"));
    assert_eq!(dev["reachable"], true, "{dev}");
    assert_eq!(
        dev["answered_from"],
        format!("{new_ip}:3956").as_str(),
        "{dev}"
    );

    // A grab and Aravis (a peer we did not write) reach it at the new address.
    let grab = bed
        .command("pc", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .args(["grab", &new_ip, "--frames", "20", "--json"])
        .output()
        .expect("grab");
    let report: serde_json::Value = serde_json::from_slice(&grab.stdout).expect("grab JSON");
    let aravis = bed
        .command("pc", "arv-tool-0.8")
        .expect("command")
        .output()
        .expect("arv-tool-0.8 (scripts/test installs aravis-tools)");
    let counters = stop_camera(camera.take());
    assert!(grab.status.success(), "{report}");
    assert_eq!(report["frames_completed"], 20, "{report}");
    let listed = String::from_utf8_lossy(&aravis.stdout);
    assert!(listed.contains(&new_ip), "Aravis lists: {listed}");
    assert!(counters.is_object(), "{counters}");
}
