//! Sending the same frames to many TCP clients (`linerate serve`).
//!
//! Frames live once in [`SharedFrames`], a memfd mapped into the process:
//! the producer writes a frame through the mapping, and every client's
//! socket is fed from the same pages. How the bytes reach a socket is the
//! [`Method`]:
//!
//! * `write`: `send()` from the mapping; the kernel copies the bytes into
//!   its own buffers (one copy per client, the baseline).
//! * `sendfile`: `sendfile()` from the memfd; the kernel references the
//!   memfd's pages in the socket buffer (no copy).
//! * `splice`: the memfd's pages are spliced into a per-client pipe (up to
//!   the pipe's size, all pages in one call), then from the pipe into the
//!   socket in one call (no copy). This is the batched splice the Axis send-path study measured.
//! * `zerocopy`: `send()` with MSG_ZEROCOPY from the mapping; the kernel
//!   pins the pages and reports on the socket's error queue when done.
//! * `uring`: `IORING_OP_SEND_ZC` through one io_uring for all clients
//!   ([`crate::uring`]); this module only sets the socket up.
//!
//! For the methods that do not copy, the kernel may read a frame's pages
//! until the peer acknowledges them (a retransmission reads them again), so
//! a frame's slot may only be reused after that: [`ClientSocket::released`]
//! tells how far a client's stream is safe to forget (acknowledged bytes
//! from SIOCOUTQ, or completed MSG_ZEROCOPY sends).

use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::str::FromStr;

use crate::sockopt::{set_int_option, set_send_buffer};
use crate::tcp::send::{drain_zerocopy_completions, SO_ZEROCOPY};

/// How a client's bytes are handed to its socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `send()` from the mapping: the kernel copies.
    Write,
    /// `sendfile()` from the memfd: no copy.
    Sendfile,
    /// `splice()` memfd → pipe → socket, whole pipe per call: no copy.
    Splice,
    /// `send(MSG_ZEROCOPY)` from the mapping: no copy, completions on the error queue.
    Zerocopy,
    /// `IORING_OP_SEND_ZC` from the registered mapping, every client's send
    /// of a frame in one `io_uring_enter` ([`crate::uring`]): no copy, and
    /// one syscall per frame instead of one per frame and client.
    Uring,
}

impl Method {
    /// Every method, in a fixed order (for benchmarks).
    pub const ALL: [Method; 5] = [
        Method::Write,
        Method::Sendfile,
        Method::Splice,
        Method::Zerocopy,
        Method::Uring,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Method::Write => "write",
            Method::Sendfile => "sendfile",
            Method::Splice => "splice",
            Method::Zerocopy => "zerocopy",
            Method::Uring => "uring",
        }
    }

    /// Whether the kernel copies the bytes at send time (so a frame's
    /// memory is free as soon as it is written).
    pub fn copies(self) -> bool {
        matches!(self, Method::Write)
    }
}

impl FromStr for Method {
    type Err = String;

    fn from_str(s: &str) -> Result<Method, String> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                format!("unknown send method {s:?} (write, sendfile, splice, zerocopy, uring)")
            })
    }
}

fn os_err() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// The error of `send`/`released` on a `uring` socket: its sends and
/// completions go through [`crate::uring::UringSender`].
fn uring_elsewhere() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "a uring client's sends go through the server's io_uring, not the socket",
    )
}

/// Frame slots in one memfd, mapped read-write; each slot starts on a page
/// boundary so sendfile and splice move whole pages. Or, for the methods
/// that send from the mapping (write, zerocopy), in anonymous memory backed
/// by transparent huge pages where the system allows it: MSG_ZEROCOPY pins
/// a 2 MiB page in one step instead of 512 small ones.
#[derive(Debug)]
pub struct SharedFrames {
    fd: Option<OwnedFd>,
    base: *mut u8,
    /// Start and length of the whole mapping (the slots may start later,
    /// aligned).
    map: (*mut u8, usize),
    slot_len: usize,
    slots: usize,
}

/// Slot length (whole 4 KiB pages, so sendfile and splice move whole pages)
/// and total bytes of a pool of `slots` slots of at least `min_slot_len`
/// bytes, refusing an empty pool or one over 64 GiB.
fn pool_layout(slots: usize, min_slot_len: usize) -> std::io::Result<(usize, usize)> {
    let page = 4096;
    let slot_len = min_slot_len.max(1).div_ceil(page) * page;
    let total = slot_len
        .checked_mul(slots)
        .filter(|&t| t > 0 && t <= 1 << 36)
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{slots} slots of {slot_len} bytes is no sane frame pool"),
            )
        })?;
    Ok((slot_len, total))
}

