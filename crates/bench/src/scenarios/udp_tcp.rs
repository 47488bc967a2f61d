//! Allied Vision's TCP paper's matrix: one fast camera over UDP at two packet sizes and over
//! TCP at three transfer sizes, with the busiest core against the average.

use super::repeated;
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::peers::{GvspReceiver, Stream};
use crate::scenario::Scenario;

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    // Full: 2048x2048 Mono8 at 130 fps, ~4.4 Gbit/s like that paper's 5 MP
    // camera at full speed. Quick: a third of that.
    let fps = if config.quick { 40.0 } else { 130.0 };
    let mmsg = || GvspReceiver::Grab {
        backend: "mmsg".to_owned(),
    };
    let all: Vec<(&str, GvspReceiver, u32)> = vec![
        ("udp-1400", mmsg(), 1400),
        ("udp-8000", mmsg(), 8000),
        ("tcp-8000", GvspReceiver::Tcp { transfer: 8000 }, 8000),
        ("tcp-63000", GvspReceiver::Tcp { transfer: 63000 }, 8000),
        ("tcp-1MiB", GvspReceiver::Tcp { transfer: 1 << 20 }, 8000),
    ];
    let chosen: Vec<(&str, GvspReceiver, u32)> = if config.quick {
        all.into_iter()
            .filter(|(n, _, _)| matches!(*n, "udp-8000" | "tcp-63000" | "tcp-1MiB"))
            .collect()
    } else {
        all
    };
    let case = format!("2048x2048 at {fps} fps");
    repeated(config, || {
        chosen
            .iter()
            .map(|(name, receiver, packet_size)| {
                Job::new(
                    Scenario::UdpTcp,
                    name,
                    case.clone(),
                    fps,
                    Work::Gvsp {
                        receiver: receiver.clone(),
                        stream: Stream::paced_10g(2048, 2048, fps, *packet_size),
                    },
                )
            })
            .collect()
    })
}
