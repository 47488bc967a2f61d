//! Batched UDP: many datagrams per syscall, each gathered from two slices.

use std::net::{SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::AsRawFd;

use socket2::{Domain, Protocol, Socket, Type};

use crate::error::{Error, Result};
use crate::sockopt::{set_int_option, set_recv_buffer, set_send_buffer};

/// Most datagrams passed to one `sendmmsg`/`recvmmsg` (the kernel's UIO_MAXIOV bound).
pub const MAX_BATCH: usize = 1024;

/// Socket options chosen at bind time.
#[derive(Debug, Clone, Default)]
pub struct UdpOptions {
    /// Requested receive buffer (SO_RCVBUF) in bytes; the kernel caps it at
    /// `net.core.rmem_max` unless the process may use SO_RCVBUFFORCE.
    pub recv_buffer: Option<usize>,
    /// Requested send buffer (SO_SNDBUF) in bytes.
    pub send_buffer: Option<usize>,
    /// Set SO_REUSEADDR, so a restarted device can bind its port at once.
    pub reuse_address: bool,
}

/// A bound UDP socket with batched send and receive.
#[derive(Debug)]
pub struct UdpEndpoint {
    socket: UdpSocket,
    local: SocketAddr,
}

fn sock_err(op: &'static str, addr: SocketAddr) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Socket { op, addr, source }
}

impl UdpEndpoint {
    /// Binds to `addr` with `options`. As root, buffer sizes are forced past
    /// rmem_max/wmem_max; otherwise the kernel's cap applies and
    /// [`UdpEndpoint::recv_buffer`] tells what was granted.
    pub fn bind(addr: SocketAddrV4, options: &UdpOptions) -> Result<UdpEndpoint> {
        let sa = SocketAddr::V4(addr);
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))
            .map_err(sock_err("socket", sa))?;
        if options.reuse_address {
            socket
                .set_reuse_address(true)
                .map_err(sock_err("SO_REUSEADDR", sa))?;
        }
        if let Some(n) = options.recv_buffer {
            set_recv_buffer(socket.as_raw_fd(), n).map_err(sock_err("SO_RCVBUF", sa))?;
        }
        if let Some(n) = options.send_buffer {
            set_send_buffer(socket.as_raw_fd(), n).map_err(sock_err("SO_SNDBUF", sa))?;
        }
        socket.bind(&sa.into()).map_err(sock_err("bind", sa))?;
        let socket: UdpSocket = socket.into();
        let local = socket.local_addr().map_err(sock_err("getsockname", sa))?;
        Ok(UdpEndpoint { socket, local })
    }

    /// The bound address (with the port the kernel chose, if 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The receive buffer the kernel granted, in bytes (it reports double the
    /// usable size, as the kernel counts bookkeeping overhead).
    pub fn recv_buffer(&self) -> Result<usize> {
        socket2::SockRef::from(&self.socket)
            .recv_buffer_size()
            .map_err(sock_err("getsockopt SO_RCVBUF", self.local))
    }

    /// The underlying socket, for options this type does not wrap.
    pub fn socket(&self) -> &UdpSocket {
        &self.socket
    }

    /// Sets SO_BUSY_POLL: a receive on an empty queue spins in the driver
    /// for up to `us` microseconds instead of sleeping (NAPI devices only;
    /// raising it needs CAP_NET_ADMIN).
    pub fn set_busy_poll(&self, us: u32) -> Result<()> {
        set_int_option(
            self.socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_BUSY_POLL,
            us as usize,
        )
        .map_err(sock_err(
            "SO_BUSY_POLL (raising it needs CAP_NET_ADMIN)",
            self.local,
        ))
    }

    /// Attaches a socket filter that accepts nothing, so the kernel drops
    /// every datagram on arrival. For a socket that only holds a port (so
    /// the kernel sends no ICMP port-unreachable) while a packet ring reads
    /// the traffic.
    pub fn discard_all(&self) -> Result<()> {
        let mut program = [libc::sock_filter {
            code: 0x06, // BPF_RET | BPF_K: accept 0 bytes
            jt: 0,
            jf: 0,
            k: 0,
        }];
        let fprog = libc::sock_fprog {
            len: 1,
            filter: program.as_mut_ptr(),
        };
        // SAFETY: fprog points at a live one-instruction program for the call.
        let r = unsafe {
            libc::setsockopt(
                self.socket.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_ATTACH_FILTER,
                (&fprog as *const libc::sock_fprog).cast(),
                std::mem::size_of::<libc::sock_fprog>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(sock_err("SO_ATTACH_FILTER", self.local)(
                std::io::Error::last_os_error(),
            ));
        }
        Ok(())
    }

    /// Sends each `(head, data)` pair as one datagram to `dest`, in as few
    /// `sendmmsg` calls as possible. Returns the number of datagrams sent,
    /// which is less than asked only if the socket is non-blocking and full.
    pub fn send_gather(&self, dest: SocketAddrV4, datagrams: &[(&[u8], &[u8])]) -> Result<usize> {
        if datagrams.len() > MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: datagrams.len(),
                max: MAX_BATCH,
            });
        }
        let mut addr = sockaddr_in(dest);
        let mut iovecs: Vec<[libc::iovec; 2]> = datagrams
            .iter()
            .map(|(h, d)| {
                [
                    libc::iovec {
                        iov_base: h.as_ptr() as *mut libc::c_void,
                        iov_len: h.len(),
                    },
                    libc::iovec {
                        iov_base: d.as_ptr() as *mut libc::c_void,
                        iov_len: d.len(),
                    },
                ]
            })
            .collect();
        let mut msgs: Vec<libc::mmsghdr> = iovecs
            .iter_mut()
            .map(|iov| {
                // SAFETY: an all-zero msghdr is a valid "empty" value; every
                // pointer set below outlives the syscall.
                let mut hdr: libc::msghdr = unsafe { std::mem::zeroed() };
                hdr.msg_name = (&mut addr as *mut libc::sockaddr_in).cast();
                hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
                hdr.msg_iov = iov.as_mut_ptr();
                hdr.msg_iovlen = 2;
                libc::mmsghdr {
                    msg_hdr: hdr,
                    msg_len: 0,
                }
            })
            .collect();
        // SAFETY: every mmsghdr's name and iovecs point into `addr`,
        // `iovecs` and the caller's slices, all alive until we return.
        unsafe { send_all(&self.socket, &mut msgs, dest, "sendmmsg") }
    }

    /// Receives up to `bufs.len()` datagrams in one `recvmmsg` call, waiting
    /// for at least one. Writes each datagram's length and source into
    /// `meta` and returns how many arrived. A datagram longer than its buffer
    /// is truncated, and reported with `truncated` set.
    pub fn recv_batch(&self, bufs: &mut [&mut [u8]], meta: &mut [RecvMeta]) -> Result<usize> {
        let n = bufs.len().min(meta.len());
        if n > MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: n,
                max: MAX_BATCH,
            });
        }
        let mut iovecs: Vec<libc::iovec> = bufs[..n]
            .iter_mut()
            .map(|b| libc::iovec {
                iov_base: b.as_mut_ptr().cast(),
                iov_len: b.len(),
            })
            .collect();
        // SAFETY: zeroed sockaddr_in values are valid out-parameters.
        let mut addrs: Vec<libc::sockaddr_in> = vec![unsafe { std::mem::zeroed() }; n];
        let mut msgs: Vec<libc::mmsghdr> = iovecs
            .iter_mut()
            .zip(addrs.iter_mut())
            .map(|(iov, addr)| {
                // SAFETY: see send_gather.
                let mut hdr: libc::msghdr = unsafe { std::mem::zeroed() };
                hdr.msg_name = (addr as *mut libc::sockaddr_in).cast();
                hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
                hdr.msg_iov = iov;
                hdr.msg_iovlen = 1;
                libc::mmsghdr {
                    msg_hdr: hdr,
                    msg_len: 0,
                }
            })
            .collect();
        let got = loop {
            // SAFETY: msgs/iovecs/addrs point into live buffers for the call.
            let r = unsafe {
                libc::recvmmsg(
                    self.socket.as_raw_fd(),
                    msgs.as_mut_ptr(),
                    n as u32,
                    libc::MSG_WAITFORONE,
                    std::ptr::null_mut(),
                )
            };
            if r >= 0 {
                break r as usize;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(sock_err("recvmmsg", self.local)(e));
            }
        };
        for i in 0..got {
            let a = &addrs[i];
            meta[i] = RecvMeta {
                len: msgs[i].msg_len as usize,
                source: SocketAddrV4::new(
                    u32::from_be(a.sin_addr.s_addr).into(),
                    u16::from_be(a.sin_port),
                ),
                truncated: msgs[i].msg_hdr.msg_flags & libc::MSG_TRUNC != 0,
            };
        }
        Ok(got)
    }
}

