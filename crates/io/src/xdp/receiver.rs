//! [`XdpReceiver`]: frames of one ethertype from one interface through an
//! AF_XDP socket, read by polling shared memory instead of by syscalls.
//!
//! Opening it sets up, in this order: the socket's memory (UMEM, frames of
//! `chunk_size` bytes), its fill and RX rings, the bind to the interface's
//! receive queue, a map from queue to socket, and the program of
//! [`super::program`], attached as a link. The link detaches when the
//! receiver drops, also when the process dies, so an interface is never
//! left with a program nobody reads.
//!
//! The kernel copies each frame into a free UMEM frame (copy mode; a NIC
//! with AF_XDP zero-copy support puts it there by DMA), with the
//! program's time stamp just before it, and publishes a descriptor on the
//! RX ring. [`XdpReceiver::recv`] looks at the ring: with a zero timeout it
//! never enters the kernel, which is what a busy-polling receiver wants.
//! Frames longer than one UMEM frame (jumbo frames) arrive in several
//! descriptors and are joined in a staging buffer.

use std::mem::size_of;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::Duration;

use super::bpf::{AttachMode, Link, Map, MapType, Program};
use super::program::{self, META_LEN};
use super::ring::Ring;
use crate::error::{Error, Result};

/// `XDP_PACKET_HEADROOM`: where in a UMEM frame the kernel starts a frame
/// (the metadata sits just before it).
const PACKET_HEADROOM: u64 = 256;

/// Entries of the queue-to-socket map: covers any NIC's receive queues.
const MAX_QUEUES: u32 = 256;

/// Settings of an [`XdpReceiver`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XdpConfig {
    /// Receive queue to bind (frames on other queues go to the kernel).
    pub queue: u32,
    /// Bytes per UMEM frame: a power of two from 2048 to the page size.
    pub chunk_size: u32,
    /// Entries of the fill and RX rings (a power of two); the UMEM holds
    /// twice as many frames, so the fill ring can be kept full while a
    /// ring's worth of frames waits to be read.
    pub ring_size: u32,
    /// Most frames one [`XdpReceiver::recv`] returns (1..=ring_size).
    pub batch: u32,
    /// Largest frame kept whole when it spans several UMEM frames; longer
    /// ones are cut and flagged.
    pub max_frame: usize,
    /// Where the program runs; `None` tries native, then generic.
    pub mode: Option<AttachMode>,
}

impl Default for XdpConfig {
    fn default() -> Self {
        XdpConfig {
            queue: 0,
            chunk_size: 4096,
            ring_size: 2048,
            batch: 64,
            max_frame: 9216,
            mode: None,
        }
    }
}

/// One received frame, borrowed from the receiver until its next `recv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XdpFrame<'a> {
    /// The Ethernet frame from its destination MAC on.
    pub data: &'a [u8],
    /// When the XDP program saw the frame, CLOCK_MONOTONIC nanoseconds;
    /// 0 when the stamp is missing (the driver keeps no metadata).
    pub timestamp_ns: u64,
    /// The frame was longer than [`XdpConfig::max_frame`] and was cut.
    pub truncated: bool,
}

/// Counters of the socket and the program.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct XdpStats {
    /// Frames of the ethertype the program saw (on any queue).
    pub seen: u64,
    /// Frames the socket dropped because no UMEM frame was free or the
    /// RX ring was full (`rx_dropped` + `rx_ring_full`).
    pub dropped: u64,
    /// Frames lost because the fill ring was empty.
    pub fill_ring_empty: u64,
    /// Descriptors the kernel found invalid.
    pub invalid: u64,
    /// Frames handed to the caller.
    pub received: u64,
    /// Frames on the RX ring not yet taken by [`XdpReceiver::recv`]
    /// (whole frames: a multi-buffer frame counts once).
    pub pending: u64,
    /// Frames joined from several descriptors.
    pub multi_buffer: u64,
}

