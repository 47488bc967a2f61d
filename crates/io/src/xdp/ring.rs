//! The four single-producer, single-consumer rings an AF_XDP socket shares
//! with the kernel. Each is a power-of-two array plus a producer and a
//! consumer index that only grow (wrapping at 2^32); the index owned by
//! one side is published with release ordering and read by the other with
//! acquire ordering, so a descriptor is always written before it is seen.
//!
//! We produce into the fill ring (frames the kernel may fill) and the TX
//! ring, and consume from the RX ring and the completion ring.

use std::marker::PhantomData;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

/// A mapping of one ring, unmapped on drop.
#[derive(Debug)]
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned, and nothing
        // borrows the ring past its owner's lifetime.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

/// Offsets of one ring's fields in its mapping (`struct xdp_ring_offset`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Offsets {
    pub producer: u64,
    pub consumer: u64,
    pub desc: u64,
}

impl From<libc::xdp_ring_offset> for Offsets {
    fn from(o: libc::xdp_ring_offset) -> Offsets {
        Offsets {
            producer: o.producer,
            consumer: o.consumer,
            desc: o.desc,
        }
    }
}

/// One ring of `T` (u64 addresses or `xdp_desc`).
#[derive(Debug)]
pub(crate) struct Ring<T> {
    producer: *const AtomicU32,
    consumer: *const AtomicU32,
    descs: *mut T,
    mask: u32,
    size: u32,
    /// Our copy of our own index (producer or consumer).
    local: u32,
    /// The other side's index as last read.
    remote: u32,
    _map: Mapping,
    _t: PhantomData<T>,
}

// SAFETY: the ring is owned by one thread at a time (it is moved, never
// shared); the kernel is the only other party, through atomics.
unsafe impl<T: Send> Send for Ring<T> {}

impl<T: Copy> Ring<T> {
    /// Maps the ring of `size` entries at page offset `pgoff` of `fd`.
    pub(crate) fn map(fd: RawFd, pgoff: u64, offsets: Offsets, size: u32) -> std::io::Result<Self> {
        let len = offsets.desc as usize + size as usize * std::mem::size_of::<T>();
        // SAFETY: a fresh shared mapping of the socket's ring; checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd,
                pgoff as libc::off_t,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let base = ptr.cast::<u8>();
        // SAFETY: the offsets come from the kernel (XDP_MMAP_OFFSETS) and lie
        // inside the mapping of `len` bytes; the fields are u32-aligned.
        unsafe {
            Ok(Ring {
                producer: base.add(offsets.producer as usize).cast(),
                consumer: base.add(offsets.consumer as usize).cast(),
                descs: base.add(offsets.desc as usize).cast(),
                mask: size - 1,
                size,
                local: 0,
                remote: 0,
                _map: Mapping { ptr: base, len },
                _t: PhantomData,
            })
        }
    }

    fn producer(&self) -> &AtomicU32 {
        // SAFETY: points into our live mapping (see `map`).
        unsafe { &*self.producer }
    }

    fn consumer(&self) -> &AtomicU32 {
        // SAFETY: as above.
        unsafe { &*self.consumer }
    }

    /// Producer side: entries free for us to write now.
    pub(crate) fn free(&mut self) -> u32 {
        self.remote = self.consumer().load(Ordering::Acquire);
        self.size - self.local.wrapping_sub(self.remote)
    }

    /// Producer side: writes `value` at the `i`-th free slot (not yet
    /// visible to the kernel); `i` must be below [`Self::free`].
    pub(crate) fn write(&mut self, i: u32, value: T) {
        let slot = (self.local.wrapping_add(i) & self.mask) as usize;
        // SAFETY: `slot` <= mask < size: inside the descriptor array, which
        // the kernel does not read until we publish past it.
        unsafe { self.descs.add(slot).write(value) }
    }

    /// Producer side: publishes the next `n` written entries.
    pub(crate) fn submit(&mut self, n: u32) {
        self.local = self.local.wrapping_add(n);
        self.producer().store(self.local, Ordering::Release);
    }

    /// Consumer side: entries ready for us now.
    pub(crate) fn ready(&mut self) -> u32 {
        self.remote = self.producer().load(Ordering::Acquire);
        self.remote.wrapping_sub(self.local)
    }

    /// Consumer side: the `i`-th ready entry; `i` must be below [`Self::ready`].
    pub(crate) fn read(&self, i: u32) -> T {
        let slot = (self.local.wrapping_add(i) & self.mask) as usize;
        // SAFETY: inside the array, and the kernel published it (acquire
        // load in `ready`) and will not touch it until we release it.
        unsafe { self.descs.add(slot).read() }
    }

    /// Consumer side: hands the next `n` entries back to the kernel.
    pub(crate) fn release(&mut self, n: u32) {
        self.local = self.local.wrapping_add(n);
        self.consumer().store(self.local, Ordering::Release);
    }
}
