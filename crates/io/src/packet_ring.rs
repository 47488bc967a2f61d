//! A PF_PACKET receive ring (TPACKET_V3) behind a classic BPF filter: the
//! "ring" receive backend of the GigE Vision host, and the baseline the
//! `recvmmsg` backends are measured against.
//!
//! This is the method Aravis uses when it runs as root. The kernel copies
//! every packet that passes the filter into a block of a ring shared with
//! user space through `mmap`; user space reads the UDP payloads where they
//! lie and hands each block back. A busy stream costs no syscall per
//! packet, and none at all while blocks are waiting; an idle one costs a
//! `ppoll`.
//!
//! # Socket type
//!
//! The socket is `SOCK_RAW`, bound to `ETH_P_IP` on the interface owning
//! the local address, with `PACKET_VNET_HDR` on. `SOCK_DGRAM` would start
//! each packet at its IP header and spare the 14-byte Ethernet header, but
//! the kernel offers the virtio-net header only on `SOCK_RAW` sockets, and
//! that header is the only place the ring learns the segment size of a UDP
//! GSO train. Packet sockets see such a train (datagrams sent in one go
//! with [`crate::udp::UdpEndpoint::send_gso`], or merged on receive by UDP
//! GRO) as one packet whenever it is cut into datagrams only later, by the
//! UDP layer: on loopback, on veth links in their default state
//! (tx-udp-segmentation on passes trains through; linerate's own senders
//! use [`crate::udp::UdpEndpoint::send_datagrams`], which sends standard
//! datagrams there), and after GRO when a socket on the port enables UDP_GRO or the
//! interface has rx-gro-list or rx-udp-gro-forwarding on.
//! [`PacketRing::for_each_packet`] cuts trains the same way the UDP layer
//! does. On kernels whose virtio-net header has no UDP segmentation type
//! (before Linux 6.2) the kernel drops trains from the ring and counts them
//! in [`RingStats::drops`], rather than handing a train over as one
//! datagram. Because the socket is raw, the filter reads Ethernet frames,
//! and only Ethernet-framed interfaces (and loopback) are accepted.
//!
//! # Filter
//!
//! The classic BPF program, attached before the socket is bound so no
//! unfiltered packet ever enters the ring, keeps a frame only if it
//!
//! * was addressed to this host (unicast, broadcast or multicast: not a
//!   copy of our own outgoing traffic, nor another host's frame seen in
//!   promiscuous mode),
//! * is IPv4 with a header of 5 to 15 words,
//! * carries UDP and is not a fragment (GVSP never fragments; fragments
//!   would need reassembly the ring cannot do),
//! * comes from [`UdpFilter::src_addr`] and [`UdpFilter::src_port`] if
//!   given, and goes to [`UdpFilter::dst_port`] (the UDP header is found
//!   through the real IP header length, options included).
//!
//! User space checks the headers again ([`parse_ipv4_udp`]), since the
//! filter does not check lengths; packets failing there are counted in
//! [`RingStats::rejected`]. UDP checksums are not verified (the Ethernet
//! FCS has already caught corruption on the wire), nor are they by Aravis.
//!
//! # Latency
//!
//! With TPACKET_V3 the kernel hands a block to user space only when it is
//! full or when it has been open for [`RingConfig::block_timeout_ms`]. A
//! lone packet (the last one of a frame, a GVSP trailer) therefore waits
//! up to that timeout. One millisecond is the smallest the kernel accepts
//! (`tp_retire_blk_tov` counts milliseconds) and is the default. Kernels
//! that run the retire timer on jiffies round it up to a whole tick (4 ms at
//! HZ=250); on Linux 6.18, which uses a high-resolution timer, the test
//! bench sees lone packets handed over within a millisecond.
//!
//! # The ring copies, it does not steal
//!
//! Packets still go up the IP stack after the ring has its copy. Keep a UDP
//! socket bound to the stream port (unread, with a small buffer), as Aravis
//! does: otherwise the kernel answers every packet with an ICMP port
//! unreachable.
//!
//! Opening a ring needs CAP_NET_RAW.

use std::mem::{offset_of, size_of};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::{AsRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::netdev::Link;
use crate::sockopt::{raw_socket, set_option};

/// Which UDP packets the ring keeps: everything else is dropped in the
/// kernel by a classic BPF filter, before it costs a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpFilter {
    /// Destination port (the stream channel's host port).
    pub dst_port: u16,
    /// Only packets from this address (the camera), if given.
    pub src_addr: Option<Ipv4Addr>,
    /// Only packets from this port (the camera's stream source port), if
    /// given.
    pub src_port: Option<u16>,
}

impl UdpFilter {
    /// Keeps every UDP packet to `dst_port`, whoever sent it.
    pub fn port(dst_port: u16) -> UdpFilter {
        UdpFilter {
            dst_port,
            src_addr: None,
            src_port: None,
        }
    }

