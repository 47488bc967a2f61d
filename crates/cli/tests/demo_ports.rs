//! Two `linerate demo --loopback` runs side by side: each picks free ports
//! (the camera's GVCP port and the host's stream port), so neither takes
//! the other's camera or port.

use std::process::{Command, Stdio};

fn start_demo() -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_linerate"))
        .args([
            "demo",
            "--loopback",
            "--frames",
            "30",
            "--fps",
            "50",
            "--width",
            "256",
            "--height",
            "64",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start demo")
}

#[test]
fn two_loopback_demos_run_side_by_side() {
    let first = start_demo();
    let second = start_demo();
    for (which, child) in [("first", first), ("second", second)] {
        let out = child.wait_with_output().expect("demo output");
        assert!(
            out.status.success(),
            "{which} demo failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(report["mode"], "loopback", "{which}: {report}");
        assert_eq!(report["frames_completed"], 30, "{which}: {report}");
        assert_eq!(report["frames_incomplete"], 0, "{which}: {report}");
    }
}
