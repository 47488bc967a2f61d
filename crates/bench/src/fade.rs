//! Scenario 6's run: FADE boards behind a bridge streaming into one
//! `linerate fade recv` over a shared, rate-limited link.

use std::path::Path;
use std::time::Duration;

use linerate_readout::ReadoutReport;
use serde::Deserialize;
use serde_json::Value;

use crate::bed::{SwitchBed, RECEIVER};
use crate::config::BenchConfig;
use crate::error::{Error, Result};
use crate::process::{last_json_object, Finished, Running};
use crate::report::Run;
use crate::steps::{put_window, receiver_duration};
use crate::window::{self, Window, RECEIVER_CPU, SENDER_CPU};

/// The boards' line rate: each is a 1 GbE device.
const BOARD_RATE: &str = "1g";

/// Runs every board of `sw` with `controller` into one receiver that
/// takes DATA through `backend`, every other setting at its default.
/// `pinned`: the boards share the sender's CPU and the receiver has its
/// own (`--cpu`); otherwise the scheduler places them all.
pub fn run(
    sw: &SwitchBed,
    config: &BenchConfig,
    controller: &str,
    backend: &str,
    pinned: bool,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let t = &config.timing;
    let duration = receiver_duration(config);
    let mut recv = sw.bed.command(RECEIVER, &config.linerate)?;
    recv.args(["fade", "recv", "--interface", &sw.receiver_iface])
        .args(["--verify", "--json"]);
    if pinned {
        recv.cpu(RECEIVER_CPU)
            .arg("--cpu")
            .arg(RECEIVER_CPU.to_string());
    }
    recv.arg("--duration")
        .arg(format!("{:.1}", duration.as_secs_f64()))
        .args(["--controller", controller, "--backend", backend]);
    for board in &sw.senders {
        recv.arg("--feb").arg(sw.bed.mac(board)?.to_string());
    }
    let recv = Running::spawn(recv, dir, "fade-recv")?;
    crate::stop::pause(Duration::from_millis(300))?;
    let mut boards = Vec::new();
    for (i, board) in sw.senders.iter().enumerate() {
        let iface = sw.bed.iface(board)?.name.clone();
        let mut feb = sw.bed.command(board, &config.linerate)?;
        if pinned {
            feb.cpu(SENDER_CPU);
        }
        feb.args(["fade", "feb", "--interface", &iface, "--rate", BOARD_RATE])
            .args(["--json", "--controller", controller]);
        boards.push(Running::spawn(feb, dir, &format!("fade-feb{i}"))?);
    }
    crate::stop::pause(t.settle)?;
    let w = window::measure(&sw.bed, RECEIVER, &sw.receiver_iface, t.window)?;
    let recv = recv.wait(duration + Duration::from_secs(30))?;
    for b in boards {
        let _ = b.stop(Duration::from_secs(3));
    }
    read_receiver(&recv, &w, run)
}

/// Copies the window and `fade recv --json`'s report into `run`, read
/// through the receiver's own report type; a report that is not one is
/// an error.
fn read_receiver(recv: &Finished, w: &Window, run: &mut Run) -> Result<()> {
    let v = last_json_object(recv)?;
    let report = ReadoutReport::deserialize(&v).map_err(|e| Error::Output {
        program: recv.cmdline.clone(),
        what: "a fade recv report".to_owned(),
        detail: format!("{e}: {}", crate::process::tail(&recv.stdout, 200)),
    })?;
    // A receiver that failed says so beside its report.
    let failed = v.get("error").is_some_and(|e| !e.is_null());
    put_window(run, w);
    run.jain_fairness = Some(report.jain_fairness);
    run.retransmit_ratio = Some(report.retransmit_ratio);
    run.latency_us_p50 = report.ack_latency_us_p50;
    run.latency_us_p99 = report.ack_latency_us_p99;
    for (k, value) in [
        ("ack_return_us_p50", report.ack_return_us_p50),
        ("ack_return_us_p99", report.ack_return_us_p99),
        ("pickup_us_p50", report.pickup_us_p50),
        ("pickup_us_p99", report.pickup_us_p99),
    ] {
        run.detail.insert(k.into(), value.into());
    }
    run.detail
        .insert("ack_sent_at".into(), report.ack_sent_at.clone().into());
    run.lossless = Some(report.verify_errors == 0 && !failed);
    let per_board: Vec<Value> = report.boards.iter().map(|b| b.mbit_per_s.into()).collect();
    run.detail
        .insert("board_mbit_per_s".into(), Value::Array(per_board));
    run.detail
        .insert("payload_mbit_per_s".into(), report.mbit_per_s.into());
    run.detail
        .insert("verify_errors".into(), report.verify_errors.into());
    Ok(())
}

/// Runs the one board of `sw` with FADE wire `version` into a receiver of
/// the same version; `rate_mbit` > 0 paces the board to its 1 GbE line and
/// tells the receiver the link's rate, 0 leaves the board unpaced on a
/// 10 Gbit/s link. Board on the sender's CPU, receiver on its own.
pub fn run_version(
    sw: &SwitchBed,
    config: &BenchConfig,
    version: &str,
    rate_mbit: u32,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let t = &config.timing;
    let duration = receiver_duration(config);
    let board = sw
        .senders
        .first()
        .ok_or_else(|| Error::Argument("internal: the FADE version bed has no board".to_owned()))?;
    let link_rate = if rate_mbit > 0 {
        format!("{rate_mbit}m")
    } else {
        "10g".to_owned()
    };
    let mut recv = sw.bed.command(RECEIVER, &config.linerate)?;
    recv.cpu(RECEIVER_CPU)
        .args(["fade", "recv", "--interface", &sw.receiver_iface])
        .args(["--version", version, "--link-rate", &link_rate])
        .args(["--verify", "--json", "--cpu"])
        .arg(RECEIVER_CPU.to_string())
        .arg("--duration")
        .arg(format!("{:.1}", duration.as_secs_f64()))
        .arg("--feb")
        .arg(sw.bed.mac(board)?.to_string());
    let recv = Running::spawn(recv, dir, "fade-recv")?;
    crate::stop::pause(Duration::from_millis(300))?;
    let iface = sw.bed.iface(board)?.name.clone();
    let mut feb = sw.bed.command(board, &config.linerate)?;
    feb.cpu(SENDER_CPU).args([
        "fade",
        "feb",
        "--interface",
        &iface,
        "--version",
        version,
        "--json",
    ]);
    if rate_mbit > 0 {
        feb.args(["--rate", BOARD_RATE]);
    }
    let feb = Running::spawn(feb, dir, "fade-feb")?;
    crate::stop::pause(t.settle)?;
    let w = window::measure(&sw.bed, RECEIVER, &sw.receiver_iface, t.window)?;
    let recv = recv.wait(duration + Duration::from_secs(30))?;
    let _ = feb.stop(Duration::from_secs(3));
    read_receiver(&recv, &w, run)
}
