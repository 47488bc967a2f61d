//! Errors of the I/O layer.

use std::net::{Ipv4Addr, SocketAddr};

/// An I/O failure, with the operation and the address involved.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The host's interfaces could not be listed.
    #[error("cannot list network interfaces: {source}")]
    InterfaceList {
        /// The OS error from getifaddrs.
        #[source]
        source: std::io::Error,
    },
    /// No interface has the name or IPv4 address asked for.
    #[error("no network interface is named {spec:?} or has that IPv4 address")]
    NoSuchInterface {
        /// The name or address given.
        spec: String,
    },
    /// A socket call failed.
    #[error("{op} on {addr}: {source}")]
    Socket {
        /// What was attempted, e.g. "bind".
        op: &'static str,
        /// The local or remote address concerned.
        addr: SocketAddr,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A stop was asked while a TCP record was half sent, and the peer did
    /// not read enough to finish it in time: the connection must be closed,
    /// since a resumed stream would be desynchronised.
    #[error("TCP peer {peer} read nothing for {waited_ms} ms while a record was half sent")]
    TcpStalled {
        /// The peer.
        peer: SocketAddr,
        /// How long the sender waited to finish the record, in milliseconds.
        waited_ms: u64,
    },
    /// Datagrams handed to a GSO send were not all of the segment size.
    #[error("UDP GSO needs every datagram but the last to be exactly {segment} bytes (and at most 65507)")]
    GsoSegment {
        /// The segment size asked for.
        segment: usize,
    },
    /// A batch was larger than one syscall can carry.
    #[error("batch of {len} datagrams exceeds the limit of {max}")]
    BatchTooLarge {
        /// Datagrams requested.
        len: usize,
        /// Largest batch accepted.
        max: usize,
    },
    /// No network interface has this IPv4 address, so there is nothing to
    /// bind a packet ring to.
    #[error("no network interface owns {addr}")]
    NoInterface {
        /// The address looked up.
        addr: Ipv4Addr,
    },
    /// Listing the interfaces (getifaddrs) failed.
    #[error("listing network interfaces to find {addr}: {source}")]
    InterfaceLookup {
        /// The address looked up.
        addr: Ipv4Addr,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The interface does not carry Ethernet frames, which the packet ring's
    /// filter and parser assume.
    #[error("interface {interface} has link type {hatype} (ARPHRD), not Ethernet; the packet ring needs Ethernet framing")]
    UnsupportedLink {
        /// Interface name.
        interface: String,
        /// Its ARPHRD_* hardware type.
        hatype: u16,
    },
    /// The process may not open AF_PACKET sockets.
    #[error("opening an AF_PACKET socket needs CAP_NET_RAW (run as root, or grant the capability with setcap cap_net_raw+ep): {source}")]
    NeedsCapNetRaw {
        /// The OS error (EPERM or EACCES).
        #[source]
        source: std::io::Error,
    },
    /// The kernel (or our check before asking it) refused the ring geometry,
    /// or mapping the ring failed.
    #[error("packet ring of {block_count} blocks of {block_size} bytes (frame size {frame_size}) refused: {source}")]
    RingRefused {
        /// Bytes per block.
        block_size: usize,
        /// Number of blocks.
        block_count: usize,
        /// Frame size given to the kernel.
        frame_size: usize,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A call on a packet socket failed.
    #[error("{op} on packet socket of {interface}: {source}")]
    PacketSocket {
        /// What was attempted, e.g. "SO_ATTACH_FILTER".
        op: &'static str,
        /// The interface the socket serves.
        interface: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Frames of the size asked for do not fit the interface's MTU: the
    /// interface would refuse every one of them.
    #[error("frames with {need}-byte payloads need an MTU of at least {need} on {interface}, but it is {mtu}")]
    MtuTooSmall {
        /// The interface.
        interface: String,
        /// Its MTU.
        mtu: u32,
        /// The MTU the frames need.
        need: u32,
    },
    /// A `bpf(2)` command was refused for lack of privilege.
    #[error("{op} needs CAP_BPF and CAP_NET_ADMIN (run as root): {source}")]
    NeedsCapBpf {
        /// The bpf command, e.g. "BPF_PROG_LOAD".
        op: &'static str,
        /// The OS error (EPERM or EACCES).
        #[source]
        source: std::io::Error,
    },
    /// A `bpf(2)` command failed.
    #[error("{op} ({what}): {source}")]
    Bpf {
        /// The bpf command.
        op: &'static str,
        /// The object concerned.
        what: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The kernel's verifier refused an XDP program; `log` says why.
    #[error("the kernel refused XDP program {program}: {source}; verifier log:\n{log}")]
    BpfVerifier {
        /// The program's name.
        program: String,
        /// The verifier's log (may be empty on old kernels).
        log: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Attaching an XDP program to an interface failed.
    #[error(
        "attaching XDP program {program} to {interface} in {mode} mode: {source}{}",
        attach_hint(source)
    )]
    XdpAttach {
        /// The program's name.
        program: String,
        /// The interface.
        interface: String,
        /// "native" or "generic".
        mode: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A call on an AF_XDP socket failed.
    #[error("{op} on the AF_XDP socket of {interface} queue {queue}: {source}")]
    Xsk {
        /// What was attempted, e.g. "XDP_UMEM_REG".
        op: &'static str,
        /// The interface.
        interface: String,
        /// The receive queue.
        queue: u32,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// What to do about a failed XDP attach, by errno.
fn attach_hint(source: &std::io::Error) -> &'static str {
    match source.raw_os_error() {
        Some(libc::EBUSY) | Some(libc::EEXIST) => {
            " (another XDP program is attached: see `ip link show dev IF`)"
        }
        Some(libc::EOPNOTSUPP) => " (the driver has no native XDP: use generic mode)",
        Some(libc::EINVAL) => " (the kernel refused the mode or the interface's MTU for XDP)",
        _ => "",
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;