/// Where a frame of the current batch lies.
#[derive(Debug, Clone, Copy)]
struct Held {
    /// Offset in the UMEM, or in the staging buffer if `staged`.
    offset: usize,
    len: usize,
    staged: bool,
    stamp: u64,
    truncated: bool,
}

/// The UMEM: anonymous memory the socket registers with the kernel.
#[derive(Debug)]
struct Umem {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the UMEM is owned by one receiver, which moves between threads
// but is never shared; the kernel writes only frames we handed it.
unsafe impl Send for Umem {}

impl Drop for Umem {
    fn drop(&mut self) {
        // SAFETY: exactly the mapping made in `Umem::new`.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

impl Umem {
    fn new(len: usize) -> std::io::Result<Umem> {
        // SAFETY: a fresh private anonymous mapping; checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Umem {
            ptr: ptr.cast(),
            len,
        })
    }

    /// `len` bytes at `offset`, or None past the end.
    fn slice(&self, offset: usize, len: usize) -> Option<&[u8]> {
        let end = offset.checked_add(len)?;
        if end > self.len {
            return None;
        }
        // SAFETY: in bounds (checked above); the kernel wrote these bytes
        // before publishing the descriptor and leaves them until we give
        // the frame back.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.add(offset), len) })
    }
}

/// An AF_XDP receiver for one ethertype on one interface queue.
#[derive(Debug)]
pub struct XdpReceiver {
    // Declared first, dropped first: the program leaves the interface
    // before the socket it redirects to closes.
    link: Link,
    _program: Program,
    _xsks: Map,
    counters: Map,
    rx: Ring<libc::xdp_desc>,
    fill: Ring<u64>,
    socket: OwnedFd,
    umem: Umem,
    chunk_size: u64,
    batch: u32,
    max_frame: usize,
    interface: String,
    queue: u32,
    zero_copy: bool,
    /// UMEM frames neither in the kernel's hands nor in the current batch.
    free: Vec<u64>,
    /// The current batch, and the RX entries and UMEM frames it holds.
    held: Vec<Held>,
    held_entries: u32,
    held_chunks: Vec<u64>,
    staging: Vec<u8>,
    received: u64,
    multi_buffer: u64,
}

impl XdpReceiver {
    /// Opens a receiver for frames of `ethertype` on `interface`.
    pub fn open(interface: &str, ethertype: u16, config: &XdpConfig) -> Result<XdpReceiver> {
        let queue = config.queue;
        let fail = |op: &'static str| {
            let interface = interface.to_owned();
            move |source| Error::Xsk {
                op,
                interface,
                queue,
                source,
            }
        };
        let invalid = |what: &str| {
            fail("configure")(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                what.to_owned(),
            ))
        };
        let ring_size = config.ring_size;
        if !ring_size.is_power_of_two() || ring_size < 64 {
            return Err(invalid(&format!(
                "ring size {ring_size} is not a power of two of at least 64"
            )));
        }
        let page = page_size();
        let chunk = config.chunk_size;
        if !chunk.is_power_of_two() || chunk < 2048 || chunk as usize > page {
            return Err(invalid(&format!(
                "UMEM frame size {chunk} is not a power of two from 2048 to the page size {page}"
            )));
        }
        let ifindex = crate::netdev::if_index(interface).map_err(fail("if_nametoindex"))?;
        let frames = ring_size * 2;
        let umem = Umem::new(frames as usize * chunk as usize).map_err(fail("mmap UMEM"))?;

