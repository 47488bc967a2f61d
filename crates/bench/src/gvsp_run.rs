//! One GigE Vision run on a pair bed: the emulated camera streams, a
//! receiver (grab, Aravis, Python, Harvesters) takes it, a window is
//! measured, and both reports become a [`Run`]'s figures. The job runner
//! and the scenarios that wrap such a run (kafka) share it.

use std::path::Path;
use std::time::Duration;

use crate::app_threads::AppThreads;
use crate::bed::{PairBed, RECEIVER};
use crate::config::BenchConfig;
use crate::error::Result;
use crate::peers::{self, GvspReceiver, Stream};
use crate::process::Running;
use crate::report::Run;
use crate::steps::{put_window, receiver_duration, start_camera, GRACE};
use crate::window;

/// A GigE Vision run of `receiver` on `stream`.
pub(crate) fn gvsp(
    pair: &PairBed,
    config: &BenchConfig,
    receiver: &GvspReceiver,
    stream: &Stream,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    gvsp_with(pair, config, receiver, stream, &[], dir, run).map(|_| ())
}

/// A GigE Vision run whose receiver gets `extra` arguments; returns what
/// the receiver printed, for figures of its own.
pub(crate) fn gvsp_with(
    pair: &PairBed,
    config: &BenchConfig,
    receiver: &GvspReceiver,
    stream: &Stream,
    extra: &[String],
    dir: &Path,
    run: &mut Run,
) -> Result<crate::process::Finished> {
    let t = &config.timing;
    let camera = start_camera(pair, config, dir)?;
    let duration = receiver_duration(config);
    let mut command = peers::gvsp_receiver(
        &pair.bed,
        RECEIVER,
        &config.linerate,
        pair.sender_ip,
        receiver,
        stream,
        duration,
    )?;
    command.args(extra);
    let host = Running::spawn(command, dir, "receiver")?;
    crate::stop::pause(t.settle)?;
    // The application/receive-path split needs linerate's engine in the
    // receiver (its named threads) and every other thread on the receiving
    // core: not Aravis, and not a grab whose extra work (a forwarder) may
    // run elsewhere.
    let split = extra.is_empty() && !matches!(receiver, GvspReceiver::Aravis);
    let pid = host.pid().filter(|_| split);
    let threads_before = AppThreads::take(pid);
    let w = window::measure(&pair.bed, RECEIVER, &pair.receiver_iface, t.window)?;
    let application = AppThreads::take(pid).application_since(&threads_before);
    let host = host.wait(duration + GRACE)?;
    let camera = camera.stop(Duration::from_secs(5))?;
    let outcome = match receiver {
        GvspReceiver::Aravis => peers::parse_aravis(&host)?,
        GvspReceiver::Harvesters { .. } => {
            let report = peers::harvesters_report(&host)?;
            // Which frames Harvesters never handed out: delivered
            // incomplete by the producer, or missing ids.
            run.detail
                .insert("frames_incomplete".into(), report.frames_incomplete.into());
            run.detail
                .insert("frames_skipped".into(), report.frames_skipped.into());
            run.detail
                .insert("packets_resent".into(), report.packets_resent.into());
            peers::GvspOutcome::of_harvesters(&report)
        }
        _ => {
            let report = peers::grab_report(&host)?;
            // The receiver's own account of what went wrong, for the JSON.
            crate::steps::put_grab_counters(run, &report);
            run.detail.insert(
                "incomplete_examples".into(),
                serde_json::to_value(&report.incomplete_examples).unwrap_or_default(),
            );
            peers::GvspOutcome::of_grab(&report)
        }
    };
    let sent = peers::parse_camera_frames_sent(&camera).ok();
    put_window(run, &w);
    put_application(run, &w, application);
    run.frames_completed = Some(outcome.frames_completed);
    run.frames_lost = Some(outcome.frames_lost());
    run.frames_sent = sent;
    run.frames_per_s = Some(outcome.frames_completed as f64 / duration.as_secs_f64());
    run.lossless = Some(crate::steps::lossless(&outcome, sent, stream));
    run.detail
        .insert("resend_requests".into(), outcome.resend_requests.into());
    // How frames were lost: incomplete or given up, or dropped for want of
    // a buffer (a consumer that held its buffers too long).
    run.detail
        .insert("frames_failed".into(), outcome.frames_failed.into());
    run.detail
        .insert("frames_underrun".into(), outcome.frames_underrun.into());
    run.detail.insert("fps_requested".into(), stream.fps.into());
    run.detail
        .insert("packet_size".into(), stream.packet_size.into());
    run.detail
        .insert("window".into(), serde_json::to_value(w).unwrap_or_default());
    Ok(host)
}

/// The receiver's application threads' share of the window: their CPU-s
/// per GB, and what the receive path (the core's time less theirs) cost.
fn put_application(run: &mut Run, w: &window::Window, application: Option<Duration>) {
    let (Some(app), true) = (application, w.rx_bytes > 0) else {
        return;
    };
    let gb = w.rx_bytes as f64 / 1e9;
    let app = app.as_secs_f64().min(w.receiver_cpu_seconds);
    run.application_cpu_s_per_gb = Some(app / gb);
    run.receive_path_cpu_s_per_gb = Some((w.receiver_cpu_seconds - app) / gb);
}
