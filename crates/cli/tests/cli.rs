//! The `linerate` binary end to end: demo, decode and testbed commands.

#[path = "common/schema.rs"]
mod schema;

use std::path::Path;
use std::process::{Command, Output};

fn linerate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(args)
        .output()
        .expect("run linerate")
}

fn json(out: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn vectors(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/vectors")
        .join(name)
        .display()
        .to_string()
}

/// The demos stream gigabits on a 2-core machine: one at a time, or they
/// measure each other.
static DEMO: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn demo_lock() -> std::sync::MutexGuard<'static, ()> {
    DEMO.lock().unwrap_or_else(|p| p.into_inner())
}

/// Two noise probes of one CPU measure each other: one at a time.
static NOISE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn noise_lock() -> std::sync::MutexGuard<'static, ()> {
    NOISE.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn demo_delivers_every_frame_on_a_clean_link() {
    let _one = demo_lock();
    let out = linerate(&["demo", "--frames", "200", "--fps", "300", "--json"]);
    assert!(
        out.status.success(),
        "demo failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["mode"], "testbed", "{v}");
    assert_eq!(v["frames_completed"], 200, "{v}");
    assert_eq!(v["frames_verified"], 200, "{v}");
    assert_eq!(v["frames_incomplete"], 0, "{v}");
    assert_eq!(v["ok"], true, "{v}");
}

/// `--frames 0` is no frame limit and `--duration` is obeyed beside it
/// (docs/cli.md): the demo ends after about 2 s with its report.
#[test]
fn demo_frames_0_ends_at_the_duration() {
    let _one = demo_lock();
    let t0 = std::time::Instant::now();
    let out = linerate(&[
        "demo",
        "--frames",
        "0",
        "--duration",
        "2",
        "--fps",
        "100",
        "--json",
    ]);
    let took = t0.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    let v = json(&out);
    // On a loaded machine a frame may stay incomplete (exit 1, reported);
    // what this test holds is the time limit.
    assert!(
        out.status.success() || v["frames_incomplete"].as_u64().is_some_and(|n| n > 0),
        "demo failed: {err}"
    );
    assert!(
        took < std::time::Duration::from_secs(20),
        "--frames 0 --duration 2 took {took:?}"
    );
    assert!(
        v["seconds"]
            .as_f64()
            .is_some_and(|s| (2.0..4.0).contains(&s)),
        "{v}"
    );
    // Frames arrived (how many is the machine's business: 200 asked for).
    assert!(
        v["frames_completed"].as_u64().is_some_and(|n| n >= 20),
        "{v}"
    );
    assert!(
        err.contains("demo: bench") && err.contains("for 2 s"),
        "{err}"
    );
}

#[test]
fn demo_repairs_loss_with_resends() {
    let _one = demo_lock();
    let out = linerate(&[
        "demo", "--frames", "200", "--fps", "300", "--loss", "5", "--json",
    ]);
    let v = json(&out);
    let incomplete = v["frames_incomplete"].as_u64().expect("count");
    let complete = v["frames_completed"].as_u64().expect("count");
    assert_eq!(complete + incomplete, 200, "{v}");
    assert_eq!(
        v["frames_corrupt"], 0,
        "an incomplete frame was passed as complete: {v}"
    );
    assert!(
        v["packets_resent"].as_u64().expect("count") > 100,
        "5% loss, no resends: {v}"
    );
    // Loss is expected, so the demo succeeds as long as nothing is corrupt.
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A PATH holding nothing but iproute2's `ip`: no ethtool, nft, tc,
/// tshark, Aravis or even coreutils.
fn path_with_only_ip() -> std::path::PathBuf {
    let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .into_iter()
        .map(Path::new)
        .find(|p| p.exists())
        .expect("iproute2's ip is installed");
    let dir = std::env::temp_dir().join(format!("linerate-only-ip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let link = dir.join("ip");
    if !link.exists() {
        std::os::unix::fs::symlink(ip, &link).expect("symlink ip");
    }
    dir
}

#[test]
fn demo_needs_nothing_but_ip_on_path() {
    let _one = demo_lock();
    let path = path_with_only_ip();
    let out = Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(["demo", "--frames", "100", "--fps", "300", "--json"])
        .env("PATH", &path)
        .output()
        .expect("run linerate");
    assert!(
        out.status.success(),
        "demo with only ip on PATH failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["mode"], "testbed", "{v}");
    assert_eq!(v["frames_completed"], 100, "{v}");
    assert_eq!(v["frames_incomplete"], 0, "{v}");

    // Loss emulation needs nft: the demo says so instead of failing in
    // the middle.
    let out = Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(["demo", "--frames", "10", "--loss", "5", "--json"])
        .env("PATH", &path)
        .output()
        .expect("run linerate");
    let _ = std::fs::remove_dir_all(&path);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("nft is not on PATH") && stderr.contains("nftables"),
        "{stderr}"
    );
}

#[test]
fn demo_refuses_bad_arguments() {
    let out = linerate(&["demo", "--loss", "150"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--loss") && stderr.contains("150 is not in 0..=100"),
        "{stderr}"
    );
}

#[test]
fn decode_accepts_aravis_vectors_and_refuses_invalid_ones() {
    let out = linerate(&["decode", "--file", &vectors("aravis/gvcp_arv_tool.hex")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Discovery"));

    // With --json every packet's fields are names and numbers (no Rust
    // Debug strings), e.g. a GVSP payload packet's block id.
    let out = linerate(&[
        "decode",
        "--json",
        "--file",
        &vectors("aravis/gvsp_arv_camera_test.hex"),
    ]);
    let report = json(&out);
    assert_eq!(report["ok"], true, "{report}");
    let packets = report["packets"].as_array().expect("packets");
    assert!(packets.iter().all(|p| p["decoded"].is_object()), "{report}");
    let payload = packets
        .iter()
        .find(|p| p["decoded"]["body"]["payload_bytes"].is_u64())
        .expect("a payload packet");
    assert!(
        payload["decoded"]["header"]["block_id"].is_u64(),
        "{payload}"
    );
    assert_eq!(payload["decoded"]["header"]["status"], "SUCCESS");

    let out = linerate(&[
        "decode",
        "--json",
        "--file",
        &vectors("invalid/hand_made.hex"),
    ]);
    assert!(!out.status.success());
    // One object for the whole command, one entry per packet.
    let report = json(&out);
    assert_eq!(report["ok"], false, "{report}");
    let lines = report["packets"].as_array().expect("packets");
    assert!(lines.len() >= 10);
    assert!(lines
        .iter()
        .all(|l| l["ok"] == false && l["error"].is_string()));
    assert!(lines.iter().all(|l| l["proto"].as_str().is_some_and(|p| p
        .chars()
        .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit()))));
}

#[test]
fn testbed_up_status_down() {
    let out = linerate(&[
        "testbed", "up", "--name", "clitest", "--hosts", "cam,pc", "--mtu", "9000", "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let up = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(up.contains("169.254."), "{up}");
    let out = linerate(&["testbed", "status", "--name", "clitest", "--json"]);
    let status = String::from_utf8_lossy(&out.stdout).to_string();
    let down = linerate(&["testbed", "down", "--name", "clitest"]);
    assert!(
        out.status.success() && status.contains("lr-clitest-cam"),
        "{status}"
    );
    assert!(
        down.status.success(),
        "{}",
        String::from_utf8_lossy(&down.stderr)
    );
    let out = linerate(&["testbed", "status", "--name", "clitest", "--json"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("lr-clitest-cam"));
}

/// `linerate noise` says what it probes, stops on SIGINT/SIGTERM with the
/// report of the time probed (exit 130/143), and refuses a duration too
/// short to measure anything.
#[test]
fn noise_stops_on_a_signal_with_its_report_and_refuses_tiny_durations() {
    let _one = noise_lock();
    for (signal, code, name) in [
        (linerate_io::process::Signal::Interrupt, 130, "SIGINT"),
        (linerate_io::process::Signal::Terminate, 143, "SIGTERM"),
    ] {
        let child = Command::new(env!("CARGO_BIN_EXE_linerate"))
            .args(["noise", "--cpu", "0", "--duration", "60", "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start noise");
        std::thread::sleep(std::time::Duration::from_secs(1));
        let _ = linerate_io::process::send_signal(child.id(), signal);
        let t0 = std::time::Instant::now();
        let out = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(t0.elapsed() < std::time::Duration::from_secs(3), "{err}");
        assert_eq!(out.status.code(), Some(code), "{err}");
        assert!(err.contains("noise: probing CPU 0 for 60 s"), "{err}");
        let v = json(&out);
        let probed = v["cpus"][0]["duration_ns"].as_u64().expect("duration");
        assert!((500_000_000..10_000_000_000).contains(&probed), "{v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains(name)), "{v}");
    }
    // -q: no start-up line, stdout unchanged.
    let out = linerate(&["-q", "noise", "--cpu", "0", "--duration", "0.05", "--json"]);
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert!(v["cpus"][0]["duration_ns"].is_u64());
    schema::assert_matches_schema("noise", &v);
    let out = linerate(&["noise", "--cpu", "0", "--duration", "0", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--duration") && err.contains("0.01..="),
        "{err}"
    );
}

/// `linerate noise` probes the CPUs asked for and reports, in one JSON
/// object, the gaps, a floor per target (never above the share of time
/// lost, since each gap adds less to a floor than its length) and one
/// replay per --work-us; a CPU that is not online is refused by number.
#[test]
fn noise_reports_floors_and_replays_and_refuses_an_absent_cpu() {
    let _one = noise_lock();
    let out = linerate(&[
        "noise",
        "--cpu",
        "0",
        "--duration",
        "0.3",
        "--target-us",
        "5,30",
        "--frame-rate",
        "111k",
        "--work-us",
        "1,4",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "noise failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let cpu = &v["cpus"][0];
    assert_eq!(cpu["cpu"], 0, "{v}");
    assert!(
        cpu["duration_ns"].as_u64().expect("duration") >= 300_000_000,
        "{v}"
    );
    let lost = cpu["lost_share"].as_f64().expect("lost share");
    let floors = cpu["floors"].as_array().expect("floors");
    assert_eq!(floors.len(), 2, "{v}");
    assert_eq!(floors[0]["target_us"], 5.0, "{v}");
    let f5 = floors[0]["share_over"].as_f64().expect("share");
    let f30 = floors[1]["share_over"].as_f64().expect("share");
    assert!(
        f30 <= f5 && f5 <= lost,
        "floors shrink with the target: {v}"
    );
    let replays = cpu["replays"].as_array().expect("replays");
    assert_eq!(replays.len(), 2, "{v}");
    assert_eq!(replays[0]["load"]["interarrival_ns"], 9009, "{v}");
    assert_eq!(replays[1]["load"]["service_ns"], 4000, "{v}");
    let events = replays[0]["events"].as_u64().expect("events");
    // One event per 9009 ns over the time probed (at least 0.3 s; more
    // on a loaded machine).
    let expected = cpu["duration_ns"].as_u64().expect("duration") / 9009;
    assert!(
        events.abs_diff(expected) <= expected / 50,
        "0.3 s at 111k/s: {v}"
    );

    let out = linerate(&["noise", "--cpu", "4095", "--duration", "0.1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("CPU 4095 is not online"), "{err}");
}

#[test]
fn version_names_the_commit_and_completions_and_man_pages_are_generated() {
    let out = Command::new(env!("CARGO_BIN_EXE_linerate"))
        .arg("--version")
        .output()
        .expect("run");
    let v = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && v.contains("(commit "), "{v}");

    let out = Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(["completions", "bash"])
        .output()
        .expect("run");
    let script = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{script}");
    for word in ["grab", "discover", "fade", "--packet-size"] {
        assert!(script.contains(word), "bash completion lacks {word}");
    }

    let dir = std::env::temp_dir().join(format!("linerate-man-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(["man", "--out"])
        .arg(&dir)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(dir.join("linerate-fade-recv.1")).expect("fade recv page");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(page.contains("linerate fade recv"), "{page}");
}

#[test]
fn quiet_and_verbose_are_accepted_by_every_command_but_not_together() {
    let ok = Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(["completions", "-q", "bash"])
        .output()
        .expect("run");
    assert!(ok.status.success());
    let both = Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(["-q", "-v", "completions", "bash"])
        .output()
        .expect("run");
    assert!(!both.status.success());
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
}

#[test]
fn grab_view_refuses_too_few_buffers_for_the_page_to_hold_its_frames() {
    // Refused before anything is sent or bound.
    let out = linerate(&[
        "grab",
        "192.0.2.1",
        "--buffers",
        "3",
        "--view",
        "127.0.0.1:0",
    ]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("--buffers 3 with --view") && e.contains("--buffers 4 or more"),
        "{e}"
    );
}

#[test]
fn errors_name_the_offending_value_once() {
    let err = |args: &[&str]| {
        let out = linerate(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // An address with a typo is not taken for a serial number.
    let e = err(&["grab", "999.1.1.1", "--frames", "1"]);
    assert!(
        e.contains("999.1.1.1") && e.contains("not an IPv4 address"),
        "{e}"
    );
    // A bad local address is named, not the camera's. (Nothing is sent:
    // the bind fails first.)
    let e = err(&[
        "grab",
        "169.254.9.9",
        "--interface",
        "10.1.2.3",
        "--frames",
        "1",
    ]);
    assert!(e.contains("10.1.2.3") && e.contains("local address"), "{e}");
    // A MAC with wrong characters says so, not "bad length".
    let e = err(&[
        "fade",
        "recv",
        "--interface",
        "lo",
        "--feb",
        "zz:00:00:00:00:01",
    ]);
    assert!(
        e.contains("\"zz:00:00:00:00:01\" is not valid") && !e.contains("length"),
        "{e}"
    );
    assert_eq!(
        e.matches("zz:00:00:00:00:01").count(),
        2,
        "said once by clap, once by us: {e}"
    );
}

#[test]
fn testbed_says_it_needs_root() {
    // setpriv (util-linux) runs the command as nobody, from a copy of the
    // binary nobody can reach (the build directory may be private).
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("linerate-nonroot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod dir");
    let exe = dir.join("linerate");
    std::fs::copy(env!("CARGO_BIN_EXE_linerate"), &exe).expect("copy binary");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&exe)
        .args(["testbed", "up", "--name", "nonroot"])
        .output()
        .expect("setpriv (util-linux)");
    let _ = std::fs::remove_dir_all(&dir);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(e.contains("needs root") && !e.contains("mount"), "{e}");
}

/// Counts, sizes and durations out of range are refused while parsing,
/// with clap's exit code 2 and an error naming the argument and the range,
/// before anything is allocated (`grab --buffers 100000000` used to grow
/// to 6.4 GB, `--buffers 4294967296` to abort, u64::MAX to panic).
/// `main.rs` checks every numeric argument of every command this way in
/// process; this runs the binary for a few.
#[test]
fn numeric_arguments_out_of_range_are_refused_with_the_range() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["grab", "192.0.2.1"], "--buffers", "2..=4096"),
        (&["grab", "192.0.2.1"], "--frame-timeout", "0.01..=3600"),
        (&["grab", "192.0.2.1"], "--duration", "0.001..=31536000"),
        (
            &["camera", "--bind", "192.0.2.1"],
            "--resend-frames",
            "1..=1024",
        ),
        (
            &["camera", "--bind", "192.0.2.1"],
            "--resend-memory",
            "1MiB..=1024GiB",
        ),
        (&["serve", "--bind", "127.0.0.1"], "--slots", "2..=65536"),
        (
            &["watch", "--connect", "127.0.0.1:1"],
            "--clients",
            "1..=4096",
        ),
    ];
    for (command, arg, range) in cases {
        for value in ["0", "100000000", "4294967296", "18446744073709551615", "x"] {
            if *arg == "--resend-memory" && ["100000000", "4294967296"].contains(&value) {
                continue; // 95 MiB and 4 GiB are budgets one may ask for.
            }
            let mut argv = command.to_vec();
            let pair = format!("{arg}={value}");
            argv.push(&pair);
            let out = linerate(&argv);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{argv:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{argv:?}: {stderr}");
            assert!(stderr.contains(arg), "{argv:?} names no argument: {stderr}");
            if value != "x" {
                assert!(stderr.contains(range), "{argv:?} gives no range: {stderr}");
            }
        }
    }
}

/// A negative number reaches its argument's range check (not clap's
/// advice to write `-- -5`), a CPU that is not online is refused by
/// number everywhere, and a camera size off its grid names the grid.
#[test]
fn negative_numbers_offline_cpus_and_camera_sizes_get_the_real_reason() {
    for argv in [
        &["camera", "--bind", "192.0.2.1", "--width", "-5"][..],
        &["grab", "192.0.2.1", "--resend-ratio", "-1"],
        &["demo", "--loss", "-2"],
        &["demo", "--frames", "-3"],
        &["watch", "--connect", "127.0.0.1:1", "--clients", "-3"],
    ] {
        let out = linerate(argv);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        assert!(err.contains("is not in"), "{argv:?}: {err}");
        assert!(!err.contains("-- -"), "{argv:?}: {err}");
    }
    for argv in [
        &[
            "testbed", "exec", "--host", "a", "--cpu", "4095", "--", "true",
        ][..],
        &["grab", "192.0.2.1", "--cpu", "4095"],
        &[
            "fade",
            "recv",
            "--interface",
            "lo",
            "--feb",
            "02:00:00:00:00:01",
            "--cpu",
            "4095",
        ],
    ] {
        let out = linerate(argv);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        assert!(
            err.contains("CPU 4095 is not online (online CPUs: "),
            "{argv:?}: {err}"
        );
    }
    // Checked before anything is bound: no camera starts on loopback.
    let out = linerate(&["camera", "--bind", "127.0.0.1", "--width", "17"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("width = 17: must lie in 16..=") && err.contains("a multiple of 4"),
        "{err}"
    );
}

#[test]
fn testbed_exec_becomes_the_command_so_signals_and_exit_codes_reach_it() {
    let up = linerate(&["testbed", "up", "--name", "execsig", "--hosts", "a,b"]);
    assert!(
        up.status.success(),
        "{}",
        String::from_utf8_lossy(&up.stderr)
    );
    let code = linerate(&[
        "testbed", "exec", "--name", "execsig", "--host", "a", "--", "sh", "-c", "exit 3",
    ]);
    // A long command stopped through testbed exec's own process must not
    // outlive it.
    let mut child = Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args([
            "testbed", "exec", "--name", "execsig", "--host", "a", "--", "sleep", "61.5",
        ])
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let _ = linerate_io::process::send_signal(child.id(), linerate_io::process::Signal::Terminate);
    let status = child.wait().expect("wait");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let left = Command::new("pgrep")
        .args(["-f", "sleep 61.5"])
        .output()
        .expect("pgrep");
    let _ = Command::new("pkill").args(["-f", "sleep 61.5"]).status();
    let down = linerate(&["testbed", "down", "--name", "execsig"]);
    assert_eq!(code.status.code(), Some(3));
    assert!(!status.success());
    assert!(
        left.stdout.is_empty(),
        "the command outlived testbed exec: {}",
        String::from_utf8_lossy(&left.stdout)
    );
    assert!(down.status.success());
}

#[test]
fn demo_stopped_by_a_signal_tears_its_bench_down_and_reports() {
    let _one = demo_lock();
    for (signal, code) in [
        (linerate_io::process::Signal::Interrupt, 130),
        (linerate_io::process::Signal::Terminate, 143),
    ] {
        let child = Command::new(env!("CARGO_BIN_EXE_linerate"))
            .args(["demo", "--duration", "60", "--fps", "100", "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start demo");
        let bed = format!("demo{}", child.id() % 10_000);
        std::thread::sleep(std::time::Duration::from_secs(3));
        let _ = linerate_io::process::send_signal(child.id(), signal);
        let out = child.wait_with_output().expect("wait");
        std::thread::sleep(std::time::Duration::from_millis(300));
        // This build's cameras only: other checkouts' tests run demos too.
        let ours = format!(
            "{} camera --bind 169.254.1.1",
            env!("CARGO_BIN_EXE_linerate")
        );
        let cameras = Command::new("pgrep")
            .args(["-f", &ours])
            .output()
            .expect("pgrep");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json(&out);
        assert!(v["frames_completed"].as_u64().is_some_and(|n| n > 0), "{v}");
        for host in ["camera", "host"] {
            assert!(
                !linerate_testbed::netns_exists(&bed, host),
                "namespace lr-{bed}-{host} left after the signal"
            );
        }
        assert!(
            cameras.stdout.is_empty(),
            "a camera outlived the demo: {}",
            String::from_utf8_lossy(&cameras.stdout)
        );
    }
}

/// Runs linerate with a stdout whose reader has already gone (as in
/// `linerate ... | head` once head has exited).
fn with_closed_stdout(args: &[&str]) -> Output {
    let (read, write) = linerate_io::process::pipe().expect("pipe");
    drop(read);
    Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(args)
        .stdout(std::process::Stdio::from(write))
        .output()
        .expect("run linerate")
}

/// Printing to a closed pipe ends a command quietly with 141 (128 +
/// SIGPIPE), whatever prints: no panic message, no error line.
#[test]
fn a_closed_stdout_ends_quietly_with_status_141() {
    let vectors = vectors("aravis/gvcp_arv_tool.hex");
    for args in [
        &["completions", "bash"][..],
        &["decode", "--file", &vectors],
        &["noise", "--cpu", "0", "--duration", "0.05"],
    ] {
        let out = with_closed_stdout(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("error:"),
            "{args:?}: {err}"
        );
    }
}

/// `--cpu` on the long-running commands. `serve
/// --cpu N` puts every thread of the server on CPU N, as `taskset` would.
#[test]
fn cpu_pins_every_thread_of_a_long_running_command() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cpu = (cpus - 1).to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(["serve", "--bind", "127.0.0.1", "--port", "0", "--cpu", &cpu])
        .args(["--duration", "3", "--fps", "10", "--frame-size", "1024"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start serve");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let tasks = std::fs::read_dir(format!("/proc/{}/task", child.id())).expect("task list");
    let mut seen = 0;
    for t in tasks.flatten() {
        let status = std::fs::read_to_string(t.path().join("status")).unwrap_or_default();
        if let Some(list) = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        {
            assert_eq!(list.trim(), cpu, "thread {:?}", t.file_name());
            seen += 1;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(seen >= 1, "no thread of serve was found");
    let o = linerate(&["watch", "--connect", "127.0.0.1:1", "--cpu", "4096"]);
    assert_eq!(o.status.code(), Some(2));
}

/// With --json, every failure is one JSON object on stdout with
/// `ok: false` and an `error` naming the cause (an argument refused while
/// parsing, a failure at run time, a command that prints its own report).
#[test]
fn every_failure_with_json_is_one_object_with_an_error() {
    for args in [
        &[
            "watch",
            "--connect",
            "127.0.0.1:1",
            "--duration",
            "5x",
            "--json",
        ][..],
        &["discover", "--interface", "no-such-if0", "--json"],
        &[
            "fade",
            "recv",
            "--interface",
            "lo",
            "--feb",
            "02:00:00:00:00:01",
            "--json",
        ],
        &["decode", "--json"],
        &["grab", "999.1.1.1", "--json"],
    ] {
        let o = linerate(args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let text = String::from_utf8_lossy(&o.stdout);
        let mut objects =
            serde_json::Deserializer::from_str(&text).into_iter::<serde_json::Value>();
        let v = objects
            .next()
            .unwrap_or_else(|| panic!("{args:?}: no JSON on stdout"))
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {text}"));
        assert!(
            objects.next().is_none(),
            "{args:?}: more than one object: {text}"
        );
        assert_eq!(v["ok"], false, "{args:?}: {v}");
        assert!(
            v["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{args:?}: {v}"
        );
    }
}

/// docs/schemas/ publishes the JSON Schema of every report; it must be
/// what `linerate schema` prints for the same build, so the published
/// schemas never drift from the types. To update them after changing a
/// report: `for n in $(linerate schema | cut -d' ' -f1); do linerate
/// schema $n > docs/schemas/$n.schema.json; done`.
#[test]
fn the_published_schemas_are_the_reports_schemas() {
    let list = linerate(&["schema"]);
    assert!(list.status.success());
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(names.len() >= 9, "{names:?}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas");
    for name in &names {
        let out = linerate(&["schema", name]);
        assert!(out.status.success(), "schema {name}");
        let path = dir.join(format!("{name}.schema.json"));
        let published =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            published,
            String::from_utf8_lossy(&out.stdout),
            "{} is out of date: regenerate it with `linerate schema {name}`",
            path.display()
        );
    }
    // The check can fail: a report with a field of the wrong type or
    // without a required field breaks its schema.
    let wrong = serde_json::json!({ "frames_complete": "many" });
    let found = schema::violations("grab", &wrong);
    assert!(
        found.iter().any(|v| v.contains("frames_complete")),
        "{found:?}"
    );
    let out = linerate(&["schema", "nonsense"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no report named \"nonsense\""));
}
