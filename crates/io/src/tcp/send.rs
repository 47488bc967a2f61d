//! Camera side of a TCP stream: connecting and vectored, record-aligned sends.
//!
//! A sender hands [`TcpSender::send_records`] a list of [`Records`], each a
//! small head (record header, GVSP header, leader or trailer fields) and the
//! frame's bytes, in one slice or in several pieces. They leave in `sendmsg`
//! calls of at most [`TcpSendOptions::call_bytes`] each, the frame bytes
//! straight from where they lie. A partial write resumes at the exact byte
//! it stopped at. A send timeout makes a blocked call return
//! now and then, so the caller can notice a stop; the sender then stops only
//! at a record boundary, because a receiver cannot resynchronise a stream cut
//! inside a record.
//!
//! With MSG_ZEROCOPY the kernel sends from the caller's pages instead of
//! copying them, and reports on the socket's error queue when it no longer
//! needs them; until then the caller must not rewrite that memory. Each
//! `sendmsg` that queued data gets the next id (0, 1, 2, ...):
//! [`TcpSender::zerocopy_issued`] and [`TcpSender::wait_completed`] let the
//! caller tie a buffer to the ids that reference it.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, Socket, Type};

use crate::error::{Error, Result};
use crate::sockopt::{set_int_option, set_send_buffer};

/// Most iovecs one `sendmsg` takes (the kernel's UIO_MAXIOV).
pub const IOV_MAX: usize = libc::UIO_MAXIOV as usize;

/// SO_ZEROCOPY from `<asm-generic/socket.h>` (not in the libc crate).
pub(crate) const SO_ZEROCOPY: libc::c_int = 60;
/// `ee_origin` of a zerocopy completion (`<linux/errqueue.h>`).
const SO_EE_ORIGIN_ZEROCOPY: u8 = 5;
/// `ee_code` flag: the kernel copied the data after all (loopback, veth to a
/// local socket, a device without scatter-gather).
const SO_EE_CODE_ZEROCOPY_COPIED: u8 = 1;

/// How a [`TcpSender`] connects and sends.
#[derive(Debug, Clone)]
pub struct TcpSendOptions {
    /// Send buffer (SO_SNDBUF) in bytes, forced past `wmem_max` where the
    /// process may (root). `None` (the default) leaves it to the kernel's
    /// autotuning (`net.ipv4.tcp_wmem`), as iperf3 does: a fixed buffer
    /// turns autotuning off, and a large one keeps more data in flight than
    /// the caches hold, which measured slower on veth (`docs/gvsp-over-tcp.md`).
    pub send_buffer: Option<usize>,
    /// How long to wait for the peer to accept the connection.
    pub connect_timeout: Duration,
    /// How long one blocked `sendmsg` waits before the caller is asked
    /// whether to go on: bounds how late a stop is noticed.
    pub send_timeout: Duration,
    /// After a stop, how long to wait for the peer to take the rest of the
    /// record in progress before giving up with [`Error::TcpStalled`].
    pub finish_timeout: Duration,
    /// Send with MSG_ZEROCOPY (SO_ZEROCOPY is set before connecting).
    pub zerocopy: bool,
    /// Most bytes one `sendmsg` is given ([`DEFAULT_CALL_BYTES`]): between
    /// calls the socket is released, so the peer's ACKs are taken (and the
    /// data they let go sent) as they come instead of piling up behind one
    /// long call. At least 1.
    pub call_bytes: usize,
}

/// Bytes per `sendmsg` by default: 1 MiB. Whole 4 MiB frames per call
/// into a fixed 4 MiB send buffer moved 0.7-0.8x iperf3's rate on veth;
/// with the kernel's send buffer autotuning, 256 KiB calls moved 0.93x
/// and 1 MiB calls 1.08x (NAPI host) and 1.22x (RPS host), the sender
/// paying less CPU per GB than iperf3's client (`docs/gvsp-over-tcp.md`).
pub const DEFAULT_CALL_BYTES: usize = 1 << 20;

