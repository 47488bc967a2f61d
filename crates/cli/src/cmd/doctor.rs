//! `linerate doctor`: checks the host against what a stream needs and
//! prints the commands that fix what is short.
//!
//! The checks and the typed report are in `linerate_doctor`; this module
//! maps the arguments to its config and prints the table.

use std::net::Ipv4Addr;

use anyhow::Result;
use clap::Args;
use linerate_doctor::checks::{Check, Status};
use linerate_doctor::{DoctorConfig, DoctorReport};

/// Exit status when at least one check failed (0: none failed; 1: doctor
/// itself could not run; 2: bad arguments).
pub const EXIT_CHECK_FAILED: i32 = 3;

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

/// Runs `linerate doctor`.
pub fn run(args: DoctorArgs) -> Result<()> {
    let report = linerate_doctor::run(&DoctorConfig {
        interface: args.interface,
        camera: args.camera,
        gbit_per_s: args.gbit_per_s,
        receive_cpu: args.cpu,
    })?;
    if args.json {
        crate::json_println!("{}", serde_json::to_string(&report)?);
    } else {
        print_table(&report);
    }
    if report.any_failed() {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        std::process::exit(EXIT_CHECK_FAILED);
    }
    Ok(())
}

fn print_table(r: &DoctorReport) {
    println!(
        "linerate doctor: {} at {:.1} Gbit/s ({}){}",
        r.interface.as_deref().unwrap_or("no interface"),
        r.gbit_per_s,
        r.rate_source.word(),
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
