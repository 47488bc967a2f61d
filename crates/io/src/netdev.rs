//! Network interfaces: which one owns an address, and the settings of it
//! that decide what a stream costs (MTU, GRO, LRO), so tools can report
//! what was in force next to their numbers.

use std::ffi::CStr;
use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;

use crate::error::{Error, Result};

/// The index of the interface named `name` (`if_nametoindex`), which
/// sockets bind to and XDP programs attach by.
pub fn if_index(name: &str) -> std::io::Result<u32> {
    let c = std::ffi::CString::new(name).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("interface name {name:?} contains a NUL byte"),
        )
    })?;
    // SAFETY: a valid NUL-terminated string.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(i)
    }
}

/// A network interface, found by one of its IPv4 addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Device name, e.g. "eth0".
    pub name: String,
    /// Interface index.
    pub index: u32,
    /// ARPHRD_* hardware type.
    pub hatype: u16,
}

impl Link {
    /// The interface that has `addr` as one of its IPv4 addresses.
    pub fn owning(addr: Ipv4Addr) -> Result<Link> {
        let list = IfAddrs::get().map_err(|source| Error::InterfaceLookup { addr, source })?;
        let label = list
            .iter()
            .find_map(|ifa| {
                // SAFETY: getifaddrs gives a valid sockaddr of the family it
                // names (or null); AF_INET ones are sockaddr_in.
                let sin = unsafe { sockaddr_as::<libc::sockaddr_in>(ifa, libc::AF_INET)? };
                (Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)) == addr).then(|| ifa_name(ifa))
            })
            .ok_or(Error::NoInterface { addr })?;
        // An address label such as "eth0:1" belongs to device "eth0".
        let name = label.split(':').next().unwrap_or(&label).to_owned();
        let link = list.iter().find_map(|ifa| {
            // SAFETY: as above; AF_PACKET entries are sockaddr_ll.
            let sll = unsafe { sockaddr_as::<libc::sockaddr_ll>(ifa, libc::AF_PACKET)? };
            (ifa_name(ifa) == name).then_some((sll.sll_ifindex, sll.sll_hatype))
        });
        match link {
            Some((index, hatype)) => Ok(Link {
                index: u32::try_from(index).unwrap_or(0),
                name,
                hatype,
            }),
            None => Err(Error::InterfaceLookup {
                addr,
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("interface {name} has no link-layer entry"),
                ),
            }),
        }
    }
}

impl Link {
    /// The interface this host would use to reach `remote`: the routing
    /// table's choice, found by connecting a UDP socket (which sends
    /// nothing) and looking up the local address it was given.
    pub fn towards(remote: Ipv4Addr) -> Result<Link> {
        let addr = std::net::SocketAddr::from((remote, 9));
        let socket = std::net::UdpSocket::bind("0.0.0.0:0").map_err(|source| Error::Socket {
            op: "bind for a route lookup",
            addr,
            source,
        })?;
        socket.connect(addr).map_err(|source| Error::Socket {
            op: "connect (route lookup)",
            addr,
            source,
        })?;
        let local = socket.local_addr().map_err(|source| Error::Socket {
            op: "getsockname (route lookup)",
            addr,
            source,
        })?;
        match local.ip() {
            std::net::IpAddr::V4(ip) => Link::owning(ip),
            std::net::IpAddr::V6(_) => Err(Error::NoInterface { addr: remote }),
        }
    }
}

/// The list getifaddrs returns, freed on drop.
pub(crate) struct IfAddrs(*mut libc::ifaddrs);

impl IfAddrs {
    pub(crate) fn get() -> std::io::Result<IfAddrs> {
        let mut head = std::ptr::null_mut();
        // SAFETY: `head` is a valid out-parameter; the list is freed in Drop.
        if unsafe { libc::getifaddrs(&mut head) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(IfAddrs(head))
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &libc::ifaddrs> {
        // SAFETY: the nodes stay valid until `self` is dropped, which the
        // returned references cannot outlive.
        std::iter::successors(unsafe { self.0.as_ref() }, |ifa| unsafe {
            ifa.ifa_next.as_ref()
        })
    }
}

impl Drop for IfAddrs {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: frees the list getifaddrs allocated, once.
            unsafe { libc::freeifaddrs(self.0) };
        }
    }
}

