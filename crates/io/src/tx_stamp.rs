//! Driver transmit timestamps (`SO_TIMESTAMPING`, software, per frame).
//!
//! A frame's send returns only after the kernel has walked it down to the
//! driver, and on a virtual link (veth) further: through the peer's whole
//! receive path, bridge and far socket included. So the return of `send`
//! overstates when the frame left this host. The driver's own software
//! transmit stamp (`skb_tx_timestamp`, taken as it hands the frame to the
//! device) is the moment a NIC would put it on its queue; this module asks
//! for it on chosen frames and reads it back from the socket's error queue.
//!
//! Each stamped frame carries a key of the caller's choosing
//! (`SCM_TS_OPT_ID`, Linux 6.13 and later), so stamps match their frames
//! even when some are lost or a refused send never produced one. On an
//! older kernel or a driver without software transmit stamps the caller
//! learns it from [`enable`] or from the first stamped send failing with
//! EINVAL, and falls back to timing the send's return.

use std::mem::size_of;
use std::os::fd::RawFd;

use crate::sockopt::set_option;

/// `SO_TIMESTAMPING` (asm-generic; 64-bit time). Also the cmsg type of the
/// stamps read back (`SCM_TIMESTAMPING`).
const SO_TIMESTAMPING: libc::c_int = 37;
/// `SCM_TS_OPT_ID`: the cmsg that gives one frame its stamp's key.
const SCM_TS_OPT_ID: libc::c_int = 81;
/// `PACKET_TX_TIMESTAMP`: the SOL_PACKET cmsg carrying the stamp's
/// `sock_extended_err` (its `ee_data` is the key).
const PACKET_TX_TIMESTAMP: libc::c_int = 16;
/// `SOF_TIMESTAMPING_OPT_RX_FILTER`: report software stamps only for the
/// kinds asked for, so received frames keep their plain `SO_TIMESTAMPNS`.
const OPT_RX_FILTER: libc::c_uint = 1 << 17;

/// Socket-wide flags: report software stamps, as bare stamps (no copy of
/// the frame), keyed. Nothing is stamped until a frame asks for it.
const REPORT_FLAGS: libc::c_uint = libc::SOF_TIMESTAMPING_SOFTWARE
    | libc::SOF_TIMESTAMPING_OPT_TSONLY
    | libc::SOF_TIMESTAMPING_OPT_ID;

/// Most stamps one [`drain`] call reads.
pub const MAX_STAMPS: usize = 64;

/// Turns on keyed software transmit stamps for frames that ask for them
/// (see [`StampRequest`]). Received frames are not affected.
pub fn enable(fd: RawFd) -> std::io::Result<()> {
    let flags = REPORT_FLAGS | OPT_RX_FILTER;
    match set_option(fd, libc::SOL_SOCKET, SO_TIMESTAMPING, &flags) {
        Ok(()) => Ok(()),
        // A kernel without the RX filter: plain reporting flags. Received
        // frames then also carry an SCM_TIMESTAMPING message, which the
        // raw socket's control buffers have room for and ignore.
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            set_option(fd, libc::SOL_SOCKET, SO_TIMESTAMPING, &REPORT_FLAGS)
        }
        Err(e) => Err(e),
    }
}

/// The control messages that ask for one frame's driver transmit stamp
/// under a key: pass [`StampRequest::control`] as `msg_control`.
#[repr(C, align(8))]
pub struct StampRequest {
    buf: [u8; 2 * CMSG_U32_SPACE],
}

/// CMSG_SPACE(4) on 64-bit Linux: a 16-byte header and 4 bytes of data,
/// rounded up to 8.
const CMSG_U32_SPACE: usize = 24;

impl StampRequest {
    /// Asks for the software transmit stamp of the frame, reported under `key`.
    pub fn new(key: u32) -> StampRequest {
        let mut r = StampRequest {
            buf: [0; 2 * CMSG_U32_SPACE],
        };
        r.put(0, SO_TIMESTAMPING, libc::SOF_TIMESTAMPING_TX_SOFTWARE);
        r.put(CMSG_U32_SPACE, SCM_TS_OPT_ID, key);
        r
    }

    fn put(&mut self, at: usize, kind: libc::c_int, value: u32) {
        let header = libc::cmsghdr {
            // CMSG_LEN(4): the header and the value, unpadded.
            cmsg_len: size_of::<libc::cmsghdr>() + size_of::<u32>(),
            cmsg_level: libc::SOL_SOCKET,
            cmsg_type: kind,
        };
        // SAFETY: `at + CMSG_U32_SPACE` is within `buf`, which is 8-byte
        // aligned like `at`; the header and value fit in that space.
        unsafe {
            let p = self.buf.as_mut_ptr().add(at);
            std::ptr::write_unaligned(p.cast::<libc::cmsghdr>(), header);
            std::ptr::write_unaligned(p.add(size_of::<libc::cmsghdr>()).cast::<u32>(), value);
        }
    }

