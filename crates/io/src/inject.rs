//! Sending hand-made IPv4 packets, source address included, through a raw
//! IPPROTO_RAW socket. Attack and fault tests use it to do what an
//! attacker on the segment can: forge a datagram that claims to come from
//! the host that controls a camera or subscribes to a server. Needs
//! CAP_NET_RAW.

use std::io;
use std::net::{SocketAddr, SocketAddrV4};

use socket2::{Domain, Protocol, Socket, Type};

/// A raw socket that sends whole IPv4 packets as given (IP_HDRINCL).
#[derive(Debug)]
pub struct Ipv4Injector {
    socket: Socket,
}

impl Ipv4Injector {
    /// Opens the raw socket in the calling thread's network namespace.
    pub fn open() -> io::Result<Ipv4Injector> {
        let socket = Socket::new(
            Domain::IPV4,
            Type::RAW,
            Some(Protocol::from(libc::IPPROTO_RAW)),
        )?;
        Ok(Ipv4Injector { socket })
    }

    /// Sends `packet` (an IPv4 header and what follows) towards `to`; the
    /// kernel routes by `to`'s address and sends the header unchanged.
    pub fn send(&self, packet: &[u8], to: SocketAddrV4) -> io::Result<usize> {
        self.socket.send_to(packet, &SocketAddr::V4(to).into())
    }
}