    /// The classic BPF program, reading Ethernet frames.
    pub(crate) fn program(&self) -> Vec<libc::sock_filter> {
        use libc::{
            BPF_ABS, BPF_B, BPF_H, BPF_IND, BPF_JEQ, BPF_JGE, BPF_JGT, BPF_JMP, BPF_JSET, BPF_K,
            BPF_LD, BPF_LDX, BPF_MSH, BPF_W,
        };
        let mut p = BpfBuilder::default();
        // Frames for this host only: PACKET_HOST, _BROADCAST, _MULTICAST are
        // 0..=2; OTHERHOST, OUTGOING and LOOPBACK come after.
        p.stmt(BPF_LD | BPF_W | BPF_ABS, ANCILLARY_PKTTYPE);
        p.reject_if(BPF_JMP | BPF_JGT | BPF_K, u32::from(libc::PACKET_MULTICAST));
        p.stmt(BPF_LD | BPF_H | BPF_ABS, ETHERTYPE_OFFSET);
        p.require(BPF_JMP | BPF_JEQ | BPF_K, ETHERTYPE_IPV4);
        // Version 4 and a header of 5 to 15 words: 0x45..=0x4f.
        p.stmt(BPF_LD | BPF_B | BPF_ABS, IP_OFFSET);
        p.require(BPF_JMP | BPF_JGE | BPF_K, 0x45);
        p.reject_if(BPF_JMP | BPF_JGT | BPF_K, 0x4f);
        p.stmt(BPF_LD | BPF_B | BPF_ABS, IP_OFFSET + 9);
        p.require(BPF_JMP | BPF_JEQ | BPF_K, u32::from(IPPROTO_UDP));
        // More-fragments flag or a fragment offset: a fragment.
        p.stmt(BPF_LD | BPF_H | BPF_ABS, IP_OFFSET + 6);
        p.reject_if(BPF_JMP | BPF_JSET | BPF_K, 0x3fff);
        if let Some(addr) = self.src_addr {
            p.stmt(BPF_LD | BPF_W | BPF_ABS, IP_OFFSET + 12);
            p.require(BPF_JMP | BPF_JEQ | BPF_K, u32::from(addr));
        }
        // X = IP header length in bytes; the UDP header follows it.
        p.stmt(BPF_LDX | BPF_B | BPF_MSH, IP_OFFSET);
        if let Some(port) = self.src_port {
            p.stmt(BPF_LD | BPF_H | BPF_IND, IP_OFFSET);
            p.require(BPF_JMP | BPF_JEQ | BPF_K, u32::from(port));
        }
        p.stmt(BPF_LD | BPF_H | BPF_IND, IP_OFFSET + 2);
        p.require(BPF_JMP | BPF_JEQ | BPF_K, u32::from(self.dst_port));
        p.finish()
    }
}

/// Ring geometry. The ring is `block_count` blocks of `block_size` bytes;
/// the kernel packs packets back to back into the block it is filling and
/// hands it over when it is full or `block_timeout_ms` has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingConfig {
    /// Bytes per block: a multiple of the page size, and larger than the
    /// largest packet (up to 64 KiB for a UDP GSO train on veth), which is
    /// cut to fit otherwise. Larger blocks mean fewer hand-overs.
    pub block_size: usize,
    /// Number of blocks. The ring holds `block_size * block_count` bytes of
    /// packets: what arrives while user space is that far behind is kept,
    /// the rest dropped (and counted).
    pub block_count: usize,
    /// Frame size the kernel checks the geometry with (a multiple of 16,
    /// at most the block size). TPACKET_V3 does not store packets in
    /// fixed frames, so it limits nothing; 16 KiB is jumbo-safe for the
    /// older ring versions that do.
    pub frame_size: usize,
    /// Longest time a block with packets in it stays with the kernel
    /// before it is handed over part-filled, in milliseconds. It bounds the
    /// latency of a lone packet. 0 lets the kernel derive it from the link
    /// speed (8 ms when unknown).
    pub block_timeout_ms: u32,
}

impl Default for RingConfig {
    /// 64 blocks of 1 MiB (64 MiB, about 50 ms of a 10 Gbit/s stream),
    /// 16 KiB frames, 1 ms block timeout.
    fn default() -> Self {
        RingConfig {
            block_size: 1 << 20,
            block_count: 64,
            frame_size: 16 << 10,
            block_timeout_ms: 1,
        }
    }
}

impl RingConfig {
    /// A ring of about `total` bytes (rounded up to whole blocks): blocks of
    /// an eighth of it, a power of two between 128 KiB (room for a 64 KiB
    /// GSO train) and 1 MiB, and at least four blocks, so the kernel can
    /// fill one while user space reads others. Frame size and timeout are
    /// the defaults.
    pub fn for_bytes(total: usize) -> RingConfig {
        const MIN_BLOCK: usize = 128 << 10;
        const MIN_BLOCKS: usize = 4;
        let d = RingConfig::default();
        let wanted = (total / 8).clamp(MIN_BLOCK, d.block_size);
        let block_size = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        RingConfig {
            block_size,
            block_count: total.div_ceil(block_size).max(MIN_BLOCKS),
            ..d
        }
    }

    /// Bytes of packet memory the ring maps (`block_size * block_count`),
    /// saturating if that overflows.
    pub fn total_bytes(&self) -> usize {
        self.block_size.saturating_mul(self.block_count)
    }

    fn refused(&self, source: std::io::Error) -> Error {
        Error::RingRefused {
            block_size: self.block_size,
            block_count: self.block_count,
            frame_size: self.frame_size,
            source,
        }
    }

