//! GVCP discovery: broadcast (or unicast) a discovery command and collect
//! every device's answer within a wait time.

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

use linerate_wire::gvcp::{self, Ack, AckPacket, AckRepr, Command, CommandRepr, DiscoveryAck};

use crate::error::{Error, Result};

/// One device that answered discovery.
#[derive(Debug, Clone)]
pub struct Found {
    /// Where the answer came from.
    pub from: SocketAddrV4,
    /// What the device said about itself.
    pub ack: DiscoveryAck,
}

/// Sends a discovery command from `local` (any interface when `None`) to
/// `target` (limited broadcast when `None`) and returns the devices that
/// answered within `wait`, by IP address.
pub fn discover(
    local: Option<Ipv4Addr>,
    target: Option<Ipv4Addr>,
    wait: Duration,
) -> Result<BTreeMap<Ipv4Addr, Found>> {
    let bind = SocketAddrV4::new(local.unwrap_or(Ipv4Addr::UNSPECIFIED), 0);
    let to = SocketAddrV4::new(target.unwrap_or(Ipv4Addr::BROADCAST), gvcp::PORT);
    let err = |op| {
        move |source| Error::Socket {
            op,
            addr: to,
            source,
        }
    };
    let sock = UdpSocket::bind(bind).map_err(err("bind discovery socket"))?;
    sock.set_broadcast(true).map_err(err("SO_BROADCAST"))?;
    let request = CommandRepr::new(Command::Discovery, 1)
        .to_vec()
        .map_err(|e| Error::BadSetting {
            what: "discovery command",
            value: "DISCOVERY_CMD".into(),
            why: e.to_string(),
        })?;
    sock.send_to(&request, to).map_err(err(
        "send discovery (is there a route? give the interface address)",
    ))?;
    let mut found = BTreeMap::new();
    let deadline = Instant::now() + wait;
    let mut buf = [0u8; 1024];
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        sock.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .map_err(err("SO_RCVTIMEO"))?;
        let Ok((n, SocketAddr::V4(from))) = sock.recv_from(&mut buf) else {
            break;
        };
        // Other hosts' traffic can reach a broadcast socket: keep only discovery acks.
        let ack = buf.get(..n).and_then(|b| {
            AckPacket::new_checked(b)
                .and_then(|p| AckRepr::parse(&p))
                .ok()
        });
        if let Some(AckRepr {
            ack: Ack::Discovery(d),
            ..
        }) = ack
        {
            found.insert(*from.ip(), Found { from, ack: *d });
        }
    }
    Ok(found)
}

/// Resolves `target` — an IPv4 address, or a serial number or user-defined
/// name found by broadcast discovery from `local` — to the device's address.
pub fn resolve(target: &str, local: Option<Ipv4Addr>, wait: Duration) -> Result<Ipv4Addr> {
    if let Ok(ip) = target.parse::<Ipv4Addr>() {
        return Ok(ip);
    }
    let found = discover(local, None, wait)?;
    found
        .values()
        .find(|f| {
            f.ack.serial.to_string_lossy() == target || f.ack.user_name.to_string_lossy() == target
        })
        .map(|f| *f.from.ip())
        .ok_or_else(|| Error::NotFound(target.to_string()))
}