    /// The buffer for `msg_control` and its length for `msg_controllen`.
    pub fn control(&mut self) -> (*mut libc::c_void, usize) {
        (self.buf.as_mut_ptr().cast(), self.buf.len())
    }
}

/// One frame's driver transmit stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxStamp {
    /// The key the frame was sent with.
    pub key: u32,
    /// When the driver took the frame, nanoseconds since the epoch
    /// (CLOCK_REALTIME).
    pub ns: u64,
}

/// Control space per error-queue message: the stamps (three timespecs)
/// and the extended error, each with its header.
const ERR_CONTROL_WORDS: usize = 16;

/// Reads the stamps waiting in `fd`'s error queue, without blocking, into
/// `out` (cleared first; at most [`MAX_STAMPS`]). Returns how many.
pub fn drain(fd: RawFd, out: &mut Vec<TxStamp>) -> std::io::Result<usize> {
    out.clear();
    let mut control = [[0u64; ERR_CONTROL_WORDS]; MAX_STAMPS];
    // SAFETY: an all-zero mmsghdr is valid; the fields used are set below.
    let mut msgs: [libc::mmsghdr; MAX_STAMPS] = unsafe { std::mem::zeroed() };
    for (m, c) in msgs.iter_mut().zip(control.iter_mut()) {
        m.msg_hdr.msg_control = c.as_mut_ptr().cast();
        m.msg_hdr.msg_controllen = ERR_CONTROL_WORDS * 8;
    }
    // SAFETY: every message points to its own live control buffer of the
    // size given; no data buffers (bare stamps carry no frame).
    let got = unsafe {
        libc::recvmmsg(
            fd,
            msgs.as_mut_ptr(),
            MAX_STAMPS as libc::c_uint,
            libc::MSG_ERRQUEUE | libc::MSG_DONTWAIT,
            std::ptr::null_mut(),
        )
    };
    if got < 0 {
        let e = std::io::Error::last_os_error();
        return match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted => Ok(0),
            _ => Err(e),
        };
    }
    for m in msgs.iter().take(got as usize) {
        if let Some(s) = parse(&m.msg_hdr) {
            out.push(s);
        }
    }
    Ok(out.len())
}

/// The key and software stamp of one error-queue message, if it is a
/// transmit stamp.
fn parse(h: &libc::msghdr) -> Option<TxStamp> {
    let mut ns = None;
    let mut key = None;
    // SAFETY: the kernel filled msg_control and msg_controllen; the CMSG_
    // macros stay inside that buffer and the data is read unaligned.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(h);
        while !c.is_null() {
            let data = libc::CMSG_DATA(c);
            match ((*c).cmsg_level, (*c).cmsg_type) {
                (libc::SOL_SOCKET, SO_TIMESTAMPING) => {
                    // struct scm_timestamping: [software, legacy, raw hardware].
                    let ts = std::ptr::read_unaligned(data.cast::<libc::timespec>());
                    ns = Some(
                        (ts.tv_sec as u64)
                            .saturating_mul(1_000_000_000)
                            .saturating_add(ts.tv_nsec as u64),
                    );
                }
                (libc::SOL_PACKET, PACKET_TX_TIMESTAMP) => {
                    let e = std::ptr::read_unaligned(data.cast::<libc::sock_extended_err>());
                    if e.ee_origin == libc::SO_EE_ORIGIN_TIMESTAMPING {
                        key = Some(e.ee_data);
                    }
                }
                _ => {}
            }
            c = libc::CMSG_NXTHDR(h, c);
        }
    }
    Some(TxStamp {
        key: key?,
        ns: ns.filter(|&n| n > 0)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lays_out_two_control_messages() {
        // SAFETY: CMSG_SPACE and CMSG_LEN are pure size computations.
        let (space, len) = unsafe { (libc::CMSG_SPACE(4) as usize, libc::CMSG_LEN(4) as usize) };
        assert_eq!(space, CMSG_U32_SPACE);
        let mut r = StampRequest::new(0xdead_beef);
        let (p, n) = r.control();
        assert_eq!(n, 2 * space);
        // SAFETY: an all-zero msghdr is valid; its control points at `r`.
        let mut h: libc::msghdr = unsafe { std::mem::zeroed() };
        h.msg_control = p;
        h.msg_controllen = n;
        let mut seen = Vec::new();
        // SAFETY: walks the two messages written by StampRequest::new.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&h);
            while !c.is_null() {
                assert_eq!((*c).cmsg_len, len);
                let v = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<u32>());
                seen.push(((*c).cmsg_level, (*c).cmsg_type, v));
                c = libc::CMSG_NXTHDR(&h, c);
            }
        }
        assert_eq!(
            seen,
            vec![
                (
                    libc::SOL_SOCKET,
                    SO_TIMESTAMPING,
                    libc::SOF_TIMESTAMPING_TX_SOFTWARE
                ),
                (libc::SOL_SOCKET, SCM_TS_OPT_ID, 0xdead_beef),
            ]
        );
    }
}
