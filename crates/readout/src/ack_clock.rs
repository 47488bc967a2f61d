//! When each ACK left the host: the driver's transmit stamp where the
//! kernel gives one (keyed software stamps, Linux 6.13+), otherwise the
//! return of the ACK's send.
//!
//! The difference matters on the bench: on veth the send only returns
//! after the ACK has crossed the bridge and reached the board's socket,
//! work a NIC does on the wire, not on the host. The driver stamp is the
//! moment the host handed the ACK to its interface, which is what "receive
//! timestamp to ACK sent" means. Both are kept: the report shows the
//! driver figure as the ACK latency and the send's return beside it.
//!
//! A stamp costs the kernel a small message and the receive thread an
//! error-queue read, which on a saturated core shows up as latency for the
//! ACKs behind it; so one ACK in `every` (by count, whatever its place in
//! a receive batch, so the sample is not biased toward quiet moments)
//! asks for one.

use linerate_io::raw::{RawSocket, MAX_BATCH};
use linerate_io::tx_stamp::TxStamp;
use linerate_io::Error as IoError;

use crate::error::{Error, Result};

/// An ACK send's error.
fn sending(e: IoError) -> Error {
    Error::io("sending an ACK", e)
}

/// ACKs whose stamps may be outstanding at once; older ones are given up.
const PENDING: usize = 4096;

/// Stamps left waiting in the error queue while frames keep coming, before
/// [`AckClock::collect_when_due`] reads them in one call (as many as one
/// read takes). Each read is a syscall and a few kilobytes of control
/// buffers to clear: made right after every stamped ACK, it is time every
/// frame queued behind it waits too; left to the receive loop's idle turns
/// (between two frames, while the link is busy), it costs them nothing.
/// The stamps keep their times whenever they are read.
const COLLECT_AT: usize = linerate_io::tx_stamp::MAX_STAMPS;

/// Where the ACK latency ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SentAt {
    /// The driver's software transmit stamp.
    DriverStamp,
    /// The return of the ACK's send (no stamps on this kernel or link).
    SendReturn,
}

