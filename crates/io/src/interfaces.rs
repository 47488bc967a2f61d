//! The host's IPv4 interfaces, and UDP sockets that broadcast out of one
//! chosen interface.
//!
//! Discovery protocols (GVCP) broadcast to 255.255.255.255. A socket that is
//! not tied to a device sends that out of the default route's interface only,
//! so a device on any other interface is never asked; and with no default
//! route the send fails. Broadcasting once per interface, from a socket bound
//! to that device, reaches every attached network, as Aravis does.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};

use crate::error::{Error, Result};
use crate::netdev::{ifa_name, sockaddr_at, IfAddrs};

/// One IPv4 address of one network interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ipv4Interface {
    /// Device name, e.g. "eth0".
    pub name: String,
    /// The interface's address.
    pub address: Ipv4Addr,
    /// The subnet mask of that address.
    pub netmask: Ipv4Addr,
    /// The interface is administratively up and its link is running.
    pub up: bool,
    /// The interface can broadcast (not loopback or point-to-point).
    pub broadcast: bool,
    /// The loopback interface.
    pub loopback: bool,
}

impl Ipv4Interface {
    /// Prefix length of the netmask (e.g. 16 for 255.255.0.0).
    pub fn prefix_len(&self) -> u32 {
        u32::from(self.netmask).count_ones()
    }

    /// Whether `ip` is on this interface's subnet, i.e. reachable from it
    /// without a router.
    pub fn same_subnet(&self, ip: Ipv4Addr) -> bool {
        let mask = u32::from(self.netmask);
        u32::from(ip) & mask == u32::from(self.address) & mask
    }

    /// Whether discovery should broadcast here: up, running and able to
    /// broadcast.
    pub fn broadcasts(&self) -> bool {
        self.up && self.broadcast && !self.loopback
    }
}

/// Every IPv4 address of every interface, in the kernel's order.
pub fn ipv4_interfaces() -> std::io::Result<Vec<Ipv4Interface>> {
    let list = IfAddrs::get()?;
    let mut out = Vec::new();
    for ifa in list.iter() {
        // SAFETY: getifaddrs fills AF_INET addresses and netmasks as
        // sockaddr_in (or leaves them null).
        let (Some(addr), Some(mask)) = (unsafe { inet(ifa.ifa_addr) }, unsafe {
            inet(ifa.ifa_netmask)
        }) else {
            continue;
        };
        let flags = ifa.ifa_flags as libc::c_int;
        out.push(Ipv4Interface {
            name: ifa_name(ifa),
            address: addr,
            netmask: mask,
            up: flags & libc::IFF_UP != 0 && flags & libc::IFF_RUNNING != 0,
            broadcast: flags & libc::IFF_BROADCAST != 0,
            loopback: flags & libc::IFF_LOOPBACK != 0,
        });
    }
    Ok(out)
}

/// The hardware (MAC) address of interface `name` (an address label such
/// as "eth0:1" names device "eth0"), or `None` when it has no 6-byte link
/// address (a tunnel). Emulated devices report it in discovery.
pub fn hardware_address(name: &str) -> std::io::Result<Option<[u8; 6]>> {
    let device = name.split(':').next().unwrap_or(name);
    let list = IfAddrs::get()?;
    let mac = list.iter().find_map(|ifa| {
        if ifa_name(ifa) != device {
            return None;
        }
        // SAFETY: getifaddrs fills AF_PACKET addresses as sockaddr_ll.
        let sll = unsafe { sockaddr_at::<libc::sockaddr_ll>(ifa.ifa_addr, libc::AF_PACKET) }?;
        if sll.sll_halen != 6 {
            return None;
        }
        let mut mac = [0u8; 6];
        mac.copy_from_slice(&sll.sll_addr[..6]);
        Some(mac)
    });
    Ok(mac)
}

/// The interface named by `spec`: an interface name ("eth0") or one of its
/// IPv4 addresses ("169.254.1.2").
pub fn find_ipv4_interface(spec: &str) -> Result<Ipv4Interface> {
    let list = ipv4_interfaces().map_err(|source| Error::InterfaceList { source })?;
    let by_ip = spec.parse::<Ipv4Addr>().ok();
    list.into_iter()
        .find(|i| Some(i.address) == by_ip || i.name == spec)
        .ok_or_else(|| Error::NoSuchInterface {
            spec: spec.to_owned(),
        })
}

/// A UDP socket tied to `iface`'s device (port chosen by the kernel),
/// allowed to broadcast: a datagram to 255.255.255.255 from it leaves
/// through `iface`, whatever the routing table says. It is bound to the
/// wildcard address, not `iface`'s, so that it also receives answers
/// broadcast back on that device (a device on another subnet cannot
/// unicast to us); the device binding keeps other interfaces' traffic out.
pub fn broadcast_socket(iface: &Ipv4Interface) -> Result<UdpSocket> {
    let local = SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0);
    let err = |op| {
        move |source| Error::Socket {
            op,
            addr: SocketAddr::V4(local),
            source,
        }
    };
    let s = socket2::Socket::new(
        socket2::Domain::IPV4,
        socket2::Type::DGRAM,
        Some(socket2::Protocol::UDP),
    )
    .map_err(err("socket"))?;
    s.set_broadcast(true).map_err(err("SO_BROADCAST"))?;
    s.bind_device(Some(iface.name.as_bytes()))
        .map_err(err("SO_BINDTODEVICE"))?;
    s.bind(&SocketAddr::V4(local).into()).map_err(err("bind"))?;
    Ok(s.into())
}

/// Reads an AF_INET sockaddr's address.
///
/// # Safety
/// `sa` is null or points to a sockaddr whose family tells its real type.
unsafe fn inet(sa: *const libc::sockaddr) -> Option<Ipv4Addr> {
    // SAFETY: per the contract; AF_INET sockaddrs are sockaddr_in.
    let sin = unsafe { sockaddr_at::<libc::sockaddr_in>(sa, libc::AF_INET) }?;
    Some(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_listed_and_not_a_broadcaster() {
        let list = ipv4_interfaces().expect("getifaddrs");
        let lo = list
            .iter()
            .find(|i| i.address == Ipv4Addr::LOCALHOST)
            .expect("127.0.0.1 is on some interface");
        assert!(lo.loopback);
        assert!(!lo.broadcasts());
        assert_eq!(lo.prefix_len(), 8);
        assert!(lo.same_subnet(Ipv4Addr::new(127, 1, 2, 3)));
        assert!(!lo.same_subnet(Ipv4Addr::new(169, 254, 0, 1)));
    }

    #[test]
    fn loopback_has_a_zero_hardware_address_and_absent_interfaces_none() {
        let lo = find_ipv4_interface("127.0.0.1").expect("by address");
        assert_eq!(
            hardware_address(&lo.name).expect("getifaddrs"),
            Some([0; 6])
        );
        assert_eq!(hardware_address("no-such-if0").expect("getifaddrs"), None);
    }

    #[test]
    fn finds_by_name_or_address_and_names_what_is_missing() {
        let lo = find_ipv4_interface("127.0.0.1").expect("by address");
        assert_eq!(find_ipv4_interface(&lo.name).expect("by name"), lo);
        let err = find_ipv4_interface("no-such-if0").expect_err("absent");
        assert!(err.to_string().contains("no-such-if0"), "{err}");
    }
}
