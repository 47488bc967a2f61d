//! The progress line of `linerate fade recv` (and `fade feb`) on a
//! terminal: the bytes the application has read so far over all boards,
//! and the rate. It runs in its own thread, kept off the receive core, and
//! wakes up five times a second; without a terminal (or with `--json`)
//! there is none.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(200);

/// The bytes each board has handled so far, shared with whoever counts
/// them (a board emulator's confirmed bytes).
pub type ReadCounters = Vec<Arc<AtomicU64>>;

/// A running progress line; [`Progress::finish`] removes it.
pub struct Progress {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Shows progress toward `bytes` per board (or through `duration`)
    /// for the readers counting into `read`, if `show` and standard error
    /// is a terminal. `keep_off` is the receive thread's CPU, if pinned.
    pub fn start(
        show: bool,
        read: &ReadCounters,
        bytes: Option<u64>,
        duration: Option<Duration>,
        keep_off: Option<usize>,
    ) -> Progress {
        let counters = read.clone();
        let total = move || counters.iter().map(|r| r.load(Ordering::Relaxed)).sum();
        Progress::start_with(show, total, read.len(), bytes, duration, keep_off)
    }

    /// [`Progress::start`] for `boards` boards whose bytes so far, all
    /// together, `total` reads (a receiver's counters snapshot).
    pub fn start_with(
        show: bool,
        total: impl Fn() -> u64 + Send + 'static,
        boards: usize,
        bytes: Option<u64>,
        duration: Option<Duration>,
        keep_off: Option<usize>,
    ) -> Progress {
        let done = Arc::new(AtomicBool::new(false));
        let thread = (show && crate::console::progress_wanted()).then(|| {
            let done = done.clone();
            let boards = boards as u64;
            std::thread::spawn(move || {
                if let Some(c) = keep_off {
                    linerate_io::sched::keep_current_thread_off(c);
                }
                draw(
                    &done,
                    total,
                    bytes.map(|b| b.saturating_mul(boards)),
                    duration,
                )
            })
        });
        Progress { done, thread }
    }

    /// Stops and clears the line.
    pub fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Redraws until `done`: a bar of bytes toward `total`, or of seconds
/// through `duration`, with the bytes read and the rate since the start.
fn draw(done: &AtomicBool, read: impl Fn() -> u64, total: Option<u64>, duration: Option<Duration>) {
    let (len, template) = match (total, duration) {
        (Some(t), _) => (t, "{bar:30} {bytes}/{total_bytes}  {msg}"),
        (None, Some(d)) => (d.as_secs().max(1), "{bar:30} {pos}/{len} s  {msg}"),
        (None, None) => (0, "{spinner} {msg}"),
    };
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    let start = Instant::now();
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(TICK);
        let bytes = read();
        let secs = start.elapsed().as_secs_f64();
        let mbit = if secs > 0.0 {
            bytes as f64 * 8.0 / secs / 1e6
        } else {
            0.0
        };
        if total.is_some() {
            bar.set_position(bytes);
            bar.set_message(format!("{mbit:.1} Mbit/s"));
        } else {
            bar.set_position(start.elapsed().as_secs());
            let mib = bytes as f64 / f64::from(1u32 << 20);
            bar.set_message(format!("{mib:.1} MiB, {mbit:.1} Mbit/s"));
        }
    }
    bar.finish_and_clear();
}
