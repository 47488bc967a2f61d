//! Zero-copy fan-out through one io_uring (`linerate serve --method uring`).
//!
//! The server's loop owns one ring. For each frame it queues an
//! `IORING_OP_SEND_ZC` for every client ready to take bytes and submits
//! them all with one `io_uring_enter`: the syscall per client and frame of
//! the other methods becomes one per frame. The frame pool is registered
//! with the ring (`IORING_REGISTER_BUFFERS`, one buffer per slot), so the
//! sends use fixed buffers and the kernel does not look up and pin the
//! pages per send. Completions are read from the ring ([`ledger`] keeps the
//! books): a result CQE advances the client's stream (a short send is sent
//! again from where it stopped, an error cuts the client loose), and the
//! notification CQE releases the slot's pages.
//!
//! A client cut loose gets its send in flight cancelled
//! (`IORING_OP_ASYNC_CANCEL`); its socket is reset on close, and its slots
//! stay held until its notifications arrive: [`UringSender::wait_slot_free`]
//! waits for them before a slot is rewritten.

pub mod ledger;

use std::os::fd::{AsRawFd, RawFd};
use std::time::{Duration, Instant};

use io_uring::{cqueue, opcode, squeue, types, IoUring, Probe};

use crate::fanout::SharedFrames;
pub use ledger::{ClientId, Completion, LedgerCounters, SendLedger};

/// Sends per client the kernel may still hold the pages of (at most half
/// the pool's slots: the kernel may post a socket's notifications only
/// when its later sends are done too, so a client must pause before its
/// unreleased frames reach the pool's age, or the server would take it for
/// stalled).
pub const MAX_UNRELEASED_PER_CLIENT: usize = 16;

/// `IORING_SEND_ZC_REPORT_USAGE`: notifications tell whether the kernel copied.
const SEND_ZC_REPORT_USAGE: u16 = 8;

/// The most buffers one ring can register (`IORING_MAX_REG_BUFFERS`).
const MAX_REG_BUFFERS: usize = 1 << 14;

/// Why the io_uring sender could not start.
#[derive(Debug, thiserror::Error)]
pub enum UringError {
    /// `io_uring_setup` failed (EPERM when `kernel.io_uring_disabled` forbids
    /// it or a seccomp filter refuses, ENOSYS when the kernel lacks it, ENOMEM
    /// over the locked-memory limit).
    #[error("io_uring setup failed with {}: {source} (use --method zerocopy instead)", errno_name(.source))]
    Setup {
        /// The OS error.
        source: std::io::Error,
    },
    /// The kernel has io_uring but not `IORING_OP_SEND_ZC` (Linux 6.0+).
    #[error("this kernel's io_uring lacks IORING_OP_SEND_ZC (needs Linux 6.0 or later; use --method zerocopy)")]
    NoSendZc,
}

/// The errno's symbolic name and number, e.g. `EPERM (errno 1)`.
pub fn errno_name(e: &std::io::Error) -> String {
    let n = e.raw_os_error().unwrap_or(0);
    let name = match n {
        libc::EPERM => "EPERM",
        libc::ENOSYS => "ENOSYS",
        libc::ENOMEM => "ENOMEM",
        libc::EINVAL => "EINVAL",
        libc::EACCES => "EACCES",
        libc::EMFILE => "EMFILE",
        _ => "errno",
    };
    format!("{name} (errno {n})")
}

/// Bytes of one frame slot to send: `len` bytes at `offset` in `slot`;
/// `more` says another frame follows at once (MSG_MORE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// Slot in the pool.
    pub slot: usize,
    /// Offset in the slot.
    pub offset: usize,
    /// Bytes.
    pub len: usize,
    /// Another frame follows at once.
    pub more: bool,
}

/// One io_uring sending zero-copy from a [`SharedFrames`] pool to many
/// TCP sockets.
pub struct UringSender {
    ring: IoUring,
    ledger: SendLedger,
    /// Each slot's registered buffer index, when the pool is registered.
    fixed: bool,
    queued: usize,
    enters: u64,
    cancels: u64,
}

impl std::fmt::Debug for UringSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UringSender")
            .field("fixed", &self.fixed)
            .field("queued", &self.queued)
            .field("enters", &self.enters)
            .finish_non_exhaustive()
    }
}