    /// The PACKET_RX_RING request, after the checks the kernel would make,
    /// so a bad geometry is reported with a reason rather than EINVAL.
    fn request(&self) -> Result<libc::tpacket_req3> {
        let refuse =
            |why: String| self.refused(std::io::Error::new(std::io::ErrorKind::InvalidInput, why));
        let page = page_size();
        if self.block_size == 0 || self.block_size % page != 0 {
            return Err(refuse(format!(
                "block size must be a non-zero multiple of the page size ({page} bytes)"
            )));
        }
        if self.block_count == 0 {
            return Err(refuse("a ring needs at least one block".into()));
        }
        if self.frame_size % libc::TPACKET_ALIGNMENT != 0
            || self.frame_size < libc::TPACKET3_HDRLEN
            || self.frame_size > self.block_size
        {
            return Err(refuse(format!(
                "frame size must be a multiple of {} between {} and the block size",
                libc::TPACKET_ALIGNMENT,
                libc::TPACKET3_HDRLEN
            )));
        }
        let frames = (self.block_size / self.frame_size).checked_mul(self.block_count);
        let fit = |n: usize| u32::try_from(n).ok();
        match (
            fit(self.block_size),
            fit(self.block_count),
            fit(self.frame_size),
            frames.and_then(fit),
            self.block_size.checked_mul(self.block_count),
        ) {
            (Some(block), Some(blocks), Some(frame), Some(frames), Some(_)) => {
                Ok(libc::tpacket_req3 {
                    tp_block_size: block,
                    tp_block_nr: blocks,
                    tp_frame_size: frame,
                    tp_frame_nr: frames,
                    tp_retire_blk_tov: self.block_timeout_ms,
                    tp_sizeof_priv: 0,
                    tp_feature_req_word: 0,
                })
            }
            _ => Err(refuse(
                "sizes and frame count must fit the kernel's 32-bit fields".into(),
            )),
        }
    }
}

/// Ring statistics, cumulative since the ring was opened: the kernel's
/// counters (which it resets on every read, so they are summed here) and
/// what user space turned away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RingStats {
    /// Packets that passed the filter, including those then dropped for
    /// lack of room (tp_packets; the kernel counts a GSO train once).
    pub packets: u64,
    /// Packets dropped because the ring was full, i.e. user space fell
    /// behind (tp_drops).
    pub drops: u64,
    /// Times the kernel found the next block still in user hands and froze
    /// the ring (tp_freeze_q_cnt): a sign the ring is too small or its
    /// reader too slow.
    pub queue_freezes: u64,
    /// Packets that passed the filter but failed the header checks of
    /// [`parse_ipv4_udp`], e.g. cut short because they did not fit a block.
    pub rejected: u64,
}

impl RingStats {
    /// Packets the ring received and kept (`packets - drops`).
    pub fn kept(&self) -> u64 {
        self.packets.saturating_sub(self.drops)
    }
}

/// An IPv4/UDP packet's addresses and payload, borrowed from the bytes it
/// was parsed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpPacket<'a> {
    /// Sender address and port.
    pub source: SocketAddrV4,
    /// Destination address and port.
    pub destination: SocketAddrV4,
    /// The UDP payload, exactly as long as the UDP header says.
    pub payload: &'a [u8],
}

/// Parses an IPv4 packet carrying a whole UDP datagram, starting at the IP
/// header. It is the check every ring packet goes through, since the ring
/// trusts nothing the BPF filter did not verify: returns `None`, never
/// panicking, unless the version is 4, the header length is 5 to 15 words
/// and within the IP total length, the total length is within `packet`
/// (bytes past it, such as Ethernet padding, are ignored), the protocol is
/// UDP, the packet is not a fragment, and the UDP length covers the UDP
/// header and fits the IP payload. Checksums are not verified.
pub fn parse_ipv4_udp(packet: &[u8]) -> Option<UdpPacket<'_>> {
    let first = *packet.first()?;
    if first >> 4 != 4 {
        return None;
    }
    let header_len = usize::from(first & 0x0f) * 4;
    if header_len < IPV4_MIN_HEADER {
        return None;
    }
    let total_len = usize::from(be16(packet, 2)?);
    if total_len < header_len + UDP_HEADER || total_len > packet.len() {
        return None;
    }
    let ip = &packet[..total_len];
    if be16(ip, 6)? & 0x3fff != 0 || ip[9] != IPPROTO_UDP {
        return None;
    }
    let udp = &ip[header_len..];
    let udp_len = usize::from(be16(udp, 4)?);
    if udp_len < UDP_HEADER || udp_len > udp.len() {
        return None;
    }
    let addr = |at: usize| Ipv4Addr::new(ip[at], ip[at + 1], ip[at + 2], ip[at + 3]);
    Some(UdpPacket {
        source: SocketAddrV4::new(addr(12), be16(udp, 0)?),
        destination: SocketAddrV4::new(addr(16), be16(udp, 2)?),
        payload: &udp[UDP_HEADER..udp_len],
    })
}

/// A PF_PACKET TPACKET_V3 receive ring on one interface, keeping the UDP
/// packets a [`UdpFilter`] selects. Dropping it unmaps the ring and closes
/// the socket.
#[derive(Debug)]
pub struct PacketRing {
    fd: OwnedFd,
    ring: NonNull<u8>,
    ring_len: usize,
    config: RingConfig,
    next_block: usize,
    interface: String,
    ifindex: u32,
    stats: RingStats,
}

// SAFETY: the mapping is owned by this value alone, nothing else points into
// it, and it is only read or handed back through `&mut self`; moving the
// ring to another thread is like moving a `Vec`.
unsafe impl Send for PacketRing {}

impl PacketRing {
    /// Opens a ring on the interface that owns `local_ip` (found with
    /// getifaddrs), keeping the packets `filter` selects: creates an
    /// AF_PACKET `SOCK_RAW` socket, attaches the BPF filter, sets up a
    /// TPACKET_V3 receive ring of `config`'s geometry, maps it, and only
    /// then binds to the interface, so nothing unfiltered gets in.
    ///
    /// Needs CAP_NET_RAW ([`Error::NeedsCapNetRaw`] otherwise). The ring is
    /// filled from the moment this returns.
    pub fn open(local_ip: Ipv4Addr, filter: &UdpFilter, config: &RingConfig) -> Result<PacketRing> {
        let request = config.request()?;
        let link = Link::owning(local_ip)?;
        if link.hatype != libc::ARPHRD_ETHER && link.hatype != libc::ARPHRD_LOOPBACK {
            return Err(Error::UnsupportedLink {
                interface: link.name,
                hatype: link.hatype,
            });
        }
        let fd = raw_socket(libc::AF_PACKET, |source| Error::PacketSocket {
            op: "socket",
            interface: link.name.clone(),
            source,
        })?;
        let raw_fd = fd.as_raw_fd();
        let fail = |op: &'static str| {
            let interface = link.name.clone();
            move |source| Error::PacketSocket {
                op,
                interface,
                source,
            }
        };

