//! Turning a spec into concrete names, addresses and MACs, without touching
//! the system, so the allocation is deterministic and unit-testable.

use std::net::Ipv4Addr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::spec::{netns_name, Shaper, TestbedSpec, SWITCH_HOST};

/// Prefix length of every address: link-local 169.254.0.0/16, as a GigE
/// Vision camera without DHCP configures itself (LLA, RFC 3927).
pub const PREFIX_LEN: u8 = 16;

/// Name of the bridge inside the switch namespace.
pub const BRIDGE_NAME: &str = "br0";

/// An Ethernet MAC address (linerate's one MAC type, from the wire crate).
pub use linerate_wire::ethernet::MacAddr;

/// One network interface of a host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IfaceInfo {
    /// Interface name inside the host's namespace (`eth0`, `eth1`, ...).
    pub name: String,
    /// Its link-local IPv4 address.
    pub ipv4: Ipv4Addr,
    /// Prefix length of that address (always [`PREFIX_LEN`]).
    pub prefix_len: u8,
    /// Its MAC address (locally administered, deterministic).
    pub mac: MacAddr,
    /// Its MTU.
    pub mtu: u32,
    /// Host at the other end of the wire, or `"switch"`.
    pub peer_host: String,
    /// Namespace of the other end of the veth.
    pub peer_netns: String,
    /// Interface name of the other end of the veth.
    pub peer_iface: String,
}

/// One host: a network namespace and its interfaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostInfo {
    /// Host name as given in the spec.
    pub name: String,
    /// Namespace name, `lr-<bed>-<host>`.
    pub netns: String,
    /// Its interfaces, `eth0` first.
    pub ifaces: Vec<IfaceInfo>,
}

impl HostInfo {
    /// The first interface's address: *the* address of a single-homed host.
    pub fn ipv4(&self) -> Option<Ipv4Addr> {
        self.ifaces.first().map(|i| i.ipv4)
    }
}

/// What a built bed looks like: printed by `testbed up --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BedInfo {
    /// Bed name.
    pub name: String,
    /// Namespace of the switch, for switch topologies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_netns: Option<String>,
    /// The hosts, in spec order.
    pub hosts: Vec<HostInfo>,
}

/// One veth pair to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VethPlan {
    pub a_netns: String,
    pub a_iface: String,
    pub a_mac: MacAddr,
    pub b_netns: String,
    pub b_iface: String,
    pub b_mac: MacAddr,
    pub mtu: u32,
}

/// A tbf to install on the egress of `iface` in `netns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShapePlan {
    pub netns: String,
    pub iface: String,
    pub shaper: Shaper,
}

/// Everything `build` will do, decided up front.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub info: BedInfo,
    /// All namespaces: hosts in order, then the switch.
    pub namespaces: Vec<String>,
    pub veths: Vec<VethPlan>,
    /// `(switch netns, ports, mtu)`.
    pub bridge: Option<(String, Vec<String>, u32)>,
    pub shapes: Vec<ShapePlan>,
    /// Host routes `(netns, peer address, iface)` for multi-homed hosts,
    /// whose several /16 routes would otherwise be ambiguous.
    pub routes: Vec<(String, Ipv4Addr, String)>,
}

/// The address of host number `host_idx` (0-based, spec order) on segment
/// `segment` (1-based: p2p link index + 1, or 1 for the switch).
///
/// 169.254.0.x and 169.254.255.x are reserved by RFC 3927, hence the
/// 1-based segment and the limits enforced by spec validation.
pub fn host_addr(segment: usize, host_idx: usize) -> Ipv4Addr {
    Ipv4Addr::new(169, 254, segment as u8, (host_idx + 1) as u8)
}

/// The MAC of an interface with address `addr`; `switch_side` for the
/// bridge port facing it. Locally administered (02:...), "lr" in the OUI
/// bytes, the address' last two bytes at the end.
pub fn mac_for(addr: Ipv4Addr, switch_side: bool) -> MacAddr {
    let o = addr.octets();
    MacAddr([0x02, 0x6c, 0x72, u8::from(switch_side), o[2], o[3]])
}

/// Alias written on each veth end so another process can rediscover the
/// topology from the namespaces alone (see [`parse_alias`]).
pub(crate) fn alias(peer_host: &str, peer_netns: &str, peer_iface: &str) -> String {
    format!("linerate peer={peer_host} netns={peer_netns} iface={peer_iface}")
}

/// Parses an [`alias`] back into `(peer_host, peer_netns, peer_iface)`.
pub(crate) fn parse_alias(s: &str) -> Option<(String, String, String)> {
    let rest = s.strip_prefix("linerate ")?;
    let (mut host, mut ns, mut iface) = (None, None, None);
    for kv in rest.split_ascii_whitespace() {
        match kv.split_once('=') {
            Some(("peer", v)) => host = Some(v.to_owned()),
            Some(("netns", v)) => ns = Some(v.to_owned()),
            Some(("iface", v)) => iface = Some(v.to_owned()),
            _ => {}
        }
    }
    Some((host?, ns?, iface?))
}