// SAFETY: the mapping is owned by this value; `&mut self` guards writes.
unsafe impl Send for SharedFrames {}

impl SharedFrames {
    /// Creates `slots` slots of at least `min_slot_len` bytes each (rounded
    /// up to whole pages), backed by a memfd and populated now, so sending
    /// never faults pages in.
    pub fn new(slots: usize, min_slot_len: usize) -> std::io::Result<SharedFrames> {
        let (slot_len, total) = pool_layout(slots, min_slot_len)?;
        // SAFETY: a NUL-terminated name and valid flags.
        let raw = unsafe { libc::memfd_create(c"linerate-frames".as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(os_err());
        }
        // SAFETY: memfd_create returned a fresh descriptor we now own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: plain ftruncate on our descriptor.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), total as libc::off_t) } != 0 {
            return Err(os_err());
        }
        // SAFETY: maps the whole file shared; unmapped in Drop.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(os_err());
        }
        Ok(SharedFrames {
            fd: Some(fd),
            base: base.cast(),
            map: (base.cast(), total),
            slot_len,
            slots,
        })
    }

    /// Like [`SharedFrames::new`] but in anonymous memory, 2 MiB-aligned and
    /// advised to use transparent huge pages (MADV_HUGEPAGE; where THP is
    /// off this is ordinary memory). Only `write` and `zerocopy` can send
    /// from it: it has no file for sendfile or splice.
    pub fn anonymous(slots: usize, min_slot_len: usize) -> std::io::Result<SharedFrames> {
        const HUGE: usize = 2 << 20;
        let (slot_len, total) = pool_layout(slots, min_slot_len)?;
        let map_len = total.div_ceil(HUGE) * HUGE + HUGE;
        // SAFETY: a fresh private anonymous mapping; unmapped in Drop.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(os_err());
        }
        let map = map.cast::<u8>();
        let skip = (HUGE - (map as usize) % HUGE) % HUGE;
        // SAFETY: `skip` < HUGE and the mapping is HUGE longer than needed.
        let base = unsafe { map.add(skip) };
        // Advice only: without THP the memory works the same.
        // SAFETY: advises on our own mapping.
        unsafe {
            libc::madvise(
                base.cast(),
                total.div_ceil(HUGE) * HUGE,
                libc::MADV_HUGEPAGE,
            )
        };
        let frames = SharedFrames {
            fd: None,
            base,
            map: (map, map_len),
            slot_len,
            slots,
        };
        // Touch every page now so sending never faults.
        // SAFETY: writes inside the mapping.
        unsafe { std::ptr::write_bytes(base, 0, total) };
        Ok(frames)
    }

    /// Bytes per slot.
    pub fn slot_len(&self) -> usize {
        self.slot_len
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Slot `i` for writing a frame (`None` past the last slot). The caller
    /// must only rewrite a slot no client still references.
    pub fn slot_mut(&mut self, i: usize) -> Option<&mut [u8]> {
        (i < self.slots).then(|| {
            // SAFETY: inside the mapping; `&mut self` excludes other borrows.
            unsafe {
                std::slice::from_raw_parts_mut(self.base.add(i * self.slot_len), self.slot_len)
            }
        })
    }

    /// Slot `i` for reading.
    pub fn slot(&self, i: usize) -> Option<&[u8]> {
        (i < self.slots).then(|| {
            // SAFETY: inside the mapping.
            unsafe { std::slice::from_raw_parts(self.base.add(i * self.slot_len), self.slot_len) }
        })
    }

    /// Offset of slot `i` in the memfd.
    pub fn file_offset(&self, i: usize) -> u64 {
        (i * self.slot_len) as u64
    }

    /// The memfd, for sendfile and splice; an error for anonymous memory.
    fn raw_fd(&self) -> std::io::Result<RawFd> {
        self.fd.as_ref().map(|f| f.as_raw_fd()).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "sendfile and splice need a memfd frame pool, not anonymous memory",
            )
        })
    }
}

impl Drop for SharedFrames {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping made in `new` or `anonymous`, once.
        unsafe { libc::munmap(self.map.0.cast(), self.map.1) };
    }
}

/// Counters of one client socket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SocketCounters {
    /// Send-side syscalls made (send, sendfile, splice).
    pub syscalls: u64,
    /// Of those, how many found the socket (or pipe) full.
    pub would_block: u64,
    /// MSG_ZEROCOPY sends reported complete.
    pub zc_completions: u64,
    /// Of those, how many the kernel had copied after all.
    pub zc_copied: u64,
}

