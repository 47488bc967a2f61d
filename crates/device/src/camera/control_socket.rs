//! The camera's GVCP sockets: one bound to the camera's address for unicast
//! commands, one bound to the limited broadcast address (255.255.255.255)
//! that receives broadcast discovery (a socket bound to a unicast address
//! never sees broadcasts). Replies always leave from the unicast socket, so
//! they carry the camera's own address.
//!
//! The unicast socket is bound exclusively: a second camera on the same
//! address and port fails to start with an error naming the address,
//! instead of silently sharing the port. The broadcast socket is shared
//! (SO_REUSEADDR), so several cameras on one host, each on its own address,
//! all hear discovery.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::Duration;

use linerate_io::socket::{udp_bound, wait_readable_any, UdpBindOptions};

use super::CameraError;

/// The two GVCP sockets.
pub struct ControlSockets {
    unicast: UdpSocket,
    broadcast: UdpSocket,
}

fn bind(addr: SocketAddrV4, shared: bool) -> Result<UdpSocket, CameraError> {
    let options = UdpBindOptions {
        reuse_address: shared,
        broadcast: !shared,
    };
    udp_bound(addr, options).map_err(|source| {
        if source.kind() == std::io::ErrorKind::AddrInUse {
            CameraError::ControlPortInUse { addr }
        } else {
            CameraError::ControlSocket { addr, source }
        }
    })
}

impl ControlSockets {
    /// Binds `ip:port` (exclusively) and `255.255.255.255:port` (shared).
    pub fn bind(ip: Ipv4Addr, port: u16) -> Result<ControlSockets, CameraError> {
        let unicast = bind(SocketAddrV4::new(ip, port), false)?;
        let broadcast = bind(SocketAddrV4::new(Ipv4Addr::BROADCAST, port), true)?;
        Ok(ControlSockets { unicast, broadcast })
    }

    /// Waits up to `timeout` for a datagram on either socket and reads it
    /// into `buf`. Returns its length and sender, or None on timeout.
    pub fn recv(
        &self,
        buf: &mut [u8],
        timeout: Duration,
    ) -> Result<Option<(usize, SocketAddrV4)>, CameraError> {
        let socks: [&dyn AsRawFd; 2] = [&self.unicast, &self.broadcast];
        let ready = wait_readable_any(&socks, Some(timeout))
            .map_err(|source| CameraError::ControlReceive { op: "poll", source })?;
        let Some(sock) = ready.and_then(|i| [&self.unicast, &self.broadcast].get(i).copied())
        else {
            return Ok(None);
        };
        let (n, from) = sock
            .recv_from(buf)
            .map_err(|source| CameraError::ControlReceive { op: "recv", source })?;
        Ok(match from {
            SocketAddr::V4(from) => Some((n, from)),
            SocketAddr::V6(_) => None,
        })
    }

    /// Sends a reply from the camera's own address.
    pub fn send(&self, datagram: &[u8], to: SocketAddrV4) -> std::io::Result<()> {
        self.unicast.send_to(datagram, to).map(|_| ())
    }

    /// The unicast socket's address (the port the kernel chose for port 0).
    pub fn local_addr(&self) -> Option<SocketAddrV4> {
        match self.unicast.local_addr() {
            Ok(SocketAddr::V4(a)) => Some(a),
            _ => None,
        }
    }
}
