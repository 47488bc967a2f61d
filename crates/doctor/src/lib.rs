//! Host checks for a line-rate stream: what `linerate doctor` runs.
//!
//! Socket buffer limits, the backlog, MTU, offloads, interrupt coalescing,
//! the CPU frequency governor, IRQ affinity and RPS: the settings Allied
//! Vision's TCP paper and the APDCAM-10G study had to change before their
//! streams stopped losing data. Reading the host is in [`facts`], judging
//! in [`checks`] (pure, unit-tested); [`run`] does both for a
//! [`DoctorConfig`] and returns a typed [`DoctorReport`]. Nothing here
//! prints: a front-end presents the report.

use std::net::Ipv4Addr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod checks;
pub mod facts;

use checks::{run_checks, Check, Need, Status};
use facts::Facts;

/// Stream rate assumed when neither the config nor a link speed says.
pub const DEFAULT_GBIT_PER_S: f64 = 10.0;

/// What to check the host for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DoctorConfig {
    /// The interface the stream arrives on, by name; wins over `camera`.
    pub interface: Option<String>,
    /// Check the interface that routes to this camera (or board) address.
    pub camera: Option<Ipv4Addr>,
    /// Stream rate to check for, in Gbit/s [default: the link speed, or
    /// [`DEFAULT_GBIT_PER_S`]].
    pub gbit_per_s: Option<f64>,
    /// CPU the receive thread will be pinned to: IRQs and RPS should stay
    /// off it.
    pub receive_cpu: Option<usize>,
}

/// Why [`run`] could not check the host (a failed check is not an error:
/// it is a [`Status::Fail`] in the report).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The rate asked for is not a positive number.
    #[error("--gbit-per-s must be a positive rate, not {0}")]
    Rate(f64),
    /// No interface of that name in this network namespace.
    #[error("no interface {0:?} in this network namespace")]
    NoInterface(String),
    /// No route (hence no interface) towards the camera.
    #[error("finding the interface that reaches {camera}")]
    NoRoute {
        /// The camera address asked for.
        camera: Ipv4Addr,
        /// Why the route lookup failed.
        #[source]
        source: linerate_io::Error,
    },
    /// The receive CPU is not one of this host's online CPUs.
    #[error("--cpu {cpu}: this host has {online} CPUs online")]
    NoSuchCpu {
        /// The CPU asked for.
        cpu: usize,
        /// CPUs online.
        online: usize,
    },
}

/// Where the stream rate the checks assumed came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RateSource {
    /// Given in the config (`--gbit-per-s`).
    #[serde(rename = "argument")]
    Argument,
    /// The interface's link speed.
    #[serde(rename = "link speed")]
    LinkSpeed,
    /// Neither: [`DEFAULT_GBIT_PER_S`].
    #[serde(rename = "default")]
    Default,
}

impl RateSource {
    /// The words printed and serialized ("argument", "link speed",
    /// "default").
    pub fn word(self) -> &'static str {
        match self {
            RateSource::Argument => "argument",
            RateSource::LinkSpeed => "link speed",
            RateSource::Default => "default",
        }
    }
}

/// Every check's outcome, with what they assumed (`linerate doctor
/// --json` prints it as is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DoctorReport {
    /// Interface checked, if any.
    pub interface: Option<String>,
    /// Stream rate the checks assumed, Gbit/s.
    pub gbit_per_s: f64,
    /// Where the rate came from.
    pub rate_source: RateSource,
    /// Receive thread CPU checked against, if given.
    pub receive_cpu: Option<usize>,
    /// One entry per check, in the order they are printed.
    pub checks: Vec<Check>,
    /// Checks that are ok.
    pub ok: usize,
    /// Checks that warn.
    pub warn: usize,
    /// Checks that failed.
    pub fail: usize,
    /// Checks that could not be made.
    pub unknown: usize,
}

impl DoctorReport {
    /// Whether any check failed: the stream will lose data until fixed.
    pub fn any_failed(&self) -> bool {
        checks::any_failed(&self.checks)
    }
}

