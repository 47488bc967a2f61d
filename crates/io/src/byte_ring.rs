//! A byte ring shared by one writer thread and one reader thread, read in
//! place: the memory under a FADE board's receive ring (and any other
//! single-producer, single-consumer stream that is written out of order
//! and read without a copy).
//!
//! [`byte_ring`] makes the two ends. Positions are stream byte offsets
//! (u64, never wrapping in practice); `offset % capacity` is the place in
//! the buffer.
//!
//! * [`ByteRingWriter`] may write any bytes in `head .. tail + capacity`
//!   (the free part, in any order), compare bytes it wrote earlier, and
//!   [`ByteRingWriter::publish`] a new head: everything before it becomes
//!   the reader's.
//! * [`ByteRingReader`] may read `tail .. head` in place and
//!   [`ByteRingReader::commit`] consumed bytes back to the writer.
//!
//! The invariants that make the shared memory sound, all upheld here so
//! that callers need no `unsafe`:
//!
//! 1. the writer only writes bytes in `head .. tail + capacity`, the
//!    reader only reads bytes in `tail .. head`: the two ranges never
//!    overlap (every write and publish is checked against them);
//! 2. the head only moves forward, by the writer, and is stored after the
//!    bytes below it (SeqCst, which also orders it against the reader's
//!    wakeup flags); the reader loads it before it reads them;
//! 3. the tail only moves forward, by the reader, with Release after its
//!    last read of the bytes it gives back; the writer loads it with
//!    Acquire before it writes them again;
//! 4. a slice the reader borrows from [`ByteRingReader::data`] lives no
//!    longer than `&self`, and the tail only moves through
//!    `commit(&mut self)`, so the writer cannot reuse borrowed bytes;
//! 5. a [`ByteRingLease`] (bytes lent out past the borrow, to another
//!    owner such as a Python array) keeps the memory alive, and the tail
//!    never moves past a lease that is still alive: `commit` is refused
//!    while any is out, and [`ByteRingReader::reclaim`] only gives back
//!    the leases dropped, in stream order.

use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Why a byte ring operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ByteRingError {
    /// A ring needs at least one byte.
    #[error("a byte ring needs a non-zero capacity")]
    Empty,
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
    /// A commit while bytes are lent out: lent bytes go back through
    /// [`ByteRingReader::reclaim`] once their leases are dropped.
    #[error("commit refused while {leases} leases of the ring are out")]
    Lent {
        /// Leases still alive.
        leases: usize,
    },
}

struct Shared {
    buf: Box<[UnsafeCell<u8>]>,
    head: AtomicU64,
    tail: AtomicU64,
}

// SAFETY: the buffer's bytes are only reached through the one writer
// (bytes in head..tail+capacity) and the one reader (tail..head); the
// ranges never overlap, and head/tail hand bytes over with the orderings
// of the module's invariants 2 and 3, so each byte's writes happen before
// the other end reads it.
unsafe impl Sync for Shared {}

impl Shared {
    fn capacity(&self) -> u64 {
        self.buf.len() as u64
    }

    fn base(&self) -> *mut u8 {
        UnsafeCell::raw_get(self.buf.as_ptr())
    }

    /// Buffer index of `offset`, and how many of `len` bytes fit before
    /// the end of the buffer (the rest wraps to index 0).
    fn place(&self, offset: u64, len: usize) -> (usize, usize) {
        let at = (offset % self.capacity()) as usize;
        (at, len.min(self.buf.len() - at))
    }
}

