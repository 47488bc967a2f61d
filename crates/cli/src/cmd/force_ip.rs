//! `linerate force-ip`: give a GigE Vision device, found by its MAC, a new
//! IPv4 address with GVCP FORCEIP, then check with discovery that it
//! answers there. This is how a device on a subnet this host cannot reach
//! (which `linerate discover` warns about) is brought onto the host's.

use std::net::Ipv4Addr;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use linerate_grab::discovery::{self, Scope};
use linerate_grab::force_ip;
use linerate_wire::ethernet::MacAddr;
use linerate_wire::gvcp::ForceIp;
use linerate_wire::Status;

/// Arguments of `linerate force-ip`.
#[derive(Debug, Args)]
pub struct ForceIpArgs {
    /// The device's MAC address, as `linerate discover` shows it (02:4c:52:00:00:01).
    #[arg(value_name = "MAC", value_parser = parse_mac)]
    mac: MacAddr,
    /// The address to give it (0.0.0.0: let it restart its own IP configuration).
    #[arg(value_name = "IPV4")]
    ip: Ipv4Addr,
    /// Subnet mask (default: that of the local interface whose subnet holds IPV4).
    #[arg(long)]
    mask: Option<Ipv4Addr>,
    /// Default gateway (default: none, 0.0.0.0).
    #[arg(long, default_value_t = Ipv4Addr::UNSPECIFIED)]
    gateway: Ipv4Addr,
    /// Broadcast only on this interface, given by name (eth0) or by one of
    /// its IPv4 addresses (default: every interface that is up).
    #[arg(long, value_name = "NAME|IPV4")]
    interface: Option<String>,
    /// How long to wait for the device's ack and then for it to answer
    /// discovery at the new address, in milliseconds, 1..=60000.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    wait_ms: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn parse_mac(s: &str) -> Result<MacAddr, String> {
    s.parse::<MacAddr>()
        .map_err(|_| format!("{s:?} is not a MAC address (six hex pairs: 02:4c:52:00:00:01)"))
}

/// Runs `linerate force-ip`. With `--json`, prints one object whatever
/// happens: the outcome, or `{"error": ..., "ok": false}` when it failed
/// before the device could be checked.
pub fn run(args: ForceIpArgs) -> Result<()> {
    let mut printed = false;
    let result = force(&args, &mut printed);
    if let Err(e) = &result {
        if args.json && !printed {
            crate::json_println!(
                "{}",
                serde_json::json!({ "error": format!("{e:#}"), "ok": false })
            );
        }
    }
    result
}

fn force(args: &ForceIpArgs, printed: &mut bool) -> Result<()> {
    let scope = Scope::from_args(args.interface.as_deref(), None).context("FORCEIP")?;
    let mask = match args.mask {
        Some(m) => m,
        None if args.ip.is_unspecified() => Ipv4Addr::UNSPECIFIED,
        None => match force_ip::mask_for(&scope, args.ip) {
            Some((_, mask)) => mask,
            None => bail!(
                "{} is on the subnet of no local interface{}: give --mask (and --interface) to \
                 put the device on another subnet",
                args.ip,
                args.interface
                    .as_deref()
                    .map_or(String::new(), |i| format!(" ({i})"))
            ),
        },
    };
    let command = ForceIp {
        mac: args.mac,
        ip: args.ip,
        subnet_mask: mask,
        gateway: args.gateway,
    };
    let wait = Duration::from_millis(args.wait_ms);
    let ack = force_ip::force_ip(&scope, command, 3, wait / 3).context("FORCEIP")?;
    if let Some(a) = ack.as_ref().filter(|a| a.status != Status::SUCCESS) {
        let why = match a.status {
            Status::ACCESS_DENIED => " (a host controls it: close that application first)",
            Status::INVALID_PARAMETER => " (it cannot use that address or mask)",
            _ => "",
        };
        bail!(
            "device {} refused FORCEIP to {}/{}: {}{why}",
            args.mac,
            args.ip,
            mask,
            a.status
        );
    }
    // Whatever the ack, the proof is the device answering at its new address.
    let found = discovery::discover_in(&scope, wait).context("discovery after FORCEIP")?;
    let device = found.values().find(|f| f.ack.mac == args.mac);
    // Where it really answers from, not only what it reports.
    let now_at = device.map(|f| *f.from.ip());
    let reports = device.map(|f| f.ack.current_ip);
    let ok = args.ip.is_unspecified() || (now_at == Some(args.ip) && reports == Some(args.ip));
    let failure = match (ok, now_at) {
        (true, _) => None,
        (false, Some(old)) => Some(format!(
            "device {} still answers at {old} (it reports {}), not at {}{}",
            args.mac,
            reports.map_or("nothing".into(), |ip| ip.to_string()),
            args.ip,
            if ack.is_some() {
                " although it acknowledged: it has not moved to the new address (yet)"
            } else {
                " (no FORCEIP ack either)"
            }
        )),
        (false, None) => Some(format!(
            "device {} did not answer discovery after FORCEIP to {}{}",
            args.mac,
            args.ip,
            if ack.is_some() {
                " (it acknowledged: it may need longer to move)"
            } else {
                " (and sent no ack: check the MAC and the interface)"
            }
        )),
    };
    if args.json {
        crate::json_println!(
            "{}",
            serde_json::json!({
                "mac": args.mac.to_string(),
                "ip": args.ip.to_string(),
                "mask": mask.to_string(),
                "gateway": args.gateway.to_string(),
                "ack": ack.as_ref().map(|a| a.status.to_string()),
                "ack_from": ack.as_ref().map(|a| a.from.to_string()),
                "answers_at": now_at.map(|ip| ip.to_string()),
                "reports_ip": reports.map(|ip| ip.to_string()),
                "reachable": device.map(|f| f.reachable()),
                "interface": device.and_then(|f| f.interface.as_ref().map(|i| i.name.clone())),
                "error": failure,
                "ok": ok,
            })
        );
        *printed = true;
    }
    match failure {
        Some(why) => bail!(why),
        None => {
            if !args.json {
                let at = now_at.map_or("unknown".into(), |ip| ip.to_string());
                println!("device {} now answers at {at} (mask {mask})", args.mac);
            }
            Ok(())
        }
    }
}
