//! Finds the local interface that owns an IPv4 address, for the MAC and
//! netmask a camera reports in discovery.

use std::net::Ipv4Addr;

use linerate_wire::ethernet::MacAddr;

/// What discovery needs to know about the camera's interface.
pub struct Interface {
    /// Hardware address.
    pub mac: MacAddr,
    /// Subnet mask of the address.
    pub netmask: Ipv4Addr,
}

/// Looks `ip` up among this namespace's interfaces.
pub fn find(ip: Ipv4Addr) -> Option<Interface> {
    let addrs: Vec<_> = nix::ifaddrs::getifaddrs().ok()?.collect();
    let entry = addrs.iter().find(|a| {
        a.address
            .as_ref()
            .and_then(|s| s.as_sockaddr_in())
            .is_some_and(|s| s.ip() == ip)
    })?;
    let netmask = entry
        .netmask
        .as_ref()
        .and_then(|s| s.as_sockaddr_in())
        .map_or(Ipv4Addr::new(255, 255, 0, 0), |s| s.ip());
    let mac = addrs
        .iter()
        .filter(|a| a.interface_name == entry.interface_name)
        .find_map(|a| a.address.as_ref()?.as_link_addr()?.addr())
        .map_or(MacAddr([0x02, 0x4c, 0x52, 0, 0, 1]), MacAddr);
    Some(Interface { mac, netmask })
}
