//! Raw Ethernet frames of one ethertype on one interface, through a
//! PF_PACKET `SOCK_RAW` socket: how the FADE board emulator and host
//! receiver talk, since FADE runs directly on Ethernet (ethertype 0xfade).
//!
//! The socket is created with protocol 0, so it receives nothing until it
//! is bound to the interface *and* the ethertype; the kernel then hands it
//! only that ethertype from that interface, without a BPF program. Frames
//! this host sends itself are not delivered to a protocol-bound packet
//! socket, and the receive path drops them anyway (by packet type).
//!
//! Receiving is batched with `recvmmsg`, each frame with its kernel receive
//! timestamp (`SO_TIMESTAMPNS`, CLOCK_REALTIME), so a receiver can measure
//! how long it took from the frame's arrival to its answer. A busy-polling
//! caller passes a zero timeout (`MSG_DONTWAIT`); others wait in `ppoll`.
//! Sending takes whole frames, header included, one `send` or one
//! `sendmmsg` for a batch.
//!
//! Unlike the TPACKET_V3 ring of [`crate::packet_ring`], which hands
//! packets over by the block (up to a millisecond late when traffic is
//! light), `recvmmsg` returns each frame as soon as it is queued, which
//! is what a per-packet ACK needs.
//!
//! Opening needs CAP_NET_RAW ([`Error::NeedsCapNetRaw`] otherwise).

use std::ffi::CString;
use std::mem::size_of;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

pub use crate::clock::realtime_ns;
use crate::error::{Error, Result};
use crate::packet_ring::page_size;
use crate::raw_ring::{Geometry, RxRing};
use crate::sockopt::{get_option, raw_socket, set_option, set_recv_buffer};

/// Most frames one batched call moves.
pub const MAX_BATCH: usize = 64;

/// Ethernet header bytes (destination, source, ethertype).
pub const ETH_HEADER_LEN: usize = 14;

/// Settings of a raw socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawConfig {
    /// Frames one [`RawSocket::recv`] can return (1..=[`MAX_BATCH`]).
    pub batch: usize,
    /// Largest frame kept whole, header included; longer ones are cut and
    /// flagged [`RawFrame::truncated`]. 9216 holds any jumbo frame.
    pub frame_len: usize,
    /// Kernel receive buffer asked for, in bytes (raised past rmem_max
    /// with SO_RCVBUFFORCE, which CAP_NET_ADMIN allows).
    pub recv_buffer: usize,
    /// 0: receive with `recvmmsg`. Otherwise receive through a TPACKET_V2
    /// ring of at least this many slots ([`crate::raw_ring`]), one frame
    /// per slot: no syscall per look while frames keep coming.
    pub ring_slots: usize,
}

impl Default for RawConfig {
    fn default() -> Self {
        RawConfig {
            batch: 32,
            frame_len: 9216,
            recv_buffer: 8 << 20,
            ring_slots: 0,
        }
    }
}

/// One received frame, borrowed from the socket's batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawFrame<'a> {
    /// The Ethernet frame from its destination MAC on, without FCS.
    pub data: &'a [u8],
    /// Kernel receive time, nanoseconds since the epoch (CLOCK_REALTIME);
    /// 0 if the kernel gave none.
    pub timestamp_ns: u64,
    /// The frame was longer than [`RawConfig::frame_len`] and was cut.
    pub truncated: bool,
}

/// A PF_PACKET socket bound to one interface and one ethertype.
#[derive(Debug)]
pub struct RawSocket {
    fd: OwnedFd,
    interface: String,
    ifindex: u32,
    mac: [u8; 6],
    ethertype: u16,
    frame_len: usize,
    bufs: Vec<u8>,
    lens: Vec<usize>,
    stamps: Vec<u64>,
    truncated: Vec<bool>,
    /// recvmmsg's address and control buffers, one per batch slot.
    names: Vec<libc::sockaddr_ll>,
    control: Vec<u64>,
    count: usize,
    /// The receive ring, when [`RawConfig::ring_slots`] asked for one.
    ring: Option<RxRing>,
    /// The kernel's counts read so far (reading them resets the kernel's):
    /// frames, then drops.
    counted: [AtomicU64; 2],
}

