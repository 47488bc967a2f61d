//! The APDCAM-10G study's reference: what the kernel stack itself moves over this link
//! (iperf3 TCP, and UDP unpaced), next to linerate's camera streaming as
//! fast as it can over TCP and over UDP.

use super::repeated;
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::peers::{GvspReceiver, Stream};
use crate::scenario::Scenario;

/// A frame rate no sender reaches here: the camera sends back to back and
/// skips what it cannot send.
const FLAT_OUT_FPS: f64 = 2000.0;

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    // Flat out: no packet delay, the camera sends as fast as it can.
    let flat_out = |packet_size| Stream {
        width: 2048,
        height: 2048,
        fps: FLAT_OUT_FPS,
        packet_size,
        packet_delay_ns: None,
    };
    let mut jobs: Vec<(&str, Work)> = vec![
        ("iperf3-tcp", Work::Iperf { udp: None }),
        (
            "iperf3-udp",
            Work::Iperf {
                udp: Some((0.0, 8000)),
            },
        ),
        (
            "linerate-tcp-1MiB",
            Work::Gvsp {
                receiver: GvspReceiver::Tcp { transfer: 1 << 20 },
                stream: flat_out(8000),
            },
        ),
    ];
    if !config.quick {
        jobs.push((
            "linerate-udp-mmsg-8000",
            Work::Gvsp {
                receiver: GvspReceiver::Grab {
                    backend: "mmsg".to_owned(),
                },
                stream: flat_out(8000),
            },
        ));
    }
    repeated(config, || {
        jobs.iter()
            .map(|(name, work)| {
                Job::new(
                    Scenario::Ceilings,
                    name,
                    "flat out".to_owned(),
                    0.0,
                    work.clone(),
                )
            })
            .collect()
    })
}
