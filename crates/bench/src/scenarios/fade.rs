//! The FADE paper's measurements: one FADE board alone on a 1 Gbit/s link, and
//! three boards behind a bridge sharing it, per rate controller and
//! receive backend (in alternation within each repeat). Boards and
//! receiver run with their default settings; pinned (boards on one core,
//! the receiver on the other), and for three boards also unpinned, where
//! the scheduler puts boards and receiver on the same cores.

use super::repeated;
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::scenario::Scenario;

/// The controllers compared: the published adaptive delay (`seed`), and linerate's
/// receiver-set fair shares (`linerate fade --controller`).
pub const CONTROLLERS: [&str; 2] = ["seed", "fair"];

/// The receive backends compared (`linerate fade recv --backend`): the
/// PF_PACKET socket read with recvmmsg, whose series keep the plain
/// controller names, the same socket with a TPACKET_V2 ring (`-ring`),
/// and AF_XDP (`-xdp`).
pub const BACKENDS: [&str; 3] = ["raw", "ring", "xdp"];

/// The series name of `controller` with `backend`.
pub fn series(controller: &str, backend: &str) -> String {
    match backend {
        "raw" => format!("{controller}-controller"),
        _ => format!("{controller}-controller-{backend}"),
    }
}

/// The cases: boards, pinned or not.
const CASES: [(usize, bool); 3] = [(1, true), (3, true), (3, false)];

/// The name of a case.
fn case(boards: usize, pinned: bool) -> String {
    format!(
        "{boards} board{} on 1 Gbit/s{}",
        if boards == 1 { "" } else { "s" },
        if pinned { "" } else { ", unpinned" }
    )
}

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    repeated(config, || {
        CASES
            .iter()
            .flat_map(|&(n, pinned)| {
                CONTROLLERS.iter().flat_map(move |c| {
                    BACKENDS.iter().map(move |b| {
                        Job::new(
                            Scenario::Fade,
                            &series(c, b),
                            case(n, pinned),
                            // Unpinned sorts after pinned.
                            n as f64 + if pinned { 0.0 } else { 0.5 },
                            Work::Fade {
                                boards: n,
                                controller: (*c).to_owned(),
                                backend: (*b).to_owned(),
                                rate_mbit: 1000,
                                pinned,
                            },
                        )
                    })
                })
            })
            .collect()
    })
}