pub(crate) fn ifa_name(ifa: &libc::ifaddrs) -> String {
    if ifa.ifa_name.is_null() {
        return String::new();
    }
    // SAFETY: a non-null ifa_name is a NUL-terminated string living as long
    // as the list.
    unsafe { CStr::from_ptr(ifa.ifa_name) }
        .to_string_lossy()
        .into_owned()
}

/// The entry's address as a `T`, if it is of `family`.
///
/// # Safety
/// `T` must be the sockaddr type of `family`, as getifaddrs fills it.
pub(crate) unsafe fn sockaddr_as<T>(ifa: &libc::ifaddrs, family: libc::c_int) -> Option<T> {
    // SAFETY: getifaddrs leaves ifa_addr null or pointing at a sockaddr
    // whose family tells its type; the caller guarantees `T` matches.
    unsafe { sockaddr_at(ifa.ifa_addr, family) }
}

/// The sockaddr at `sa` (an entry's address or netmask) as a `T`, if it is
/// of `family`.
///
/// # Safety
/// `sa` is null or points to a sockaddr whose family field tells its real
/// type, and `T` is the sockaddr type of `family`.
pub(crate) unsafe fn sockaddr_at<T>(sa: *const libc::sockaddr, family: libc::c_int) -> Option<T> {
    // SAFETY: per the contract above.
    unsafe {
        if sa.is_null() || libc::c_int::from((*sa).sa_family) != family {
            return None;
        }
        Some(std::ptr::read_unaligned(sa.cast::<T>()))
    }
}

/// Receive-side settings of an interface that change how many packets
/// the host's stack handles per byte.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offloads {
    /// MTU in bytes.
    pub mtu: u32,
    /// Generic receive offload (software coalescing in NAPI).
    pub gro: Option<bool>,
    /// Large receive offload (coalescing in the NIC).
    pub lro: Option<bool>,
}

/// ETHTOOL_GGRO, ETHTOOL_GFLAGS and the LRO flag (linux/ethtool.h).
const ETHTOOL_GGRO: u32 = 0x2b;
const ETHTOOL_GFLAGS: u32 = 0x25;
const ETH_FLAG_LRO: u32 = 1 << 15;

/// `struct ethtool_value`.
#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

/// Reads the MTU, GRO and LRO state of interface `name`. A setting the
/// driver does not report is `None`.
pub fn offloads(name: &str) -> Result<Offloads> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").map_err(|source| Error::Socket {
        op: "socket for interface ioctls",
        addr: "0.0.0.0:0".parse().expect("literal address"),
        source,
    })?;
    let fd = socket.as_raw_fd();
    let mtu = ifreq_call(fd, name, libc::SIOCGIFMTU, |r| {
        // SAFETY: SIOCGIFMTU fills the ifru_mtu member.
        unsafe { r.ifr_ifru.ifru_mtu as u32 }
    })
    .unwrap_or(0);
    let ethtool = |cmd: u32| -> Option<u32> {
        let mut v = EthtoolValue { cmd, data: 0 };
        ifreq_with_data(fd, name, (&mut v as *mut EthtoolValue).cast())?;
        Some(v.data)
    };
    Ok(Offloads {
        mtu,
        gro: ethtool(ETHTOOL_GGRO).map(|d| d != 0),
        lro: ethtool(ETHTOOL_GFLAGS).map(|d| d & ETH_FLAG_LRO != 0),
    })
}

/// ETHTOOL_GCOALESCE (linux/ethtool.h).
const ETHTOOL_GCOALESCE: u32 = 0x0e;

/// `struct ethtool_coalesce`: the command word and 22 parameters.
#[repr(C)]
#[derive(Default)]
struct EthtoolCoalesce {
    cmd: u32,
    values: [u32; 22],
}

/// Interrupt coalescing of an interface's receive side: how long (or for
/// how many frames) the NIC waits before raising an interrupt. More
/// waiting means fewer interrupts per packet, at some latency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coalesce {
    /// rx-usecs: microseconds to wait after a packet before interrupting.
    pub rx_usecs: u32,
    /// rx-frames: packets to collect before interrupting.
    pub rx_max_frames: u32,
    /// adaptive-rx: the driver tunes the above by packet rate.
    pub adaptive_rx: bool,
}

