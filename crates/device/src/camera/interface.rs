//! Finds the local interface that owns an IPv4 address, for the MAC and
//! netmask a camera reports in discovery.

use std::net::Ipv4Addr;

use linerate_io::interfaces::{hardware_address, ipv4_interfaces};
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
    let entry = ipv4_interfaces()
        .ok()?
        .into_iter()
        .find(|i| i.address == ip)?;
    let mac = hardware_address(&entry.name)
        .ok()
        .flatten()
        .map_or(MacAddr([0x02, 0x4c, 0x52, 0, 0, 1]), MacAddr);
    Some(Interface {
        mac,
        netmask: entry.netmask,
    })
}