impl SentAt {
    /// The name the JSON report uses.
    pub fn name(self) -> &'static str {
        match self {
            SentAt::DriverStamp => "driver_tx_stamp",
            SentAt::SendReturn => "send_return",
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Pending {
    key: u32,
    received_ns: u64,
    board: usize,
    live: bool,
}

/// Sends ACKs with a stamp request and matches the stamps that come back.
#[derive(Debug)]
pub struct AckClock {
    sent_at: SentAt,
    /// One ACK in this many is stamped.
    every: u32,
    /// ACKs sent since the last stamped one.
    since: u32,
    next_key: u32,
    pending: Vec<Pending>,
    live: usize,
    stamps: Vec<TxStamp>,
    /// Stamped ACKs whose stamp never came back.
    missing: u64,
    matched: u64,
}

impl AckClock {
    /// Turns stamps on for `sock`, for one ACK in `every` (0: none), if
    /// the kernel agrees; otherwise ACKs are timed by their send's return.
    pub fn new(sock: &mut RawSocket, every: u32) -> AckClock {
        let stamps = every > 0 && sock.enable_tx_stamps().is_ok();
        AckClock {
            sent_at: if stamps {
                SentAt::DriverStamp
            } else {
                SentAt::SendReturn
            },
            every: every.max(1),
            since: 0,
            next_key: 0,
            pending: vec![Pending::default(); PENDING],
            live: 0,
            stamps: Vec::new(),
            missing: 0,
            matched: 0,
        }
    }

    /// Where ACK latency ends in this run.
    pub fn sent_at(&self) -> SentAt {
        self.sent_at
    }

    /// Sends `frame`, the ACK of a frame received at `received_ns` from
    /// `board`, stamped if stamps are on. Returns whether the interface
    /// took it. A kernel that refuses keyed stamps (EINVAL on the first
    /// one) turns them off and the ACK goes unstamped.
    pub fn send(
        &mut self,
        sock: &RawSocket,
        frame: &[u8],
        received_ns: u64,
        board: usize,
    ) -> Result<bool> {
        let Some(key) = self.stamp_key(received_ns) else {
            return sock.send(frame).map_err(sending);
        };
        match sock.send_stamped(frame, key) {
            Ok(taken) => {
                if taken {
                    self.expect(key, received_ns, board);
                }
                Ok(taken)
            }
            Err(e) if self.refuses_stamps(&e) => {
                self.sent_at = SentAt::SendReturn;
                sock.send(frame).map_err(sending)
            }
            Err(e) => Err(sending(e)),
        }
    }

    /// The key of the stamp the next ACK (of a frame received at
    /// `received_ns`) should ask for, or `None` when it goes unstamped:
    /// stamps off, a frame without a receive stamp, or not its turn.
    fn stamp_key(&mut self, received_ns: u64) -> Option<u32> {
        if self.sent_at == SentAt::SendReturn || received_ns == 0 {
            return None;
        }
        self.since += 1;
        if self.since < self.every {
            return None;
        }
        self.since = 0;
        let key = self.next_key;
        self.next_key = key.wrapping_add(1);
        Some(key)
    }

    /// Whether `e` says this kernel cannot key stamps (EINVAL, which std
    /// reports as `InvalidInput`, before any stamp ever came back), so that
    /// ACKs should go unstamped from now on.
    fn refuses_stamps(&self, e: &IoError) -> bool {
        matches!(e, IoError::PacketSocket { source, .. }
            if source.kind() == std::io::ErrorKind::InvalidInput && self.matched == 0)
    }

    /// Sends `frames` with `sendmmsg`, one call per [`MAX_BATCH`]: the
    /// ACKs of frames received at `received[i].0` from board
    /// `received[i].1`, one in `every` stamped as in [`Self::send`].
    /// Returns how many the interface took. A stamped ACK the interface
    /// refused never brings its stamp and counts as missing.
    pub fn send_batch(
        &mut self,
        sock: &RawSocket,
        frames: &[&[u8]],
        received: &[(u64, usize)],
    ) -> Result<usize> {
        let mut taken = 0;
        for (frames, received) in frames.chunks(MAX_BATCH).zip(received.chunks(MAX_BATCH)) {
            taken += self.send_chunk(sock, frames, received)?;
        }
        Ok(taken)
    }

    /// [`Self::send_batch`] for at most [`MAX_BATCH`] frames (all one
    /// `sendmmsg` takes), with the stamp keys in an array on the stack.
    fn send_chunk(
        &mut self,
        sock: &RawSocket,
        frames: &[&[u8]],
        received: &[(u64, usize)],
    ) -> Result<usize> {
        if self.sent_at == SentAt::SendReturn {
            return sock.send_batch(frames).map_err(sending);
        }
        let n = frames.len().min(received.len()).min(MAX_BATCH);
        let mut keys = [None; MAX_BATCH];
        for (key, &(received_ns, _)) in keys.iter_mut().zip(&received[..n]) {
            *key = self.stamp_key(received_ns);
        }
        match sock.send_batch_stamped(&frames[..n], &keys[..n]) {
            Ok(taken) => {
                for (key, &(received_ns, board)) in keys.iter().zip(&received[..n]) {
                    if let Some(key) = *key {
                        self.expect(key, received_ns, board);
                    }
                }
                Ok(taken)
            }
            Err(e) if self.refuses_stamps(&e) => {
                self.sent_at = SentAt::SendReturn;
                sock.send_batch(&frames[..n]).map_err(sending)
            }
            Err(e) => Err(sending(e)),
        }
    }

    /// Waits for the stamp of the ACK sent under `key`.
    fn expect(&mut self, key: u32, received_ns: u64, board: usize) {
        let slot = &mut self.pending[key as usize % PENDING];
        if slot.live {
            self.missing += 1;
        } else {
            self.live += 1;
        }
        *slot = Pending {
            key,
            received_ns,
            board,
            live: true,
        };
    }

    /// [`Self::collect`], but only once [`COLLECT_AT`] stamps are
    /// outstanding: what the receive loop calls while frames keep coming,
    /// so that reading stamps costs one syscall per many ACKs. Call
    /// [`Self::collect`] when the link is idle and at the end.
    pub fn collect_when_due(
        &mut self,
        sock: &RawSocket,
        realtime_minus_link_ns: impl Fn() -> i64,
        record: impl FnMut(usize, u64),
    ) -> Result<()> {
        if self.live < COLLECT_AT {
            return Ok(());
        }
        self.collect(sock, realtime_minus_link_ns, record)
    }

    /// Reads the stamps that came back and hands each matched ACK's
    /// latency to `record(board, nanoseconds)`. `realtime_minus_link_ns`
    /// converts the stamps (CLOCK_REALTIME) to the receive stamps' clock;
    /// it is asked only when stamps came back, since this runs in every
    /// turn of the receive loop: without a stamp outstanding it reads no
    /// clock and makes no syscall.
    pub fn collect(
        &mut self,
        sock: &RawSocket,
        realtime_minus_link_ns: impl Fn() -> i64,
        mut record: impl FnMut(usize, u64),
    ) -> Result<()> {
        while self.live > 0
            && sock
                .take_tx_stamps(&mut self.stamps)
                .map_err(|e| Error::io("reading ACK transmit stamps", e))?
                > 0
        {
            let offset = realtime_minus_link_ns();
            for s in &self.stamps {
                let slot = &mut self.pending[s.key as usize % PENDING];
                if !slot.live || slot.key != s.key {
                    continue;
                }
                slot.live = false;
                self.live -= 1;
                self.matched += 1;
                let sent = (s.ns as i64).saturating_sub(offset) as u64;
                record(slot.board, sent.saturating_sub(slot.received_ns).max(1));
            }
        }
        Ok(())
    }

    /// For reports: where ACK latency ends, how often stamps were asked
    /// for, and what came of them.
    pub fn report(&self) -> AckStampReport {
        AckStampReport {
            sent_at: self.sent_at,
            stamp_every: self.every,
            stamps: self.matched,
            missing_stamps: self.missing + self.live as u64,
        }
    }
}

/// What the driver's transmit stamps came to in a readout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckStampReport {
    /// Where the reported ACK latency ends.
    pub sent_at: SentAt,
    /// One ACK in this many asked for a stamp.
    pub stamp_every: u32,
    /// Stamps that came back and were matched to their ACK.
    pub stamps: u64,
    /// Stamps that never came back (given up, or still outstanding at
    /// the end).
    pub missing_stamps: u64,
}
