//! A live view of a GigE Vision camera: a grab session run for the view,
//! with its frames lent to the display (never copied on the way) and the
//! page's controls written through the same feature layer `grab` uses.
//!
//! Settings that change the frame's size or the stream (Width, Height,
//! OffsetX/Y, PixelFormat, packet size and delay, transport) stop
//! acquisition, apply, and start it again; the others (frame rate,
//! exposure, gain, trigger) are written while frames flow.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use linerate_grab::genicam::FeatureValue;
use linerate_grab::receive::Transport;
use linerate_grab::session::{Acquisition, GrabConfig, GrabError, GrabReport, Pulled, Session};
use linerate_grab::stream::{Buffer, Requeue};
use linerate_grab::Camera;
use linerate_wire::PixelFormat;

use crate::controls::{ControlError, ControlValue, Controls};
use crate::frame::{Frame, FramePublisher};
use crate::stats::Counters;
use crate::{StatsPublisher, ViewConfig, ViewError, ViewHandle};

/// How a camera view runs.
#[derive(Debug, Clone)]
pub struct CameraViewConfig {
    /// The grab session's settings (frames and duration are ignored: the
    /// view runs until stopped).
    pub grab: GrabConfig,
    /// The web page's settings.
    pub view: ViewConfig,
}

/// Why a camera view could not start.
#[derive(Debug, thiserror::Error)]
pub enum CameraViewError {
    /// The camera could not be opened or its stream started.
    #[error(transparent)]
    Grab(#[from] GrabError),
    /// The web server could not start.
    #[error(transparent)]
    View(#[from] ViewError),
    /// The session thread could not be started.
    #[error("cannot start the camera view's session thread: {0}")]
    Thread(std::io::Error),
}

/// A running camera view; dropping it stops acquisition and the server.
#[derive(Debug)]
pub struct CameraView {
    view: Option<ViewHandle>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Option<GrabReport>>>,
}

impl CameraView {
    /// The page's address.
    pub fn local_addr(&self) -> std::net::SocketAddr {
        self.view
            .as_ref()
            .map_or(crate::DEFAULT_LISTEN, ViewHandle::local_addr)
    }

    /// Whether the session thread has ended. A lost camera does not end
    /// it: the page shows the error and Start tries again; only a stop (or
    /// a panic) does.
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().map_or(true, JoinHandle::is_finished)
    }

    /// Stops acquisition and the server; returns the last run's report.
    pub fn stop(mut self) -> Option<GrabReport> {
        self.halt()
    }

    fn halt(&mut self) -> Option<GrabReport> {
        self.stop.store(true, Ordering::Relaxed);
        let report = self.thread.take().and_then(|t| t.join().ok().flatten());
        if let Some(v) = self.view.take() {
            v.stop();
        }
        report
    }
}

impl Drop for CameraView {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Opens the camera, starts acquiring and serves the page.
pub fn spawn(config: CameraViewConfig) -> Result<CameraView, CameraViewError> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut grab = config.grab;
    grab.frames = 0;
    grab.duration = None;
    grab.verify = false;
    grab.save = None;
    // Triggered or paused cameras send nothing for a long time: that is not
    // an error while a person watches.
    grab.frame_timeout = Duration::from_secs(365 * 24 * 3600);
    let session = Session::open_with_stop(grab.clone(), stop.clone())?;
    let acquisition = session.start()?;
    // Applied now; restarts must not undo what the page sets later.
    grab.pixel_format = None;
    grab.width = None;
    grab.height = None;
    grab.fps = None;
    let (tx, rx) = mpsc::channel();
    let controls: Arc<dyn Controls> = Arc::new(CameraControls { tx });
    let view = crate::spawn(config.view, Some(controls))?;
    let runner = Runner {
        config: grab,
        stop: stop.clone(),
        frames: view.frames(),
        stats: view.stats(),
        state: State::Running(Box::new(acquisition)),
        base: Counters::default(),
        latest: (0, 0, String::new()),
        last_report: None,
        error: None,
    };
    let thread = std::thread::Builder::new()
        .name("view session".into())
        .spawn(move || runner.run(&rx))
        .map_err(CameraViewError::Thread)?;
    Ok(CameraView {
        view: Some(view),
        stop,
        thread: Some(thread),
    })
}

/// A frame's buffer lent to the display; back to its stream when dropped.
struct Lent {
    buffer: Option<Buffer>,
    requeue: Requeue,
}

impl AsRef<[u8]> for Lent {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref().map_or(&[], Buffer::data)
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        if let Some(b) = self.buffer.take() {
            // Refused once the stream stopped: the buffer is then freed.
            let _ = self.requeue.queue(b);
        }
    }
}

