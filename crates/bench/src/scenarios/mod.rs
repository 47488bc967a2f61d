//! Each scenario's plan: the jobs it runs, in alternation across
//! implementations within each repeat.

mod camera;
mod ceilings;
mod fade;
mod fade_versions;
mod floor;
mod kafka;
mod lossless_rate;
mod packet_sizes;
mod python;
mod serve;
mod trigger_latency;
mod udp_tcp;
mod view;

use crate::config::{BenchConfig, HostSetup};
use crate::job::{BedKind, Job};
use crate::peers::GvspReceiver;
use crate::scenario::Scenario;

/// Bytes per frame the serve scenario serves.
pub use serve::FRAME_BYTES as SERVE_FRAME_BYTES;

/// The kafka scenario's references and case kinds.
pub use kafka::{
    is_producer_case as is_kafka_producer_case, GRAB_REFERENCE as KAFKA_GRAB_REFERENCE,
    PRODUCER_REFERENCE as KAFKA_PRODUCER_REFERENCE,
};

/// The jobs of `scenario` under `config`, warm-up first when configured.
pub fn plan(scenario: Scenario, config: &BenchConfig) -> Vec<Job> {
    let jobs = match scenario {
        Scenario::PacketSizes => packet_sizes::plan(config),
        Scenario::UdpTcp => udp_tcp::plan(config),
        Scenario::Ceilings => ceilings::plan(config),
        Scenario::LosslessRate => lossless_rate::plan(config),
        Scenario::TriggerLatency => trigger_latency::plan(config),
        Scenario::Fade => fade::plan(config),
        Scenario::FadeVersions => fade_versions::plan(config),
        Scenario::Serve => serve::plan(config),
        Scenario::Camera => camera::plan(config),
        Scenario::Floor => floor::plan(config),
        Scenario::Python => python::plan(config),
        Scenario::Kafka => kafka::plan(config),
        Scenario::View => view::plan(config),
    };
    with_warmup(jobs, config)
}

/// About how long `jobs` take under `config`: a measured run's settling,
/// window and start-up each, Kafka's runs what their producers, streams
/// and brokers take (a broker starts once per bed, a cluster per fault
/// run).
pub fn estimated_duration(jobs: &[Job], config: &BenchConfig) -> std::time::Duration {
    use std::time::Duration;
    let measured = config.timing.settle + config.timing.window + Duration::from_secs(3);
    let each: Duration = jobs
        .iter()
        .map(|j| match &j.work {
            // A JVM's start, the topic, and the records at 100 MB/s.
            crate::job::Work::KafkaProduce {
                record_bytes,
                records,
                ..
            } => Duration::from_secs(4 + record_bytes * records / 100_000_000),
            // Three brokers' start, the stream, the read-back.
            crate::job::Work::KafkaFault { seconds, .. } => Duration::from_secs(seconds + 60),
            _ => measured,
        })
        .sum();
    let broker_start = if jobs.iter().any(|j| j.scenario == Scenario::Kafka) {
        Duration::from_secs(15)
    } else {
        Duration::ZERO
    };
    each + broker_start
}

/// What `scenario` needs that this machine lacks, each said with how to
/// get it: its programs ([`tools`]) and, for the `python` scenario, the
/// package in the configured interpreter.
pub fn missing_requirements(scenario: Scenario, config: &BenchConfig) -> Vec<String> {
    let mut missing: Vec<String> = tools(scenario)
        .into_iter()
        .filter_map(|(tool, hint)| {
            crate::process::require_tool(tool, hint)
                .err()
                .map(|e| e.to_string())
        })
        .collect();
    if scenario == Scenario::Kafka && config.kafka_script.is_none() {
        missing.push(format!(
            "scripts/kafka not found ({})",
            KAFKA_MISSING_SCRIPT
        ));
    }
    if scenario == Scenario::Python {
        let mut modules = Vec::new();
        if !config.harvesters_only {
            modules.push("linerate");
        }
        if config.cti.is_some() {
            modules.push("harvesters");
        }
        for module in modules {
            if let Err(e) = crate::process::require_python_package(&config.python, module) {
                missing.push(e.to_string());
            }
        }
    }
    missing
}

/// Programs a scenario needs besides linerate, with how to get them.
pub fn tools(scenario: Scenario) -> Vec<(&'static str, &'static str)> {
    let aravis = (
        crate::peers::ARAVIS_HOST,
        "Debian package aravis-tools-cli (scripts/install-deps)",
    );
    let iperf = ("iperf3", "Debian package iperf3 (scripts/install-deps)");
    let ethtool = ("ethtool", "Debian package ethtool (scripts/install-deps)");
    let aravis_fake = (
        crate::peers::ARAVIS_FAKE_CAMERA,
        "Debian package aravis-tools-cli (scripts/install-deps)",
    );
    let nft = ("nft", "Debian package nftables (scripts/install-deps)");
    let java = (
        "java",
        "Debian package default-jre-headless (scripts/install-deps), for the Kafka broker",
    );
    let mvn = (
        "mvn",
        "Debian package maven (scripts/install-deps), fetches the Kafka jars once",
    );
    let chromium = (
        crate::peers::CHROMIUM,
        "Debian package chromium (scripts/install-deps installs it; the bench never downloads a browser)",
    );
    match scenario {
        Scenario::PacketSizes | Scenario::LosslessRate => vec![aravis, ethtool],
        Scenario::Camera => vec![aravis, aravis_fake, ethtool],
        Scenario::Floor => vec![aravis, nft, ethtool],
        Scenario::Ceilings => vec![iperf, ethtool],
        Scenario::UdpTcp
        | Scenario::TriggerLatency
        | Scenario::Fade
        | Scenario::FadeVersions
        | Scenario::Serve
        | Scenario::Python => vec![ethtool],
        Scenario::Kafka => vec![ethtool, java, mvn],
        Scenario::View => vec![ethtool, chromium],
    }
}

