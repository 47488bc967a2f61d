//! A board's receive ring with the FADE host API's semantics, in user
//! space: the receive thread writes packets into place, the application
//! reads them where they lie, on its own thread.
//!
//! FADE's kernel driver gives each board an mmap-able circular buffer
//! and ioctls to set a wakeup threshold, read the pointers (head, tail,
//! available bytes, end of stream, error) and write back how many bytes the
//! application consumed. [`ring`] makes the same pair of ends:
//!
//! * [`RingWriter`], owned by the receive thread (the host's
//!   [`StreamBuffer`]): [`RingWriter::write_at`] copies a packet to its
//!   stream offset (packets may arrive out of order),
//!   [`RingWriter::publish`] makes everything up to a new head visible,
//!   [`RingWriter::finish`] and [`RingWriter::fail`] end the stream.
//! * [`RingReader`], owned by the application:
//!   [`RingReader::wait`] sleeps until the threshold is met,
//!   [`RingReader::data`] borrows the readable bytes (no copy), and
//!   [`RingReader::commit`] hands consumed bytes back.
//!
//! The memory is an `linerate_io::byte_ring` (which upholds the rules of
//! sharing it between the two threads); this module adds what the
//! application waits on: the threshold, the end of the stream, the error.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use linerate_fade::buffer::{BufferError, ReadPointers, StreamBuffer};
use linerate_io::byte_ring::{
    byte_ring, ByteRingError, ByteRingLease, ByteRingReader, ByteRingWriter,
};

/// What both ends share besides the bytes: the reader's wakeup state.
#[derive(Debug)]
struct Shared {
    capacity: u64,
    threshold: AtomicU64,
    eof: AtomicBool,
    failed: AtomicBool,
    error: Mutex<Option<String>>,
    waiting: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Shared {
    /// Whether a reader with `available` bytes should wake.
    fn ready(&self, available: u64) -> bool {
        available >= self.threshold.load(Ordering::SeqCst).max(1)
            || self.eof.load(Ordering::SeqCst)
            || self.failed.load(Ordering::SeqCst)
    }

    fn wake_all(&self) {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.wake.notify_all();
    }
}

/// The byte ring's errors as the host's buffer contract names them (the
/// same checks, made by the ring that owns the memory).
fn buffer_error(e: ByteRingError, unit: usize) -> BufferError {
    match e {
        ByteRingError::Empty => BufferError::Capacity { capacity: 0, unit },
        ByteRingError::OutOfRange {
            offset,
            len,
            head,
            limit,
        } => BufferError::OutOfRange {
            offset,
            len,
            head,
            limit,
        },
        ByteRingError::BadHead {
            head,
            current,
            limit,
        } => BufferError::BadHead {
            head,
            current,
            limit,
        },
        ByteRingError::Overcommit { bytes, available } => {
            BufferError::Overcommit { bytes, available }
        }
        // A commit while bytes are lent out (see `RingReader::lend`):
        // none of the bytes committed is the reader's to give back.
        ByteRingError::Lent { .. } => BufferError::Overcommit {
            bytes: 0,
            available: 0,
        },
    }
}

/// Makes a ring of `capacity` bytes for packets of `unit` bytes; the
/// capacity must be a multiple of `unit`.
pub fn ring(capacity: usize, unit: usize) -> Result<(RingWriter, RingReader), BufferError> {
    if capacity == 0 || unit == 0 || capacity % unit != 0 {
        return Err(BufferError::Capacity { capacity, unit });
    }
    let (bytes_in, bytes_out) = byte_ring(capacity).map_err(|e| buffer_error(e, unit))?;
    let shared = Arc::new(Shared {
        capacity: capacity as u64,
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
            bytes: bytes_in,
            shared: shared.clone(),
            unit,
        },
        RingReader {
            bytes: bytes_out,
            shared,
            unit,
        },
    ))
}

/// The receive thread's end of a ring.
#[derive(Debug)]
pub struct RingWriter {
    bytes: ByteRingWriter,
    shared: Arc<Shared>,
    unit: usize,
}

