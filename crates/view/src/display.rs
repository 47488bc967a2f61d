//! The view's two worker threads: the display thread (latest frame →
//! decimated picture → JPEG, at the display rate) and the stats sampler
//! (published counters → rates and history, once a second).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use linerate_metrics::{CpuSnapshot, KernelDrops};

use crate::encode;
use crate::render::{self, Contrast};
use crate::shared::{Encoded, Shared};
use crate::stats::{Accumulator, Machine};

/// How long the threads sleep at most between looks at the stop flag.
const TICK: Duration = Duration::from_millis(20);

/// Sleeps until `until` or the stop flag, whichever comes first; false on stop.
fn sleep_until(shared: &Shared, until: Instant) -> bool {
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(TICK));
    }
}

/// Encodes the latest frame at most `display_fps` times a second.
pub(crate) fn run(shared: &Arc<Shared>) {
    let period = Duration::from_secs_f64(1.0 / shared.config.display_fps);
    let mut shown: (u64, Contrast) = (0, Contrast::Auto);
    let mut next = Instant::now();
    let mut seq = 0;
    let mut width = shared.config.max_width;
    while sleep_until(shared, next) {
        next = (next + period).max(Instant::now());
        let (frame_seq, frame) = shared.slot.latest();
        shared.slot.want();
        let contrast = shared.contrast();
        width = picture_width(
            shared.page_width.swap(0, Ordering::Relaxed),
            width,
            shared.config.max_width,
        );
        let Some(frame) = frame else { continue };
        if (frame_seq, contrast) == shown {
            continue;
        }
        shown = (frame_seq, contrast);
        let c = &shared.config;
        let encoded = render::render(&frame, width, c.max_height, contrast)
            .map_err(|e| e.to_string())
            .and_then(|p| {
                encode::jpeg(&p)
                    .map(|j| (j, p.missing_rows))
                    .map_err(|e| e.to_string())
            });
        seq += 1;
        let (jpeg, missing_rows, error) = match encoded {
            Ok((j, m)) => (j, m, None),
            Err(e) => (Vec::new(), 0, Some(e)),
        };
        shared.picture.store(Some(Arc::new(Encoded {
            seq,
            jpeg,
            frame_width: frame.width,
            frame_height: frame.height,
            missing_rows,
            error,
        })));
        shared.displayed.fetch_add(1, Ordering::Relaxed);
        shared.picture_seq.send_replace(seq);
    }
}

/// The narrowest picture a page is sent, in pixels: a page that reports a
/// tiny (or hidden) picture box still gets a picture worth looking at.
const MIN_PICTURE_WIDTH: u32 = 160;

/// The width to decimate to: the widest a page `asked` for since the last
/// picture (0: no page asked, keep `current`), at most `max` (the
/// configured limit). A page shown in a small window so costs the display
/// thread, the connection and the browser fewer pixels, as the issue asks
/// ("decimated to the page's size").
fn picture_width(asked: u32, current: u32, max: u32) -> u32 {
    if asked == 0 {
        current
    } else {
        asked.clamp(MIN_PICTURE_WIDTH.min(max), max)
    }
}

/// Machine-wide CPU and kernel-drop figures between two samples.
struct MachineSampler {
    cpu: Option<CpuSnapshot>,
    drops_at_start: Option<KernelDrops>,
}

impl MachineSampler {
    fn new() -> MachineSampler {
        MachineSampler {
            cpu: CpuSnapshot::take().ok(),
            drops_at_start: KernelDrops::read(None).ok(),
        }
    }

    fn sample(&mut self) -> Machine {
        let now = CpuSnapshot::take().ok();
        let mut m = Machine::default();
        if let (Some(before), Some(after)) = (&self.cpu, &now) {
            let delta = after.delta_since(before);
            m.cpu_avg_pct = delta.total().utilisation * 100.0;
            m.cpu_busiest_core_pct = delta.busiest().map_or(0.0, |c| c.utilisation * 100.0);
        }
        self.cpu = now;
        if let (Some(start), Ok(now)) = (&self.drops_at_start, KernelDrops::read(None)) {
            let d = now.delta_since(start);
            m.kernel_drops = d.udp_rcvbuf_errors + d.rx_dropped + d.softnet_dropped;
        }
        m
    }
}

/// Counters older than this are taken as of the sampling time: the
/// publisher has stopped (or publishes rarely), and they are not changing.
const STALE: Duration = Duration::from_millis(1500);

/// Once a second, turns the published counters into rates and history.
pub(crate) fn sample(shared: &Arc<Shared>) {
    let mut acc = Accumulator::default();
    let mut machine = MachineSampler::new();
    let mut next = Instant::now();
    let mut last: Option<Instant> = None;
    loop {
        let now = Instant::now();
        let published = shared.counters.load_full();
        let at = if now.duration_since(published.at) > STALE {
            now
        } else {
            published.at
        };
        // Nothing new since the last sample: wait for the next.
        if last.map_or(true, |l| at > l) {
            last = Some(at);
            let stats = acc.sample(at, published.counters.clone(), machine.sample());
            shared.stats.store(Arc::new(stats));
        }
        next += Duration::from_secs(1);
        if !sleep_until(shared, next) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_picture_follows_the_widest_page_within_the_limit() {
        assert_eq!(picture_width(0, 1024, 1024), 1024, "no page asked");
        assert_eq!(picture_width(438, 1024, 1024), 438);
        assert_eq!(picture_width(0, 438, 1024), 438, "kept until asked again");
        assert_eq!(
            picture_width(3000, 438, 1024),
            1024,
            "never above the limit"
        );
        assert_eq!(picture_width(1, 438, 1024), MIN_PICTURE_WIDTH);
        assert_eq!(picture_width(1, 100, 100), 100, "a limit below the minimum");
    }
}