/// Repeats `per_repeat` (one repeat's jobs, alternating implementations)
/// `config.timing.repeats` times, numbering the repeats; within each
/// repeat, every host setup takes its turn ([`per_host`]).
fn repeated(config: &BenchConfig, per_repeat: impl Fn() -> Vec<Job>) -> Vec<Job> {
    (1..=config.timing.repeats.max(1))
        .flat_map(|r| {
            per_host(config, &per_repeat).into_iter().map(move |mut j| {
                j.repeat = r;
                j
            })
        })
        .collect()
}

/// `jobs()` once per host setup of `config`, each pair-bed job tagged with
/// its setup. Work on the switch bed, whose placement the setups do not
/// change, is planned once.
fn per_host(config: &BenchConfig, jobs: impl Fn() -> Vec<Job>) -> Vec<Job> {
    let hosts: &[HostSetup] = if config.hosts.is_empty() {
        &[HostSetup::Napi]
    } else {
        &config.hosts
    };
    let mut out = Vec::new();
    for (i, &host) in hosts.iter().enumerate() {
        for mut job in jobs() {
            if job.work.bed() == BedKind::Pair {
                job.host = Some(host);
                out.push(job);
            } else if i == 0 {
                out.push(job);
            }
        }
    }
    out
}

fn with_warmup(jobs: Vec<Job>, config: &BenchConfig) -> Vec<Job> {
    match jobs.first() {
        Some(first) if config.timing.warmup => {
            let mut warm = first.clone();
            warm.repeat = 0;
            warm.sweep = false;
            std::iter::once(warm).chain(jobs).collect()
        }
        _ => jobs,
    }
}

/// linerate's UDP receive backends and Aravis, the receivers the GVSP
/// scenarios compare.
fn gvsp_receivers() -> Vec<(&'static str, GvspReceiver)> {
    let grab = |b: &str| GvspReceiver::Grab {
        backend: b.to_owned(),
    };
    vec![
        ("linerate-copy", grab("copy")),
        ("linerate-mmsg", grab("mmsg")),
        ("linerate-ring", grab("ring")),
        ("aravis", GvspReceiver::Aravis),
    ]
}

/// How to get scripts/kafka when it was not found.
pub const KAFKA_MISSING_SCRIPT: &str =
    "the kafka scenario starts Apache Kafka with scripts/kafka of a \
     linerate checkout: run linerate bench from the checkout or from its target/release build; \
     scripts/install-deps installs Java and Maven";

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn every_scenario_plans_jobs_and_quick_plans_fewer() {
        let quick = BenchConfig::new(vec![], true, PathBuf::from("linerate"));
        let full = BenchConfig::new(vec![], false, PathBuf::from("linerate"));
        for sc in Scenario::ALL {
            let q = plan(sc, &quick);
            let f = plan(sc, &full);
            assert!(!q.is_empty(), "{sc} plans nothing in --quick");
            assert!(
                f.len() > q.len(),
                "{sc}: full {} jobs, quick {}",
                f.len(),
                q.len()
            );
            assert!(q.iter().all(|j| j.scenario == sc && j.repeat == 1));
            assert!(f[0].is_warmup() && f[1..].iter().all(|j| j.repeat >= 1));
        }
    }

    #[test]
    fn host_setups_take_turns_within_each_repeat() {
        let mut c = BenchConfig::new(vec![], false, PathBuf::from("linerate"));
        c.hosts = vec![HostSetup::Napi, HostSetup::Rps];
        let jobs = plan(Scenario::Ceilings, &c);
        let repeat1: Vec<Option<HostSetup>> = jobs
            .iter()
            .filter(|j| j.repeat == 1)
            .map(|j| j.host)
            .collect();
        let half = repeat1.len() / 2;
        assert!(half > 0);
        assert!(repeat1[..half].iter().all(|h| *h == Some(HostSetup::Napi)));
        assert!(repeat1[half..].iter().all(|h| *h == Some(HostSetup::Rps)));
        let single = BenchConfig::new(vec![], false, PathBuf::from("linerate"));
        assert_eq!(
            plan(Scenario::Ceilings, &single).len() * 2 - 1,
            jobs.len(),
            "two setups plan every run twice, with one warm-up"
        );
        // The sweep runs per setup; FADE's switch bed ignores the setups.
        assert!(plan(Scenario::LosslessRate, &c)
            .iter()
            .any(|j| j.host == Some(HostSetup::Rps)));
        let fade = plan(Scenario::Fade, &c);
        assert_eq!(fade.len(), plan(Scenario::Fade, &single).len());
        assert!(fade.iter().all(|j| j.host.is_none()));
    }

    #[test]
    fn implementations_alternate_within_a_repeat() {
        let full = BenchConfig::new(vec![], false, PathBuf::from("linerate"));
        let jobs = plan(Scenario::PacketSizes, &full);
        let first_case = &jobs[1].case;
        let imps: Vec<&str> = jobs[1..]
            .iter()
            .take_while(|j| &j.case == first_case)
            .map(|j| j.implementation.as_str())
            .collect();
        assert_eq!(
            imps,
            ["linerate-copy", "linerate-mmsg", "linerate-ring", "aravis"]
        );
    }
}
