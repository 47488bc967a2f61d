//! `linerate fade feb` and `linerate fade recv` end to end: real network
//! namespaces, veth links, raw sockets and nftables loss; every test
//! asserts on the receiver's JSON report and exit status.
//!
//! `FADE_TEST_BYTES` changes the size of the loss tests (default 1 GiB for
//! v1, a quarter of it for FADE-10G).

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use linerate_testbed::{LossRule, Testbed};
use serde_json::Value;

mod common;

use common::spoof::{ethernet_frame, forge_frames};

/// One streaming test at a time: two at once on 2 cores measure the scheduler.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn bed(name: &str, hosts: &[&str]) -> Testbed {
    bed_mtu(name, hosts, 1500)
}

/// A bed with jumbo frames, as FADE-10G's 8232-byte DATA frames need.
fn jumbo_bed(name: &str, hosts: &[&str]) -> Testbed {
    bed_mtu(name, hosts, 9000)
}

fn bed_mtu(name: &str, hosts: &[&str], mtu: u32) -> Testbed {
    assert!(
        linerate_io::privilege::is_root(),
        "FADE tests build namespaces and open raw sockets: run as root"
    );
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let b = Testbed::builder(name).hosts(hosts.iter().copied()).mtu(mtu);
    let b = if hosts.len() > 2 {
        b.switch()
    } else {
        b.link(hosts[0], hosts[1])
    };
    b.build().expect("test bench")
}

/// A process in a namespace, killed when dropped (also when a test fails).
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn linerate(bed: &Testbed, host: &str) -> Command {
    bed.command(host, env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command")
}

fn feb(bed: &Testbed, host: &str, args: &[&str]) -> Proc {
    feb_to(bed, host, args, Stdio::null())
}

/// `fade feb` on `host` with its standard output going to `stdout`.
fn feb_to(bed: &Testbed, host: &str, args: &[&str], stdout: Stdio) -> Proc {
    let iface = bed.iface(host).expect("iface").name.clone();
    let child = linerate(bed, host)
        .args(["fade", "feb", "--interface", &iface])
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start linerate fade feb");
    Proc(child)
}

fn recv_cmd(bed: &Testbed, febs: &[&str], args: &[&str]) -> Command {
    let iface = bed.iface("pc").expect("iface").name.clone();
    let mut c = linerate(bed, "pc");
    c.args(["fade", "recv", "--interface", &iface, "--json"]);
    for f in febs {
        c.args(["--feb", &bed.mac(f).expect("mac").to_string()]);
    }
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

fn report(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}): stdout {text:?}, stderr {:?}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    // A receiver's whole report matches the schema `linerate schema
    // fade-recv` publishes.
    if v.get("boards").is_some() {
        common::schema::assert_matches_schema("fade-recv", &v);
    }
    v
}

