//! A grab session: receive frames from a GigE Vision camera, verify and
//! save them, and report what arrived, what was lost and what it cost in
//! CPU — `linerate grab` as a library, for any front end (the command
//! line, the demo, a Python binding, a live view).
//!
//! ```no_run
//! use linerate_grab::session::{self, GrabConfig};
//!
//! # fn main() -> Result<(), session::GrabError> {
//! let handle = session::spawn(GrabConfig {
//!     frames: 300,
//!     verify: true,
//!     ..GrabConfig::new("169.254.0.2")
//! })?;
//! while !handle.is_finished() {
//!     println!("{} frames", handle.progress().frames_delivered());
//!     std::thread::sleep(std::time::Duration::from_millis(200));
//! }
//! let report = handle.join()?;
//! assert!(report.ok);
//! # Ok(())
//! # }
//! ```
//!
//! [`Session::open`] takes control of the camera, applies the settings and
//! opens the stream; [`Session::run_with`] acquires until the frame limit,
//! the time limit or a stop request, calling back once per frame, and
//! returns the [`GrabReport`]. [`spawn`] does both on a thread of its own.
//! Nothing here prints or exits: failures to start are [`GrabError`]s,
//! failures while frames flow end the run with the report's `error` set.

mod acquisition;
mod config;
mod error;
mod progress;
mod report;
mod tally;

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use linerate_io::netdev::Link;
use linerate_metrics::KernelDrops;

pub use acquisition::{Acquisition, Pulled};
pub use config::{GrabConfig, DEFAULT_BUFFERS, DEFAULT_BUFFER_MEMORY, MIN_BUFFERS};
pub use error::{chain, GrabError};
pub use progress::{GrabMonitor, GrabProgress};
pub use report::{GrabReport, HostTuning};
pub use tally::IncompleteFrame;

use progress::Counters;

use crate::receive::Transport;
use crate::stream::{Buffer, Requeue, Stream};
use crate::verify::Pattern;
use crate::{Camera, ControlConfig, StreamOptions};

/// What an opened session found: the camera and the stream it set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// Camera vendor.
    pub vendor: String,
    /// Camera model.
    pub model: String,
    /// Bytes per frame (the camera's PayloadSize).
    pub payload_size: usize,
    /// The local address the camera streams to.
    pub local_ip: Ipv4Addr,
    /// The local port the camera streams to.
    pub stream_port: u16,
    /// Frame buffers lent to the stream.
    pub buffers: usize,
}

/// A camera under control with its stream open and buffers lent, ready to
/// acquire.
#[derive(Debug)]
pub struct Session {
    config: GrabConfig,
    camera: Camera,
    stream: Stream,
    info: SessionInfo,
    pattern: Pattern,
    trigger_period: Option<Duration>,
    stream_started: Instant,
    link: Option<Link>,
    drops_before: Option<KernelDrops>,
    monitor: GrabMonitor,
    buffer_addresses: Vec<usize>,
}

impl Session {
    /// Opens the camera, applies the configuration's settings, opens the
    /// stream and lends it its buffers; acquisition starts with
    /// [`Session::run_with`].
    pub fn open(config: GrabConfig) -> Result<Session, GrabError> {
        Session::open_with_stop(config, Arc::new(AtomicBool::new(false)))
    }

    /// Like [`Session::open`], ended early once `stop` becomes true (a flag
    /// a signal handler sets, say): before acquisition starts that is
    /// [`GrabError::Stopped`], after it the run ends with a report.
    pub fn open_with_stop(config: GrabConfig, stop: Arc<AtomicBool>) -> Result<Session, GrabError> {
        let control = ControlConfig {
            local: config.interface,
            ..ControlConfig::default()
        };
        let camera = Camera::open(&config.camera, &control).map_err(|source| GrabError::Open {
            camera: config.camera.clone(),
            source,
        })?;
        if stop.load(Ordering::Relaxed) {
            return Err(GrabError::Stopped);
        }
        Session::with_camera(camera, config, stop)
    }

    /// Like [`Session::open_with_stop`], on a camera the caller already
    /// controls (one whose features it set, say); `config.camera` and
    /// `config.interface` are then not used.
    pub fn with_camera(
        camera: Camera,
        config: GrabConfig,
        stop: Arc<AtomicBool>,
    ) -> Result<Session, GrabError> {
        Session::build(camera, config, stop, true)
    }

    /// Like [`Session::with_camera`], with no frame buffer of its own: the
    /// caller lends every one ([`Acquisition::requeue_handle`], e.g. with
    /// [`Buffer::lent`] memory it owns), at most the configuration's buffer
    /// count at once, so frames land in the caller's memory without a copy.
    pub fn with_camera_lending(
        camera: Camera,
        config: GrabConfig,
        stop: Arc<AtomicBool>,
    ) -> Result<Session, GrabError> {
        Session::build(camera, config, stop, false)
    }

