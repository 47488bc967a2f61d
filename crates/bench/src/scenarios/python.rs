//! The Python package's cost: `linerate grab` and the package's frame loop
//! on the same 2048x2048 Mono8 stream, alternating within each repeat; the
//! loop once touching one pixel of each zero-copy frame and once copying
//! every frame out, as a copying binding does; and, when linerate's GenTL
//! producer is built, Harvesters grabbing through it.

use super::repeated;
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::peers::{GvspReceiver, Stream};
use crate::scenario::Scenario;

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    // 2048x2048 Mono8: 100 fps is 3.4 Gbit/s, 200 fps 6.7 Gbit/s, both
    // within what `linerate grab` holds losslessly on the bench (see the
    // lossless-rate scenario). Quick: one light rate.
    let rates: &[f64] = if config.quick {
        &[40.0]
    } else {
        &[100.0, 200.0]
    };
    let receivers = || {
        let python = |copy| GvspReceiver::Python {
            python: config.python.clone(),
            copy,
        };
        [
            (
                "linerate-grab",
                GvspReceiver::Grab {
                    backend: "mmsg".to_owned(),
                },
            ),
            ("python", python(false)),
            ("python-copy", python(true)),
        ]
        .into_iter()
        .filter(|(name, _)| !config.harvesters_only || *name == "linerate-grab")
        .chain(config.cti.clone().map(|cti| {
            (
                "harvesters",
                GvspReceiver::Harvesters {
                    python: config.python.clone(),
                    cti,
                },
            )
        }))
    };
    repeated(config, || {
        rates
            .iter()
            .flat_map(|&fps| {
                receivers().map(move |(name, receiver)| {
                    Job::new(
                        Scenario::Python,
                        name,
                        format!("2048x2048 at {fps} fps"),
                        fps,
                        Work::Gvsp {
                            receiver,
                            stream: Stream::paced_10g(2048, 2048, fps, 8000),
                        },
                    )
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn implementations(config: &BenchConfig) -> Vec<String> {
        let mut names: Vec<String> = plan(config).into_iter().map(|j| j.implementation).collect();
        names.dedup();
        names
    }

    #[test]
    fn harvesters_only_leaves_out_the_python_package_receivers() {
        let mut config = BenchConfig::new(vec![Scenario::Python], false, PathBuf::from("linerate"));
        config.cti = Some(PathBuf::from("linerate.cti"));
        config.timing.repeats = 1;
        let all = implementations(&config);
        assert!(all.contains(&"python".to_owned()) && all.contains(&"python-copy".to_owned()));
        config.harvesters_only = true;
        let jobs = plan(&config);
        assert_eq!(jobs.len(), 4, "two receivers at two rates");
        assert_eq!(
            implementations(&config),
            ["linerate-grab", "harvesters", "linerate-grab", "harvesters"]
        );
    }
}
