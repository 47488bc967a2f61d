//! Each scenario's plan: the jobs it runs, in alternation across
//! implementations within each repeat.

mod ceilings;
mod fade;
mod lossless_rate;
mod packet_sizes;
mod trigger_latency;
mod udp_tcp;

use crate::config::BenchConfig;
use crate::job::Job;
use crate::peers::GvspReceiver;
use crate::scenario::Scenario;

/// The jobs of `scenario` under `config`, warm-up first when configured.
pub fn plan(scenario: Scenario, config: &BenchConfig) -> Vec<Job> {
    let jobs = match scenario {
        Scenario::PacketSizes => packet_sizes::plan(config),
        Scenario::UdpTcp => udp_tcp::plan(config),
        Scenario::Ceilings => ceilings::plan(config),
        Scenario::LosslessRate => lossless_rate::plan(config),
        Scenario::TriggerLatency => trigger_latency::plan(config),
        Scenario::Fade => fade::plan(config),
    };
    with_warmup(jobs, config)
}

/// Programs a scenario needs besides linerate, with how to get them.
pub fn tools(scenario: Scenario) -> Vec<(&'static str, &'static str)> {
    let aravis = (
        crate::peers::ARAVIS_HOST,
        "Debian package aravis-tools-cli (scripts/install-deps)",
    );
    let iperf = ("iperf3", "Debian package iperf3 (scripts/install-deps)");
    let ethtool = ("ethtool", "Debian package ethtool (scripts/install-deps)");
    match scenario {
        Scenario::PacketSizes | Scenario::LosslessRate => vec![aravis, ethtool],
        Scenario::Ceilings => vec![iperf, ethtool],
        Scenario::UdpTcp | Scenario::TriggerLatency | Scenario::Fade => vec![ethtool],
    }
}

/// Repeats `per_repeat` (one repeat's jobs, alternating implementations)
/// `config.timing.repeats` times, numbering the repeats.
fn repeated(config: &BenchConfig, per_repeat: impl Fn() -> Vec<Job>) -> Vec<Job> {
    (1..=config.timing.repeats.max(1))
        .flat_map(|r| {
            per_repeat().into_iter().map(move |mut j| {
                j.repeat = r;
                j
            })
        })
        .collect()
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

/// linerate's UDP backends and Aravis, as compared in issue 4.
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
