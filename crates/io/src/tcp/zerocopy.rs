//! TCP_ZEROCOPY_RECEIVE (mmap receive): the kernel maps received pages
//! into a region of the process instead of copying them. It only maps
//! whole pages whose bytes are exactly a page of the stream, so it pays off
//! only when the link's segments carry page-sized, page-aligned payloads
//! (an MSS that is a multiple of the page size, and a driver that lays data
//! out in pages). Everything else must still be read with `recv`.
//!
//! [`receive_mapped`] reads a given number of bytes this way and reports
//! how many were mapped and how many copied, so a host can find out on
//! its own link whether the mechanism works there at all.

use std::net::TcpStream;
use std::os::fd::AsRawFd;

/// `TCP_ZEROCOPY_RECEIVE` (linux/tcp.h).
const TCP_ZEROCOPY_RECEIVE: libc::c_int = 35;

/// `struct tcp_zerocopy_receive` (linux/tcp.h), the full current layout.
#[repr(C)]
#[derive(Default)]
struct ZeroCopyReceive {
    address: u64,
    length: u32,
    recv_skip_hint: u32,
    inq: u32,
    err: i32,
    copybuf_address: u64,
    copybuf_len: i32,
    flags: u32,
    msg_control: u64,
    msg_controllen: u64,
    msg_flags: u32,
    reserved: u32,
}

/// What one mmap-receive run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MappedReport {
    /// Bytes the kernel mapped (no copy).
    pub mapped: u64,
    /// Bytes that had to be read with `recv` (a copy).
    pub copied: u64,
    /// getsockopt calls made.
    pub calls: u64,
}

/// Receives exactly `total` bytes from `stream`, mapping what the kernel
/// can map and reading the rest, and hands every piece to `consume` in
/// stream order. Fails with the OS error when the socket does not support
/// mmap receive at all, or when the stream ends early.
pub fn receive_mapped(
    stream: &mut TcpStream,
    total: u64,
    mut consume: impl FnMut(&[u8]),
) -> std::io::Result<MappedReport> {
    use std::io::Read;
    const WINDOW: usize = 4 << 20;
    let fd = stream.as_raw_fd();
    // SAFETY: a fresh shared read-only mapping of the socket, as the
    // TCP_ZEROCOPY_RECEIVE interface requires; unmapped below.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            WINDOW,
            libc::PROT_READ,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    let unmap = Unmap(base, WINDOW);
    let mut report = MappedReport::default();
    let mut copy = vec![0u8; 256 << 10];
    let mut left = total;
    while left > 0 {
        let mut zc = ZeroCopyReceive {
            address: base as u64,
            length: WINDOW.min(left as usize) as u32 & !4095,
            ..ZeroCopyReceive::default()
        };
        let mut len = std::mem::size_of::<ZeroCopyReceive>() as libc::socklen_t;
        // SAFETY: passes our struct and its exact size.
        let r = unsafe {
            libc::getsockopt(
                fd,
                libc::IPPROTO_TCP,
                TCP_ZEROCOPY_RECEIVE,
                (&mut zc as *mut ZeroCopyReceive).cast(),
                &mut len,
            )
        };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        report.calls += 1;
        if zc.err != 0 {
            return Err(std::io::Error::from_raw_os_error(-zc.err));
        }
        let mapped = u64::from(zc.length).min(left);
        if mapped > 0 {
            // SAFETY: the kernel mapped `zc.length` bytes at `base`.
            consume(unsafe { std::slice::from_raw_parts(base.cast::<u8>(), mapped as usize) });
            report.mapped += mapped;
            left -= mapped;
        }
        // What the kernel could not map is read the usual way; with
        // nothing mapped and no hint, read a little to make progress.
        let mut skip = u64::from(zc.recv_skip_hint).min(left);
        if mapped == 0 && skip == 0 {
            skip = (copy.len() as u64).min(left);
        }
        while skip > 0 {
            let want = (skip as usize).min(copy.len());
            let n = stream.read(&mut copy[..want])?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            consume(&copy[..n]);
            report.copied += n as u64;
            left -= n as u64;
            skip = skip.saturating_sub(n as u64);
            if mapped == 0 {
                break;
            }
        }
    }
    drop(unmap);
    Ok(report)
}

struct Unmap(*mut libc::c_void, usize);

impl Drop for Unmap {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping made above, once.
        unsafe { libc::munmap(self.0, self.1) };
    }
}
