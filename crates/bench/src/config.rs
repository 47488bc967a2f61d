//! What a bench run does: which scenarios, how long, how often, and how
//! the receiving host is set up.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::Serialize;

use crate::error::Error;
use crate::scenario::Scenario;

/// How the receiving host's network processing is placed on CPU 1, so that
/// CPU 1 stands in for the whole receiving machine (BRIEF: two machines on
/// one). The sender always runs on CPU 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum HostSetup {
    /// Like a NIC driver on the receiving machine: the host's veth runs
    /// NAPI (with GRO) in a kernel thread pinned to CPU 1, and RPS also
    /// points at CPU 1. Every part of receiving is charged to CPU 1.
    Napi,
    /// BRIEF's recipe: receive processing steered to CPU 1 by RPS, no GRO.
    Rps,
    /// GRO done where the sender's softirq runs (CPU 0, like a NIC's
    /// interrupt core or hardware GRO), protocol work steered to CPU 1 by
    /// RPS. Flatters receivers that use GRO: GRO itself is not charged.
    RpsGro,
}

impl HostSetup {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            HostSetup::Napi => "napi",
            HostSetup::Rps => "rps",
            HostSetup::RpsGro => "rps-gro",
        }
    }

    /// A sentence for the report saying exactly what was set up.
    pub fn describe(self) -> &'static str {
        match self {
            HostSetup::Napi => {
                "sender pinned to CPU 0; the host's veth runs threaded NAPI with GRO in a kernel \
                 thread pinned to CPU 1, RPS to CPU 1, receiver pinned to CPU 1 (sender's TSO off \
                 so packets reach NAPI); cost = CPU 1 busy time (wall minus idle, /proc/stat)"
            }
            HostSetup::Rps => {
                "sender pinned to CPU 0; the host's receive processing steered to CPU 1 by RPS, \
                 receiver pinned to CPU 1; cost = CPU 1 busy time (wall minus idle, /proc/stat)"
            }
            HostSetup::RpsGro => {
                "sender pinned to CPU 0; the host's veth does GRO in NAPI on CPU 0, RPS steers \
                 protocol work to CPU 1, receiver pinned to CPU 1; cost = CPU 1 busy time \
                 (GRO itself is not charged)"
            }
        }
    }
}

impl fmt::Display for HostSetup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HostSetup {
    type Err = Error;

    fn from_str(s: &str) -> Result<HostSetup, Error> {
        match s {
            "napi" => Ok(HostSetup::Napi),
            "rps" => Ok(HostSetup::Rps),
            "rps-gro" => Ok(HostSetup::RpsGro),
            other => Err(Error::Argument(format!(
                "unknown host setup {other:?}: choose napi, rps or rps-gro"
            ))),
        }
    }
}

/// Timing of each measured run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Timing {
    /// Time from starting the receiver to opening the measuring window:
    /// connection, acquisition start and the first buffers settle.
    #[serde(with = "secs")]
    #[schemars(with = "f64")]
    pub settle: Duration,
    /// The measuring window.
    #[serde(with = "secs")]
    #[schemars(with = "f64")]
    pub window: Duration,
    /// Repeats of each configuration, alternated across implementations.
    pub repeats: u32,
    /// Whether a discarded warm-up run opens each scenario.
    pub warmup: bool,
}

mod secs {
    use std::time::Duration;

    pub fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
}

/// Everything a bench run needs to know.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct BenchConfig {
    /// Scenarios to run, in order.
    pub scenarios: Vec<Scenario>,
    /// A short smoke run (CI): fewer cases, short windows, one repeat.
    pub quick: bool,
    /// Timing of every run.
    pub timing: Timing,
    /// Receiving-host placements, each measured in turn within every
    /// repeat (so `napi` and `rps` figures come from one run, side by side).
    /// Never empty.
    pub hosts: Vec<HostSetup>,
    /// The linerate binary run as camera, receiver and board.
    pub linerate: PathBuf,
    /// The Python interpreter that imports the `linerate` package, for the
    /// `python` scenario (default: [`default_python`]).
    pub python: PathBuf,
    /// linerate's GenTL producer, for the `python` scenario's Harvesters
    /// receiver; `None` leaves Harvesters out (default: [`default_cti`]).
    pub cti: Option<PathBuf>,
    /// The `python` scenario runs only `linerate grab` and Harvesters,
    /// not the `linerate` package's receivers: half the runs, so more
    /// repeats of the Harvesters ratio fit in the same time.
    pub harvesters_only: bool,
    /// The test bench's name (namespaces are `lr-<name>-<host>`).
    pub bed_name: String,
    /// The script that fetches Apache Kafka and starts brokers
    /// (`scripts/kafka` of a linerate checkout), for the `kafka` scenario;
    /// `None` when none was found ([`default_kafka_script`]).
    pub kafka_script: Option<PathBuf>,
}

