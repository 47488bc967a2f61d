//! The `ring` backend: a PF_PACKET TPACKET_V3 ring with a BPF filter on the
//! camera's address and the stream port (`linerate_io::packet_ring`), the
//! method Aravis uses when it runs as root. The kernel copies each packet
//! into the shared ring, and the assembler copies the payload out again:
//! two copies, few syscalls.
//!
//! A UDP socket stays bound to the stream port, or the kernel would answer
//! every packet with ICMP port unreachable; a drop-everything socket filter
//! on it keeps the kernel from also queueing each datagram there.

use std::time::Duration;

use linerate_gev::assembler::Assembler;
use linerate_io::packet_ring::{PacketRing, RingConfig, UdpFilter};

use super::socket::StreamSocket;
use super::{ReceiveConfig, ReceiveStats};
use crate::clock::now_ns;
use crate::error::Result;

/// See the module docs.
#[derive(Debug)]
pub struct RingReceiver {
    /// Holds the port; receives nothing.
    socket: StreamSocket,
    ring: PacketRing,
    stats: ReceiveStats,
}

impl RingReceiver {
    /// Binds the port and opens the ring on the interface of `local_ip`.
    pub fn open(config: &ReceiveConfig) -> Result<RingReceiver> {
        let mut holder = config.clone();
        holder.recv_buffer = 4096;
        holder.source_port = None;
        let socket = StreamSocket::open(&holder)?;
        socket.endpoint.discard_all()?;
        let filter = UdpFilter {
            dst_port: socket.port,
            src_addr: Some(config.source_ip),
            src_port: config.source_port.filter(|&p| p != 0),
        };
        let ring = PacketRing::open(
            config.local_ip,
            &filter,
            &RingConfig::for_bytes(config.recv_buffer),
        )?;
        let granted = ring.config().total_bytes();
        Ok(RingReceiver {
            socket,
            ring,
            stats: ReceiveStats {
                recv_buffer: granted,
                ..ReceiveStats::default()
            },
        })
    }

    /// Local port.
    pub fn port(&self) -> u16 {
        self.socket.port
    }

    /// Waits up to `timeout` for a filled ring block, then hands every
    /// packet of every filled block to the assembler.
    pub fn receive(
        &mut self,
        assembler: &mut Assembler,
        timeout: Duration,
        refill: &mut dyn FnMut(&mut Assembler),
    ) -> Result<usize> {
        let mut refilled = false;
        let stats = &mut self.stats;
        let n = self
            .ring
            .for_each_packet(timeout, |payload, _source, _ts| {
                if !refilled {
                    refill(assembler);
                    refilled = true;
                }
                stats.datagrams += 1;
                stats.copied += 1;
                assembler.handle_packet(payload, now_ns());
            })?;
        if n > 0 {
            self.stats.syscalls += 1;
        }
        Ok(n)
    }

    /// Counters so far, with the ring's kernel drop count.
    pub fn stats(&mut self) -> ReceiveStats {
        if let Ok(s) = self.ring.stats() {
            self.stats.kernel_drops = s.drops;
        }
        self.stats
    }
}
