//! `linerate serve` and `linerate watch` end to end, server and clients in
//! two namespaces: many clients get every frame and verify it, and a client
//! that stops reading is cut loose (or loses frames, counted) without
//! hurting the others, in bounded server memory.

mod common;

use std::net::{SocketAddr, SocketAddrV4, TcpStream};
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use linerate_testbed::Testbed;

fn bed(name: &str) -> Testbed {
    common::require_root();
    Testbed::builder(name)
        .hosts(["srv", "cli"])
        .link("srv", "cli")
        .mtu(9000)
        .build()
        .expect("test bench")
}

fn start_server(bed: &Testbed, port: u16, extra: &[&str]) -> Child {
    let ip = bed.addr("srv").expect("addr").to_string();
    let port = port.to_string();
    let mut cmd = bed
        .command("srv", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command");
    cmd.args(["serve", "--bind", &ip, "--port", &port, "--json"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("start server")
}

fn watch(bed: &Testbed, port: u16, clients: usize, seconds: u32) -> Output {
    watch_with(bed, port, clients, seconds, &[])
}

fn watch_with(bed: &Testbed, port: u16, clients: usize, seconds: u32, extra: &[&str]) -> Output {
    let server = format!("{}:{port}", bed.addr("srv").expect("addr"));
    bed.command("cli", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .args([
            "watch",
            "--connect",
            &server,
            "--clients",
            &clients.to_string(),
            "--duration",
            &seconds.to_string(),
            "--json",
        ])
        .args(extra)
        .output()
        .expect("run watch")
}

fn json(out: &[u8], what: &str) -> serde_json::Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("{what} JSON: {e}: {}", String::from_utf8_lossy(out)))
}

fn server_report(child: Child) -> serde_json::Value {
    let out = child.wait_with_output().expect("server output");
    assert!(
        out.status.success(),
        "server failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout, "server")
}

/// Every client of `w` verified at least `min_frames` frames, none missing.
fn assert_all_complete(w: &serde_json::Value, clients: usize, min_frames: u64) {
    assert_eq!(w["ok"], true, "watch: {w}");
    let list = w["clients"].as_array().expect("clients");
    assert_eq!(list.len(), clients);
    for c in list {
        assert_eq!(c["complete"], true, "{c}");
        assert_eq!(c["frames_missing"], 0, "{c}");
        assert_eq!(c["frames_corrupt"], 0, "{c}");
        let ok = c["frames_ok"].as_u64().expect("frames_ok");
        assert!(ok >= min_frames, "client got only {ok} frames: {c}");
        let (first, last) = (
            c["first_seq"].as_u64().expect("first"),
            c["last_seq"].as_u64().expect("last"),
        );
        assert_eq!(last - first + 1, ok, "a gap in {c}");
    }
}

#[test]
fn thirty_two_clients_get_every_frame_for_ten_seconds() {
    let bed = bed("svf");
    // 32 clients × 50 fps × 128 KiB ≈ 1.7 Gbit/s in total.
    let server = start_server(
        &bed,
        5600,
        &["--fps", "50", "--frame-size", "131072", "--duration", "14"],
    );
    let out = watch(&bed, 5600, 32, 10);
    let w = json(&out.stdout, "watch");
    assert!(
        out.status.success(),
        "watch failed: {w} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 10 s at 50 fps, less a little for connecting and the frame cut at the end.
    assert_all_complete(&w, 32, 450);
    let s = server_report(server);
    assert_eq!(s["clients_accepted"], 32, "{s}");
    assert_eq!(s["frames_dropped"], 0, "{s}");
    assert_eq!(s["clients_cut"], 0, "{s}");
}

#[test]
fn every_method_delivers_verified_frames() {
    let bed = bed("svm");
    for (i, method) in ["write", "sendfile", "splice", "zerocopy", "uring"]
        .into_iter()
        .enumerate()
    {
        let port = 5610 + i as u16;
        let server = start_server(
            &bed,
            port,
            &[
                "--method",
                method,
                "--fps",
                "200",
                "--frame-size",
                "300000",
                "--duration",
                "5",
            ],
        );
        let out = watch(&bed, port, 4, 3);
        let w = json(&out.stdout, "watch");
        assert!(out.status.success(), "{method}: {w}");
        assert_all_complete(&w, 4, 300);
        let s = server_report(server);
        assert_eq!(s["method"], method);
        assert_eq!(s["frames_dropped"], 0, "{method}: {s}");
        if method == "uring" {
            // The pool was registered, and sends were batched: fewer
            // io_uring_enter calls than sends (4 clients per frame).
            assert_eq!(s["uring_fixed_buffers"], true, "{s}");
            let enters = s["syscalls"].as_u64().expect("syscalls");
            let sends = s["uring_sends"].as_u64().expect("sends");
            assert!(sends >= 4 * 300, "{s}");
            assert!(enters * 2 < sends, "{enters} enters for {sends} sends: {s}");
            for c in s["clients"].as_array().expect("clients") {
                assert!(c["zc_completions"].as_u64().expect("notifs") > 0, "{c}");
            }
        }
    }
}

#[test]
fn a_client_that_stops_reading_is_cut_loose_and_hurts_no_one() {
    let s = stalled_client_is_cut_loose(&bed("svs"), 5620, "zerocopy");
    assert_eq!(s["method"], "zerocopy");
}

#[test]
fn a_client_that_stops_reading_is_cut_loose_with_uring_too() {
    let s = stalled_client_is_cut_loose(&bed("urs"), 5625, "uring");
    assert_eq!(s["method"], "uring");
    // The stalled client was cut while the kernel still held its pages:
    // a send still in flight (cancelled) or sends whose notifications had
    // not come. The server then waited for them before rewriting those
    // slots (it stops with an error if they never come; it ended well).
    let stalled = &s["clients"][0];
    let sends = stalled["syscalls"].as_u64().expect("sends");
    let notifs = stalled["zc_completions"].as_u64().expect("notifications");
    assert!(
        s["uring_cancels"].as_u64().expect("cancels") >= 1 || notifs < sends,
        "the stalled client held nothing when cut: {s}"
    );
}

/// Runs a server with `method`, a client that connects and never reads, and
/// 4 watching clients; checks the stalled one is cut and the others get
/// every frame in bounded memory; returns the server's report.
fn stalled_client_is_cut_loose(bed: &Testbed, port: u16, method: &str) -> serde_json::Value {
    let srv = SocketAddrV4::new(bed.addr("srv").expect("addr"), port);
    // Small buffers and pool so the stalled client fills its share fast.
    let server = start_server(
        bed,
        port,
        &[
            "--method",
            method,
            "--fps",
            "100",
            "--frame-size",
            "65536",
            "--slots",
            "12",
            "--queue",
            "4",
            "--send-buffer",
            "262144",
            "--duration",
            "9",
        ],
    );
    // The stalled client: connects from the client host, never reads.
    let stalled: TcpStream = bed
        .run_in("cli", None, move || {
            let deadline = std::time::Instant::now() + Duration::from_secs(3);
            loop {
                let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
                    .expect("socket");
                sock.set_recv_buffer_size(65536).expect("rcvbuf");
                match sock.connect_timeout(&SocketAddr::V4(srv).into(), Duration::from_secs(1)) {
                    Ok(()) => return TcpStream::from(sock),
                    Err(e) => {
                        assert!(std::time::Instant::now() < deadline, "connect: {e}");
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
            }
        })
        .expect("namespace");
    let out = watch(bed, port, 4, 6);
    let w = json(&out.stdout, "watch");
    assert!(out.status.success(), "watch failed: {w}");
    assert_all_complete(&w, 4, 500);
    let s = server_report(server);
    drop(stalled);
    let clients = s["clients"].as_array().expect("clients");
    assert_eq!(clients.len(), 5, "{s}");
    let stalled = &clients[0];
    assert!(
        stalled["end"] == "cut" || stalled["frames_dropped"].as_u64().unwrap_or(0) > 0,
        "the stalled client was neither cut nor dropped frames: {stalled}"
    );
    assert_eq!(stalled["end"], "cut", "{stalled}");
    for c in &clients[1..] {
        assert_eq!(c["frames_dropped"], 0, "{c}");
        assert_ne!(c["end"], "cut", "{c}");
    }
    // Memory: the frame pool is 12 slots of 68 KiB; the whole process stays
    // far below anything a growing queue would need.
    assert!(s["frame_pool_bytes"].as_u64().expect("pool") <= 12 * 69632);
    let rss = s["max_rss_kib"].as_u64().expect("rss");
    assert!(rss > 0 && rss < 64 * 1024, "server RSS {rss} KiB");
    s
}

#[test]
fn udp_subscribers_and_tcp_clients_share_one_stream() {
    let bed = bed("svu");
    let server = start_server(
        &bed,
        5630,
        &[
            "--fps",
            "100",
            "--frame-size",
            "200000",
            "--datagram-size",
            "8972",
            "--duration",
            "6",
        ],
    );
    // Three UDP subscribers and two TCP clients at the same time.
    let (udp, tcp) = std::thread::scope(|sc| {
        let u = sc.spawn(|| watch_with(&bed, 5630, 3, 3, &["--udp"]));
        let t = watch_with(&bed, 5630, 2, 3, &[]);
        (u.join().expect("udp watch"), t)
    });
    let w = json(&udp.stdout, "watch --udp");
    assert!(udp.status.success(), "UDP watch failed: {w}");
    assert_all_complete(&w, 3, 250);
    let w = json(&tcp.stdout, "watch");
    assert!(tcp.status.success(), "TCP watch failed: {w}");
    assert_all_complete(&w, 2, 250);
    let s = server_report(server);
    let subs = s["udp_subscribers"].as_array().expect("subscribers");
    assert_eq!(subs.len(), 3, "{s}");
    for u in subs {
        assert_eq!(u["end"], "left", "{u}");
        assert_eq!(u["frames_failed"], 0, "{u}");
    }
}

#[test]
fn multicast_receivers_get_every_frame_sent_once() {
    let bed = bed("urm");
    let group = "239.255.77.1";
    let server = start_server(
        &bed,
        5650,
        &[
            "--multicast",
            group,
            "--fps",
            "100",
            "--frame-size",
            "200000",
            "--datagram-size",
            "8972",
            "--duration",
            "5",
        ],
    );
    // Three receivers in one process join the group; none subscribes.
    let out = watch_with(&bed, 5650, 3, 3, &["--multicast", group]);
    let w = json(&out.stdout, "watch --multicast");
    assert!(out.status.success(), "multicast watch failed: {w}");
    assert_all_complete(&w, 3, 250);
    let s = server_report(server);
    assert_eq!(
        s["udp_subscribers"].as_array().map(Vec::len),
        Some(0),
        "{s}"
    );
    let m = &s["multicast"];
    assert_eq!(m["group"], format!("{group}:5650"), "{s}");
    assert_eq!(m["frames_failed"], 0, "{s}");
    // Each frame went out once, not once per receiver: 23 datagrams of
    // 8932 payload bytes per 200000-byte frame, every frame published.
    let frames = m["frames_sent"].as_u64().expect("frames");
    assert_eq!(Some(frames), s["frames_published"].as_u64(), "{s}");
    assert_eq!(m["datagrams"].as_u64(), Some(frames * 23), "{s}");
}

#[test]
fn multicast_outside_239_is_refused() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(["serve", "--bind", "127.0.0.1", "--multicast", "224.0.0.5"])
        .output()
        .expect("run serve");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("239.0.0.0/8"), "{err}");
}

#[test]
fn clients_past_the_limit_are_refused_and_the_rest_served() {
    let bed = bed("svl");
    let server = start_server(
        &bed,
        5640,
        &["--fps", "50", "--max-clients", "2", "--duration", "4"],
    );
    let out = watch(&bed, 5640, 3, 2);
    let w = json(&out.stdout, "watch");
    // One of three clients is closed at once, so watch must fail...
    assert!(
        !out.status.success(),
        "watch passed with a refused client: {w}"
    );
    let clients = w["clients"].as_array().expect("clients");
    let refused: Vec<_> = clients.iter().filter(|c| c["complete"] != true).collect();
    assert_eq!(refused.len(), 1, "{w}");
    assert!(refused[0]["error"].is_string(), "{w}");
    // ...while the two admitted clients verify every frame.
    for c in clients.iter().filter(|c| c["complete"] == true) {
        assert_eq!(c["frames_missing"], 0, "{c}");
        assert!(c["frames_ok"].as_u64().expect("frames") >= 80, "{c}");
    }
    let s = server_report(server);
    assert_eq!(s["clients_refused"], 1, "{s}");
    assert_eq!(s["clients_accepted"], 2, "{s}");
}