/// What the kernel counted for a packet socket since it was opened:
/// frames that matched it, and how many of those it dropped because the
/// socket's queue or ring was full. A dropped frame never reaches
/// [`RawSocket::recv`], so these counts are the only way a receiver (or
/// an emulated board) learns that it fell behind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelCounts {
    /// Frames that matched the socket, dropped ones included.
    pub frames: u64,
    /// Frames dropped for want of room in the socket's queue or ring.
    pub drops: u64,
}

/// `struct tpacket_stats` of `<linux/if_packet.h>`, what
/// `PACKET_STATISTICS` returns for TPACKET_V1/V2 and plain sockets.
#[repr(C)]
#[derive(Default)]
struct TpacketStats {
    tp_packets: libc::c_uint,
    tp_drops: libc::c_uint,
}

/// `PACKET_STATISTICS` of `<linux/if_packet.h>`.
const PACKET_STATISTICS: libc::c_int = 6;

/// The largest payload of a standard (non-jumbo) Ethernet frame.
pub const STANDARD_MTU: u32 = 1500;

impl RawSocket {
    /// Opens a socket like [`Self::open`] (default batch and receive
    /// buffer) for frames of `ethertype` whose payload is at most
    /// `payload_len` bytes: receive buffers of 2048 bytes, or 9216 when
    /// the payload needs jumbo frames. Then the interface's MTU is checked
    /// first ([`Error::MtuTooSmall`]): a sender whose every frame the
    /// interface refuses would only stall its peer.
    pub fn open_for_payload(
        interface: &str,
        ethertype: u16,
        payload_len: u32,
        ring_slots: usize,
    ) -> Result<RawSocket> {
        let jumbo = payload_len > STANDARD_MTU;
        if jumbo {
            let mtu = crate::netdev::offloads(interface)?.mtu;
            if mtu < payload_len {
                return Err(Error::MtuTooSmall {
                    interface: interface.to_string(),
                    mtu,
                    need: payload_len,
                });
            }
        }
        let config = RawConfig {
            frame_len: if jumbo { 9216 } else { 2048 },
            ring_slots,
            ..RawConfig::default()
        };
        RawSocket::open(interface, ethertype, &config)
    }

