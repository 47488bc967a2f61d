//! Basler's CPU-load paper's latency question: from a software trigger command to the
//! frame handed to the application, and its jitter, per backend.

use super::repeated;
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::peers::Stream;
use crate::scenario::Scenario;

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    let backends: &[&str] = if config.quick {
        &["mmsg"]
    } else {
        &["copy", "mmsg", "ring"]
    };
    repeated(config, || {
        backends
            .iter()
            .map(|b| {
                Job::new(
                    Scenario::TriggerLatency,
                    &format!("linerate-{b}"),
                    "1024x1024 at 100 Hz".to_owned(),
                    100.0,
                    Work::Trigger {
                        backend: (*b).to_owned(),
                        rate_hz: 100.0,
                        stream: Stream::paced_10g(1024, 1024, 100.0, 8000),
                    },
                )
            })
            .collect()
    })
}
