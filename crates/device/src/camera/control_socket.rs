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

use anyhow::{Context, Result};
use socket2::{Domain, Protocol, Socket, Type};

/// The two GVCP sockets.
pub struct ControlSockets {
    unicast: UdpSocket,
    broadcast: UdpSocket,
}

fn bind(addr: SocketAddrV4, shared: bool) -> Result<UdpSocket> {
    let s = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP)).context("GVCP socket")?;
    if shared {
        s.set_reuse_address(true).context("SO_REUSEADDR")?;
    } else {
        s.set_broadcast(true).context("SO_BROADCAST")?;
    }
    s.bind(&SocketAddr::V4(addr).into()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            anyhow::anyhow!(
                "GVCP address {addr} is already in use: another camera (or program) is bound \
                 there; stop it, or give this camera another --bind address or --port"
            )
        } else {
            anyhow::Error::new(e).context(format!("cannot bind the GVCP port at {addr}"))
        }
    })?;
    Ok(s.into())
}

impl ControlSockets {
    /// Binds `ip:port` (exclusively) and `255.255.255.255:port` (shared).
    pub fn bind(ip: Ipv4Addr, port: u16) -> Result<ControlSockets> {
        let unicast = bind(SocketAddrV4::new(ip, port), false)?;
        let broadcast = bind(SocketAddrV4::new(Ipv4Addr::BROADCAST, port), true)?;
        Ok(ControlSockets { unicast, broadcast })
    }

    /// Waits up to `timeout` for a datagram on either socket and reads it
    /// into `buf`. Returns its length and sender, or None on timeout.
    pub fn recv(&self, buf: &mut [u8], timeout: Duration) -> Result<Option<(usize, SocketAddrV4)>> {
        let mut fds = [
            libc::pollfd {
                fd: self.unicast.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.broadcast.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: `fds` is a valid array of two pollfd for the whole call.
        let r = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                return Ok(None);
            }
            return Err(e).context("poll on GVCP sockets");
        }
        for (fd, sock) in fds.iter().zip([&self.unicast, &self.broadcast]) {
            if fd.revents & libc::POLLIN != 0 {
                let (n, from) = sock.recv_from(buf).context("recv on GVCP socket")?;
                if let SocketAddr::V4(from) = from {
                    return Ok(Some((n, from)));
                }
            }
        }
        Ok(None)
    }

    /// Sends a reply from the camera's own address.
    pub fn send(&self, datagram: &[u8], to: SocketAddrV4) -> Result<()> {
        self.unicast
            .send_to(datagram, to)
            .with_context(|| format!("send GVCP reply to {to}"))?;
        Ok(())
    }
}