/// Reads the receive interrupt coalescing of interface `name`
/// (`ethtool -c`). `None` when the driver does not support it, as on veth
/// and other virtual interfaces, which have no interrupts to coalesce.
pub fn coalesce(name: &str) -> Result<Option<Coalesce>> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").map_err(|source| Error::Socket {
        op: "socket for interface ioctls",
        addr: "0.0.0.0:0".parse().expect("literal address"),
        source,
    })?;
    let mut c = EthtoolCoalesce {
        cmd: ETHTOOL_GCOALESCE,
        ..EthtoolCoalesce::default()
    };
    if ifreq_with_data(
        socket.as_raw_fd(),
        name,
        (&mut c as *mut EthtoolCoalesce).cast(),
    )
    .is_none()
    {
        return Ok(None);
    }
    // Field order of struct ethtool_coalesce after cmd: rx_coalesce_usecs,
    // rx_max_coalesced_frames, ..., use_adaptive_rx_coalesce at index 9.
    Ok(Some(Coalesce {
        rx_usecs: c.values[0],
        rx_max_frames: c.values[1],
        adaptive_rx: c.values[9] != 0,
    }))
}

/// ETHTOOL_GDRVINFO (linux/ethtool.h).
const ETHTOOL_GDRVINFO: u32 = 0x03;

/// `struct ethtool_drvinfo`: driver, version, firmware, bus and EEPROM
/// strings of 32 bytes, 12 reserved bytes and five counts.
#[repr(C)]
struct EthtoolDrvinfo {
    cmd: u32,
    driver: [u8; 32],
    version: [u8; 32],
    fw_version: [u8; 32],
    bus_info: [u8; 32],
    erom_version: [u8; 32],
    reserved: [u8; 12],
    counts: [u32; 5],
}

/// The driver behind an interface and the bus it sits on (`ethtool -i`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Driver {
    /// Driver name, e.g. "ixgbe" or "veth".
    pub name: String,
    /// Bus address, e.g. "0000:01:00.0"; empty or "N/A" for virtual devices.
    pub bus_info: String,
}

/// Reads the driver of interface `name`; `None` when the device reports
/// none (loopback, some virtual devices) or the interface does not exist.
pub fn driver(name: &str) -> Option<Driver> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    let mut d = EthtoolDrvinfo {
        cmd: ETHTOOL_GDRVINFO,
        driver: [0; 32],
        version: [0; 32],
        fw_version: [0; 32],
        bus_info: [0; 32],
        erom_version: [0; 32],
        reserved: [0; 12],
        counts: [0; 5],
    };
    ifreq_with_data(
        socket.as_raw_fd(),
        name,
        (&mut d as *mut EthtoolDrvinfo).cast(),
    )?;
    let text = |b: &[u8]| {
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        String::from_utf8_lossy(&b[..end]).trim().to_owned()
    };
    Some(Driver {
        name: text(&d.driver),
        bus_info: text(&d.bus_info),
    })
}

/// ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS and ETHTOOL_GFEATURES, and the
/// string set of feature names (linux/ethtool.h).
const ETHTOOL_GSSET_INFO: u32 = 0x37;
const ETHTOOL_GSTRINGS: u32 = 0x1b;
const ETHTOOL_GFEATURES: u32 = 0x3a;
const ETH_SS_FEATURES: u32 = 4;
/// Bytes of one ethtool string.
const ETH_GSTRING_LEN: usize = 32;

