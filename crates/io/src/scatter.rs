//! Scatter receive: `recvmmsg` where each datagram is split over up to
//! three caller-chosen memory regions, with every kernel structure
//! allocated once and reused.
//!
//! This is what lets a GigE Vision host copy each payload byte once: the
//! GVSP header goes to a small side buffer and the payload straight to its
//! place in the frame buffer, predicted from the packet id. The regions
//! are raw pointers because they point into buffers the caller owns and
//! keeps track of (a frame assembler); [`ScatterBatch::set`] is `unsafe`
//! for that reason.

use std::net::SocketAddrV4;
use std::os::fd::AsRawFd;

use crate::error::{Error, Result};
use crate::udp::{RecvMeta, UdpEndpoint, MAX_BATCH};

/// Regions one datagram may be split over.
pub const MAX_PARTS: usize = 3;

/// Preallocated `mmsghdr`, `iovec` and address arrays for up to `capacity`
/// datagrams per `recvmmsg`.
pub struct ScatterBatch {
    iovecs: Box<[[libc::iovec; MAX_PARTS]]>,
    addrs: Box<[libc::sockaddr_in]>,
    msgs: Box<[libc::mmsghdr]>,
}

// SAFETY: the raw pointers inside are only dereferenced by the kernel during
// `recv`, which takes `&mut self`; moving the batch to another thread moves
// the (heap) arrays they point into along with it.
unsafe impl Send for ScatterBatch {}

impl std::fmt::Debug for ScatterBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScatterBatch")
            .field("capacity", &self.msgs.len())
            .finish()
    }
}

const EMPTY_IOV: libc::iovec = libc::iovec {
    iov_base: std::ptr::null_mut(),
    iov_len: 0,
};

