//! Seed 004's measurements: one FADE board alone on a 1 Gbit/s link, and
//! three boards behind a bridge sharing it, per rate controller.

use super::repeated;
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::scenario::Scenario;

/// The controllers compared: the seed's adaptive delay, and linerate's
/// receiver-set fair shares (`linerate fade --controller`).
pub const CONTROLLERS: [&str; 2] = ["seed", "fair"];

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    let boards: &[usize] = &[1, 3];
    repeated(config, || {
        boards
            .iter()
            .flat_map(|&n| {
                CONTROLLERS.iter().map(move |c| {
                    Job::new(
                        Scenario::Fade,
                        &format!("{c}-controller"),
                        format!("{n} board{} on 1 Gbit/s", if n == 1 { "" } else { "s" }),
                        n as f64,
                        Work::Fade {
                            boards: n,
                            controller: (*c).to_owned(),
                            rate_mbit: 1000,
                        },
                    )
                })
            })
            .collect()
    })
}