impl UringSender {
    /// A ring sized for `max_clients` (one send and one cancel each in the
    /// submission queue; two completions per unreleased send in the
    /// completion queue), with `frames`'s slots registered as fixed buffers
    /// where the kernel allows (else plain SendZc; see
    /// [`UringSender::fixed_buffers`]).
    pub fn new(frames: &SharedFrames, max_clients: usize) -> Result<UringSender, UringError> {
        let sq = (2 * max_clients.max(1)).next_power_of_two().clamp(64, 4096) as u32;
        let cq = (max_clients.max(1) * (2 * MAX_UNRELEASED_PER_CLIENT + 2))
            .next_power_of_two()
            .clamp(2 * sq as usize, 65536) as u32;
        let ring = IoUring::builder()
            .setup_cqsize(cq)
            .build(sq)
            .map_err(|source| UringError::Setup { source })?;
        let mut probe = Probe::new();
        ring.submitter()
            .register_probe(&mut probe)
            .map_err(|source| UringError::Setup { source })?;
        if !probe.is_supported(opcode::SendZc::CODE) {
            return Err(UringError::NoSendZc);
        }
        let max_unreleased = MAX_UNRELEASED_PER_CLIENT.min(frames.slots() / 2).max(1);
        let mut fixed = false;
        if frames.slots() <= MAX_REG_BUFFERS {
            let iov: Vec<libc::iovec> = (0..frames.slots())
                .filter_map(|i| frames.slot(i))
                .map(|s| libc::iovec {
                    iov_base: s.as_ptr() as *mut libc::c_void,
                    iov_len: s.len(),
                })
                .collect();
            // Failing is not fatal: plain SendZc works without it, and
            // `fixed_buffers()` tells the caller.
            // SAFETY: the iovecs cover the pool's live mapping; the caller
            // keeps `frames` alive as long as the ring (registered pages stay
            // pinned by the kernel even if it were unmapped).
            fixed = unsafe { ring.submitter().register_buffers(&iov) }.is_ok();
        }
        Ok(UringSender {
            ring,
            ledger: SendLedger::new(frames.slots(), max_unreleased),
            fixed,
            queued: 0,
            enters: 0,
            cancels: 0,
        })
    }

    /// Whether the pool is registered (sends use fixed buffers).
    pub fn fixed_buffers(&self) -> bool {
        self.fixed
    }

    /// The ring's descriptor: readable when completions wait (for `poll`).
    pub fn raw_fd(&self) -> RawFd {
        self.ring.as_raw_fd()
    }

    /// `io_uring_enter` calls made so far.
    pub fn enters(&self) -> u64 {
        self.enters
    }

    /// Cancel requests submitted so far.
    pub fn cancels(&self) -> u64 {
        self.cancels
    }

    /// Starts sending to `client`.
    pub fn add_client(&mut self, client: ClientId) {
        self.ledger.add_client(client);
    }

    /// Whether `client` may get a send now (nothing in flight, under the
    /// limit of unreleased sends).
    pub fn can_send(&self, client: ClientId) -> bool {
        self.ledger.can_send(client)
    }

    /// How far `client`'s stream may be forgotten (taken by the socket and
    /// released by the kernel).
    pub fn released(&self, client: ClientId) -> Option<u64> {
        self.ledger.released(client)
    }

    /// `client`'s counters.
    pub fn counters(&self, client: ClientId) -> LedgerCounters {
        self.ledger.counters(client).unwrap_or_default()
    }