    /// Opens a socket on `interface` for frames of `ethertype`: from the
    /// moment this returns, every such frame arriving there is queued.
    pub fn open(interface: &str, ethertype: u16, config: &RawConfig) -> Result<RawSocket> {
        let fail = |op: &'static str| {
            let interface = interface.to_owned();
            move |source| Error::PacketSocket {
                op,
                interface,
                source,
            }
        };
        let batch = config.batch.clamp(1, MAX_BATCH);
        let frame_len = config.frame_len.max(ETH_HEADER_LEN);
        let ifindex = crate::netdev::if_index(interface).map_err(fail("if_nametoindex"))?;
        // No NUL inside: if_index checked.
        let name = CString::new(interface).unwrap_or_default();
        let fd = raw_socket(libc::AF_PACKET, fail("socket"))?;
        let raw_fd = fd.as_raw_fd();
        let (mac, hatype) = hardware_address(&fd, &name).map_err(fail("SIOCGIFHWADDR"))?;
        if hatype != libc::ARPHRD_ETHER {
            return Err(Error::UnsupportedLink {
                interface: interface.to_owned(),
                hatype,
            });
        }
        let on: libc::c_int = 1;
        set_option(raw_fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, &on)
            .map_err(fail("SO_TIMESTAMPNS"))?;
        set_recv_buffer(raw_fd, config.recv_buffer).map_err(fail("SO_RCVBUF"))?;
        // The ring must be in place before the bind lets frames in.
        let ring = match config.ring_slots {
            0 => None,
            slots => Some(
                RxRing::map(raw_fd, Geometry::new(frame_len, slots, page_size()))
                    .map_err(fail("PACKET_RX_RING (TPACKET_V2)"))?,
            ),
        };
        let sll = link_address(ifindex, ethertype, None);
        // SAFETY: passes a live sockaddr_ll and its exact size.
        let r = unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&sll as *const libc::sockaddr_ll).cast(),
                size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(fail("bind")(std::io::Error::last_os_error()));
        }
        Ok(RawSocket {
            fd,
            interface: interface.to_owned(),
            ifindex,
            mac,
            ethertype,
            frame_len,
            // Frames of a ring stay in the ring: no copy buffers for them.
            bufs: if ring.is_some() {
                Vec::new()
            } else {
                vec![0; batch * frame_len]
            },
            lens: vec![0; batch],
            stamps: vec![0; batch],
            truncated: vec![false; batch],
            names: (0..batch).map(|_| link_address(0, 0, None)).collect(),
            // Room for SO_TIMESTAMPNS and, should transmit stamps be on in
            // a kernel without their RX filter, an SCM_TIMESTAMPING too.
            control: vec![
                0;
                (cmsg_space(size_of::<libc::timespec>())
                    + cmsg_space(3 * size_of::<libc::timespec>()))
                .div_ceil(8)
                    * batch
            ],
            count: 0,
            ring,
            counted: [AtomicU64::new(0), AtomicU64::new(0)],
        })
    }

    /// The kernel's counts for this socket since it was opened: frames
    /// that matched it and frames dropped because its queue or ring was
    /// full. Each call adds what the kernel counted since the last one
    /// (reading resets the kernel's counters, so the sum is kept here).
    pub fn kernel_counts(&self) -> Result<KernelCounts> {
        let mut st = TpacketStats::default();
        get_option(
            self.fd.as_raw_fd(),
            libc::SOL_PACKET,
            PACKET_STATISTICS,
            &mut st,
        )
        .map_err(|e| self.error("PACKET_STATISTICS", e))?;
        // The kernel's tp_packets already includes the drops.
        let [frames, drops] = &self.counted;
        Ok(KernelCounts {
            frames: frames.fetch_add(u64::from(st.tp_packets), Ordering::Relaxed)
                + u64::from(st.tp_packets),
            drops: drops.fetch_add(u64::from(st.tp_drops), Ordering::Relaxed)
                + u64::from(st.tp_drops),
        })
    }

    /// The interface's name.
    pub fn interface(&self) -> &str {
        &self.interface
    }

    /// The interface's index.
    pub fn ifindex(&self) -> u32 {
        self.ifindex
    }

    /// The interface's MAC address: the source of every frame we send.
    pub fn mac(&self) -> [u8; 6] {
        self.mac
    }

    /// The ethertype the socket is bound to.
    pub fn ethertype(&self) -> u16 {
        self.ethertype
    }

    /// Writes an Ethernet header from this interface to `destination`
    /// with the socket's ethertype into the first 14 bytes of `frame`.
    /// Returns false, writing nothing, if `frame` is shorter.
    pub fn write_header(&self, frame: &mut [u8], destination: [u8; 6]) -> bool {
        let Some(h) = frame.get_mut(..ETH_HEADER_LEN) else {
            return false;
        };
        h[..6].copy_from_slice(&destination);
        h[6..12].copy_from_slice(&self.mac);
        h[12..14].copy_from_slice(&self.ethertype.to_be_bytes());
        true
    }

    /// Receives up to a batch of frames. `timeout` zero only looks (for
    /// busy polling); `None` waits without limit; otherwise waits up to
    /// that long for the first frame. Returns how many frames
    /// [`Self::frames`] now yields.
    pub fn recv(&mut self, timeout: Option<Duration>) -> Result<usize> {
        self.count = 0;
        let batch = self.lens.len();
        if let Some(ring) = self.ring.as_mut() {
            ring.release();
            if !ring.ready() && timeout != Some(Duration::ZERO) && !self.wait_readable(timeout)? {
                return Ok(0);
            }
            // Borrowed again: wait_readable needed all of self.
            let n = self.ring.as_mut().map_or(0, |r| r.take(batch));
            self.count = n;
            return Ok(n);
        }
        if timeout != Some(Duration::ZERO) && !self.wait_readable(timeout)? {
            return Ok(0);
        }
        let n = self.lens.len();
        // Scratch on the stack and in buffers kept from call to call: a
        // busy-polling receiver calls this for every frame, so it must not
        // allocate.
        let mut iovecs = [libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        }; MAX_BATCH];
        for (iov, b) in iovecs
            .iter_mut()
            .zip(self.bufs.chunks_exact_mut(self.frame_len))
        {
            iov.iov_base = b.as_mut_ptr().cast();
            iov.iov_len = b.len();
        }
        // 8-byte aligned control space per message for one timespec.
        let words = self.control.len() / n;
        let names = &mut self.names;
        let control = &mut self.control;
        // SAFETY: an all-zero mmsghdr is valid; the fields used are set below.
        let mut msgs: [libc::mmsghdr; MAX_BATCH] = unsafe { std::mem::zeroed() };
        for (i, m) in msgs.iter_mut().enumerate().take(n) {
            let h = &mut m.msg_hdr;
            h.msg_name = (&mut names[i] as *mut libc::sockaddr_ll).cast();
            h.msg_namelen = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            h.msg_iov = &mut iovecs[i];
            h.msg_iovlen = 1;
            h.msg_control = control[i * words..].as_mut_ptr().cast();
            h.msg_controllen = words * 8;
        }
        // SAFETY: every mmsghdr points to live name, iovec and control
        // buffers of the sizes given, which outlive the call.
        let got = unsafe {
            libc::recvmmsg(
                self.fd.as_raw_fd(),
                msgs.as_mut_ptr(),
                n as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if got < 0 {
            let e = std::io::Error::last_os_error();
            return match e.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted => Ok(0),
                _ => Err(self.error("recvmmsg", e)),
            };
        }
        let mut kept = 0;
        for (i, m) in msgs.iter().enumerate().take(got as usize) {
            // Our own outgoing frames, should the kernel loop any back.
            if self.names[i].sll_pkttype == libc::PACKET_OUTGOING {
                continue;
            }
            let len = m.msg_len as usize;
            let stamp = timestamp(&m.msg_hdr);
            let cut = m.msg_hdr.msg_flags & libc::MSG_TRUNC != 0 || len > self.frame_len;
            if kept != i {
                let (src, dst) = (i * self.frame_len, kept * self.frame_len);
                self.bufs
                    .copy_within(src..src + len.min(self.frame_len), dst);
            }
            self.lens[kept] = len.min(self.frame_len);
            self.stamps[kept] = stamp;
            self.truncated[kept] = cut;
            kept += 1;
        }
        self.count = kept;
        Ok(kept)
    }

    /// The frames of the last [`Self::recv`], in arrival order (in ring
    /// mode, where they lie in the ring until the next `recv`).
    pub fn frames(&self) -> impl Iterator<Item = RawFrame<'_>> + '_ {
        let ring = self.ring.as_ref();
        (0..self.count).filter_map(move |i| match ring {
            Some(r) => {
                let f = r.frame(i);
                // Our own outgoing frames, should the kernel loop any back.
                (!f.outgoing).then_some(RawFrame {
                    data: f.data,
                    timestamp_ns: f.timestamp_ns,
                    truncated: f.truncated,
                })
            }
            None => Some(RawFrame {
                data: &self.bufs[i * self.frame_len..i * self.frame_len + self.lens[i]],
                timestamp_ns: self.stamps[i],
                truncated: self.truncated[i],
            }),
        })
    }

    /// Whether frames come in through a TPACKET_V2 ring.
    pub fn has_ring(&self) -> bool {
        self.ring.is_some()
    }

    /// Sends one whole frame (header included). Returns false if the
    /// interface's queue refused it (ENOBUFS, as a full tbf queue does, or
    /// EAGAIN): to the sender that is a lost frame.
    pub fn send(&self, frame: &[u8]) -> Result<bool> {
        // SAFETY: passes a live buffer and its exact length.
        let r = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        self.sent(r, "send")
    }

    /// What a send's return `r` means: taken, refused by the interface's
    /// queue (a lost frame to the sender), or an error of `op`.
    fn sent(&self, r: isize, op: &'static str) -> Result<bool> {
        if r >= 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOBUFS | libc::EAGAIN | libc::EINTR) => Ok(false),
            _ => Err(self.error(op, e)),
        }
    }

    /// Turns on the driver's transmit stamps for frames sent with
    /// [`Self::send_stamped`] (see [`crate::tx_stamp`]): the honest "frame
    /// sent" moment, where the return of `send` on a virtual link also
    /// includes the peer's receive path. Fails if the kernel refuses.
    pub fn enable_tx_stamps(&mut self) -> Result<()> {
        crate::tx_stamp::enable(self.fd.as_raw_fd()).map_err(|e| self.error("SO_TIMESTAMPING", e))
    }

    /// Sends one whole frame like [`Self::send`], asking for its driver
    /// transmit stamp under `key` (read it with [`Self::take_tx_stamps`]).
    /// A kernel that cannot key stamps (before 6.13) or a socket without
    /// [`Self::enable_tx_stamps`] answers EINVAL, as an error.
    pub fn send_stamped(&self, frame: &[u8], key: u32) -> Result<bool> {
        let mut request = crate::tx_stamp::StampRequest::new(key);
        let (control, control_len) = request.control();
        let mut iov = libc::iovec {
            iov_base: frame.as_ptr().cast_mut().cast(),
            iov_len: frame.len(),
        };
        // SAFETY: an all-zero msghdr is valid; fields are set below.
        let mut h: libc::msghdr = unsafe { std::mem::zeroed() };
        h.msg_iov = &mut iov;
        h.msg_iovlen = 1;
        h.msg_control = control;
        h.msg_controllen = control_len;
        // SAFETY: the message points to a live iovec over `frame`, which
        // the kernel only reads, and to the request's control buffer.
        let r = unsafe { libc::sendmsg(self.fd.as_raw_fd(), &h, 0) };
        self.sent(r, "sendmsg (stamped)")
    }

    /// Reads the transmit stamps that have come back, without blocking,
    /// into `out` (cleared first). Returns how many.
    pub fn take_tx_stamps(&self, out: &mut Vec<crate::tx_stamp::TxStamp>) -> Result<usize> {
        crate::tx_stamp::drain(self.fd.as_raw_fd(), out)
            .map_err(|e| self.error("recvmmsg (error queue)", e))
    }

    /// Sends whole frames with one `sendmmsg` (at most [`MAX_BATCH`] per
    /// call; more return [`Error::BatchTooLarge`]). Returns how many the
    /// kernel took; the rest were refused as in [`Self::send`].
    pub fn send_batch(&self, frames: &[&[u8]]) -> Result<usize> {
        self.send_batch_stamped(frames, &[])
    }

    /// [`Self::send_batch`], asking for the driver transmit stamps of the
    /// frames whose entry in `keys` is `Some(key)` (as
    /// [`Self::send_stamped`]; frames past the end of `keys` go
    /// unstamped), so that ACKs batched into one `sendmmsg` can still be
    /// timed to the moment each left.
    pub fn send_batch_stamped(&self, frames: &[&[u8]], keys: &[Option<u32>]) -> Result<usize> {
        if frames.len() > MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: frames.len(),
                max: MAX_BATCH,
            });
        }
        // Headers on the stack, nothing allocated: the board emulator sends
        // every DATA packet through here.
        let n = frames.len();
        let mut iovecs = [libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        }; MAX_BATCH];
        for (iov, f) in iovecs.iter_mut().zip(frames) {
            iov.iov_base = f.as_ptr().cast_mut().cast();
            iov.iov_len = f.len();
        }
        // One request per key given (none for a plain batch).
        let mut requests: [Option<crate::tx_stamp::StampRequest>; MAX_BATCH] =
            [const { None }; MAX_BATCH];
        for (r, k) in requests.iter_mut().zip(keys) {
            *r = k.map(crate::tx_stamp::StampRequest::new);
        }
        // SAFETY: an all-zero mmsghdr is valid; the fields used are set below.
        let mut all: [libc::mmsghdr; MAX_BATCH] = unsafe { std::mem::zeroed() };
        for ((m, iov), r) in all
            .iter_mut()
            .zip(iovecs.iter_mut())
            .zip(requests.iter_mut())
            .take(n)
        {
            m.msg_hdr.msg_iov = iov;
            m.msg_hdr.msg_iovlen = 1;
            if let Some(r) = r {
                (m.msg_hdr.msg_control, m.msg_hdr.msg_controllen) = r.control();
            }
        }
        let msgs = &mut all[..n];
        let mut done = 0;
        let mut refused = 0;
        while done < msgs.len() {
            // SAFETY: the messages point to live iovecs over the callers'
            // frames, which the kernel only reads, and to live stamp
            // requests.
            let r = unsafe {
                libc::sendmmsg(
                    self.fd.as_raw_fd(),
                    msgs[done..].as_mut_ptr(),
                    (msgs.len() - done) as libc::c_uint,
                    0,
                )
            };
            if r < 0 {
                let e = std::io::Error::last_os_error();
                match e.raw_os_error() {
                    // The frame at `done` was refused: skip it, like a loss.
                    Some(libc::ENOBUFS | libc::EAGAIN | libc::EINTR) => {
                        done += 1;
                        refused += 1;
                        continue;
                    }
                    _ => return Err(self.error("sendmmsg", e)),
                }
            }
            done += r as usize;
            if r == 0 {
                break;
            }
        }
        Ok(done.min(msgs.len()) - refused)
    }

    fn error(&self, op: &'static str, source: std::io::Error) -> Error {
        Error::PacketSocket {
            op,
            interface: self.interface.clone(),
            source,
        }
    }

    /// Waits in ppoll for a frame; false on timeout.
    fn wait_readable(&self, timeout: Option<Duration>) -> Result<bool> {
        crate::sockopt::wait_readable(self.fd.as_raw_fd(), timeout)
            .map(|revents| revents != 0)
            .map_err(|e| self.error("ppoll", e))
    }
}

