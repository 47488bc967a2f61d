//! Live view: a small web server showing the latest frame, the stream's
//! health and the boards' rates while a grab or a FADE readout runs, with
//! the camera's main controls.
//!
//! ```no_run
//! use linerate_view::{spawn, ViewConfig};
//!
//! let view = spawn(ViewConfig::default(), None)?;
//! let frames = view.frames(); // hand frames over when frames.wants_frame()
//! let stats = view.stats();   // publish Counters whenever convenient
//! # let _ = (frames, stats);
//! println!("open http://{}/", view.local_addr());
//! # Ok::<(), linerate_view::ViewError>(())
//! ```
//!
//! The stream side never waits on the view: [`FramePublisher::publish`]
//! swaps an `Arc` into a slot (no lock), and is only called when the
//! display asked for a frame, so at most the display rate. A display
//! thread decimates and JPEG-encodes the latest frame; a sampler thread
//! turns the published [`Counters`] into rates once a second; an HTTP
//! thread serves the page (embedded in the binary), `/api/stats`,
//! `/metrics`, the picture, a full-resolution PNG snapshot and the controls.

pub mod camera;
pub mod controls;
mod display;
pub mod encode;
pub mod frame;
pub mod render;
mod server;
mod shared;
pub mod stats;

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

pub use controls::{ControlError, ControlValue, Controls};
pub use frame::{Frame, FramePublisher, Pixels};
pub use render::Contrast;
pub use stats::{BoardCounters, Counters, Stats};

use shared::Shared;

/// The address the view listens on unless told otherwise: loopback only.
pub const DEFAULT_LISTEN: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 8080));

/// How the view runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewConfig {
    /// Where the page is served. The page has no authentication: anything
    /// beyond loopback is the caller's explicit choice.
    pub listen: SocketAddr,
    /// Pictures encoded per second at most (0.1..=120).
    pub display_fps: f64,
    /// Largest picture sent to the page; frames are decimated to fit.
    pub max_width: u32,
    /// Largest picture height sent to the page.
    pub max_height: u32,
    /// The CPU the stream's receive thread is pinned to, if it is: the
    /// view's threads (decimation, JPEG, HTTP, stats) then run on the
    /// other cores, when there are any. Wherever they run, they run at
    /// [`VIEW_NICE`], so on a core they share with the receive thread they
    /// never preempt it.
    pub receive_cpu: Option<usize>,
}

/// The nice value of the view's threads: below the stream's threads
/// (nice 0), so a picture for the page waits rather than a packet.
pub const VIEW_NICE: i32 = 10;

impl Default for ViewConfig {
    fn default() -> Self {
        ViewConfig {
            listen: DEFAULT_LISTEN,
            display_fps: 15.0,
            max_width: 1024,
            max_height: 768,
            receive_cpu: None,
        }
    }
}

/// Why the view could not start.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The display rate is out of range.
    #[error("display rate {0} frames/s is outside 0.1..=120")]
    DisplayRate(f64),
    /// The listening socket could not be opened.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// The system's error.
        source: std::io::Error,
    },
    /// A thread or the async runtime could not be started.
    #[error("cannot start the view's {what}: {source}")]
    Start {
        /// Which part.
        what: &'static str,
        /// The system's error.
        source: std::io::Error,
    },
}

/// The stream side's handle for publishing its counters.
#[derive(Clone)]
pub struct StatsPublisher {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for StatsPublisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatsPublisher").finish_non_exhaustive()
    }
}

impl StatsPublisher {
    /// Replaces the published counters (no lock; call as often as you like).
    pub fn publish(&self, counters: Counters) {
        self.shared.counters.store(Arc::new(shared::Published {
            at: std::time::Instant::now(),
            counters,
        }));
    }
}

/// A running view; dropping it stops the server and its threads.
pub struct ViewHandle {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    threads: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for ViewHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ViewHandle")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// Starts the view: binds `config.listen` on the calling thread (so it
/// uses this thread's network namespace and fails at once), then serves
/// on threads of its own. `controls` adds the camera controls to the page.
pub fn spawn(
    config: ViewConfig,
    controls: Option<Arc<dyn Controls>>,
) -> Result<ViewHandle, ViewError> {
    if !(0.1..=120.0).contains(&config.display_fps) {
        return Err(ViewError::DisplayRate(config.display_fps));
    }
    let listener =
        std::net::TcpListener::bind(config.listen).map_err(|source| ViewError::Listen {
            addr: config.listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| ViewError::Listen {
        addr: config.listen,
        source,
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|source| ViewError::Listen {
            addr: config.listen,
            source,
        })?;
    let shared = Arc::new(Shared::new(config.clone(), controls));
    let (tx, rx) = tokio::sync::oneshot::channel();
    let start = |what: &'static str| move |source| ViewError::Start { what, source };
    let mut threads = Vec::new();
    let receive_cpu = config.receive_cpu;
    // Each thread steps aside for the stream before it starts its work.
    let aside = move || {
        if let Some(cpu) = receive_cpu {
            linerate_io::sched::keep_current_thread_off(cpu);
        }
        // Raising one's own nice value needs no privilege; if it fails,
        // the view still works, only at the stream's priority.
        let _ = linerate_io::sched::set_current_thread_nice(VIEW_NICE);
    };
    let s = shared.clone();
    threads.push(
        std::thread::Builder::new()
            .name("view display".into())
            .spawn(move || {
                aside();
                display::run(&s)
            })
            .map_err(start("display thread"))?,
    );
    let s = shared.clone();
    threads.push(
        std::thread::Builder::new()
            .name("view stats".into())
            .spawn(move || {
                aside();
                display::sample(&s)
            })
            .map_err(start("stats thread"))?,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(start("async runtime"))?;
    let s = shared.clone();
    threads.push(
        std::thread::Builder::new()
            .name("view http".into())
            .spawn(move || {
                aside();
                runtime.block_on(server::serve(listener, s, rx))
            })
            .map_err(start("HTTP thread"))?,
    );
    Ok(ViewHandle {
        addr,
        shared,
        shutdown: Some(tx),
        threads,
    })
}

impl ViewHandle {
    /// The address the page is served on (the port the system chose for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The stream side's frame slot.
    pub fn frames(&self) -> FramePublisher {
        FramePublisher::new(self.shared.slot.clone())
    }

    /// The stream side's counters slot.
    pub fn stats(&self) -> StatsPublisher {
        StatsPublisher {
            shared: self.shared.clone(),
        }
    }

    /// The stats as the page sees them now.
    pub fn current_stats(&self) -> Stats {
        self.shared.current_stats()
    }

    /// Stops the server and its threads and waits for them.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for ViewHandle {
    fn drop(&mut self) {
        self.halt();
    }
}