/// One client's non-blocking TCP socket and its method's state.
#[derive(Debug)]
pub struct ClientSocket {
    stream: TcpStream,
    peer: SocketAddr,
    method: Method,
    /// Bytes accepted by the socket so far (the client's stream position).
    pos: u64,
    /// Splice: the pipe (read end, write end) and bytes waiting in it.
    pipe: Option<(OwnedFd, OwnedFd)>,
    pipe_fill: usize,
    /// Zerocopy: stream position after each send, by id order, not yet completed.
    zc_ends: std::collections::VecDeque<u64>,
    zc_next_id: u32,
    zc_done_pos: u64,
    counters: SocketCounters,
}

/// Largest pipe asked for (the default `pipe-max-size` is 1 MiB).
const PIPE_LEN: usize = 1 << 20;

impl ClientSocket {
    /// Takes an accepted connection: non-blocking, the send buffer given
    /// (0 keeps the kernel's autotuning), SO_ZEROCOPY or a pipe as the
    /// method needs. TCP_NODELAY is left off: a frame's tail waits for
    /// nothing anyway (each frame is sent whole), and Nagle keeps a short
    /// write from leaving as a small segment while more follows.
    pub fn new(stream: TcpStream, method: Method, send_buffer: usize) -> std::io::Result<Self> {
        let peer = stream.peer_addr()?;
        stream.set_nonblocking(true)?;
        let fd = stream.as_raw_fd();
        if send_buffer > 0 {
            set_send_buffer(fd, send_buffer)?;
        }
        let mut pipe = None;
        match method {
            Method::Zerocopy => set_int_option(fd, libc::SOL_SOCKET, SO_ZEROCOPY, 1)?,
            Method::Splice => {
                let mut fds = [0; 2];
                // SAFETY: pipe2 fills two descriptors we then own.
                if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0
                {
                    return Err(os_err());
                }
                // SAFETY: fresh descriptors from pipe2.
                let (r, w) =
                    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
                // A larger pipe moves more pages per call; keep the
                // default if the limit refuses.
                // SAFETY: F_SETPIPE_SZ on our pipe.
                unsafe { libc::fcntl(w.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_LEN as libc::c_int) };
                pipe = Some((r, w));
            }
            // io_uring polls the socket itself; a blocking socket keeps a
            // send from ever failing with EAGAIN.
            Method::Uring => stream.set_nonblocking(false)?,
            Method::Write | Method::Sendfile => {}
        }
        Ok(ClientSocket {
            stream,
            peer,
            method,
            pos: 0,
            pipe,
            pipe_fill: 0,
            zc_ends: Default::default(),
            zc_next_id: 0,
            zc_done_pos: 0,
            counters: SocketCounters::default(),
        })
    }

    /// The client's address.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// The socket descriptor (for polling).
    pub fn raw_fd(&self) -> RawFd {
        self.stream.as_raw_fd()
    }

    /// Counters so far.
    pub fn counters(&self) -> SocketCounters {
        self.counters
    }

    /// Hands up to `len` bytes at `offset` in slot `slot` to the socket;
    /// returns how many the socket took (0 when it is full). `more` says
    /// another frame follows at once, so the tail need not be pushed.
    /// The bytes must continue the stream exactly where the last call
    /// stopped.
    pub fn send(
        &mut self,
        frames: &SharedFrames,
        slot: usize,
        offset: usize,
        len: usize,
        more: bool,
    ) -> std::io::Result<usize> {
        if len == 0 {
            return Ok(0);
        }
        let fd = self.stream.as_raw_fd();
        let more_flag = if more { libc::MSG_MORE } else { 0 };
        let r = match self.method {
            Method::Write | Method::Zerocopy => {
                let data = frames
                    .slot(slot)
                    .and_then(|s| s.get(offset..offset + len))
                    .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
                let zc = if self.method == Method::Zerocopy {
                    libc::MSG_ZEROCOPY
                } else {
                    0
                };
                self.counters.syscalls += 1;
                // SAFETY: sends from a live slice of the mapping.
                unsafe {
                    libc::send(
                        fd,
                        data.as_ptr().cast(),
                        data.len(),
                        libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL | more_flag | zc,
                    )
                }
            }
            Method::Sendfile => {
                if offset + len > frames.slot_len() {
                    return Err(std::io::ErrorKind::InvalidInput.into());
                }
                let mut off = (frames.file_offset(slot) + offset as u64) as libc::off_t;
                self.counters.syscalls += 1;
                // SAFETY: sendfile between our descriptors; `off` is ours.
                unsafe { libc::sendfile(fd, frames.raw_fd()?, &mut off, len) }
            }
            Method::Splice => return self.splice(frames, slot, offset, len, more),
            Method::Uring => return Err(uring_elsewhere()),
        };
        if r < 0 {
            let e = os_err();
            if e.kind() == std::io::ErrorKind::WouldBlock {
                self.counters.would_block += 1;
                return Ok(0);
            }
            return Err(e);
        }
        let n = r as usize;
        self.pos += n as u64;
        if self.method == Method::Zerocopy && n > 0 {
            self.zc_ends.push_back(self.pos);
            self.zc_next_id = self.zc_next_id.wrapping_add(1);
        }
        Ok(n)
    }