/// Whether feature `feature` (as `ethtool -k` names it, e.g.
/// "tx-udp-segmentation") is active on interface `name`; `None` when the
/// interface or the feature is unknown.
pub fn feature_active(name: &str, feature: &str) -> Option<bool> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    let fd = socket.as_raw_fd();
    // struct ethtool_sset_info: cmd, reserved, u64 sset_mask, u32 data[].
    let mut info = [ETHTOOL_GSSET_INFO, 0, 1 << ETH_SS_FEATURES, 0, 0u32];
    ifreq_with_data(fd, name, info.as_mut_ptr().cast())?;
    if info[2] & (1 << ETH_SS_FEATURES) == 0 {
        return None;
    }
    let count = info[4] as usize;
    if count == 0 || count > 4096 {
        return None;
    }
    // struct ethtool_gstrings: cmd, string_set, len, then len strings.
    let mut strings = vec![0u32; 3 + count * ETH_GSTRING_LEN / 4];
    strings[..3].copy_from_slice(&[ETHTOOL_GSTRINGS, ETH_SS_FEATURES, count as u32]);
    ifreq_with_data(fd, name, strings.as_mut_ptr().cast())?;
    let bytes: Vec<u8> = strings[3..].iter().flat_map(|w| w.to_ne_bytes()).collect();
    let index = bytes.chunks(ETH_GSTRING_LEN).position(|s| {
        let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
        &s[..end] == feature.as_bytes()
    })?;
    // struct ethtool_gfeatures: cmd, size, then size blocks of
    // (available, requested, active, never_changed).
    let blocks = count.div_ceil(32);
    let mut features = vec![0u32; 2 + blocks * 4];
    features[..2].copy_from_slice(&[ETHTOOL_GFEATURES, blocks as u32]);
    ifreq_with_data(fd, name, features.as_mut_ptr().cast())?;
    let active = features[2 + (index / 32) * 4 + 2];
    Some(active & (1 << (index % 32)) != 0)
}

/// Drivers of software devices that hand a UDP GSO super-datagram on
/// whole (to a peer namespace, a bridge port, a tap reader, a lower
/// device) instead of cutting it into wire-sized datagrams.
const PASS_THROUGH_DRIVERS: &[&str] = &[
    "veth",
    "bridge",
    "tun",
    "macvlan",
    "ipvlan",
    "vxlan",
    "geneve",
    "dummy",
    "bonding",
    "team",
    "802.1Q VLAN Support",
    "openvswitch",
    "vrf",
    "wireguard",
    "gre",
    "ip_gre",
    "ipip",
    "sit",
    "ifb",
    "nlmon",
    "netkit",
];

/// Where UDP GSO super-datagrams sent towards some address get cut into
/// standard datagrams: by the egress device (a NIC with a real driver
/// segments in hardware, or the kernel does it just before the driver
/// when the NIC cannot), or nowhere before other eyes see them (veth,
/// loopback, bridges, tun and any device not known to be a NIC pass the
/// super-datagram on whole, so a packet socket on the path, tcpdump or
/// Aravis as root, captures one 64 KB "datagram" no wire ever carries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GsoEgress {
    /// The egress interface, if it was found.
    pub interface: Option<String>,
    /// Its driver, if it reports one.
    pub driver: Option<String>,
    /// True when super-datagrams reach the wire as standard datagrams, so
    /// UDP GSO may be used; false when the sender must cut them itself.
    pub segmented_before_wire: bool,
    /// Why, in words, for start-up lines and reports.
    pub reason: String,
}

impl GsoEgress {
    /// Decides for the interface this host would use to reach `remote`.
    /// Never fails: an egress it cannot identify is treated as one that
    /// passes super-datagrams through.
    pub fn towards(remote: Ipv4Addr) -> GsoEgress {
        match Link::towards(remote) {
            Ok(link) => GsoEgress::of_interface(&link.name),
            Err(e) => GsoEgress {
                interface: None,
                driver: None,
                segmented_before_wire: false,
                reason: format!("no egress interface found towards {remote} ({e})"),
            },
        }
    }

    /// Decides for interface `name`.
    pub fn of_interface(name: &str) -> GsoEgress {
        let driver = driver(name);
        // A device without UDP segmentation gets super-datagrams cut by
        // the kernel just before it, whatever it is.
        let udp_segmentation = feature_active(name, "tx-udp-segmentation");
        let (segmented, reason) = match &driver {
            _ if udp_segmentation == Some(false) => (
                true,
                "tx-udp-segmentation is off, so the kernel segments before the device".to_owned(),
            ),
            None if name == "lo" => (
                false,
                "loopback passes GSO super-datagrams through".to_owned(),
            ),
            None => (
                false,
                "the device reports no driver, so it may pass GSO super-datagrams through"
                    .to_owned(),
            ),
            Some(d) if PASS_THROUGH_DRIVERS.contains(&d.name.as_str()) => (
                false,
                format!(
                    "driver {} passes GSO super-datagrams through unsegmented",
                    d.name
                ),
            ),
            Some(d) if is_bus_address(&d.bus_info) => (
                true,
                format!(
                    "NIC driver {} at {} segments before the wire",
                    d.name, d.bus_info
                ),
            ),
            Some(d) => (
                false,
                format!(
                    "driver {} is on no hardware bus, so it may pass GSO super-datagrams through",
                    d.name
                ),
            ),
        };
        GsoEgress {
            interface: Some(name.to_owned()),
            driver: driver.map(|d| d.name),
            segmented_before_wire: segmented,
            reason,
        }
    }
}

