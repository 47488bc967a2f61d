//! Host side of a TCP stream: a listener the camera connects to, and
//! vectored reads that send each piece of the byte stream to its own place,
//! so a record's header lands in a side buffer and its data straight in a
//! frame buffer (one copy, by the kernel).
//!
//! The host listens because GigE Vision cameras send to where the host
//! points them (SCDA/SCP); over TCP the camera connects to that address.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::time::Duration;

use socket2::{Domain, Protocol, Socket, Type};

use crate::error::{Error, Result};
use crate::memory::Region;
use crate::sockopt::set_recv_buffer;

/// Most pieces one vectored read takes (the kernel's UIO_MAXIOV).
pub const MAX_PARTS: usize = 1024;

fn sock_err(op: &'static str, addr: SocketAddrV4) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Socket {
        op,
        addr: SocketAddr::V4(addr),
        source,
    }
}

/// A listening socket for one stream. Its receive buffer is set before
/// `listen`, so accepted connections inherit it and the window scale the
/// handshake announces can use all of it.
#[derive(Debug)]
pub struct StreamListener {
    listener: TcpListener,
    local: SocketAddrV4,
}

impl StreamListener {
    /// Listens on `addr` (port 0: the kernel picks one) with receive buffer
    /// `recv_buffer` bytes (forced past `net.core.rmem_max` where allowed).
    pub fn bind(addr: SocketAddrV4, recv_buffer: Option<usize>) -> Result<StreamListener> {
        let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))
            .map_err(sock_err("socket", addr))?;
        socket
            .set_reuse_address(true)
            .map_err(sock_err("SO_REUSEADDR", addr))?;
        if let Some(n) = recv_buffer {
            set_recv_buffer(socket.as_raw_fd(), n).map_err(sock_err("SO_RCVBUF", addr))?;
        }
        socket
            .bind(&SocketAddr::V4(addr).into())
            .map_err(sock_err("bind", addr))?;
        socket.listen(4).map_err(sock_err("listen", addr))?;
        socket
            .set_nonblocking(true)
            .map_err(sock_err("O_NONBLOCK", addr))?;
        let listener: TcpListener = socket.into();
        let local = match listener
            .local_addr()
            .map_err(sock_err("getsockname", addr))?
        {
            SocketAddr::V4(a) => a,
            SocketAddr::V6(_) => addr,
        };
        Ok(StreamListener { listener, local })
    }

    /// The address the camera must connect to.
    pub fn local_addr(&self) -> SocketAddrV4 {
        self.local
    }

    /// Waits up to `timeout` for a connection from `peer_ip`. Connections
    /// from any other address are closed at once and counted in `refused`,
    /// so a stray client can never inject records into a frame.
    pub fn accept_from(
        &self,
        peer_ip: Ipv4Addr,
        timeout: Duration,
        refused: &mut u64,
    ) -> Result<Option<StreamConnection>> {
        if !wait_readable(self.listener.as_raw_fd(), timeout)
            .map_err(sock_err("poll", self.local))?
        {
            return Ok(None);
        }
        loop {
            match self.listener.accept() {
                Ok((stream, SocketAddr::V4(from))) if *from.ip() == peer_ip => {
                    return StreamConnection::new(stream, from).map(Some);
                }
                Ok(_) => *refused += 1,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(Error::Socket {
                        op: "accept",
                        addr: SocketAddr::V4(self.local),
                        source,
                    })
                }
            }
        }
    }
}

/// An accepted stream connection with a cached receive timeout and a
/// reusable iovec array, so reading allocates nothing.
#[derive(Debug)]
pub struct StreamConnection {
    stream: TcpStream,
    peer: SocketAddrV4,
    timeout: Duration,
    iovecs: Vec<libc::iovec>,
}

// SAFETY: the iovec array holds raw pointers only between `set` and the
// read that uses them, both through `&mut self`; moving the connection to
// another thread moves no borrowed memory.
unsafe impl Send for StreamConnection {}

impl StreamConnection {
    fn new(stream: TcpStream, peer: SocketAddrV4) -> Result<StreamConnection> {
        stream
            .set_nonblocking(false)
            .map_err(sock_err("O_NONBLOCK off", peer))?;
        let mut c = StreamConnection {
            stream,
            peer,
            timeout: Duration::ZERO,
            iovecs: Vec::with_capacity(MAX_PARTS),
        };
        c.set_timeout(Duration::from_millis(10))?;
        Ok(c)
    }

    /// The camera's address.
    pub fn peer(&self) -> SocketAddrV4 {
        self.peer
    }

    /// Receive buffer the kernel granted, in usable bytes.
    pub fn recv_buffer(&self) -> usize {
        socket2::SockRef::from(&self.stream)
            .recv_buffer_size()
            .map_or(0, |n| n / 2)
    }

