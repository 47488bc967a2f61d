//! Where a [`crate::host::Host`] puts each board's data for the
//! application: the [`StreamBuffer`] contract, with the FADE host API's
//! semantics (data written in place, possibly out of order; a head that
//! makes it readable; end of stream and errors), and [`LocalRing`], a
//! single-threaded buffer for simulations and tests in which the
//! application reads on the host's own thread.
//!
//! The threaded ring a real readout uses (a reader thread that sleeps
//! until a wakeup threshold is met) is a runtime's business and lives in
//! `linerate-readout`; the host only needs the writer's half below.

use std::cell::{Ref, RefCell};
use std::rc::Rc;

/// Why a buffer refused an operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
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

/// The writer's end of one board's buffer, as the host drives it. Stream
/// offsets are u64 bytes; the buffer holds `capacity` of them, from the
/// application's tail on.
pub trait StreamBuffer: Sized {
    /// The application's end, handed out by [`crate::host::Host::new`].
    type Reader;

    /// A buffer of `capacity` bytes for packets of `unit` bytes; the
    /// capacity must be a non-zero multiple of `unit`
    /// ([`BufferError::Capacity`] otherwise).
    fn open(capacity: usize, unit: usize) -> Result<(Self, Self::Reader), BufferError>;

    /// The stream offset up to which there is room: the application's tail
    /// plus the capacity. Data ending beyond it must wait (not be ACKed).
    fn room_until(&self) -> u64;

    /// Copies `data` to stream offset `offset`, which must lie at or after
    /// the published head and end within [`Self::room_until`]
    /// ([`BufferError::OutOfRange`] otherwise).
    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), BufferError>;

    /// Whether the place of stream offset `offset` holds exactly `data`:
    /// lets the host compare a duplicate packet with the copy it stored.
    /// The host keeps the buffer at least three windows long, so the copy
    /// is still there (duplicates come from at most two windows behind,
    /// new packets from at most one ahead).
    fn holds(&self, offset: u64, data: &[u8]) -> bool;

    /// Makes every byte before stream offset `head` readable
    /// ([`BufferError::BadHead`] if it goes back or past the room).
    fn publish(&mut self, head: u64) -> Result<(), BufferError>;

    /// Ends the stream normally (end of file for the reader).
    fn finish(&mut self);

    /// Ends the stream with an error, which the reader sees.
    fn fail(&mut self, why: String);
}

/// The state a [`LocalRing`] and its [`LocalReader`] share.
#[derive(Debug)]
struct Local {
    buf: Vec<u8>,
    head: u64,
    tail: u64,
    eof: bool,
    error: Option<String>,
}

impl Local {
    fn capacity(&self) -> u64 {
        self.buf.len() as u64
    }

    fn room_until(&self) -> u64 {
        self.tail + self.capacity()
    }

    /// Buffer index of `offset`, and how many of `len` bytes fit before
    /// the end (the rest wraps to index 0).
    fn place(&self, offset: u64, len: usize) -> (usize, usize) {
        let at = (offset % self.capacity()) as usize;
        (at, len.min(self.buf.len() - at))
    }
}

/// A board's buffer for an application that reads on the host's own
/// thread (a simulation, a test): a plain ring in memory, no locks, no
/// clock. The host writes through it; the application reads through its
/// [`LocalReader`].
#[derive(Debug)]
pub struct LocalRing(Rc<RefCell<Local>>);

/// The application's end of a [`LocalRing`].
#[derive(Debug)]
pub struct LocalReader(Rc<RefCell<Local>>);

impl StreamBuffer for LocalRing {
    type Reader = LocalReader;

    fn open(capacity: usize, unit: usize) -> Result<(LocalRing, LocalReader), BufferError> {
        if capacity == 0 || unit == 0 || capacity % unit != 0 {
            return Err(BufferError::Capacity { capacity, unit });
        }
        let shared = Rc::new(RefCell::new(Local {
            buf: vec![0; capacity],
            head: 0,
            tail: 0,
            eof: false,
            error: None,
        }));
        Ok((LocalRing(shared.clone()), LocalReader(shared)))
    }