impl Plan {
    /// Validates `spec` and allocates names, addresses and MACs.
    pub(crate) fn from_spec(spec: &TestbedSpec) -> Result<Plan> {
        spec.validate()?;
        let bed = &spec.name;
        let mut hosts: Vec<HostInfo> = spec
            .hosts
            .iter()
            .map(|h| HostInfo {
                name: h.clone(),
                netns: netns_name(bed, h),
                ifaces: Vec::new(),
            })
            .collect();
        let mut namespaces: Vec<String> = hosts.iter().map(|h| h.netns.clone()).collect();
        let mut veths = Vec::new();
        let mut shapes = Vec::new();
        let mut routes = Vec::new();
        let mut bridge = None;
        let idx = |name: &str| -> Result<usize> {
            spec.hosts
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| Error::Spec(format!("{name:?} is not in hosts")))
        };

        if spec.switch {
            let sw_ns = netns_name(bed, SWITCH_HOST);
            namespaces.push(sw_ns.clone());
            let mut ports = Vec::new();
            let shaper = spec.shaper(None);
            for (h, host) in hosts.iter_mut().enumerate() {
                let addr = host_addr(1, h);
                let iface = format!("eth{}", host.ifaces.len());
                let port = format!("port{h}");
                veths.push(VethPlan {
                    a_netns: host.netns.clone(),
                    a_iface: iface.clone(),
                    a_mac: mac_for(addr, false),
                    b_netns: sw_ns.clone(),
                    b_iface: port.clone(),
                    b_mac: mac_for(addr, true),
                    mtu: spec.mtu,
                });
                if let Some(s) = shaper {
                    shapes.push(ShapePlan {
                        netns: host.netns.clone(),
                        iface: iface.clone(),
                        shaper: s,
                    });
                    shapes.push(ShapePlan {
                        netns: sw_ns.clone(),
                        iface: port.clone(),
                        shaper: s,
                    });
                }
                host.ifaces.push(IfaceInfo {
                    name: iface,
                    ipv4: addr,
                    prefix_len: PREFIX_LEN,
                    mac: mac_for(addr, false),
                    mtu: spec.mtu,
                    peer_host: SWITCH_HOST.into(),
                    peer_netns: sw_ns.clone(),
                    peer_iface: port.clone(),
                });
                ports.push(port);
            }
            bridge = Some((sw_ns, ports, spec.mtu));
        } else {
            for (i, link) in spec.effective_links().iter().enumerate() {
                let (ia, ib) = (idx(&link.a)?, idx(&link.b)?);
                let (addr_a, addr_b) = (host_addr(i + 1, ia), host_addr(i + 1, ib));
                let mtu = link.mtu.unwrap_or(spec.mtu);
                let if_a = format!("eth{}", hosts[ia].ifaces.len());
                let if_b = format!("eth{}", hosts[ib].ifaces.len());
                let (ns_a, ns_b) = (hosts[ia].netns.clone(), hosts[ib].netns.clone());
                veths.push(VethPlan {
                    a_netns: ns_a.clone(),
                    a_iface: if_a.clone(),
                    a_mac: mac_for(addr_a, false),
                    b_netns: ns_b.clone(),
                    b_iface: if_b.clone(),
                    b_mac: mac_for(addr_b, false),
                    mtu,
                });
                if let Some(s) = spec.shaper(link.rate_ab.or(link.rate)) {
                    shapes.push(ShapePlan {
                        netns: ns_a.clone(),
                        iface: if_a.clone(),
                        shaper: s,
                    });
                }
                if let Some(s) = spec.shaper(link.rate_ba.or(link.rate)) {
                    shapes.push(ShapePlan {
                        netns: ns_b.clone(),
                        iface: if_b.clone(),
                        shaper: s,
                    });
                }
                hosts[ia].ifaces.push(IfaceInfo {
                    name: if_a.clone(),
                    ipv4: addr_a,
                    prefix_len: PREFIX_LEN,
                    mac: mac_for(addr_a, false),
                    mtu,
                    peer_host: link.b.clone(),
                    peer_netns: ns_b.clone(),
                    peer_iface: if_b.clone(),
                });
                hosts[ib].ifaces.push(IfaceInfo {
                    name: if_b.clone(),
                    ipv4: addr_b,
                    prefix_len: PREFIX_LEN,
                    mac: mac_for(addr_b, false),
                    mtu,
                    peer_host: link.a.clone(),
                    peer_netns: ns_a.clone(),
                    peer_iface: if_a.clone(),
                });
            }
            for host in &hosts {
                if host.ifaces.len() > 1 {
                    for iface in &host.ifaces {
                        let peer = hosts
                            .iter()
                            .flat_map(|h| &h.ifaces)
                            .find(|p| p.peer_iface == iface.name && p.peer_netns == host.netns);
                        if let Some(p) = peer {
                            routes.push((host.netns.clone(), p.ipv4, iface.name.clone()));
                        }
                    }
                }
            }
        }
        Ok(Plan {
            info: BedInfo {
                name: spec.name.clone(),
                switch_netns: bridge.as_ref().map(|(ns, _, _)| ns.clone()),
                hosts,
            },
            namespaces,
            veths,
            bridge,
            shapes,
            routes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{LinkSpec, Rate};

    fn spec(hosts: &[&str]) -> TestbedSpec {
        let mut s = TestbedSpec::new("t");
        s.hosts = hosts.iter().map(|h| h.to_string()).collect();
        s
    }

    #[test]
    fn point_to_point_allocation() -> Result<()> {
        let mut s = spec(&["cam", "pc"]);
        s.mtu = 9000;
        s.rate = Some(Rate::gbit(1));
        let p = Plan::from_spec(&s)?;
        assert_eq!(p.namespaces, ["lr-t-cam", "lr-t-pc"]);
        let cam = &p.info.hosts[0];
        let pc = &p.info.hosts[1];
        assert_eq!(cam.ifaces[0].name, "eth0");
        assert_eq!(cam.ipv4(), Some(Ipv4Addr::new(169, 254, 1, 1)));
        assert_eq!(pc.ipv4(), Some(Ipv4Addr::new(169, 254, 1, 2)));
        assert_eq!(cam.ifaces[0].mac.to_string(), "02:6c:72:00:01:01");
        assert_eq!(cam.ifaces[0].peer_netns, "lr-t-pc");
        assert_eq!(pc.ifaces[0].peer_host, "cam");
        assert_eq!(p.veths.len(), 1);
        assert_eq!(p.veths[0].mtu, 9000);
        assert_eq!(p.shapes.len(), 2, "both directions shaped");
        assert!(p.routes.is_empty());
        assert!(p.bridge.is_none());
        // Deterministic: the same spec gives the same plan.
        assert_eq!(Plan::from_spec(&s)?.info, p.info);
        Ok(())
    }

    #[test]
    fn multi_homed_host_gets_host_routes() -> Result<()> {
        let mut s = spec(&["a", "b", "c"]);
        s.links = vec![LinkSpec::new("a", "b"), LinkSpec::new("a", "c")];
        s.links[1].rate_ab = Some(Rate::gbit(5));
        let p = Plan::from_spec(&s)?;
        let a = &p.info.hosts[0];
        assert_eq!(a.ifaces.len(), 2);
        assert_eq!(a.ifaces[1].name, "eth1");
        assert_eq!(a.ifaces[1].ipv4, Ipv4Addr::new(169, 254, 2, 1));
        assert_eq!(p.info.hosts[2].ipv4(), Some(Ipv4Addr::new(169, 254, 2, 3)));
        assert_eq!(
            p.routes,
            vec![
                (
                    "lr-t-a".into(),
                    Ipv4Addr::new(169, 254, 1, 2),
                    "eth0".into()
                ),
                (
                    "lr-t-a".into(),
                    Ipv4Addr::new(169, 254, 2, 3),
                    "eth1".into()
                ),
            ]
        );
        // Only a->c is shaped.
        assert_eq!(p.shapes.len(), 1);
        assert_eq!(p.shapes[0].iface, "eth1");
        Ok(())
    }

    #[test]
    fn switch_allocation() -> Result<()> {
        let mut s = spec(&["cam1", "cam2", "pc"]);
        s.switch = true;
        s.rate = Some(Rate::gbit(10));
        let p = Plan::from_spec(&s)?;
        assert_eq!(p.namespaces.last().map(String::as_str), Some("lr-t-switch"));
        assert_eq!(p.info.switch_netns.as_deref(), Some("lr-t-switch"));
        let addrs: Vec<_> = p.info.hosts.iter().filter_map(|h| h.ipv4()).collect();
        assert_eq!(
            addrs,
            [
                Ipv4Addr::new(169, 254, 1, 1),
                Ipv4Addr::new(169, 254, 1, 2),
                Ipv4Addr::new(169, 254, 1, 3)
            ]
        );
        let (ns, ports, mtu) = p.bridge.clone().unwrap_or_default();
        assert_eq!(ns, "lr-t-switch");
        assert_eq!(ports, ["port0", "port1", "port2"]);
        assert_eq!(mtu, 1500);
        assert_eq!(p.veths[2].b_mac.to_string(), "02:6c:72:01:01:03");
        assert_eq!(p.shapes.len(), 6);
        Ok(())
    }

    #[test]
    fn mac_and_alias_roundtrip() -> Result<()> {
        let m: MacAddr = "02:6c:72:00:01:ff"
            .parse()
            .map_err(|e: linerate_wire::Error| Error::Spec(e.to_string()))?;
        assert_eq!(m.0[5], 0xff);
        assert!("02:6c:72:00:01".parse::<MacAddr>().is_err());
        assert!("02:6c:72:00:01:02:03".parse::<MacAddr>().is_err());
        assert!("zz:6c:72:00:01:02".parse::<MacAddr>().is_err());
        let a = alias("pc", "lr-t-pc", "eth0");
        assert_eq!(
            parse_alias(&a),
            Some(("pc".into(), "lr-t-pc".into(), "eth0".into()))
        );
        assert_eq!(parse_alias("something else"), None);
        Ok(())
    }
}
