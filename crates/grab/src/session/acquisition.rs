//! A running acquisition, pulled one frame at a time: the loop of
//! [`Session::run_with`](super::Session::run_with) turned inside out, so a
//! front end can own each frame buffer for as long as it likes (a Python
//! binding lends it to numpy without a copy) and give it back later.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use linerate_metrics::{CpuSnapshot, KernelDrops, LatencyHistogram};

use super::error::{chain, RunError};
use super::report::RunShape;
use super::tally::Tally;
use super::{GrabError, GrabMonitor, GrabProgress, GrabReport, HostTuning, Session, SessionInfo};
use crate::receive::Transport;
use crate::stream::{Buffer, Requeue, StreamStats};
use crate::verify::Verifier;
use crate::{Camera, Error};

/// What one [`Acquisition::pull`] brought.
#[derive(Debug)]
pub enum Pulled {
    /// A frame, complete or not, already counted (and verified and saved
    /// as configured). Give it back with [`Acquisition::requeue`], or the
    /// stream runs short of buffers.
    Frame(Buffer),
    /// No frame within the wait; the acquisition goes on.
    Waiting,
    /// The run is over: the frame or time limit was reached, a stop was
    /// requested, or an error ended it (see [`Acquisition::error`]).
    Ended,
}

/// A session whose camera is acquiring; see [`Session::start`]. Dropping
/// it without [`Acquisition::finish`] still stops the stream and releases
/// the camera.
#[derive(Debug)]
pub struct Acquisition {
    session: Session,
    trigger_latency: LatencyHistogram,
    next_trigger: Instant,
    /// The trigger sent for the frame being waited for (host ns), if any.
    pending_trigger: Option<u64>,
    /// When the wait for the next frame began.
    waiting_since: Option<Instant>,
    verifier: Option<Verifier>,
    tally: Tally,
    cpu_before: Option<CpuSnapshot>,
    process_cpu_before: f64,
    started: Instant,
    frame_timeout: Duration,
    error: Option<RunError>,
    stopped: bool,
    ended: bool,
}

impl Acquisition {
    /// Starts the stream, and the camera's acquisition when `start_camera`
    /// (otherwise the caller's user starts it).
    pub(super) fn start(
        mut session: Session,
        start_camera: bool,
    ) -> Result<Acquisition, GrabError> {
        let verifier = session
            .config
            .verify
            .then(|| Verifier::new(session.pattern));
        let cpu_before = CpuSnapshot::take().ok();
        let process_cpu_before = linerate_io::sched::process_cpu_seconds();
        let started = Instant::now();
        if start_camera {
            session.camera.start().map_err(GrabError::Start)?;
        }
        session.monitor.counters.start(started);
        let frame_timeout = session.config.frame_timeout.max(Duration::from_millis(10));
        Ok(Acquisition {
            session,
            trigger_latency: LatencyHistogram::new(),
            next_trigger: Instant::now(),
            pending_trigger: None,
            waiting_since: None,
            verifier,
            tally: Tally::default(),
            cpu_before,
            process_cpu_before,
            started,
            frame_timeout,
            error: None,
            stopped: false,
            ended: false,
        })
    }

    /// What the session found and set up.
    pub fn info(&self) -> &SessionInfo {
        &self.session.info
    }

    /// A handle to watch this acquisition and stop it from another thread.
    pub fn monitor(&self) -> GrabMonitor {
        self.session.monitor.clone()
    }

    /// The frames counted so far.
    pub fn progress(&self) -> GrabProgress {
        self.session.monitor.counters.snapshot()
    }

    /// Whether a frame is arriving now (see [`Stream::frame_in_flight`](crate::stream::Stream::frame_in_flight)).
    pub fn frame_in_flight(&self) -> bool {
        self.session.stream.frame_in_flight()
    }

    /// Where each buffer lent to the stream starts in memory (see
    /// [`Session::buffer_addresses`]).
    pub fn buffer_addresses(&self) -> &[usize] {
        &self.session.buffer_addresses
    }

