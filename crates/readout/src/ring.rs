//! A board's receive ring with the FADE host API's semantics, in user
//! space: the receive thread writes packets into place, the application
//! reads them where they lie.
//!
//! Seed 004's kernel driver gives each board an mmap-able circular buffer
//! and ioctls to set a wakeup threshold, read the pointers (head, tail,
//! available bytes, end of stream, error) and write back how many bytes the
//! application consumed. [`ring`] makes the same pair of ends:
//!
//! * [`RingWriter`], owned by the receive thread: [`RingWriter::write_at`]
//!   copies a packet to its stream offset (packets may arrive out of
//!   order), [`RingWriter::publish`] makes everything up to a new head
//!   visible, [`RingWriter::finish`] and [`RingWriter::fail`] end the
//!   stream.
//! * [`RingReader`], owned by the application:
//!   [`RingReader::wait`] sleeps until the threshold is met,
//!   [`RingReader::data`] borrows the readable bytes (no copy), and
//!   [`RingReader::commit`] hands consumed bytes back.
//!
//! Positions are stream byte offsets (u64, never wrapping in practice);
//! `offset % capacity` is the place in the buffer. The writer only touches
//! bytes in `head .. tail + capacity`, the reader only `tail .. head`, so
//! the two never share a byte; the head and tail atomics order the hand-
//! overs.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Why a ring operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RingError {
    /// The capacity must be a non-zero multiple of the packet size, so
    /// packets never straddle the end of the buffer.
    #[error("ring capacity {capacity} is not a non-zero multiple of {unit} bytes")]
    Capacity {
        /// Capacity asked for.
        capacity: usize,
        /// The packet size it must be a multiple of.
        unit: usize,
    },
    /// A write outside the free part of the ring.
    #[error(
        "write of {len} bytes at stream offset {offset} is outside the free space {head}..{limit}"
    )]
    OutOfRange {
        /// Stream offset of the write.
        offset: u64,
        /// Its length.
        len: usize,
        /// Published head.
        head: u64,
        /// End of the free space (tail + capacity).
        limit: u64,
    },
    /// A head beyond the free space, or behind the current one.
    #[error("head {head} is outside {current}..={limit}")]
    BadHead {
        /// Head asked for.
        head: u64,
        /// Current head.
        current: u64,
        /// Tail + capacity.
        limit: u64,
    },
    /// The reader committed more than was available.
    #[error("commit of {bytes} bytes exceeds the {available} available")]
    Overcommit {
        /// Bytes committed.
        bytes: u64,
        /// Bytes that were available.
        available: u64,
    },
}

/// The pointers of a ring, as the FADE `READPTRS` call returns them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadPointers {
    /// Stream offset up to which data is in place.
    pub head: u64,
    /// Stream offset of the first byte not yet consumed.
    pub tail: u64,
    /// `head - tail`.
    pub available: u64,
    /// The stream ended normally: no data will follow `head`.
    pub eof: bool,
    /// The stream broke: why. Data before `head` is still valid.
    pub error: Option<String>,
}

impl ReadPointers {
    /// Where `head` lies in the buffer.
    pub fn head_index(&self, capacity: usize) -> usize {
        (self.head % capacity as u64) as usize
    }

    /// Where `tail` lies in the buffer.
    pub fn tail_index(&self, capacity: usize) -> usize {
        (self.tail % capacity as u64) as usize
    }
}

struct Shared {
    buf: Box<[UnsafeCell<u8>]>,
    head: AtomicU64,
    tail: AtomicU64,
    threshold: AtomicU64,
    eof: AtomicBool,
    failed: AtomicBool,
    error: Mutex<Option<String>>,
    waiting: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

// SAFETY: the buffer's bytes are only reached through the writer (bytes in
// head..tail+capacity) and the reader (tail..head); the ranges never
// overlap, and head/tail are published with Release and read with Acquire,
// so each byte's writes happen before the other end reads it.
unsafe impl Sync for Shared {}

impl Shared {
    fn capacity(&self) -> u64 {
        self.buf.len() as u64
    }