    fn room_until(&self) -> u64 {
        self.0.borrow().room_until()
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), BufferError> {
        let mut s = self.0.borrow_mut();
        let (head, limit) = (s.head, s.room_until());
        if offset < head
            || offset
                .checked_add(data.len() as u64)
                .map_or(true, |e| e > limit)
        {
            return Err(BufferError::OutOfRange {
                offset,
                len: data.len(),
                head,
                limit,
            });
        }
        let (at, first) = s.place(offset, data.len());
        s.buf[at..at + first].copy_from_slice(&data[..first]);
        s.buf[..data.len() - first].copy_from_slice(&data[first..]);
        Ok(())
    }

    fn holds(&self, offset: u64, data: &[u8]) -> bool {
        let s = self.0.borrow();
        if data.len() > s.buf.len() {
            return false;
        }
        let (at, first) = s.place(offset, data.len());
        s.buf[at..at + first] == data[..first] && s.buf[..data.len() - first] == data[first..]
    }

    fn publish(&mut self, head: u64) -> Result<(), BufferError> {
        let mut s = self.0.borrow_mut();
        let (current, limit) = (s.head, s.room_until());
        if head < current || head > limit {
            return Err(BufferError::BadHead {
                head,
                current,
                limit,
            });
        }
        s.head = head;
        Ok(())
    }

    fn finish(&mut self) {
        self.0.borrow_mut().eof = true;
    }

    fn fail(&mut self, why: String) {
        self.0.borrow_mut().error = Some(why);
    }
}

impl LocalReader {
    /// Buffer length in bytes.
    pub fn capacity(&self) -> usize {
        self.0.borrow().buf.len()
    }

    /// The current pointers (FADE's `READPTRS`).
    pub fn pointers(&self) -> ReadPointers {
        let s = self.0.borrow();
        ReadPointers {
            head: s.head,
            tail: s.tail,
            available: s.head - s.tail,
            eof: s.eof,
            error: s.error.clone(),
        }
    }

    /// The readable bytes from the tail, in place: the contiguous part up
    /// to the end of the buffer, then (once that is committed) the rest.
    /// Drop it before the host writes again.
    pub fn data(&self) -> Ref<'_, [u8]> {
        Ref::map(self.0.borrow(), |s| {
            let (at, len) = s.place(s.tail, (s.head - s.tail) as usize);
            &s.buf[at..at + len]
        })
    }

    /// Hands `bytes` consumed bytes back (FADE's `WRITEPTRS`).
    pub fn commit(&mut self, bytes: u64) -> Result<(), BufferError> {
        let mut s = self.0.borrow_mut();
        let available = s.head - s.tail;
        if bytes > available {
            return Err(BufferError::Overcommit { bytes, available });
        }
        s.tail += bytes;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream;

    #[test]
    fn out_of_order_writes_become_readable_in_order_and_wrap() {
        let (mut w, mut r) = LocalRing::open(4096, 1024).expect("ring");
        let mut p = [0u8; 1024];
        for i in [1u64, 0, 3, 2] {
            stream::fill(i * 1024, &mut p);
            w.write_at(i * 1024, &p).expect("write");
        }
        assert_eq!(r.pointers().available, 0);
        w.publish(4096).expect("publish");
        assert_eq!(stream::mismatches(0, &r.data()), 0);
        assert_eq!(r.data().len(), 4096);
        stream::fill(4096, &mut p);
        assert!(w.write_at(4096, &p).is_err(), "full");
        r.commit(2048).expect("commit");
        w.write_at(4096, &p).expect("write after commit");
        assert!(w.holds(4096, &p));
        w.publish(5120).expect("publish");
        assert_eq!(r.data().len(), 2048);
        r.commit(2048).expect("commit");
        assert_eq!(stream::mismatches(4096, &r.data()), 0);
        assert!(r.commit(2048).is_err());
        w.fail("broken".into());
        assert_eq!(r.pointers().error.as_deref(), Some("broken"));
        assert!(LocalRing::open(1000, 1024).is_err());
    }
}