/// The view's frame for `buffer`, holding `pixels`; None when the
/// leader (and with it the frame's layout) never arrived.
fn frame_of(buffer: &Buffer, pixels: crate::Pixels) -> Option<Frame> {
    let info = buffer.info();
    let format = info.pixel_format?;
    (info.width > 0 && info.height > 0).then(|| Frame {
        width: info.width,
        height: info.height,
        format,
        block_id: info.block_id,
        missing: buffer.missing().to_vec(),
        pixels,
    })
}

/// Lends `buffer` to the view as a frame, without copying it: the buffer
/// goes back to its stream through `requeue` when the display has done
/// with the frame. For callers that own the buffer (a
/// [`linerate_grab::session::Session::run_keeping`] callback); call it
/// only when [`FramePublisher::wants_frame`], so at most the frame shown
/// and the one replacing it are away from the stream. Gives the buffer
/// back unused when its leader (and with it the frame's layout) never
/// arrived.
pub fn lend(buffer: Buffer, requeue: &Requeue) -> Result<Frame, Buffer> {
    match frame_of(&buffer, Box::new(Vec::new())) {
        Some(mut frame) => {
            frame.pixels = Box::new(Lent {
                buffer: Some(buffer),
                requeue: requeue.clone(),
            });
            Ok(frame)
        }
        None => Err(buffer),
    }
}

/// The counters of a grab's progress, for `grab --view`.
pub fn grab_counters(
    progress: &linerate_grab::session::GrabProgress,
    latest: &FrameShape,
) -> Counters {
    Counters {
        source: "grab".into(),
        running: true,
        frames_completed: progress.frames_completed,
        frames_incomplete: progress.frames_incomplete,
        bytes: progress.bytes,
        width: latest.width,
        height: latest.height,
        pixel_format: latest.pixel_format.clone(),
        ..Counters::default()
    }
}

/// The size and format of the latest frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameShape {
    /// Width in pixels.
    pub width: u32,
    /// Height in lines.
    pub height: u32,
    /// Pixel format name.
    pub pixel_format: String,
}

impl FrameShape {
    /// The shape of `buffer`'s frame (unchanged when its leader was lost).
    pub fn update(&mut self, buffer: &Buffer) {
        let info = buffer.info();
        if info.width > 0 {
            self.width = info.width;
            self.height = info.height;
        }
        if let Some(f) = info.pixel_format {
            self.pixel_format = f.to_string();
        }
    }
}

/// A request from the page to the session thread.
enum Op {
    Read,
    Write(String, String),
}

struct Request {
    op: Op,
    reply: mpsc::SyncSender<Result<Vec<ControlValue>, ControlError>>,
}

/// The page's controls: requests to the session thread, which owns the camera.
struct CameraControls {
    tx: Sender<Request>,
}

impl CameraControls {
    fn ask(&self, op: Op, feature: &str, value: &str) -> Result<Vec<ControlValue>, ControlError> {
        let (reply, answer) = mpsc::sync_channel(1);
        let gone = || ControlError {
            feature: feature.into(),
            value: value.into(),
            message: "the camera session has ended".into(),
        };
        self.tx.send(Request { op, reply }).map_err(|_| gone())?;
        answer
            .recv_timeout(Duration::from_secs(30))
            .map_err(|_| gone())?
    }
}

impl Controls for CameraControls {
    fn read(&self) -> Result<Vec<ControlValue>, ControlError> {
        self.ask(Op::Read, "all", "")
    }

    fn write(&self, feature: &str, value: &str) -> Result<(), ControlError> {
        self.ask(Op::Write(feature.into(), value.into()), feature, value)
            .map(|_| ())
    }
}

/// The camera, acquiring or not.
enum State {
    Running(Box<Acquisition>),
    Stopped(Box<Camera>),
    Lost,
}

/// Features whose change needs the stream restarted.
const RESTART: [&str; 5] = ["Width", "Height", "OffsetX", "OffsetY", "PixelFormat"];

/// Features read and written through the camera's GenICam features.
const CAMERA_FEATURES: [&str; 9] = [
    "Width",
    "Height",
    "OffsetX",
    "OffsetY",
    "PixelFormat",
    "AcquisitionFrameRate",
    "ExposureTime",
    "Gain",
    "TriggerMode",
];

/// How often the counters are published.
const PUBLISH_EVERY: Duration = Duration::from_millis(500);

struct Runner {
    config: GrabConfig,
    stop: Arc<AtomicBool>,
    frames: FramePublisher,
    stats: StatsPublisher,
    state: State,
    /// Totals of the runs before the current one.
    base: Counters,
    latest: (u32, u32, String),
    last_report: Option<GrabReport>,
    error: Option<String>,
}