fn n(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

fn test_bytes() -> u64 {
    std::env::var("FADE_TEST_BYTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 30)
}

/// Moves `bytes` from one board (`version` 1 or 10g, `packet` data bytes
/// per DATA packet) through nftables rules dropping 5 % of FADE frames on
/// `loss_host`'s side of the link in each direction, and checks that
/// everything arrived, verified, with exactly one stored packet per
/// `packet` bytes. Extra receiver arguments in `recv_args`; returns the
/// receiver's report.
fn lossy_transfer(
    bed: &Testbed,
    loss_host: &str,
    version: &str,
    packet: u64,
    bytes: u64,
    recv_args: &[&str],
) -> Value {
    lossy_transfer_with_board(bed, loss_host, version, packet, bytes, &[], recv_args)
}

/// [`lossy_transfer`] with extra board arguments in `board_args`.
fn lossy_transfer_with_board(
    bed: &Testbed,
    loss_host: &str,
    version: &str,
    packet: u64,
    bytes: u64,
    board_args: &[&str],
    recv_args: &[&str],
) -> Value {
    // 5 % of FADE frames dropped in each direction (netdev family, by
    // ethertype): DATA and ACKs alike.
    bed.set_loss(&LossRule::new(loss_host, 5.0).ingress().ethertype(0xfade))
        .expect("ingress loss");
    bed.set_loss(&LossRule::new(loss_host, 5.0).egress().ethertype(0xfade))
        .expect("egress loss");
    let size = bytes.to_string();
    let mut board = vec!["--version", version, "--bytes", &size];
    board.extend_from_slice(board_args);
    let _feb = feb(bed, "feb", &board);
    let t0 = Instant::now();
    let mut args = vec!["--version", version, "--bytes", &size, "--verify"];
    args.extend_from_slice(recv_args);
    let out = recv_cmd(bed, &["feb"], &args).output().expect("run recv");
    let took = t0.elapsed();
    let v = report(&out);
    eprintln!("{bytes} bytes (version {version}) through 5% loss each way in {took:.1?}: {v}");
    assert!(out.status.success(), "recv failed: {v}");
    let b = &v["boards"][0];
    assert_eq!(n(&v, "bytes"), bytes);
    assert_eq!(n(b, "bytes"), bytes);
    assert_eq!(n(b, "verified_bytes"), bytes, "reader saw every byte");
    assert_eq!(n(&v, "verify_errors"), 0);
    assert_eq!(b["complete"], true);
    assert!(b["error"].is_null());
    // Loss makes duplicates, never conflicts, and every command answer
    // the board sent was to one of ours.
    assert_eq!(n(b, "conflicts"), 0);
    assert_eq!(n(b, "foreign_answers"), 0);
    // Exactly one new packet per `packet` stream bytes: nothing lost,
    // nothing stored twice; the repeats were all recognised as duplicates
    // (or dropped unACKed while the reader was behind: no_room).
    assert_eq!(n(b, "packets"), bytes.div_ceil(packet));
    assert_eq!(
        n(b, "received"),
        n(b, "packets") + n(b, "duplicates") + n(b, "no_room")
    );
    assert!(
        n(b, "retransmitted") > 0,
        "5% loss caused no retransmission"
    );
    assert!(v["retransmit_ratio"].as_f64().unwrap_or(0.0) > 0.0);
    assert!(v["ack_latency_us_p50"].as_f64().unwrap_or(0.0) > 0.0);
    ack_timing_is_consistent(&v);
    // The kernel's count of frames for the packet socket covers every
    // frame the receive thread took from it (with AF_XDP the socket only
    // sees what the program passed on).
    let be = &v["backend"];
    let (frames, drops) = (n(be, "kernel_frames"), n(be, "kernel_drops"));
    assert!(drops <= frames, "{be}");
    if be["name"] != "xdp" {
        assert!(frames - drops >= n(b, "received"), "{be} against {b}");
    }
    // The loss rules really dropped frames both ways.
    let rules = bed.loss_rules(loss_host).expect("rules");
    for dir in ["ingress", "egress"] {
        let dropped: u64 = rules
            .iter()
            .filter(|r| r.chain.starts_with(dir))
            .map(|r| r.packets)
            .sum();
        assert!(dropped > 0, "no {dir} drops: {rules:?}");
    }
    v
}

/// The ACK latency's parts agree: where the driver stamps ACKs, the
/// stamped latency ends before the send returns and stamps came back;
/// without stamps the two figures are one. The pickup (receive stamp to
/// the receive thread holding the frame) precedes both.
fn ack_timing_is_consistent(v: &Value) {
    let f = |k: &str| v[k].as_f64().unwrap_or(-1.0);
    let (latency, returned, pickup) = (
        f("ack_latency_us_p50"),
        f("ack_return_us_p50"),
        f("pickup_us_p50"),
    );
    assert!(pickup > 0.0 && pickup <= returned, "{v}");
    match v["ack_sent_at"].as_str() {
        Some("driver_tx_stamp") => {
            assert!(n(&v["ack_stamps"], "stamps") > 0, "no stamp came back: {v}");
            assert!(latency <= returned, "a stamp after the send returned: {v}");
        }
        Some("send_return") => assert_eq!(latency, returned, "{v}"),
        other => panic!("ack_sent_at is {other:?}: {v}"),
    }
}

#[test]
fn one_gib_through_five_percent_loss_both_ways_arrives_complete_and_verified() {
    let _s = serial();
    let bed = bed("fadeloss", &["feb", "pc"]);
    let v = lossy_transfer(&bed, "pc", "1", 1024, test_bytes(), &[]);
    assert_eq!(v["version"], "1");
    assert_eq!(v["backend"]["name"], "ring", "the default backend");
}

#[test]
fn recvmmsg_at_both_ends_delivers_through_five_percent_loss_both_ways() {
    let _s = serial();
    let bed = bed("faderaw", &["feb", "pc"]);
    // The board looks for ACKs with recvmmsg too (its default is a ring).
    let v = lossy_transfer_with_board(
        &bed,
        "pc",
        "1",
        1024,
        256 << 20,
        &["--ring-slots", "0"],
        &["--backend", "raw"],
    );
    assert_eq!(v["backend"]["name"], "raw");
}

/// Checks the AF_XDP receive path's own account: every frame the program
/// saw reached the receive thread, none was dropped for want of room.
fn xdp_accounted(v: &Value) {
    let x = &v["backend"];
    assert_eq!(x["name"], "xdp", "{x}");
    assert_eq!(
        x["attach_mode"], "native",
        "veth runs XDP in its driver: {x}"
    );
    assert!(n(x, "received") > 0, "{x}");
    assert_eq!(n(x, "dropped") + n(x, "fill_ring_empty"), 0, "{x}");
    // Every frame the program saw was taken, passed to the kernel, or
    // still waiting on the ring when the run ended.
    assert_eq!(
        n(x, "seen"),
        n(x, "received") + n(x, "passed_to_kernel") + n(x, "pending"),
        "{x}"
    );
    // DATA frames reached the window through XDP, not the raw socket.
    assert!(n(x, "received") >= n(&v["boards"][0], "received"), "{x}");
}

#[test]
fn one_gib_through_five_percent_loss_arrives_complete_through_af_xdp() {
    let _s = serial();
    let bed = bed("fadexdp", &["feb", "pc"]);
    // XDP takes the frames before the PC's netfilter ingress hook, so the
    // loss is made on the board's side of the link, both ways.
    let v = lossy_transfer(&bed, "feb", "1", 1024, test_bytes(), &["--backend", "xdp"]);
    xdp_accounted(&v);
}

#[test]
fn batched_acks_through_five_percent_loss_arrive_complete_and_are_stamped() {
    let _s = serial();
    let bed = bed("fadebatch", &["feb", "pc"]);
    // The ACKs of each receive batch leave in one sendmmsg, one in 8 with
    // a stamp request; the stream must still arrive whole, and the ACK
    // timing's parts agree (checked inside).
    let v = lossy_transfer(
        &bed,
        "feb",
        "1",
        1024,
        test_bytes() / 4,
        &["--backend", "xdp", "--batch-acks"],
    );
    xdp_accounted(&v);
}

#[test]
fn ten_g_jumbo_frames_through_five_percent_loss_arrive_complete_through_af_xdp() {
    let _s = serial();
    let bed = jumbo_bed("f10xdp", &["feb", "pc"]);
    let v = lossy_transfer(
        &bed,
        "feb",
        "10g",
        8192,
        test_bytes() / 4 - 1000,
        &["--backend", "xdp"],
    );
    xdp_accounted(&v);
    // Every 8232-byte DATA frame spans several UMEM frames.
    assert!(n(&v["backend"], "multi_buffer") > 0, "{}", v["backend"]);
}

#[test]
fn ten_g_moves_256_mib_through_five_percent_loss_and_answers_a_user_command() {
    let _s = serial();
    let bed = jumbo_bed("f10loss", &["feb", "pc"]);
    // The user command goes out once the board streams, and its answer
    // comes back in the DATA packets, through the same 5 % loss.
    // The stream ends 1000 bytes short of a whole packet: its last packet
    // is flushed and the receiver must stop exactly at its word count.
    let v = lossy_transfer(
        &bed,
        "pc",
        "10g",
        8192,
        test_bytes() / 4 - 1000,
        &["--command", "0x0123:0xcafef00d"],
    );
    assert_eq!(v["version"], "10g");
    let b = &v["boards"][0];
    let c = &b["command"];
    assert!(c["error"].is_null(), "{c}");
    assert_eq!(n(c, "code"), 0x0123);
    assert_eq!(n(c, "arg"), 0xcafe_f00d);
    // The emulator answers with the argument and its resend count so far.
    assert_eq!(c["response_words"][0], 0xcafe_f00d_u32);
    assert_eq!(
        &c["response_hex"].as_str().unwrap_or_default()[..8],
        "cafef00d"
    );
    assert!(n(c, "tries") >= 1);
    assert!(
        n(b, "responses") >= 1,
        "no answer seen in the DATA packets: {b}"
    );
}

/// Kills the board after 1.5 s of streaming and starts a fresh one; the
/// receiver must fail the run with an error containing every one of
/// `expect` (and keep what arrived before, verified).
fn restarted_board_is_reported(bed: &Testbed, version: &str, expect: &[&str]) {
    let big = (1u64 << 30).to_string();
    let board = ["--version", version, "--bytes", &big];
    let mut first = feb(bed, "feb", &board);
    let mut rx = recv_cmd(
        bed,
        &["feb"],
        &["--version", version, "--bytes", &big, "--verify"],
    )
    .spawn()
    .expect("start recv");
    // Let the stream run, then power-cycle the board: a new process that
    // knows nothing of the old stream and waits for START.
    std::thread::sleep(Duration::from_millis(1500));
    let _ = first.0.kill();
    let _ = first.0.wait();
    let _second = feb(bed, "feb", &board);
    let deadline = Instant::now() + Duration::from_secs(60);
    while rx.try_wait().expect("wait").is_none() {
        assert!(
            Instant::now() < deadline,
            "receiver never noticed the restart"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = rx.wait_with_output().expect("recv output");
    let v = report(&out);
    eprintln!("after a board restart (version {version}): {v}");
    assert!(!out.status.success(), "a restart must fail the run: {v}");
    let b = &v["boards"][0];
    let err = b["error"].as_str().unwrap_or_default();
    for e in expect {
        assert!(err.contains(e), "error should contain {e:?}: {err:?}");
    }
    assert_eq!(b["complete"], false);
    assert_eq!(v["complete"], false);
    // What arrived before the restart is intact and was delivered.
    assert!(n(b, "bytes") > 0 && n(b, "bytes") < 1 << 30);
    assert_eq!(n(&v, "verify_errors"), 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("impossible"));
}

#[test]
fn a_board_restarted_mid_stream_is_reported_not_absorbed() {
    let _s = serial();
    let bed = bed("faderestart", &["feb", "pc"]);
    restarted_board_is_reported(&bed, "1", &["impossible", "set 0"]);
}

#[test]
fn a_ten_g_board_restarted_mid_stream_is_reported_not_absorbed() {
    let _s = serial();
    let bed = jumbo_bed("f10restart", &["feb", "pc"]);
    restarted_board_is_reported(
        &bed,
        "10g",
        &["packet number 0 is impossible", "window of 16"],
    );
}

#[test]
fn ten_g_commands_to_an_idle_board_are_answered_or_time_out() {
    let _s = serial();
    let bed = jumbo_bed("f10cmd", &["feb", "pc"]);
    let mut board = feb_json(&bed, &["--version", "10g"]);
    let iface = bed.iface("pc").expect("iface").name.clone();
    let mac = bed.mac("feb").expect("mac").to_string();
    let command = |mac: &str, args: &[&str]| {
        let out = linerate(&bed, "pc")
            .args([
                "fade",
                "command",
                "--interface",
                &iface,
                "--feb",
                mac,
                "--json",
            ])
            .args(args)
            .output()
            .expect("run linerate fade command");
        (out.status.success(), report(&out))
    };
    // The board is not streaming: it answers in a response-only packet.
    // The first command may go out before the board opened its socket; the
    // resends cover that.
    let (ok, v) = command(&mac, &["0x0200", "--arg", "0x12345678", "--tries", "300"]);
    assert!(ok, "{v}");
    assert_eq!(v["answered"], true);
    let r = &v["response"];
    assert_eq!(n(r, "code"), 0x200);
    assert_eq!(r["response_hex"], "1234567800000000");
    // START, STOP: answered with their code and seq, 8 zero bytes.
    for (name, code) in [("start", 1), ("stop", 2)] {
        let (ok, v) = command(&mac, &[name]);
        assert!(ok, "{v}");
        assert_eq!(n(&v["response"], "code"), code);
        assert_eq!(v["response"]["response_hex"], "0000000000000000");
    }
    // A board that is not there: no answer after the tries, an error.
    let (ok, v) = command(
        "02:6c:72:00:0f:0f",
        &["0x0200", "--tries", "3", "--retry-ms", "5"],
    );
    assert!(!ok);
    let err = v["error"].as_str().unwrap_or_default();
    assert!(err.contains("no answer after 3 tries"), "{err}");
    // RESET is not answered; after START it ends the stream, not the
    // emulator, which waits for the next START, free for any host.
    let (ok, v) = command(&mac, &["start"]);
    assert!(ok, "{v}");
    let (ok, v) = command(&mac, &["reset"]);
    assert!(ok, "{v}");
    assert_eq!(v["answered"], false);
    let (ok, v) = command(&mac, &["0x0200", "--arg", "7"]);
    assert!(ok, "a reset board still answers: {v}");
    reset_and_still_running(&mut board);
}

#[test]
fn two_boards_behind_a_switch_both_complete_with_a_fairness_figure() {
    let _s = serial();
    let bed = bed("fadetwo", &["feb1", "feb2", "pc"]);
    let size = (32u64 << 20).to_string();
    let file = std::env::temp_dir().join(format!("fadetwo-{}.bin", std::process::id()));
    let file_arg = file.to_string_lossy().into_owned();
    let _a = feb(&bed, "feb1", &["--bytes", &size]);
    let _b = feb(&bed, "feb2", &["--bytes", &size]);
    let out = recv_cmd(
        &bed,
        &["feb1", "feb2"],
        &["--bytes", &size, "--verify", "--out", &file_arg],
    )
    .output()
    .expect("run recv");
    let v = report(&out);
    eprintln!("two boards: {v}");
    assert!(out.status.success(), "{v}");
    assert_eq!(n(&v, "bytes"), 2 * (32 << 20));
    let boards = v["boards"].as_array().expect("boards");
    assert_eq!(boards.len(), 2);
    for (b, host) in boards.iter().zip(["feb1", "feb2"]) {
        assert_eq!(b["mac"], bed.mac(host).expect("mac").to_string());
        assert_eq!(n(b, "bytes"), 32 << 20);
        assert_eq!(n(b, "verify_errors"), 0);
    }
    let j = v["jain_fairness"].as_f64().expect("jain");
    assert!(j > 0.5 && j <= 1.0, "{j}");
    // --out wrote each board's stream to its own file, byte for byte.
    for i in 0..2 {
        let path = format!("{file_arg}.{i}");
        let data = std::fs::read(&path).expect("output file");
        let _ = std::fs::remove_file(&path);
        assert_eq!(data.len(), 32 << 20, "{path}");
        let word = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes"));
        assert_eq!(word(0), 0);
        assert_eq!(word(data.len() - 8), (data.len() as u64 - 8) / 8);
        assert!(data
            .chunks_exact(8)
            .enumerate()
            .all(|(k, w)| w == (k as u64).to_le_bytes()));
    }
}

#[test]
fn three_boards_with_default_settings_fill_a_shared_one_gbit_link_evenly() {
    let _s = serial();
    assert!(
        linerate_io::privilege::is_root(),
        "FADE tests build namespaces and open raw sockets: run as root"
    );
    // Three boards and the PC on one bridge, every port shaped to 1 Gbit/s
    // by tbf: the PC's port is the link the boards share. The boards run
    // with every setting at its default, sharing CPU 0; the receiver has
    // CPU 1 (`--cpu 1`), as a host and its boards have a core each.
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let bed = Testbed::builder("frshare")
        .hosts(["feb1", "feb2", "feb3", "pc"])
        .switch()
        .rate(linerate_testbed::Rate::gbit(1))
        .build()
        .expect("test bench");
    let boards = ["feb1", "feb2", "feb3"];
    let _procs: Vec<Proc> = boards
        .iter()
        .map(|h| {
            let iface = bed.iface(h).expect("iface").name.clone();
            let mut c = bed
                .command(h, env!("CARGO_BIN_EXE_linerate"))
                .expect("command");
            c.cpu(0);
            let child = c
                .into_command()
                .expect("command")
                .args(["fade", "feb", "--interface", &iface])
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("start linerate fade feb");
            Proc(child)
        })
        .collect();
    // The figures are a rate on two shared cores: one scheduler hiccup on a
    // busy CI host can cost a 3 s run its margin. Up to three runs against
    // the same boards (each waits for the next START after a run's RESET);
    // every run must be complete and verified, and one must fill the link.
    let mut figures = Vec::new();
    for attempt in 1..=3 {
        let (total, jain) = three_boards_run(&bed, &boards);
        eprintln!("three boards, run {attempt}: {total:.1} Mbit/s, Jain {jain:.4}");
        figures.push(format!("{total:.1} Mbit/s (Jain {jain:.4})"));
        // The link is full and evenly shared: at least 900 of the 955
        // Mbit/s of payload a 1 Gbit/s wire carries, Jain's index at least
        // 0.99.
        if total >= 900.0 && jain >= 0.99 {
            return;
        }
    }
    panic!(
        "three boards never filled the link (900 Mbit/s, Jain 0.99) in {} runs: {}",
        figures.len(),
        figures.join(", ")
    );
}

/// One 3 s `fade recv` of the three boards with default settings on CPU 1;
/// asserts everything but the rate and returns total Mbit/s and Jain's index.
fn three_boards_run(bed: &Testbed, boards: &[&str]) -> (f64, f64) {
    let out = recv_cmd(bed, boards, &["--duration", "3", "--verify", "--cpu", "1"])
        .output()
        .expect("run recv");
    let v = report(&out);
    eprintln!("three boards, default settings: {v}");
    assert!(out.status.success(), "{v}");
    assert_eq!(v["controller"], "fair");
    // The receive thread accounts for its work: every frame it handled,
    // some time per frame, a busy share that is a share.
    let t = &v["receive_thread"];
    let received: u64 = v["boards"]
        .as_array()
        .expect("boards")
        .iter()
        .map(|b| n(b, "received"))
        .sum();
    assert!(
        n(t, "frames") >= received,
        "{t} against {received} DATA frames"
    );
    assert!(
        t["work_us_per_frame"].as_f64().is_some_and(|w| w > 0.0),
        "{t}"
    );
    assert!(
        t["busy_share"]
            .as_f64()
            .is_some_and(|b| b > 0.0 && b <= 1.0),
        "{t}"
    );
    assert!(
        n(&v, "fair_rounds") > 10,
        "the shares were never recomputed"
    );
    assert_eq!(n(&v, "verify_errors"), 0);
    for b in v["boards"].as_array().expect("boards") {
        assert_eq!(n(b, "verified_bytes"), n(b, "bytes"), "{b}");
        assert_eq!(b["complete"], true, "{b}");
    }
    (
        v["mbit_per_s"].as_f64().expect("mbit_per_s"),
        v["jain_fairness"].as_f64().expect("jain_fairness"),
    )
}

#[test]
fn arguments_are_checked_before_anything_is_opened() {
    // No namespace and no root needed: these fail before any socket.
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_linerate"))
            .args(args)
            .output()
            .expect("run linerate")
    };
    let out = run(&[
        "fade",
        "recv",
        "--interface",
        "lo",
        "--feb",
        "02:00:00:00:00:01",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--bytes N or --duration S"));
    let out = run(&[
        "fade",
        "recv",
        "--interface",
        "lo",
        "--feb",
        "02:00:00:00:00:01",
        "--bytes",
        "1",
        "--command",
        "0x100:1",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--command needs --version 10g"));
    let out = run(&[
        "fade",
        "command",
        "--interface",
        "lo",
        "--feb",
        "02:00:00:00:00:01",
        "0xa5a5",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("user command code"));
    let out = run(&[
        "fade",
        "recv",
        "--interface",
        "lo",
        "--feb",
        "02:00",
        "--bytes",
        "1",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("MAC address \"02:00\" is not valid"));
    let out = run(&["fade", "feb", "--interface", "lo", "--controller", "tcp"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected seed or fair"));
}

/// The board's own report: the stream all confirmed, and the kernel's
/// count of the host's frames its ring took (every ACK the board acted on
/// came through it), both with the ring it reads by default and with
/// `recvmmsg` looks.
#[test]
fn a_board_reports_the_frames_its_socket_took_and_dropped() {
    let _s = serial();
    let bed = bed("fadefebjson", &["feb", "pc"]);
    let iface = bed.iface("feb").expect("iface").name.clone();
    for (slots, extra) in [(256, &[][..]), (0, &["--ring-slots", "0"][..])] {
        let board = linerate(&bed, "feb")
            .args([
                "fade",
                "feb",
                "--interface",
                &iface,
                "--bytes",
                "16MiB",
                "--json",
            ])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start linerate fade feb");
        let mut board = Proc(board);
        let out = recv_cmd(&bed, &["feb"], &["--bytes", "16MiB", "--verify"])
            .output()
            .expect("run recv");
        assert!(out.status.success(), "recv failed: {}", report(&out));
        // The host's RESET ends the board: its report follows.
        let deadline = Instant::now() + Duration::from_secs(10);
        while board.0.try_wait().expect("wait").is_none() {
            assert!(Instant::now() < deadline, "the board did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
        let v = board_report(&mut board);
        assert_eq!(n(&v, "ring_slots"), slots, "{v}");
        // Every packet confirmed; the board ended either on its last ACK
        // (`done`) or on the host's RESET, which can arrive with the last
        // ACKs and empties the board's buffers first.
        assert_eq!(n(&v, "confirmed_packets"), 16 << 10, "{v}");
        assert!(v["done"] == true || v["reset"] == true, "{v}");
        let (frames, drops) = (n(&v, "kernel_frames"), n(&v, "kernel_drops"));
        assert!(frames - drops >= n(&v, "acks"), "{v}");
        assert!(
            n(&v, "acks") >= 16 << 10,
            "one ACK per packet at least: {v}"
        );
    }
}

#[test]
fn a_timed_run_stops_an_endless_board_and_verifies_what_came() {
    let _s = serial();
    let bed = bed("fadetimed", &["feb", "pc"]);
    let mut board = feb_json(&bed, &[]);
    let out = recv_cmd(&bed, &["feb"], &["--duration", "1", "--verify"])
        .output()
        .expect("run recv");
    let v = report(&out);
    assert!(out.status.success(), "{v}");
    let b = &v["boards"][0];
    assert!(
        n(b, "bytes") > 1 << 20,
        "a second streamed almost nothing: {v}"
    );
    assert_eq!(n(b, "verified_bytes"), n(b, "bytes"));
    assert_eq!(n(&v, "verify_errors"), 0);
    // The receiver's RESET ends the stream, not the emulator: an endless
    // board never exits on a command, it waits for the next START, free
    // for any host.
    std::thread::sleep(Duration::from_millis(300));
    reset_and_still_running(&mut board);
}

#[test]
fn a_receiver_without_a_board_fails_clearly() {
    let _s = serial();
    let bed = bed("fadenone", &["feb", "pc"]);
    let out = recv_cmd(
        &bed,
        &["feb"],
        &["--bytes", "1MiB", "--idle-timeout-ms", "300"],
    )
    .output()
    .expect("run recv");
    let v = report(&out);
    assert!(!out.status.success());
    assert_eq!(n(&v, "bytes"), 0);
    let err = v["boards"][0]["error"].as_str().unwrap_or_default();
    assert!(err.contains("nothing received"), "{err}");
}

#[test]
fn ten_g_on_a_link_without_jumbo_frames_is_refused_clearly() {
    let _s = serial();
    let bed = bed("f10mtu", &["feb", "pc"]);
    let iface = bed.iface("feb").expect("iface").name.clone();
    let out = linerate(&bed, "feb")
        .args(["fade", "feb", "--interface", &iface, "--version", "10g"])
        .output()
        .expect("run linerate fade feb");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("needs an MTU of at least 8218") && err.contains("1500"),
        "{err}"
    );
}

#[test]
fn a_ten_g_stream_ending_mid_packet_ends_the_run_at_its_last_word() {
    let _s = serial();
    let bed = jumbo_bed("f10flush", &["feb", "pc"]);
    // The receiver is not told the length: the board's flushed last packet
    // (1000 bytes short of a whole one) must end the stream exactly there.
    let bytes = (10u64 << 20) - 1000;
    let _feb = feb(
        &bed,
        "feb",
        &["--version", "10g", "--bytes", &bytes.to_string()],
    );
    let t0 = Instant::now();
    let out = recv_cmd(
        &bed,
        &["feb"],
        &["--version", "10g", "--duration", "60", "--verify"],
    )
    .output()
    .expect("run recv");
    let v = report(&out);
    assert!(out.status.success(), "{v}");
    assert!(
        t0.elapsed() < Duration::from_secs(50),
        "the flushed packet did not end the run: {v}"
    );
    let b = &v["boards"][0];
    assert_eq!(n(b, "bytes"), bytes, "{v}");
    assert_eq!(n(b, "verified_bytes"), bytes);
    assert_eq!(n(b, "verify_errors"), 0);
    assert_eq!(n(b, "packets"), bytes.div_ceil(8192));
    assert_eq!(b["complete"], true);
}

/// A board started with --duration and no host says who it is (the MAC
/// `fade recv --feb` needs) and gives up after the duration instead of
/// waiting forever, with its summary (text, or JSON with --json).
#[test]
fn a_board_without_a_host_names_itself_and_ends_after_its_duration() {
    let _s = serial();
    let bed = bed("fadelonely", &["feb", "pc"]);
    let iface = bed.iface("feb").expect("iface").name.clone();
    let mac = bed.mac("feb").expect("mac").to_string();
    for json in [false, true] {
        let t0 = Instant::now();
        let mut cmd = linerate(&bed, "feb");
        cmd.args(["fade", "feb", "--interface", &iface, "--duration", "0.3"]);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().expect("run linerate fade feb");
        let took = t0.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stdout} {stderr}");
        assert!(took < Duration::from_secs(5), "took {took:?}");
        assert!(
            stderr.contains(&format!("board {mac} on {iface}"))
                && stderr.contains("waiting for a host's START"),
            "no start-up line: {stderr}"
        );
        assert!(stderr.contains("no host sent START"), "{stderr}");
        if json {
            let v: Value = serde_json::from_str(stdout.trim()).expect("board JSON");
            assert_eq!(v["mac"], mac.as_str(), "{v}");
            assert_eq!(n(&v, "bytes_confirmed"), 0, "{v}");
            assert!(
                v["error"].as_str().is_some_and(|e| e.contains("START")),
                "{v}"
            );
        } else {
            assert!(
                stdout.contains(&format!("fade feb {mac}: 0 bytes confirmed")),
                "no summary: {stdout}"
            );
        }
    }
}

/// Without --verify nothing is called verified: the report gives the bytes
/// the reader took (`bytes_received`) and `verified_bytes` null; the
/// receiver says on stderr what it receives from.
#[test]
fn an_unverified_run_reports_bytes_received_and_no_verified_bytes() {
    let _s = serial();
    let bed = bed("fadenoverify", &["feb", "pc"]);
    let _board = feb(&bed, "feb", &["--bytes", "4MiB"]);
    let out = recv_cmd(&bed, &["feb"], &["--bytes", "4MiB"])
        .output()
        .expect("run recv");
    let v = report(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{v} {err}");
    let b = &v["boards"][0];
    assert_eq!(n(b, "bytes_received"), 4 << 20, "{b}");
    assert!(b["verified_bytes"].is_null(), "{b}");
    let mac = bed.mac("feb").expect("mac").to_string();
    assert!(
        err.contains("fade recv: on") && err.contains(&mac),
        "no start-up line: {err}"
    );
}

// Attacks on FADE: a third host on the switch ("atk")
// forges frames with an AF_PACKET socket, with its own MAC or another's.

const FADE: u16 = 0xfade;

fn mac6(bed: &Testbed, host: &str) -> [u8; 6] {
    bed.mac(host).expect("mac").0
}

/// A FADE v1 control payload (START, STOP, RESET, ACK), 64 bytes.
fn v1_control(c: linerate_wire::fade::v1::ControlRepr) -> Vec<u8> {
    linerate_fade::window::control(c).to_vec()
}

/// A FADE v1 DATA payload of set `set`, packet `packet`, all `fill` bytes.
fn v1_data(set: u16, packet: u8, fill: u8) -> Vec<u8> {
    use linerate_wire::fade::v1::{DataRepr, Repr, Tag, DATA_LEN};
    let d = [fill; DATA_LEN];
    Repr::Data(DataRepr {
        tag: Tag::new(set, packet, 0).expect("tag"),
        delay: 0,
        data: &d,
    })
    .to_vec()
}

/// `fade feb` with its JSON counters on stdout.
fn feb_json(bed: &Testbed, args: &[&str]) -> Proc {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    feb_to(bed, "feb", &all, Stdio::piped())
}

/// Ends a board with SIGTERM (if it still runs) and returns its JSON.
fn board_report(board: &mut Proc) -> Value {
    if board.0.try_wait().expect("wait").is_none() {
        let _ = linerate_io::process::send_signal(
            board.0.id(),
            linerate_io::process::Signal::Terminate,
        );
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while board.0.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "the board did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut text = String::new();
    std::io::Read::read_to_string(board.0.stdout.as_mut().expect("stdout"), &mut text)
        .expect("board report");
    let v: Value =
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("board JSON ({e}): {text:?}"));
    common::schema::assert_matches_schema("fade-feb", &v);
    v
}

/// Checks that a board its owner RESET is still running, unowned, and
/// ends it.
fn reset_and_still_running(board: &mut Proc) {
    assert!(
        board.0.try_wait().expect("wait").is_none(),
        "the board exited on a command"
    );
    let j = board_report(board);
    assert_eq!(j["reset"], true, "{j}");
    assert!(j["owner"].is_null(), "{j}");
}

/// A board, the receiver and the attacker on one switch: `bytes` from the
/// board (`--json`) to the receiver (`--verify`), under way when this
/// returns.
fn attacked_stream(name: &str, bytes: u64) -> (Testbed, Proc, std::process::Child) {
    let bed = bed(name, &["feb", "pc", "atk"]);
    let size = bytes.to_string();
    let board = feb_json(&bed, &["--bytes", &size]);
    let rx = recv_cmd(&bed, &["feb"], &["--bytes", &size, "--verify"])
        .spawn()
        .expect("start recv");
    std::thread::sleep(Duration::from_millis(250));
    (bed, board, rx)
}

#[test]
fn a_forged_pacing_hint_neither_stalls_nor_steers_a_board() {
    use linerate_wire::fade::v1::{ControlRepr, Tag};
    let _s = serial();
    let (bed, mut board, rx) = attacked_stream("fadehint", 64 << 20);
    // One ACK with the largest gap the hint can carry (4.3 s), from the
    // attacker's own MAC, then one forged with the receiver's MAC.
    let mut ack = v1_control(ControlRepr::Ack(Tag::new(0, 0, 0).expect("tag")));
    assert!(linerate_wire::fade::pacing::write_hint(&mut ack, u32::MAX));
    let (feb, pc, atk) = (mac6(&bed, "feb"), mac6(&bed, "pc"), mac6(&bed, "atk"));
    let frames = vec![
        ethernet_frame(feb, atk, FADE, &ack),
        ethernet_frame(feb, pc, FADE, &ack),
    ];
    let (sent, _) = forge_frames(&bed, "atk", FADE, frames, Duration::from_millis(100));
    assert_eq!(sent, 2);
    let out = rx.wait_with_output().expect("recv output");
    let v = report(&out);
    let b = board_report(&mut board);
    eprintln!("forged pacing hints: receiver {v}\nboard {b}");
    assert!(out.status.success(), "the board stalled: {v}");
    let r = &v["boards"][0];
    assert_eq!(r["complete"], true, "{v}");
    assert_eq!(n(&v, "verify_errors"), 0);
    // The hint from the stranger was refused and counted; the forged
    // owner's one was clamped and replaced by the next real ACK.
    assert_eq!(n(&b, "foreign_acks"), 1, "{b}");
    assert_eq!(n(&b, "clamped_hints"), 1, "{b}");
    assert!(n(&b, "hint_gap_ns") <= 10_000_000, "{b}");
}

#[test]
fn commands_from_another_host_are_ignored_and_counted() {
    use linerate_wire::fade::v1::ControlRepr;
    let _s = serial();
    let (bed, mut board, rx) = attacked_stream("fadecmds", 128 << 20);
    // START (which would divert the DATA to the attacker), 1000 STOPs at
    // 1 kHz, then RESET (which used to end the emulator).
    let (feb, atk) = (mac6(&bed, "feb"), mac6(&bed, "atk"));
    let mut frames = vec![ethernet_frame(
        feb,
        atk,
        FADE,
        &v1_control(ControlRepr::Start),
    )];
    frames.extend(
        std::iter::repeat(ethernet_frame(
            feb,
            atk,
            FADE,
            &v1_control(ControlRepr::Stop),
        ))
        .take(1000),
    );
    frames.push(ethernet_frame(
        feb,
        atk,
        FADE,
        &v1_control(ControlRepr::Reset),
    ));
    let (sent, diverted) = forge_frames(&bed, "atk", FADE, frames, Duration::from_millis(1));
    let out = rx.wait_with_output().expect("recv output");
    let v = report(&out);
    let b = board_report(&mut board);
    eprintln!(
        "{sent} forged commands, {diverted} DATA frames diverted to the attacker: receiver {v}\nboard {b}"
    );
    assert_eq!(sent, 1002);
    assert_eq!(diverted, 0, "DATA went to the attacker");
    assert!(out.status.success(), "{v}");
    assert_eq!(v["boards"][0]["complete"], true, "{v}");
    assert_eq!(n(&v, "verify_errors"), 0);
    // Counted while the board streamed; forgeries after its stream ended
    // (the stream may finish before the last of the 1000 STOPs) find no
    // owner to defend.
    let counted = n(&b, "foreign_commands");
    assert!((1..=1002).contains(&counted), "{b}");
    // Its stream ended: on the last ACK, or on the owner's RESET that
    // came with the last ACKs.
    assert_eq!(n(&b, "confirmed_packets"), 128 << 10, "{b}");
    assert!(b["done"] == true || b["reset"] == true, "{b}");
}

#[test]
fn data_forged_with_the_boards_mac_is_a_conflict_not_good_data() {
    let _s = serial();
    let bed = bed("fadeforge", &["feb", "pc", "atk"]);
    let dir = std::env::temp_dir().join(format!("fadeforge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("stream.bin");
    let size = (4u64 << 20).to_string();
    // The receiver first, the board not yet running: the attacker's set 0
    // (all zeros, with the board's MAC) arrives before the real one.
    let rx = recv_cmd(
        &bed,
        &["feb"],
        &["--bytes", &size, "--out", file.to_str().expect("path")],
    )
    .spawn()
    .expect("start recv");
    std::thread::sleep(Duration::from_millis(300));
    let (feb, pc) = (mac6(&bed, "feb"), mac6(&bed, "pc"));
    let frames = (0..32)
        .map(|p| ethernet_frame(pc, feb, FADE, &v1_data(0, p, 0)))
        .collect();
    let (sent, _) = forge_frames(&bed, "atk", FADE, frames, Duration::from_millis(1));
    assert_eq!(sent, 32);
    // The board comes up: its first frame teaches the switch where its MAC
    // really is (the forged frames taught it the attacker's port).
    let hello = ethernet_frame([0xff; 6], feb, 0x88b5, &[0; 46]);
    forge_frames(&bed, "feb", 0x88b5, vec![hello], Duration::from_millis(10));
    let _board = feb_json(&bed, &["--bytes", &size]);
    let out = rx.wait_with_output().expect("recv output");
    let v = report(&out);
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("32 forged DATA packets of set 0: {v}");
    let r = &v["boards"][0];
    // Each of the 32 genuine packets conflicts with its forged stand-in
    // (once more for each resend of it).
    assert!(r["conflicts"].as_u64().is_some_and(|c| c >= 32), "{v}");
    assert_eq!(r["complete"], false, "{v}");
    assert!(
        !out.status.success(),
        "a run with conflicts is not clean: {v}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("conflict"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_forged_impossible_set_ends_one_run_but_not_the_board() {
    let _s = serial();
    let bed = bed("fadeimposs", &["feb", "pc", "atk"]);
    // An endless board, read twice.
    let _board = feb(&bed, "feb", &[]);
    let big = (1u64 << 30).to_string();
    let rx = recv_cmd(&bed, &["feb"], &["--bytes", &big])
        .spawn()
        .expect("start recv");
    std::thread::sleep(Duration::from_millis(300));
    let (feb, pc) = (mac6(&bed, "feb"), mac6(&bed, "pc"));
    let frames = vec![ethernet_frame(pc, feb, FADE, &v1_data(0x8000, 3, 0))];
    forge_frames(&bed, "atk", FADE, frames, Duration::from_millis(1));
    let out = rx.wait_with_output().expect("recv output");
    let v = report(&out);
    eprintln!("one forged DATA of set 0x8000: {v}");
    assert!(!out.status.success(), "{v}");
    let err = v["boards"][0]["error"].as_str().unwrap_or_default();
    assert!(err.contains("impossible") && err.contains("32768"), "{err}");
    // The next readout gets the board, from the start of a new stream.
    let out = recv_cmd(&bed, &["feb"], &["--bytes", "16MiB", "--verify"])
        .output()
        .expect("run recv");
    let v = report(&out);
    eprintln!("the next readout: {v}");
    assert!(out.status.success(), "the board was left unusable: {v}");
    assert_eq!(n(&v, "verify_errors"), 0);
}

#[test]
fn a_board_that_stops_mid_stream_is_reported_with_the_cause() {
    let _s = serial();
    let bed = bed("fadestops", &["feb", "pc"]);
    let big = (1u64 << 30).to_string();
    let mut board = feb(&bed, "feb", &["--bytes", &big]);
    let rx = recv_cmd(
        &bed,
        &["feb"],
        &["--bytes", &big, "--idle-timeout-ms", "500"],
    )
    .spawn()
    .expect("start recv");
    // The board goes away mid-stream (power, cable, or a STOP forged with
    // the host's own MAC look the same from the host).
    std::thread::sleep(Duration::from_millis(500));
    let _ = board.0.kill();
    let _ = board.0.wait();
    let out = rx.wait_with_output().expect("recv output");
    let v = report(&out);
    assert!(!out.status.success(), "{v}");
    let b = &v["boards"][0];
    let err = b["error"].as_str().unwrap_or_default();
    assert!(
        err.contains("nothing received for")
            && err.contains(&format!("stopped mid-stream after {} bytes", n(b, "bytes"))),
        "{err}"
    );
}

/// A board of the other wire version ignores the receiver's
/// commands, which used to show only as "nothing received for 2000 ms".
/// The receiver now probes a silent board in the other version and names
/// the mismatch, both ways round.
#[test]
fn a_fade_version_mismatch_is_named() {
    let _s = serial();
    for (board, receiver) in [("10g", "1"), ("1", "10g")] {
        let bed = jumbo_bed(&format!("fadever{board}"), &["feb", "pc"]);
        let _board = feb(&bed, "feb", &["--version", board]);
        let out = recv_cmd(
            &bed,
            &["feb"],
            &[
                "--version",
                receiver,
                "--bytes",
                "1MiB",
                "--idle-timeout-ms",
                "500",
            ],
        )
        .output()
        .expect("run recv");
        let v = report(&out);
        assert!(!out.status.success(), "{v}");
        let error = v["boards"][0]["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(&format!("speaks FADE version {board}"))
                && error.contains(&format!("--version {board}")),
            "board {board}, receiver {receiver}: {v}"
        );
    }
}
