//! Socket settings the rest of linerate needs on sockets it did not make
//! through [`crate::udp`] or [`crate::tcp`]: buffer sizes past the
//! system's limit where allowed, TCP_QUICKACK, a multicast receiver, a
//! small-buffer TCP client, arrival times, a wait for a readable
//! descriptor, a receive that never sleeps, a socket's inode, and the ICMP
//! socket of a ping. The options themselves live in one
//! place (the crate's `sockopt` module); this is their public face.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpStream, UdpSocket};
use std::os::fd::{AsFd, AsRawFd};
use std::time::Duration;

use crate::sockopt;

/// Sets the receive buffer to `bytes`, past `net.core.rmem_max` when the
/// process may (SO_RCVBUFFORCE), else as far as the limit allows.
pub fn set_recv_buffer(sock: &impl AsRawFd, bytes: usize) -> std::io::Result<()> {
    sockopt::set_recv_buffer(sock.as_raw_fd(), bytes)
}

/// Sets the send buffer to `bytes`, past `net.core.wmem_max` where allowed.
pub fn set_send_buffer(sock: &impl AsRawFd, bytes: usize) -> std::io::Result<()> {
    sockopt::set_send_buffer(sock.as_raw_fd(), bytes)
}

/// Asks TCP to acknowledge at once instead of delaying ACKs. The kernel
/// clears the flag again as it likes, so a reader that wants every ACK
/// quick sets it after every read.
pub fn set_tcp_quickack(sock: &impl AsRawFd) -> std::io::Result<()> {
    sockopt::set_int_option(sock.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_QUICKACK, 1)
}

/// Waits until `sock` is readable (or in error), up to `timeout` (`None`:
/// no limit). Returns whether it is; a timeout or a signal gives `false`.
pub fn wait_readable(sock: &impl AsRawFd, timeout: Option<Duration>) -> std::io::Result<bool> {
    Ok(sockopt::wait_readable(sock.as_raw_fd(), timeout)? != 0)
}

/// Waits until one of `socks` is readable (or in error), up to `timeout`
/// (`None`: no limit), for a server that listens on several sockets at
/// once (a camera's unicast and broadcast GVCP ports). Returns the index
/// of the first ready socket; a timeout or a signal gives `None`.
pub fn wait_readable_any(
    socks: &[&dyn AsRawFd],
    timeout: Option<Duration>,
) -> std::io::Result<Option<usize>> {
    let fds: Vec<_> = socks.iter().map(|s| s.as_raw_fd()).collect();
    sockopt::wait_readable_any(&fds, timeout)
}

/// How [`udp_bound`] prepares a socket before binding it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UdpBindOptions {
    /// SO_REUSEADDR: share the address with other sockets that set it
    /// (several servers hearing one broadcast port).
    pub reuse_address: bool,
    /// SO_BROADCAST: allow sending to broadcast addresses.
    pub broadcast: bool,
}

/// A UDP socket bound to `addr` with `options` set first. Without
/// `reuse_address` the bind is exclusive: a second socket on the same
/// address and port fails with `AddrInUse`.
pub fn udp_bound(addr: SocketAddrV4, options: UdpBindOptions) -> std::io::Result<UdpSocket> {
    let sock = socket2::Socket::new(
        socket2::Domain::IPV4,
        socket2::Type::DGRAM,
        Some(socket2::Protocol::UDP),
    )?;
    if options.reuse_address {
        sock.set_reuse_address(true)?;
    }
    if options.broadcast {
        sock.set_broadcast(true)?;
    }
    sock.bind(&addr.into())?;
    Ok(into_udp(sock))
}

/// A UDP socket that receives multicast group `group` at `port` on the
/// interface with address `interface`, with a receive buffer of
/// `recv_buffer` bytes. Several may bind the same group and port (each
/// gets every datagram), as several clients on one host do.
pub fn multicast_receiver(
    group: Ipv4Addr,
    port: u16,
    interface: Ipv4Addr,
    recv_buffer: usize,
) -> std::io::Result<UdpSocket> {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::DGRAM, None)?;
    set_recv_buffer(&sock, recv_buffer)?;
    sock.set_reuse_address(true)?;
    sock.bind(&SocketAddrV4::new(group, port).into())?;
    sock.join_multicast_v4(&group, &interface)?;
    Ok(into_udp(sock))
}

/// A UDP socket bound to an ephemeral port on every address, with a receive
/// buffer of `recv_buffer` bytes, for a client that then connects.
pub fn udp_client(recv_buffer: usize) -> std::io::Result<UdpSocket> {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::DGRAM, None)?;
    set_recv_buffer(&sock, recv_buffer)?;
    sock.bind(&SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0).into())?;
    Ok(into_udp(sock))
}

/// Makes `sock` send multicast out of the interface with address
/// `interface` only, `ttl` hops, and not looped back to this host.
pub fn set_multicast_sender(
    sock: &UdpSocket,
    interface: Ipv4Addr,
    ttl: u32,
) -> std::io::Result<()> {
    let s = socket2::SockRef::from(sock);
    s.set_multicast_if_v4(&interface)?;
    s.set_multicast_ttl_v4(ttl)?;
    s.set_multicast_loop_v4(false)
}