impl UdpEndpoint {
    /// Sends datagrams of exactly `segment` bytes each (`head` + `data`)
    /// with UDP generic segmentation offload: several datagrams travel
    /// through the stack as one, and are cut into `segment`-byte datagrams
    /// at the last moment (by the NIC, or by the receiver's kernel on veth).
    /// Several such super-datagrams go in one `sendmmsg`. Nothing is copied
    /// in user space: the iovecs point at the caller's slices.
    ///
    /// Only the last datagram may be shorter than `segment`. Returns the
    /// number of datagrams sent; an error from the first call (for example
    /// EIO where the kernel or device cannot segment) tells the caller to
    /// fall back to [`UdpEndpoint::send_gather`].
    pub fn send_gso(
        &self,
        dest: SocketAddrV4,
        segment: usize,
        datagrams: &[(&[u8], &[u8])],
    ) -> Result<usize> {
        if segment == 0 || segment > MAX_GSO_BYTES {
            return Err(Error::GsoSegment { segment });
        }
        for (i, (h, d)) in datagrams.iter().enumerate() {
            let len = h.len() + d.len();
            if len > segment || (len != segment && i + 1 != datagrams.len()) {
                return Err(Error::GsoSegment { segment });
            }
        }
        // Datagrams per super-datagram: the kernel caps both the segment
        // count and the total size of one UDP GSO send.
        let per_message = (MAX_GSO_BYTES / segment).clamp(1, MAX_GSO_SEGMENTS);
        let mut addr = sockaddr_in(dest);
        let chunks: Vec<&[(&[u8], &[u8])]> = datagrams.chunks(per_message).collect();
        if chunks.len() > MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: chunks.len(),
                max: MAX_BATCH,
            });
        }
        let mut iovecs: Vec<Vec<libc::iovec>> = chunks
            .iter()
            .map(|c| {
                c.iter()
                    .flat_map(|(h, d)| [*h, *d])
                    .filter(|s| !s.is_empty())
                    .map(|s| libc::iovec {
                        iov_base: s.as_ptr() as *mut libc::c_void,
                        iov_len: s.len(),
                    })
                    .collect()
            })
            .collect();
        let cmsg_space = cmsg_space(std::mem::size_of::<u16>());
        let mut controls: Vec<Vec<u64>> = chunks
            .iter()
            .map(|_| vec![0u64; cmsg_space.div_ceil(8)])
            .collect();
        let mut msgs: Vec<libc::mmsghdr> = Vec::with_capacity(chunks.len());
        for (iov, control) in iovecs.iter_mut().zip(controls.iter_mut()) {
            // SAFETY: an all-zero msghdr is a valid empty value; every pointer
            // set here outlives the sendmmsg call below.
            let mut hdr: libc::msghdr = unsafe { std::mem::zeroed() };
            hdr.msg_name = (&mut addr as *mut libc::sockaddr_in).cast();
            hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
            hdr.msg_iov = iov.as_mut_ptr();
            hdr.msg_iovlen = iov.len();
            hdr.msg_control = control.as_mut_ptr().cast();
            hdr.msg_controllen = cmsg_space;
            // SAFETY: msg_control points to a zeroed buffer of CMSG_SPACE(2)
            // bytes, 8-byte aligned, so CMSG_FIRSTHDR/CMSG_DATA stay inside it.
            unsafe {
                let c = libc::CMSG_FIRSTHDR(&hdr);
                (*c).cmsg_level = libc::SOL_UDP;
                (*c).cmsg_type = libc::UDP_SEGMENT;
                (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<u16>() as u32) as usize;
                std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<u16>(), segment as u16);
            }
            msgs.push(libc::mmsghdr {
                msg_hdr: hdr,
                msg_len: 0,
            });
        }
        // SAFETY: names, iovecs and control buffers live in `addr`,
        // `iovecs` and `controls`, alive until we return.
        let sent_msgs = unsafe { send_all(&self.socket, &mut msgs, dest, "sendmmsg (UDP GSO)")? };
        Ok(chunks.iter().take(sent_msgs).map(|c| c.len()).sum())
    }
}