    fn splice(
        &mut self,
        frames: &SharedFrames,
        slot: usize,
        offset: usize,
        len: usize,
        more: bool,
    ) -> std::io::Result<usize> {
        let Some((r, w)) = self.pipe.as_ref() else {
            return Err(std::io::ErrorKind::InvalidInput.into());
        };
        if offset + len > frames.slot_len() {
            return Err(std::io::ErrorKind::InvalidInput.into());
        }
        // The pipe always holds the bytes right after `pos`: fill it only
        // when empty, with as much of the frame as it takes.
        if self.pipe_fill == 0 {
            let mut off = (frames.file_offset(slot) + offset as u64) as libc::loff_t;
            let memfd = frames.raw_fd()?;
            self.counters.syscalls += 1;
            // SAFETY: splice from our memfd into our pipe.
            let n = unsafe {
                libc::splice(
                    memfd,
                    &mut off,
                    w.as_raw_fd(),
                    std::ptr::null_mut(),
                    len,
                    libc::SPLICE_F_NONBLOCK,
                )
            };
            if n < 0 {
                let e = os_err();
                if e.kind() == std::io::ErrorKind::WouldBlock {
                    self.counters.would_block += 1;
                    return Ok(0);
                }
                return Err(e);
            }
            self.pipe_fill = n as usize;
        }
        let tail_follows = self.pipe_fill < len || more;
        let flags = libc::SPLICE_F_NONBLOCK
            | libc::SPLICE_F_MOVE
            | if tail_follows { libc::SPLICE_F_MORE } else { 0 };
        self.counters.syscalls += 1;
        // SAFETY: splice from our pipe into our socket.
        let n = unsafe {
            libc::splice(
                r.as_raw_fd(),
                std::ptr::null_mut(),
                self.stream.as_raw_fd(),
                std::ptr::null_mut(),
                self.pipe_fill.min(len),
                flags,
            )
        };
        if n < 0 {
            let e = os_err();
            if e.kind() == std::io::ErrorKind::WouldBlock {
                self.counters.would_block += 1;
                return Ok(0);
            }
            return Err(e);
        }
        let n = n as usize;
        self.pipe_fill -= n;
        self.pos += n as u64;
        Ok(n)
    }

    /// How far the client's stream may be forgotten: every byte before the
    /// returned position is no longer read by the kernel (acknowledged by
    /// the peer, or its MSG_ZEROCOPY send completed). For `write` that is
    /// everything sent.
    pub fn released(&mut self) -> std::io::Result<u64> {
        match self.method {
            Method::Uring => Err(uring_elsewhere()),
            Method::Write => Ok(self.pos),
            Method::Sendfile | Method::Splice => {
                let mut outq: libc::c_int = 0;
                // SAFETY: SIOCOUTQ writes one int.
                if unsafe { libc::ioctl(self.stream.as_raw_fd(), libc::TIOCOUTQ, &mut outq) } != 0 {
                    return Err(os_err());
                }
                Ok(self.pos.saturating_sub(outq.max(0) as u64))
            }
            Method::Zerocopy => {
                let mut done = Vec::new();
                drain_zerocopy_completions(self.stream.as_raw_fd(), |lo, hi, code| {
                    done.push((lo, hi, code));
                })?;
                // Completions cover id ranges; ids are issued in order and
                // the kernel reports them in order on one TCP socket.
                let first = self.zc_next_id.wrapping_sub(self.zc_ends.len() as u32);
                let mut upto = first;
                for (lo, hi, code) in done {
                    let n = u64::from(hi.wrapping_sub(lo)) + 1;
                    self.counters.zc_completions += n;
                    if code & 1 != 0 {
                        self.counters.zc_copied += n;
                    }
                    if hi.wrapping_sub(first) < self.zc_ends.len() as u32 {
                        upto = upto.max(hi.wrapping_add(1));
                    }
                }
                for _ in 0..upto.wrapping_sub(first) {
                    if let Some(end) = self.zc_ends.pop_front() {
                        self.zc_done_pos = end;
                    }
                }
                Ok(self.zc_done_pos)
            }
        }
    }