/// The SCM_TIMESTAMPNS time of a received message, 0 if absent.
fn timestamp(h: &libc::msghdr) -> u64 {
    // SAFETY: the kernel filled msg_control and msg_controllen; the CMSG_
    // macros stay inside that buffer and the data is read unaligned.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(h);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<libc::timespec>());
                return (ts.tv_sec as u64)
                    .saturating_mul(1_000_000_000)
                    .saturating_add(ts.tv_nsec as u64);
            }
            c = libc::CMSG_NXTHDR(h, c);
        }
    }
    0
}

/// CMSG_SPACE for a payload of `len` bytes.
fn cmsg_space(len: usize) -> usize {
    // SAFETY: CMSG_SPACE is a pure size computation.
    unsafe { libc::CMSG_SPACE(len as u32) as usize }
}

/// A sockaddr_ll for `ifindex` and `ethertype`, with `mac` as the address.
fn link_address(ifindex: u32, ethertype: u16, mac: Option<[u8; 6]>) -> libc::sockaddr_ll {
    // SAFETY: an all-zero sockaddr_ll is valid.
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as libc::c_ushort;
    sll.sll_protocol = ethertype.to_be();
    sll.sll_ifindex = ifindex as libc::c_int;
    if let Some(m) = mac {
        sll.sll_halen = 6;
        sll.sll_addr[..6].copy_from_slice(&m);
    }
    sll
}