/// Calls `sendmmsg` until every message is sent, retrying on EINTR and
/// stopping early only when a non-blocking socket is full after some went.
/// Returns the number of messages sent.
///
/// # Safety
/// Every `mmsghdr` must point to a valid name, iovecs and (if any) control
/// buffer that stay alive for the duration of the call.
unsafe fn send_all(
    socket: &UdpSocket,
    msgs: &mut [libc::mmsghdr],
    dest: SocketAddrV4,
    op: &'static str,
) -> Result<usize> {
    let mut sent = 0usize;
    while sent < msgs.len() {
        let rest = &mut msgs[sent..];
        // SAFETY: guaranteed by the caller, see above.
        let n =
            unsafe { libc::sendmmsg(socket.as_raw_fd(), rest.as_mut_ptr(), rest.len() as u32, 0) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            match e.kind() {
                std::io::ErrorKind::Interrupted => continue,
                std::io::ErrorKind::WouldBlock if sent > 0 => break,
                _ => return Err(sock_err(op, SocketAddr::V4(dest))(e)),
            }
        }
        sent += n as usize;
    }
    Ok(sent)
}

/// Largest UDP payload one GSO send may carry in total.
pub const MAX_GSO_BYTES: usize = 65_507;
/// Most segments the kernel accepts in one UDP GSO send (UDP_MAX_SEGMENTS).
pub const MAX_GSO_SEGMENTS: usize = 64;

