//! `linerate discover`: find GigE Vision devices on the local network.
//!
//! Broadcasts a GVCP discovery command on every interface that is up (or on
//! the one given with --interface), or asks one address directly with
//! --address, and lists every device that answers within the wait time,
//! with the interface it answered on.

use std::net::Ipv4Addr;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use linerate_grab::discovery::{self, Found, Scope};

/// Arguments of `linerate discover`.
#[derive(Debug, Args)]
pub struct DiscoverArgs {
    /// Broadcast only on this interface, given by name (eth0) or by one of
    /// its IPv4 addresses (default: every interface that is up).
    #[arg(long, value_name = "NAME|IPV4")]
    interface: Option<String>,
    /// Ask this address directly instead of broadcasting.
    #[arg(long)]
    address: Option<Ipv4Addr>,
    /// How long to wait for answers, in milliseconds, 1..=60000.
    #[arg(long, default_value_t = 500, value_parser = crate::arg_range::u64_in(1..=60_000))]
    wait_ms: u64,
    /// Print one JSON object (`devices`: one entry per device) instead of
    /// a table.
    #[arg(long)]
    json: bool,
}

/// Runs `linerate discover`.
pub fn run(args: DiscoverArgs) -> Result<()> {
    let scope = Scope::from_args(args.interface.as_deref(), args.address)
        .context("GigE Vision discovery")?;
    let found = discovery::discover_in(&scope, Duration::from_millis(args.wait_ms))
        .context("GigE Vision discovery")?;
    if args.json {
        let list: Vec<_> = found.values().map(json).collect();
        let scope_text = match &scope {
            Scope::AllInterfaces => "every interface".to_owned(),
            Scope::Interface(i) => format!("{} ({})", i.name, i.address),
            Scope::Unicast { target, .. } => target.to_string(),
        };
        crate::json_println!(
            "{}",
            serde_json::json!({
                "ok": true,
                "scope": scope_text,
                "wait_ms": args.wait_ms,
                "devices": list,
            })
        );
    } else if found.is_empty() {
        let where_ = match &scope {
            Scope::AllInterfaces => "on any interface".to_owned(),
            Scope::Interface(i) => format!("on {} ({})", i.name, i.address),
            Scope::Unicast { target, .. } => format!("at {target}"),
        };
        eprintln!(
            "no GigE Vision device answered {where_} within {} ms",
            args.wait_ms
        );
    } else {
        println!(
            "{:<16} {:<18} {:<10} {:<16} {:<28} serial",
            "ip", "mac", "interface", "vendor", "model"
        );
        for f in found.values() {
            println!(
                "{:<16} {:<18} {:<10} {:<16} {:<28} {}",
                f.ack.current_ip.to_string(),
                f.ack.mac.to_string(),
                f.interface.as_ref().map_or("-", |i| i.name.as_str()),
                f.ack.manufacturer.to_string_lossy(),
                f.ack.model.to_string_lossy(),
                f.ack.serial.to_string_lossy()
            );
        }
        for f in found.values().filter(|f| !f.reachable()) {
            if let Some(i) = &f.interface {
                let suggested = linerate_grab::force_ip::suggest_address(i, f.ack.current_ip);
                eprintln!(
                    "warning: {} ({}) answered on {} but its address is not on that interface's subnet {}/{}: \
                     this host cannot control it until the device gets an address in that subnet; \
                     give it one (check first that no one uses it) with:\n  \
                     linerate force-ip {} {suggested} --mask {} --interface {}",
                    f.ack.current_ip,
                    f.ack.mac,
                    i.name,
                    i.address,
                    i.prefix_len(),
                    f.ack.mac,
                    i.netmask,
                    i.name
                );
            }
        }
    }
    Ok(())
}

/// One device as a JSON object.
fn json(f: &Found) -> serde_json::Value {
    serde_json::json!({
        "ip": f.ack.current_ip.to_string(),
        "answered_from": f.from.to_string(),
        "interface": f.interface.as_ref().map(|i| i.name.clone()),
        "interface_ip": f.interface.as_ref().map(|i| i.address.to_string()),
        "reachable": f.reachable(),
        // For a device this host cannot reach: the command that fixes it.
        "force_ip_command": f.interface.as_ref().filter(|_| !f.reachable()).map(|i| format!(
            "linerate force-ip {} {} --mask {} --interface {}",
            f.ack.mac,
            linerate_grab::force_ip::suggest_address(i, f.ack.current_ip),
            i.netmask,
            i.name
        )),
        "mac": f.ack.mac.to_string(),
        "vendor": f.ack.manufacturer.to_string_lossy(),
        "model": f.ack.model.to_string_lossy(),
        "version": f.ack.device_version.to_string_lossy(),
        "serial": f.ack.serial.to_string_lossy(),
        "user_name": f.ack.user_name.to_string_lossy(),
        "spec_version": format!("{}.{}", f.ack.spec_major, f.ack.spec_minor),
    })
}