        let program = filter.program();
        let fprog = libc::sock_fprog {
            // The program has at most 20 instructions.
            len: program.len() as u16,
            filter: program.as_ptr().cast_mut(),
        };
        set_option(raw_fd, libc::SOL_SOCKET, libc::SO_ATTACH_FILTER, &fprog)
            .map_err(fail("SO_ATTACH_FILTER"))?;
        let version = libc::tpacket_versions::TPACKET_V3 as libc::c_int;
        set_option(raw_fd, libc::SOL_PACKET, libc::PACKET_VERSION, &version)
            .map_err(fail("PACKET_VERSION TPACKET_V3"))?;
        let on: libc::c_int = 1;
        set_option(raw_fd, libc::SOL_PACKET, libc::PACKET_VNET_HDR, &on)
            .map_err(fail("PACKET_VNET_HDR"))?;
        set_option(raw_fd, libc::SOL_PACKET, libc::PACKET_RX_RING, &request)
            .map_err(|e| config.refused(e))?;

        let ring_len = config.block_size * config.block_count;
        // SAFETY: maps the ring the kernel has just allocated for this
        // socket, at its exact size; the result is checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                ring_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(config.refused(std::io::Error::last_os_error()));
        }
        let Some(ring) = NonNull::new(ptr.cast::<u8>()) else {
            return Err(config.refused(std::io::Error::other("mmap returned address 0")));
        };
        // From here on, Drop unmaps the ring if binding fails.
        let ring = PacketRing {
            fd,
            ring,
            ring_len,
            config: *config,
            next_block: 0,
            interface: link.name,
            ifindex: link.index,
            stats: RingStats::default(),
        };
        ring.bind()?;
        Ok(ring)
    }

    /// The interface the ring listens on.
    pub fn interface(&self) -> &str {
        &self.interface
    }

    /// The interface's index.
    pub fn ifindex(&self) -> u32 {
        self.ifindex
    }

    /// The ring's geometry.
    pub fn config(&self) -> &RingConfig {
        &self.config
    }

    /// Waits up to `timeout` for the kernel to hand over a block, then
    /// calls `f(payload, source, timestamp_ns)` for every UDP datagram in
    /// every block handed over so far, in arrival order, and gives the
    /// blocks back to the kernel. `payload` is the UDP payload, read in
    /// place from the ring; `timestamp_ns` is the kernel's receive time
    /// (CLOCK_REALTIME, in nanoseconds since the epoch). A UDP GSO train is
    /// visited as the datagrams it stands for.
    ///
    /// Returns how many datagrams `f` saw: 0 after the timeout, or if the
    /// blocks held only packets failing the header checks (counted in
    /// [`RingStats::rejected`]). A zero `timeout` only looks. Fails if the
    /// socket reports an error, e.g. ENETDOWN when the interface goes down.
    pub fn for_each_packet(
        &mut self,
        timeout: Duration,
        mut f: impl FnMut(&[u8], SocketAddrV4, u64),
    ) -> Result<usize> {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            if let Some(visited) = self.drain(&mut f) {
                return Ok(visited);
            }
            let left = match deadline {
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Ok(0);
                    }
                    Some(d - now)
                }
                None => None,
            };
            self.wait(left)?;
        }
    }

    /// The kernel's counters (PACKET_STATISTICS) added to those read
    /// before, and the packets user space rejected; all since open.
    pub fn stats(&mut self) -> Result<RingStats> {
        let mut st = libc::tpacket_stats_v3 {
            tp_packets: 0,
            tp_drops: 0,
            tp_freeze_q_cnt: 0,
        };
        crate::sockopt::get_option(
            self.fd.as_raw_fd(),
            libc::SOL_PACKET,
            libc::PACKET_STATISTICS,
            &mut st,
        )
        .map_err(|e| self.error("PACKET_STATISTICS", e))?;
        self.stats.packets += u64::from(st.tp_packets);
        self.stats.drops += u64::from(st.tp_drops);
        self.stats.queue_freezes += u64::from(st.tp_freeze_q_cnt);
        Ok(self.stats)
    }

    fn error(&self, op: &'static str, source: std::io::Error) -> Error {
        Error::PacketSocket {
            op,
            interface: self.interface.clone(),
            source,
        }
    }

    fn bind(&self) -> Result<()> {
        // SAFETY: an all-zero sockaddr_ll is valid; the fields that matter
        // are set below.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as libc::c_ushort;
        sll.sll_protocol = (libc::ETH_P_IP as u16).to_be();
        sll.sll_ifindex = self.ifindex as libc::c_int;
        // SAFETY: passes a live sockaddr_ll and its exact size.
        let r = unsafe {
            libc::bind(
                self.fd.as_raw_fd(),
                (&sll as *const libc::sockaddr_ll).cast(),
                size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(self.error("bind", std::io::Error::last_os_error()))
        }
    }

    /// The status word of block `i`, shared with the kernel.
    fn status(&self, i: usize) -> &AtomicU32 {
        debug_assert!(i < self.config.block_count);
        // SAFETY: block `i` lies inside the mapping, which lives as long as
        // `self`; blocks start at multiples of the page size, so the status
        // word (at a multiple of 4) is aligned. The kernel updates it with
        // barriers, and we only touch it atomically.
        unsafe {
            AtomicU32::from_ptr(
                self.ring
                    .as_ptr()
                    .add(i * self.config.block_size + BLOCK_STATUS)
                    .cast::<u32>(),
            )
        }
    }

    /// Visits every block the kernel has handed over, from the oldest;
    /// `None` if there was none.
    fn drain<F: FnMut(&[u8], SocketAddrV4, u64)>(&mut self, f: &mut F) -> Option<usize> {
        let mut visited = 0;
        let mut blocks = 0;
        // At most one turn around the ring, so a fast sender cannot keep
        // us here forever.
        while blocks < self.config.block_count
            && self.status(self.next_block).load(Ordering::Acquire) & libc::TP_STATUS_USER != 0
        {
            // SAFETY: the kernel has handed this block over (TP_STATUS_USER,
            // read with Acquire so its contents are visible) and does not
            // write to it until we set TP_STATUS_KERNEL below, after the
            // slice is gone; the block lies inside the mapping.
            let block = unsafe {
                std::slice::from_raw_parts(
                    self.ring
                        .as_ptr()
                        .add(self.next_block * self.config.block_size),
                    self.config.block_size,
                )
            };
            let tally = walk_block(block, f);
            visited += tally.delivered;
            self.stats.rejected += tally.rejected;
            self.status(self.next_block)
                .store(libc::TP_STATUS_KERNEL, Ordering::Release);
            self.next_block = (self.next_block + 1) % self.config.block_count;
            blocks += 1;
        }
        (blocks > 0).then_some(visited)
    }

    /// Sleeps in ppoll until the kernel hands over a block, `timeout`
    /// passes (`None`: no limit) or a signal arrives.
    fn wait(&self, timeout: Option<Duration>) -> Result<()> {
        let revents = crate::sockopt::wait_readable(self.fd.as_raw_fd(), timeout)
            .map_err(|e| self.error("ppoll", e))?;
        if revents & (libc::POLLERR | libc::POLLNVAL) != 0 {
            return Err(self.error("ppoll", self.take_socket_error()));
        }
        Ok(())
    }

    /// The pending socket error (SO_ERROR), which reading clears.
    fn take_socket_error(&self) -> std::io::Error {
        let mut v: libc::c_int = 0;
        let mut len = size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: `v` and `len` are live out-parameters of the sizes given.
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_ERROR,
                (&mut v as *mut libc::c_int).cast(),
                &mut len,
            )
        };
        if r != 0 {
            std::io::Error::last_os_error()
        } else if v != 0 {
            std::io::Error::from_raw_os_error(v)
        } else {
            std::io::Error::other("socket reported an error condition")
        }
    }
}

