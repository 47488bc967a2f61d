//! `linerate schema`: the JSON Schema of each report a command prints with
//! `--json`, generated from the report types themselves, so scripts can
//! validate what they read and see every field's type and meaning.
//! docs/schemas/ holds the same schemas, checked against this command by
//! the tests.

use anyhow::{bail, Result};
use clap::Args;
use linerate_kafka::report::Forwarded;
use schemars::{schema_for, Schema};

/// Arguments of `linerate schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The report: grab, camera, fade-feb, fade-recv, serve, watch,
    /// bench, doctor or noise. Without it, the names are listed.
    report: Option<String>,
}

/// Every report with a schema: its name and the command that prints it.
pub const REPORTS: [(&str, &str); 9] = [
    (
        "grab",
        "linerate grab --json (and the grab inside linerate demo --json)",
    ),
    ("camera", "linerate camera --json"),
    ("fade-feb", "linerate fade feb --json"),
    ("fade-recv", "linerate fade recv --json"),
    ("serve", "linerate serve --json"),
    ("watch", "linerate watch --json"),
    ("bench", "linerate bench --json"),
    ("doctor", "linerate doctor --json"),
    ("noise", "linerate noise --json"),
];

/// The JSON Schema of report `name`, or `None` for an unknown name.
pub fn schema(name: &str) -> Option<Schema> {
    Some(match name {
        "grab" => forwarded::<linerate_grab::session::GrabReport>(),
        "camera" => schema_for!(linerate_device::camera::CameraReport),
        "fade-feb" => schema_for!(linerate_device::board::BoardReport),
        "fade-recv" => forwarded::<linerate_readout::ReadoutReport>(),
        "serve" => schema_for!(linerate_serve::server::ServeReport),
        "watch" => schema_for!(linerate_serve::watcher::WatchReport),
        "bench" => schema_for!(linerate_bench::Report),
        "doctor" => schema_for!(linerate_doctor::DoctorReport),
        "noise" => schema_for!(linerate_metrics::noise::SurveyReport),
        _ => return None,
    })
}

/// The schema of a receiver's report `R` with the forwarder's fields it
/// carries when it forwards to Kafka, described as `R` is.
fn forwarded<R: schemars::JsonSchema>() -> Schema {
    let mut schema = schema_for!(Forwarded<R>);
    if let Some(description) = schema_for!(R).get("description").cloned() {
        schema.insert("description".to_owned(), description);
    }
    schema
}

/// Runs `linerate schema`.
pub fn run(args: SchemaArgs) -> Result<()> {
    let Some(name) = args.report else {
        for (name, printed_by) in REPORTS {
            println!("{name:<10} {printed_by}");
        }
        return Ok(());
    };
    match schema(&name) {
        Some(s) => {
            println!("{}", serde_json::to_string_pretty(&s)?);
            Ok(())
        }
        None => bail!(
            "no report named {name:?}: expected one of {}",
            REPORTS.map(|(n, _)| n).join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_report_has_a_schema_with_properties() {
        for (name, _) in REPORTS {
            let s = serde_json::to_value(schema(name).expect(name)).expect("json");
            assert!(s["properties"].is_object(), "{name}: {s}");
        }
        assert!(schema("nonsense").is_none());
    }
}
