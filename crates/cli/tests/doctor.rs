//! `linerate doctor` on a test bench: the MTU check must follow the
//! interface's real MTU (1500 → warn, 9000 → ok), `--camera` must find the
//! interface that routes to the camera, `--json` must parse, and the exit
//! status must say whether a check failed.

mod common;

use std::process::Output;

use linerate_testbed::Testbed;
use serde_json::Value;

fn bed(name: &str, mtu: u32) -> Testbed {
    common::require_root();
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    Testbed::builder(name)
        .hosts(["cam", "pc"])
        .link("cam", "pc")
        .mtu(mtu)
        .build()
        .expect("test bench")
}

fn doctor(bed: &Testbed, args: &[&str]) -> Output {
    bed.command("pc", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command")
        .arg("doctor")
        .args(args)
        .output()
        .expect("run doctor")
}

/// Parses `--json` output and checks the exit status agrees with it.
fn report(out: &Output) -> Value {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    common::schema::assert_matches_schema("doctor", &v);
    let failed = v["checks"]
        .as_array()
        .expect("checks array")
        .iter()
        .any(|c| c["status"] == "fail");
    assert_eq!(
        out.status.code(),
        Some(if failed { 3 } else { 0 }),
        "exit status must be 3 exactly when a check failed: {v}"
    );
    assert_eq!(v["fail"].as_u64().map(|n| n > 0), Some(failed));
    v
}

fn check<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["checks"]
        .as_array()
        .and_then(|a| a.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no {name} check in {v}"))
}

#[test]
fn mtu_check_flips_between_1500_and_9000() {
    let mut statuses = Vec::new();
    for (name, mtu) in [("dr_mtu15", 1500u32), ("dr_mtu90", 9000)] {
        let bed = bed(name, mtu);
        let iface = bed.iface("pc").expect("iface").name.clone();
        let out = doctor(
            &bed,
            &["--interface", &iface, "--gbit-per-s", "4.3", "--json"],
        );
        let v = report(&out);
        assert_eq!(v["interface"], iface.as_str());
        assert_eq!(v["gbit_per_s"], 4.3);
        assert_eq!(v["rate_source"], "argument");
        let m = check(&v, "mtu");
        assert!(
            m["value"]
                .as_str()
                .is_some_and(|s| s.ends_with(&mtu.to_string())),
            "{m}"
        );
        // veth has no interrupts to coalesce: said so, not guessed.
        assert_eq!(check(&v, "irq_coalescing")["status"], "unknown", "{v}");
        assert_eq!(check(&v, "irq_affinity")["status"], "unknown", "{v}");
        assert!(check(&v, "irq_coalescing")["note"].is_string(), "{v}");
        for c in v["checks"].as_array().expect("array") {
            for key in ["name", "status", "value", "needed", "why"] {
                assert!(c[key].is_string(), "{key} missing in {c}");
            }
        }
        statuses.push((m["status"].clone(), m["fix"].clone()));
    }
    assert_eq!(statuses[0].0, "warn");
    assert!(
        statuses[0]
            .1
            .as_str()
            .is_some_and(|f| f.contains("mtu 9000")),
        "{statuses:?}"
    );
    assert_eq!(statuses[1].0, "ok");
    assert!(statuses[1].1.is_null());
}

#[test]
fn camera_address_finds_the_interface_and_the_table_prints() {
    let bed = bed("dr_cam", 9000);
    let cam = bed.addr("cam").expect("addr").to_string();
    let iface = bed.iface("pc").expect("iface").name.clone();
    let v = report(&doctor(&bed, &["--camera", &cam, "--cpu", "1", "--json"]));
    assert_eq!(v["interface"], iface.as_str());
    assert_eq!(v["receive_cpu"], 1);
    // An up veth claims 10000 Mb/s; with no --gbit-per-s the link speed is
    // the rate checked for, and the report says where it came from.
    assert_eq!(v["rate_source"], "link speed");
    assert_eq!(v["gbit_per_s"], 10.0);

    let out = doctor(&bed, &["--camera", &cam]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("STATUS") && text.contains("netdev_max_backlog"),
        "{text}"
    );
    assert!(text.contains(&format!("{iface} 9000")), "{text}");
    assert!(text.contains("Not checked:"), "{text}");

    let out = doctor(&bed, &["--interface", "nosuchif0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nosuchif0"));
    // A rate out of range is refused while the arguments are parsed.
    let out = doctor(&bed, &["--interface", &iface, "--gbit-per-s", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 is not in 0.001..=1000"));
}