        let socket = crate::sockopt::raw_socket(libc::AF_XDP, fail("socket(AF_XDP)"))?;
        let fd = socket.as_raw_fd();
        let reg = libc::xdp_umem_reg {
            addr: umem.ptr as u64,
            len: umem.len as u64,
            chunk_size: chunk,
            headroom: 0,
            flags: 0,
            tx_metadata_len: 0,
        };
        set(fd, libc::XDP_UMEM_REG, &reg).map_err(fail("XDP_UMEM_REG"))?;
        set(fd, libc::XDP_UMEM_FILL_RING, &ring_size).map_err(fail("XDP_UMEM_FILL_RING"))?;
        // The kernel wants a completion ring with every UMEM, even unused.
        let small: u32 = 64;
        set(fd, libc::XDP_UMEM_COMPLETION_RING, &small)
            .map_err(fail("XDP_UMEM_COMPLETION_RING"))?;
        set(fd, libc::XDP_RX_RING, &ring_size).map_err(fail("XDP_RX_RING"))?;
        let offsets = mmap_offsets(fd).map_err(fail("XDP_MMAP_OFFSETS"))?;
        let mut fill: Ring<u64> = Ring::map(
            fd,
            libc::XDP_UMEM_PGOFF_FILL_RING,
            offsets.fr.into(),
            ring_size,
        )
        .map_err(fail("mmap fill ring"))?;
        let rx: Ring<libc::xdp_desc> = Ring::map(
            fd,
            libc::XDP_PGOFF_RX_RING as u64,
            offsets.rx.into(),
            ring_size,
        )
        .map_err(fail("mmap RX ring"))?;

        let mut free: Vec<u64> = (0..u64::from(frames))
            .map(|i| i * u64::from(chunk))
            .collect();
        let n = fill.free().min(free.len() as u32);
        for i in 0..n {
            let addr = free.pop().unwrap_or_default();
            fill.write(i, addr);
        }
        fill.submit(n);

        bind(fd, ifindex, queue).map_err(fail("bind"))?;
        let zero_copy = is_zero_copy(fd);