    /// Sets how long a read may block (changed only when it differs, as
    /// each change is a syscall). Zero is raised to 1 µs: the kernel reads
    /// zero as "forever".
    pub fn set_timeout(&mut self, timeout: Duration) -> Result<()> {
        let t = timeout.max(Duration::from_micros(1));
        if t != self.timeout {
            self.stream
                .set_read_timeout(Some(t))
                .map_err(sock_err("SO_RCVTIMEO", self.peer))?;
            self.timeout = t;
        }
        Ok(())
    }

    /// Reads into `buf`; `Ok(0)` is the end of the stream.
    pub fn recv(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::Read;
        loop {
            match self.stream.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                r => return r,
            }
        }
    }

    /// Reads the next bytes of the stream into `parts`, in order: the first
    /// bytes fill the first part, and so on. With `wait_all` the call waits
    /// until every part is full, the timeout passes or the stream ends, so a
    /// whole frame's records can come in one call. Returns the bytes read;
    /// `Ok(0)` is the end of the stream, a timeout with nothing read is an
    /// error of kind `WouldBlock`. Each region is lent under [`Region`]'s
    /// contract; parts beyond [`MAX_PARTS`] are ignored.
    pub fn recv_into(&mut self, parts: &[Region], wait_all: bool) -> std::io::Result<usize> {
        self.iovecs.clear();
        self.iovecs
            .extend(parts.iter().take(MAX_PARTS).map(Region::iovec));
        // SAFETY: msghdr is plain data; the fields set point at the live
        // iovec array, whose regions are lent under their contract.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = self.iovecs.as_mut_ptr();
        msg.msg_iovlen = self.iovecs.len();
        let flags = if wait_all { libc::MSG_WAITALL } else { 0 };
        loop {
            // SAFETY: a plain recvmsg on our descriptor with the message above.
            let n = unsafe { libc::recvmsg(self.stream.as_raw_fd(), &mut msg, flags) };
            if n >= 0 {
                return Ok(n as usize);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

/// poll(2) for readability; false on timeout.
fn wait_readable(fd: std::os::fd::RawFd, timeout: Duration) -> std::io::Result<bool> {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = libc::c_int::try_from(timeout.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
    loop {
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        if r >= 0 {
            return Ok(r > 0);
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn pair() -> (StreamConnection, TcpStream) {
        let l = StreamListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0), Some(1 << 20))
            .expect("listen");
        let client = TcpStream::connect(l.local_addr()).expect("connect");
        let mut refused = 0;
        let conn = l
            .accept_from(Ipv4Addr::LOCALHOST, Duration::from_secs(2), &mut refused)
            .expect("accept")
            .expect("a connection");
        assert_eq!(refused, 0);
        (conn, client)
    }

    #[test]
    fn vectored_read_splits_the_stream_across_parts_in_order() {
        let (mut conn, mut client) = pair();
        client
            .write_all(b"HEADdata-one|HEADdata-two")
            .expect("write");
        let mut head1 = [0u8; 4];
        let mut data1 = [0u8; 9];
        let mut head2 = [0u8; 4];
        let mut data2 = [0u8; 7];
        let parts = [
            Region::of(&mut head1),
            Region::of(&mut data1),
            Region::of(&mut head2),
            Region::of(&mut data2),
        ];
        conn.set_timeout(Duration::from_secs(2)).expect("timeout");
        // The four arrays outlive the call and are not borrowed meanwhile.
        let n = conn.recv_into(&parts, true).expect("read");
        assert_eq!(n, 24);
        assert_eq!(&head1, b"HEAD");
        assert_eq!(&data1, b"data-one|");
        assert_eq!(&data2, b"data-tw");
    }

    #[test]
    fn a_timeout_with_nothing_read_is_would_block_and_the_end_is_zero() {
        let (mut conn, client) = pair();
        conn.set_timeout(Duration::from_millis(20))
            .expect("timeout");
        let mut b = [0u8; 8];
        let e = conn.recv(&mut b).expect_err("nothing sent yet");
        assert!(matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ));
        drop(client);
        assert_eq!(conn.recv(&mut b).expect("eof"), 0);
    }

    #[test]
    fn connections_from_other_addresses_are_refused() {
        let l =
            StreamListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0), None).expect("listen");
        let _c = TcpStream::connect(l.local_addr()).expect("connect");
        let mut refused = 0;
        let got = l
            .accept_from(
                Ipv4Addr::new(169, 254, 9, 9),
                Duration::from_secs(2),
                &mut refused,
            )
            .expect("accept");
        assert!(got.is_none());
        assert_eq!(refused, 1);
    }
}
