//! Running one job on its bed: start the sender and receiver, let them
//! settle, measure a window, collect both reports into a [`Run`].

use std::path::Path;
use std::time::Duration;

use crate::bed::{PairBed, SwitchBed, RECEIVER, SENDER};
use crate::config::BenchConfig;
use crate::error::Result;
use crate::job::{Job, Work};
use crate::peers::{self, GvspReceiver, Stream};
use crate::process::Running;
use crate::report::Run;
use crate::steps::{put_window, receiver_duration, start_camera, GRACE};
use crate::window;

/// The bed a job runs on.
pub enum Bed<'a> {
    /// Sender and PC on a veth pair.
    Pair(&'a PairBed),
    /// Boards and PC behind a bridge.
    Switch(&'a SwitchBed),
}

/// Runs `job` and returns its figures; `dir` holds the programs' output.
pub fn run_job(bed: Bed<'_>, config: &BenchConfig, job: &Job, dir: &Path) -> Result<Run> {
    let mut run = Run {
        scenario: Some(job.scenario),
        implementation: job.implementation.clone(),
        case: job.case.clone(),
        case_value: job.case_value,
        host: job.host,
        repeat: job.repeat,
        ..Run::default()
    };
    if let (Bed::Pair(pair), false) = (&bed, job.scenario == crate::scenario::Scenario::Kafka) {
        pair.kafka.stop();
    }
    match (&job.work, bed) {
        (Work::Gvsp { receiver, stream }, Bed::Pair(pair)) => {
            gvsp(pair, config, receiver, stream, dir, &mut run)?
        }
        (Work::Iperf { udp }, Bed::Pair(pair)) => iperf(pair, config, *udp, dir, &mut run)?,
        (
            Work::Trigger {
                backend,
                rate_hz,
                stream,
            },
            Bed::Pair(pair),
        ) => crate::trigger::run(pair, config, backend, *rate_hz, stream, dir, &mut run)?,
        (
            Work::Fade {
                controller,
                backend,
                pinned,
                ..
            },
            Bed::Switch(sw),
        ) => crate::fade::run(sw, config, controller, backend, *pinned, dir, &mut run)?,
        (
            Work::CameraAlone {
                camera,
                packet_size,
            },
            Bed::Pair(pair),
        ) => crate::camera_alone::run(pair, config, *camera, *packet_size, dir, &mut run)?,
        (Work::Floor { sink, stream }, Bed::Pair(pair)) => {
            crate::floor::run(pair, config, job.host, *sink, stream, dir, &mut run)?
        }
        (
            Work::Serve {
                method,
                clients,
                fps,
            },
            Bed::Pair(pair),
        ) => crate::serve::run(
            pair,
            config,
            method,
            *clients,
            *fps,
            crate::scenarios::SERVE_FRAME_BYTES,
            dir,
            &mut run,
        )?,
        (Work::View { stream, page }, Bed::Pair(pair)) => {
            crate::view::run(pair, config, stream, *page, dir, &mut run)?
        }
        (Work::FadeVersion { version, rate_mbit }, Bed::Switch(sw)) => {
            crate::fade::run_version(sw, config, version, *rate_mbit, dir, &mut run)?
        }
        (
            Work::KafkaProduce {
                producer,
                record_bytes,
                records,
            },
            Bed::Pair(pair),
        ) => crate::kafka::produce(
            pair,
            config,
            *producer,
            *record_bytes,
            *records,
            dir,
            &mut run,
        )?,
        (Work::KafkaGrab { forward, stream }, Bed::Pair(pair)) => {
            crate::kafka::grab(pair, config, *forward, stream, dir, &mut run)?
        }
        (
            Work::KafkaFault {
                brokers,
                seconds,
                stream,
            },
            Bed::Pair(pair),
        ) => crate::kafka::fault(pair, config, *brokers, *seconds, stream, dir, &mut run)?,
        (work, _) => {
            return Err(crate::error::Error::Argument(format!(
                "internal: {work:?} was given the wrong kind of bed"
            )))
        }
    }
    Ok(run)
}

fn gvsp(
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
    let w = window::measure(&pair.bed, RECEIVER, &pair.receiver_iface, t.window)?;
    let host = host.wait(duration + GRACE)?;
    let camera = camera.stop(Duration::from_secs(5))?;
    let outcome = match receiver {
        GvspReceiver::Aravis => peers::parse_aravis(&host)?,
        GvspReceiver::Harvesters { .. } => peers::parse_harvesters(&host)?,
        _ => {
            let report = peers::grab_report(&host)?;
            // The receiver's own account of what went wrong, for the JSON.
            let detail = [
                ("frames_incomplete", report.frames_incomplete.into()),
                ("underruns", report.underruns.into()),
                ("packets_missing", report.packets_missing.into()),
                ("packets_resent", report.packets_resent.into()),
                ("kernel_drops", report.kernel_drops.into()),
                (
                    "incomplete_examples",
                    serde_json::to_value(&report.incomplete_examples).unwrap_or_default(),
                ),
            ];
            for (key, value) in detail {
                run.detail.insert(key.into(), value);
            }
            peers::GvspOutcome::of_grab(&report)
        }
    };
    let sent = peers::parse_camera_frames_sent(&camera).ok();
    put_window(run, &w);
    run.frames_completed = Some(outcome.frames_completed);
    run.frames_lost = Some(outcome.frames_lost());
    run.frames_sent = sent;
    run.frames_per_s = Some(outcome.frames_completed as f64 / duration.as_secs_f64());
    run.lossless = Some(crate::steps::lossless(&outcome, sent, stream));
    run.detail
        .insert("resend_requests".into(), outcome.resend_requests.into());
    run.detail.insert("fps_requested".into(), stream.fps.into());
    run.detail
        .insert("packet_size".into(), stream.packet_size.into());
    run.detail
        .insert("window".into(), serde_json::to_value(w).unwrap_or_default());
    Ok(host)
}

fn iperf(
    pair: &PairBed,
    config: &BenchConfig,
    udp: Option<(f64, u32)>,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let t = &config.timing;
    let server = Running::spawn(
        peers::iperf3_server(&pair.bed, RECEIVER)?,
        dir,
        "iperf3-server",
    )?;
    crate::stop::pause(Duration::from_millis(300))?;
    let duration = t.settle + t.window + Duration::from_secs(1);
    let client = Running::spawn(
        peers::iperf3_client(&pair.bed, SENDER, pair.receiver_ip, duration, udp)?,
        dir,
        "iperf3-client",
    )?;
    crate::stop::pause(t.settle)?;
    let w = window::measure(&pair.bed, RECEIVER, &pair.receiver_iface, t.window)?;
    let _client = client.wait(duration + GRACE)?;
    let server = server.wait(GRACE)?;
    let outcome = peers::parse_iperf3(&server)?;
    put_window(run, &w);
    run.lost_percent = udp.map(|_| outcome.lost_percent);
    run.detail.insert(
        "iperf3_goodput_gbit_per_s".into(),
        outcome.gbit_per_s.into(),
    );
    run.detail
        .insert("window".into(), serde_json::to_value(w).unwrap_or_default());
    Ok(())
}
