//! The highest frame rate each receiver takes without losing a frame:
//! rising frame rates, each receiver dropping out of the sweep at its
//! first loss.

use super::{gvsp_receivers, per_host};
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::peers::Stream;
use crate::scenario::Scenario;

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    let rates: &[f64] = if config.quick {
        &[600.0]
    } else {
        &[200.0, 300.0, 400.0, 600.0, 800.0, 1000.0, 1200.0]
    };
    // One pass per host setup: a sweep is its own repetition (each rate is
    // a new trial).
    per_host(config, || {
        rates
            .iter()
            .flat_map(|&fps| {
                gvsp_receivers().into_iter().map(move |(name, receiver)| {
                    let mut job = Job::new(
                        Scenario::LosslessRate,
                        name,
                        format!("{fps} fps"),
                        fps,
                        Work::Gvsp {
                            receiver,
                            stream: Stream::paced_10g(1024, 1024, fps, 8000),
                        },
                    );
                    job.sweep = true;
                    job
                })
            })
            .collect()
    })
}
