//! Stream receive backends: how GVSP datagrams get from the kernel into the
//! frame assembler, with how many copies and syscalls.
//!
//! | backend | syscalls | copies of each payload byte |
//! |---|---|---|
//! | `copy` | one `recvfrom` per packet | two: kernel → staging buffer → frame |
//! | `mmsg` | one `recvmmsg` per batch | one: kernel → frame (predicted place); two on a wrong guess |
//! | `ring` | one `poll` per ring block | two: kernel → mmap'ed ring → frame |
//!
//! `mmsg` also turns UDP GRO on: where the network device coalesces the
//! camera's packets it switches to train mode, one `recvmsg` per train of up
//! to 64 KiB with every packet scattered into its slot (one UDP receive per
//! train), and back to `recvmmsg` batches when trains stop coming.
//!
//! Every backend drops datagrams whose source address is not the camera's
//! before the assembler sees them, so spoofed or stray traffic on the port
//! cannot touch a frame.

mod copy;
mod guess;
mod mmsg;
mod ring;
mod socket;
mod tcp;
mod train;

use std::net::Ipv4Addr;
use std::time::Duration;

use linerate_gev::assembler::Assembler;

pub use copy::CopyReceiver;
pub use mmsg::MmsgReceiver;
pub use ring::RingReceiver;
pub use tcp::{TcpReceiver, TcpStats};

use crate::error::Result;

/// Which receive path to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// One `recvfrom` per packet into a staging buffer, then a copy into
    /// the frame: the two-copy baseline (what a filter driver does).
    Copy,
    /// `recvmmsg` batches scattered straight into the frame buffer: one copy.
    #[default]
    Mmsg,
    /// PF_PACKET TPACKET_V3 ring with a BPF filter (needs root): Aravis's
    /// method, for comparison.
    Ring,
}

impl Backend {
    /// All backends, for benchmarks.
    pub const ALL: [Backend; 3] = [Backend::Copy, Backend::Mmsg, Backend::Ring];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Copy => "copy",
            Backend::Mmsg => "mmsg",
            Backend::Ring => "ring",
        }
    }
}

impl std::str::FromStr for Backend {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Backend> {
        match s {
            "copy" => Ok(Backend::Copy),
            "mmsg" => Ok(Backend::Mmsg),
            "ring" => Ok(Backend::Ring),
            other => Err(crate::Error::BadSetting {
                what: "backend",
                value: other.into(),
                why: "expected copy, mmsg or ring".into(),
            }),
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How the stream travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// Standard GVSP datagrams; the [`Backend`] chooses how they are read.
    #[default]
    Udp,
    /// linerate's GVSP records on a TCP connection the camera opens to us
    /// (`docs/gvsp-over-tcp.md`): no loss, no resends, one copy.
    Tcp,
}

impl Transport {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Udp => "udp",
            Transport::Tcp => "tcp",
        }
    }
}

