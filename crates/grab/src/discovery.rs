//! GVCP discovery: broadcast (or unicast) a discovery command and collect
//! every device's answer within a wait time.
//!
//! Broadcasts go out once per interface, from a socket tied to that device
//! (as Aravis does), so a camera on any attached network answers, not only
//! one behind the default route, and discovery works with no default route
//! at all. Each device found says which interface it answered on, and
//! whether its address is on that interface's subnet (if not, the host
//! cannot talk to it until it is given an address there).

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

use linerate_io::interfaces::{self, Ipv4Interface};
use linerate_wire::gvcp::{self, Ack, AckPacket, AckRepr, Command, CommandRepr, DiscoveryAck};

use crate::error::{Error, Result};

/// One device that answered discovery.
#[derive(Debug, Clone)]
pub struct Found {
    /// Where the answer came from.
    pub from: SocketAddrV4,
    /// What the device said about itself.
    pub ack: DiscoveryAck,
    /// The interface the answer came in on (`None` for a unicast discovery
    /// whose local interface could not be told).
    pub interface: Option<Ipv4Interface>,
}

impl Found {
    /// Whether the device's address is on the subnet of the interface it
    /// answered on, so the host can control it without a router. A device
    /// that answers a broadcast from another subnet needs a new address
    /// (GVCP FORCEIP, or its own configuration tool) before it can be used.
    pub fn reachable(&self) -> bool {
        self.interface
            .as_ref()
            .map_or(true, |i| i.same_subnet(self.ack.current_ip))
    }
}

/// Where to look for devices.
#[derive(Debug, Clone)]
pub enum Scope {
    /// Broadcast on every interface that is up and can broadcast.
    AllInterfaces,
    /// Broadcast on one interface only.
    Interface(Ipv4Interface),
    /// Ask one address directly, from `local` (any interface when `None`).
    Unicast {
        /// The device's address.
        target: Ipv4Addr,
        /// The local address to send from.
        local: Option<Ipv4Addr>,
    },
}

impl Scope {
    /// The scope the command line describes: `interface` is an interface
    /// name or one of its IPv4 addresses, `target` a device address to ask
    /// directly.
    pub fn from_args(interface: Option<&str>, target: Option<Ipv4Addr>) -> Result<Scope> {
        let iface = interface.map(interfaces::find_ipv4_interface).transpose()?;
        Ok(match (target, iface) {
            (Some(target), iface) => Scope::Unicast {
                target,
                local: iface.map(|i| i.address),
            },
            (None, Some(i)) => Scope::Interface(i),
            (None, None) => Scope::AllInterfaces,
        })
    }
}

/// Sends a discovery command from `local` (every interface when `None`) to
/// `target` (a broadcast on each interface when `None`) and returns the
/// devices that answered within `wait`, by IP address.
pub fn discover(
    local: Option<Ipv4Addr>,
    target: Option<Ipv4Addr>,
    wait: Duration,
) -> Result<BTreeMap<Ipv4Addr, Found>> {
    let local = local.map(|ip| ip.to_string());
    discover_in(&Scope::from_args(local.as_deref(), target)?, wait)
}

/// Discovers the devices in `scope` that answer within `wait`, by IP address.
pub fn discover_in(scope: &Scope, wait: Duration) -> Result<BTreeMap<Ipv4Addr, Found>> {
    match scope {
        Scope::Unicast { target, local } => unicast(*local, *target, wait),
        Scope::Interface(i) => broadcast(std::slice::from_ref(i), wait),
        Scope::AllInterfaces => {
            let list = interfaces::ipv4_interfaces()
                .map_err(|source| Error::Io(linerate_io::Error::InterfaceList { source }))?;
            let list: Vec<_> = list.into_iter().filter(|i| i.broadcasts()).collect();
            if list.is_empty() {
                return Err(Error::NoBroadcastInterface);
            }
            broadcast(&list, wait)
        }
    }
}

fn discovery_command() -> Result<Vec<u8>> {
    CommandRepr::new(Command::Discovery, 1)
        .to_vec()
        .map_err(|e| Error::BadSetting {
            what: "discovery command",
            value: "DISCOVERY_CMD".into(),
            why: e.to_string(),
        })
}

/// Broadcasts from one device-bound socket per interface and gathers the
/// answers of all of them in parallel until `wait` is over.
fn broadcast(list: &[Ipv4Interface], wait: Duration) -> Result<BTreeMap<Ipv4Addr, Found>> {
    let request = discovery_command()?;
    let to = SocketAddrV4::new(Ipv4Addr::BROADCAST, gvcp::PORT);
    let deadline = Instant::now() + wait;
    let mut sockets = Vec::new();
    let mut first_error = None;
    for iface in list {
        let sent = interfaces::broadcast_socket(iface)
            .map_err(Error::Io)
            .and_then(|s| {
                s.send_to(&request, to).map_err(|source| Error::Socket {
                    op: "send discovery broadcast",
                    addr: SocketAddrV4::new(iface.address, 0),
                    source,
                })?;
                Ok(s)
            });
        match sent {
            Ok(s) => sockets.push((s, iface)),
            Err(e) => {
                tracing::warn!(interface = %iface.name, error = %e, "discovery not sent on this interface");
                first_error.get_or_insert(e);
            }
        }
    }
    if sockets.is_empty() {
        return Err(first_error.unwrap_or(Error::NoBroadcastInterface));
    }
    let answers = std::thread::scope(|scope| {
        let threads: Vec<_> = sockets
            .iter()
            .map(|(s, iface)| scope.spawn(move || collect(s, Some(iface), deadline)))
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|_| Ok(Vec::new())))
            .collect::<Vec<_>>()
    });
    let mut found = BTreeMap::new();
    for list in answers {
        for f in list? {
            // A device seen on two interfaces is listed once, where it is
            // reachable if it is anywhere.
            let keep = found
                .get(f.from.ip())
                .map_or(true, |old: &Found| !old.reachable() && f.reachable());
            if keep {
                found.insert(*f.from.ip(), f);
            }
        }
    }
    Ok(found)
}

