//! `linerate discover`: find GigE Vision devices on the local network.
//!
//! Sends a GVCP discovery command to the limited broadcast address (and,
//! with --interface, from that interface's address) and lists every device
//! that answers within the wait time.

use std::net::Ipv4Addr;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use linerate_grab::discovery;

/// Arguments of `linerate discover`.
#[derive(Debug, Args)]
pub struct DiscoverArgs {
    /// Local IPv4 address to send from (default: any; the kernel picks the
    /// interface of the default broadcast route).
    #[arg(long)]
    interface: Option<Ipv4Addr>,
    /// Ask this address directly instead of broadcasting.
    #[arg(long)]
    address: Option<Ipv4Addr>,
    /// How long to wait for answers, in milliseconds, 1..=60000.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    wait_ms: u64,
    /// Print one JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `linerate discover`.
pub fn run(args: DiscoverArgs) -> Result<()> {
    let found = discovery::discover(
        args.interface,
        args.address,
        Duration::from_millis(args.wait_ms),
    )
    .context("GigE Vision discovery")?;
    if args.json {
        let list: Vec<_> = found
            .values()
            .map(|f| {
                serde_json::json!({
                    "ip": f.ack.current_ip.to_string(),
                    "answered_from": f.from.to_string(),
                    "mac": f.ack.mac.to_string(),
                    "vendor": f.ack.manufacturer.to_string_lossy(),
                    "model": f.ack.model.to_string_lossy(),
                    "version": f.ack.device_version.to_string_lossy(),
                    "serial": f.ack.serial.to_string_lossy(),
                    "user_name": f.ack.user_name.to_string_lossy(),
                    "spec_version": format!("{}.{}", f.ack.spec_major, f.ack.spec_minor),
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(list));
    } else if found.is_empty() {
        eprintln!("no GigE Vision device answered within {} ms", args.wait_ms);
    } else {
        println!(
            "{:<16} {:<18} {:<16} {:<28} serial",
            "ip", "mac", "vendor", "model"
        );
        for f in found.values() {
            println!(
                "{:<16} {:<18} {:<16} {:<28} {}",
                f.ack.current_ip.to_string(),
                f.ack.mac.to_string(),
                f.ack.manufacturer.to_string_lossy(),
                f.ack.model.to_string_lossy(),
                f.ack.serial.to_string_lossy()
            );
        }
    }
    Ok(())
}
