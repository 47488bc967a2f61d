//! A TPACKET_V2 receive ring under a [`crate::raw::RawSocket`]: the kernel
//! copies each frame into a slot of its own in memory shared through
//! `mmap` and then flips the slot's status word; the receiver reads the
//! frame where it lies and hands the slot back. While frames keep coming
//! that costs no syscall at all, where `recvmmsg` costs one per look, and
//! a busy-polling reader mostly looks at an empty socket.
//!
//! Unlike the TPACKET_V3 ring of [`crate::packet_ring`], whose blocks
//! reach user space only when full or at least a millisecond late, a V2
//! slot is visible the moment its frame is in: what per-packet ACKs, and
//! a FADE board waiting for them, need.
//!
//! Each slot holds the kernel's `tpacket2_hdr`, the frame's link address
//! (`sockaddr_ll`) and the frame itself; the stamp in the header is the
//! kernel's receive time (CLOCK_REALTIME), like `SO_TIMESTAMPNS`.

use std::os::fd::RawFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sockopt::set_option;

/// Header bytes before the link address in a slot (`tpacket2_hdr`,
/// aligned to 16).
const HEADER_LEN: usize = 32;

/// Offset of `sll_pkttype` in a slot: the link address follows the header.
const PKTTYPE_AT: usize = HEADER_LEN + 10;

/// Room the kernel keeps before the frame's MAC header in a slot
/// (`tpacket2_hdr`, `sockaddr_ll`, alignment), generously.
const FRAME_OFFSET_MAX: usize = 128;

/// Fewest slots a ring gets.
pub const MIN_SLOTS: usize = 16;

/// The ring's geometry: slots of a power-of-two size that hold a frame of
/// `frame_len` bytes and the kernel's headers, in blocks of whole pages
/// with whole slots each, at least `slots` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// Bytes per slot.
    pub slot_size: usize,
    /// Bytes per block (a multiple of the page size and of the slot size).
    pub block_size: usize,
    /// Slots in all (a multiple of the slots per block).
    pub slots: usize,
}

impl Geometry {
    /// Slots of at least `frame_len` frame bytes, at least `slots` of them
    /// (and [`MIN_SLOTS`]), on pages of `page` bytes.
    pub fn new(frame_len: usize, slots: usize, page: usize) -> Geometry {
        let slot_size = (frame_len + FRAME_OFFSET_MAX).next_power_of_two();
        let block_size = slot_size.max(page);
        let per_block = block_size / slot_size;
        let slots = slots.max(MIN_SLOTS).div_ceil(per_block) * per_block;
        Geometry {
            slot_size,
            block_size,
            slots,
        }
    }

    /// Bytes of the whole ring.
    pub fn len(&self) -> usize {
        self.slot_size * self.slots
    }
}

/// One frame in the ring, as [`RxRing::frame`] shows it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SlotFrame<'a> {
    /// The frame, from its destination MAC on (at most the snap length).
    pub data: &'a [u8],
    /// Kernel receive time, ns since the epoch; 0 if none.
    pub timestamp_ns: u64,
    /// The frame was longer than the slot and was cut.
    pub truncated: bool,
    /// One of our own frames looped back to us.
    pub outgoing: bool,
}

/// The mapped ring of one socket, and which slots the caller holds.
#[derive(Debug)]
pub(crate) struct RxRing {
    base: NonNull<u8>,
    geometry: Geometry,
    /// The next slot the kernel will fill, in order.
    next: usize,
    /// Slots handed out by the last [`Self::take`]: `held` slots from
    /// `held_from`, in ring order.
    held_from: usize,
    held: usize,
}

// SAFETY: the mapping belongs to this ring alone (the socket it came from
// is owned by the same RawSocket), so moving it to another thread is fine.
unsafe impl Send for RxRing {}