impl Default for TcpSendOptions {
    fn default() -> Self {
        TcpSendOptions {
            send_buffer: None,
            connect_timeout: Duration::from_secs(1),
            send_timeout: Duration::from_millis(20),
            finish_timeout: Duration::from_secs(1),
            zerocopy: false,
            call_bytes: DEFAULT_CALL_BYTES,
        }
    }
}

/// What the caller answers when a send is held up by the peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    /// Keep sending.
    Continue,
    /// Stop at the next record boundary (finishing the record in progress).
    Stop,
}

/// Records for [`TcpSender::send_records`]: each one or more byte slices (a
/// head, then the frame's bytes, whole or in pieces), kept flat so that one
/// `sendmsg` gathers many records.
#[derive(Debug, Default, Clone)]
pub struct Records<'a> {
    parts: Vec<&'a [u8]>,
    /// Per record: where its parts end in `parts`, and its length in bytes.
    ends: Vec<(usize, usize)>,
}

impl<'a> Records<'a> {
    /// No records.
    pub fn new() -> Records<'a> {
        Records::default()
    }

    /// Adds one record made of `parts`, in order (empty parts are dropped).
    pub fn push(&mut self, parts: impl IntoIterator<Item = &'a [u8]>) {
        let mut bytes = 0;
        for p in parts {
            if !p.is_empty() {
                bytes += p.len();
                self.parts.push(p);
            }
        }
        self.ends.push((self.parts.len(), bytes));
    }

    /// Records held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No records held.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The parts of record `i`.
    fn parts_of(&self, i: usize) -> &[&'a [u8]] {
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p].0);
        &self.parts[start..self.ends[i].0]
    }

    /// Bytes of record `i`.
    fn bytes_of(&self, i: usize) -> usize {
        self.ends[i].1
    }
}

/// How far a [`TcpSender::send_records`] call got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    /// Records sent completely; the stream ends at a record boundary.
    pub records: usize,
    /// Bytes sent.
    pub bytes: u64,
    /// The caller asked to stop before every record went out.
    pub stopped: bool,
}

/// MSG_ZEROCOPY bookkeeping, for reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ZerocopyStats {
    /// `sendmsg` calls made with MSG_ZEROCOPY that queued data.
    pub sends: u64,
    /// Of those, how many the kernel reported complete.
    pub completions: u64,
    /// Of the completions, how many the kernel had copied anyway.
    pub copied: u64,
}

/// How [`TcpSender::close`] ended a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed {
    /// A FIN after all data; false if zerocopy buffers were still held at
    /// the deadline and the connection was reset instead.
    pub clean: bool,
    /// Zerocopy counters including completions read while closing.
    pub zerocopy: ZerocopyStats,
}

/// One TCP connection to a receiver, sending records with vectored writes.
#[derive(Debug)]
pub struct TcpSender {
    stream: TcpStream,
    local: SocketAddrV4,
    peer: SocketAddrV4,
    options: TcpSendOptions,
    /// Next zerocopy id the kernel will assign.
    zc_issued: u32,
    /// Every id below this has completed.
    zc_done: u32,
    /// Completed id ranges above `zc_done` (completions may be reported out of order).
    zc_ahead: Vec<(u32, u32)>,
    stats: ZerocopyStats,
}

fn sock_err(op: &'static str, addr: SocketAddrV4) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Socket {
        op,
        addr: SocketAddr::V4(addr),
        source,
    }
}