    fn base(&self) -> *mut u8 {
        UnsafeCell::raw_get(self.buf.as_ptr())
    }

    fn ready(&self) -> bool {
        let avail = self.head.load(Ordering::SeqCst) - self.tail.load(Ordering::SeqCst);
        avail >= self.threshold.load(Ordering::SeqCst).max(1)
            || self.eof.load(Ordering::SeqCst)
            || self.failed.load(Ordering::SeqCst)
    }

    fn notify(&self) {
        if self.waiting.load(Ordering::SeqCst) && self.ready() {
            let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.wake.notify_all();
        }
    }
}

/// Makes a ring of `capacity` bytes for packets of `unit` bytes; the
/// capacity must be a multiple of `unit`.
pub fn ring(capacity: usize, unit: usize) -> Result<(RingWriter, RingReader), RingError> {
    if capacity == 0 || unit == 0 || capacity % unit != 0 {
        return Err(RingError::Capacity { capacity, unit });
    }
    let shared = Arc::new(Shared {
        buf: zeroed_cells(capacity),
        head: AtomicU64::new(0),
        tail: AtomicU64::new(0),
        threshold: AtomicU64::new(1),
        eof: AtomicBool::new(false),
        failed: AtomicBool::new(false),
        error: Mutex::new(None),
        waiting: AtomicBool::new(false),
        lock: Mutex::new(()),
        wake: Condvar::new(),
    });
    Ok((
        RingWriter {
            shared: shared.clone(),
        },
        RingReader { shared },
    ))
}

/// A zeroed buffer of `len` shared bytes, allocated in one go (calloc),
/// not cell by cell.
fn zeroed_cells(len: usize) -> Box<[UnsafeCell<u8>]> {
    let bytes: Box<[u8]> = vec![0u8; len].into_boxed_slice();
    let raw = Box::into_raw(bytes) as *mut [UnsafeCell<u8>];
    // SAFETY: UnsafeCell<u8> has the same layout as u8 (repr(transparent)),
    // so the allocation is a valid [UnsafeCell<u8>] of the same length,
    // freed with the same layout.
    unsafe { Box::from_raw(raw) }
}

/// The receive thread's end of a ring.
pub struct RingWriter {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for RingWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RingWriter")
            .field("head", &self.shared.head.load(Ordering::Relaxed))
            .finish()
    }
}

impl RingWriter {
    /// Buffer length in bytes.
    pub fn capacity(&self) -> usize {
        self.shared.buf.len()
    }

    /// The stream offset up to which the ring has room: the reader's tail
    /// plus the capacity. Data ending beyond it must wait (not be ACKed).
    pub fn room_until(&self) -> u64 {
        self.shared.tail.load(Ordering::Acquire) + self.shared.capacity()
    }

