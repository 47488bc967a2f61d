//! `linerate discover`: find GigE Vision devices on the local network.
//!
//! Sends a GVCP discovery command to the limited broadcast address (and,
//! with --interface, from that interface's address) and lists every device
//! that answers within the wait time.

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use linerate_wire::gvcp::{self, Ack, AckPacket, AckRepr, Command, CommandRepr, DiscoveryAck};

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
    /// How long to wait for answers, in milliseconds.
    #[arg(long, default_value_t = 500)]
    wait_ms: u64,
    /// Print one JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

/// One device that answered.
struct Found {
    from: SocketAddrV4,
    ack: DiscoveryAck,
}

/// Runs `linerate discover`.
pub fn run(args: DiscoverArgs) -> Result<()> {
    let local = SocketAddrV4::new(args.interface.unwrap_or(Ipv4Addr::UNSPECIFIED), 0);
    let sock = UdpSocket::bind(local).with_context(|| format!("cannot bind {local}"))?;
    sock.set_broadcast(true).context("SO_BROADCAST")?;
    let target = SocketAddrV4::new(args.address.unwrap_or(Ipv4Addr::BROADCAST), gvcp::PORT);
    let request = CommandRepr::new(Command::Discovery, 1)
        .to_vec()
        .context("encoding discovery")?;
    sock.send_to(&request, target).with_context(|| {
        format!("cannot send discovery to {target} (is there a route? try --interface)")
    })?;

    let mut found: BTreeMap<Ipv4Addr, Found> = BTreeMap::new();
    let deadline = Instant::now() + Duration::from_millis(args.wait_ms);
    let mut buf = [0u8; 1024];
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        sock.set_read_timeout(Some(left.max(Duration::from_millis(1))))?;
        let Ok((n, SocketAddr::V4(from))) = sock.recv_from(&mut buf) else {
            break;
        };
        // Anything that is not a discovery ack is ignored: other hosts'
        // traffic can reach a broadcast-enabled socket too.
        let ack = AckPacket::new_checked(&buf[..n]).and_then(|p| AckRepr::parse(&p));
        if let Ok(AckRepr {
            ack: Ack::Discovery(d),
            ..
        }) = ack
        {
            found.insert(*from.ip(), Found { from, ack: *d });
        }
    }

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