        let xsks = Map::create(MapType::XskMap, "linerate_xsks", 4, MAX_QUEUES)?;
        if queue >= xsks.max_entries() {
            return Err(invalid(&format!("queue {queue} is past {MAX_QUEUES}")));
        }
        xsks.update(queue, &(fd as u32).to_ne_bytes())?;
        let counters = Map::create(MapType::Array, "linerate_cnt", 8, program::COUNTERS)?;
        let insns = program::ethertype_to_xsk(ethertype, xsks.raw_fd(), counters.raw_fd())
            .map_err(|e| invalid(&e.to_string()))?;
        let prog = Program::load_xdp("linerate_xsk", &insns)?;
        let link = match config.mode {
            Some(mode) => prog.attach(interface, ifindex, mode)?,
            None => prog
                .attach(interface, ifindex, AttachMode::Native)
                .or_else(|_| prog.attach(interface, ifindex, AttachMode::Generic))?,
        };
        let batch = config.batch.clamp(1, ring_size);
        Ok(XdpReceiver {
            link,
            _program: prog,
            _xsks: xsks,
            counters,
            rx,
            fill,
            socket,
            umem,
            chunk_size: u64::from(chunk),
            batch,
            max_frame: config.max_frame,
            interface: interface.to_owned(),
            queue,
            zero_copy,
            free,
            held: Vec::with_capacity(batch as usize),
            held_entries: 0,
            held_chunks: Vec::with_capacity(batch as usize * 4),
            staging: vec![0; config.max_frame.saturating_mul(batch as usize)],
            received: 0,
            multi_buffer: 0,
        })
    }

    /// The interface.
    pub fn interface(&self) -> &str {
        &self.interface
    }

    /// Where the program runs.
    pub fn mode(&self) -> AttachMode {
        self.link.mode()
    }

    /// Whether frames reach the UMEM by DMA (a NIC's zero-copy mode)
    /// rather than by a kernel copy.
    pub fn zero_copy(&self) -> bool {
        self.zero_copy
    }

    /// Gives the frames of the last batch back to the kernel and takes up
    /// to a batch of new ones. `timeout` zero only looks at the ring (no
    /// syscall); `None` waits without limit; otherwise waits up to that
    /// long in `poll`. Returns how many frames [`Self::frames`] yields.
    pub fn recv(&mut self, timeout: Option<Duration>) -> Result<usize> {
        self.give_back();
        let mut ready = self.rx.ready();
        if ready == 0 && timeout != Some(Duration::ZERO) {
            self.wait(timeout)?;
            ready = self.rx.ready();
        }
        let mut i = 0;
        let mut staged = 0usize;
        while i < ready && (self.held.len() as u32) < self.batch {
            // A frame is its descriptors up to one without XDP_PKT_CONTD;
            // the kernel publishes them together, so all are ready here.
            let mut parts = 1;
            while i + parts <= ready
                && self.rx.read(i + parts - 1).options & libc::XDP_PKT_CONTD != 0
            {
                parts += 1;
            }
            if i + parts > ready {
                break;
            }
            let first = self.rx.read(i);
            let stamp = self.stamp_before(first.addr);
            let frame = if parts == 1 {
                Held {
                    offset: first.addr as usize,
                    len: first.len as usize,
                    staged: false,
                    stamp,
                    truncated: false,
                }
            } else {
                self.multi_buffer += 1;
                let start = staged * self.max_frame;
                let mut len = 0;
                let mut truncated = false;
                for p in 0..parts {
                    let d = self.rx.read(i + p);
                    let room = self.max_frame - len;
                    let take = (d.len as usize).min(room);
                    truncated |= take < d.len as usize;
                    if let (Some(src), Some(dst)) = (
                        self.umem.slice(d.addr as usize, take),
                        self.staging.get_mut(start + len..start + len + take),
                    ) {
                        dst.copy_from_slice(src);
                        len += take;
                    }
                }
                staged += 1;
                Held {
                    offset: start,
                    len,
                    staged: true,
                    stamp,
                    truncated,
                }
            };
            for p in 0..parts {
                let addr = self.rx.read(i + p).addr;
                self.held_chunks.push(addr - addr % self.chunk_size);
            }
            self.held.push(frame);
            i += parts;
        }
        self.held_entries = i;
        self.received += self.held.len() as u64;
        Ok(self.held.len())
    }

    /// The frames of the last [`Self::recv`], in arrival order.
    pub fn frames(&self) -> impl Iterator<Item = XdpFrame<'_>> + '_ {
        self.held.iter().filter_map(move |h| {
            let data = if h.staged {
                self.staging.get(h.offset..h.offset + h.len)?
            } else {
                self.umem.slice(h.offset, h.len)?
            };
            Some(XdpFrame {
                data,
                timestamp_ns: h.stamp,
                truncated: h.truncated,
            })
        })
    }

    /// The socket's and the program's counters.
    pub fn stats(&mut self) -> Result<XdpStats> {
        // SAFETY: plain integers; all-zero is valid.
        let mut s: libc::xdp_statistics = unsafe { std::mem::zeroed() };
        crate::sockopt::get_option(
            self.socket.as_raw_fd(),
            libc::SOL_XDP,
            libc::XDP_STATISTICS,
            &mut s,
        )
        .map_err(|e| self.error("XDP_STATISTICS", e))?;
        Ok(XdpStats {
            seen: self.counters.read_u64(program::COUNTER_SEEN)?,
            dropped: s.rx_dropped + s.rx_ring_full,
            fill_ring_empty: s.rx_fill_ring_empty_descs,
            invalid: s.rx_invalid_descs,
            received: self.received,
            pending: self.pending_frames(),
            multi_buffer: self.multi_buffer,
        })
    }

    /// Frames waiting on the RX ring behind the current batch: its
    /// descriptors that end a frame (no XDP_PKT_CONTD), so a jumbo frame
    /// in three descriptors counts once, like `seen` and `received`.
    fn pending_frames(&mut self) -> u64 {
        let ready = self.rx.ready();
        (self.held_entries..ready)
            .filter(|&i| self.rx.read(i).options & libc::XDP_PKT_CONTD == 0)
            .count() as u64
    }

    fn error(&self, op: &'static str, source: std::io::Error) -> Error {
        Error::Xsk {
            op,
            interface: self.interface.clone(),
            queue: self.queue,
            source,
        }
    }

    /// Releases the last batch's RX entries and refills the fill ring.
    fn give_back(&mut self) {
        if self.held_entries > 0 {
            self.rx.release(self.held_entries);
            self.held_entries = 0;
        }
        self.held.clear();
        self.free.append(&mut self.held_chunks);
        let n = self.fill.free().min(self.free.len() as u32);
        for i in 0..n {
            let addr = self.free.pop().unwrap_or_default();
            self.fill.write(i, addr);
        }
        if n > 0 {
            self.fill.submit(n);
        }
    }

    /// The program's stamp in the metadata before the frame at `addr`.
    fn stamp_before(&self, addr: u64) -> u64 {
        let Some(start) = (addr as usize).checked_sub(META_LEN) else {
            return 0;
        };
        // The metadata lies in the frame's headroom, never in another frame.
        if addr % self.chunk_size < PACKET_HEADROOM {
            return 0;
        }
        let mut meta = [0u8; META_LEN];
        match self.umem.slice(start, META_LEN) {
            Some(m) => meta.copy_from_slice(m),
            None => return 0,
        }
        program::read_stamp(&meta).unwrap_or(0)
    }

    fn wait(&self, timeout: Option<Duration>) -> Result<()> {
        crate::sockopt::wait_readable(self.socket.as_raw_fd(), timeout)
            .map_err(|e| self.error("ppoll", e))?;
        Ok(())
    }
}