/// The interface's MAC and ARPHRD type (SIOCGIFHWADDR).
fn hardware_address(fd: &OwnedFd, name: &CString) -> std::io::Result<([u8; 6], u16)> {
    // SAFETY: an all-zero ifreq is valid; the name is copied in below.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    let bytes = name.as_bytes();
    if bytes.len() >= req.ifr_name.len() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "interface name longer than {} bytes",
                req.ifr_name.len() - 1
            ),
        ));
    }
    for (d, &s) in req.ifr_name.iter_mut().zip(bytes) {
        *d = s as libc::c_char;
    }
    // SAFETY: SIOCGIFHWADDR reads the name and writes a sockaddr into the
    // ifreq, which is live and of the right type.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::SIOCGIFHWADDR, &mut req) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: after SIOCGIFHWADDR the union holds the hardware address.
    let sa = unsafe { req.ifr_ifru.ifru_hwaddr };
    let mut mac = [0u8; 6];
    for (d, &s) in mac.iter_mut().zip(sa.sa_data.iter()) {
        *d = s as u8;
    }
    Ok((mac, sa.sa_family))
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate_testbed::Testbed;

    fn root() -> bool {
        crate::privilege::is_root()
    }

    #[test]
    fn unknown_interface_is_a_clear_error() {
        let e = RawSocket::open("nosuchif0", 0xfade, &RawConfig::default())
            .expect_err("no such interface");
        assert!(e.to_string().contains("nosuchif0"), "{e}");
    }

    /// A bed named `name`: feb and pc on one veth pair.
    fn veth_pair(name: &str) -> Testbed {
        assert!(root(), "raw socket tests need root");
        Testbed::builder(name)
            .hosts(["feb", "pc"])
            .link("feb", "pc")
            .build()
            .expect("bed")
    }

    /// A socket for `ethertype` on `host`'s interface, opened in its
    /// namespace.
    fn open_in(bed: &Testbed, host: &str, ethertype: u16, config: RawConfig) -> RawSocket {
        let iface = bed.iface(host).expect("iface").name.clone();
        bed.run_in(host, None, move || {
            RawSocket::open(&iface, ethertype, &config)
        })
        .expect("netns")
        .expect("open")
    }

    /// Two namespaces and a veth pair: frames of our ethertype cross with
    /// their timestamps, frames of another ethertype are not delivered.
    #[test]
    fn frames_cross_a_veth_pair_with_timestamps() {
        let bed = veth_pair("fadeio");
        let mut rx = open_in(&bed, "pc", 0xfade, RawConfig::default());
        let tx = open_in(&bed, "feb", 0xfade, RawConfig::default());
        let other = open_in(&bed, "feb", 0x88b5, RawConfig::default());
        let before = realtime_ns();
        let mut frames = Vec::new();
        for i in 0..10u8 {
            let mut f = vec![i; 100];
            assert!(tx.write_header(&mut f, rx.mac()));
            frames.push(f);
        }
        let refs: Vec<&[u8]> = frames.iter().map(|f| f.as_slice()).collect();
        assert_eq!(tx.send_batch(&refs).expect("send"), 10);
        let mut foreign = vec![0u8; 100];
        assert!(other.write_header(&mut foreign, rx.mac()));
        assert!(other.send(&foreign).expect("send"));
        let mut got = Vec::new();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while got.len() < 10 && std::time::Instant::now() < deadline {
            rx.recv(Some(Duration::from_millis(100))).expect("recv");
            for f in rx.frames() {
                assert!(f.timestamp_ns >= before && f.timestamp_ns <= realtime_ns());
                assert_eq!(&f.data[6..12], &tx.mac());
                assert_eq!(&f.data[12..14], &[0xfa, 0xde]);
                got.push(f.data[14]);
            }
        }
        assert_eq!(got, (0..10).collect::<Vec<u8>>());
        // The 0x88b5 frame never reaches the 0xfade socket.
        assert_eq!(rx.recv(Some(Duration::from_millis(50))).expect("recv"), 0);
    }

    /// Sends `n` 100-byte frames from `tx` to `rx` and waits until the
    /// kernel has counted them all at `rx`; returns the counts.
    fn flood_and_count(tx: &RawSocket, rx: &RawSocket, n: u64) -> KernelCounts {
        let start = rx.kernel_counts().expect("counts").frames;
        for i in 0..n {
            let mut f = vec![(i % 251) as u8; 100];
            assert!(tx.write_header(&mut f, rx.mac()));
            assert!(tx.send(&f).expect("send"));
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let c = rx.kernel_counts().expect("counts");
            if c.frames >= start + n || std::time::Instant::now() > deadline {
                return c;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Frames the kernel had no room for are counted, whether the socket
    /// queues them or writes them to a ring, and the counts add up across
    /// reads (the kernel resets its own on every read).
    #[test]
    fn frames_dropped_for_want_of_room_are_counted() {
        let bed = veth_pair("faderoom");
        let tx = open_in(&bed, "feb", 0xfade, RawConfig::default());
        let ring = open_in(
            &bed,
            "pc",
            0xfade,
            RawConfig {
                frame_len: 2048,
                ring_slots: 16,
                ..RawConfig::default()
            },
        );
        // Nobody reads: 16 slots take 16 frames, the other 84 are dropped.
        let c = flood_and_count(&tx, &ring, 100);
        assert_eq!(
            c,
            KernelCounts {
                frames: 100,
                drops: 84
            }
        );
        let c = flood_and_count(&tx, &ring, 10);
        assert_eq!(
            c,
            KernelCounts {
                frames: 110,
                drops: 94
            },
            "the sum, kept"
        );
        drop(ring);
        let queue = open_in(&bed, "pc", 0xfade, RawConfig::default());
        let c = flood_and_count(&tx, &queue, 20);
        assert_eq!(
            c,
            KernelCounts {
                frames: 20,
                drops: 0
            },
            "room for all"
        );
    }

    #[test]
    fn a_ring_hands_over_every_frame_in_order_through_many_wraps() {
        let bed = veth_pair("fadering");
        let ring = RawConfig {
            frame_len: 2048,
            ring_slots: 16,
            batch: 8,
            ..RawConfig::default()
        };
        let mut rx = open_in(&bed, "pc", 0xfade, ring);
        assert!(rx.has_ring());
        let tx = open_in(&bed, "feb", 0xfade, RawConfig::default());
        let before = realtime_ns();
        let mut got: Vec<u32> = Vec::new();
        // 2000 frames, 12 at a time into 16 slots: the ring wraps 125
        // times and every slot must come back to the kernel each time.
        for burst in 0..(2000 / 12 + 1) {
            for k in 0..12u32 {
                let i = burst * 12 + k;
                let mut f = vec![0u8; 60 + (i as usize % 1400)];
                assert!(tx.write_header(&mut f, rx.mac()));
                f[14..18].copy_from_slice(&i.to_be_bytes());
                assert!(tx.send(&f).expect("send"));
            }
            let deadline = std::time::Instant::now() + Duration::from_secs(5);
            let want = ((burst + 1) * 12) as usize;
            while got.len() < want && std::time::Instant::now() < deadline {
                // Busy looks and waits alike.
                let wait = if got.len() % 2 == 0 {
                    Duration::ZERO
                } else {
                    Duration::from_millis(100)
                };
                let n = rx.recv(Some(wait)).expect("recv");
                assert!(n <= 8, "at most a batch");
                for f in rx.frames() {
                    let i = u32::from_be_bytes(f.data[14..18].try_into().expect("4 bytes"));
                    assert_eq!(f.data.len(), 60 + (i as usize % 1400), "frame {i} whole");
                    assert!(!f.truncated);
                    assert!(f.timestamp_ns >= before && f.timestamp_ns <= realtime_ns());
                    assert_eq!(&f.data[6..12], &tx.mac());
                    got.push(i);
                }
            }
        }
        assert_eq!(
            got,
            (0..got.len() as u32).collect::<Vec<u32>>(),
            "in order, none lost"
        );
        assert_eq!(got.len(), (2000 / 12 + 1) * 12);
        assert_eq!(rx.recv(Some(Duration::from_millis(50))).expect("recv"), 0);
    }
}
