//! `linerate doctor`: checks the host against what a stream needs and
//! prints the commands that fix what is short.
//!
//! Socket buffer limits, the backlog, MTU, offloads, interrupt coalescing,
//! the CPU frequency governor, IRQ affinity and RPS — the settings Allied
//! Vision's TCP paper and the APDCAM-10G study had to change before their streams stopped losing data.
//! Reading is in [`facts`], judging in [`checks`] (pure, unit-tested).

use std::net::Ipv4Addr;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;

pub use linerate_doctor::{checks, facts};

use checks::{any_failed, run_checks, Check, Need, Status};
use facts::Facts;

/// Exit status when at least one check failed (0: none failed; 1: doctor
/// itself could not run; 2: bad arguments).
pub const EXIT_CHECK_FAILED: i32 = 3;

/// Stream rate assumed when neither `--gbit-per-s` nor a link speed says.
const DEFAULT_GBIT_PER_S: f64 = 10.0;

/// Arguments of `linerate doctor`.
#[derive(Debug, Args)]
#[command(after_help = "\
Each check prints ok, warn, FAIL or unknown, the value found, what the stream needs, why, \
and the command that fixes it. Exit status: 0 when no check failed, 3 when one did, \
1 when doctor could not run, 2 on bad arguments.

Examples:
  linerate doctor --camera 169.254.0.2 --gbit-per-s 4.3 --cpu 1
  linerate doctor --interface eth1 --json")]
pub struct DoctorArgs {
    /// The interface the stream arrives on, by name (eth1) or by one of its
    /// IPv4 addresses.
    #[arg(long, short = 'i', value_name = "IF", conflicts_with = "camera",
          value_parser = crate::interface_arg::name)]
    pub interface: Option<String>,
    /// Check the interface that routes to this camera (or board) address.
    #[arg(long, value_name = "IP")]
    pub camera: Option<Ipv4Addr>,
    /// Stream rate to check for, in Gbit/s, 0.001..=1000 [default: the link
    /// speed, or 10].
    #[arg(long, value_name = "R", value_parser = crate::arg_range::float_in(0.001..=1000.0))]
    pub gbit_per_s: Option<f64>,
    /// CPU the receive thread will be pinned to (`grab --cpu`): IRQs and
    /// RPS should stay off it. 0..=4095 (0 is the first CPU).
    #[arg(long, value_name = "N", value_parser = crate::arg_range::online_cpu())]
    pub cpu: Option<usize>,
    /// One JSON object with a `checks` array instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// The `--json` output.
#[derive(Debug, Serialize)]
pub struct DoctorReport {
    /// Interface checked, if any.
    pub interface: Option<String>,
    /// Stream rate the checks assumed, Gbit/s.
    pub gbit_per_s: f64,
    /// Where the rate came from: "argument", "link speed" or "default".
    pub rate_source: &'static str,
    /// Receive thread CPU checked against, if given.
    pub receive_cpu: Option<usize>,
    /// One entry per check.
    pub checks: Vec<Check>,
    /// Checks per verdict.
    pub ok: usize,
    /// Checks that warn.
    pub warn: usize,
    /// Checks that failed.
    pub fail: usize,
    /// Checks that could not be made.
    pub unknown: usize,
}

/// Runs `linerate doctor`.
pub fn run(args: DoctorArgs) -> Result<()> {
    let report = diagnose(&args)?;
    if args.json {
        crate::json_println!("{}", serde_json::to_string(&report)?);
    } else {
        print_table(&report);
    }
    if any_failed(&report.checks) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        std::process::exit(EXIT_CHECK_FAILED);
    }
    Ok(())
}

/// Reads the live host and runs every check.
pub fn diagnose(args: &DoctorArgs) -> Result<DoctorReport> {
    if let Some(r) = args.gbit_per_s {
        anyhow::ensure!(
            r.is_finite() && r > 0.0,
            "--gbit-per-s must be a positive rate, not {r}"
        );
    }
    let interface = match (&args.interface, args.camera) {
        (Some(i), _) => {
            linerate_io::netdev::offloads(i)
                .ok()
                .filter(|o| o.mtu > 0)
                .with_context(|| format!("no interface {i:?} in this network namespace"))?;
            Some(i.clone())
        }
        (None, Some(ip)) => Some(
            linerate_io::netdev::Link::towards(ip)
                .with_context(|| format!("finding the interface that reaches {ip}"))?
                .name,
        ),
        (None, None) => None,
    };
    let facts = Facts::probe(interface.as_deref());
    let speed = facts
        .link
        .as_ref()
        .and_then(|l| l.speed_mbps)
        .map(|m| m as f64 / 1000.0);
    let (gbit_per_s, rate_source) = match (args.gbit_per_s, speed) {
        (Some(r), _) => (r, "argument"),
        (None, Some(s)) => (s, "link speed"),
        (None, None) => (DEFAULT_GBIT_PER_S, "default"),
    };
    if let Some(cpu) = args.cpu {
        anyhow::ensure!(
            facts.cpus == 0 || cpu < facts.cpus,
            "--cpu {cpu}: this host has {} CPUs online",
            facts.cpus
        );
    }
    let checks = run_checks(
        &facts,
        &Need {
            gbit_per_s,
            receive_cpu: args.cpu,
        },
    );
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    Ok(DoctorReport {
        interface,
        gbit_per_s,
        rate_source,
        receive_cpu: args.cpu,
        ok: count(Status::Ok),
        warn: count(Status::Warn),
        fail: count(Status::Fail),
        unknown: count(Status::Unknown),
        checks,
    })
}

fn print_table(r: &DoctorReport) {
    println!(
        "linerate doctor: {} at {:.1} Gbit/s ({}){}",
        r.interface.as_deref().unwrap_or("no interface"),
        r.gbit_per_s,
        r.rate_source,
        r.receive_cpu
            .map_or(String::new(), |c| format!(", receive thread on CPU {c}"))
    );
    println!();
    let w_name = r.checks.iter().map(|c| c.name.len()).max().unwrap_or(5);
    let w_value = r
        .checks
        .iter()
        .map(|c| c.value.chars().count())
        .max()
        .unwrap_or(5)
        .min(40);
    println!(
        "{:<7}  {:<w_name$}  {:<w_value$}  NEEDED",
        "STATUS", "CHECK", "VALUE"
    );
    for c in &r.checks {
        println!(
            "{:<7}  {:<w_name$}  {:<w_value$}  {}",
            c.status.word(),
            c.name,
            c.value,
            c.needed
        );
    }
    let todo: Vec<&Check> = r
        .checks
        .iter()
        .filter(|c| matches!(c.status, Status::Fail | Status::Warn))
        .collect();
    let unchecked: Vec<&Check> = r
        .checks
        .iter()
        .filter(|c| c.status == Status::Unknown)
        .collect();
    if !unchecked.is_empty() {
        println!();
        println!("Not checked:");
        for c in unchecked {
            println!(
                "  {}: {}",
                c.name,
                c.note.as_deref().unwrap_or("could not be read")
            );
        }
    }
    if !todo.is_empty() {
        println!();
        println!("To fix:");
        for c in todo {
            println!("  {} ({}): {}", c.name, c.status.word(), c.why);
            if let Some(f) = &c.fix {
                println!("      {f}");
            }
        }
    }
    println!();
    println!(
        "{} ok, {} warn, {} fail, {} unknown{}",
        r.ok,
        r.warn,
        r.fail,
        r.unknown,
        if r.fail > 0 {
            " — fix the failures before acquiring"
        } else {
            ""
        }
    );
}