impl BenchConfig {
    /// Whether more than one host setup is measured, so rows name theirs.
    pub fn several_hosts(&self) -> bool {
        self.hosts.len() > 1
    }

    /// The setups in words for the report: the one setup's sentence, or
    /// each setup's named and joined by " | ".
    pub fn describe_hosts(&self) -> String {
        match self.hosts.as_slice() {
            [one] => one.describe().to_owned(),
            many => many
                .iter()
                .map(|h| format!("{h}: {}", h.describe()))
                .collect::<Vec<_>>()
                .join(" | "),
        }
    }

    /// The configuration for `scenarios` (all when empty), quick or full.
    pub fn new(scenarios: Vec<Scenario>, quick: bool, linerate: PathBuf) -> BenchConfig {
        let scenarios = if scenarios.is_empty() {
            Scenario::ALL.to_vec()
        } else {
            scenarios
        };
        let timing = if quick {
            Timing {
                settle: Duration::from_millis(1200),
                window: Duration::from_secs(2),
                repeats: 1,
                warmup: false,
            }
        } else {
            Timing {
                settle: Duration::from_secs(2),
                window: Duration::from_secs(8),
                repeats: 2,
                warmup: true,
            }
        };
        let kafka_script = default_kafka_script(&linerate);
        BenchConfig {
            scenarios,
            quick,
            timing,
            hosts: vec![HostSetup::Napi],
            python: default_python(&linerate),
            cti: default_cti(&linerate),
            linerate,
            harvesters_only: false,
            bed_name: "bench".to_owned(),
            kafka_script,
        }
    }
}

/// The interpreter the `python` scenario runs when none is given: the
/// project's venv next to the build the bench runs from (`target/venv`,
/// where `scripts/test` builds the package, for `target/release/linerate`),
/// or `python3` from PATH when there is none.
pub fn default_python(linerate: &std::path::Path) -> PathBuf {
    linerate
        .parent()
        .and_then(std::path::Path::parent)
        .map(|target| target.join("venv").join("bin").join("python"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// The GenTL producer beside the build the bench runs from
/// (`liblinerate_gentl.so`, which `cargo build --release -p linerate-gentl`
/// and `scripts/test` make), if it is there.
pub fn default_cti(linerate: &std::path::Path) -> Option<PathBuf> {
    linerate
        .parent()
        .map(|dir| dir.join("liblinerate_gentl.so"))
        .filter(|p| p.is_file())
}

/// `scripts/kafka` of the checkout the bench runs from: above the build
/// (`target/release/linerate`), else in the current directory.
pub fn default_kafka_script(linerate: &std::path::Path) -> Option<PathBuf> {
    let above_build = linerate
        .ancestors()
        .nth(3)
        .map(std::path::Path::to_path_buf);
    let here = std::env::current_dir().ok();
    above_build
        .into_iter()
        .chain(here)
        .map(|root| root.join("scripts").join("kafka"))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_setups_parse_and_describe_themselves() {
        for h in [HostSetup::Napi, HostSetup::Rps, HostSetup::RpsGro] {
            assert_eq!(h.name().parse::<HostSetup>().ok(), Some(h));
            assert!(h.describe().contains("CPU 1"));
        }
        assert!("numa".parse::<HostSetup>().is_err());
    }

    #[test]
    fn empty_scenario_list_means_all_and_quick_is_short() {
        let c = BenchConfig::new(vec![], true, PathBuf::from("linerate"));
        assert_eq!(c.scenarios.len(), Scenario::ALL.len());
        assert!(c.timing.window < Duration::from_secs(5));
        let f = BenchConfig::new(vec![Scenario::Fade], false, PathBuf::from("linerate"));
        assert_eq!(f.scenarios, vec![Scenario::Fade]);
        assert!(f.timing.repeats >= 2 && f.timing.warmup);
    }

    #[test]
    fn python_defaults_to_the_venv_beside_the_build_or_python3() {
        let dir = std::env::temp_dir().join(format!("lr-bench-py-{}", std::process::id()));
        let bin = dir.join("venv").join("bin");
        std::fs::create_dir_all(&bin).expect("temp dir");
        let release = dir.join("release").join("linerate");
        assert_eq!(default_python(&release), PathBuf::from("python3"));
        std::fs::write(bin.join("python"), b"").expect("fake interpreter");
        assert_eq!(default_python(&release), bin.join("python"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