impl Runner {
    fn run(mut self, requests: &Receiver<Request>) -> Option<GrabReport> {
        let mut published = Instant::now();
        while !self.stop.load(Ordering::Relaxed) {
            while let Ok(r) = requests.try_recv() {
                let answer = self.handle(r.op);
                let _ = r.reply.send(answer);
            }
            match &mut self.state {
                State::Running(acq) => match acq.pull(Duration::from_millis(20)) {
                    Pulled::Frame(buffer) => self.take(buffer),
                    Pulled::Waiting => {}
                    Pulled::Ended => {
                        if let Some(e) = acq.error() {
                            self.error = Some(e);
                        }
                        self.halt();
                    }
                },
                State::Stopped(_) | State::Lost => {
                    match requests.recv_timeout(Duration::from_millis(50)) {
                        Ok(r) => {
                            let answer = self.handle(r.op);
                            let _ = r.reply.send(answer);
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
            }
            if published.elapsed() >= PUBLISH_EVERY {
                published = Instant::now();
                self.stats.publish(self.counters());
            }
        }
        self.halt();
        self.last_report.take()
    }

    /// Hands a frame to the display when it wants one, else back to the stream.
    fn take(&mut self, buffer: Buffer) {
        let State::Running(acq) = &mut self.state else {
            return;
        };
        let info = buffer.info();
        if info.width > 0 {
            self.latest.0 = info.width;
            self.latest.1 = info.height;
        }
        if let Some(f) = info.pixel_format {
            self.latest.2 = f.to_string();
        }
        let buffer = if self.frames.wants_frame() {
            match lend(buffer, &acq.requeue_handle()) {
                Ok(frame) => {
                    self.frames.publish(frame);
                    return;
                }
                Err(unlent) => unlent,
            }
        } else {
            buffer
        };
        if acq.requeue(buffer).is_err() {
            self.error = Some("the stream refused a buffer back".into());
            self.halt();
        }
    }
    /// The totals so far, across restarts.
    fn counters(&self) -> Counters {
        let mut c = self.base.clone();
        c.source = "grab".into();
        c.running = matches!(self.state, State::Running(_));
        if let State::Running(acq) = &self.state {
            let r = acq.report();
            add(&mut c, &r);
            c.payload_size = acq.info().payload_size as u64;
        }
        c.width = self.latest.0;
        c.height = self.latest.1;
        c.pixel_format = self.latest.2.clone();
        c.error = self.error.clone();
        c
    }

    /// Stops acquisition, keeping the camera under control.
    fn halt(&mut self) {
        if let State::Running(acq) = std::mem::replace(&mut self.state, State::Lost) {
            let (report, camera) = acq.finish();
            add(&mut self.base, &report);
            self.last_report = Some(report);
            self.state = State::Stopped(Box::new(camera));
        }
    }

    /// Starts acquisition again on the controlled camera.
    fn resume(&mut self) -> Result<(), String> {
        match std::mem::replace(&mut self.state, State::Lost) {
            State::Stopped(camera) => {
                match Session::with_camera(*camera, self.config.clone(), self.stop.clone())
                    .and_then(Session::start)
                {
                    Ok(acq) => {
                        self.error = None;
                        self.state = State::Running(Box::new(acq));
                        Ok(())
                    }
                    Err(e) => {
                        let e = linerate_grab::session::chain(&e);
                        self.error = Some(e.clone());
                        Err(e)
                    }
                }
            }
            other => {
                self.state = other;
                Ok(())
            }
        }
    }

    fn camera(&mut self) -> Option<&mut Camera> {
        match &mut self.state {
            State::Running(acq) => Some(acq.camera_mut()),
            State::Stopped(c) => Some(c),
            State::Lost => None,
        }
    }

    fn handle(&mut self, op: Op) -> Result<Vec<ControlValue>, ControlError> {
        match op {
            Op::Read => self.read(),
            Op::Write(feature, value) => {
                let fail = |message: String| ControlError {
                    feature: feature.clone(),
                    value: value.clone(),
                    message,
                };
                self.write(&feature, &value).map_err(fail)?;
                Ok(Vec::new())
            }
        }
    }

    fn read(&mut self) -> Result<Vec<ControlValue>, ControlError> {
        let running = matches!(self.state, State::Running(_));
        let transport = self.config.transport.name().to_string();
        let delay = self.config.packet_delay_ns.map(|d| d.to_string());
        let camera = self.camera().ok_or_else(|| ControlError {
            feature: "all".into(),
            value: String::new(),
            message: "the camera was lost".into(),
        })?;
        let mut out = Vec::new();
        for name in CAMERA_FEATURES {
            let value = camera.get(name).ok().and_then(|v| match v {
                FeatureValue::Integer(i) => Some(i.to_string()),
                FeatureValue::Float(f) => Some(format!("{f}")),
                FeatureValue::Enum(s) | FeatureValue::String(s) => Some(s),
                FeatureValue::Bool(b) => Some(b.to_string()),
                FeatureValue::Command => None,
            });
            let options = match name {
                "PixelFormat" => PixelFormat::KNOWN
                    .iter()
                    .filter_map(|f| f.name().map(String::from))
                    .collect(),
                "TriggerMode" => vec!["Off".into(), "On".into()],
                _ => Vec::new(),
            };
            out.push(value_of(name, value, options));
        }
        let packet = camera.packet_size().ok().map(|p| p.to_string());
        out.push(value_of("PacketSize", packet, Vec::new()));
        out.push(value_of("PacketDelay", delay, Vec::new()));
        out.push(value_of(
            "Transport",
            Some(transport),
            vec!["udp".into(), "tcp".into()],
        ));
        let acq = if running { "running" } else { "stopped" };
        out.push(value_of(
            "Acquisition",
            Some(acq.into()),
            vec!["start".into(), "stop".into()],
        ));
        Ok(out)
    }

    fn write(&mut self, feature: &str, value: &str) -> Result<(), String> {
        let value = value.trim();
        match feature {
            "Acquisition" => match value {
                "start" => self.resume(),
                "stop" => {
                    self.halt();
                    Ok(())
                }
                other => Err(format!("expected start or stop, not {other:?}")),
            },
            "Transport" => {
                let t: Transport = value
                    .parse()
                    .map_err(|e: linerate_grab::Error| e.to_string())?;
                self.restart_with(|c| c.transport = t)
            }
            "PacketSize" => {
                let p: u32 = value
                    .parse()
                    .map_err(|_| "expected a whole number of bytes".to_string())?;
                let udp = self.config.transport == Transport::Udp;
                if udp && !(576..=16_000).contains(&p) {
                    return Err("the UDP packet size must be within 576..=16000 bytes".into());
                }
                if !udp && !(512..=16_777_216).contains(&p) {
                    return Err("the TCP transfer size must be within 512..=16777216 bytes".into());
                }
                self.restart_with(|c| c.packet_size = Some(p))
            }
            "PacketDelay" => {
                let ns: u64 = value
                    .parse()
                    .map_err(|_| "expected a whole number of nanoseconds".to_string())?;
                self.restart_with(|c| c.packet_delay_ns = Some(ns))
            }
            "TriggerSoftware" => self
                .camera()
                .ok_or("the camera was lost")?
                .execute("TriggerSoftware")
                .map_err(|e| e.to_string()),
            f if RESTART.contains(&f) => {
                let was_running = matches!(self.state, State::Running(_));
                self.halt();
                let result = self
                    .camera()
                    .ok_or("the camera was lost")?
                    .set(f, value)
                    .map_err(|e| e.to_string());
                if was_running {
                    self.resume()?;
                }
                result
            }
            f => self
                .camera()
                .ok_or("the camera was lost")?
                .set(f, value)
                .map_err(|e| e.to_string()),
        }
    }

    /// Changes the session's settings and restarts the stream with them;
    /// if the camera refuses them, the old settings are restored.
    fn restart_with(&mut self, change: impl FnOnce(&mut GrabConfig)) -> Result<(), String> {
        let was_running = matches!(self.state, State::Running(_));
        let old = self.config.clone();
        change(&mut self.config);
        if !was_running {
            return Ok(());
        }
        self.halt();
        let result = self.resume();
        if let Err(refused) = result {
            // The camera went with the refused session: take control again
            // with the settings that worked.
            self.config = old;
            let reopened = Session::open_with_stop(self.config.clone(), self.stop.clone())
                .and_then(Session::start);
            return match reopened {
                Ok(acq) => {
                    self.state = State::Running(Box::new(acq));
                    self.error = None;
                    Err(format!(
                        "{refused} (the previous settings are back in force)"
                    ))
                }
                Err(e) => {
                    let e = linerate_grab::session::chain(&e);
                    self.error = Some(e.clone());
                    Err(format!("{refused}; reopening the camera failed too: {e}"))
                }
            };
        }
        Ok(())
    }
}

fn value_of(name: &str, value: Option<String>, options: Vec<String>) -> ControlValue {
    ControlValue {
        name: name.into(),
        value,
        options,
        min: None,
        max: None,
    }
}

/// Adds a run's totals to `c`.
fn add(c: &mut Counters, r: &GrabReport) {
    c.frames_completed += r.frames_completed;
    c.frames_incomplete += r.frames_incomplete;
    c.bytes += r.bytes;
    c.packets_received += r.packets_received;
    c.packets_missing += r.packets_missing;
    c.packets_resent += r.packets_resent;
    if let Some(t) = &r.receive_thread_cpu {
        c.receive_thread_cpu_s = Some(c.receive_thread_cpu_s.unwrap_or(0.0) + t.total_s);
    }
}