impl Drop for PacketRing {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the region mmap returned; no slice into it
        // outlives the `&mut self` methods that made it. The socket is
        // closed afterwards, when `fd` drops.
        unsafe {
            libc::munmap(self.ring.as_ptr().cast(), self.ring_len);
        }
    }
}

// Offsets in the Ethernet frame the BPF program reads.
const ETHERTYPE_OFFSET: u32 = 12;
const ETHERTYPE_IPV4: u32 = 0x0800;
const IP_OFFSET: u32 = 14;
/// `ld #pkttype`: the kernel's ancillary load of `skb->pkt_type`.
const ANCILLARY_PKTTYPE: u32 = (libc::SKF_AD_OFF + libc::SKF_AD_PKTTYPE) as u32;
/// What the filter returns for a kept packet: its length is capped at this,
/// so the whole packet.
const KEEP_WHOLE: u32 = u32::MAX;

const IPV4_MIN_HEADER: usize = 20;
const UDP_HEADER: usize = 8;
const IPPROTO_UDP: u8 = 17;

// struct tpacket_block_desc: version, offset_to_priv, then tpacket_hdr_v1.
const BLOCK_HDR: usize = offset_of!(libc::tpacket_block_desc, hdr);
const BLOCK_STATUS: usize = BLOCK_HDR + offset_of!(libc::tpacket_hdr_v1, block_status);
const BLOCK_NUM_PKTS: usize = BLOCK_HDR + offset_of!(libc::tpacket_hdr_v1, num_pkts);
const BLOCK_FIRST_PKT: usize = BLOCK_HDR + offset_of!(libc::tpacket_hdr_v1, offset_to_first_pkt);

// struct tpacket3_hdr, at the start of every packet in a block.
const PKT_HDR_LEN: usize = size_of::<libc::tpacket3_hdr>();
const PKT_NEXT: usize = offset_of!(libc::tpacket3_hdr, tp_next_offset);
const PKT_SEC: usize = offset_of!(libc::tpacket3_hdr, tp_sec);
const PKT_NSEC: usize = offset_of!(libc::tpacket3_hdr, tp_nsec);
const PKT_SNAPLEN: usize = offset_of!(libc::tpacket3_hdr, tp_snaplen);
const PKT_MAC: usize = offset_of!(libc::tpacket3_hdr, tp_mac);
const PKT_NET: usize = offset_of!(libc::tpacket3_hdr, tp_net);

// struct virtio_net_hdr, written just before the link-layer header:
// flags, gso_type, hdr_len, gso_size, csum_start, csum_offset.
const VNET_HDR_LEN: usize = 10;
const VNET_GSO_TYPE: usize = 1;
const VNET_GSO_SIZE: usize = 4;
const VIRTIO_NET_HDR_GSO_UDP_L4: u8 = 5;
const VIRTIO_NET_HDR_GSO_ECN: u8 = 0x80;