    /// The camera, still under control while it streams: for feature
    /// access meanwhile (an exposure change, a trigger of one's own).
    pub fn camera_mut(&mut self) -> &mut Camera {
        &mut self.session.camera
    }

    /// Why the run ended early, if an error ended it (the report's `error`).
    pub fn error(&self) -> Option<String> {
        self.error.as_ref().map(|e| chain(e))
    }

    /// Whether the error that ended the run is the camera's control
    /// connection lost or interfered with (as opposed to a stalled stream).
    pub fn control_lost(&self) -> bool {
        matches!(
            self.error,
            Some(RunError::Stream(
                Error::ControlLost { .. } | Error::ControlInterference { .. }
            ))
        )
    }

    /// True once [`Acquisition::pull`] has returned [`Pulled::Ended`].
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// Waits up to `wait` for the next frame. The configuration's frame
    /// timeout runs across pulls: when no frame came within it since the
    /// previous one, the run ends with that error. With a software
    /// trigger, the trigger for the next frame is sent here when it is due.
    pub fn pull(&mut self, wait: Duration) -> Pulled {
        match self.try_pull(wait) {
            Ok(Some(buffer)) => Pulled::Frame(buffer),
            Ok(None) if self.ended => Pulled::Ended,
            Ok(None) => Pulled::Waiting,
            Err(e) => {
                self.error = Some(e);
                self.ended = true;
                Pulled::Ended
            }
        }
    }

