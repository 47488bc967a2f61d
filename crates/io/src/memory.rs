//! Memory the kernel writes into on a caller's behalf, and giving freed
//! memory back to the system.
//!
//! **Regions.** A one-copy receive lets the kernel write each packet's
//! payload straight into its place in a frame buffer that a protocol core
//! (the GVSP assembler) owns and keeps in place between calls. The receive
//! path holds those places across the core's calls, so they cannot be Rust
//! borrows; a [`Region`] is such a place by address. Only this crate turns
//! a region back into memory (as a `recvmmsg`/`recvmsg` iovec, or a read
//! after the receive), so every dereference of one is here, in a few lines
//! with their safety argument.
//!
//! **Freed memory.** glibc's allocator raises its mmap threshold after a
//! large block is freed, so the next large buffers come from the heap, and
//! freeing them later keeps the pages: a camera that let go of its resend
//! frames would still hold their memory.

/// A range of writable bytes lent to a receive by address: a frame
/// buffer's slot, a side buffer for headers.
///
/// # Contract
/// A region is made from a live `&mut [u8]` ([`Region::of`]) and is a loan:
/// whoever makes it keeps that memory allocated, in place, and unread and
/// unwritten through any other path, from the receive that fills it until
/// the last [`Region::copy_to`] from it (the GVSP assembler promises this
/// for its slots until its next call that moves frames; the receive paths
/// keep their own side buffers in boxes they never resize). Within that
/// loan, the receive calls of this crate ([`crate::scatter`],
/// [`crate::tcp::recv`]) write into a region and [`Region::copy_to`] reads
/// it back. Sub-ranges ([`Region::sub`]) are checked against the region, so
/// nothing reaches past the bytes that were lent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    addr: usize,
    len: usize,
}

impl Region {
    /// The region of `bytes`, lent under the [contract](Region#contract).
    pub fn of(bytes: &mut [u8]) -> Region {
        Region {
            addr: bytes.as_mut_ptr() as usize,
            len: bytes.len(),
        }
    }

    /// The empty region: a receive writes nothing into it.
    pub const fn empty() -> Region {
        Region { addr: 0, len: 0 }
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `len` bytes at `offset` within this region; `None` when they
    /// reach past its end, so a sub-range never leaves the loan.
    pub fn sub(&self, offset: usize, len: usize) -> Option<Region> {
        let end = offset.checked_add(len)?;
        (end <= self.len).then(|| Region {
            addr: self.addr.wrapping_add(offset),
            len,
        })
    }

    /// Copies the first `dst.len()` bytes of the region (fewer when the
    /// region is shorter) into `dst`, after a receive wrote them; returns
    /// how many were copied.
    pub fn copy_to(&self, dst: &mut [u8]) -> usize {
        let n = dst.len().min(self.len);
        if n == 0 {
            return 0;
        }
        // SAFETY: by the region's contract its memory is live, in place and
        // not referenced elsewhere for the loan's length, and `n` is within
        // it; `dst` is a distinct `&mut` borrow, so the two do not overlap.
        let src = unsafe { std::slice::from_raw_parts(self.addr as *const u8, n) };
        dst[..n].copy_from_slice(src);
        n
    }

    /// The region as a kernel iovec, for the receive calls of this crate.
    pub(crate) fn iovec(&self) -> libc::iovec {
        libc::iovec {
            iov_base: self.addr as *mut libc::c_void,
            iov_len: self.len,
        }
    }
}

/// Returns the allocator's free memory at the top of its heaps to the
/// system (`malloc_trim`), after a large buffer was freed on purpose. A
/// no-op where the C library has no such call.
pub fn return_free_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only releases memory the allocator holds free.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The largest resident set this process has had (VmHWM), in MiB; 0 when
/// /proc cannot tell. Reports give it as `max_rss_mib` so a user sees
/// that memory stayed flat however long a run was.
pub fn peak_resident_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_after_a_large_free_is_harmless() {
        let v = vec![1u8; 64 << 20];
        drop(v);
        super::return_free_memory();
        let w = vec![2u8; 1 << 20];
        assert_eq!(w[0], 2);
    }

    #[test]
    fn sub_regions_stay_inside_and_read_back_what_is_there() {
        let mut buf = *b"0123456789";
        let r = Region::of(&mut buf);
        assert_eq!(r.len(), 10);
        assert!(r.sub(8, 3).is_none());
        assert!(r.sub(usize::MAX, 2).is_none());
        let s = r.sub(2, 4).expect("inside");
        let mut out = [0u8; 8];
        assert_eq!(s.copy_to(&mut out), 4);
        assert_eq!(&out[..4], b"2345");
        assert_eq!(Region::empty().copy_to(&mut out), 0);
        assert!(Region::empty().is_empty());
    }
}