    /// Copies `data` to stream offset `offset`, which must lie at or after
    /// the published head and end within [`Self::room_until`].
    pub fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), RingError> {
        let head = self.shared.head.load(Ordering::Relaxed);
        let limit = self.room_until();
        let end = offset.checked_add(data.len() as u64);
        if offset < head || end.map_or(true, |e| e > limit) {
            return Err(RingError::OutOfRange {
                offset,
                len: data.len(),
                head,
                limit,
            });
        }
        let cap = self.shared.capacity();
        let at = (offset % cap) as usize;
        let first = data.len().min(self.capacity() - at);
        // SAFETY: the bytes written lie in head..tail+capacity (checked
        // above), which the reader never reads; `at + first <= capacity`
        // and the wrapped rest starts at 0 and is shorter than `at`.
        unsafe {
            let base = self.shared.base();
            std::ptr::copy_nonoverlapping(data.as_ptr(), base.add(at), first);
            std::ptr::copy_nonoverlapping(data.as_ptr().add(first), base, data.len() - first);
        }
        Ok(())
    }

    /// Whether the ring's place for stream offset `offset` holds exactly
    /// `data`: lets the receive thread compare a duplicate packet with the
    /// copy it stored, without keeping a second copy. The place still
    /// holds that copy (consumed by the reader or not) while nothing at
    /// `offset + capacity` or beyond has been written, which the caller
    /// ensures (a FADE host keeps its ring at least three windows long:
    /// duplicates come from at most two windows behind, new packets from
    /// at most one ahead). Only reads: the reader reads the same bytes at
    /// most, and never writes any.
    pub fn holds(&self, offset: u64, data: &[u8]) -> bool {
        let cap = self.shared.capacity();
        if data.len() as u64 > cap {
            return false;
        }
        let at = (offset % cap) as usize;
        let first = data.len().min(self.capacity() - at);
        // SAFETY: reads `first` bytes from `at` (within the buffer, as
        // `at + first <= capacity`) and the wrapped rest from 0 (shorter
        // than `at`). Nobody writes them meanwhile: the writer is `self`,
        // borrowed here, and the reader only reads.
        let (a, b) = unsafe {
            let base = self.shared.base().cast_const();
            (
                std::slice::from_raw_parts(base.add(at), first),
                std::slice::from_raw_parts(base, data.len() - first),
            )
        };
        a == &data[..first] && b == &data[first..]
    }

    /// Makes every byte before stream offset `head` readable, and wakes the
    /// reader if its threshold is now met.
    pub fn publish(&mut self, head: u64) -> Result<(), RingError> {
        let current = self.shared.head.load(Ordering::Relaxed);
        let limit = self.room_until();
        if head < current || head > limit {
            return Err(RingError::BadHead {
                head,
                current,
                limit,
            });
        }
        if head != current {
            self.shared.head.store(head, Ordering::SeqCst);
            self.shared.notify();
        }
        Ok(())
    }

    /// Ends the stream normally (end of file for the reader).
    pub fn finish(&mut self) {
        self.shared.eof.store(true, Ordering::SeqCst);
        self.force_wake();
    }

    /// Ends the stream with an error, which the reader sees in its pointers.
    pub fn fail(&mut self, why: String) {
        *self.shared.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
        self.shared.failed.store(true, Ordering::SeqCst);
        self.force_wake();
    }

    fn force_wake(&self) {
        let _guard = self.shared.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.shared.wake.notify_all();
    }
}

/// The application's end of a ring.
pub struct RingReader {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for RingReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RingReader")
            .field("pointers", &self.pointers())
            .finish()
    }
}

impl RingReader {
    /// Buffer length in bytes (FADE's `GETBUFLEN`).
    pub fn capacity(&self) -> usize {
        self.shared.buf.len()
    }

    /// Bytes that must be available before [`Self::wait`] returns (FADE's
    /// `SETWAKEUP`); end of stream and errors wake it regardless. Values
    /// above the capacity are lowered to it, so a wait can always end.
    pub fn set_wakeup(&mut self, bytes: u64) {
        self.shared
            .threshold
            .store(bytes.min(self.shared.capacity()), Ordering::SeqCst);
    }

    /// The current pointers (FADE's `READPTRS`).
    pub fn pointers(&self) -> ReadPointers {
        let head = self.shared.head.load(Ordering::Acquire);
        let tail = self.shared.tail.load(Ordering::Relaxed);
        let failed = self.shared.failed.load(Ordering::Acquire);
        ReadPointers {
            head,
            tail,
            available: head - tail,
            eof: self.shared.eof.load(Ordering::Acquire),
            error: if failed {
                self.shared
                    .error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone()
            } else {
                None
            },
        }
    }