/// Builds a BPF program whose checks all jump to one final "drop".
#[derive(Default)]
struct BpfBuilder {
    insns: Vec<libc::sock_filter>,
    /// Jumps to patch: (instruction index, whether the taken branch drops).
    to_drop: Vec<(usize, bool)>,
}

impl BpfBuilder {
    fn stmt(&mut self, code: u32, k: u32) {
        self.insns.push(libc::sock_filter {
            code: code as u16,
            jt: 0,
            jf: 0,
            k,
        });
    }

    /// Goes on if the comparison holds, drops the packet otherwise.
    fn require(&mut self, code: u32, k: u32) {
        self.to_drop.push((self.insns.len(), false));
        self.stmt(code, k);
    }

    /// Drops the packet if the comparison holds.
    fn reject_if(&mut self, code: u32, k: u32) {
        self.to_drop.push((self.insns.len(), true));
        self.stmt(code, k);
    }

    fn finish(mut self) -> Vec<libc::sock_filter> {
        self.stmt(libc::BPF_RET | libc::BPF_K, KEEP_WHOLE);
        let drop_at = self.insns.len();
        self.stmt(libc::BPF_RET | libc::BPF_K, 0);
        for (i, taken) in self.to_drop {
            // Programs are a few dozen instructions: the offset fits a u8.
            let skip = (drop_at - i - 1) as u8;
            if taken {
                self.insns[i].jt = skip;
            } else {
                self.insns[i].jf = skip;
            }
        }
        self.insns
    }
}

/// What a block held.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct BlockTally {
    /// Datagrams handed to the callback.
    delivered: usize,
    /// Packets that failed the checks.
    rejected: u64,
}

/// One packet of a block, its offsets checked against the block.
struct RingFrame<'a> {
    /// Offset of the next packet from this one (0 for the last).
    next: usize,
    timestamp_ns: u64,
    /// Payload bytes per datagram if this is a UDP GSO train.
    gso_size: Option<usize>,
    /// From the IP header to the end of what was captured.
    network: &'a [u8],
}

impl<'a> RingFrame<'a> {
    fn at(block: &'a [u8], offset: usize) -> Option<RingFrame<'a>> {
        let hdr = block.get(offset..offset.checked_add(PKT_HDR_LEN)?)?;
        let mac = usize::from(ne16(hdr, PKT_MAC)?);
        let net = usize::from(ne16(hdr, PKT_NET)?);
        if mac < PKT_HDR_LEN + VNET_HDR_LEN || net < mac {
            return None;
        }
        let end = (offset + mac).checked_add(ne32(hdr, PKT_SNAPLEN)? as usize)?;
        let network = block.get(offset + net..end)?;
        let vnet = block.get(offset + mac - VNET_HDR_LEN..offset + mac)?;
        let gso_type = vnet[VNET_GSO_TYPE] & !VIRTIO_NET_HDR_GSO_ECN;
        let gso_size = usize::from(ne16(vnet, VNET_GSO_SIZE)?);
        let timestamp_ns =
            u64::from(ne32(hdr, PKT_SEC)?) * 1_000_000_000 + u64::from(ne32(hdr, PKT_NSEC)?);
        Some(RingFrame {
            next: ne32(hdr, PKT_NEXT)? as usize,
            timestamp_ns,
            gso_size: (gso_type == VIRTIO_NET_HDR_GSO_UDP_L4 && gso_size > 0).then_some(gso_size),
            network,
        })
    }

    /// Hands the frame's datagrams to `f`; `None` if it fails the checks.
    fn deliver<F: FnMut(&[u8], SocketAddrV4, u64)>(&self, f: &mut F) -> Option<usize> {
        let udp = parse_ipv4_udp(self.network)?;
        match self.gso_size {
            Some(segment) if udp.payload.len() > segment => {
                let mut n = 0;
                for datagram in udp.payload.chunks(segment) {
                    f(datagram, udp.source, self.timestamp_ns);
                    n += 1;
                }
                Some(n)
            }
            _ => {
                f(udp.payload, udp.source, self.timestamp_ns);
                Some(1)
            }
        }
    }
}

/// Walks the packets of one block as the kernel laid them out, trusting no
/// offset it has not checked against the block.
fn walk_block<F: FnMut(&[u8], SocketAddrV4, u64)>(block: &[u8], f: &mut F) -> BlockTally {
    let mut tally = BlockTally::default();
    let (Some(count), Some(first)) = (ne32(block, BLOCK_NUM_PKTS), ne32(block, BLOCK_FIRST_PKT))
    else {
        return tally;
    };
    let mut offset = first as usize;
    for i in 0..count {
        let left = u64::from(count - i);
        let Some(frame) = RingFrame::at(block, offset) else {
            tally.rejected += left;
            break;
        };
        match frame.deliver(f) {
            Some(n) => tally.delivered += n,
            None => tally.rejected += 1,
        }
        if i + 1 < count {
            if frame.next == 0 {
                tally.rejected += left - 1;
                break;
            }
            offset = offset.saturating_add(frame.next);
        }
    }
    tally
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn ne16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn ne32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A classic BPF interpreter for the instructions the filter uses,
    /// reading `frame` as the kernel would on a SOCK_RAW socket.
    fn run_bpf(prog: &[libc::sock_filter], frame: &[u8], pkttype: u8) -> u32 {
        let load = |at: usize, size: usize| -> Option<u32> {
            let b = frame.get(at..at + size)?;
            Some(b.iter().fold(0u32, |v, &x| v << 8 | u32::from(x)))
        };
        let (mut a, mut x, mut pc) = (0u32, 0u32, 0usize);
        loop {
            let i = prog[pc];
            pc += 1;
            let code = u32::from(i.code);
            let size = |code: u32| match code & 0x18 {
                libc::BPF_W => 4,
                libc::BPF_H => 2,
                _ => 1,
            };
            match code & 0x07 {
                libc::BPF_LD if i.k == ANCILLARY_PKTTYPE => a = u32::from(pkttype),
                libc::BPF_LD => {
                    let base = if code & 0xe0 == libc::BPF_IND { x } else { 0 };
                    match load((base + i.k) as usize, size(code)) {
                        Some(v) => a = v,
                        None => return 0,
                    }
                }
                libc::BPF_LDX => match load(i.k as usize, 1) {
                    Some(v) => x = 4 * (v & 0xf),
                    None => return 0,
                },
                libc::BPF_JMP => {
                    let taken = match code & 0xf0 {
                        libc::BPF_JEQ => a == i.k,
                        libc::BPF_JGT => a > i.k,
                        libc::BPF_JGE => a >= i.k,
                        libc::BPF_JSET => a & i.k != 0,
                        other => panic!("jump {other:#x} not interpreted"),
                    };
                    pc += usize::from(if taken { i.jt } else { i.jf });
                }
                libc::BPF_RET => return i.k,
                other => panic!("class {other:#x} not interpreted"),
            }
        }
    }

    /// An IPv4/UDP packet with `options` words of IP options.
    fn ipv4_udp(src: SocketAddrV4, dst: SocketAddrV4, options: usize, payload: &[u8]) -> Vec<u8> {
        let ihl = 5 + options;
        let total = ihl * 4 + UDP_HEADER + payload.len();
        let mut p = vec![0u8; ihl * 4];
        p[0] = 0x40 | ihl as u8;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[6] = 0x40; // don't fragment
        p[8] = 64;
        p[9] = IPPROTO_UDP;
        p[12..16].copy_from_slice(&src.ip().octets());
        p[16..20].copy_from_slice(&dst.ip().octets());
        p.extend_from_slice(&src.port().to_be_bytes());
        p.extend_from_slice(&dst.port().to_be_bytes());
        p.extend_from_slice(&((UDP_HEADER + payload.len()) as u16).to_be_bytes());
        p.extend_from_slice(&[0, 0]);
        p.extend_from_slice(payload);
        p
    }

    fn ethernet(ip: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&0x0800u16.to_be_bytes());
        f.extend_from_slice(ip);
        f
    }

