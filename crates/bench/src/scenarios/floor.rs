//! What a GigE Vision stream costs the receiving core before any receiver
//! does anything, beside what linerate's grab and Aravis pay for it: one
//! camera stream of BRIEF's 3.3 Gbit/s (2048 × 2048 Mono8 at 97 fps,
//! 8000-byte packets paced to 10 Gbit/s).

use super::repeated;
use crate::config::{BenchConfig, HostSetup};
use crate::job::{Job, Work};
use crate::peers::{FloorSink, Stream};
use crate::scenario::Scenario;

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    let stream = Stream::paced_10g(2048, 2048, 97.0, 8000);
    let all = [
        ("linerate-mmsg", FloorSink::Grab),
        ("aravis", FloorSink::Aravis),
        ("drop-at-ingress-hook", FloorSink::IngressDrop),
        ("drop-by-xdp", FloorSink::XdpDrop),
    ];
    // A smoke run checks grab against the floor's two ends of the scale.
    let sinks: Vec<(&str, FloorSink)> = all
        .into_iter()
        .filter(|(_, sink)| !config.quick || *sink != FloorSink::Aravis)
        .collect();
    let mut jobs = repeated(config, || {
        sinks
            .iter()
            .map(|&(name, sink)| {
                Job::new(
                    Scenario::Floor,
                    name,
                    "2048×2048 at 97 fps".to_owned(),
                    3.3,
                    Work::Floor { sink, stream },
                )
            })
            .collect()
    });
    // On veth, XDP runs in the receiving interface's NAPI, which only the
    // napi setup puts on CPU 1; elsewhere it would cost CPU 1 nothing.
    jobs.retain(|j| {
        !matches!(
            j.work,
            Work::Floor {
                sink: FloorSink::XdpDrop,
                ..
            }
        ) || j.host == Some(HostSetup::Napi)
    });
    jobs
}