impl RxRing {
    /// Puts socket `fd` (a packet socket not yet bound) into TPACKET_V2
    /// mode with a receive ring of `geometry`, and maps it.
    pub fn map(fd: RawFd, geometry: Geometry) -> std::io::Result<RxRing> {
        let version = libc::tpacket_versions::TPACKET_V2 as libc::c_int;
        set_option(fd, libc::SOL_PACKET, libc::PACKET_VERSION, &version)?;
        let request = libc::tpacket_req {
            tp_block_size: geometry.block_size as u32,
            tp_block_nr: (geometry.len() / geometry.block_size) as u32,
            tp_frame_size: geometry.slot_size as u32,
            tp_frame_nr: geometry.slots as u32,
        };
        set_option(fd, libc::SOL_PACKET, libc::PACKET_RX_RING, &request)?;
        // SAFETY: maps the ring the kernel has just allocated for `fd`,
        // at its exact size; the result is checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                geometry.len(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let base = NonNull::new(ptr.cast::<u8>())
            .ok_or_else(|| std::io::Error::other("mmap returned address 0"))?;
        Ok(RxRing {
            base,
            geometry,
            next: 0,
            held_from: 0,
            held: 0,
        })
    }

    /// The status word of slot `i`.
    fn status(&self, i: usize) -> &AtomicU32 {
        // SAFETY: slot `i` (< slots) lies in the mapping, which lives as
        // long as `self`; its first word is the status, 4-byte aligned
        // (slots are page- or power-of-two-aligned), which kernel and user
        // space hand back and forth with the ordering used here.
        unsafe {
            &*self
                .base
                .as_ptr()
                .add(i * self.geometry.slot_size)
                .cast::<AtomicU32>()
        }
    }

    /// Hands the slots of the last [`Self::take`] back to the kernel.
    pub fn release(&mut self) {
        for k in 0..self.held {
            let i = (self.held_from + k) % self.geometry.slots;
            self.status(i)
                .store(libc::TP_STATUS_KERNEL, Ordering::Release);
        }
        self.held = 0;
    }

    /// Releases the slots held, then takes up to `max` filled slots in
    /// order; returns how many [`Self::frame`] now shows.
    pub fn take(&mut self, max: usize) -> usize {
        self.release();
        self.held_from = self.next;
        while self.held < max.min(self.geometry.slots) {
            let i = (self.held_from + self.held) % self.geometry.slots;
            if self.status(i).load(Ordering::Acquire) & libc::TP_STATUS_USER == 0 {
                break;
            }
            self.held += 1;
        }
        self.next = (self.held_from + self.held) % self.geometry.slots;
        self.held
    }

    /// Whether the next slot already holds a frame.
    pub fn ready(&self) -> bool {
        self.status(self.next).load(Ordering::Acquire) & libc::TP_STATUS_USER != 0
    }

    /// The `k`-th frame of the last [`Self::take`] (`k` < its count).
    pub fn frame(&self, k: usize) -> SlotFrame<'_> {
        let i = (self.held_from + k.min(self.held.saturating_sub(1))) % self.geometry.slots;
        let size = self.geometry.slot_size;
        // SAFETY: slot `i` lies in the mapping and is held (the kernel
        // writes it no more until release); the header fields are read
        // unaligned-safe, and the frame range is clamped to the slot.
        unsafe {
            let slot = self.base.as_ptr().add(i * size);
            let h = slot.cast::<libc::tpacket2_hdr>().read_unaligned();
            let mac = usize::from(h.tp_mac).min(size);
            let snap = (h.tp_snaplen as usize).min(size - mac);
            SlotFrame {
                data: std::slice::from_raw_parts(slot.add(mac), snap),
                timestamp_ns: u64::from(h.tp_sec) * 1_000_000_000 + u64::from(h.tp_nsec),
                truncated: h.tp_len > h.tp_snaplen,
                outgoing: *slot.add(PKTTYPE_AT) == libc::PACKET_OUTGOING,
            }
        }
    }
}

impl Drop for RxRing {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`, once.
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.geometry.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_hold_a_frame_and_blocks_hold_whole_slots() {
        let g = Geometry::new(2048, 100, 4096);
        assert_eq!((g.slot_size, g.block_size, g.slots), (4096, 4096, 100));
        let g = Geometry::new(9216, 3, 4096);
        assert_eq!(
            (g.slot_size, g.block_size, g.slots),
            (16384, 16384, MIN_SLOTS)
        );
        let g = Geometry::new(100, 17, 4096);
        assert_eq!((g.slot_size, g.block_size), (256, 4096));
        assert_eq!(g.slots, 32, "whole blocks of 16 slots");
        assert!(g.slot_size >= 100 + FRAME_OFFSET_MAX);
    }
}
