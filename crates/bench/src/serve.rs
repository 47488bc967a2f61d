//! The serve scenario's run: `linerate serve` on the PC's side of the pair
//! (CPU 1, which stands in for the server machine: its process and the
//! clients' ACKs' receive processing, steered there by RPS) and `linerate
//! watch` with every client on the other side (CPU 0), verifying every
//! frame.

use std::path::Path;
use std::time::Duration;

use linerate_serve::server::ServeReport;
use linerate_serve::watcher::WatchReport;
use serde::de::DeserializeOwned;

use crate::bed::{PairBed, RECEIVER, SENDER};
use crate::config::BenchConfig;
use crate::error::{Error, Result};
use crate::process::{last_json_object, Finished, Running};
use crate::report::Run;
use crate::steps::{put_window, GRACE};
use crate::window::{self, RECEIVER_CPU, SENDER_CPU};

/// The server's TCP port.
const PORT: u16 = 5600;

/// The server's frame queue per client and its pool of frame slots: deep
/// enough that a client thread descheduled for a few ms on a busy machine
/// loses nothing.
const QUEUE: &str = "64";
const SLOTS: &str = "128";

/// Serves `clients` clients at `fps` with send `method` and records what
/// the server's core paid per GB it sent.
#[allow(clippy::too_many_arguments)]
pub fn run(
    pair: &PairBed,
    config: &BenchConfig,
    method: &str,
    clients: u32,
    fps: f64,
    frame_bytes: u32,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let t = &config.timing;
    let server_ip = pair.receiver_ip;
    // The clients' receive processing stays on their core, off the
    // server's; undone after the run, so other scenarios see the bed as
    // built.
    pair.bed.set_rps(SENDER, &[SENDER_CPU])?;
    let result = (|| {
        let total = t.settle + t.window + Duration::from_secs(2);
        let mut srv = pair.bed.command(RECEIVER, &config.linerate)?;
        srv.cpu(RECEIVER_CPU)
            .args(["serve", "--bind", &server_ip.to_string()])
            .args(["--port", &PORT.to_string(), "--fps", &format!("{fps:.3}")])
            .args(["--frame-size", &frame_bytes.to_string(), "--method", method])
            .args(["--queue", QUEUE, "--slots", SLOTS, "--json", "--duration"])
            .arg(format!(
                "{:.1}",
                (total + Duration::from_secs(1)).as_secs_f64()
            ));
        let server = Running::spawn(srv, dir, "serve")?;
        crate::stop::pause(Duration::from_millis(300))?;
        let mut watch = pair.bed.command(SENDER, &config.linerate)?;
        watch
            .cpu(SENDER_CPU)
            .args(["watch", "--connect", &format!("{server_ip}:{PORT}")])
            .args(["--clients", &clients.to_string(), "--json", "--duration"])
            .arg(format!("{:.1}", total.as_secs_f64()));
        let watch = Running::spawn(watch, dir, "watch")?;
        crate::stop::pause(t.settle)?;
        // The server sends: its interface's transmit bytes and CPU 1.
        let w = window::measure_pair(
            &pair.bed,
            (RECEIVER, &pair.receiver_iface),
            (SENDER, &pair.sender_iface),
            t.window,
        )?;
        let watched = watch.wait(total + GRACE)?;
        let served = server.wait(GRACE)?;
        Ok::<_, Error>((w, watched, served))
    })();
    pair.bed.set_rps(SENDER, &[])?;
    let (w, watched, served) = result?;
    put_window(run, &w);
    // The measured machine is the server: CPU 1 per GB it sent.
    run.cpu_s_per_gb = w.cpu_s_per_gb_sent();
    run.gbit_per_s = w
        .tx_bytes
        .map(|b| b as f64 * 8.0 / w.seconds.max(f64::MIN_POSITIVE) / 1e9);
    run.sender_core_pct = None;
    run.sender_cpu_s_per_gb = None;
    let s: ServeReport = report(&served, "the serve report")?;
    let wa: WatchReport = report(&watched, "the watch report")?;
    run.frames_completed = Some(wa.frames_ok);
    run.frames_lost = Some(wa.frames_missing);
    run.frames_per_s = Some(fps);
    run.lossless = Some(wa.ok && wa.frames_missing == 0);
    if s.bytes_sent > 10_000_000 {
        // The server process's own CPU time per GB: blind to receive
        // processing charged elsewhere, but not to other tenants of CPU 1.
        let own = s.cpu_seconds / (s.bytes_sent as f64 / 1e9);
        run.detail
            .insert("server_process_cpu_s_per_gb".into(), own.into());
    }
    for (k, v) in [
        ("frames_published", s.frames_published),
        ("frames_dropped", s.frames_dropped),
        ("clients_cut", s.clients_cut),
        ("syscalls", s.syscalls),
    ] {
        run.detail.insert(format!("server_{k}"), v.into());
    }
    run.detail
        .insert("server_max_rss_mib".into(), s.max_rss_mib.into());
    run.detail.insert("clients".into(), clients.into());
    run.detail.insert("frame_bytes".into(), frame_bytes.into());
    run.detail
        .insert("window".into(), serde_json::to_value(w).unwrap_or_default());
    Ok(())
}

/// The last JSON report `finished` printed, read through its type (so a
/// renamed or missing field is an error here, not a silent gap).
fn report<T: DeserializeOwned>(finished: &Finished, what: &str) -> Result<T> {
    serde_json::from_value(last_json_object(finished)?).map_err(|e| Error::Output {
        program: finished.cmdline.clone(),
        what: what.to_owned(),
        detail: e.to_string(),
    })
}
