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
use linerate_metrics::{CpuSnapshot, KernelDrops, LatencyHistogram};

pub use config::{GrabConfig, DEFAULT_BUFFERS, MIN_BUFFERS};
pub use error::GrabError;
pub use progress::{GrabMonitor, GrabProgress};
pub use report::{GrabReport, HostTuning};
pub use tally::IncompleteFrame;

use error::{chain, RunError};
use progress::Counters;
use report::RunShape;
use tally::Tally;

use crate::receive::Transport;
use crate::stream::{Buffer, Stream};
use crate::verify::{Pattern, Verifier};
use crate::{Camera, ControlConfig, Error, StreamOptions};

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
        let mut camera =
            Camera::open(&config.camera, &control).map_err(|source| GrabError::Open {
                camera: config.camera.clone(),
                source,
            })?;
        if stop.load(Ordering::Relaxed) {
            return Err(GrabError::Stopped);
        }
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
        for _ in 0..buffers {
            stream
                .queue(Buffer::new(payload))
                .map_err(GrabError::Queue)?;
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
        let Session {
            config,
            mut camera,
            mut stream,
            info,
            pattern,
            trigger_period,
            stream_started,
            link,
            drops_before,
            monitor,
        } = self;
        let stop = &*monitor.stop;
        let counters = &*monitor.counters;
        let tcp = config.transport == Transport::Tcp;
        let target = config.frames;
        let duration = config.duration;
        let mut trigger_latency = LatencyHistogram::new();
        let mut next_trigger = Instant::now();
        let mut verifier = config.verify.then(|| Verifier::new(pattern));
        let mut tally = Tally::default();
        let cpu_before = CpuSnapshot::take().ok();
        let process_cpu_before = linerate_io::sched::process_cpu_seconds();
        let started = Instant::now();
        camera.start().map_err(GrabError::Start)?;
        counters.start(started);
        let frame_timeout = config.frame_timeout.max(Duration::from_millis(10));
        let mut error = None;
        let mut stopped = false;
        loop {
            if stop.load(Ordering::Relaxed) {
                stopped = true;
                break;
            }
            if target > 0 && tally.delivered() >= target {
                break;
            }
            if duration.is_some_and(|d| started.elapsed() >= d) {
                break;
            }
            let mut triggered_at = None;
            if let Some(period) = trigger_period {
                let now = Instant::now();
                if next_trigger > now && !sleep_unless_stopped(next_trigger - now, stop) {
                    continue;
                }
                next_trigger = next_trigger.max(now) + period;
                triggered_at = Some(crate::clock::now_ns());
                if let Err(e) = camera.execute("TriggerSoftware") {
                    error = Some(RunError::Trigger(e));
                    break;
                }
            }
            let buffer = match wait_frame(&stream, frame_timeout, tcp, stop) {
                Ok(Some(b)) => b,
                Ok(None) => continue,
                Err(e) => {
                    // Frames stopped: if someone else stopped or redirected the
                    // stream, say so instead of "no frame within ...".
                    let stalled_or_interfered = matches!(
                        e,
                        RunError::Stream(Error::Timeout(_) | Error::ControlInterference { .. })
                    );
                    error = Some(match camera.check_interference() {
                        Err(found) if stalled_or_interfered => RunError::Stream(found),
                        _ => e,
                    });
                    break;
                }
            };
            if let Some(t) = triggered_at.filter(|_| buffer.is_complete()) {
                trigger_latency.record_between_ns(t, crate::clock::now_ns());
            }
            tally.take(&buffer, verifier.as_mut(), config.save.as_deref());
            counters.record(&tally, &buffer);
            on_frame(&buffer, &counters.snapshot());
            stream.queue(buffer).map_err(GrabError::Queue)?;
        }
        let seconds = started.elapsed().as_secs_f64();
        let cpu = cpu_before.and_then(|b| CpuSnapshot::take().ok().map(|a| a.delta_since(&b)));
        let process_cpu_seconds = linerate_io::sched::process_cpu_seconds() - process_cpu_before;
        let _ = camera.stop();
        if config.trigger_software {
            let _ = camera.set("TriggerMode", "Off");
        }
        let stats = stream.stop();
        let stream_seconds = stream_started.elapsed();
        let drops_after = KernelDrops::read(link.as_ref().map(|l| l.name.as_str())).ok();
        // When an error ended the run, the frames delivered meanwhile (e.g.
        // those a lost connection left incomplete) are accounted for too.
        // After a normal end, frames beyond the target are not counted.
        if error.is_some() {
            for buffer in stream.drain() {
                tally.take(&buffer, verifier.as_mut(), config.save.as_deref());
                counters.record(&tally, &buffer);
            }
        }
        let shape = RunShape {
            camera: camera.info(),
            transport: config.transport,
            backend: config.backend.name(),
            target,
        };
        let mut report = GrabReport::tallied(&shape, &tally, &stats, seconds, cpu);
        report.host = HostTuning::read(info.local_ip);
        report.process_cpu_seconds = process_cpu_seconds;
        report.buffers = info.buffers;
        report.frame_delivery_latency_us = stream.delivery_latency();
        report.trigger_to_frame_latency_us =
            config.trigger_software.then(|| trigger_latency.summary());
        report.receive_thread_cpu = stream.receive_thread_cpu().map(|t| t.usage(stream_seconds));
        report.kernel_drop_counters = drops_before
            .zip(drops_after)
            .map(|(b, a)| a.delta_since(&b));
        if let Some(e) = error {
            report.error = Some(chain(&e));
            report.ok = false;
        }
        if stopped {
            report.error = Some("stopped on request".into());
            report.stopped = true;
            report.ok = false;
        }
        Ok(report)
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

/// Sleeps for `d`, or less when a stop is requested; false if one was.
fn sleep_unless_stopped(d: Duration, stop: &AtomicBool) -> bool {
    let deadline = Instant::now() + d;
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(STOP_POLL));
    }
}

/// Waits for the next frame; `None` when a stop was requested first. On
/// TCP, a lost stream connection ends the wait at once with an error (the
/// camera stopped or died), after the frames it left incomplete have been
/// delivered.
fn wait_frame(
    stream: &Stream,
    timeout: Duration,
    tcp: bool,
    stop: &AtomicBool,
) -> Result<Option<Buffer>, RunError> {
    let deadline = Instant::now() + timeout;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match stream.wait(left.min(STOP_POLL)) {
            Ok(b) => return Ok(Some(b)),
            Err(Error::Timeout(_)) if !left.is_zero() => {
                let lost = tcp && stream.stats().receive.tcp.connections_lost > 0;
                if lost {
                    return Err(RunError::TcpClosed);
                }
            }
            Err(Error::Timeout(_)) => return Err(Error::Timeout(timeout).into()),
            Err(e) => return Err(e.into()),
        }
    }
}

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