/// Connects a TCP client to `to` with a receive buffer of `recv_buffer`
/// bytes set before the handshake (so the window it advertises is that
/// small from the start), waiting up to `timeout` for the handshake. A
/// small buffer is how tests play a slow or stalled subscriber.
pub fn tcp_connect_with_recv_buffer(
    to: SocketAddrV4,
    recv_buffer: usize,
    timeout: Duration,
) -> std::io::Result<TcpStream> {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    sock.set_recv_buffer_size(recv_buffer)?;
    sock.connect_timeout(&SocketAddr::V4(to).into(), timeout)?;
    Ok(sock.into())
}

/// Asks the kernel to stamp every datagram `sock` receives with its
/// arrival time (SO_TIMESTAMPNS, CLOCK_REALTIME), read back by
/// [`recv_with_arrival_time`]. A receiver scheduled late on a busy machine
/// then still measures when packets arrived, not when it ran.
pub fn enable_arrival_times(sock: &UdpSocket) -> std::io::Result<()> {
    sockopt::set_int_option(sock.as_raw_fd(), libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)
}

/// Receives one datagram into `buf` with the kernel's arrival time (since
/// the epoch), after [`enable_arrival_times`]. Returns the datagram's
/// length and the time; a datagram without a stamp is an error of kind
/// `InvalidData`.
pub fn recv_with_arrival_time(
    sock: &UdpSocket,
    buf: &mut [u8],
) -> std::io::Result<(usize, Duration)> {
    // Room for one timespec control message, 8-byte aligned.
    let mut control = [0u64; 8];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: a zeroed msghdr is valid; the fields set below point at
    // `iov` and `control`, which outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control);
    // SAFETY: msg describes live buffers of the lengths given.
    let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, 0) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: msg was filled by recvmsg; CMSG_* walk its control buffer
    // within msg_controllen.
    let mut cmsg = unsafe { libc::CMSG_FIRSTHDR(&msg) };
    while !cmsg.is_null() {
        // SAFETY: cmsg is non-null and within the control buffer.
        let header = unsafe { &*cmsg };
        if header.cmsg_level == libc::SOL_SOCKET && header.cmsg_type == libc::SO_TIMESTAMPNS {
            // SAFETY: an SO_TIMESTAMPNS message carries one timespec; the
            // read is unaligned-safe.
            let ts: libc::timespec =
                unsafe { std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast()) };
            let at = Duration::new(
                u64::try_from(ts.tv_sec).unwrap_or(0),
                u32::try_from(ts.tv_nsec).unwrap_or(0),
            );
            return Ok((n as usize, at));
        }
        // SAFETY: as above.
        cmsg = unsafe { libc::CMSG_NXTHDR(&msg, cmsg) };
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "the datagram came without an arrival time (SO_TIMESTAMPNS not enabled?)",
    ))
}

/// Receives one datagram into `buf` with `MSG_DONTWAIT`, whatever the
/// socket's timeout: draining a queue never sleeps. An empty queue is an
/// error of kind `WouldBlock`. Returns the bytes received (a longer
/// datagram is cut to `buf`) and the sender.
pub fn recv_from_now(sock: &impl AsFd, buf: &mut [u8]) -> std::io::Result<(usize, SocketAddr)> {
    let sock = socket2::SockRef::from(sock);
    // SAFETY: MaybeUninit<u8> has the layout of u8, the slice covers
    // exactly `buf`, and recv only writes initialised bytes into it.
    let uninit = unsafe {
        std::slice::from_raw_parts_mut(
            buf.as_mut_ptr().cast::<std::mem::MaybeUninit<u8>>(),
            buf.len(),
        )
    };
    let (n, addr) = sock.recv_from_with_flags(uninit, libc::MSG_DONTWAIT)?;
    let addr = addr
        .as_socket()
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidData))?;
    Ok((n, addr))
}

/// The inode of the socket `sock`, which names it in /proc/net/udp and
/// /proc/net/tcp (where its drop counters are); `None` if fstat fails.
pub fn inode(sock: &impl AsRawFd) -> Option<u64> {
    // SAFETY: an all-zero stat is a valid value; fstat on a descriptor the
    // caller holds open writes only into it.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(sock.as_raw_fd(), &mut st) != 0 {
            return None;
        }
        Some(st.st_ino)
    }
}

/// A raw ICMPv4 socket, for a ping that needs no installed `ping` binary
/// (opening one needs CAP_NET_RAW).
#[derive(Debug)]
pub struct IcmpSocket(socket2::Socket);

impl IcmpSocket {
    /// Opens the socket.
    pub fn open() -> std::io::Result<IcmpSocket> {
        socket2::Socket::new(
            socket2::Domain::IPV4,
            socket2::Type::RAW,
            Some(socket2::Protocol::ICMPV4),
        )
        .map(IcmpSocket)
    }