/// The system's page size.
fn page_size() -> usize {
    // SAFETY: sysconf has no memory effects.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).unwrap_or(4096)
}

fn set<T>(fd: RawFd, name: libc::c_int, value: &T) -> std::io::Result<()> {
    crate::sockopt::set_option(fd, libc::SOL_XDP, name, value)
}

fn mmap_offsets(fd: RawFd) -> std::io::Result<libc::xdp_mmap_offsets> {
    // SAFETY: plain integers; all-zero is valid.
    let mut o: libc::xdp_mmap_offsets = unsafe { std::mem::zeroed() };
    let len = crate::sockopt::get_option(fd, libc::SOL_XDP, libc::XDP_MMAP_OFFSETS, &mut o)?;
    if len != size_of::<libc::xdp_mmap_offsets>() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            format!("kernel gave {len}-byte ring offsets (pre-5.4 layout); need the flags field"),
        ));
    }
    Ok(o)
}

/// Binds to the queue: multi-buffer frames allowed where the kernel knows
/// them (Linux 6.6+), else single-buffer only.
fn bind(fd: RawFd, ifindex: u32, queue: u32) -> std::io::Result<()> {
    let attempt = |flags: u16| {
        let sxdp = libc::sockaddr_xdp {
            sxdp_family: libc::AF_XDP as u16,
            sxdp_flags: flags,
            sxdp_ifindex: ifindex,
            sxdp_queue_id: queue,
            sxdp_shared_umem_fd: 0,
        };
        // SAFETY: passes a live sockaddr_xdp and its exact size.
        let r = unsafe {
            libc::bind(
                fd,
                (&sxdp as *const libc::sockaddr_xdp).cast(),
                size_of::<libc::sockaddr_xdp>() as libc::socklen_t,
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    };
    attempt(libc::XDP_USE_SG).or_else(|e| match e.raw_os_error() {
        Some(libc::EINVAL | libc::EOPNOTSUPP) => attempt(0),
        _ => Err(e),
    })
}

fn is_zero_copy(fd: RawFd) -> bool {
    let mut o = libc::xdp_options { flags: 0 };
    crate::sockopt::get_option(fd, libc::SOL_XDP, libc::XDP_OPTIONS, &mut o)
        .is_ok_and(|_| o.flags & libc::XDP_OPTIONS_ZEROCOPY != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_geometry_is_refused_before_anything_is_opened() {
        let c = XdpConfig {
            ring_size: 1000,
            ..XdpConfig::default()
        };
        let e = XdpReceiver::open("lo", 0xfade, &c).expect_err("not a power of two");
        assert!(e.to_string().contains("1000"), "{e}");
        let c = XdpConfig {
            chunk_size: 1024,
            ..XdpConfig::default()
        };
        let e = XdpReceiver::open("lo", 0xfade, &c).expect_err("too small");
        assert!(e.to_string().contains("1024"), "{e}");
    }
}
