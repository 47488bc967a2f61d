//! One FADE-10G board against one FADE v1 board (in alternation within
//! each repeat), on a link shaped to 1 Gbit/s, where both should fill
//! their wire ceiling, and on an unshaped veth, where the larger frames
//! and window show what they are worth.

use super::repeated;
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::scenario::Scenario;

/// The wire versions compared, with their series names.
const VERSIONS: [(&str, &str); 2] = [("fade-v1", "1"), ("fade-10g", "10g")];

/// The links: shaped to 1 Gbit/s, and unshaped (rate 0).
const LINKS: [(&str, u32); 2] = [("1 Gbit/s link", 1000), ("unshaped veth", 0)];

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    // A smoke run checks both versions on the shaped link only.
    let links = if config.quick {
        &LINKS[..1]
    } else {
        &LINKS[..]
    };
    repeated(config, || {
        links
            .iter()
            .enumerate()
            .flat_map(|(i, &(case, rate_mbit))| {
                VERSIONS.iter().map(move |&(name, version)| {
                    Job::new(
                        Scenario::FadeVersions,
                        name,
                        case.to_owned(),
                        i as f64,
                        Work::FadeVersion {
                            version: version.to_owned(),
                            rate_mbit,
                        },
                    )
                })
            })
            .collect()
    })
}
