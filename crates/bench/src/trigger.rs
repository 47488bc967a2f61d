//! Scenario 5's run: `linerate grab --trigger-software` sends TriggerSoftware
//! at a fixed rate and times each command to its frame handed to the
//! application; the bench reads that histogram.

use std::path::Path;
use std::time::Duration;

use crate::bed::{PairBed, RECEIVER};
use crate::config::BenchConfig;
use crate::error::{Error, Result};
use crate::peers::{self, GvspReceiver, Stream};
use crate::process::Running;
use crate::report::Run;
use crate::steps::{put_window, receiver_duration, start_camera};
use crate::window;

/// Runs software triggers at `rate_hz` with grab's `backend`.
pub fn run(
    pair: &PairBed,
    config: &BenchConfig,
    backend: &str,
    rate_hz: f64,
    stream: &Stream,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let t = &config.timing;
    let camera = start_camera(pair, config, dir)?;
    let duration = receiver_duration(config);
    let receiver = GvspReceiver::Grab {
        backend: backend.to_owned(),
    };
    let triggered = Stream {
        fps: rate_hz,
        ..*stream
    };
    let mut cmd = peers::gvsp_receiver(
        &pair.bed,
        RECEIVER,
        &config.linerate,
        pair.sender_ip,
        &receiver,
        &triggered,
        duration,
    )?;
    cmd.arg("--trigger-software");
    let host = Running::spawn(cmd, dir, "receiver")?;
    crate::stop::pause(t.settle)?;
    let w = window::measure(&pair.bed, RECEIVER, &pair.receiver_iface, t.window)?;
    let host = host.wait(duration + Duration::from_secs(30))?;
    let _ = camera.stop(Duration::from_secs(5));
    let report = peers::grab_report(&host)?;
    let outcome = peers::GvspOutcome::of_grab(&report);
    let Some(latency) = report.trigger_to_frame_latency_us else {
        return Err(Error::Output {
            program: host.cmdline.clone(),
            what: "trigger_to_frame_latency_us".to_owned(),
            detail: format!(
                "null in the report (not a --trigger-software run?): {}",
                report.error.as_deref().unwrap_or("no error reported")
            ),
        });
    };
    let (p50, p99) = (latency.p50_us, latency.p99_us);
    put_window(run, &w);
    run.latency_us_p50 = Some(p50);
    run.latency_us_p99 = Some(p99);
    run.frames_completed = Some(outcome.frames_completed);
    run.frames_lost = Some(outcome.frames_lost());
    run.frames_per_s = Some(outcome.frames_completed as f64 / duration.as_secs_f64());
    run.lossless = Some(outcome.frames_completed > 0 && outcome.frames_lost() == 0);
    run.detail.insert(
        "trigger_to_frame_latency_us".into(),
        serde_json::to_value(latency).unwrap_or_default(),
    );
    run.detail.insert(
        "frame_delivery_latency_us".into(),
        serde_json::to_value(report.frame_delivery_latency_us).unwrap_or_default(),
    );
    Ok(())
}