/// Reads the live host and runs every check.
pub fn run(config: &DoctorConfig) -> Result<DoctorReport, Error> {
    if let Some(r) = config.gbit_per_s {
        if !(r.is_finite() && r > 0.0) {
            return Err(Error::Rate(r));
        }
    }
    let interface = match (&config.interface, config.camera) {
        (Some(i), _) => {
            linerate_io::netdev::offloads(i)
                .ok()
                .filter(|o| o.mtu > 0)
                .ok_or_else(|| Error::NoInterface(i.clone()))?;
            Some(i.clone())
        }
        (None, Some(camera)) => Some(
            linerate_io::netdev::Link::towards(camera)
                .map_err(|source| Error::NoRoute { camera, source })?
                .name,
        ),
        (None, None) => None,
    };
    let facts = Facts::probe(interface.as_deref());
    let speed = facts
        .link
        .as_ref()
        .and_then(|l| l.speed_mbps)
        .map(|m| m as f64 / 1000.0);
    let (gbit_per_s, rate_source) = match (config.gbit_per_s, speed) {
        (Some(r), _) => (r, RateSource::Argument),
        (None, Some(s)) => (s, RateSource::LinkSpeed),
        (None, None) => (DEFAULT_GBIT_PER_S, RateSource::Default),
    };
    if let Some(cpu) = config.receive_cpu {
        if facts.cpus != 0 && cpu >= facts.cpus {
            return Err(Error::NoSuchCpu {
                cpu,
                online: facts.cpus,
            });
        }
    }
    let checks = run_checks(
        &facts,
        &Need {
            gbit_per_s,
            receive_cpu: config.receive_cpu,
        },
    );
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    Ok(DoctorReport {
        interface,
        gbit_per_s,
        rate_source,
        receive_cpu: config.receive_cpu,
        ok: count(Status::Ok),
        warn: count(Status::Warn),
        fail: count(Status::Fail),
        unknown: count(Status::Unknown),
        checks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_round_trips_through_json_with_the_old_field_words() {
        let report = DoctorReport {
            interface: Some("eth1".into()),
            gbit_per_s: 4.3,
            rate_source: RateSource::LinkSpeed,
            receive_cpu: Some(1),
            checks: vec![Check {
                name: "mtu".into(),
                status: Status::Warn,
                value: "eth1 1500".into(),
                needed: "9000".into(),
                why: "fewer packets".into(),
                fix: Some("ip link set eth1 mtu 9000".into()),
                note: None,
            }],
            ok: 0,
            warn: 1,
            fail: 0,
            unknown: 0,
        };
        let text = serde_json::to_string(&report).expect("serialize");
        assert!(text.contains(r#""rate_source":"link speed""#), "{text}");
        assert!(text.contains(r#""status":"warn""#), "{text}");
        let back: DoctorReport = serde_json::from_str(&text).expect("parse");
        assert_eq!(back, report);
        assert!(!back.any_failed());
    }

    #[test]
    fn the_schema_names_every_field_and_the_rate_source_words() {
        let schema = serde_json::to_value(schemars::schema_for!(DoctorReport)).expect("schema");
        let properties = schema["properties"].as_object().expect("properties");
        for field in ["interface", "gbit_per_s", "rate_source", "checks", "fail"] {
            assert!(properties.contains_key(field), "{field}: {schema}");
        }
        let text = schema.to_string();
        assert!(
            text.contains("link speed") && text.contains("unknown"),
            "{text}"
        );
    }

    #[test]
    fn bad_rates_and_unknown_interfaces_are_errors_naming_the_value() {
        let e = run(&DoctorConfig {
            gbit_per_s: Some(-1.0),
            ..DoctorConfig::default()
        })
        .expect_err("negative rate");
        assert!(e.to_string().contains("-1"), "{e}");
        let e = run(&DoctorConfig {
            interface: Some("nosuchif0".into()),
            ..DoctorConfig::default()
        })
        .expect_err("no such interface");
        assert!(e.to_string().contains("nosuchif0"), "{e}");
    }

    #[test]
    fn without_an_interface_the_rate_is_the_default_and_the_link_is_unknown() {
        let report = run(&DoctorConfig::default()).expect("runs");
        assert_eq!(report.rate_source, RateSource::Default);
        assert_eq!(report.gbit_per_s, DEFAULT_GBIT_PER_S);
        let interface = report
            .checks
            .iter()
            .find(|c| c.name == "interface")
            .expect("interface check");
        assert_eq!(interface.status, Status::Unknown);
        assert_eq!(
            report.ok + report.warn + report.fail + report.unknown,
            report.checks.len()
        );
    }
}
