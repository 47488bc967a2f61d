//! `linerate camera` against a GigE Vision host nobody here wrote: Aravis
//! (`arv-tool-0.8`, `arv-camera-test-0.8`), on a two-namespace test bench.
//! Aravis is a required test dependency (scripts/test installs it); these
//! tests fail, rather than skip, when it is missing.

use std::collections::HashMap;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use linerate_testbed::{LossRule, Testbed};

mod common;

const STREAM_PORT: u16 = 40_000;

/// The streaming tests take one at a time: on a 2-core machine, two
/// camera+Aravis pairs at once measure the scheduler, not the camera.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn bed(name: &str) -> Testbed {
    common::two_host_bed(name)
}

/// The camera process, stopped with SIGTERM when the test is done.
struct Camera {
    child: Option<Child>,
}

impl Camera {
    fn start(bed: &Testbed, extra: &[&str]) -> Camera {
        let ip = bed.addr("cam").expect("cam address").to_string();
        let port = STREAM_PORT.to_string();
        let mut cmd = bed
            .command("cam", env!("CARGO_BIN_EXE_linerate"))
            .expect("command in cam")
            .into_command()
            .expect("command");
        cmd.args([
            "camera",
            "--bind",
            &ip,
            "--stream-port",
            &port,
            "--json",
            "--stats-interval",
            "0",
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let child = cmd.spawn().expect("start linerate camera");
        let camera = Camera { child: Some(child) };
        // Ready when Aravis can discover it.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let out = arv(bed, "arv-tool-0.8", &[], 5);
            if String::from_utf8_lossy(&out.stdout).contains(&format!("({ip})")) {
                break;
            }
            assert!(Instant::now() < deadline, "camera never answered discovery");
            std::thread::sleep(Duration::from_millis(100));
        }
        camera
    }

    /// Stops the camera and returns its JSON counters.
    fn stop(mut self) -> serde_json::Value {
        let child = self.child.take().expect("running");
        let _ =
            linerate_io::process::send_signal(child.id(), linerate_io::process::Signal::Terminate);
        let out = child.wait_with_output().expect("camera exit");
        assert!(
            out.status.success(),
            "camera failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("camera JSON ({e}): {text}"))
    }
}

impl Drop for Camera {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Runs an Aravis tool in the host namespace, bounded by `timeout_s`.
fn arv(bed: &Testbed, tool: &str, args: &[&str], timeout_s: u32) -> Output {
    let mut cmd = bed
        .command("pc", "timeout")
        .expect("command in pc")
        .into_command()
        .expect("command");
    cmd.arg(timeout_s.to_string()).arg(tool).args(args);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool} (scripts/test installs aravis-tools): {e}"));
    assert_ne!(
        out.status.code(),
        Some(127),
        "{tool} is not installed: run scripts/test"
    );
    out
}

/// `name = value` lines of arv-camera-test's summary.
fn stats(out: &Output) -> HashMap<String, u64> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('=')?;
            Some((k.trim().to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

fn get(s: &HashMap<String, u64>, key: &str, out: &Output) -> u64 {
    *s.get(key).unwrap_or_else(|| {
        panic!(
            "no {key} in arv-camera-test output:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn aravis_discovers_lists_and_sets_features() {
    let _serial = serial();
    let bed = bed("arvfeat");
    let camera = Camera::start(&bed, &[]);
    let ip = bed.addr("cam").expect("addr").to_string();

    let out = arv(&bed, "arv-tool-0.8", &["-a", &ip, "features"], 20);
    let features = String::from_utf8_lossy(&out.stdout);
    for f in [
        "Width",
        "Height",
        "PixelFormat",
        "PayloadSize",
        "AcquisitionStart",
        "AcquisitionFrameRate",
        "TriggerSoftware",
        "GevSCPSPacketSize",
        "GevSCPD",
        "GevTimestampTickFrequency",
    ] {
        assert!(
            features.contains(&format!("'{f}'")),
            "arv-tool features lacks {f}:\n{features}"
        );
    }
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("rror"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The defaults let Aravis acquire with no options at all.
    let out = arv(&bed, "arv-camera-test-0.8", &["--duration", "2"], 20);
    let s = stats(&out);
    assert!(
        get(&s, "n_completed_buffers", &out) >= 20,
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(get(&s, "n_failures", &out), 0);

    // The moving gradient streams too.
    let out = arv(
        &bed,
        "arv-camera-test-0.8",
        &[
            "-n",
            &ip,
            "--duration",
            "1",
            "--features",
            "TestPattern=MovingGradient",
        ],
        20,
    );
    let s = stats(&out);
    assert!(
        get(&s, "n_completed_buffers", &out) >= 10,
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let out = arv(
        &bed,
        "arv-tool-0.8",
        &[
            "-a",
            &ip,
            "control",
            "Width=640",
            "Height=480",
            "PixelFormat=Mono16",
        ],
        20,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = arv(
        &bed,
        "arv-tool-0.8",
        &[
            "-a",
            &ip,
            "control",
            "Width",
            "Height",
            "PixelFormat",
            "PayloadSize",
        ],
        20,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Width = 640"), "{text}");
    assert!(text.contains("Height = 480"), "{text}");
    assert!(text.contains("PixelFormat = Mono16"), "{text}");
    assert!(
        text.contains(&format!("PayloadSize = {}", 640 * 480 * 2)),
        "{text}"
    );
    camera.stop();
}

#[test]
fn aravis_streams_100fps_1024x1024_for_10s_with_nothing_missing() {
    let _serial = serial();
    let bed = bed("arvstream");
    let camera = Camera::start(&bed, &[]);
    let ip = bed.addr("cam").expect("addr").to_string();
    let out = arv(
        &bed,
        "arv-camera-test-0.8",
        &[
            "-n",
            &ip,
            "-f",
            "100",
            "-w",
            "1024",
            "-h",
            "1024",
            "-i",
            "8000",
            "--duration",
            "10",
        ],
        40,
    );
    let s = stats(&out);
    let counters = camera.stop();
    let completed = get(&s, "n_completed_buffers", &out);
    assert!(
        completed >= 950,
        "only {completed} frames in 10 s at 100 fps"
    );
    for key in [
        "n_failures",
        "n_missing_frames",
        "n_missing_packets",
        "n_size_mismatch_errors",
        "n_underruns",
    ] {
        assert_eq!(
            get(&s, key, &out),
            0,
            "{key} in\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let sent = counters["frames_sent"].as_u64().expect("frames_sent");
    assert!(
        sent >= completed && sent <= completed + 5,
        "camera sent {sent}, Aravis completed {completed}"
    );
}

#[test]
fn aravis_completes_every_frame_through_1_percent_loss_with_resends() {
    let _serial = serial();
    let bed = bed("arvloss");
    bed.set_loss(&LossRule::new("pc", 1.0).ingress().udp_sport(STREAM_PORT))
        .expect("loss rule");
    let camera = Camera::start(&bed, &[]);
    let ip = bed.addr("cam").expect("addr").to_string();
    let out = arv(
        &bed,
        "arv-camera-test-0.8",
        &[
            "-n",
            &ip,
            "-f",
            "100",
            "-w",
            "1024",
            "-h",
            "1024",
            "-i",
            "8000",
            "--duration",
            "5",
        ],
        30,
    );
    let s = stats(&out);
    let counters = camera.stop();
    assert!(get(&s, "n_completed_buffers", &out) >= 450);
    assert_eq!(
        get(&s, "n_failures", &out),
        0,
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(get(&s, "n_missing_frames", &out), 0);
    assert!(
        get(&s, "n_resend_requests", &out) > 0,
        "1% loss caused no resend request"
    );
    assert!(get(&s, "n_resent_packets", &out) > 0);
    let resent = counters["packets_resent"].as_u64().expect("packets_resent");
    assert!(resent > 0, "camera counters show no resends: {counters}");
    let dropped: u64 = bed
        .loss_rules("pc")
        .expect("rules")
        .iter()
        .map(|r| r.packets)
        .sum();
    assert!(
        dropped > 0 && resent >= dropped / 2,
        "dropped {dropped}, resent {resent}"
    );
}

#[test]
fn software_trigger_makes_one_frame_per_trigger() {
    let _serial = serial();
    let bed = bed("arvtrig");
    let camera = Camera::start(&bed, &[]);
    let ip = bed.addr("cam").expect("addr").to_string();
    let out = arv(
        &bed,
        "arv-camera-test-0.8",
        &[
            "-n",
            &ip,
            "-o",
            "10",
            "-w",
            "256",
            "-h",
            "256",
            "--duration",
            "3",
        ],
        20,
    );
    let s = stats(&out);
    let counters = camera.stop();
    let completed = get(&s, "n_completed_buffers", &out);
    let sent = counters["frames_sent"].as_u64().expect("frames_sent");
    assert!(
        (15..=40).contains(&sent),
        "10 Hz triggers for 3 s made {sent} frames"
    );
    assert!(
        sent.abs_diff(completed) <= 1,
        "sent {sent}, completed {completed}"
    );
    assert!(
        counters["trigger_latency_us"]
            .as_u64()
            .is_some_and(|l| l > 0),
        "{counters}"
    );
}

/// Runs `program args` in the bench's `host` namespace and returns its
/// standard output, failing the test with its stderr if it fails.
fn run_in(bed: &Testbed, host: &str, program: &str, args: &[&str]) -> String {
    let out = bed
        .command(host, program)
        .expect("command")
        .into_command()
        .expect("command")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program} (scripts/test installs it): {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The defect this guards against: veth passes UDP GSO super-datagrams
/// through whole, so a packet socket (Aravis as root, tcpdump, tshark)
/// saw 64 KB "datagrams" from the camera. With GSO passthrough turned on
/// explicitly on the camera's veth, what a capture on the host's side
/// holds must be GVSP as a wire carries it: every packet within the
/// packet size, none malformed, and Aravis (as root: packet socket)
/// missing nothing.
#[test]
fn a_capture_on_a_gso_passthrough_veth_holds_only_legal_gvsp() {
    let _serial = serial();
    let bed = bed("arvcap");
    run_in(
        &bed,
        "cam",
        "ethtool",
        &["-K", "eth0", "tx-udp-segmentation", "on"],
    );
    let features = run_in(&bed, "cam", "ethtool", &["-k", "eth0"]);
    assert!(
        features
            .lines()
            .any(|l| l.trim().starts_with("tx-udp-segmentation: on")),
        "{features}"
    );
    let dir = std::env::temp_dir().join(format!("linerate-capture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let pcap = dir.join("stream.pcap");
    let pcap_arg = pcap.to_string_lossy().into_owned();
    let filter = format!("udp src port {STREAM_PORT}");
    // Headers are enough to judge sizes and dissect; keep the file small.
    let mut capture = bed
        .command("pc", "dumpcap")
        .expect("command")
        .into_command()
        .expect("command")
        .args([
            "-q", "-i", "eth0", "-s", "256", "-f", &filter, "-w", &pcap_arg,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start dumpcap (scripts/test installs it)");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::metadata(&pcap).map_or(0, |m| m.len()) == 0 {
        assert!(Instant::now() < deadline, "dumpcap did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let camera = Camera::start(&bed, &[]);
    let ip = bed.addr("cam").expect("addr").to_string();
    let out = arv(
        &bed,
        "arv-camera-test-0.8",
        &[
            "-n",
            &ip,
            "-f",
            "50",
            "-w",
            "1024",
            "-h",
            "1024",
            "-i",
            "8000",
            "--duration",
            "3",
        ],
        20,
    );
    let s = stats(&out);
    let counters = camera.stop();
    std::thread::sleep(Duration::from_millis(300));
    let _ =
        linerate_io::process::send_signal(capture.id(), linerate_io::process::Signal::Terminate);
    let _ = capture.wait();

    let completed = get(&s, "n_completed_buffers", &out);
    assert!(
        completed >= 100,
        "only {completed} frames in 3 s at 50 fps:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for key in ["n_size_mismatch_errors", "n_missing_packets", "n_failures"] {
        assert_eq!(
            get(&s, key, &out),
            0,
            "{key} in\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert_eq!(
        counters["udp_send"]["gso"], false,
        "veth passes GSO through, yet the camera used it: {counters}"
    );

    let port_rule = format!("udp.port=={STREAM_PORT},gvsp");
    let fields = run_in(
        &bed,
        "pc",
        "tshark",
        &[
            "-n",
            "-r",
            &pcap_arg,
            "-d",
            &port_rule,
            "-T",
            "fields",
            "-E",
            "separator=\t",
            "-e",
            "frame.len",
            "-e",
            "frame.protocols",
            "-e",
            "_ws.malformed",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
    let (mut gvsp, mut largest, mut malformed) = (0u64, 0usize, 0u64);
    for line in fields.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let len: usize = cols.first().and_then(|c| c.parse().ok()).unwrap_or(0);
        largest = largest.max(len);
        if cols.get(1).is_some_and(|p| p.contains("gvsp")) {
            gvsp += 1;
        }
        if cols.get(2).is_some_and(|m| !m.is_empty()) {
            malformed += 1;
        }
    }
    let sent = counters["packets_sent"].as_u64().expect("packets_sent");
    eprintln!("capture: {gvsp} GVSP packets (camera sent {sent}), largest frame {largest} bytes");
    assert_eq!(malformed, 0, "tshark found malformed packets");
    assert!(
        largest <= 8000 + 14,
        "a {largest}-byte frame on the wire: the packet size is 8000"
    );
    assert!(
        gvsp >= sent,
        "tshark recognised {gvsp} GVSP packets of the {sent} the camera sent"
    );
}
