//! Several CPUs probed one after the other, each with the replays of the
//! loads asked for: the measurement behind `linerate noise`, as a library
//! call with a typed report, so a front-end only picks the CPUs, shows
//! progress and presents.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{probe_until, Load, NoiseReport, ProbeConfig, QueueEstimate};

/// What to probe: which CPUs, how long each, and the loads to replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurveyConfig {
    /// CPUs to probe, in order (see [`choose_cpus`]).
    pub cpus: Vec<usize>,
    /// How long to probe each CPU.
    pub duration: Duration,
    /// Shortest jump between two clock readings counted as a gap.
    pub threshold: Duration,
    /// Latency targets to compute the floor for.
    pub targets: Vec<Duration>,
    /// Loads replayed against each CPU's gaps, one replay each.
    pub loads: Vec<Load>,
}

/// One CPU's findings, with a replay per load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuReport {
    /// The probe's report (its fields appear at this level in JSON).
    #[serde(flatten)]
    pub noise: NoiseReport,
    /// One replay per load, in the order asked.
    pub replays: Vec<QueueEstimate>,
}

/// Every CPU probed (`linerate noise --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SurveyReport {
    /// One entry per CPU probed, in order; fewer than asked when stopped.
    pub cpus: Vec<CpuReport>,
    /// Why the survey stopped early (the signal), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Why a survey could not run.
#[derive(Debug, thiserror::Error)]
pub enum SurveyError {
    /// A CPU asked for is not online.
    #[error("CPU {cpu} is not online (online CPUs: {online:?})")]
    NotOnline {
        /// The CPU asked for.
        cpu: usize,
        /// The CPUs online.
        online: Vec<usize>,
    },
    /// A probe failed (its thread could not be pinned or started).
    #[error("probing CPU {cpu}")]
    Probe {
        /// The CPU being probed.
        cpu: usize,
        /// What the probe said.
        #[source]
        source: crate::Error,
    },
}

/// The CPUs to probe: those `asked` (every one online), or every online
/// CPU when none are.
pub fn choose_cpus(asked: Option<&[usize]>, online: &[usize]) -> Result<Vec<usize>, SurveyError> {
    let cpus = asked.map_or_else(|| online.to_vec(), <[usize]>::to_vec);
    match cpus.iter().find(|c| !online.contains(c)) {
        Some(&cpu) => Err(SurveyError::NotOnline {
            cpu,
            online: online.to_vec(),
        }),
        None => Ok(cpus),
    }
}

/// Told about a survey's progress, so a front-end can show it; both
/// methods default to doing nothing.
pub trait SurveyObserver {
    /// CPU `cpu`, the `index`th of `count`, is about to be probed.
    fn probing(&mut self, cpu: usize, index: usize, count: usize) {
        let _ = (cpu, index, count);
    }
    /// A CPU's probe and replays are done.
    fn probed(&mut self, report: &CpuReport) {
        let _ = report;
    }
}

/// An observer that shows nothing.
impl SurveyObserver for () {}

/// Probes each CPU of `config` in turn and replays its loads. When `stop`
/// becomes true the probe under way ends early (its report covers the
/// time spun) and no further CPU is started.
pub fn survey(
    config: &SurveyConfig,
    stop: Arc<AtomicBool>,
    observer: &mut impl SurveyObserver,
) -> Result<Vec<CpuReport>, SurveyError> {
    let mut reports = Vec::new();
    let count = config.cpus.len();
    for (index, &cpu) in config.cpus.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        observer.probing(cpu, index, count);
        let probe = probe_until(
            &ProbeConfig {
                cpu: Some(cpu),
                duration: config.duration,
                threshold: config.threshold,
                targets: config.targets.clone(),
                ..ProbeConfig::default()
            },
            Arc::clone(&stop),
        )
        .map_err(|source| SurveyError::Probe { cpu, source })?;
        let replays = config.loads.iter().map(|&l| probe.replay(l)).collect();
        let report = CpuReport {
            noise: probe.report,
            replays,
        };
        observer.probed(&report);
        reports.push(report);
    }
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_default_to_every_online_one_and_must_be_online() {
        assert_eq!(choose_cpus(None, &[0, 1]).expect("online"), vec![0, 1]);
        assert_eq!(choose_cpus(Some(&[1]), &[0, 1]).expect("online"), vec![1]);
        let e = choose_cpus(Some(&[0, 7]), &[0, 1]).expect_err("offline");
        assert_eq!(e.to_string(), "CPU 7 is not online (online CPUs: [0, 1])");
    }

    #[derive(Default)]
    struct Seen(Vec<String>);

    impl SurveyObserver for Seen {
        fn probing(&mut self, cpu: usize, index: usize, count: usize) {
            self.0.push(format!("probing {cpu} {index}/{count}"));
        }
        fn probed(&mut self, report: &CpuReport) {
            self.0.push(format!(
                "probed {:?} {}",
                report.noise.cpu,
                report.replays.len()
            ));
        }
    }

    #[test]
    fn a_survey_reports_each_cpu_with_its_replays_and_round_trips() {
        let online = crate::cpu::online_cpus().expect("online CPUs");
        let cpu = online[0];
        let config = SurveyConfig {
            cpus: vec![cpu],
            duration: Duration::from_millis(20),
            threshold: Duration::from_micros(1),
            targets: vec![Duration::from_micros(10)],
            loads: vec![Load {
                interarrival_ns: 10_000,
                service_ns: 1_000,
            }],
        };
        let mut seen = Seen::default();
        let cpus = survey(&config, Arc::new(AtomicBool::new(false)), &mut seen).expect("survey");
        assert_eq!(
            seen.0,
            vec![
                format!("probing {cpu} 0/1"),
                format!("probed Some({cpu}) 1")
            ]
        );
        assert_eq!(cpus[0].noise.gaps.floors.len(), 1);
        let report = SurveyReport { cpus, error: None };
        let text = serde_json::to_string(&report).expect("serialize");
        assert!(!text.contains("\"error\""), "{text}");
        // Floats may differ in the last digit after a JSON round trip
        // (serde_json parses them fast, not exactly); compare the rest.
        let back: SurveyReport = serde_json::from_str(&text).expect("parse");
        let (was, now) = (&report.cpus[0], &back.cpus[0]);
        assert_eq!(now.noise.cpu, Some(cpu));
        assert_eq!(now.noise.gaps.gaps, was.noise.gaps.gaps);
        assert_eq!(now.noise.interrupts, was.noise.interrupts);
        assert_eq!(now.replays[0].load, was.replays[0].load);
        assert_eq!(now.replays[0].events, was.replays[0].events);
    }

    #[test]
    fn the_schema_has_the_flattened_probe_fields_beside_the_replays() {
        let schema = serde_json::to_value(schemars::schema_for!(CpuReport)).expect("schema");
        let text = schema.to_string();
        for field in ["\"cpu\"", "\"floors\"", "\"interrupts\"", "\"replays\""] {
            assert!(text.contains(field), "{field}: {text}");
        }
    }

    #[test]
    fn a_stopped_survey_starts_no_cpu() {
        let config = SurveyConfig {
            cpus: vec![0],
            duration: Duration::from_secs(60),
            threshold: Duration::from_micros(1),
            targets: vec![],
            loads: vec![],
        };
        let cpus = survey(&config, Arc::new(AtomicBool::new(true)), &mut ()).expect("survey");
        assert!(cpus.is_empty());
    }
}