    /// Queues a zero-copy send of `piece` to `client`'s socket `fd`
    /// (submitted by [`UringSender::submit`]). The socket must stay open
    /// until the send completes or is cancelled.
    pub fn queue_send(
        &mut self,
        client: ClientId,
        fd: RawFd,
        frames: &SharedFrames,
        piece: Piece,
    ) -> std::io::Result<()> {
        let Piece {
            slot,
            offset,
            len,
            more,
        } = piece;
        let data = frames
            .slot(slot)
            .and_then(|s| s.get(offset..offset + len))
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        let len32 = u32::try_from(len).map_err(|_| std::io::ErrorKind::InvalidInput)?;
        let id = self
            .ledger
            .begin_send(client, slot, len)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::WouldBlock, e))?;
        // MSG_WAITALL: the ring keeps sending until the whole range is
        // taken (polling the socket itself), so one SQE carries a frame.
        let flags = libc::MSG_NOSIGNAL | libc::MSG_WAITALL | if more { libc::MSG_MORE } else { 0 };
        let mut op = opcode::SendZc::new(types::Fd(fd), data.as_ptr(), len32)
            .flags(flags)
            .zc_flags(SEND_ZC_REPORT_USAGE);
        if self.fixed {
            // Slot i is registered buffer i (at most 16384 slots).
            op = op.buf_index(Some(slot as u16));
        }
        self.push(&op.build().user_data(id))
    }

    fn push(&mut self, sqe: &squeue::Entry) -> std::io::Result<()> {
        // SAFETY: the SQE points into the registered pool (alive as long as
        // the ring's user keeps `frames`) and names a socket kept open until
        // its completion.
        if unsafe { self.ring.submission().push(sqe) }.is_err() {
            self.submit()?;
            // SAFETY: as above.
            unsafe { self.ring.submission().push(sqe) }
                .map_err(|_| std::io::Error::other("io_uring submission queue full"))?;
        }
        self.queued += 1;
        Ok(())
    }

    /// Submits everything queued with one `io_uring_enter` (none if nothing
    /// is queued).
    pub fn submit(&mut self) -> std::io::Result<()> {
        if self.queued == 0 {
            return Ok(());
        }
        self.enters += 1;
        loop {
            match self.ring.submit() {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(e),
            }
        }
        self.queued = 0;
        Ok(())
    }

    /// Reads every completion waiting (no syscall) and returns what they
    /// meant for active clients.
    pub fn reap(&mut self) -> Vec<Completion> {
        let mut out = Vec::new();
        let entries: Vec<cqueue::Entry> = self.ring.completion().collect();
        for cqe in entries {
            let c = self
                .ledger
                .complete(cqe.user_data(), cqe.result(), cqe.flags());
            if c != Completion::Ignored {
                out.push(c);
            }
        }
        out
    }

    /// Cuts `client` loose: cancels its send in flight (submitted at once).
    /// Close its socket afterwards (with a reset, so the kernel drops the
    /// pages it holds); its slots stay held until the notifications come.
    pub fn retire(&mut self, client: ClientId) -> std::io::Result<()> {
        if let Some(id) = self.ledger.retire(client) {
            let sqe = opcode::AsyncCancel::new(id)
                .build()
                .user_data(ledger::CANCEL_USER_DATA);
            self.push(&sqe)?;
            self.cancels += 1;
            self.submit()?;
        }
        Ok(())
    }

    /// Waits, up to `timeout`, until no send (of a retired client either)
    /// holds `slot`, reading completions meanwhile; the events read are
    /// returned for the caller to apply. Fails when the time runs out: the
    /// slot must not be rewritten then.
    pub fn wait_slot_free(
        &mut self,
        slot: usize,
        timeout: Duration,
    ) -> std::io::Result<Vec<Completion>> {
        let mut out = self.reap();
        let deadline = Instant::now() + timeout;
        while self.ledger.slot_held(slot) {
            let now = Instant::now();
            if now >= deadline {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "the kernel still holds frame slot {slot} after {timeout:?} ({} zero-copy sends unreleased)",
                        self.ledger.unreleased()
                    ),
                ));
            }
            let left = (deadline - now).min(Duration::from_millis(10));
            let ts = types::Timespec::from(left);
            let args = types::SubmitArgs::new().timespec(&ts);
            self.enters += 1;
            match self.ring.submitter().submit_with_args(1, &args) {
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::ETIME) | Some(libc::EINTR) | Some(libc::EBUSY)
                    ) => {}
                Err(e) => return Err(e),
            }
            self.queued = 0;
            out.extend(self.reap());
        }
        Ok(out)
    }

    /// Sends whose pages the kernel may still read, all clients.
    pub fn unreleased(&self) -> usize {
        self.ledger.unreleased()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fanout::{ClientSocket, Method};
    use std::io::Read;
    use std::net::{TcpListener, TcpStream};

    fn pair() -> (TcpStream, TcpStream) {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let c = TcpStream::connect(l.local_addr().expect("addr")).expect("connect");
        let (s, _) = l.accept().expect("accept");
        (s, c)
    }

    /// Three clients get the same three slots through one ring, in order,
    /// and every slot is released by notifications at the end.
    #[test]
    fn one_ring_sends_the_slots_to_every_client_and_releases_them() {
        let mut frames = SharedFrames::new(3, 300_000).expect("pool");
        for i in 0..3 {
            let s = frames.slot_mut(i).expect("slot");
            for (j, b) in s.iter_mut().enumerate() {
                *b = (j * 13 + i) as u8;
            }
        }
        let mut ring = UringSender::new(&frames, 4).expect("io_uring");
        assert!(ring.fixed_buffers(), "registering a 3-slot pool works");
        const LEN: usize = 250_000;
        let mut socks = Vec::new();
        let mut readers = Vec::new();
        for id in 0..3u64 {
            let (server, mut client) = pair();
            socks.push(ClientSocket::new(server, Method::Uring, 0).expect("socket"));
            ring.add_client(id);
            readers.push(std::thread::spawn(move || {
                let mut got = vec![0u8; 3 * LEN];
                client.read_exact(&mut got).expect("read");
                got
            }));
        }
        // Per client: (slot, offset) still to send.
        let mut at = [(0usize, 0usize); 3];
        let deadline = Instant::now() + Duration::from_secs(10);
        let enters_before = ring.enters();
        let mut batches = 0;
        while at.iter().any(|&(s, _)| s < 3) {
            assert!(Instant::now() < deadline, "sends never finished: {at:?}");
            for (id, sock) in socks.iter().enumerate() {
                let (slot, off) = at[id];
                if slot < 3 && ring.can_send(id as u64) {
                    let piece = Piece {
                        slot,
                        offset: off,
                        len: LEN - off,
                        more: slot < 2,
                    };
                    ring.queue_send(id as u64, sock.raw_fd(), &frames, piece)
                        .expect("queue");
                }
            }
            let before = ring.enters();
            ring.submit().expect("submit");
            assert!(ring.enters() <= before + 1, "one enter per batch");
            batches += 1;
            std::thread::sleep(Duration::from_millis(2));
            for c in ring.reap() {
                match c {
                    Completion::Sent { client, bytes, .. } => {
                        let (slot, off) = &mut at[client as usize];
                        *off += bytes;
                        if *off == LEN {
                            *slot += 1;
                            *off = 0;
                        }
                    }
                    Completion::Failed { client, errno } => {
                        panic!("client {client}: errno {errno}")
                    }
                    Completion::Released { .. } | Completion::Ignored => {}
                }
            }
        }
        assert!(ring.enters() - enters_before <= batches);
        for (id, r) in readers.into_iter().enumerate() {
            let got = r.join().expect("reader");
            for slot in 0..3 {
                assert!(
                    got[slot * LEN..(slot + 1) * LEN] == frames.slot(slot).expect("slot")[..LEN],
                    "client {id} slot {slot}"
                );
            }
        }
        for slot in 0..3 {
            ring.wait_slot_free(slot, Duration::from_secs(5))
                .expect("notifications");
        }
        for id in 0..3u64 {
            assert_eq!(ring.released(id), Some(3 * LEN as u64));
            let k = ring.counters(id);
            assert!(k.sends >= 3 && k.notifs == k.sends, "{k:?}");
        }
        assert_eq!(ring.unreleased(), 0);
    }

    /// A client that never reads: its send stays in flight; retiring it
    /// cancels the send, and after its socket is reset the slot is free.
    #[test]
    fn a_stalled_client_is_cancelled_and_its_slot_freed() {
        let mut frames = SharedFrames::new(2, 4 << 20).expect("pool");
        frames.slot_mut(0).expect("slot").fill(7);
        let mut ring = UringSender::new(&frames, 2).expect("io_uring");
        let (server, client) = pair();
        let sock = ClientSocket::new(server, Method::Uring, 65536).expect("socket");
        ring.add_client(1);
        let piece = Piece {
            slot: 0,
            offset: 0,
            len: 4 << 20,
            more: false,
        };
        ring.queue_send(1, sock.raw_fd(), &frames, piece)
            .expect("queue");
        ring.submit().expect("submit");
        std::thread::sleep(Duration::from_millis(50));
        let events = ring.reap();
        assert!(
            !events.iter().any(|e| matches!(e, Completion::Sent { .. })),
            "4 MiB cannot fit a 64 KiB send buffer of a peer that never reads: {events:?}"
        );
        assert!(ring.wait_slot_free(0, Duration::from_millis(50)).is_err());
        ring.retire(1).expect("cancel");
        sock.abort();
        ring.wait_slot_free(0, Duration::from_secs(5))
            .expect("slot freed after cancel and reset");
        assert_eq!(ring.cancels(), 1);
        drop(client);
    }

    #[test]
    fn errno_names() {
        let e = std::io::Error::from_raw_os_error(libc::EPERM);
        assert_eq!(errno_name(&e), "EPERM (errno 1)");
        let msg = UringError::Setup { source: e }.to_string();
        assert!(msg.contains("EPERM") && msg.contains("zerocopy"), "{msg}");
    }
}
