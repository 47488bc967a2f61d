//! Forwarding to a real Apache Kafka broker end to end: `linerate camera`
//! in one namespace, `linerate grab --to kafka://...` in the other with the
//! broker (scripts/kafka, on that namespace's loopback), read back by
//! `linerate consume`, by two consumers in one group, and by ESS's own
//! Python decoder (ess-streaming-data-types through confluent-kafka).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use linerate_testbed::Testbed;
use serde_json::Value;

mod common;

/// One test at a time: each runs a broker's JVM beside a camera or board
/// and a receiver, which is all two cores hold.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bed(name: &str) -> Testbed {
    assert!(
        linerate_io::privilege::is_root(),
        "kafka tests build namespaces and must run as root"
    );
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    Testbed::builder(name)
        .hosts(["cam", "pc"])
        .link("cam", "pc")
        .mtu(9000)
        .build()
        .expect("test bench")
}

fn in_ns(bed: &Testbed, host: &str, program: impl AsRef<std::ffi::OsStr>) -> Command {
    bed.command(host, program)
        .expect("command")
        .into_command()
        .expect("command")
}

/// A broker of scripts/kafka on the "pc" namespace's loopback, with a
/// state directory of its own; stopped and removed when dropped.
struct Broker {
    dir: PathBuf,
    bootstrap: String,
}

