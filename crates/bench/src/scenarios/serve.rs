//! The Axis send-path study's comparison: `linerate serve`'s send methods against each
//! other at one fixed aggregate rate, to 1, 4, 16 and 32 clients, methods
//! in alternation (the first rotating with the repeat).

use super::repeated;
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::scenario::Scenario;

/// The aggregate rate every method is asked for, Mbit/s: one all methods
/// sustain here, so the comparison is of cost, not of ceilings.
pub const RATE_MBIT: u32 = 3000;

/// Bytes per frame.
pub const FRAME_BYTES: u32 = 262_144;

/// The send methods (`linerate serve --method`), `write` the reference.
const METHODS: [&str; 5] = ["write", "sendfile", "splice", "zerocopy", "uring"];

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    let clients: &[u32] = if config.quick { &[4] } else { &[1, 4, 16, 32] };
    let methods: &[&str] = if config.quick {
        &["write", "zerocopy"]
    } else {
        &METHODS
    };
    repeated(config, || {
        clients
            .iter()
            .flat_map(|&n| {
                methods.iter().map(move |&method| {
                    Job::new(
                        Scenario::Serve,
                        method,
                        format!("{n} client{}", if n == 1 { "" } else { "s" }),
                        f64::from(n),
                        Work::Serve {
                            method: method.to_owned(),
                            clients: n,
                            fps: fps(n),
                        },
                    )
                })
            })
            .collect()
    })
}

/// Frames per second that make [`RATE_MBIT`] in all to `clients` clients
/// (each frame carries a 40-byte header).
fn fps(clients: u32) -> f64 {
    f64::from(RATE_MBIT) * 1e6 / 8.0 / (f64::from(clients) * f64::from(FRAME_BYTES + 40))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_count_gets_the_same_aggregate_rate() {
        for n in [1, 4, 16, 32] {
            let mbit = fps(n) * f64::from(n) * f64::from(FRAME_BYTES + 40) * 8.0 / 1e6;
            assert!((mbit - f64::from(RATE_MBIT)).abs() < 1e-6, "{n}: {mbit}");
        }
    }
}