/// Makes a zeroed byte ring of `capacity` bytes: the writer's end and the
/// reader's end.
pub fn byte_ring(capacity: usize) -> Result<(ByteRingWriter, ByteRingReader), ByteRingError> {
    if capacity == 0 {
        return Err(ByteRingError::Empty);
    }
    let shared = Arc::new(Shared {
        buf: zeroed_cells(capacity),
        head: AtomicU64::new(0),
        tail: AtomicU64::new(0),
    });
    Ok((
        ByteRingWriter {
            shared: shared.clone(),
        },
        ByteRingReader {
            shared,
            lent: 0,
            leases: VecDeque::new(),
        },
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

/// The writing end of a byte ring (one thread).
pub struct ByteRingWriter {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for ByteRingWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByteRingWriter")
            .field("head", &self.head())
            .field("capacity", &self.capacity())
            .finish()
    }
}

impl ByteRingWriter {
    /// Buffer length in bytes.
    pub fn capacity(&self) -> usize {
        self.shared.buf.len()
    }

    /// The published head: bytes before it belong to the reader.
    pub fn head(&self) -> u64 {
        self.shared.head.load(Ordering::Relaxed)
    }

    /// The reader's tail: bytes before it have been given back.
    pub fn tail(&self) -> u64 {
        self.shared.tail.load(Ordering::Acquire)
    }

    /// The stream offset up to which the ring has room: the tail plus the
    /// capacity.
    pub fn room_until(&self) -> u64 {
        self.tail() + self.shared.capacity()
    }

    /// Copies `data` to stream offset `offset`, which must lie at or after
    /// the head and end by [`Self::room_until`].
    pub fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), ByteRingError> {
        let head = self.head();
        let limit = self.room_until();
        let end = offset.checked_add(data.len() as u64);
        if offset < head || end.map_or(true, |e| e > limit) {
            return Err(ByteRingError::OutOfRange {
                offset,
                len: data.len(),
                head,
                limit,
            });
        }
        let (at, first) = self.shared.place(offset, data.len());
        // SAFETY: the bytes written lie in head..tail+capacity (checked
        // above), which the reader never reads (invariant 1); `at + first
        // <= capacity`, and the wrapped rest starts at 0 and is shorter
        // than `at` (data is at most `capacity` long, as the check shows).
        unsafe {
            let base = self.shared.base();
            std::ptr::copy_nonoverlapping(data.as_ptr(), base.add(at), first);
            std::ptr::copy_nonoverlapping(data.as_ptr().add(first), base, data.len() - first);
        }
        Ok(())
    }

    /// Whether the place of stream offset `offset` holds exactly `data`,
    /// as the writer left it. The caller knows whether that place still
    /// holds the bytes it means (it is reused once the writer writes
    /// `offset + capacity`); the reader may read the same bytes meanwhile,
    /// but never writes any.
    pub fn holds(&self, offset: u64, data: &[u8]) -> bool {
        if data.len() > self.capacity() {
            return false;
        }
        let (at, first) = self.shared.place(offset, data.len());
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

    /// Makes every byte before stream offset `head` the reader's; `head`
    /// may not go back, nor past [`Self::room_until`].
    pub fn publish(&mut self, head: u64) -> Result<(), ByteRingError> {
        let current = self.head();
        let limit = self.room_until();
        if head < current || head > limit {
            return Err(ByteRingError::BadHead {
                head,
                current,
                limit,
            });
        }
        if head != current {
            self.shared.head.store(head, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// The reading end of a byte ring (one thread).
pub struct ByteRingReader {
    shared: Arc<Shared>,
    /// Stream offset up to which bytes are lent out (the tail when none
    /// are).
    lent: u64,
    /// The leases out, in stream order: where each ends, and whether it
    /// has been dropped.
    leases: VecDeque<(u64, Arc<AtomicBool>)>,
}

impl std::fmt::Debug for ByteRingReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByteRingReader")
            .field("head", &self.head())
            .field("tail", &self.tail())
            .finish()
    }
}

impl ByteRingReader {
    /// Buffer length in bytes.
    pub fn capacity(&self) -> usize {
        self.shared.buf.len()
    }

    /// The writer's published head: bytes before it are readable.
    pub fn head(&self) -> u64 {
        self.shared.head.load(Ordering::SeqCst)
    }

    /// The first byte not yet committed back.
    pub fn tail(&self) -> u64 {
        self.shared.tail.load(Ordering::Relaxed)
    }

    /// The readable bytes from the tail, in place: the contiguous part up
    /// to the end of the buffer, then (once that is committed) the rest.
    /// Empty when nothing is available.
    pub fn data(&self) -> &[u8] {
        let head = self.head();
        let tail = self.tail();
        let (at, len) = self.shared.place(tail, (head - tail) as usize);
        // SAFETY: tail..head was published by the writer (loaded above)
        // and is not written again until the tail moves past it, which only
        // `commit(&mut self)` does, so not while this borrow lives
        // (invariants 1, 2 and 4); `at + len <= capacity`.
        unsafe { std::slice::from_raw_parts(self.shared.base().add(at).cast_const(), len) }
    }

    /// Gives `bytes` consumed bytes back to the writer; no more than are
    /// readable, and none while leases are out.
    pub fn commit(&mut self, bytes: u64) -> Result<(), ByteRingError> {
        self.reclaim();
        if !self.leases.is_empty() {
            return Err(ByteRingError::Lent {
                leases: self.leases.len(),
            });
        }
        let tail = self.tail();
        let available = self.head() - tail;
        if bytes > available {
            return Err(ByteRingError::Overcommit { bytes, available });
        }
        self.shared.tail.store(tail + bytes, Ordering::Release);
        self.lent = tail + bytes;
        Ok(())
    }

    /// Where the ring's memory starts: every lease's bytes lie in
    /// `base_address() .. base_address() + capacity()` (a lease is the
    /// ring itself, not a copy).
    pub fn base_address(&self) -> usize {
        self.shared.base() as usize
    }

    /// Stream offset up to which bytes are lent out: readable bytes from
    /// here on are not lent yet (the tail when no lease is out).
    pub fn lent(&self) -> u64 {
        self.lent
    }

    /// Leases still out (not yet dropped and reclaimed).
    pub fn leases(&self) -> usize {
        self.leases.len()
    }

    /// Lends the next readable bytes not lent yet, at most `max` of them
    /// and no further than the end of the buffer, to an owner that may
    /// outlive this borrow (another thread, a Python array): they stay
    /// in place and unchanged until the lease is dropped and
    /// [`Self::reclaim`] gives them back. None when nothing is left to
    /// lend (or `max` is 0).
    pub fn lend(&mut self, max: usize) -> Option<ByteRingLease> {
        self.reclaim();
        let head = self.head();
        let unlent = usize::try_from(head - self.lent).unwrap_or(usize::MAX);
        let (at, len) = self.shared.place(self.lent, unlent.min(max));
        if len == 0 {
            return None;
        }
        let offset = self.lent;
        self.lent += len as u64;
        let returned = Arc::new(AtomicBool::new(false));
        self.leases.push_back((self.lent, returned.clone()));
        Some(ByteRingLease {
            shared: self.shared.clone(),
            offset,
            at,
            len,
            returned,
        })
    }

    /// Gives the writer back the bytes of every lease dropped so far, in
    /// stream order (a lease still alive holds back those after it);
    /// returns the tail then.
    pub fn reclaim(&mut self) -> u64 {
        let mut tail = None;
        while let Some((end, returned)) = self.leases.front() {
            // Acquire: the lease holder's reads of the bytes happen
            // before the writer may reuse them (with the Release below).
            if !returned.load(Ordering::Acquire) {
                break;
            }
            tail = Some(*end);
            self.leases.pop_front();
        }
        if let Some(t) = tail {
            self.shared.tail.store(t, Ordering::Release);
        }
        self.tail()
    }
}

/// Bytes of a byte ring lent out in place by [`ByteRingReader::lend`]:
/// readable through `Deref<Target = [u8]>` from any thread for as long
/// as the lease lives, and never written meanwhile (the ring's tail does
/// not move past it). Dropping it returns the bytes; the reader reclaims
/// them. It keeps the ring's memory alive, even past the reader.
pub struct ByteRingLease {
    shared: Arc<Shared>,
    offset: u64,
    at: usize,
    len: usize,
    returned: Arc<AtomicBool>,
}

impl std::fmt::Debug for ByteRingLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByteRingLease")
            .field("offset", &self.offset)
            .field("len", &self.len)
            .finish()
    }
}

impl ByteRingLease {
    /// Stream offset of the first byte.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl std::ops::Deref for ByteRingLease {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: at..at+len (within the buffer, as `place` cut it) holds
        // stream bytes offset..offset+len, which lie in tail..head while
        // this lease lives: they were published before `lend` (head
        // loaded there), and the tail only passes them once `returned`
        // is set by this lease's drop (invariant 5), so the writer never
        // writes them meanwhile (invariants 1 and 3). `shared` keeps the
        // memory alive.
        unsafe {
            std::slice::from_raw_parts(self.shared.base().add(self.at).cast_const(), self.len)
        }
    }
}

impl Drop for ByteRingLease {
    fn drop(&mut self) {
        // Release: every read of the bytes through this lease happens
        // before the reader's Acquire load in `reclaim`.
        self.returned.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_hold_their_bytes_until_dropped_then_return_in_order() {
        let (mut w, mut r) = byte_ring(8).expect("ring");
        w.write_at(0, &[0, 1, 2, 3, 4, 5]).expect("write");
        w.publish(6).expect("publish");
        let a = r.lend(4).expect("first lease");
        let b = r.lend(4).expect("second lease");
        assert_eq!((&*a, a.offset()), (&[0u8, 1, 2, 3][..], 0));
        assert_eq!((&*b, b.offset()), (&[4u8, 5][..], 4));
        assert!(r.lend(4).is_none(), "nothing left to lend");
        assert_eq!(r.lent(), 6);
        assert!(matches!(
            r.commit(1),
            Err(ByteRingError::Lent { leases: 2 })
        ));
        // The later lease dropped first: the earlier one still holds the tail.
        drop(b);
        assert_eq!(r.reclaim(), 0);
        assert_eq!(w.room_until(), 8);
        let base = r.base_address();
        assert_eq!(a.as_ptr() as usize, base);
        drop(a);
        assert_eq!(r.reclaim(), 6);
        assert_eq!(w.room_until(), 14);
        // Wrapping: a lease stops at the end of the buffer.
        w.write_at(6, &[6, 7, 8, 9]).expect("write");
        w.publish(10).expect("publish");
        let c = r.lend(100).expect("to the end");
        assert_eq!(&*c, &[6, 7]);
        let d = r.lend(100).expect("the wrapped rest");
        assert_eq!((&*d, d.as_ptr() as usize), (&[8u8, 9][..], base));
        // A lease outlives the reader and keeps the memory.
        drop(r);
        assert_eq!(&*d, &[8, 9]);
        drop((c, d));
        // With no lease out, commit works as before.
        let (mut w, mut r) = byte_ring(4).expect("ring");
        w.write_at(0, &[1, 2]).expect("write");
        w.publish(2).expect("publish");
        drop(r.lend(1));
        r.commit(1).expect("commit after the lease came back");
        assert_eq!((r.tail(), r.lent()), (2, 2));
    }

    #[test]
    fn writes_out_of_order_are_read_in_place_and_wrap() {
        let (mut w, mut r) = byte_ring(8).expect("ring");
        w.write_at(4, &[4, 5, 6, 7]).expect("write");
        w.write_at(0, &[0, 1, 2, 3]).expect("write");
        assert!(r.data().is_empty());
        w.publish(8).expect("publish");
        assert_eq!(r.data(), &[0, 1, 2, 3, 4, 5, 6, 7]);
        // Full: nothing more fits until the reader commits.
        assert!(matches!(
            w.write_at(8, &[8]),
            Err(ByteRingError::OutOfRange { limit: 8, .. })
        ));
        r.commit(6).expect("commit");
        w.write_at(8, &[8, 9, 10, 11]).expect("wrapping write");
        assert!(w.holds(8, &[8, 9, 10, 11]) && !w.holds(8, &[8, 9, 10, 12]));
        w.publish(12).expect("publish");
        assert_eq!(r.data(), &[6, 7]);
        r.commit(2).expect("commit");
        assert_eq!(r.data(), &[8, 9, 10, 11]);
    }

    #[test]
    fn bad_heads_overcommits_and_empty_rings_are_refused() {
        assert_eq!(byte_ring(0).err(), Some(ByteRingError::Empty));
        let (mut w, mut r) = byte_ring(4).expect("ring");
        assert!(matches!(
            w.publish(5),
            Err(ByteRingError::BadHead { head: 5, .. })
        ));
        w.publish(2).expect("publish");
        assert!(w.publish(1).is_err(), "the head never goes back");
        assert!(w.write_at(1, &[0]).is_err(), "below the head");
        assert_eq!(
            r.commit(3),
            Err(ByteRingError::Overcommit {
                bytes: 3,
                available: 2
            })
        );
        assert!(!w.holds(0, &[0; 5]), "longer than the ring");
    }

    #[test]
    fn bytes_cross_threads_intact() {
        let (mut w, mut r) = byte_ring(64).expect("ring");
        let total = 64 * 1024u64;
        let writer = std::thread::spawn(move || {
            let mut at = 0u64;
            while at < total {
                if at + 16 <= w.room_until() {
                    let chunk: Vec<u8> = (at..at + 16).map(|i| i as u8).collect();
                    w.write_at(at, &chunk).expect("write");
                    at += 16;
                    w.publish(at).expect("publish");
                } else {
                    std::thread::yield_now();
                }
            }
        });
        let mut read = 0u64;
        while read < total {
            let data = r.data();
            for (k, b) in data.iter().enumerate() {
                assert_eq!(*b, (read + k as u64) as u8);
            }
            let n = data.len() as u64;
            r.commit(n).expect("commit");
            read += n;
            if n == 0 {
                std::thread::yield_now();
            }
        }
        writer.join().expect("writer");
    }
}