    /// Sleeps until the wakeup threshold is met, the stream ends or breaks,
    /// or `timeout` passes; returns the pointers then.
    pub fn wait(&mut self, timeout: Duration) -> ReadPointers {
        let deadline = Instant::now() + timeout;
        let s = &self.shared;
        let mut guard = s.lock.lock().unwrap_or_else(|p| p.into_inner());
        s.waiting.store(true, Ordering::SeqCst);
        while !s.ready() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            guard = match s.wake.wait_timeout(guard, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        s.waiting.store(false, Ordering::SeqCst);
        drop(guard);
        self.pointers()
    }

    /// The readable bytes from the tail, in place: the contiguous part up
    /// to the end of the buffer, then (once that is committed) the rest.
    /// Empty when nothing is available.
    pub fn data(&self) -> &[u8] {
        let head = self.shared.head.load(Ordering::Acquire);
        let tail = self.shared.tail.load(Ordering::Relaxed);
        let cap = self.shared.capacity();
        let at = (tail % cap) as usize;
        let len = ((head - tail) as usize).min(self.capacity() - at);
        // SAFETY: tail..head was published by the writer (Acquire above)
        // and is not written again until the tail moves past it, which only
        // `commit(&mut self)` does, so not while this borrow lives.
        unsafe { std::slice::from_raw_parts(self.shared.base().add(at).cast_const(), len) }
    }

    /// Hands `bytes` consumed bytes back to the writer (FADE's
    /// `WRITEPTRS`).
    pub fn commit(&mut self, bytes: u64) -> Result<(), RingError> {
        let p = self.pointers();
        if bytes > p.available {
            return Err(RingError::Overcommit {
                bytes,
                available: p.available,
            });
        }
        self.shared.tail.store(p.tail + bytes, Ordering::Release);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream;

    #[test]
    fn out_of_order_writes_become_readable_in_order_and_wrap() {
        let (mut w, mut r) = ring(4096, 1024).expect("ring");
        let mut p = [0u8; 1024];
        for i in [1u64, 0, 3, 2] {
            stream::fill(i * 1024, &mut p);
            w.write_at(i * 1024, &p).expect("write");
        }
        assert_eq!(r.pointers().available, 0);
        w.publish(4096).expect("publish");
        assert_eq!(r.data().len(), 4096);
        assert_eq!(stream::mismatches(0, r.data()), 0);
        // Full: the next packet does not fit until the reader commits.
        stream::fill(4096, &mut p);
        assert!(w.write_at(4096, &p).is_err());
        r.commit(2048).expect("commit");
        w.write_at(4096, &p).expect("write after commit");
        w.publish(5120).expect("publish");
        // Contiguous part to the end of the buffer first, then the wrap.
        assert_eq!(r.data().len(), 2048);
        assert_eq!(stream::mismatches(2048, r.data()), 0);
        r.commit(2048).expect("commit");
        assert_eq!(stream::mismatches(4096, r.data()), 0);
        assert_eq!(r.pointers().tail_index(4096), 0);
        assert!(r.commit(2048).is_err());
    }

    #[test]
    fn wait_wakes_at_the_threshold_and_on_error() {
        let (mut w, mut r) = ring(8192, 1024).expect("ring");
        r.set_wakeup(3072);
        let t = std::thread::spawn(move || {
            let p = [1u8; 1024];
            for i in 0..3u64 {
                std::thread::sleep(Duration::from_millis(5));
                w.write_at(i * 1024, &p).expect("write");
                w.publish((i + 1) * 1024).expect("publish");
            }
            w
        });
        let p = r.wait(Duration::from_secs(10));
        assert!(p.available >= 3072, "{p:?}");
        let mut w = t.join().expect("writer");
        w.fail("board restarted".into());
        let p = r.wait(Duration::from_secs(10));
        assert_eq!(p.error.as_deref(), Some("board restarted"));
        assert!(!p.eof);
    }

    #[test]
    fn wait_times_out_and_bad_geometry_is_refused() {
        let (_w, mut r) = ring(2048, 1024).expect("ring");
        let t0 = Instant::now();
        assert_eq!(r.wait(Duration::from_millis(20)).available, 0);
        assert!(t0.elapsed() >= Duration::from_millis(20));
        assert!(ring(1000, 1024).is_err());
        assert!(ring(0, 1024).is_err());
    }
}