    fn build(
        mut camera: Camera,
        config: GrabConfig,
        stop: Arc<AtomicBool>,
        own_buffers: bool,
    ) -> Result<Session, GrabError> {
        configure(&mut camera, &config)?;
        let pattern = config.pattern_for(&camera.info().vendor);
        let payload = camera.payload_size().map_err(GrabError::PayloadSize)?;
        let buffers = config.buffer_count(payload)?;
        let tcp = config.transport == Transport::Tcp;
        let options = StreamOptions {
            transport: config.transport,
            transfer_size: if tcp { config.packet_size } else { None },
            backend: config.backend,
            max_buffers: buffers,
            cpu: config.cpu,
            busy_poll_us: config.busy_poll_us,
            coalesce_us: config.coalesce_us,
            assembler: Some(config.assembler(payload)),
            port: config.stream_port,
            connect: config.connect,
            gro: config.gro,
            ..StreamOptions::default()
        };
        let trigger_period = config.trigger_period()?;
        let stream = camera.stream(&options).map_err(GrabError::Stream)?;
        let stream_started = Instant::now();
        let link = Link::owning(camera.local_ip()).ok();
        let drops_before = KernelDrops::read(link.as_ref().map(|l| l.name.as_str())).ok();
        let mut buffer_addresses = Vec::with_capacity(buffers);
        for _ in 0..if own_buffers { buffers } else { 0 } {
            let buffer = Buffer::new(payload);
            buffer_addresses.push(buffer.data().as_ptr() as usize);
            stream.queue(buffer).map_err(GrabError::Queue)?;
        }
        if let Some(dir) = &config.save {
            crate::save::prepare_directory(dir)?;
        }
        let info = SessionInfo {
            vendor: camera.info().vendor.clone(),
            model: camera.info().model.clone(),
            payload_size: payload,
            local_ip: camera.local_ip(),
            stream_port: stream.port(),
            buffers,
        };
        Ok(Session {
            config,
            camera,
            stream,
            info,
            pattern,
            trigger_period,
            stream_started,
            link,
            drops_before,
            monitor: GrabMonitor {
                stop,
                counters: Arc::new(Counters::default()),
            },
            buffer_addresses,
        })
    }

    /// What the session found and set up.
    pub fn info(&self) -> &SessionInfo {
        &self.info
    }

    /// A handle to watch this session's progress and stop it from another
    /// thread.
    pub fn monitor(&self) -> GrabMonitor {
        self.monitor.clone()
    }

    /// Acquires until the configured limit or a stop request and returns
    /// the report.
    pub fn run(self) -> Result<GrabReport, GrabError> {
        self.run_with(|_, _| {})
    }

    /// Acquires until the configured limit or a stop request, calling
    /// `on_frame` with every frame delivered (complete or not, after it was
    /// verified and saved) and the progress so far, and returns the report.
    /// The buffer goes back to the stream when `on_frame` returns, so a
    /// slow callback costs buffers.
    ///
    /// Errors while frames flow (no frame within the frame timeout, the
    /// camera lost, a trigger refused) end the run with the report's
    /// `error` set; only a buffer the stream refuses back is a
    /// [`GrabError`].
    pub fn run_with<F>(self, mut on_frame: F) -> Result<GrabReport, GrabError>
    where
        F: FnMut(&Buffer, &GrabProgress),
    {
        self.run_keeping(|buffer, progress, _| {
            on_frame(&buffer, progress);
            Some(buffer)
        })
    }

    /// Like [`Session::run_with`], handing `on_frame` the buffer itself:
    /// it returns the buffer to give it back at once, or keeps it (None)
    /// and gives it back later through the [`Requeue`] handle (when a
    /// live view has shown it, say), so a frame can be lent on without a
    /// copy. A kept buffer is one fewer for the stream until it returns.
    pub fn run_keeping<F>(self, mut on_frame: F) -> Result<GrabReport, GrabError>
    where
        F: FnMut(Buffer, &GrabProgress, &Requeue) -> Option<Buffer>,
    {
        let mut acquisition = self.start()?;
        let requeue = acquisition.requeue_handle();
        loop {
            match acquisition.pull(STOP_POLL) {
                Pulled::Frame(buffer) => {
                    let progress = acquisition.progress();
                    if let Some(buffer) = on_frame(buffer, &progress, &requeue) {
                        acquisition.requeue(buffer)?;
                    }
                }
                Pulled::Waiting => {}
                Pulled::Ended => break,
            }
        }
        Ok(acquisition.finish().0)
    }

    /// Starts acquisition and returns the running [`Acquisition`], from
    /// which the caller pulls frames one at a time and owns each until it
    /// gives it back: the pull-style form of [`Session::run_with`], for
    /// front ends (a Python binding) that lend frame buffers out without
    /// copying them.
    pub fn start(self) -> Result<Acquisition, GrabError> {
        Acquisition::start(self, true)
    }

