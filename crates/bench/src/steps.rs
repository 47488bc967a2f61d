//! The steps every kind of run shares: starting linerate's camera, how
//! long a receiver runs, how long a program may overrun, and copying a
//! measuring window into a run's figures.

use std::path::Path;
use std::time::Duration;

use linerate_testbed::HostCommand;

use crate::bed::{PairBed, SENDER};
use crate::config::BenchConfig;
use crate::error::Result;
use crate::peers;
use crate::process::Running;
use crate::report::Run;
use crate::window::Window;

/// Extra time a program gets beyond its planned duration before it is
/// killed and the run reported as failed.
pub const GRACE: Duration = Duration::from_secs(30);

/// Puts a grab report's own account of what went wrong (incomplete
/// frames, underruns, missing and resent packets, kernel drops) into the
/// run's detail, the same keys for every scenario that runs `grab`.
pub fn put_grab_counters(run: &mut Run, report: &linerate_grab::session::GrabReport) {
    let counters = [
        ("frames_incomplete", report.frames_incomplete),
        ("underruns", report.underruns),
        ("packets_missing", report.packets_missing),
        ("packets_resent", report.packets_resent),
        ("kernel_drops", report.kernel_drops),
    ];
    for (key, value) in counters {
        run.detail.insert(key.into(), value.into());
    }
}

/// Copies a window's figures into a run.
pub fn put_window(run: &mut Run, w: &Window) {
    run.gbit_per_s = Some(w.gbit_per_s());
    run.receiver_core_pct = Some(w.receiver_core * 100.0);
    run.busiest_core_pct = Some(w.busiest_core * 100.0);
    run.cpu_avg_pct = Some(w.cpu_avg * 100.0);
    run.cpu_s_per_gb = w.cpu_s_per_gb();
    run.sender_core_pct = Some(w.sender_core * 100.0);
    run.sender_cpu_s_per_gb = w.sender_cpu_s_per_gb();
}

/// Starts linerate's camera on the pair's sender and gives it time to
/// open its control port.
pub fn start_camera(pair: &PairBed, config: &BenchConfig, dir: &Path) -> Result<Running> {
    launch_camera(
        peers::camera(&pair.bed, SENDER, &config.linerate, pair.sender_ip)?,
        dir,
    )
}

/// Time a camera gets to open its control port before a receiver asks.
const CAMERA_START: Duration = Duration::from_millis(500);

/// Starts a camera `command` (as [`peers::camera`] or
/// [`peers::realtime_camera`] build it) and gives it time to open its
/// control port.
pub fn launch_camera(command: HostCommand, dir: &Path) -> Result<Running> {
    let camera = Running::spawn(command, dir, "camera")?;
    crate::stop::pause(CAMERA_START)?;
    Ok(camera)
}

/// How long a receiver runs: settling, the window, and a second to spare
/// so the window never sees the receiver stopping.
pub fn receiver_duration(config: &BenchConfig) -> Duration {
    config.timing.settle + config.timing.window + Duration::from_secs(1)
}

/// Whether a receiver's run was lossless: nothing failed, and every frame
/// the camera sent arrived, but for those still in flight when the
/// receiver stopped: two, plus 30 ms of frames for the AcquisitionStop
/// round trip.
pub fn lossless(outcome: &peers::GvspOutcome, sent: Option<u64>, stream: &peers::Stream) -> bool {
    let in_flight = 2 + (stream.fps * 0.03).ceil() as u64;
    outcome.frames_completed > 0
        && outcome.frames_lost() == 0
        && sent.map_or(true, |s| outcome.frames_completed + in_flight >= s)
}