impl std::str::FromStr for Transport {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Transport> {
        match s {
            "udp" => Ok(Transport::Udp),
            "tcp" => Ok(Transport::Tcp),
            other => Err(crate::Error::BadSetting {
                what: "transport",
                value: other.into(),
                why: "expected udp or tcp".into(),
            }),
        }
    }
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Socket settings shared by the backends.
#[derive(Debug, Clone)]
pub struct ReceiveConfig {
    /// UDP datagrams or TCP records.
    pub transport: Transport,
    /// The backend (UDP only).
    pub backend: Backend,
    /// Local address to receive on (the interface facing the camera).
    pub local_ip: Ipv4Addr,
    /// Local UDP port; 0 lets the kernel choose (then tell the camera).
    pub port: u16,
    /// Only datagrams from this address are accepted.
    pub source_ip: Ipv4Addr,
    /// The camera's stream source port (its SCSP register), when known: the
    /// socket is then connected to it, so the kernel drops other senders
    /// itself and finds the socket by early demux, without a route lookup.
    pub source_port: Option<u16>,
    /// Receive buffer to ask for (SO_RCVBUF, or the ring's size), bytes.
    pub recv_buffer: usize,
    /// SO_BUSY_POLL in microseconds: spin in the driver instead of
    /// sleeping for that long when the queue is empty (NAPI devices only).
    pub busy_poll_us: Option<u32>,
    /// Most datagrams per `recvmmsg`.
    pub batch: usize,
    /// Receive moderation, microseconds (0: off). After a receive that did
    /// not fill a batch, the receive thread sleeps this long before the next
    /// one, so packets arriving meanwhile are taken in one call and one
    /// wakeup instead of one each. Like a NIC's interrupt coalescing, it
    /// trades at most this much delivery latency for far fewer wakeups,
    /// syscalls and context switches; a full batch is never delayed, so at
    /// high rates it costs nothing.
    pub coalesce_us: u32,
    /// `mmsg`: turn UDP GRO on and take coalesced trains whole.
    pub gro: bool,
    /// TCP: the largest record (headers and data) to take whole into a
    /// staging buffer when its place in a frame is not known; larger ones
    /// are skipped. The transfer size plus headers is enough.
    pub max_record: usize,
}

impl ReceiveConfig {
    /// Defaults for a stream of frames of `payload_size` bytes from
    /// `source_ip` arriving on `local_ip`: the `mmsg` backend, a receive
    /// buffer of four frames (at least 8 MiB, at most 256 MiB) so a
    /// scheduling hiccup of a few frame times loses nothing, batches of 64.
    pub fn new(local_ip: Ipv4Addr, source_ip: Ipv4Addr, payload_size: usize) -> ReceiveConfig {
        ReceiveConfig {
            backend: Backend::default(),
            local_ip,
            port: 0,
            source_ip,
            source_port: None,
            recv_buffer: recv_buffer_for(payload_size),
            busy_poll_us: None,
            batch: 64,
            coalesce_us: DEFAULT_COALESCE_US,
            gro: true,
            transport: Transport::Udp,
            max_record: 0,
        }
    }
}

/// Default receive moderation: off. Measured on the veth bench (1024×1024
/// at 60 fps, 8000-byte packets, three runs each in alternation), a 100 µs
/// pause cost 0.87–1.03 CPU-s/GB against 0.76–0.79 without: the GRO train
/// path already takes several packets per wakeup, and in a VM each timed
/// sleep costs more than the wakeups it saves. Kept as an option for hosts
/// where the trade-off differs.
pub const DEFAULT_COALESCE_US: u32 = 0;

/// Receive buffer for frames of `payload_size`: 4 frames, clamped to 8..=256 MiB.
pub fn recv_buffer_for(payload_size: usize) -> usize {
    payload_size.saturating_mul(4).clamp(8 << 20, 256 << 20)
}

/// What a backend counted, beyond the assembler's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReceiveStats {
    /// Receive syscalls that returned data.
    pub syscalls: u64,
    /// Datagrams taken from the kernel.
    pub datagrams: u64,
    /// Datagrams dropped because they came from another address.
    pub foreign: u64,
    /// Datagrams longer than the receive buffers (cut, then ignored).
    pub truncated: u64,
    /// `mmsg`: payload packets that landed where predicted (no copy).
    pub placed_in_frame: u64,
    /// `mmsg`: receives that returned a coalesced train (UDP GRO).
    pub trains: u64,
    /// `mmsg`: datagrams that needed a fallback copy.
    pub copied: u64,
    /// Packets the kernel dropped (ring statistics or socket drops), when known.
    pub kernel_drops: u64,
    /// Receive buffer the kernel granted, bytes.
    pub recv_buffer: usize,
    /// TCP transport counters (zero on UDP).
    pub tcp: TcpStats,
}

/// One of the backends, ready to receive.
#[derive(Debug)]
pub enum Receiver {
    /// See [`Backend::Copy`].
    Copy(CopyReceiver),
    /// See [`Backend::Mmsg`] (boxed: it is much larger than the others).
    Mmsg(Box<MmsgReceiver>),
    /// See [`Backend::Ring`].
    Ring(RingReceiver),
    /// See [`Transport::Tcp`] (boxed: it holds its side buffers inline).
    Tcp(Box<TcpReceiver>),
}

impl Receiver {
    /// Opens the backend `config` names.
    pub fn open(config: &ReceiveConfig) -> Result<Receiver> {
        if config.transport == Transport::Tcp {
            return Ok(Receiver::Tcp(Box::new(TcpReceiver::open(config)?)));
        }
        Ok(match config.backend {
            Backend::Copy => Receiver::Copy(CopyReceiver::open(config)?),
            Backend::Mmsg => Receiver::Mmsg(Box::new(MmsgReceiver::open(config)?)),
            Backend::Ring => Receiver::Ring(RingReceiver::open(config)?),
        })
    }

    /// The local port the camera must send to (UDP) or connect to (TCP).
    pub fn port(&self) -> u16 {
        match self {
            Receiver::Copy(r) => r.port(),
            Receiver::Mmsg(r) => r.port(),
            Receiver::Ring(r) => r.port(),
            Receiver::Tcp(r) => r.port(),
        }
    }

    /// Waits up to `timeout` for datagrams and hands every one to `assembler`;
    /// returns how many were taken (0 on timeout). `refill` runs when the
    /// wait ends, before any packet is handed over, so buffers the
    /// application queued meanwhile are there for them.
    pub fn receive(
        &mut self,
        assembler: &mut Assembler,
        timeout: Duration,
        refill: &mut dyn FnMut(&mut Assembler),
    ) -> Result<usize> {
        match self {
            Receiver::Copy(r) => r.receive(assembler, timeout, refill),
            Receiver::Mmsg(r) => r.receive(assembler, timeout, refill),
            Receiver::Ring(r) => r.receive(assembler, timeout, refill),
            Receiver::Tcp(r) => r.receive(assembler, timeout, refill),
        }
    }

    /// Counters so far.
    pub fn stats(&mut self) -> ReceiveStats {
        match self {
            Receiver::Copy(r) => r.stats(),
            Receiver::Mmsg(r) => r.stats(),
            Receiver::Ring(r) => r.stats(),
            Receiver::Tcp(r) => r.stats(),
        }
    }
}
