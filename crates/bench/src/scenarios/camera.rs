//! The emulated cameras alone: linerate's camera and Aravis's fake camera
//! each streaming as fast as they can into the same Aravis host, at 1024 ×
//! 1024 Mono8 with jumbo and standard packets.

use super::repeated;
use crate::config::BenchConfig;
use crate::job::{Job, Work};
use crate::peers::SenderCamera;
use crate::scenario::Scenario;

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    let sizes: &[u32] = if config.quick { &[8000] } else { &[8000, 1400] };
    let cameras = [
        ("linerate-camera", SenderCamera::Linerate),
        ("aravis-fake", SenderCamera::AravisFake),
    ];
    repeated(config, || {
        sizes
            .iter()
            .flat_map(|&packet_size| {
                cameras.iter().map(move |&(name, camera)| {
                    Job::new(
                        Scenario::Camera,
                        name,
                        format!("{packet_size} B"),
                        f64::from(packet_size),
                        Work::CameraAlone {
                            camera,
                            packet_size,
                        },
                    )
                })
            })
            .collect()
    })
}
