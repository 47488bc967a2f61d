//! Scatter receive: `recvmmsg` where each datagram is split over up to
//! three caller-chosen memory regions, with every kernel structure
//! allocated once and reused.
//!
//! This is what lets a GigE Vision host copy each payload byte once: the
//! GVSP header goes to a small side buffer and the payload straight to its
//! place in the frame buffer, predicted from the packet id. The regions
//! are [`Region`]s, loans by address, because they point into buffers the
//! caller owns and keeps track of (a frame assembler).

use std::net::SocketAddrV4;
use std::os::fd::AsRawFd;

use crate::error::{Error, Result};
use crate::memory::Region;
use crate::udp::{RecvMeta, UdpEndpoint, MAX_BATCH};

/// Regions one datagram may be split over.
pub const MAX_PARTS: usize = 3;

/// Preallocated `mmsghdr`, `iovec` and address arrays for up to `capacity`
/// datagrams per `recvmmsg`.
pub struct ScatterBatch {
    iovecs: Box<[[libc::iovec; MAX_PARTS]]>,
    addrs: Box<[libc::sockaddr_in]>,
    controls: Box<[[u64; 4]]>,
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
            controls: vec![[0u64; 4]; capacity].into_boxed_slice(),
            msgs,
        })
    }

    /// Datagrams one call can take.
    pub fn capacity(&self) -> usize {
        self.msgs.len()
    }

    /// Sets where datagram `index` of the next [`ScatterBatch::recv`] goes:
    /// its bytes fill `parts` in order; bytes beyond their total are cut
    /// (and reported as truncated). Ignored if `index` is out of range;
    /// parts beyond [`MAX_PARTS`] are ignored. Each region stays lent (see
    /// [`Region`]'s contract) until the next `recv` on this batch returns.
    pub fn set(&mut self, index: usize, parts: &[Region]) {
        let Some(iov) = self.iovecs.get_mut(index) else {
            return;
        };
        let mut used = 0;
        for (slot, part) in iov.iter_mut().zip(parts.iter()) {
            *slot = part.iovec();
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
            let (Some(msg), Some(iov), Some(addr), Some(control)) = (
                self.msgs.get_mut(i),
                self.iovecs.get_mut(i),
                self.addrs.get_mut(i),
                self.controls.get_mut(i),
            ) else {
                break;
            };
            let parts = iov.iter().take_while(|v| !v.iov_base.is_null()).count();
            msg.msg_hdr.msg_name = (addr as *mut libc::sockaddr_in).cast();
            msg.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
            msg.msg_hdr.msg_iov = iov.as_mut_ptr();
            msg.msg_hdr.msg_iovlen = parts;
            msg.msg_hdr.msg_control = control.as_mut_ptr().cast();
            msg.msg_hdr.msg_controllen = std::mem::size_of_val(control);
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

    /// Segment size of datagram `index` of the last `recv` when the kernel
    /// coalesced a train of datagrams into it (UDP GRO), else `None`.
    pub fn segment(&self, index: usize) -> Option<usize> {
        let msg = self.msgs.get(index)?;
        gro_segment(&msg.msg_hdr).filter(|&s| s > 0 && s < msg.msg_len as usize)
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
            // The arrays outlive the recv below and are not touched meanwhile.
            batch.set(
                i,
                &[
                    Region::of(&mut heads[i]),
                    Region::of(&mut slots[i]),
                    Region::of(&mut rest[i]),
                ],
            );
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

/// `setsockopt(SOL_UDP, UDP_GRO)` (linux/udp.h): deliver coalesced
/// datagrams with their segment size in a control message.
const UDP_GRO: libc::c_int = 104;

/// What [`ScatterMsg::recv`] learned about one (possibly coalesced) datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroMeta {
    /// Bytes received in total.
    pub len: usize,
    /// Size of each coalesced datagram (the last may be shorter); equal to
    /// `len` when the kernel did not coalesce.
    pub segment: usize,
    /// Sender address.
    pub source: SocketAddrV4,
    /// The datagram did not fit the regions and was cut.
    pub truncated: bool,
}

/// One `recvmsg` whose datagram is split over many caller-chosen regions,
/// with room for the UDP GRO control message: with UDP GRO on, one call
/// takes a train of up to 64 KiB of same-size datagrams, and with regions
/// laid out as (header, payload slot) pairs each datagram of the train
/// lands in its own place.
pub struct ScatterMsg {
    iov: Vec<libc::iovec>,
    addr: libc::sockaddr_in,
    control: [u64; 8],
    msg: libc::msghdr,
}

// SAFETY: as for ScatterBatch: the pointers are only used by the kernel
// during `recv`, which takes `&mut self`.
unsafe impl Send for ScatterMsg {}

impl std::fmt::Debug for ScatterMsg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScatterMsg")
            .field("parts", &self.iov.len())
            .finish()
    }
}

