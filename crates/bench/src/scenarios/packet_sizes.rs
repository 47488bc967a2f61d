//! Basler's CPU-load study: receiving CPU per GB against packet size. One stream
//! rate every receiver sustains, so the figures compare work per byte.

use super::{gvsp_receivers, repeated};
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::peers::Stream;
use crate::scenario::Scenario;

/// 1024x1024 Mono8 at 60 fps: 0.5 Gbit/s, about 116 000 packets/s at
/// 576-byte packets, a packet rate Aravis and every linerate backend
/// should take (Basler's paper measured 15-61 MB/s; this is 63 MB/s).
const FPS: f64 = 60.0;

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    let sizes: &[u32] = if config.quick {
        &[1500]
    } else {
        &[576, 1500, 4000, 8000, 9000]
    };
    repeated(config, || {
        sizes
            .iter()
            .flat_map(|&size| {
                gvsp_receivers().into_iter().map(move |(name, receiver)| {
                    Job::new(
                        Scenario::PacketSizes,
                        name,
                        format!("{size} B"),
                        f64::from(size),
                        Work::Gvsp {
                            receiver,
                            stream: Stream::paced_10g(1024, 1024, FPS, size),
                        },
                    )
                })
            })
            .collect()
    })
}
