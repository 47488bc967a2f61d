//! The live view's cost: `linerate grab` with its page open in one
//! headless Chromium (default display rate) against the same grab without
//! the view, alternating at each rate. One rate, repeated, gives the
//! receiving core's CPU per GB side by side (and the view served without
//! a browser, for the view's own share); rising rates find each one's
//! highest lossless rate (a sweep drops out at its first loss). The
//! browser runs off the receiving core, below the emulated camera (see
//! `crate::view`).

use super::{per_host, repeated};
use crate::config::BenchConfig;
use crate::job::{Job, Page, Work};
use crate::peers::Stream;
use crate::scenario::Scenario;

/// The implementation the others are compared with (the report's
/// reference for this scenario).
const REFERENCE: &str = "grab";

/// The page-open implementation's name.
const PAGE_OPEN: &str = "grab-page-open";

/// `--view` without a browser: the view's own threads alone.
const SERVED: &str = "grab-view-no-browser";

/// 2048x2048 Mono8 (a 4-Mpixel camera; the view decimates it 3:1 to a
/// 683x683 picture): 40 fps is 1.3 Gbit/s, 160 fps 5.4 Gbit/s.
const WIDTH: u32 = 2048;
const HEIGHT: u32 = 2048;

/// The fixed rate of the CPU-per-GB comparison (2.7 Gbit/s).
const CPU_FPS: f64 = 80.0;

/// The sweep's rates: coarse up to 160 fps, then 10 fps (about 5 %) apart,
/// so that a 0.95x ratio of highest lossless rates can be resolved, up to
/// 290 fps (9.7 Gbit/s, just under the 10 Gbit/s pacing's 297 fps), where
/// grab alone should lose or the emulated camera run out of CPU 0 (the
/// report's highest lossless rate is the frame rate received, so a camera
/// that falls short of the rate asked shows as its own rate).
const SWEEP_FPS: [f64; 17] = [
    40.0, 80.0, 120.0, 140.0, 160.0, 170.0, 180.0, 190.0, 200.0, 210.0, 220.0, 230.0, 240.0, 250.0,
    260.0, 275.0, 290.0,
];

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    let jobs = |fps: f64, sweep: bool, pages: &[(&str, Page)]| {
        pages
            .iter()
            .map(|&(name, page)| {
                let mut job = Job::new(
                    Scenario::View,
                    name,
                    format!("{fps} fps"),
                    fps,
                    Work::View {
                        stream: Stream::paced_10g(WIDTH, HEIGHT, fps, 8000),
                        page,
                    },
                );
                job.sweep = sweep;
                job
            })
            .collect::<Vec<_>>()
    };
    let both = [(REFERENCE, Page::None), (PAGE_OPEN, Page::Open)];
    if config.quick {
        // One light rate: both the lossless check and the CPU ratio.
        return per_host(config, || jobs(40.0, true, &both));
    }
    // At the fixed rate, the view without a browser too: the view's own
    // threads' share of the cost, apart from the browser's.
    let three = [both[0], (SERVED, Page::Served), both[1]];
    let mut planned = repeated(config, || jobs(CPU_FPS, false, &three));
    // The sweep: grab alone and the page open, alternating at each rate.
    let sweep_pages = both;
    planned.extend(per_host(config, || {
        SWEEP_FPS
            .iter()
            .flat_map(|&fps| jobs(fps, true, &sweep_pages))
            .collect()
    }));
    planned
}
