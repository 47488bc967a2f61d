//! Checks a command's `--json` report against the JSON Schema that
//! `linerate schema NAME` prints (and docs/schemas/ publishes), so a
//! report that drifts from its documented shape fails the test that
//! produced it.

#![allow(dead_code)] // each test binary uses its own subset

use std::collections::HashMap;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The schema of report `name`, from the binary under test (read once).
fn schema(name: &str) -> serde_json::Value {
    static CACHE: OnceLock<Mutex<HashMap<String, serde_json::Value>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().expect("schema cache");
    cache
        .entry(name.to_owned())
        .or_insert_with(|| {
            let out = Command::new(env!("CARGO_BIN_EXE_linerate"))
                .args(["schema", name])
                .output()
                .expect("linerate schema");
            assert!(out.status.success(), "linerate schema {name} failed");
            serde_json::from_slice(&out.stdout).expect("schema is JSON")
        })
        .clone()
}

/// Every way `report` breaks the schema of report `name`, one line each.
pub fn violations(name: &str, report: &serde_json::Value) -> Vec<String> {
    let schema = schema(name);
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    validator
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Fails, listing every violation, unless `report` matches the schema of
/// report `name` (grab, camera, fade-feb, fade-recv, serve, watch, bench).
pub fn assert_matches_schema(name: &str, report: &serde_json::Value) {
    let errors = violations(name, report);
    assert!(
        errors.is_empty(),
        "the {name} report does not match `linerate schema {name}`:\n{}\nreport: {report}",
        errors.join("\n")
    );
}
