//! The `copy` backend: one `recvfrom` per datagram into a staging buffer,
//! then the assembler copies the payload into the frame. Two copies of every
//! byte and one syscall per packet: the baseline the others are measured against.

use std::net::SocketAddr;
use std::time::Duration;

use linerate_gev::assembler::Assembler;

use super::socket::StreamSocket;
use super::{ReceiveConfig, ReceiveStats};
use crate::clock::now_ns;
use crate::error::{Error, Result};

/// Largest datagram taken whole (9000-byte jumbo frames and then some).
pub(crate) const MAX_DATAGRAM: usize = 9216;

/// See the module docs.
#[derive(Debug)]
pub struct CopyReceiver {
    socket: StreamSocket,
    source: std::net::Ipv4Addr,
    staging: Box<[u8]>,
    stats: ReceiveStats,
}

impl CopyReceiver {
    /// Binds the stream socket.
    pub fn open(config: &ReceiveConfig) -> Result<CopyReceiver> {
        let socket = StreamSocket::open(config)?;
        Ok(CopyReceiver {
            source: config.source_ip,
            staging: vec![0u8; MAX_DATAGRAM + 1].into_boxed_slice(),
            stats: ReceiveStats {
                recv_buffer: socket.granted,
                ..ReceiveStats::default()
            },
            socket,
        })
    }

    /// Local port.
    pub fn port(&self) -> u16 {
        self.socket.port
    }

    /// Takes datagrams until none is waiting (the first wait up to `timeout`).
    pub fn receive(
        &mut self,
        assembler: &mut Assembler,
        timeout: Duration,
        refill: &mut dyn FnMut(&mut Assembler),
    ) -> Result<usize> {
        self.socket.set_timeout(timeout)?;
        let mut taken = 0;
        let mut blocking = true;
        loop {
            let r = if blocking {
                self.socket.endpoint.socket().recv_from(&mut self.staging)
            } else {
                nonblocking_recv(&self.socket, &mut self.staging)
            };
            let (n, from) = match r {
                Ok(v) => v,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Ok(taken)
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(Error::Socket {
                        op: "recvfrom",
                        addr: std::net::SocketAddrV4::new(self.source, 0),
                        source,
                    })
                }
            };
            if blocking {
                refill(assembler);
            }
            blocking = false;
            self.stats.syscalls += 1;
            self.stats.datagrams += 1;
            taken += 1;
            if !matches!(from, SocketAddr::V4(a) if *a.ip() == self.source) {
                self.stats.foreign += 1;
                continue;
            }
            if n > MAX_DATAGRAM {
                self.stats.truncated += 1;
                continue;
            }
            if let Some(d) = self.staging.get(..n) {
                self.stats.copied += 1;
                assembler.handle_packet(d, now_ns());
            }
            // Let the caller run resends and deliver frames now and then.
            if taken >= 256 {
                return Ok(taken);
            }
        }
    }

    /// Counters so far.
    pub fn stats(&mut self) -> ReceiveStats {
        self.stats.kernel_drops = self.socket.drops();
        self.stats
    }
}

/// `recvfrom` with MSG_DONTWAIT, so draining the queue never sleeps.
fn nonblocking_recv(socket: &StreamSocket, buf: &mut [u8]) -> std::io::Result<(usize, SocketAddr)> {
    linerate_io::socket::recv_from_now(socket.endpoint.socket(), buf)
}