    /// Sets "don't fragment" (`IP_PMTUDISC_DO`): a packet larger than the
    /// route's MTU then fails with `EMSGSIZE` instead of being fragmented,
    /// which is exactly the jumbo-frame check a camera link needs.
    pub fn set_dont_fragment(&self) -> std::io::Result<()> {
        sockopt::set_int_option(
            self.0.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_MTU_DISCOVER,
            libc::IP_PMTUDISC_DO as usize,
        )
    }

    /// Sends one ICMP message (header and payload, no IP header) to `to`.
    pub fn send_to(&self, message: &[u8], to: Ipv4Addr) -> std::io::Result<usize> {
        self.0.send_to(message, &SocketAddrV4::new(to, 0).into())
    }

    /// Receives one packet (IPv4 header and ICMP, as a raw socket returns
    /// it) into `buf`, waiting up to `timeout`; returns its length.
    pub fn recv(&self, buf: &mut [u8], timeout: Duration) -> std::io::Result<usize> {
        self.0.set_read_timeout(Some(timeout))?;
        std::io::Read::read(&mut &self.0, buf)
    }
}

fn into_udp(sock: socket2::Socket) -> UdpSocket {
    sock.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_apply_to_std_sockets() {
        let s = udp_client(1 << 20).expect("socket");
        assert!(set_send_buffer(&s, 1 << 20).is_ok());
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
        let c = std::net::TcpStream::connect(listener.local_addr().expect("addr")).expect("tcp");
        assert!(set_tcp_quickack(&c).is_ok());
        assert!(!wait_readable(&s, Some(Duration::from_millis(1))).expect("poll"));
        assert!(set_multicast_sender(&s, Ipv4Addr::LOCALHOST, 1).is_ok());
        assert!(inode(&s).is_some_and(|i| i > 0));
    }

    #[test]
    fn a_receive_that_never_sleeps_takes_what_is_queued() {
        let rx = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let mut buf = [0u8; 8];
        let e = recv_from_now(&rx, &mut buf).expect_err("nothing queued");
        assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
        let tx = UdpSocket::bind("127.0.0.1:0").expect("bind");
        tx.send_to(b"hello", rx.local_addr().expect("addr"))
            .expect("send");
        // Loopback queues the datagram before send_to returns.
        let (n, from) = recv_from_now(&rx, &mut buf).expect("queued");
        assert_eq!(&buf[..n], b"hello");
        assert_eq!(from, tx.local_addr().expect("addr"));
    }

    #[test]
    fn datagrams_carry_their_arrival_time_once_asked() {
        let rx = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let tx = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let to = rx.local_addr().expect("addr");
        let mut buf = [0u8; 64];
        tx.send_to(b"plain", to).expect("send");
        let err = recv_with_arrival_time(&rx, &mut buf).expect_err("no stamp yet");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        enable_arrival_times(&rx).expect("SO_TIMESTAMPNS");
        tx.send_to(b"stamped", to).expect("send");
        let (n, at) = recv_with_arrival_time(&rx, &mut buf).expect("recv");
        assert_eq!(&buf[..n], b"stamped");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock");
        assert!(
            at <= now && now - at < Duration::from_secs(5),
            "{at:?} vs {now:?}"
        );
    }

    #[test]
    fn a_tcp_client_connects_with_the_buffer_it_asked_for() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
        let Ok(std::net::SocketAddr::V4(at)) = listener.local_addr() else {
            panic!("v4 listener");
        };
        let c = tcp_connect_with_recv_buffer(at, 65536, Duration::from_secs(1)).expect("connect");
        let got = socket2::SockRef::from(&c)
            .recv_buffer_size()
            .expect("rcvbuf");
        // The kernel doubles what it is given, for its bookkeeping.
        assert!((65536..=2 * 65536).contains(&got), "{got}");
    }

    #[test]
    fn waits_on_several_sockets_and_names_the_ready_one() {
        let quiet = udp_bound(
            SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0),
            UdpBindOptions::default(),
        )
        .expect("bind");
        let busy = udp_bound(
            SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0),
            UdpBindOptions {
                reuse_address: true,
                broadcast: true,
            },
        )
        .expect("bind");
        let socks: [&dyn AsRawFd; 2] = [&quiet, &busy];
        let idle = wait_readable_any(&socks, Some(Duration::from_millis(1))).expect("poll");
        assert_eq!(idle, None);
        quiet
            .send_to(b"x", busy.local_addr().expect("addr"))
            .expect("send");
        let ready = wait_readable_any(&socks, Some(Duration::from_secs(5))).expect("poll");
        assert_eq!(ready, Some(1));
    }

    #[test]
    fn an_exclusive_bind_refuses_a_second_socket() {
        let first = udp_bound(
            SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0),
            UdpBindOptions::default(),
        )
        .expect("bind");
        let taken = match first.local_addr().expect("addr") {
            std::net::SocketAddr::V4(a) => a,
            std::net::SocketAddr::V6(_) => unreachable!("bound to IPv4"),
        };
        let err = udp_bound(taken, UdpBindOptions::default()).expect_err("in use");
        assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);
    }
}