/// CMSG_SPACE for a payload of `len` bytes.
fn cmsg_space(len: usize) -> usize {
    // SAFETY: CMSG_SPACE is a pure size computation.
    unsafe { libc::CMSG_SPACE(len as u32) as usize }
}

/// What `recv_batch` learned about one datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecvMeta {
    /// Bytes written into the buffer.
    pub len: usize,
    /// Sender address.
    pub source: SocketAddrV4,
    /// The datagram did not fit its buffer and was cut.
    pub truncated: bool,
}

impl Default for RecvMeta {
    fn default() -> Self {
        RecvMeta {
            len: 0,
            source: SocketAddrV4::new([0, 0, 0, 0].into(), 0),
            truncated: false,
        }
    }
}

fn sockaddr_in(a: SocketAddrV4) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: a.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*a.ip()).to_be(),
        },
        sin_zero: [0; 8],
    }
}

impl UdpEndpoint {
    /// A second socket on this endpoint's address (which must have been
    /// bound with `reuse_address`), connected to `peer`: from now on the
    /// kernel delivers `peer`'s datagrams to it instead of the endpoint,
    /// and also the ICMP errors (port or host unreachable) that datagrams
    /// sent from the endpoint to `peer` provoke, which then show as the
    /// error of its next `recv` (ECONNREFUSED, EHOSTUNREACH, ...). An
    /// unconnected socket never hears of those errors, and one that asks
    /// for them (IP_RECVERR) fails its next send, to whatever destination,
    /// with them; this keeps each peer's errors to that peer. Non-blocking.
    pub fn connected_peer(&self, peer: SocketAddrV4) -> Result<UdpSocket> {
        let SocketAddr::V4(local) = self.local else {
            return Err(Error::Socket {
                op: "connected_peer",
                addr: self.local,
                source: std::io::ErrorKind::InvalidInput.into(),
            });
        };
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))
            .map_err(sock_err("socket", self.local))?;
        socket
            .set_reuse_address(true)
            .map_err(sock_err("SO_REUSEADDR", self.local))?;
        socket
            .bind(&SocketAddr::V4(local).into())
            .map_err(sock_err("bind", self.local))?;
        socket
            .connect(&SocketAddr::V4(peer).into())
            .map_err(sock_err("connect", SocketAddr::V4(peer)))?;
        socket
            .set_nonblocking(true)
            .map_err(sock_err("O_NONBLOCK", self.local))?;
        Ok(socket.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peers_datagrams_and_errors_reach_its_connected_socket_only() {
        let ep = UdpEndpoint::bind(
            SocketAddrV4::new([127, 0, 0, 1].into(), 0),
            &UdpOptions {
                reuse_address: true,
                ..UdpOptions::default()
            },
        )
        .expect("bind");
        ep.socket().set_nonblocking(true).expect("nonblocking");
        let SocketAddr::V4(server) = ep.local_addr() else {
            panic!("IPv4")
        };
        let peer = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let SocketAddr::V4(peer_addr) = peer.local_addr().expect("addr") else {
            panic!("IPv4")
        };
        let other = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let conn = ep.connected_peer(peer_addr).expect("connected socket");
        // The peer's datagram reaches the connected socket, another
        // sender's the endpoint.
        peer.send_to(b"renew", server).expect("send");
        other.send_to(b"hello", server).expect("send");
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut buf = [0u8; 16];
        assert_eq!(conn.recv(&mut buf).ok(), Some(5));
        assert_eq!(&buf[..5], b"renew");
        let (n, from) = ep.socket().recv_from(&mut buf).expect("endpoint");
        assert_eq!(
            (&buf[..n], from),
            (&b"hello"[..], other.local_addr().expect("a"))
        );
        // The peer goes away; the endpoint sends to it: the port
        // unreachable comes back on the connected socket, and the
        // endpoint's next send elsewhere is not failed by it.
        drop(peer);
        ep.socket().send_to(b"frame", peer_addr).expect("send");
        std::thread::sleep(std::time::Duration::from_millis(50));
        let err = conn.recv(&mut buf).expect_err("refused");
        assert_eq!(err.raw_os_error(), Some(libc::ECONNREFUSED));
        ep.socket()
            .send_to(b"frame", other.local_addr().expect("a"))
            .expect("the endpoint knows nothing of the error");
    }
}