impl TcpSender {
    /// Connects from `local` (port chosen by the kernel) to `remote` within
    /// `options.connect_timeout`, with TCP_NODELAY (records must not wait for
    /// more data), the send buffer (if one is asked for) and timeout, and
    /// SO_ZEROCOPY if asked.
    pub fn connect(
        local: Ipv4Addr,
        remote: SocketAddrV4,
        options: &TcpSendOptions,
    ) -> Result<TcpSender> {
        let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))
            .map_err(sock_err("socket", remote))?;
        let fd = socket.as_raw_fd();
        if let Some(n) = options.send_buffer {
            set_send_buffer(fd, n).map_err(sock_err("SO_SNDBUF", remote))?;
        }
        if options.zerocopy {
            set_int_option(fd, libc::SOL_SOCKET, SO_ZEROCOPY, 1)
                .map_err(sock_err("SO_ZEROCOPY", remote))?;
        }
        socket
            .set_nodelay(true)
            .map_err(sock_err("TCP_NODELAY", remote))?;
        let bind = SocketAddrV4::new(local, 0);
        socket
            .bind(&SocketAddr::V4(bind).into())
            .map_err(sock_err("bind", bind))?;
        socket
            .connect_timeout(&SocketAddr::V4(remote).into(), options.connect_timeout)
            .map_err(sock_err("connect", remote))?;
        let timeout = options.send_timeout.max(Duration::from_millis(1));
        socket
            .set_write_timeout(Some(timeout))
            .map_err(sock_err("SO_SNDTIMEO", remote))?;
        let stream: TcpStream = socket.into();
        let local = match stream.local_addr() {
            Ok(SocketAddr::V4(a)) => a,
            Ok(SocketAddr::V6(_)) => bind,
            Err(e) => return Err(sock_err("getsockname", remote)(e)),
        };
        Ok(TcpSender {
            stream,
            local,
            peer: remote,
            options: options.clone(),
            zc_issued: 0,
            zc_done: 0,
            zc_ahead: Vec::new(),
            stats: ZerocopyStats::default(),
        })
    }

    /// The local address the connection uses.
    pub fn local_addr(&self) -> SocketAddrV4 {
        self.local
    }

    /// The receiver's address.
    pub fn peer_addr(&self) -> SocketAddrV4 {
        self.peer
    }

    /// Sends with MSG_ZEROCOPY.
    pub fn zerocopy(&self) -> bool {
        self.options.zerocopy
    }

    /// Sends `records` back to back, in `sendmsg` calls of at most
    /// `call_bytes` and [`IOV_MAX`] pieces each (a call may end inside a
    /// record). When the peer holds a send up (a timeout or a partial
    /// write), `on_hold` is asked whether to go on; after it says
    /// [`Waiting::Stop`], the record in progress is finished (within
    /// `finish_timeout`) and the call returns with `stopped` set.
    ///
    /// An error (peer gone: EPIPE, ECONNRESET; or [`Error::TcpStalled`])
    /// leaves the stream at an unknown point: close the connection.
    pub fn send_records(
        &mut self,
        records: &Records<'_>,
        on_hold: &mut dyn FnMut() -> Waiting,
    ) -> Result<Sent> {
        let mut rec = 0usize;
        // Bytes of record `rec` already sent.
        let mut off = 0usize;
        let mut bytes = 0u64;
        let mut stop_since: Option<Instant> = None;
        let mut iov: Vec<libc::iovec> = Vec::with_capacity(IOV_MAX.min(records.parts.len()));
        let call_bytes = self.options.call_bytes.max(1);
        let flags = libc::MSG_NOSIGNAL
            | if self.options.zerocopy {
                libc::MSG_ZEROCOPY
            } else {
                0
            };
        while rec < records.len() {
            if off == 0 && stop_since.is_some() {
                return Ok(Sent {
                    records: rec,
                    bytes,
                    stopped: true,
                });
            }
            iov.clear();
            let mut asked = 0usize;
            // After a stop, only the record in progress may still go out.
            let last = if stop_since.is_some() {
                rec + 1
            } else {
                records.len()
            };
            'gather: for i in rec..last {
                let parts = records.parts_of(i);
                // Whole records up to the iovec limit (the first one may go
                // in part); the byte budget may end a call inside a record.
                if i != rec && iov.len() + parts.len() > IOV_MAX {
                    break;
                }
                // Skip what the first record already sent.
                let mut skip = if i == rec { off } else { 0 };
                for p in parts {
                    if iov.len() == IOV_MAX || asked == call_bytes {
                        break 'gather;
                    }
                    if skip >= p.len() {
                        skip -= p.len();
                        continue;
                    }
                    let s = &p[skip..];
                    skip = 0;
                    let s = &s[..s.len().min(call_bytes - asked)];
                    iov.push(libc::iovec {
                        iov_base: s.as_ptr() as *mut libc::c_void,
                        iov_len: s.len(),
                    });
                    asked += s.len();
                }
            }
            if asked == 0 {
                // Only empty records left: nothing to put on the wire.
                rec = records.len();
                break;
            }
            // SAFETY: an all-zero msghdr is a valid empty value; msg_iov
            // points at `iov`, whose entries point into the caller's slices,
            // all alive for the call.
            let n = unsafe {
                let mut hdr: libc::msghdr = std::mem::zeroed();
                hdr.msg_iov = iov.as_mut_ptr();
                hdr.msg_iovlen = iov.len();
                libc::sendmsg(self.stream.as_raw_fd(), &hdr, flags)
            };
            let held = if n >= 0 {
                let n = n as usize;
                if self.options.zerocopy && n > 0 {
                    self.zc_issued = self.zc_issued.wrapping_add(1);
                    self.stats.sends += 1;
                }
                bytes += n as u64;
                // Advance (rec, off) by n bytes.
                let mut left = n;
                while left > 0 && rec < records.len() {
                    let len = records.bytes_of(rec);
                    let take = (len - off).min(left);
                    off += take;
                    left -= take;
                    if off == len {
                        rec += 1;
                        off = 0;
                    }
                }
                // Skip empty records so `off == 0` means a boundary.
                while rec < records.len() && records.bytes_of(rec) == 0 {
                    rec += 1;
                }
                n < asked
            } else {
                let e = std::io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR) => false,
                    Some(libc::EAGAIN) => true,
                    // The error queue is full of unread completions: read them and retry.
                    Some(libc::ENOBUFS) if self.options.zerocopy => {
                        self.poll_completions()?;
                        true
                    }
                    _ => return Err(sock_err("sendmsg", self.peer)(e)),
                }
            };
            if held && rec < records.len() {
                match stop_since {
                    None => {
                        if on_hold() == Waiting::Stop {
                            stop_since = Some(Instant::now());
                        }
                    }
                    Some(t) if off != 0 && t.elapsed() > self.options.finish_timeout => {
                        return Err(Error::TcpStalled {
                            peer: SocketAddr::V4(self.peer),
                            waited_ms: t.elapsed().as_millis() as u64,
                        });
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(Sent {
            records: rec,
            bytes,
            stopped: false,
        })
    }

    /// Zerocopy ids handed out so far: the next `sendmsg` gets this id.
    /// A buffer sent before this call is free once
    /// [`TcpSender::is_completed`] holds for the value read here.
    pub fn zerocopy_issued(&self) -> u32 {
        self.zc_issued
    }

    /// Every zerocopy send with an id below `id` has completed.
    pub fn is_completed(&self, id: u32) -> bool {
        self.zc_done >= id
    }

    /// Zerocopy counters so far.
    pub fn zerocopy_stats(&self) -> ZerocopyStats {
        self.stats
    }

    /// Reads every completion queued on the error queue, without waiting.
    pub fn poll_completions(&mut self) -> Result<()> {
        if !self.options.zerocopy {
            return Ok(());
        }
        let peer = self.peer;
        let fd = self.stream.as_raw_fd();
        drain_zerocopy_completions(fd, |lo, hi, code| self.complete(lo, hi, code))
            .map_err(sock_err("recvmsg MSG_ERRQUEUE", peer))
    }

    /// Records the completion of ids `lo..=hi`.
    fn complete(&mut self, lo: u32, hi: u32, code: u8) {
        let n = u64::from(hi.wrapping_sub(lo)) + 1;
        self.stats.completions += n;
        if code & SO_EE_CODE_ZEROCOPY_COPIED != 0 {
            self.stats.copied += n;
        }
        self.zc_ahead.push((lo, hi));
        self.zc_ahead.sort_unstable();
        let mut i = 0;
        while i < self.zc_ahead.len() {
            let (lo, hi) = self.zc_ahead[i];
            if lo <= self.zc_done {
                self.zc_done = self.zc_done.max(hi.saturating_add(1));
                self.zc_ahead.remove(i);
                i = 0;
            } else {
                i += 1;
            }
        }
    }

    /// Waits up to `timeout` until every zerocopy send with an id below `id`
    /// completed; returns whether they did.
    pub fn wait_completed(&mut self, id: u32, timeout: Duration) -> Result<bool> {
        let deadline = Instant::now() + timeout;
        loop {
            self.poll_completions()?;
            if self.is_completed(id) {
                return Ok(true);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let mut pfd = libc::pollfd {
                fd: self.stream.as_raw_fd(),
                events: 0,
                revents: 0,
            };
            // The error queue raises POLLERR, which poll reports unasked.
            // SAFETY: one live pollfd.
            unsafe { libc::poll(&mut pfd, 1, left.as_millis().clamp(1, 100) as i32) };
        }
    }

    /// Ends the connection cleanly: a FIN after everything queued. With
    /// zerocopy, first waits up to `timeout` for the kernel to release the
    /// memory it still sends from; if it does not, the connection is reset
    /// instead, which drops the queued data and with it the kernel's
    /// references. Returns how it went and the final zerocopy counters.
    pub fn close(mut self, timeout: Duration) -> Closed {
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
        let mut clean = true;
        if self.options.zerocopy {
            let id = self.zc_issued;
            clean = matches!(self.wait_completed(id, timeout), Ok(true));
        }
        let zerocopy = self.stats;
        if !clean {
            self.abort();
        }
        Closed { clean, zerocopy }
    }

    /// Resets the connection at once (SO_LINGER 0): queued data is dropped,
    /// and the kernel lets go of every buffer it held for zerocopy sends.
    pub fn abort(self) {
        let _ = socket2::SockRef::from(&self.stream).set_linger(Some(Duration::ZERO));
    }
}

/// Reads every MSG_ZEROCOPY completion queued on `fd`'s error queue without
/// waiting, handing each id range `lo..=hi` and its code (bit 0: the
/// kernel copied after all) to `on`. Returns when the queue is empty.
pub(crate) fn drain_zerocopy_completions(
    fd: std::os::fd::RawFd,
    mut on: impl FnMut(u32, u32, u8),
) -> std::io::Result<()> {
    loop {
        let mut control = [0u64; 16];
        // SAFETY: an all-zero msghdr is valid; msg_control points at a
        // live, 8-byte aligned buffer of the size given.
        let (r, hdr) = unsafe {
            let mut hdr: libc::msghdr = std::mem::zeroed();
            hdr.msg_control = control.as_mut_ptr().cast();
            hdr.msg_controllen = std::mem::size_of_val(&control);
            let r = libc::recvmsg(fd, &mut hdr, libc::MSG_ERRQUEUE | libc::MSG_DONTWAIT);
            (r, hdr)
        };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) => Ok(()),
                Some(libc::EINTR) => continue,
                _ => Err(e),
            };
        }
        // SAFETY: the kernel filled `control` and set msg_controllen;
        // the CMSG macros stay within it.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&hdr);
            while !c.is_null() {
                let ip_error = ((*c).cmsg_level == libc::SOL_IP
                    && (*c).cmsg_type == libc::IP_RECVERR)
                    || ((*c).cmsg_level == libc::SOL_IPV6 && (*c).cmsg_type == libc::IPV6_RECVERR);
                if ip_error {
                    let ee: libc::sock_extended_err =
                        std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                    if ee.ee_errno == 0 && ee.ee_origin == SO_EE_ORIGIN_ZEROCOPY {
                        on(ee.ee_info, ee.ee_data, ee.ee_code);
                    }
                }
                c = libc::CMSG_NXTHDR(&hdr, c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;
    use std::sync::mpsc;

    fn listener() -> (TcpListener, SocketAddrV4) {
        let l = TcpListener::bind("127.0.0.1:0").expect("listen");
        let SocketAddr::V4(a) = l.local_addr().expect("addr") else {
            panic!("IPv4 listener")
        };
        (l, a)
    }

    /// `count` records with heads and data of varied lengths, and their bytes in order.
    fn records(count: usize, data_len: usize) -> (Vec<Vec<u8>>, Vec<u8>, Vec<u8>) {
        let heads: Vec<Vec<u8>> = (0..count)
            .map(|i| vec![(i % 200) as u8 + 1; 8 + i % 29])
            .collect();
        let data: Vec<u8> = (0..data_len * count).map(|i| (i % 251) as u8).collect();
        let mut expected = Vec::new();
        for (i, h) in heads.iter().enumerate() {
            expected.extend_from_slice(h);
            expected.extend_from_slice(&data[i * data_len..(i + 1) * data_len]);
        }
        (heads, data, expected)
    }

    fn pairs<'a>(heads: &'a [Vec<u8>], data: &'a [u8], len: usize) -> Records<'a> {
        let mut records = Records::new();
        for (i, h) in heads.iter().enumerate() {
            records.push([&h[..], &data[i * len..(i + 1) * len]]);
        }
        records
    }

    #[test]
    fn records_arrive_byte_exact_across_many_calls_and_partial_writes() {
        let (l, addr) = listener();
        // More records than one sendmsg takes, and more bytes than the buffers hold.
        let (heads, data, expected) = records(1500, 4000);
        let want = expected.len();
        let reader = std::thread::spawn(move || {
            let (mut s, _) = l.accept().expect("accept");
            // Read slowly in odd sizes, so the sender sees partial writes.
            let mut got = Vec::new();
            let mut buf = vec![0u8; 7919];
            while got.len() < want {
                let n = s.read(&mut buf).expect("read");
                assert!(n > 0, "EOF after {} bytes", got.len());
                got.extend_from_slice(&buf[..n]);
                if got.len() < 1 << 20 {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
            got
        });
        let opts = TcpSendOptions {
            send_buffer: Some(64 << 10),
            send_timeout: Duration::from_millis(2),
            ..TcpSendOptions::default()
        };
        let mut tx = TcpSender::connect(Ipv4Addr::LOCALHOST, addr, &opts).expect("connect");
        let mut holds = 0;
        let sent = tx
            .send_records(&pairs(&heads, &data, 4000), &mut || {
                holds += 1;
                Waiting::Continue
            })
            .expect("send");
        assert_eq!(
            sent,
            Sent {
                records: 1500,
                bytes: want as u64,
                stopped: false
            }
        );
        assert!(holds > 0, "a slow reader never held the sender up");
        drop(tx);
        assert!(reader.join().expect("reader") == expected, "bytes differ");
    }

    #[test]
    fn calls_of_a_few_bytes_end_inside_records_and_lose_nothing() {
        let (l, addr) = listener();
        let (heads, data, expected) = records(40, 3000);
        let want = expected.len();
        let reader = std::thread::spawn(move || {
            let (mut s, _) = l.accept().expect("accept");
            let mut got = Vec::new();
            s.read_to_end(&mut got).expect("read");
            got
        });
        // A budget that is no multiple of any record or piece length.
        let opts = TcpSendOptions {
            call_bytes: 1001,
            ..TcpSendOptions::default()
        };
        let mut tx = TcpSender::connect(Ipv4Addr::LOCALHOST, addr, &opts).expect("connect");
        let sent = tx
            .send_records(&pairs(&heads, &data, 3000), &mut || Waiting::Continue)
            .expect("send");
        assert_eq!(
            sent,
            Sent {
                records: 40,
                bytes: want as u64,
                stopped: false
            }
        );
        drop(tx);
        assert!(reader.join().expect("reader") == expected, "bytes differ");
    }

    #[test]
    fn records_of_many_pieces_arrive_byte_exact() {
        let (l, addr) = listener();
        // Records gathered from more pieces than one sendmsg takes, some
        // empty, with a slow reader so writes end mid-record and mid-piece.
        let data: Vec<u8> = (0..1 << 20).map(|i| (i % 241) as u8).collect();
        let mut records = Records::new();
        let mut expected = Vec::new();
        let mut at = 0;
        for r in 0..6usize {
            let pieces = [3, 1500, 0, 700, 2, 1][r];
            let mut parts = Vec::new();
            for k in 0..pieces {
                let n = (k * 7 + r) % 300;
                let piece = &data[at % 900_000..at % 900_000 + n];
                at += n + 13;
                expected.extend_from_slice(piece);
                parts.push(piece);
            }
            records.push(parts);
        }
        assert!(records.parts_of(1).len() > IOV_MAX);
        assert_eq!(records.bytes_of(2), 0);
        let want = expected.len();
        let reader = std::thread::spawn(move || {
            let (mut s, _) = l.accept().expect("accept");
            let mut got = Vec::new();
            let mut buf = vec![0u8; 3001];
            while got.len() < want {
                let n = s.read(&mut buf).expect("read");
                assert!(n > 0, "EOF after {} bytes", got.len());
                got.extend_from_slice(&buf[..n]);
                std::thread::sleep(Duration::from_micros(100));
            }
            got
        });
        let opts = TcpSendOptions {
            send_buffer: Some(4096),
            send_timeout: Duration::from_millis(2),
            ..TcpSendOptions::default()
        };
        let mut tx = TcpSender::connect(Ipv4Addr::LOCALHOST, addr, &opts).expect("connect");
        let sent = tx
            .send_records(&records, &mut || Waiting::Continue)
            .expect("send");
        assert_eq!(
            sent,
            Sent {
                records: 6,
                bytes: want as u64,
                stopped: false
            }
        );
        drop(tx);
        assert!(reader.join().expect("reader") == expected, "bytes differ");
    }

    #[test]
    fn a_stop_finishes_the_record_in_progress() {
        let (l, addr) = listener();
        // Records of 1 MiB: far more than the buffers, so the stop comes mid-record.
        let (heads, data, expected) = records(8, 1 << 20);
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let reader = std::thread::spawn(move || {
            let (mut s, _) = l.accept().expect("accept");
            go_rx.recv().expect("go");
            let mut got = Vec::new();
            s.read_to_end(&mut got).expect("read");
            got
        });
        let opts = TcpSendOptions {
            send_buffer: Some(64 << 10),
            send_timeout: Duration::from_millis(5),
            ..TcpSendOptions::default()
        };
        let mut tx = TcpSender::connect(Ipv4Addr::LOCALHOST, addr, &opts).expect("connect");
        let mut go = Some(go_tx);
        let sent = tx
            .send_records(&pairs(&heads, &data, 1 << 20), &mut || {
                // The reader starts only once the stop was asked.
                if let Some(g) = go.take() {
                    g.send(()).expect("go");
                }
                Waiting::Stop
            })
            .expect("send");
        assert!(sent.stopped);
        assert!(sent.records >= 1 && sent.records < 8, "{sent:?}");
        assert!(tx.close(Duration::from_secs(1)).clean);
        let got = reader.join().expect("reader");
        let boundary: usize = (0..sent.records).map(|i| heads[i].len() + (1 << 20)).sum();
        assert_eq!(
            got.len(),
            boundary,
            "stream did not end at a record boundary"
        );
        assert_eq!(sent.bytes, boundary as u64);
        assert!(got[..] == expected[..boundary]);
    }

    #[test]
    fn a_peer_that_never_reads_stalls_a_stop() {
        let (l, addr) = listener();
        let (heads, data, _) = records(4, 8 << 20);
        let opts = TcpSendOptions {
            send_buffer: Some(64 << 10),
            send_timeout: Duration::from_millis(5),
            finish_timeout: Duration::from_millis(200),
            ..TcpSendOptions::default()
        };
        let mut tx = TcpSender::connect(Ipv4Addr::LOCALHOST, addr, &opts).expect("connect");
        let (_peer, _) = l.accept().expect("accept");
        let t = Instant::now();
        let e = tx
            .send_records(&pairs(&heads, &data, 8 << 20), &mut || Waiting::Stop)
            .expect_err("nobody reads");
        assert!(matches!(e, Error::TcpStalled { waited_ms, .. } if waited_ms >= 200));
        assert!(t.elapsed() < Duration::from_secs(3));
        tx.abort();
    }

    #[test]
    fn a_closed_peer_is_an_error_not_a_signal() {
        let (l, addr) = listener();
        let mut tx = TcpSender::connect(Ipv4Addr::LOCALHOST, addr, &TcpSendOptions::default())
            .expect("connect");
        let (peer, _) = l.accept().expect("accept");
        drop(peer);
        let head = [1u8; 8];
        let data = vec![2u8; 1 << 16];
        let mut err = None;
        for _ in 0..50 {
            let mut one = Records::new();
            one.push([&head[..], &data[..]]);
            match tx.send_records(&one, &mut || Waiting::Continue) {
                Ok(_) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        let e = err.expect("sending to a closed peer fails (EPIPE/ECONNRESET), without SIGPIPE");
        assert!(e.to_string().contains(&addr.to_string()), "{e}");
    }

    #[test]
    fn connect_failures_name_the_peer() {
        let (l, addr) = listener();
        drop(l);
        let e = TcpSender::connect(Ipv4Addr::LOCALHOST, addr, &TcpSendOptions::default())
            .expect_err("nobody listens");
        assert!(e.to_string().contains(&addr.to_string()), "{e}");
    }

    #[test]
    fn zerocopy_completions_cover_every_send() {
        let (l, addr) = listener();
        let (heads, data, expected) = records(64, 256 << 10);
        let want = expected.len();
        let reader = std::thread::spawn(move || {
            let (mut s, _) = l.accept().expect("accept");
            let mut got = Vec::with_capacity(want);
            s.read_to_end(&mut got).expect("read");
            got
        });
        let opts = TcpSendOptions {
            zerocopy: true,
            ..TcpSendOptions::default()
        };
        let mut tx = TcpSender::connect(Ipv4Addr::LOCALHOST, addr, &opts).expect("connect");
        assert!(tx.zerocopy());
        let list = pairs(&heads, &data, 256 << 10);
        for chunk in 0..list.len().div_ceil(8) {
            let mut some = Records::new();
            for i in chunk * 8..(chunk * 8 + 8).min(list.len()) {
                some.push(list.parts_of(i).iter().copied());
            }
            tx.send_records(&some, &mut || Waiting::Continue)
                .expect("send");
        }
        let issued = tx.zerocopy_issued();
        assert!(issued >= 8, "{issued} zerocopy sends");
        assert!(tx
            .wait_completed(issued, Duration::from_secs(5))
            .expect("errqueue"));
        let stats = tx.zerocopy_stats();
        assert_eq!(stats.sends, u64::from(issued));
        assert_eq!(stats.completions, stats.sends);
        // Loopback delivers into a local socket, which needs a copy.
        assert!(stats.copied <= stats.completions);
        let closed = tx.close(Duration::from_secs(1));
        assert!(closed.clean);
        assert_eq!(closed.zerocopy, stats);
        assert!(reader.join().expect("reader") == expected);
    }

    #[test]
    fn completions_out_of_order_are_merged() {
        let (l, addr) = listener();
        let mut tx = TcpSender::connect(Ipv4Addr::LOCALHOST, addr, &TcpSendOptions::default())
            .expect("connect");
        drop(l);
        tx.complete(3, 5, 0);
        assert!(!tx.is_completed(1));
        tx.complete(0, 1, SO_EE_CODE_ZEROCOPY_COPIED);
        assert!(tx.is_completed(2) && !tx.is_completed(3));
        tx.complete(2, 2, 0);
        assert!(tx.is_completed(6) && !tx.is_completed(7));
        assert_eq!(
            tx.zerocopy_stats(),
            ZerocopyStats {
                sends: 0,
                completions: 6,
                copied: 2
            }
        );
    }
}
