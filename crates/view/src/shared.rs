//! State the view's threads share: the frame slot, the encoded picture,
//! the counters and stats, the controls and the stop flag.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8};
use std::sync::Arc;

use arc_swap::{ArcSwap, ArcSwapOption};

use crate::controls::Controls;
use crate::frame::Slot;
use crate::render::Contrast;
use crate::stats::{Counters, Stats};
use crate::ViewConfig;

/// A picture ready for the page.
#[derive(Debug)]
pub(crate) struct Encoded {
    /// Increases with every picture.
    pub seq: u64,
    /// The JPEG bytes.
    pub jpeg: Vec<u8>,
    /// The source frame's width and height.
    pub frame_width: u32,
    pub frame_height: u32,
    /// Rows of the source frame marked missing.
    pub missing_rows: u32,
    /// Why the latest frame could not be shown, if it could not.
    pub error: Option<String>,
}

/// Counters as published, with when: rates are computed between
/// publication times, so a publisher's own rhythm does not show as jitter.
#[derive(Debug)]
pub(crate) struct Published {
    pub at: std::time::Instant,
    pub counters: Counters,
}

pub(crate) struct Shared {
    pub config: ViewConfig,
    pub slot: Arc<Slot>,
    pub picture: ArcSwapOption<Encoded>,
    pub picture_seq: tokio::sync::watch::Sender<u64>,
    pub counters: ArcSwap<Published>,
    pub stats: ArcSwap<Stats>,
    pub controls: Option<Arc<dyn Controls>>,
    pub contrast: AtomicU8,
    pub displayed: AtomicU64,
    /// Pictures sent to pages.
    pub served: AtomicU64,
    /// Times the page was fetched.
    pub page_loads: AtomicU64,
    /// The widest picture, in device pixels, that a page asked for since
    /// the display thread last looked (0: none asked).
    pub page_width: AtomicU32,
    pub stop: AtomicBool,
}

impl Shared {
    pub fn new(config: ViewConfig, controls: Option<Arc<dyn Controls>>) -> Shared {
        Shared {
            config,
            slot: Slot::new(),
            picture: ArcSwapOption::empty(),
            picture_seq: tokio::sync::watch::Sender::new(0),
            counters: ArcSwap::from_pointee(Published {
                at: std::time::Instant::now(),
                counters: Counters::default(),
            }),
            stats: ArcSwap::from_pointee(Stats::default()),
            controls,
            contrast: AtomicU8::new(0),
            displayed: AtomicU64::new(0),
            served: AtomicU64::new(0),
            page_loads: AtomicU64::new(0),
            page_width: AtomicU32::new(0),
            stop: AtomicBool::new(false),
        }
    }

    pub fn contrast(&self) -> Contrast {
        match self.contrast.load(std::sync::atomic::Ordering::Relaxed) {
            1 => Contrast::Full,
            _ => Contrast::Auto,
        }
    }

    pub fn set_contrast(&self, c: Contrast) {
        let v = match c {
            Contrast::Auto => 0,
            Contrast::Full => 1,
        };
        self.contrast.store(v, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn current_stats(&self) -> Stats {
        let mut s = Stats::clone(&self.stats.load());
        s.frames_displayed = self.displayed.load(std::sync::atomic::Ordering::Relaxed);
        s.pictures_served = self.served.load(std::sync::atomic::Ordering::Relaxed);
        s.page_loads = self.page_loads.load(std::sync::atomic::Ordering::Relaxed);
        s
    }
}