impl RingWriter {
    /// Buffer length in bytes.
    pub fn capacity(&self) -> usize {
        self.bytes.capacity()
    }

    /// The stream offset up to which the ring has room: the reader's tail
    /// plus the capacity. Data ending beyond it must wait (not be ACKed).
    pub fn room_until(&self) -> u64 {
        self.bytes.room_until()
    }

    /// Copies `data` to stream offset `offset`, which must lie at or after
    /// the published head and end within [`Self::room_until`].
    pub fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), BufferError> {
        self.bytes
            .write_at(offset, data)
            .map_err(|e| buffer_error(e, self.unit))
    }

    /// Whether the ring's place for stream offset `offset` holds exactly
    /// `data`: lets the receive thread compare a duplicate packet with the
    /// copy it stored, without keeping a second copy (see
    /// [`StreamBuffer::holds`] for why the copy is still there).
    pub fn holds(&self, offset: u64, data: &[u8]) -> bool {
        self.bytes.holds(offset, data)
    }

    /// Makes every byte before stream offset `head` readable, and wakes the
    /// reader if its threshold is now met.
    pub fn publish(&mut self, head: u64) -> Result<(), BufferError> {
        let current = self.bytes.head();
        self.bytes
            .publish(head)
            .map_err(|e| buffer_error(e, self.unit))?;
        if head != current && self.shared.waiting.load(Ordering::SeqCst) {
            let available = head - self.bytes.tail();
            if self.shared.ready(available) {
                self.shared.wake_all();
            }
        }
        Ok(())
    }

    /// Ends the stream normally (end of file for the reader).
    pub fn finish(&mut self) {
        self.shared.eof.store(true, Ordering::SeqCst);
        self.shared.wake_all();
    }

    /// Ends the stream with an error, which the reader sees in its pointers.
    pub fn fail(&mut self, why: String) {
        *self.shared.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
        self.shared.failed.store(true, Ordering::SeqCst);
        self.shared.wake_all();
    }
}

impl Drop for RingWriter {
    /// A writer that goes away without ending the stream (its receive
    /// thread stopped on an error) ends it with an error, so that the
    /// reader never waits for data that cannot come.
    fn drop(&mut self) {
        if !self.shared.eof.load(Ordering::SeqCst) && !self.shared.failed.load(Ordering::SeqCst) {
            self.fail("the receive thread ended without ending the stream".into());
        }
    }
}

impl StreamBuffer for RingWriter {
    type Reader = RingReader;

    fn open(capacity: usize, unit: usize) -> Result<(RingWriter, RingReader), BufferError> {
        ring(capacity, unit)
    }

    fn room_until(&self) -> u64 {
        RingWriter::room_until(self)
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), BufferError> {
        RingWriter::write_at(self, offset, data)
    }

    fn holds(&self, offset: u64, data: &[u8]) -> bool {
        RingWriter::holds(self, offset, data)
    }

    fn publish(&mut self, head: u64) -> Result<(), BufferError> {
        RingWriter::publish(self, head)
    }

    fn finish(&mut self) {
        RingWriter::finish(self)
    }

    fn fail(&mut self, why: String) {
        RingWriter::fail(self, why)
    }
}

