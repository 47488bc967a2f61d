//! Running one job on its bed: start the sender and receiver, let them
//! settle, measure a window, collect both reports into a [`Run`].

use std::path::Path;
use std::time::Duration;

use crate::bed::{PairBed, SwitchBed, RECEIVER, SENDER};
use crate::config::BenchConfig;
use crate::error::Result;
use crate::job::{Job, Work};
use crate::peers;
use crate::process::Running;
use crate::report::Run;
use crate::steps::{put_window, GRACE};
use crate::window;

/// The bed a job runs on.
pub enum Bed<'a> {
    /// Sender and PC on a veth pair, and the Kafka broker its kafka runs
    /// share.
    Pair(&'a PairBed, &'a crate::kafka::SharedBroker),
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
    if let (Bed::Pair(_, broker), false) = (&bed, job.scenario == crate::scenario::Scenario::Kafka)
    {
        broker.stop();
    }
    match (&job.work, bed) {
        (Work::Gvsp { receiver, stream }, Bed::Pair(pair, _)) => {
            crate::gvsp_run::gvsp(pair, config, receiver, stream, dir, &mut run)?
        }
        (Work::Iperf { udp }, Bed::Pair(pair, _)) => iperf(pair, config, *udp, dir, &mut run)?,
        (
            Work::Trigger {
                backend,
                rate_hz,
                stream,
            },
            Bed::Pair(pair, _),
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
            Bed::Pair(pair, _),
        ) => crate::camera_alone::run(pair, config, *camera, *packet_size, dir, &mut run)?,
        (Work::Floor { sink, stream }, Bed::Pair(pair, _)) => {
            crate::floor::run(pair, config, job.host, *sink, stream, dir, &mut run)?
        }
        (
            Work::Serve {
                method,
                clients,
                fps,
            },
            Bed::Pair(pair, _),
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
        (Work::View { stream, page }, Bed::Pair(pair, _)) => {
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
            Bed::Pair(pair, broker),
        ) => crate::kafka::produce(
            pair,
            broker,
            config,
            *producer,
            *record_bytes,
            *records,
            dir,
            &mut run,
        )?,
        (Work::KafkaGrab { forward, stream }, Bed::Pair(pair, broker)) => {
            crate::kafka::grab(pair, broker, config, *forward, stream, dir, &mut run)?
        }
        (
            Work::KafkaFault {
                brokers,
                seconds,
                stream,
            },
            Bed::Pair(pair, _),
        ) => crate::kafka::fault(pair, config, *brokers, *seconds, stream, dir, &mut run)?,
        (work, _) => {
            return Err(crate::error::Error::Argument(format!(
                "internal: {work:?} was given the wrong kind of bed"
            )))
        }
    }
    Ok(run)
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