/// Whether ethtool's bus_info names a hardware bus position (PCI, USB,
/// platform) rather than a virtual device's placeholder.
fn is_bus_address(bus: &str) -> bool {
    !bus.is_empty() && !matches!(bus, "N/A" | "tun" | "tap")
}

fn ifreq_for(name: &str) -> Option<libc::ifreq> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() >= libc::IFNAMSIZ {
        return None;
    }
    // SAFETY: ifreq is plain data; all zeroes is a valid value.
    let mut r: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in r.ifr_name.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    Some(r)
}

fn ifreq_call<T>(
    fd: std::os::fd::RawFd,
    name: &str,
    request: libc::Ioctl,
    read: impl FnOnce(&libc::ifreq) -> T,
) -> Option<T> {
    let mut r = ifreq_for(name)?;
    // SAFETY: a valid ifreq for a request that reads into it.
    let rc = unsafe { libc::ioctl(fd, request, &mut r) };
    (rc == 0).then(|| read(&r))
}

/// SIOCETHTOOL with `data` as the command block; `Some(())` on success.
fn ifreq_with_data(fd: std::os::fd::RawFd, name: &str, data: *mut libc::c_void) -> Option<()> {
    let mut r = ifreq_for(name)?;
    r.ifr_ifru.ifru_data = data.cast();
    // SAFETY: `data` points at a live ethtool command block the kernel fills.
    let rc = unsafe { libc::ioctl(fd, libc::SIOCETHTOOL, &mut r) };
    (rc == 0).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_found_and_reports_its_mtu() {
        let link = Link::owning(Ipv4Addr::LOCALHOST).expect("lo owns 127.0.0.1");
        assert_eq!(link.name, "lo");
        let o = offloads(&link.name).expect("ioctls");
        assert!(o.mtu >= 1500, "{o:?}");
    }

    #[test]
    fn the_route_to_loopback_is_lo_and_lo_has_no_coalescing() {
        let link = Link::towards(Ipv4Addr::LOCALHOST).expect("route to 127.0.0.1");
        assert_eq!(link.name, "lo");
        assert_eq!(coalesce("lo").expect("ioctl socket"), None);
    }

    #[test]
    fn loopback_passes_gso_through() {
        let e = GsoEgress::towards(Ipv4Addr::LOCALHOST);
        assert_eq!(e.interface.as_deref(), Some("lo"));
        assert!(!e.segmented_before_wire, "{e:?}");
        assert!(!GsoEgress::of_interface("no-such-if0").segmented_before_wire);
    }

    #[test]
    fn loopback_features_are_read_by_name() {
        // Loopback carries UDP GSO super-datagrams: the feature is on.
        assert_eq!(feature_active("lo", "tx-udp-segmentation"), Some(true));
        assert_eq!(feature_active("lo", "no-such-feature"), None);
        assert_eq!(feature_active("no-such-if0", "tx-udp-segmentation"), None);
    }

    #[test]
    fn only_hardware_bus_addresses_count() {
        assert!(is_bus_address("0000:01:00.0"));
        assert!(!is_bus_address(""));
        assert!(!is_bus_address("N/A"));
        assert!(!is_bus_address("tap"));
    }

    #[test]
    fn an_address_no_interface_has_is_an_error_naming_it() {
        let e = Link::owning(Ipv4Addr::new(169, 254, 253, 254)).expect_err("nobody has it");
        assert!(e.to_string().contains("169.254.253.254"), "{e}");
    }
}
