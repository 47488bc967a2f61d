//! The bench's main loop: plan every scenario, build the beds, run the jobs
//! in order, and collect the report.

use std::path::PathBuf;
use std::time::Instant;

use crate::bed::{PairBed, SwitchBed};
use crate::config::{BenchConfig, HostSetup};
use crate::error::{Error, Result};
use crate::execute::{run_job, Bed};
use crate::job::{BedKind, Job};
use crate::kafka::SharedBroker;
use crate::machine::Machine;
use crate::process::require_tool;
use crate::report::{summarise, Report, Run};
use crate::scenario::Scenario;
use crate::scenarios;
use crate::window::SENDER_CPU;

/// What the runner tells its caller as it goes, for progress display.
pub enum Progress<'a> {
    /// The plan is made: this many jobs in all.
    Planned {
        /// Jobs to run (sweeps may end some early).
        jobs: usize,
    },
    /// A job starts.
    Start {
        /// 1-based position.
        index: usize,
        /// The job.
        job: &'a Job,
    },
    /// A job finished (its figures or error are in `run`).
    Done {
        /// 1-based position.
        index: usize,
        /// The job.
        job: &'a Job,
        /// What it measured.
        run: &'a Run,
    },
    /// Jobs skipped because a sweep ended.
    Skipped {
        /// How many.
        jobs: usize,
    },
}

/// Runs the bench as `config` says and returns the report. Needs root.
pub fn run_bench(config: &BenchConfig, mut progress: impl FnMut(Progress<'_>)) -> Result<Report> {
    let started = Instant::now();
    let machine = Machine::describe();
    if machine.cpus < 2 {
        return Err(Error::Argument(format!(
            "the bench needs 2 CPUs (one per side of the link); this machine has {}",
            machine.cpus
        )));
    }
    // The bench's own bookkeeping stays on the sender's core, off the
    // receiving host's.
    let _ = linerate_io::sched::pin_task(0, &[SENDER_CPU]);
    require_tool("ip", "Debian package iproute2 (scripts/install-deps)")?;
    let mut skipped: Vec<(String, String)> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    for &sc in &config.scenarios {
        let missing = scenarios::missing_requirements(sc, config);
        if missing.is_empty() {
            jobs.extend(scenarios::plan(sc, config));
        } else {
            skipped.push((sc.name().to_owned(), missing.join("; ")));
        }
    }
    progress(Progress::Planned { jobs: jobs.len() });
    let dir = scratch_dir()?;
    let mut runs: Vec<Run> = Vec::new();
    let mut lossy_sweeps: Vec<(Scenario, Option<HostSetup>, String)> = Vec::new();
    let mut beds = Beds::default();
    let mut skipped_jobs = 0;
    let mut interrupted = false;
    for (i, job) in jobs.iter().enumerate() {
        if crate::stop::stop_requested() {
            interrupted = true;
            break;
        }
        let sweep_key = (job.scenario, job.host, job.implementation.clone());
        if job.sweep && lossy_sweeps.contains(&sweep_key) {
            skipped_jobs += 1;
            continue;
        }
        progress(Progress::Start { index: i + 1, job });
        let result = beds
            .get(config, job.work.bed(), job.host)
            .and_then(|bed| run_job(bed, config, job, &dir));
        if matches!(result, Err(Error::Interrupted)) {
            // Not a result: the run was cut short on request.
            interrupted = true;
            break;
        }
        let run = result.unwrap_or_else(|e| Run {
            scenario: Some(job.scenario),
            implementation: job.implementation.clone(),
            case: job.case.clone(),
            case_value: job.case_value,
            host: job.host,
            repeat: job.repeat,
            error: Some(e.to_string()),
            ..Run::default()
        });
        progress(Progress::Done {
            index: i + 1,
            job,
            run: &run,
        });
        if job.sweep && run.lossless != Some(true) {
            lossy_sweeps.push(sweep_key);
        }
        if !job.is_warmup() {
            runs.push(run);
        }
    }
    if skipped_jobs > 0 {
        progress(Progress::Skipped { jobs: skipped_jobs });
    }
    drop(beds);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Report {
        machine,
        setup: config.describe_hosts(),
        config: config.clone(),
        seconds: started.elapsed().as_secs_f64(),
        rows: summarise(&runs),
        runs,
        skipped,
        interrupted,
    })
}

/// The bed in use, rebuilt when a job needs a different one.
#[derive(Default)]
struct Beds {
    /// The pair bed, with the Kafka broker its kafka runs share (dropped,
    /// and so stopped, before the bed's namespaces go).
    pair: Option<(HostSetup, SharedBroker, PairBed)>,
    switch: Option<(BedKind, SwitchBed)>,
}

impl Beds {
    /// The bed `kind` with the receiving host set up as `host` (the
    /// configuration's first setup when `None`), rebuilt when it differs.
    fn get(
        &mut self,
        config: &BenchConfig,
        kind: BedKind,
        host: Option<HostSetup>,
    ) -> Result<Bed<'_>> {
        match kind {
            BedKind::Pair => {
                self.switch = None;
                let host = host
                    .or_else(|| config.hosts.first().copied())
                    .unwrap_or(HostSetup::Napi);
                if self.pair.as_ref().map(|(h, _, _)| *h) != Some(host) {
                    // The old bed goes first: the new one takes its name.
                    self.pair = None;
                    self.pair = Some((
                        host,
                        SharedBroker::default(),
                        PairBed::build(&config.bed_name, host)?,
                    ));
                }
                match &self.pair {
                    Some((_, broker, p)) => Ok(Bed::Pair(p, broker)),
                    None => Err(Error::Argument("internal: no pair bed".into())),
                }
            }
            BedKind::Switch {
                boards,
                rate_mbit,
                jumbo,
            } => {
                if self.switch.as_ref().map(|(k, _)| *k) != Some(kind) {
                    self.pair = None;
                    self.switch = None;
                    let sw = SwitchBed::build(&config.bed_name, boards, rate_mbit, jumbo)?;
                    self.switch = Some((kind, sw));
                }
                match &self.switch {
                    Some((_, s)) => Ok(Bed::Switch(s)),
                    None => Err(Error::Argument("internal: no switch bed".into())),
                }
            }
        }
    }
}

fn scratch_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("linerate-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|source| Error::File {
        path: dir.clone(),
        source,
    })?;
    Ok(dir)
}