    /// Closes at once with a reset (SO_LINGER 0): the kernel drops what it
    /// still holds, so the frames' pages are free when this returns.
    pub fn abort(self) {
        let linger = libc::linger {
            l_onoff: 1,
            l_linger: 0,
        };
        let _ = crate::sockopt::set_option(
            self.stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            &linger,
        );
    }
}

/// Waits up to `timeout_ms` until one of `readable` has input or one of
/// `writable` has room (or is in error); returns the indices of the ready
/// ones in each list.
pub fn wait_ready(
    readable: &[RawFd],
    writable: &[RawFd],
    timeout_ms: i32,
) -> std::io::Result<(Vec<usize>, Vec<usize>)> {
    let mut p: Vec<libc::pollfd> = Vec::with_capacity(readable.len() + writable.len());
    p.extend(readable.iter().map(|&fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }));
    p.extend(writable.iter().map(|&fd| libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    }));
    // SAFETY: poll on our array of the length given.
    let r = unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, timeout_ms) };
    if r < 0 {
        let e = os_err();
        if e.kind() == std::io::ErrorKind::Interrupted {
            return Ok((Vec::new(), Vec::new()));
        }
        return Err(e);
    }
    let ready = |q: &[libc::pollfd]| -> Vec<usize> {
        q.iter()
            .enumerate()
            .filter(|(_, x)| x.revents != 0)
            .map(|(i, _)| i)
            .collect()
    };
    let (r, w) = p.split_at(readable.len());
    Ok((ready(r), ready(w)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    fn pair() -> (TcpStream, TcpStream) {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let c = TcpStream::connect(l.local_addr().expect("addr")).expect("connect");
        let (s, _) = l.accept().expect("accept");
        (s, c)
    }

    #[test]
    fn every_method_delivers_the_slot_bytes_in_order() {
        let mut frames = SharedFrames::new(3, 300_000).expect("memfd");
        for i in 0..3 {
            let s = frames.slot_mut(i).expect("slot");
            for (j, b) in s.iter_mut().enumerate() {
                *b = (j * 7 + i) as u8;
            }
        }
        let mut anon = SharedFrames::anonymous(3, 300_000).expect("anonymous");
        for i in 0..3 {
            let s = anon.slot_mut(i).expect("slot");
            for (j, b) in s.iter_mut().enumerate() {
                *b = (j * 7 + i) as u8;
            }
        }
        let (server, _client) = pair();
        let mut sock = ClientSocket::new(server, Method::Sendfile, 0).expect("socket");
        assert!(sock.send(&anon, 0, 0, 10, false).is_err());
        // uring is covered in crate::uring's tests (its sends go through a ring).
        let cases = Method::ALL
            .into_iter()
            .filter(|&m| m != Method::Uring)
            .map(|m| (m, &frames))
            .chain([(Method::Write, &anon), (Method::Zerocopy, &anon)]);
        for (method, frames) in cases {
            let (server, mut client) = pair();
            let mut sock = ClientSocket::new(server, method, 0).expect("socket");
            let reader = std::thread::spawn(move || {
                let mut got = vec![0u8; 3 * 250_000];
                client.read_exact(&mut got).expect("read");
                got
            });
            for slot in 0..3 {
                let mut off = 0;
                while off < 250_000 {
                    let n = sock
                        .send(frames, slot, off, 250_000 - off, slot < 2)
                        .expect("send");
                    if n == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    off += n;
                }
            }
            let got = reader.join().expect("reader");
            for slot in 0..3 {
                let want = &frames.slot(slot).expect("slot")[..250_000];
                assert!(
                    got[slot * 250_000..(slot + 1) * 250_000] == *want,
                    "{method:?} slot {slot}"
                );
            }
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while sock.released().expect("released") < 750_000 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "{method:?} never released"
                );
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            assert!(sock.counters().syscalls >= 3);
        }
    }

    #[test]
    fn method_names_round_trip() {
        for m in Method::ALL {
            assert_eq!(m.name().parse::<Method>(), Ok(m));
        }
        assert!("mmap".parse::<Method>().is_err());
        assert!(SharedFrames::new(0, 10).is_err());
    }
}
