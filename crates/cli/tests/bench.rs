//! `linerate bench`'s command line: plans, argument errors, help and signals. The
//! measurement itself runs in CI as `linerate bench --quick --json`
//! (scripts/test), checked by scripts/check-bench-report.

use std::process::{Command, Output};

#[path = "common/schema.rs"]
mod schema;

fn linerate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args(args)
        .output()
        .expect("run linerate")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every scenario `linerate bench` has, the ported ones included.
const SCENARIOS: [&str; 13] = [
    "packet-sizes",
    "udp-tcp",
    "ceilings",
    "lossless-rate",
    "trigger-latency",
    "fade",
    "fade-versions",
    "serve",
    "camera",
    "floor",
    "python",
    "kafka",
    "view",
];

#[test]
fn quick_dry_run_plans_every_scenario_within_seven_minutes() {
    let o = linerate(&["bench", "--quick", "--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for sc in SCENARIOS {
        assert!(
            text.lines().any(|l| l.starts_with(sc)),
            "{sc} missing:\n{text}"
        );
    }
    for imp in [
        "aravis",
        "linerate-mmsg",
        "iperf3-tcp",
        "tcp-1MiB",
        "aravis-fake",
        "drop-by-xdp",
        "python-copy",
        "kafka-producer-perf",
        "linerate-grab-to-kafka",
        "grab-page-open",
    ] {
        assert!(text.contains(imp), "{imp} missing:\n{text}");
    }
    let last = text.lines().last().unwrap_or_default();
    let minutes: f64 = last
        .split("about ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(f64::MAX);
    assert!(
        minutes <= 7.0,
        "quick plan estimated at {minutes} minutes: {last}"
    );
}

#[test]
fn full_plan_alternates_and_warms_up() {
    let o = linerate(&["bench", "packet-sizes", "--dry-run", "--repeats", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.lines().next().is_some_and(|l| l.contains("(warm-up)")),
        "{text}"
    );
    // Five packet sizes, four receivers, three repeats, one warm-up.
    assert!(text.contains("61 runs"), "{text}");
    let first_case: Vec<&str> = text.lines().skip(1).take(4).collect();
    assert!(first_case[0].contains("linerate-copy") && first_case[3].contains("aravis"));
}

#[test]
fn several_host_setups_take_turns_in_one_run() {
    let o = linerate(&[
        "bench",
        "ceilings",
        "--quick",
        "--host",
        "napi,rps",
        "--dry-run",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let hosts: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("iperf3-tcp"))
        .map(|l| {
            if l.contains("[napi]") {
                "napi"
            } else if l.contains("[rps]") {
                "rps"
            } else {
                "?"
            }
        })
        .collect();
    assert_eq!(hosts, ["napi", "rps"], "{text}");
    assert!(text.contains("6 runs"), "{text}");
}

#[test]
fn scenarios_are_chosen_by_name_or_number() {
    let o = linerate(&["bench", "2", "ceilings", "--quick", "--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("udp-tcp") && text.contains("ceilings"));
    assert!(!text.contains("packet-sizes") && !text.contains("fade"));
}

#[test]
fn bad_arguments_are_clear_errors() {
    let o = linerate(&["bench", "packets", "--dry-run"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown scenario \"packets\""),
        "{}",
        stderr(&o)
    );
    let o = linerate(&["bench", "99", "--dry-run"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no scenario number 99: there are 1 to "),
        "{}",
        stderr(&o)
    );
    let o = linerate(&["bench", "--seconds", "0.1", "--dry-run"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--seconds") && stderr(&o).contains("0.1 is not in 0.5..=600"),
        "{}",
        stderr(&o)
    );
    let o = linerate(&["bench", "--host", "numa", "--dry-run"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown host setup"), "{}", stderr(&o));
}

#[test]
fn help_explains_the_setup_and_the_scenarios() {
    let o = linerate(&["bench", "--help"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("CPU 0") && text.contains("CPU 1"));
    assert!(text.contains("lossless-rate") && text.contains("--quick"));
    // Every scenario is listed, the ported ones included.
    for name in SCENARIOS {
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().nth(1) == Some(name)),
            "{name} missing from bench --help"
        );
    }
}

#[test]
fn bench_never_replaces_a_bed_it_did_not_make() {
    let up = linerate(&["testbed", "up", "--name", "benchmine", "--hosts", "a,b"]);
    assert!(up.status.success(), "{}", stderr(&up));
    let o = linerate(&["bench", "ceilings", "--quick", "--name", "benchmine"]);
    let still_there = linerate_testbed::netns_exists("benchmine", "a");
    let down = linerate(&["testbed", "down", "--name", "benchmine"]);
    assert!(!o.status.success(), "bench ran on a user's bed");
    assert!(
        stderr(&o).contains("\"benchmine\" exists already") && stderr(&o).contains("testbed down"),
        "{}",
        stderr(&o)
    );
    assert!(still_there, "bench removed the user's bed");
    assert!(down.status.success(), "{}", stderr(&down));
    // Its own default name differs from testbed's.
    let help = stdout(&linerate(&["bench", "--help"]));
    assert!(help.contains("[default: lrbench]"), "{help}");
}

/// Ctrl-C or SIGTERM to `bench` used to leave its namespaces behind. Now
/// the bench stops at its next wait, removes its bed, prints what it
/// measured (one JSON object saying it was interrupted) and exits as a
/// shell reports the signal.
#[test]
fn a_signal_stops_the_bench_which_removes_its_bed_and_reports() {
    for (signal, status) in [
        (linerate_io::process::Signal::Terminate, 143),
        (linerate_io::process::Signal::Interrupt, 130),
    ] {
        let name = format!("bsig{status}");
        let child = Command::new(env!("CARGO_BIN_EXE_linerate"))
            .args(["bench", "serve", "--quick", "--json", "--name", &name])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start bench");
        // Wait until the bed stands, then a little into the first run.
        let started = std::time::Instant::now();
        while !linerate_testbed::netns_exists(&name, "pc") {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the bench never built its bed"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_millis(1500));
        linerate_io::process::send_signal(child.id(), signal).expect("signal the bench");
        let stopped = std::time::Instant::now();
        let o = child.wait_with_output().expect("bench output");
        let left = linerate_testbed::netns_exists(&name, "pc")
            || linerate_testbed::netns_exists(&name, "cam");
        if left {
            let _ = linerate(&["testbed", "down", "--name", &name]);
        }
        assert!(!left, "signal {signal}: the bench left its namespaces");
        assert!(
            stopped.elapsed() < std::time::Duration::from_secs(15),
            "signal {signal}: the bench took {:?} to stop",
            stopped.elapsed()
        );
        assert_eq!(o.status.code(), Some(status), "{}", stderr(&o));
        let report: serde_json::Value =
            serde_json::from_str(stdout(&o).trim()).expect("one JSON report on stdout");
        assert_eq!(report["interrupted"], true, "{report}");
        schema::assert_matches_schema("bench", &report);
        assert!(stderr(&o).contains("bench stopped early"), "{}", stderr(&o));
    }
}