    fn try_pull(&mut self, wait: Duration) -> Result<Option<Buffer>, RunError> {
        let s = &mut self.session;
        if self.ended {
            return Ok(None);
        }
        if s.monitor.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            self.ended = true;
            return Ok(None);
        }
        let target = s.config.frames;
        let limit_reached = (target > 0 && self.tally.delivered() >= target)
            || s.config
                .duration
                .is_some_and(|d| self.started.elapsed() >= d);
        if limit_reached {
            self.ended = true;
            return Ok(None);
        }
        let began = Instant::now();
        if let (Some(period), None) = (s.trigger_period, self.pending_trigger) {
            if self.next_trigger > began {
                std::thread::sleep((self.next_trigger - began).min(wait));
                if self.next_trigger > Instant::now() {
                    return Ok(None);
                }
            }
            let now = Instant::now();
            self.next_trigger = self.next_trigger.max(now) + period;
            self.pending_trigger = Some(crate::clock::now_ns());
            self.waiting_since = Some(now);
            s.camera
                .execute("TriggerSoftware")
                .map_err(RunError::Trigger)?;
        }
        let waiting_since = *self.waiting_since.get_or_insert(began);
        let deadline = waiting_since + self.frame_timeout;
        let left = deadline.saturating_duration_since(Instant::now());
        let tcp = s.config.transport == Transport::Tcp;
        let buffer = match s.stream.wait(left.min(wait)) {
            Ok(b) => b,
            Err(Error::Timeout(_)) if !left.is_zero() => {
                if tcp && s.stream.stats().receive.tcp.connections_lost > 0 {
                    return Err(RunError::TcpClosed);
                }
                return Ok(None);
            }
            Err(e) => {
                // Frames stopped: if someone else stopped or redirected the
                // stream, say so instead of "no frame within ...".
                let e = match e {
                    Error::Timeout(_) => Error::Timeout(self.frame_timeout),
                    e => e,
                };
                let stalled_or_interfered =
                    matches!(e, Error::Timeout(_) | Error::ControlInterference { .. });
                return Err(match s.camera.check_interference() {
                    Err(found) if stalled_or_interfered => RunError::Stream(found),
                    _ => RunError::Stream(e),
                });
            }
        };
        self.waiting_since = None;
        if let Some(t) = self.pending_trigger.take().filter(|_| buffer.is_complete()) {
            self.trigger_latency
                .record_between_ns(t, crate::clock::now_ns());
        }
        self.tally
            .take(&buffer, self.verifier.as_mut(), s.config.save.as_deref());
        s.monitor.counters.record(&self.tally, &buffer);
        Ok(Some(buffer))
    }

    /// Gives a frame's buffer back to the stream to be filled again.
    pub fn requeue(&mut self, buffer: Buffer) -> Result<(), GrabError> {
        self.session.stream.queue(buffer).map_err(GrabError::Queue)
    }

    /// A handle that gives buffers back to the stream from anywhere (see
    /// [`crate::stream::Stream::requeue_handle`]): a front end that lends
    /// frames out requeues each the moment its owner drops it.
    pub fn requeue_handle(&self) -> Requeue {
        self.session.stream.requeue_handle()
    }

    /// The report so far, while frames still flow (the counters read now;
    /// the CPU figures over the run so far).
    pub fn report(&self) -> GrabReport {
        let s = &self.session;
        let stats = s.stream.stats();
        let (seconds, cpu, process_cpu_seconds) = self.elapsed();
        let drops_after = KernelDrops::read(s.link.as_ref().map(|l| l.name.as_str())).ok();
        self.compose(&stats, seconds, cpu, process_cpu_seconds, drops_after)
    }

    /// Stops acquisition and the stream and returns the final report, with
    /// the camera (still under control) for the caller to use or drop.
    pub fn finish(mut self) -> (GrabReport, Camera) {
        let (seconds, cpu, process_cpu_seconds) = self.elapsed();
        let s = &mut self.session;
        let _ = s.camera.stop();
        if s.config.trigger_software {
            let _ = s.camera.set("TriggerMode", "Off");
        }
        let stats = s.stream.stop();
        let drops_after = KernelDrops::read(s.link.as_ref().map(|l| l.name.as_str())).ok();
        // When an error ended the run, the frames delivered meanwhile (e.g.
        // those a lost connection left incomplete) are accounted for too.
        // After a normal end, frames beyond the target are not counted.
        if self.error.is_some() {
            for buffer in s.stream.drain() {
                self.tally
                    .take(&buffer, self.verifier.as_mut(), s.config.save.as_deref());
                s.monitor.counters.record(&self.tally, &buffer);
            }
        }
        let report = self.compose(&stats, seconds, cpu, process_cpu_seconds, drops_after);
        (report, self.session.camera)
    }

    /// Seconds since acquisition started, the machine's CPU use and this
    /// process's CPU seconds since then.
    fn elapsed(&self) -> (f64, Option<linerate_metrics::CpuDelta>, f64) {
        let seconds = self.started.elapsed().as_secs_f64();
        let cpu = self
            .cpu_before
            .as_ref()
            .and_then(|b| CpuSnapshot::take().ok().map(|a| a.delta_since(b)));
        let process_cpu_seconds =
            linerate_io::sched::process_cpu_seconds() - self.process_cpu_before;
        (seconds, cpu, process_cpu_seconds)
    }

    fn compose(
        &self,
        stats: &StreamStats,
        seconds: f64,
        cpu: Option<linerate_metrics::CpuDelta>,
        process_cpu_seconds: f64,
        drops_after: Option<KernelDrops>,
    ) -> GrabReport {
        let s = &self.session;
        let shape = RunShape {
            camera: s.camera.info(),
            transport: s.config.transport,
            backend: s.config.backend.name(),
            target: s.config.frames,
        };
        let mut report = GrabReport::tallied(&shape, &self.tally, stats, seconds, cpu);
        report.host = HostTuning::read(s.info.local_ip);
        report.process_cpu_seconds = process_cpu_seconds;
        report.buffers = s.info.buffers;
        report.frame_delivery_latency_us = s.stream.delivery_latency();
        report.trigger_to_frame_latency_us = s
            .config
            .trigger_software
            .then(|| self.trigger_latency.summary());
        let stream_seconds = s.stream_started.elapsed();
        report.receive_thread_cpu = s
            .stream
            .receive_thread_cpu()
            .map(|t| t.usage(stream_seconds));
        report.kernel_drop_counters = s
            .drops_before
            .as_ref()
            .zip(drops_after)
            .map(|(b, a)| a.delta_since(b));
        if let Some(e) = &self.error {
            report.error = Some(chain(e));
            report.ok = false;
        }
        if self.stopped {
            report.error = Some("stopped on request".into());
            report.stopped = true;
            report.ok = false;
        }
        report
    }
}