impl ScatterBatch {
    /// Room for `capacity` datagrams per call (at most [`MAX_BATCH`]).
    pub fn new(capacity: usize) -> Result<ScatterBatch> {
        if capacity == 0 || capacity > MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: capacity,
                max: MAX_BATCH,
            });
        }
        let iovecs = vec![[EMPTY_IOV; MAX_PARTS]; capacity].into_boxed_slice();
        // SAFETY: an all-zero sockaddr_in / mmsghdr is a valid value.
        let addrs =
            vec![unsafe { std::mem::zeroed::<libc::sockaddr_in>() }; capacity].into_boxed_slice();
        // SAFETY: as above.
        let msgs =
            vec![unsafe { std::mem::zeroed::<libc::mmsghdr>() }; capacity].into_boxed_slice();
        Ok(ScatterBatch {
            iovecs,
            addrs,
            msgs,
        })
    }

    /// Datagrams one call can take.
    pub fn capacity(&self) -> usize {
        self.msgs.len()
    }

    /// Sets where datagram `index` of the next [`ScatterBatch::recv`] goes:
    /// its bytes fill `parts` in order; bytes beyond their total are cut
    /// (and reported as truncated). Ignored if `index` is out of range.
    ///
    /// # Safety
    /// Every `(pointer, len)` must be valid for writes of `len` bytes, and
    /// nothing may read or write that memory through a reference, until the
    /// next `recv` on this batch has returned.
    pub unsafe fn set(&mut self, index: usize, parts: &[(*mut u8, usize)]) {
        let Some(iov) = self.iovecs.get_mut(index) else {
            return;
        };
        let mut used = 0;
        for (slot, &(ptr, len)) in iov.iter_mut().zip(parts.iter()) {
            *slot = libc::iovec {
                iov_base: ptr.cast(),
                iov_len: len,
            };
            used += 1;
        }
        for slot in iov.iter_mut().skip(used) {
            *slot = EMPTY_IOV;
        }
    }

    /// Receives up to `count` datagrams (those set with [`ScatterBatch::set`])
    /// in one `recvmmsg`, waiting for the first as long as the socket's
    /// receive timeout allows (then returns 0). Returns how many arrived.
    pub fn recv(&mut self, endpoint: &UdpEndpoint, count: usize) -> Result<usize> {
        let count = count.min(self.msgs.len());
        for i in 0..count {
            let (Some(msg), Some(iov), Some(addr)) = (
                self.msgs.get_mut(i),
                self.iovecs.get_mut(i),
                self.addrs.get_mut(i),
            ) else {
                break;
            };
            let parts = iov.iter().take_while(|v| !v.iov_base.is_null()).count();
            msg.msg_hdr.msg_name = (addr as *mut libc::sockaddr_in).cast();
            msg.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
            msg.msg_hdr.msg_iov = iov.as_mut_ptr();
            msg.msg_hdr.msg_iovlen = parts;
            msg.msg_hdr.msg_control = std::ptr::null_mut();
            msg.msg_hdr.msg_controllen = 0;
            msg.msg_hdr.msg_flags = 0;
            msg.msg_len = 0;
        }
        let fd = endpoint.socket().as_raw_fd();
        loop {
            // SAFETY: msgs[..count] point at this batch's iovec and address
            // arrays, and the iovecs at memory the caller vouched for in `set`.
            let r = unsafe {
                libc::recvmmsg(
                    fd,
                    self.msgs.as_mut_ptr(),
                    count as u32,
                    libc::MSG_WAITFORONE,
                    std::ptr::null_mut(),
                )
            };
            if r >= 0 {
                return Ok(r as usize);
            }
            let e = std::io::Error::last_os_error();
            match e.kind() {
                std::io::ErrorKind::Interrupted => continue,
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => return Ok(0),
                _ => {
                    return Err(Error::Socket {
                        op: "recvmmsg",
                        addr: endpoint.local_addr(),
                        source: e,
                    })
                }
            }
        }
    }

    /// Length, source and truncation of datagram `index` of the last `recv`.
    pub fn meta(&self, index: usize) -> RecvMeta {
        let (Some(msg), Some(a)) = (self.msgs.get(index), self.addrs.get(index)) else {
            return RecvMeta::default();
        };
        RecvMeta {
            len: msg.msg_len as usize,
            source: SocketAddrV4::new(
                u32::from_be(a.sin_addr.s_addr).into(),
                u16::from_be(a.sin_port),
            ),
            truncated: msg.msg_hdr.msg_flags & libc::MSG_TRUNC != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::udp::UdpOptions;
    use std::net::{Ipv4Addr, UdpSocket};
    use std::time::Duration;

    #[test]
    fn splits_datagrams_over_regions_in_order() {
        let rx = UdpEndpoint::bind(
            SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0),
            &UdpOptions::default(),
        )
        .expect("bind");
        rx.socket()
            .set_read_timeout(Some(Duration::from_secs(2)))
            .expect("timeout");
        let tx = UdpSocket::bind("127.0.0.1:0").expect("bind tx");
        let to = rx.local_addr();
        tx.send_to(b"HEADpayload-one!extra", to).expect("send");
        tx.send_to(b"HD", to).expect("send");
        let mut heads = [[0u8; 4]; 2];
        let mut slots = [[0u8; 12]; 2];
        let mut rest = [[0u8; 8]; 2];
        let mut batch = ScatterBatch::new(2).expect("batch");
        for i in 0..2 {
            // SAFETY: the arrays outlive the recv below and are not touched meanwhile.
            unsafe {
                batch.set(
                    i,
                    &[
                        (heads[i].as_mut_ptr(), 4),
                        (slots[i].as_mut_ptr(), 12),
                        (rest[i].as_mut_ptr(), 8),
                    ],
                );
            }
        }
        // Loopback queues both datagrams before send_to returns.
        let n = batch.recv(&rx, 2).expect("recv");
        assert_eq!(n, 2);
        assert_eq!(batch.meta(0).len, 21);
        assert!(!batch.meta(0).truncated);
        assert_eq!(batch.meta(1).len, 2);
        assert_eq!(&heads[0], b"HEAD");
        assert_eq!(&slots[0], b"payload-one!");
        assert_eq!(&rest[0][..5], b"extra");
        assert_eq!(&heads[1][..2], b"HD");
        assert!(ScatterBatch::new(0).is_err());
        assert!(ScatterBatch::new(MAX_BATCH + 1).is_err());
    }
}
