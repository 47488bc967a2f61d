//! GVCP FORCEIP: give a device, addressed by its MAC, a new IPv4
//! configuration. It is broadcast (the device may sit on a subnet this host
//! cannot route to, which is why it is needed), once per interface, from a
//! socket tied to that interface, and asks for a broadcast ack.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

use linerate_io::interfaces::{self, Ipv4Interface};
use linerate_wire::gvcp::{self, flags, Ack, AckPacket, AckRepr, Command, CommandRepr, ForceIp};
use linerate_wire::Status;

use crate::discovery::Scope;
use crate::error::{Error, Result};

/// The answer to a FORCEIP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForceIpAck {
    /// The device's status: SUCCESS, or why it refused (ACCESS_DENIED while
    /// a host controls it, INVALID_PARAMETER for an unusable address).
    pub status: Status,
    /// Where the ack came from (the device's old or new address).
    pub from: SocketAddrV4,
    /// The interface it came in on.
    pub interface: String,
}

/// Broadcasts FORCEIP for `mac` on the interfaces of `scope` (every
/// interface that can broadcast for [`Scope::AllInterfaces`]; a unicast
/// scope is refused: FORCEIP is a broadcast) up to `attempts` times, each
/// waiting `wait` for an ack. Returns the first ack, or `None` when none
/// came: a device can apply the address and still fail to answer (it may
/// have no route back from its new address), so check with discovery.
pub fn force_ip(
    scope: &Scope,
    command: ForceIp,
    attempts: u32,
    wait: Duration,
) -> Result<Option<ForceIpAck>> {
    let list = match scope {
        Scope::Interface(i) => vec![i.clone()],
        Scope::AllInterfaces => interfaces::ipv4_interfaces()
            .map_err(|source| Error::Io(linerate_io::Error::InterfaceList { source }))?
            .into_iter()
            .filter(Ipv4Interface::broadcasts)
            .collect(),
        Scope::Unicast { target, .. } => {
            return Err(Error::BadSetting {
                what: "FORCEIP destination",
                value: target.to_string(),
                why: "FORCEIP is broadcast and addressed by MAC; give an interface instead".into(),
            })
        }
    };
    if list.is_empty() {
        return Err(Error::NoBroadcastInterface);
    }
    let request_id = 0x4f1c;
    let datagram = CommandRepr {
        flags: flags::ACK_REQUIRED | flags::ALLOW_BROADCAST_ACK,
        ..CommandRepr::new(Command::ForceIp(command), request_id)
    }
    .to_vec()
    .map_err(|e| Error::BadSetting {
        what: "FORCEIP command",
        value: format!("{} -> {}", command.mac, command.ip),
        why: e.to_string(),
    })?;
    let mut sockets = Vec::new();
    for iface in &list {
        sockets.push((
            interfaces::broadcast_socket(iface).map_err(Error::Io)?,
            iface,
        ));
    }
    let to = SocketAddrV4::new(Ipv4Addr::BROADCAST, gvcp::PORT);
    for _ in 0..attempts.max(1) {
        for (s, iface) in &sockets {
            s.send_to(&datagram, to).map_err(|source| Error::Socket {
                op: "send FORCEIP broadcast",
                addr: SocketAddrV4::new(iface.address, 0),
                source,
            })?;
        }
        let deadline = Instant::now() + wait;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            // Share the wait between the sockets; an ack stays queued.
            let slice = (left / sockets.len() as u32).max(Duration::from_millis(1));
            for (s, iface) in &sockets {
                if let Some(ack) = read_ack(s, slice, request_id, iface)? {
                    return Ok(Some(ack));
                }
            }
        }
    }
    Ok(None)
}

/// Reads one datagram within `wait`; the FORCEIP ack with our id, if it is one.
fn read_ack(
    s: &UdpSocket,
    wait: Duration,
    request_id: u16,
    iface: &Ipv4Interface,
) -> Result<Option<ForceIpAck>> {
    s.set_read_timeout(Some(wait))
        .map_err(|source| Error::Socket {
            op: "SO_RCVTIMEO",
            addr: SocketAddrV4::new(iface.address, 0),
            source,
        })?;
    let mut buf = [0u8; 1024];
    let Ok((n, SocketAddr::V4(from))) = s.recv_from(&mut buf) else {
        return Ok(None);
    };
    let ack = buf.get(..n).and_then(|b| {
        AckPacket::new_checked(b)
            .and_then(|p| AckRepr::parse(&p))
            .ok()
    });
    Ok(match ack {
        Some(AckRepr {
            status,
            ack_id,
            ack:
                Ack::Bye
                | Ack::Bare {
                    answer: gvcp::code::FORCEIP_ACK,
                },
        }) if ack_id == request_id => Some(ForceIpAck {
            status,
            from,
            interface: iface.name.clone(),
        }),
        _ => None,
    })
}

/// The address to suggest for a device at `device_ip` that answered on
/// `iface` from another subnet: the device's host part in the interface's
/// subnet, moved off the network, broadcast and host's own address. The
/// caller must still make sure no one else uses it.
pub fn suggest_address(iface: &Ipv4Interface, device_ip: Ipv4Addr) -> Ipv4Addr {
    let mask = u32::from(iface.netmask);
    let network = u32::from(iface.address) & mask;
    let broadcast = network | !mask;
    let mut candidate = network | (u32::from(device_ip) & !mask);
    for _ in 0..4 {
        if candidate != network && candidate != broadcast && candidate != u32::from(iface.address) {
            break;
        }
        candidate = network | (candidate.wrapping_add(1) & !mask);
    }
    Ipv4Addr::from(candidate)
}

/// The mask to give a device at `ip` by default: that of the interface
/// whose subnet holds `ip`.
pub fn mask_for(scope: &Scope, ip: Ipv4Addr) -> Option<(Ipv4Interface, Ipv4Addr)> {
    let candidates = match scope {
        Scope::Interface(i) => vec![i.clone()],
        _ => interfaces::ipv4_interfaces().ok()?,
    };
    candidates
        .into_iter()
        .find(|i| i.broadcasts() && i.same_subnet(ip))
        .map(|i| {
            let mask = i.netmask;
            (i, mask)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iface(address: [u8; 4], prefix: u32) -> Ipv4Interface {
        Ipv4Interface {
            name: "eth0".into(),
            address: address.into(),
            netmask: Ipv4Addr::from(u32::MAX << (32 - prefix)),
            up: true,
            broadcast: true,
            loopback: false,
        }
    }

    #[test]
    fn suggested_addresses_are_on_the_subnet_and_usable() {
        let i = iface([169, 254, 1, 3], 24);
        assert_eq!(
            suggest_address(&i, [169, 254, 7, 1].into()),
            Ipv4Addr::new(169, 254, 1, 1)
        );
        // Not the host's own address, nor the network or broadcast address.
        assert_eq!(
            suggest_address(&i, [10, 0, 0, 3].into()),
            Ipv4Addr::new(169, 254, 1, 4)
        );
        assert_eq!(
            suggest_address(&i, [10, 0, 0, 0].into()),
            Ipv4Addr::new(169, 254, 1, 1)
        );
        assert_eq!(
            suggest_address(&i, [10, 0, 0, 255].into()),
            Ipv4Addr::new(169, 254, 1, 1)
        );
        for ip in [[192, 168, 9, 200], [10, 1, 2, 3]] {
            assert!(i.same_subnet(suggest_address(&i, ip.into())));
        }
    }
}