impl Broker {
    fn start(bed: &Testbed, name: &str, partitions: u32) -> Broker {
        let script = workspace().join("scripts/kafka");
        // The jars come from Maven Central: fetch them (once, cached) from
        // the root namespace, which reaches the network.
        let jars = Command::new(&script)
            .arg("jars")
            .output()
            .expect("scripts/kafka");
        assert!(
            jars.status.success(),
            "scripts/kafka jars failed (scripts/install-deps installs Java and Maven): {}",
            String::from_utf8_lossy(&jars.stderr)
        );
        let dir = workspace().join(format!("target/kafka-test-{name}-{}", std::process::id()));
        let out = in_ns(bed, "pc", &script)
            .env("LINERATE_KAFKA_DIR", &dir)
            .args(["up", "--partitions", &partitions.to_string()])
            .output()
            .expect("scripts/kafka up");
        assert!(
            out.status.success(),
            "scripts/kafka up failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bootstrap = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Broker { dir, bootstrap }
    }

    /// Runs `scripts/kafka WHAT` on this broker, in "pc" (where `start`
    /// must start it again).
    fn script(&self, bed: &Testbed, what: &str) {
        let out = in_ns(bed, "pc", workspace().join("scripts/kafka"))
            .env("LINERATE_KAFKA_DIR", &self.dir)
            .arg(what)
            .output()
            .expect("scripts/kafka");
        assert!(
            out.status.success(),
            "scripts/kafka {what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = Command::new(workspace().join("scripts/kafka"))
            .env("LINERATE_KAFKA_DIR", &self.dir)
            .arg("down")
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `linerate camera` in "cam", killed when dropped.
struct Camera(Child);

impl Drop for Camera {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn camera(bed: &Testbed) -> (Camera, String) {
    let ip = bed.addr("cam").expect("cam address").to_string();
    let child = in_ns(bed, "cam", env!("CARGO_BIN_EXE_linerate"))
        .args(["camera", "--bind", &ip, "--stats-interval", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("linerate camera");
    let cam = Camera(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = in_ns(bed, "pc", env!("CARGO_BIN_EXE_linerate"))
            .args(["discover", "--address", &ip, "--wait-ms", "200", "--json"])
            .output()
            .expect("linerate discover");
        if String::from_utf8_lossy(&out.stdout).contains(&ip) {
            return (cam, ip);
        }
        assert!(Instant::now() < deadline, "camera at {ip} never answered");
    }
}

fn json(stdout: &[u8]) -> Value {
    serde_json::from_slice(stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(stdout)))
}

fn ids(report: &Value) -> Vec<u64> {
    report["sources"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["ids"].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v.as_u64())
        .collect()
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// 300 frames of 1024x1024 forwarded while grabbing (over linerate's TCP
/// transport at 25 fps: the broker's JVM shares the 2 cores, and this test
/// is about what reaches Kafka, not UDP loss under that load): every one in
/// the topic once, verified by `linerate consume`, split between two consumers
/// of one group over the topic's two partitions, and decoded by ESS's
/// Python package with the right dimensions and timestamps.
#[test]
fn grabbed_frames_reach_kafka_once_verified_and_readable_by_ess() {
    let _s = serial();
    let python = workspace().join("target/venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/install-deps (it installs confluent-kafka and ess-streaming-data-types)",
        python.display()
    );
    let bed = bed("kafka_grab");
    let broker = Broker::start(&bed, "grab", 2);
    let (_cam, ip) = camera(&bed);
    let topic = "frames";
    let url = format!("kafka://{}/{topic}", broker.bootstrap);

    // The topic with two partitions, made by Kafka's own client.
    let out = in_ns(&bed, "pc", &python)
        .arg(workspace().join("crates/cli/tests/kafka_decode.py"))
        .args([&broker.bootstrap, topic, "--create", "2"])
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Two consumers of one group, each holding one of the two partitions
    // before anything is produced (they say so on stderr).
    let (tx, rx) = std::sync::mpsc::channel();
    let group: Vec<Child> = (0..2)
        .map(|i| {
            let mut c = in_ns(&bed, "pc", env!("CARGO_BIN_EXE_linerate"))
                .args(["consume", &url, "--group", "split", "--idle", "8"])
                .args(["--timeout", "120", "--ids", "--json"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("linerate consume");
            let stderr = c.stderr.take().expect("piped");
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    // "consume: partitions [0] of frames assigned"
                    let held = line
                        .split_once('[')
                        .and_then(|(_, rest)| rest.split_once(']'))
                        .filter(|_| line.contains("assigned"))
                        .map(|(list, _)| list.split(',').filter(|p| !p.trim().is_empty()).count());
                    if let Some(n) = held {
                        let _ = tx.send((i, n == 1));
                    }
                }
            });
            c
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut holding = [false, false];
    while holding != [true, true] {
        let left = deadline.saturating_duration_since(Instant::now());
        let (i, one) = rx
            .recv_timeout(left)
            .expect("both group members hold one partition within 60 s");
        holding[i] = one;
    }

    let started = now_ns();
    let out = in_ns(&bed, "pc", env!("CARGO_BIN_EXE_linerate"))
        .args([
            "grab", &ip, "--frames", "300", "--width", "1024", "--height", "1024",
        ])
        .args(["--fps", "25", "--transport", "tcp"])
        .args(["--verify", "--json", "--to", &url])
        .output()
        .expect("linerate grab");
    let ended = now_ns();
    let grab = json(&out.stdout);
    assert!(
        out.status.success(),
        "{grab}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(grab["frames_completed"], 300, "{grab}");
    assert_eq!(grab["kafka_messages"], 300, "{grab}");
    assert_eq!(grab["kafka_errors"], 0);
    assert_eq!(grab["kafka_dropped"], 0);
    assert!(grab["kafka_latency_p99_us"]
        .as_f64()
        .is_some_and(|p| p > 0.0));
    // The forwarder's fields are part of the grab's published schema.
    common::schema::assert_matches_schema("grab", &grab);

    // One consumer reading both partitions: every frame once, verified.
    let out = in_ns(&bed, "pc", env!("CARGO_BIN_EXE_linerate"))
        .args([
            "consume", &url, "--expect", "300", "--ids", "--json", "--idle", "5",
        ])
        .output()
        .expect("linerate consume");
    let seen = json(&out.stdout);
    assert!(out.status.success(), "{seen}");
    assert_eq!(seen["messages"], 300, "{seen}");
    let source = &seen["sources"][0];
    assert_eq!(source["source"], ip.as_str());
    assert_eq!(
        (source["gaps"].as_u64(), source["duplicates"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(source["verified"], 300);
    assert_eq!(source["dimensions"], serde_json::json!([1024, 1024]));
    let all: BTreeSet<u64> = ids(&seen).into_iter().collect();
    assert_eq!(all.len(), 300);
    assert!(
        seen["counters"][format!("{ip}:frames_completed")]
            .as_u64()
            .is_some(),
        "the f144 counters on frames_status: {seen}"
    );

    // The group: together every frame once, each consumer one partition.
    let mut union = Vec::new();
    for c in group {
        let out = c.wait_with_output().expect("consumer");
        let r = json(&out.stdout);
        assert!(out.status.success(), "{r}");
        assert_eq!(r["partitions"].as_object().map(|p| p.len()), Some(1), "{r}");
        union.extend(ids(&r));
    }
    union.sort_unstable();
    assert_eq!(
        union,
        all.iter().copied().collect::<Vec<_>>(),
        "every frame once across the group"
    );

    // ESS's own decoder reads what we wrote.
    let out = in_ns(&bed, "pc", &python)
        .arg(workspace().join("crates/cli/tests/kafka_decode.py"))
        .args([&broker.bootstrap, topic, "300"])
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoded: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| json(l.as_bytes()))
        .collect();
    assert_eq!(decoded.len(), 300);
    let mut blocks = BTreeSet::new();
    for d in &decoded {
        assert_eq!(d["source"], ip.as_str());
        assert_eq!(d["dimensions"], serde_json::json!([1024, 1024]), "{d}");
        assert_eq!(d["shape"], serde_json::json!([1024, 1024]), "{d}");
        assert_eq!(d["stamp_ok"], true, "{d}");
        assert_eq!(d["complete"], 1);
        let t = d["timestamp_ns"].as_u64().expect("timestamp");
        assert!(
            (started..=ended).contains(&t),
            "timestamp {t} outside the grab {started}..{ended}"
        );
        let block = d["block_id"].as_u64().expect("block id");
        assert_eq!(d["id"].as_u64(), Some(block & 0x7fff_ffff));
        blocks.insert(block);
    }
    assert_eq!(blocks, all, "ESS's decoder saw the same 300 frames");
}

/// The broker stopped for longer than the delivery timeout in the middle of
/// a forwarded grab, then started again: the grab finishes without a crash
/// and exits non-zero, every failed frame is counted and listed, every frame
/// reported delivered is in the topic, and memory stays bounded.
#[test]
fn a_broker_stopped_mid_run_costs_counted_frames_never_silent_ones() {
    let _s = serial();
    let bed = bed("kafka_stop");
    let broker = Broker::start(&bed, "stop", 1);
    let (_cam, ip) = camera(&bed);
    let url = format!("kafka://{}/frames", broker.bootstrap);
    let grab = in_ns(&bed, "pc", env!("CARGO_BIN_EXE_linerate"))
        .args([
            "grab", &ip, "--frames", "300", "--width", "512", "--height", "512",
        ])
        .args(["--fps", "25", "--transport", "tcp", "--verify", "--json"])
        .args(["--to", &url, "--kafka-timeout", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("linerate grab");
    std::thread::sleep(Duration::from_secs(3));
    broker.script(&bed, "stop");
    std::thread::sleep(Duration::from_secs(5));
    broker.script(&bed, "start");
    let out = grab.wait_with_output().expect("grab");
    let report = json(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "non-zero, not a crash: {report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        report["frames_completed"], 300,
        "the grab itself went on: {report}"
    );
    let errors = report["kafka_errors"].as_u64().expect("kafka_errors");
    let delivered = report["kafka_messages"].as_u64().expect("kafka_messages");
    assert!(errors > 0, "{report}");
    assert_eq!(report["kafka_dropped"], 0);
    assert_eq!(
        report["ok"], false,
        "an undelivered frame clears ok: {report}"
    );
    common::schema::assert_matches_schema("grab", &report);
    assert_eq!(
        delivered + errors,
        300,
        "every frame accounted for: {report}"
    );
    let undelivered: BTreeSet<u64> = report["kafka"]["undelivered_ids"]
        .as_array()
        .expect("undelivered ids")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(undelivered.len() as u64, errors);
    assert!(
        report["max_rss_mib"].as_f64().is_some_and(|m| m < 1024.0),
        "{report}"
    );

    let out = in_ns(&bed, "pc", env!("CARGO_BIN_EXE_linerate"))
        .args([
            "consume",
            &url,
            "--ids",
            "--json",
            "--idle",
            "5",
            "--no-verify",
        ])
        .output()
        .expect("linerate consume");
    let seen = json(&out.stdout);
    let in_topic: BTreeSet<u64> = ids(&seen).into_iter().collect();
    // Over TCP the camera's 300 frames have consecutive block ids.
    let first = in_topic
        .iter()
        .chain(&undelivered)
        .min()
        .copied()
        .expect("some frame");
    let reported_delivered: Vec<u64> = (first..first + 300)
        .filter(|id| !undelivered.contains(id))
        .collect();
    assert_eq!(reported_delivered.len() as u64, delivered);
    let missing: Vec<u64> = reported_delivered
        .iter()
        .filter(|id| !in_topic.contains(id))
        .copied()
        .collect();
    assert!(
        missing.is_empty(),
        "reported delivered but not in the topic: {missing:?}"
    );
}

/// 256 MiB from an emulated FADE board forwarded by `fade recv --to` in
/// 1 MiB chunks: every chunk in the topic once, and every byte of every
/// chunk the board's counter stream at its offset.
#[test]
fn a_board_stream_is_forwarded_in_chunks_and_verified_end_to_end() {
    let _s = serial();
    let bed = Testbed::builder("kafka_fade")
        .hosts(["feb", "pc"])
        .link("feb", "pc")
        .build()
        .expect("test bench");
    let broker = Broker::start(&bed, "fade", 1);
    let url = format!("kafka://{}/board", broker.bootstrap);
    let feb_if = bed.iface("feb").expect("iface").name.clone();
    let mut board = in_ns(&bed, "feb", env!("CARGO_BIN_EXE_linerate"))
        .args(["fade", "feb", "--interface", &feb_if])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("linerate fade feb");
    let pc_if = bed.iface("pc").expect("iface").name.clone();
    let mac = bed.mac("feb").expect("mac").to_string();
    let out = in_ns(&bed, "pc", env!("CARGO_BIN_EXE_linerate"))
        .args(["fade", "recv", "--interface", &pc_if, "--feb", &mac])
        .args(["--bytes", "256MiB", "--verify", "--json", "--to", &url])
        .output()
        .expect("linerate fade recv");
    let _ = board.kill();
    let _ = board.wait();
    let recv = json(&out.stdout);
    assert!(
        out.status.success(),
        "{recv}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(recv["kafka_messages"], 256, "{recv}");
    assert_eq!(recv["kafka_errors"], 0);
    common::schema::assert_matches_schema("fade-recv", &recv);

    let out = in_ns(&bed, "pc", env!("CARGO_BIN_EXE_linerate"))
        .args(["consume", &url, "--expect", "256", "--json", "--idle", "5"])
        .output()
        .expect("linerate consume");
    let seen = json(&out.stdout);
    assert!(out.status.success(), "{seen}");
    let s = &seen["sources"][0];
    assert_eq!(s["source"], mac.as_str());
    assert_eq!(s["kind"], "chunk");
    assert_eq!(
        (s["first_id"].as_u64(), s["last_id"].as_u64()),
        (Some(0), Some(255))
    );
    assert_eq!(
        (s["gaps"].as_u64(), s["duplicates"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(s["verified"], 256);
    assert_eq!(s["bytes"], 256u64 << 20);
}
