//! `linerate bench`: the published measurement studies, run on whatever host
//! it is given, with linerate, Aravis and iperf3 side by side.
//!
//! Users choose a stack by comparing numbers on their own machine, so the
//! bench does what those studies did (CPU by packet size, UDP against
//! TCP, iperf3 ceilings, lossless rates, trigger latency, FADE sharing) and
//! does it the same way every time:
//!
//! * two machines on one: the sender pinned to CPU 0, the receiving host's
//!   network processing and receiver on CPU 1 ([`HostSetup`]), and the
//!   receiver's cost read from CPU 1's /proc/stat counters;
//! * implementations alternate within each repeat, figures are medians,
//!   and ratios are taken against the anchor measured in the same run;
//! * a report says the machine, the setup and every run, as Markdown,
//!   JSON and PNG charts.
//!
//! Requires root (network namespaces).

mod app_threads;
mod bed;
mod camera_alone;
mod config;
mod error;
mod execute;
mod fade;
mod floor;
mod gvsp_run;
mod job;
mod kafka;
mod machine;
mod peers;
mod plot;
mod process;
mod report;
mod runner;
mod scenario;
mod scenarios;
mod serve;
mod steps;
mod stop;
mod trigger;
mod view;
mod window;

pub use config::{BenchConfig, HostSetup, Timing};
pub use error::{Error, Result};
pub use job::{Job, Work};
pub use machine::Machine;
pub use plot::draw_all as draw_charts;
pub use report::{median, summarise, table, Report, Run, Summary};
pub use runner::{run_bench, Progress};
pub use scenario::Scenario;
pub use stop::{request_stop, stop_requested};
pub use window::{RECEIVER_CPU, SENDER_CPU};

/// About how long `jobs` (planned by [`plan`]) take to run.
pub fn estimated_duration(jobs: &[Job], config: &BenchConfig) -> std::time::Duration {
    scenarios::estimated_duration(jobs, config)
}

/// The jobs a configuration would run, without running them (for
/// `--dry-run` and tests).
pub fn plan(config: &BenchConfig) -> Vec<Job> {
    config
        .scenarios
        .iter()
        .flat_map(|&sc| scenarios::plan(sc, config))
        .collect()
}