impl ScatterMsg {
    /// Room for up to `max_parts` regions (at most 1024, the kernel's UIO_MAXIOV).
    pub fn new(max_parts: usize) -> Result<ScatterMsg> {
        if max_parts == 0 || max_parts > MAX_BATCH {
            return Err(Error::BatchTooLarge {
                len: max_parts,
                max: MAX_BATCH,
            });
        }
        Ok(ScatterMsg {
            iov: Vec::with_capacity(max_parts),
            // SAFETY: all-zero sockaddr_in and msghdr are valid values.
            addr: unsafe { std::mem::zeroed() },
            control: [0; 8],
            // SAFETY: as above.
            msg: unsafe { std::mem::zeroed() },
        })
    }

    /// Sets the regions of the next [`ScatterMsg::recv`], in order; regions
    /// beyond the capacity are ignored. Each region stays lent (see
    /// [`Region`]'s contract) until the next `recv` returns.
    pub fn set(&mut self, parts: &[Region]) {
        let cap = self.iov.capacity();
        self.iov.clear();
        self.iov.extend(parts.iter().take(cap).map(Region::iovec));
    }

    /// Receives one datagram (or GRO train) into the regions. Waits for it
    /// as long as the socket's receive timeout allows unless `dont_wait`;
    /// returns `None` when nothing arrived.
    pub fn recv(&mut self, endpoint: &UdpEndpoint, dont_wait: bool) -> Result<Option<GroMeta>> {
        self.msg.msg_name = (&mut self.addr as *mut libc::sockaddr_in).cast();
        self.msg.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
        self.msg.msg_iov = self.iov.as_mut_ptr();
        self.msg.msg_iovlen = self.iov.len();
        self.msg.msg_control = self.control.as_mut_ptr().cast();
        self.msg.msg_controllen = std::mem::size_of_val(&self.control);
        self.msg.msg_flags = 0;
        let flags = if dont_wait { libc::MSG_DONTWAIT } else { 0 };
        let fd = endpoint.socket().as_raw_fd();
        let n = loop {
            // SAFETY: msg points at this struct's iovecs, address and control
            // buffer, and the iovecs at regions the caller vouched for.
            let r = unsafe { libc::recvmsg(fd, &mut self.msg, flags) };
            if r >= 0 {
                break r as usize;
            }
            let e = std::io::Error::last_os_error();
            match e.kind() {
                std::io::ErrorKind::Interrupted => continue,
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => return Ok(None),
                _ => {
                    return Err(Error::Socket {
                        op: "recvmsg",
                        addr: endpoint.local_addr(),
                        source: e,
                    })
                }
            }
        };
        let segment = gro_segment(&self.msg).unwrap_or(n);
        Ok(Some(GroMeta {
            len: n,
            segment: segment.clamp(1, n.max(1)),
            source: SocketAddrV4::new(
                u32::from_be(self.addr.sin_addr.s_addr).into(),
                u16::from_be(self.addr.sin_port),
            ),
            truncated: self.msg.msg_flags & libc::MSG_TRUNC != 0,
        }))
    }
}

/// The segment size in the UDP GRO control message of `msg`, whose control
/// buffer the kernel filled in the last receive.
fn gro_segment(msg: &libc::msghdr) -> Option<usize> {
    let mut found = None;
    // SAFETY: the CMSG macros walk the control buffer `msg` points at,
    // bounded by its msg_controllen, which the kernel set.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_UDP && (*c).cmsg_type == UDP_GRO {
                let data = libc::CMSG_DATA(c).cast::<u16>();
                found = Some(usize::from(std::ptr::read_unaligned(data)));
            }
            c = libc::CMSG_NXTHDR(msg, c);
        }
    }
    found
}

/// Turns UDP GRO on for `endpoint`: the kernel may then deliver a train of
/// same-size datagrams from one sender in one receive, where the device
/// coalesces them (GRO). Returns false when the kernel refuses.
pub fn enable_udp_gro(endpoint: &UdpEndpoint) -> bool {
    crate::sockopt::set_int_option(endpoint.socket().as_raw_fd(), libc::SOL_UDP, UDP_GRO, 1).is_ok()
}