/// The application's end of a ring.
pub struct RingReader {
    bytes: ByteRingReader,
    shared: Arc<Shared>,
    unit: usize,
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
        self.bytes.capacity()
    }

    /// Bytes that must be available before [`Self::wait`] returns (FADE's
    /// `SETWAKEUP`); end of stream and errors wake it regardless. Values
    /// above the capacity are lowered to it, so a wait can always end.
    pub fn set_wakeup(&mut self, bytes: u64) {
        self.shared
            .threshold
            .store(bytes.min(self.shared.capacity), Ordering::SeqCst);
    }

    /// The current pointers (FADE's `READPTRS`).
    pub fn pointers(&self) -> ReadPointers {
        let head = self.bytes.head();
        let tail = self.bytes.tail();
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

    /// Readable bytes not lent out yet: what a wait waits for.
    fn available(&self) -> u64 {
        self.bytes.head() - self.bytes.lent()
    }

    /// Sleeps until the wakeup threshold is met, the stream ends or breaks,
    /// or `timeout` passes; returns the pointers then.
    pub fn wait(&mut self, timeout: Duration) -> ReadPointers {
        let deadline = Instant::now() + timeout;
        let s = &self.shared;
        let mut guard = s.lock.lock().unwrap_or_else(|p| p.into_inner());
        s.waiting.store(true, Ordering::SeqCst);
        while !s.ready(self.available()) {
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
        self.bytes.data()
    }

    /// Hands `bytes` consumed bytes back to the writer (FADE's
    /// `WRITEPTRS`). Refused while bytes are lent out.
    pub fn commit(&mut self, bytes: u64) -> Result<(), BufferError> {
        self.bytes
            .commit(bytes)
            .map_err(|e| buffer_error(e, self.unit))
    }

    /// The other way to consume the ring, for an application that hands
    /// the bytes on in place (a Python array): lends the next readable
    /// bytes not lent yet, at most `max` and no further than the end of
    /// the buffer. They go back to the writer once the lease is dropped
    /// and [`Self::reclaim`] (or the next `lend`) runs; a lease still
    /// alive holds back those after it, so the ring fills and the board
    /// waits rather than overwriting bytes someone still reads. While
    /// leases are out, [`Self::wait`] waits for bytes not lent yet.
    pub fn lend(&mut self, max: usize) -> Option<ByteRingLease> {
        self.bytes.lend(max)
    }

    /// Gives back the bytes of the leases dropped so far (in stream
    /// order); returns the tail then.
    pub fn reclaim(&mut self) -> u64 {
        self.bytes.reclaim()
    }

    /// Stream offset up to which bytes have been lent out.
    pub fn lent(&self) -> u64 {
        self.bytes.lent()
    }

    /// Where the ring's memory starts (every lease lies in
    /// `base_address() .. base_address() + capacity()`).
    pub fn base_address(&self) -> usize {
        self.bytes.base_address()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate_fade::stream;

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
    fn lent_bytes_hold_the_writer_back_and_a_wait_waits_for_bytes_not_lent() {
        let (mut w, mut r) = ring(4096, 1024).expect("ring");
        let mut p = [0u8; 1024];
        stream::fill(0, &mut p);
        w.write_at(0, &p).expect("write");
        w.publish(1024).expect("publish");
        let lease = r.lend(4096).expect("lease");
        assert_eq!((lease.offset(), lease.len()), (0, 1024));
        assert_eq!(lease.as_ptr() as usize, r.base_address());
        // Nothing new: the wait runs to its timeout, though 1024 bytes
        // (lent) are still before the tail.
        let t0 = Instant::now();
        assert_eq!(r.wait(Duration::from_millis(20)).available, 1024);
        assert!(t0.elapsed() >= Duration::from_millis(20));
        assert!(r.commit(1024).is_err(), "no commit while bytes are lent");
        // The writer fills the rest of the ring but not the lent place.
        for i in 1..4u64 {
            stream::fill(i * 1024, &mut p);
            w.write_at(i * 1024, &p).expect("write");
        }
        w.publish(4096).expect("publish");
        stream::fill(4096, &mut p);
        assert!(w.write_at(4096, &p).is_err(), "the lease holds its place");
        assert_eq!(stream::mismatches(0, &lease), 0);
        drop(lease);
        assert_eq!(r.reclaim(), 1024);
        w.write_at(4096, &p).expect("the place is free again");
        assert_eq!(r.lent(), 1024);
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
    fn a_dropped_writer_ends_the_stream_with_an_error() {
        let (w, mut r) = ring(2048, 1024).expect("ring");
        drop(w);
        let p = r.wait(Duration::from_secs(10));
        assert!(p.error.is_some_and(|e| e.contains("receive thread ended")));
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