    const CAM: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(169, 254, 1, 1), 20202);
    const HOST: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(169, 254, 1, 2), 50000);

    #[test]
    fn filter_keeps_exactly_the_selected_datagrams() {
        let filter = UdpFilter {
            dst_port: HOST.port(),
            src_addr: Some(*CAM.ip()),
            src_port: Some(CAM.port()),
        };
        let prog = filter.program();
        let frame = |src, dst, options| ethernet(&ipv4_udp(src, dst, options, b"gvsp"));
        for options in [0, 1, 10] {
            assert_eq!(run_bpf(&prog, &frame(CAM, HOST, options), 0), KEEP_WHOLE);
        }
        // Broadcast and multicast are kept; our own outgoing copies and
        // other hosts' frames are not.
        assert_eq!(run_bpf(&prog, &frame(CAM, HOST, 0), 1), KEEP_WHOLE);
        assert_eq!(run_bpf(&prog, &frame(CAM, HOST, 0), 2), KEEP_WHOLE);
        assert_eq!(run_bpf(&prog, &frame(CAM, HOST, 0), 3), 0);
        assert_eq!(run_bpf(&prog, &frame(CAM, HOST, 0), 4), 0);

        let other_port = SocketAddrV4::new(*HOST.ip(), 50001);
        let other_src_port = SocketAddrV4::new(*CAM.ip(), 20203);
        let other_src = SocketAddrV4::new(Ipv4Addr::new(169, 254, 1, 3), CAM.port());
        assert_eq!(run_bpf(&prog, &frame(CAM, other_port, 0), 0), 0);
        assert_eq!(run_bpf(&prog, &frame(other_src_port, HOST, 2), 0), 0);
        assert_eq!(run_bpf(&prog, &frame(other_src, HOST, 0), 0), 0);

        let good = frame(CAM, HOST, 0);
        let mut fragment = good.clone();
        fragment[14 + 6] = 0x20; // more fragments
        assert_eq!(run_bpf(&prog, &fragment, 0), 0);
        let mut later_fragment = good.clone();
        later_fragment[14 + 7] = 1; // offset 8
        assert_eq!(run_bpf(&prog, &later_fragment, 0), 0);
        let mut tcp = good.clone();
        tcp[14 + 9] = 6;
        assert_eq!(run_bpf(&prog, &tcp, 0), 0);
        for first in [0x44, 0x55, 0x65, 0x35] {
            let mut bad = good.clone();
            bad[14] = first;
            assert_eq!(run_bpf(&prog, &bad, 0), 0, "first byte {first:#x}");
        }
        let mut arp = good.clone();
        arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
        assert_eq!(run_bpf(&prog, &arp, 0), 0);
        assert_eq!(run_bpf(&prog, &good[..14 + 20 + 3], 0), 0);

        // Without source constraints any sender to the port is kept.
        let any = UdpFilter::port(HOST.port()).program();
        assert_eq!(run_bpf(&any, &frame(other_src, HOST, 1), 0), KEEP_WHOLE);
        assert_eq!(run_bpf(&any, &frame(CAM, other_port, 0), 0), 0);
    }

    #[test]
    fn parser_reads_addresses_and_exact_payload() {
        let mut p = ipv4_udp(CAM, HOST, 2, b"payload");
        p.extend_from_slice(&[0xee; 6]); // Ethernet padding after the IP packet
        let udp = parse_ipv4_udp(&p).expect("valid");
        assert_eq!(udp.source, CAM);
        assert_eq!(udp.destination, HOST);
        assert_eq!(udp.payload, b"payload");
    }

    /// A block as the kernel lays it out, with packets given as
    /// (IP packet, GSO segment size).
    fn block(packets: &[(Vec<u8>, u16)]) -> Vec<u8> {
        const FIRST: usize = 48;
        const MAC: usize = 92; // as the kernel places it with a vnet header
        let mut b = vec![0u8; FIRST];
        b[BLOCK_STATUS..BLOCK_STATUS + 4].copy_from_slice(&1u32.to_ne_bytes());
        b[BLOCK_NUM_PKTS..BLOCK_NUM_PKTS + 4]
            .copy_from_slice(&(packets.len() as u32).to_ne_bytes());
        b[BLOCK_FIRST_PKT..BLOCK_FIRST_PKT + 4].copy_from_slice(&(FIRST as u32).to_ne_bytes());
        for (i, (ip, gso)) in packets.iter().enumerate() {
            let start = b.len();
            let frame = ethernet(ip);
            let len = (MAC + frame.len()).next_multiple_of(8);
            b.resize(start + len, 0);
            let h = &mut b[start..];
            let next = if i + 1 == packets.len() {
                0
            } else {
                len as u32
            };
            h[PKT_NEXT..PKT_NEXT + 4].copy_from_slice(&next.to_ne_bytes());
            h[PKT_SEC..PKT_SEC + 4].copy_from_slice(&7u32.to_ne_bytes());
            h[PKT_NSEC..PKT_NSEC + 4].copy_from_slice(&(i as u32).to_ne_bytes());
            h[PKT_SNAPLEN..PKT_SNAPLEN + 4].copy_from_slice(&(frame.len() as u32).to_ne_bytes());
            h[PKT_MAC..PKT_MAC + 2].copy_from_slice(&(MAC as u16).to_ne_bytes());
            h[PKT_NET..PKT_NET + 2].copy_from_slice(&((MAC + 14) as u16).to_ne_bytes());
            let vnet = &mut h[MAC - VNET_HDR_LEN..MAC];
            if *gso > 0 {
                vnet[VNET_GSO_TYPE] = VIRTIO_NET_HDR_GSO_UDP_L4;
                vnet[VNET_GSO_SIZE..VNET_GSO_SIZE + 2].copy_from_slice(&gso.to_ne_bytes());
            }
            h[MAC..MAC + frame.len()].copy_from_slice(&frame);
        }
        b
    }

    fn collect(block: &[u8]) -> (Vec<(Vec<u8>, SocketAddrV4, u64)>, BlockTally) {
        let mut seen = Vec::new();
        let tally = walk_block(block, &mut |p: &[u8], s, t| seen.push((p.to_vec(), s, t)));
        (seen, tally)
    }

    #[test]
    fn block_walk_visits_packets_and_cuts_gso_trains() {
        let train: Vec<u8> = (0..2500u32).map(|i| i as u8).collect();
        let mut truncated = ipv4_udp(CAM, HOST, 0, b"lost tail");
        truncated.truncate(truncated.len() - 3);
        let b = block(&[
            (ipv4_udp(CAM, HOST, 0, b"one"), 0),
            (ipv4_udp(CAM, HOST, 1, &train), 1000),
            (truncated, 0),
            (ipv4_udp(CAM, HOST, 0, b"last"), 0),
        ]);
        let (seen, tally) = collect(&b);
        assert_eq!(
            tally,
            BlockTally {
                delivered: 5,
                rejected: 1
            }
        );
        let payloads: Vec<&[u8]> = seen.iter().map(|(p, _, _)| &p[..]).collect();
        assert_eq!(
            payloads,
            [
                &b"one"[..],
                &train[..1000],
                &train[1000..2000],
                &train[2000..],
                b"last"
            ]
        );
        assert!(seen.iter().all(|(_, s, _)| *s == CAM));
        assert_eq!(seen[0].2, 7_000_000_000);
        assert_eq!(seen[4].2, 7_000_000_003);
    }

    proptest! {
        #[test]
        fn block_walk_never_panics_on_garbage(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let (seen, tally) = collect(&bytes);
            prop_assert_eq!(seen.len(), tally.delivered);
        }

        #[test]
        fn block_walk_survives_corrupted_blocks(
            flips in proptest::collection::vec((0usize..400, any::<u8>()), 1..8),
        ) {
            let mut b = block(&[
                (ipv4_udp(CAM, HOST, 0, b"first datagram"), 0),
                (ipv4_udp(CAM, HOST, 0, &[9u8; 120]), 40),
            ]);
            for (at, v) in flips {
                let n = b.len();
                b[at % n] = v;
            }
            let (seen, tally) = collect(&b);
            prop_assert_eq!(seen.len(), tally.delivered);
        }
    }

    #[test]
    fn for_bytes_picks_page_multiple_blocks() {
        for total in [0, 1, 100_000, 4 << 20, 64 << 20, 1 << 30, usize::MAX / 2] {
            let c = RingConfig::for_bytes(total);
            assert!(c.block_size.is_power_of_two(), "{c:?}");
            assert!((128 << 10..=1 << 20).contains(&c.block_size), "{c:?}");
            assert!(c.block_count >= 4);
            if total <= 1 << 30 {
                assert!(c.total_bytes() >= total, "{c:?}");
            }
        }
        let c = RingConfig::for_bytes(64 << 20);
        assert_eq!((c.block_size, c.block_count), (1 << 20, 64));
        assert!(RingConfig::default().request().is_ok());
        assert!(RingConfig::for_bytes(8 << 20).request().is_ok());
    }
}