    /// Like [`Session::start`], leaving the camera's acquisition to the
    /// caller: the stream receives, and the camera starts when its user
    /// executes AcquisitionStart (a GenTL consumer does so through the
    /// camera's node map after starting the data stream; a second start
    /// from us would restart the camera's stream under it).
    pub fn start_stream_only(self) -> Result<Acquisition, GrabError> {
        Acquisition::start(self, false)
    }

    /// Where each frame buffer lent to the stream starts in memory: a
    /// frame handed out by [`Acquisition::pull`] is one of these buffers,
    /// never a copy, which is how a binding can prove it lends views.
    pub fn buffer_addresses(&self) -> &[usize] {
        &self.buffer_addresses
    }
}

/// A session running on a thread of its own, from [`spawn`]: watch it,
/// stop it, and join it for the report. Dropping the handle stops the
/// session and waits for it, so the camera is always released.
#[derive(Debug)]
pub struct GrabHandle {
    info: SessionInfo,
    monitor: GrabMonitor,
    thread: Option<JoinHandle<Result<GrabReport, GrabError>>>,
}

/// Opens a session on the calling thread (so it uses this thread's network
/// namespace and reports a failure to start at once) and runs it on a new
/// thread.
pub fn spawn(config: GrabConfig) -> Result<GrabHandle, GrabError> {
    spawn_with(config, |_, _| {})
}

/// Like [`spawn`], calling `on_frame` on the session's thread with every
/// frame delivered (see [`Session::run_with`]).
pub fn spawn_with<F>(config: GrabConfig, on_frame: F) -> Result<GrabHandle, GrabError>
where
    F: FnMut(&Buffer, &GrabProgress) + Send + 'static,
{
    let session = Session::open(config)?;
    let info = session.info().clone();
    let monitor = session.monitor();
    let thread = std::thread::Builder::new()
        .name("grab session".into())
        .spawn(move || session.run_with(on_frame))
        .map_err(GrabError::Thread)?;
    Ok(GrabHandle {
        info,
        monitor,
        thread: Some(thread),
    })
}

impl GrabHandle {
    /// What the session found and set up.
    pub fn info(&self) -> &SessionInfo {
        &self.info
    }

    /// The frames counted so far.
    pub fn progress(&self) -> GrabProgress {
        self.monitor.progress()
    }

    /// A handle to watch and stop the session from elsewhere.
    pub fn monitor(&self) -> GrabMonitor {
        self.monitor.clone()
    }

    /// Asks the session to end; [`GrabHandle::join`] then returns its report.
    pub fn stop(&self) {
        self.monitor.stop();
    }

    /// Whether the session has ended (its report is ready).
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().map_or(true, JoinHandle::is_finished)
    }

    /// Waits for the session to end and returns its report.
    pub fn join(mut self) -> Result<GrabReport, GrabError> {
        match self.thread.take() {
            Some(t) => t.join().unwrap_or(Err(GrabError::Panicked)),
            None => Err(GrabError::Panicked),
        }
    }
}

impl Drop for GrabHandle {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.monitor.stop();
            let _ = t.join();
        }
    }
}

/// How often waits look for a stop request.
const STOP_POLL: Duration = Duration::from_millis(50);

/// Applies the configuration's camera settings, each refusal naming the
/// feature and the value.
fn configure(camera: &mut Camera, config: &GrabConfig) -> Result<(), GrabError> {
    let mut set = |feature: &'static str, value: String| {
        camera
            .set(feature, &value)
            .map_err(|source| GrabError::Setting {
                feature,
                value,
                source,
            })
    };
    if let Some(p) = &config.pixel_format {
        set("PixelFormat", p.clone())?;
    }
    if let Some(w) = config.width {
        set("Width", w.to_string())?;
    }
    if let Some(h) = config.height {
        set("Height", h.to_string())?;
    }
    if config.trigger_software {
        // Older cameras have no selector; the one trigger is then implied.
        let _ = set("TriggerSelector", "FrameStart".into());
        set("TriggerMode", "On".into())?;
        set("TriggerSource", "Software".into())?;
    } else if let Some(f) = config.fps {
        set("AcquisitionFrameRate", f.to_string())?;
    }
    let udp = config.transport == Transport::Udp;
    if let Some(p) = config.packet_size.filter(|_| udp) {
        camera
            .set_packet_size(p)
            .map_err(|source| GrabError::Setting {
                feature: "the packet size (SCPS)",
                value: p.to_string(),
                source,
            })?;
    }
    if let Some(ns) = config.packet_delay_ns.filter(|_| udp) {
        camera
            .set_packet_delay_ns(ns)
            .map_err(|source| GrabError::Setting {
                feature: "the packet delay (SCPD)",
                value: format!("{ns} ns"),
                source,
            })?;
    }
    Ok(())
}
