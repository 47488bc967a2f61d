//! Scenario 5's run: `linerate grab --trigger-software` sends TriggerSoftware
//! at a fixed rate and times each command to its frame handed to the
//! application; the bench reads that histogram.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::bed::{PairBed, RECEIVER};
use crate::config::BenchConfig;
use crate::error::{Error, Result};
use crate::peers::{self, GvspReceiver, Stream};
use crate::process::{last_json_object, Running};
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
    let outcome = peers::parse_grab(&host)?;
    let report = last_json_object(&host)?;
    let latency = &report["trigger_to_frame_latency_us"];
    let p = |k: &str| latency.get(k).and_then(Value::as_f64);
    let (Some(p50), Some(p99)) = (p("p50_us"), p("p99_us")) else {
        return Err(Error::Output {
            program: host.cmdline.clone(),
            what: "trigger_to_frame_latency_us.p50_us and p99_us".to_owned(),
            detail: crate::process::tail(&latency.to_string(), 200),
        });
    };
    put_window(run, &w);
    run.latency_us_p50 = Some(p50);
    run.latency_us_p99 = Some(p99);
    run.frames_completed = Some(outcome.frames_completed);
    run.frames_lost = Some(outcome.frames_lost());
    run.frames_per_s = Some(outcome.frames_completed as f64 / duration.as_secs_f64());
    run.lossless = Some(outcome.frames_completed > 0 && outcome.frames_lost() == 0);
    run.detail
        .insert("trigger_to_frame_latency_us".into(), latency.clone());
    run.detail.insert(
        "frame_delivery_latency_us".into(),
        report["frame_delivery_latency_us"].clone(),
    );
    Ok(())
}