fn unicast(
    local: Option<Ipv4Addr>,
    target: Ipv4Addr,
    wait: Duration,
) -> Result<BTreeMap<Ipv4Addr, Found>> {
    unicast_to(local, SocketAddrV4::new(target, gvcp::PORT), wait)
}

/// Asks the device at `to` (any GVCP port) directly and returns whether it
/// answered within `wait`: a readiness check for a device that listens on
/// a port other than 3956, which a broadcast never reaches.
pub fn probe(to: SocketAddrV4, wait: Duration) -> Result<Option<Found>> {
    Ok(unicast_to(None, to, wait)?.into_values().next())
}

fn unicast_to(
    local: Option<Ipv4Addr>,
    to: SocketAddrV4,
    wait: Duration,
) -> Result<BTreeMap<Ipv4Addr, Found>> {
    let bind = SocketAddrV4::new(local.unwrap_or(Ipv4Addr::UNSPECIFIED), 0);
    let err = |op| {
        move |source| Error::Socket {
            op,
            addr: to,
            source,
        }
    };
    let sock = UdpSocket::bind(bind).map_err(err("bind discovery socket"))?;
    sock.send_to(&discovery_command()?, to)
        .map_err(err("send discovery (is there a route to the device?)"))?;
    let iface = sock
        .local_addr()
        .ok()
        .and_then(|a| match a {
            SocketAddr::V4(a) => Some(*a.ip()),
            SocketAddr::V6(_) => None,
        })
        .and_then(|ip| interfaces::find_ipv4_interface(&ip.to_string()).ok());
    let found = collect(&sock, iface.as_ref(), Instant::now() + wait)?;
    Ok(found.into_iter().map(|f| (*f.from.ip(), f)).collect())
}

/// Reads discovery acks from `sock` until `deadline`.
fn collect(
    sock: &UdpSocket,
    iface: Option<&Ipv4Interface>,
    deadline: Instant,
) -> Result<Vec<Found>> {
    let mut found = Vec::new();
    let mut buf = [0u8; 1024];
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        sock.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .map_err(|source| Error::Socket {
                op: "SO_RCVTIMEO",
                addr: SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0),
                source,
            })?;
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
            found.push(Found {
                from,
                ack: *d,
                interface: iface.cloned(),
            });
        }
    }
    Ok(found)
}

/// Resolves `target` to the device's GVCP address: `IP:PORT` for a device
/// on another GVCP port than 3956 (an emulated camera beside others on one
/// host), else what [`resolve`] accepts, on port 3956.
pub fn resolve_addr(target: &str, local: Option<Ipv4Addr>, wait: Duration) -> Result<SocketAddrV4> {
    match target.parse::<SocketAddrV4>() {
        Ok(addr) if addr.port() != 0 => return Ok(addr),
        // Digits, dots and a colon are an IP:PORT with a typo, not a serial.
        Ok(_) => {}
        Err(_) if !target.contains(':') => {
            return resolve(target, local, wait).map(|ip| SocketAddrV4::new(ip, gvcp::PORT))
        }
        Err(_) => {}
    }
    if target
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == ':')
    {
        return Err(Error::BadSetting {
            what: "device address",
            value: target.to_owned(),
            why: "not IPv4 address:port (port 1..=65535)".into(),
        });
    }
    resolve(target, local, wait).map(|ip| SocketAddrV4::new(ip, gvcp::PORT))
}

/// Resolves `target` — an IPv4 address, or a serial number or user-defined
/// name found by broadcast discovery from `local` (every interface when
/// `None`) — to the device's address.
pub fn resolve(target: &str, local: Option<Ipv4Addr>, wait: Duration) -> Result<Ipv4Addr> {
    match target.parse::<Ipv4Addr>() {
        Ok(ip) => return Ok(ip),
        // Digits and dots are an address with a typo, not a serial number.
        Err(e) if !target.is_empty() && target.chars().all(|c| c.is_ascii_digit() || c == '.') => {
            return Err(Error::BadSetting {
                what: "camera address",
                value: target.to_owned(),
                why: format!("not an IPv4 address ({e})"),
            })
        }
        Err(_) => {}
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_with_and_without_a_port_resolve_without_discovery() {
        let wait = Duration::from_millis(1);
        assert_eq!(
            resolve_addr("169.254.1.2", None, wait).expect("ip"),
            SocketAddrV4::new(Ipv4Addr::new(169, 254, 1, 2), gvcp::PORT)
        );
        assert_eq!(
            resolve_addr("127.0.0.1:40000", None, wait).expect("ip:port"),
            SocketAddrV4::new(Ipv4Addr::LOCALHOST, 40_000)
        );
        for typo in ["999.1.1.1", "127.0.0.1:0", "127.0.0.1:70000", "1.2.3:80"] {
            assert!(
                matches!(
                    resolve_addr(typo, None, wait),
                    Err(Error::BadSetting { ref value, .. }) if value == typo
                ),
                "{typo}"
            );
        }
    }
}
