//! `linerate serve` and `linerate watch` end to end, server and clients in
//! two namespaces: many clients get every frame and verify it, and a client
//! that stops reading is cut loose (or loses frames, counted) without
//! hurting the others, in bounded server memory.

mod common;

use std::net::{SocketAddr, SocketAddrV4, TcpStream, UdpSocket};
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use linerate_testbed::Testbed;
use linerate_wire::served::{
    SubscribeMessage, SubscribeRepr, COOKIE_LEN, HEADER_LEN, MAGIC, SUBSCRIBE_LEN,
};

fn bed(name: &str) -> Testbed {
    common::require_root();
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
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
        .command(
            "srv",
            std::env::var("LINERATE_BIN").unwrap_or(env!("CARGO_BIN_EXE_linerate").into()),
        )
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
    let v = serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("{what} JSON: {e}: {}", String::from_utf8_lossy(out)));
    // Each report matches the schema `linerate schema` publishes for it.
    match what.split_whitespace().next() {
        Some("watch") => common::schema::assert_matches_schema("watch", &v),
        Some("server") => common::schema::assert_matches_schema("serve", &v),
        _ => {}
    }
    v
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

/// Stops a server started with a long --duration (SIGTERM: it prints its
/// report and exits 0), so a test's phases need not fit a fixed duration
/// on a busy machine; returns the report.
fn stop_server(child: Child) -> serde_json::Value {
    let _ = linerate_io::process::send_signal(child.id(), linerate_io::process::Signal::Terminate);
    server_report(child)
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
                match linerate_io::socket::tcp_connect_with_recv_buffer(
                    srv,
                    65536,
                    Duration::from_secs(1),
                ) {
                    Ok(stream) => return stream,
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
    let rss = s["max_rss_mib"].as_f64().expect("rss");
    assert!(rss > 0.0 && rss < 64.0, "server RSS {rss} MiB");
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
            "--udp",
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

/// Opens `n` connections to `srv` from the client host that never read
/// (64 KiB receive buffers), retrying until the server listens; returns
/// the ones the server accepted or refused alike (a refused one is closed
/// by the server at once).
fn never_reading_clients(bed: &Testbed, srv: SocketAddrV4, n: usize) -> Vec<TcpStream> {
    never_reading_clients_from(bed, "cli", srv, n)
}

/// [`never_reading_clients`] from `host`.
fn never_reading_clients_from(
    bed: &Testbed,
    host: &str,
    srv: SocketAddrV4,
    n: usize,
) -> Vec<TcpStream> {
    bed.run_in(host, None, move || {
        // A server started on a busy machine may take seconds to listen.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            match linerate_io::socket::tcp_connect_with_recv_buffer(
                srv,
                65536,
                Duration::from_secs(1),
            ) {
                Ok(stream) => out.push(stream),
                Err(e) => {
                    assert!(std::time::Instant::now() < deadline, "connect: {e}");
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
        out
    })
    .expect("namespace")
}

#[test]
fn five_hundred_clients_that_never_read_are_cut_and_watchers_get_in() {
    // 500 clients connect and never read. Serve used to admit 64,
    // kept them for the whole run (clients_cut 0), and `watch --clients 4`
    // started afterwards was refused on all 4 clients. Default stall time.
    let bed = bed("svn");
    let port = 5660;
    let srv = SocketAddrV4::new(bed.addr("srv").expect("addr"), port);
    let server = start_server(
        &bed,
        port,
        &["--fps", "50", "--frame-size", "65536", "--duration", "60"],
    );
    let attackers = never_reading_clients(&bed, srv, 500);
    // The default stall time is 3 s; the watchers come 4 s later.
    std::thread::sleep(Duration::from_secs(4));
    let out = watch(&bed, port, 4, 3);
    let w = json(&out.stdout, "watch");
    let s = stop_server(server);
    drop(attackers);
    eprintln!(
        "clients_accepted {} clients_refused {} clients_cut {}; watchers complete {}: {:?}",
        s["clients_accepted"],
        s["clients_refused"],
        s["clients_cut"],
        w["clients_complete"],
        w["clients"]
            .as_array()
            .map(|c| c.iter().map(|c| c["error"].clone()).collect::<Vec<_>>())
    );
    assert!(out.status.success(), "watch after the attack failed: {w}");
    // Every frame from the first (fewer than 50 a second are made on a
    // busy machine).
    assert_all_complete(&w, 4, 50);
    // Cuts may begin while the 500 still connect, so more than 64 get in;
    // every one of them is cut, and the 4 watchers stay.
    // (A connect that timed out in the listen backlog may still have been
    // accepted, then closed by its client.)
    let accepted = s["clients_accepted"].as_u64().expect("accepted");
    let refused = s["clients_refused"].as_u64().expect("refused");
    assert!(accepted + refused >= 504, "{s}");
    // At most --max-clients-per-source (32) of them at a time.
    assert!(s["clients_cut"].as_u64() >= Some(32), "{s}");
    let clients = s["clients"].as_array().expect("clients");
    let (attack, good) = clients.split_at(clients.len() - 4);
    for c in attack {
        assert_ne!(c["end"], "connected", "{c}");
    }
    for c in good {
        assert_ne!(c["end"], "cut", "{c}");
        assert_eq!(c["frames_dropped"], 0, "{c}");
    }
}

#[test]
fn every_method_cuts_clients_that_never_read_within_the_stall_time() {
    let bed = bed("svt");
    for (i, method) in ["write", "sendfile", "splice", "zerocopy", "uring"]
        .into_iter()
        .enumerate()
    {
        let port = 5670 + i as u16;
        let srv = SocketAddrV4::new(bed.addr("srv").expect("addr"), port);
        // Two places, both taken by clients that never read. Their sockets
        // take about half a second of frames; at 20 fps the pool of 32
        // wraps in 1.6 s, so the 0.5-s stall time must act first.
        let server = start_server(
            &bed,
            port,
            &[
                "--method",
                method,
                "--fps",
                "20",
                "--frame-size",
                "65536",
                "--max-clients",
                "2",
                "--stall-timeout",
                "0.5",
                "--duration",
                "60",
            ],
        );
        let stalled = never_reading_clients(&bed, srv, 2);
        std::thread::sleep(Duration::from_millis(1800));
        let out = watch(&bed, port, 2, 2);
        let w = json(&out.stdout, "watch");
        let s = stop_server(server);
        assert!(out.status.success(), "{method}: watch failed: {w}\n{s}");
        assert_all_complete(&w, 2, 20);
        drop(stalled);
        assert_eq!(s["clients_cut"], 2, "{method}: {s}");
        let clients = s["clients"].as_array().expect("clients");
        for c in &clients[..2] {
            assert_eq!(c["end"], "cut", "{method}: {c}");
            assert_eq!(c["cut_reason"], "stalled", "{method}: {c}");
        }
    }
}

/// Waits until the server accepts TCP connections at `srv` (a connection
/// from `host`, closed at once), and a little more for its UDP socket,
/// bound just after its listener.
fn wait_listening(bed: &Testbed, host: &str, srv: SocketAddrV4) {
    bed.run_in(host, None, move || {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while TcpStream::connect_timeout(&SocketAddr::V4(srv), Duration::from_secs(1)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "server never listened"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    })
    .expect("namespace");
    std::thread::sleep(Duration::from_millis(100));
}

/// What reached the victim's socket from the server.
#[derive(Debug, Default)]
struct Received {
    bytes: usize,
    datagrams: usize,
    /// Datagrams that were pieces of served frames.
    frame_datagrams: usize,
}

/// The victim: counts what reaches `at` from `from` until `until`.
fn victim(
    bed: &Testbed,
    at: SocketAddrV4,
    from: SocketAddrV4,
    until: std::time::Instant,
) -> std::thread::JoinHandle<Received> {
    bed.spawn_in("vic", None, move || {
        let sock = UdpSocket::bind(at).expect("victim bind");
        sock.set_read_timeout(Some(Duration::from_millis(50)))
            .expect("timeout");
        let mut buf = vec![0u8; 65536];
        let mut r = Received::default();
        while std::time::Instant::now() < until {
            if let Ok((n, src)) = sock.recv_from(&mut buf) {
                if src == SocketAddr::V4(from) {
                    r.bytes += n;
                    r.datagrams += 1;
                    if n >= HEADER_LEN && buf[..4] == MAGIC.to_be_bytes() {
                        r.frame_datagrams += 1;
                    }
                }
            }
        }
        r
    })
    .expect("namespace")
}

/// The join requests of an attack: `n` of each kind a forger can make —
/// version 1's bare 8-byte join, a Hello, and Joins with made-up cookies.
fn forged_joins(n: usize) -> Vec<Vec<u8>> {
    let mut v = Vec::with_capacity(3 * n);
    for i in 0..n {
        v.push(vec![0x4c, 0x52, 0x53, 0x42, 1, 1, 0, 0]);
        v.push(SubscribeRepr::Hello.to_bytes().to_vec());
        let cookie = [(i % 251) as u8 + 1; COOKIE_LEN];
        v.push(SubscribeRepr::Join(cookie).to_bytes().to_vec());
    }
    v
}

#[test]
fn spoofed_joins_send_the_victim_no_frames_and_no_more_bytes_than_the_attacker() {
    // One spoofed 8-byte join used to make serve send the victim 16 MB in
    // 2 s, and 1000 joins 1.05 GB.
    let bed = common::spoof::spoof_bed("svx");
    let srv_ip = bed.addr("srv").expect("addr");
    let vic = SocketAddrV4::new(bed.addr("vic").expect("addr"), 7000);
    for (port, udp) in [(5680u16, false), (5681, true)] {
        let srv = SocketAddrV4::new(srv_ip, port);
        let mut extra = vec!["--fps", "100", "--frame-size", "200000", "--duration", "60"];
        if udp {
            extra.push("--udp");
        }
        let server = start_server(&bed, port, &extra);
        wait_listening(&bed, "atk", srv);
        let until = std::time::Instant::now() + Duration::from_millis(2500);
        let counter = victim(&bed, vic, srv, until);
        std::thread::sleep(Duration::from_millis(100));
        // One join of each kind first, then 1000 of each.
        let mut sent = common::spoof::spoof(&bed, vic, srv, forged_joins(1));
        std::thread::sleep(Duration::from_millis(300));
        sent += common::spoof::spoof(&bed, vic, srv, forged_joins(1000));
        let got = counter.join().expect("victim");
        let s = stop_server(server);
        eprintln!("--udp {udp}: attacker sent {sent} bytes; victim got {got:?}");
        assert_eq!(got.frame_datagrams, 0, "--udp {udp}: {got:?} {s}");
        assert!(
            got.bytes <= sent,
            "--udp {udp}: amplified: {sent} -> {got:?}"
        );
        assert_eq!(
            s["udp_subscribers"].as_array().map(Vec::len),
            Some(0),
            "{s}"
        );
        if udp {
            // Each Hello and forged Join that the server read (a burst may
            // overflow its socket) got one cookie of its own size, and
            // that is all the victim got.
            let challenges = s["udp_challenges"].as_u64().expect("challenges");
            let bad = s["udp_bad_cookies"].as_u64().expect("bad cookies");
            assert!(bad > 0 && challenges > bad && challenges <= 2002, "{s}");
            assert!(
                got.bytes as u64 <= challenges * SUBSCRIBE_LEN as u64,
                "{got:?} {s}"
            );
            assert!(got.datagrams > 0, "{got:?}");
        } else {
            assert_eq!(got.bytes, 0, "UDP is off, yet: {got:?}");
            assert_eq!(s["udp"], false, "{s}");
        }
    }
}

/// A subscriber doing the handshake by hand: returns its socket once the
/// first frame datagram arrived.
fn subscribe_by_hand(at: SocketAddrV4, server: SocketAddrV4) -> UdpSocket {
    let sock = UdpSocket::bind(at).expect("bind");
    sock.set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    let mut buf = vec![0u8; 65536];
    let mut ask = SubscribeRepr::Hello.to_bytes();
    loop {
        assert!(std::time::Instant::now() < deadline, "no frames came");
        sock.send_to(&ask, server).expect("send");
        let Ok(n) = sock.recv(&mut buf) else {
            continue;
        };
        if n == SUBSCRIBE_LEN {
            let m = SubscribeMessage::new_checked(&buf[..n]).expect("view");
            if let Ok(SubscribeRepr::Challenge(c)) = SubscribeRepr::parse(&m) {
                ask = SubscribeRepr::Join(c).to_bytes();
            }
        } else if buf[..4] == MAGIC.to_be_bytes() {
            return sock;
        }
    }
}

#[test]
fn a_subscriber_whose_port_answers_unreachable_is_dropped() {
    // ICMP port unreachable used not to stop the stream.
    let bed = common::spoof::spoof_bed("svi");
    let port = 5690;
    let srv = SocketAddrV4::new(bed.addr("srv").expect("addr"), port);
    let vic = SocketAddrV4::new(bed.addr("vic").expect("addr"), 7001);
    let server = start_server(
        &bed,
        port,
        &[
            "--udp",
            "--fps",
            "100",
            "--frame-size",
            "100000",
            "--duration",
            "60",
        ],
    );
    std::thread::sleep(Duration::from_millis(300));
    // Subscribes, takes frames for half a second, then closes its socket
    // without a Leave: its host answers the next datagram with ICMP port
    // unreachable.
    bed.run_in("vic", None, move || {
        let sock = subscribe_by_hand(vic, srv);
        std::thread::sleep(Duration::from_millis(500));
        drop(sock);
    })
    .expect("namespace");
    // Frames go on for 2 s more: the first one after the close bounces.
    std::thread::sleep(Duration::from_secs(2));
    let s = stop_server(server);
    let subs = s["udp_subscribers"].as_array().expect("subscribers");
    assert_eq!(subs.len(), 1, "{s}");
    assert_eq!(subs[0]["end"], "unreachable", "{s}");
    let sent = subs[0]["frames_sent"].as_u64().expect("frames");
    let published = s["frames_published"].as_u64().expect("published");
    // About 50 frames while it listened, then one more that bounced.
    assert!(sent < published / 2, "{sent} of {published} frames: {s}");
}

#[test]
fn garbage_on_serves_ports_changes_nothing() {
    // Garbage on serve's ports changes nothing; this keeps it so.
    let bed = bed("svg");
    let port = 5700;
    let srv = SocketAddrV4::new(bed.addr("srv").expect("addr"), port);
    let server = start_server(
        &bed,
        port,
        &[
            "--udp",
            "--fps",
            "50",
            "--frame-size",
            "65536",
            "--duration",
            "60",
        ],
    );
    wait_listening(&bed, "cli", srv);
    // For 2 s: random datagrams of 0 to 1500 bytes (a third of them
    // subscription-shaped: magic, version 2, any kind and cookie), and TCP
    // connections that write random bytes and hang up.
    let garbage = bed
        .spawn_in("cli", None, move || {
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let udp = UdpSocket::bind("0.0.0.0:0").expect("bind");
            let until = std::time::Instant::now() + Duration::from_secs(2);
            let mut sent = 0u64;
            while std::time::Instant::now() < until {
                for _ in 0..50 {
                    let len = if next() % 3 == 0 {
                        SUBSCRIBE_LEN
                    } else {
                        (next() % 1501) as usize
                    };
                    let mut d: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                    if len == SUBSCRIBE_LEN {
                        d[..5].copy_from_slice(&[0x4c, 0x52, 0x53, 0x42, 2]);
                    }
                    if udp.send_to(&d, srv).is_ok() {
                        sent += 1;
                    }
                }
                if let Ok(mut t) =
                    TcpStream::connect_timeout(&SocketAddr::V4(srv), Duration::from_secs(1))
                {
                    let junk: Vec<u8> = (0..10_000).map(|_| next() as u8).collect();
                    let _ = std::io::Write::write_all(&mut t, &junk);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            sent
        })
        .expect("namespace");
    let (udp, tcp) = std::thread::scope(|sc| {
        let u = sc.spawn(|| watch_with(&bed, port, 2, 3, &["--udp"]));
        let t = watch(&bed, port, 2, 3);
        (u.join().expect("udp watch"), t)
    });
    let sent = garbage.join().expect("garbage sender");
    let s = stop_server(server);
    for (out, what) in [(&udp, "watch --udp"), (&tcp, "watch")] {
        let w = json(&out.stdout, what);
        assert!(out.status.success(), "{what} failed: {w}");
        assert_all_complete(&w, 2, 120);
    }
    assert!(sent > 500, "only {sent} garbage datagrams sent");
    assert!(s["udp_invalid"].as_u64().expect("invalid") > 300, "{s}");
    let subs = s["udp_subscribers"].as_array().expect("subscribers");
    assert_eq!(subs.len(), 2, "{s}");
    for u in subs {
        assert_eq!(u["end"], "left", "{u}");
        assert_eq!(u["frames_failed"], 0, "{u}");
    }
}

#[test]
fn one_host_flooding_never_reading_clients_leaves_places_for_others() {
    // The attack above from a host of its own: it gets at most
    // --max-clients-per-source places (32 of 64), so watchers on another
    // host get in at once, during the attack, and get every frame.
    let bed = common::spoof::spoof_bed("svf");
    let port = 5710;
    let srv = SocketAddrV4::new(bed.addr("srv").expect("addr"), port);
    let server = start_server(
        &bed,
        port,
        &["--fps", "50", "--frame-size", "65536", "--duration", "60"],
    );
    // (Connecting all 500 takes a second or two on a busy machine.)
    let attackers = never_reading_clients_from(&bed, "atk", srv, 500);
    let out = bed
        .command("vic", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .args([
            "watch",
            "--connect",
            &srv.to_string(),
            "--clients",
            "4",
            "--duration",
            "3",
            "--json",
        ])
        .output()
        .expect("run watch");
    let w = json(&out.stdout, "watch");
    let s = stop_server(server);
    drop(attackers);
    assert!(out.status.success(), "watch during the attack failed: {w}");
    // Every frame from the first (the count is low on a busy machine,
    // where the server makes fewer than the 50 per second asked).
    assert_all_complete(&w, 4, 50);
    let per_source = s["clients_refused_per_source"].as_u64().expect("refused");
    assert!(per_source >= 400, "{per_source} refused per source: {s}");
    let vic = bed.addr("vic").expect("addr").to_string();
    for c in s["clients"].as_array().expect("clients") {
        let watcher = c["peer"]
            .as_str()
            .is_some_and(|p| p.starts_with(&format!("{vic}:")));
        if watcher {
            assert_ne!(c["end"], "cut", "{c}");
            assert_eq!(c["frames_dropped"], 0, "{c}");
        } else {
            assert_ne!(c["end"], "connected", "{c}");
        }
    }
}

/// `serve --port 0` names the port it got (start-up line on stderr and
/// the report); `watch` says what it watches, stops on SIGINT with its
/// report and exit status 130, and a refused connection is named in its
/// last line.
#[test]
fn serve_names_its_port_and_watch_stops_on_a_signal_with_its_report() {
    use std::io::BufRead;
    let bed = bed("servport0");
    let mut server = start_server(&bed, 0, &["--duration", "60", "--fps", "100"]);
    let stderr = server.stderr.take().expect("server stderr");
    let mut line = String::new();
    std::io::BufReader::new(stderr)
        .read_line(&mut line)
        .expect("start-up line");
    let ip = bed.addr("srv").expect("addr").to_string();
    let address = line
        .split_whitespace()
        .find(|w| w.starts_with(&format!("{ip}:")))
        .unwrap_or_else(|| panic!("no address in the start-up line: {line}"))
        .trim_end_matches(',')
        .to_string();
    let port: u16 = address[ip.len() + 1..].parse().expect("port");
    assert!(line.starts_with("serve: ") && port != 0, "{line}");

    let watcher = bed
        .command("cli", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command")
        .args(["watch", "--connect", &address, "--duration", "60", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start watch");
    std::thread::sleep(Duration::from_secs(2));
    let _ =
        linerate_io::process::send_signal(watcher.id(), linerate_io::process::Signal::Interrupt);
    let t0 = std::time::Instant::now();
    let out = watcher.wait_with_output().expect("watch output");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        t0.elapsed() < Duration::from_secs(3),
        "watch took long to stop"
    );
    assert_eq!(out.status.code(), Some(130), "{err}");
    let w = json(&out.stdout, "watch");
    assert!(w["frames_ok"].as_u64().is_some_and(|n| n > 50), "{w}");
    assert!(
        w["error"].as_str().is_some_and(|e| e.contains("SIGINT")),
        "{w}"
    );
    assert!(
        err.contains(&format!("watch: 1 TCP client of {address}")),
        "{err}"
    );

    let s = stop_server(server);
    assert_eq!(s["address"], address.as_str(), "{s}");

    // Nothing listens on port 1: the last line says so, and no latency
    // is made up for frames that never came.
    let out = watch_with(&bed, 1, 1, 1, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    let w = json(&out.stdout, "watch");
    assert!(w["clients"][0]["latency_us_p50"].is_null(), "{w}");
    let last = err.lines().last().unwrap_or_default();
    assert!(!out.status.success());
    assert!(
        last.contains("connecting to") && last.contains("refused"),
        "{err}"
    );
}
