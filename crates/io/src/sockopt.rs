//! `setsockopt` and `getsockopt` for the options socket2 does not wrap,
//! the forced buffer sizes every socket kind here wants, and the wait for
//! a readable descriptor, in one place.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

use crate::error::Error;

/// Opens a `SOCK_RAW` socket of `family` (AF_PACKET, AF_XDP). Refusal for
/// lack of privilege becomes [`Error::NeedsCapNetRaw`]; any other failure
/// is given to `other` to name the interface it was for.
pub(crate) fn raw_socket(
    family: libc::c_int,
    other: impl FnOnce(std::io::Error) -> Error,
) -> Result<OwnedFd, Error> {
    // SAFETY: a plain syscall; the descriptor is checked and owned below.
    let raw = unsafe { libc::socket(family, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    if raw < 0 {
        let source = std::io::Error::last_os_error();
        return Err(match source.raw_os_error() {
            Some(libc::EPERM | libc::EACCES) => Error::NeedsCapNetRaw { source },
            _ => other(source),
        });
    }
    // SAFETY: `raw` is a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// `setsockopt` with a value of type `T` (a C struct or integer).
pub(crate) fn set_option<T>(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    value: &T,
) -> std::io::Result<()> {
    // SAFETY: passes a pointer to a live `T` and its exact size; the kernel
    // only reads it.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (value as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// `getsockopt` into `value` (a C struct or integer the caller has
/// initialised); returns the length the kernel wrote, which tells an
/// older kernel's shorter struct from the current one.
pub(crate) fn get_option<T>(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    value: &mut T,
) -> std::io::Result<usize> {
    let mut len = std::mem::size_of::<T>() as libc::socklen_t;
    // SAFETY: passes a pointer to a live `T` and its exact size; the kernel
    // writes at most `len` bytes into it.
    let r = unsafe { libc::getsockopt(fd, level, name, (value as *mut T).cast(), &mut len) };
    if r == 0 {
        Ok(len as usize)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Waits until `fd` is readable (or in error): `None` without limit,
/// otherwise up to `timeout`. Returns poll's `revents`: 0 on timeout or
/// when a signal interrupted the wait.
pub(crate) fn wait_readable(
    fd: RawFd,
    timeout: Option<Duration>,
) -> std::io::Result<libc::c_short> {
    let mut pfd = [libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }];
    poll_fds(&mut pfd, timeout)?;
    Ok(pfd[0].revents)
}

/// Waits until one of `fds` is readable (or in error): `None` without
/// limit, otherwise up to `timeout`. Returns the index of the first ready
/// descriptor; `None` on timeout or when a signal interrupted the wait.
pub(crate) fn wait_readable_any(
    fds: &[RawFd],
    timeout: Option<Duration>,
) -> std::io::Result<Option<usize>> {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    poll_fds(&mut pfds, timeout)?;
    Ok(pfds.iter().position(|p| p.revents != 0))
}

/// Polls `pfds` for their events: `None` without limit, otherwise up to
/// `timeout`. A timeout or a signal leaves every `revents` 0.
fn poll_fds(pfds: &mut [libc::pollfd], timeout: Option<Duration>) -> std::io::Result<()> {
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: libc::time_t::try_from(d.as_secs()).unwrap_or(libc::time_t::MAX),
        tv_nsec: d.subsec_nanos() as libc::c_long,
    });
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `pfds` (with its exact length) and `ts` outlive the call; a
    // null timeout means no limit and a null mask leaves the signal mask
    // unchanged.
    let r = unsafe {
        libc::ppoll(
            pfds.as_mut_ptr(),
            pfds.len() as libc::nfds_t,
            ts_ptr,
            std::ptr::null(),
        )
    };
    if r < 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
        pfds.iter_mut().for_each(|p| p.revents = 0);
    }
    Ok(())
}

/// Sets an integer option; values past `c_int` are clamped to its maximum.
pub(crate) fn set_int_option(
    fd: RawFd,
    level: libc::c_int,
    option: libc::c_int,
    value: usize,
) -> std::io::Result<()> {
    let v = libc::c_int::try_from(value).unwrap_or(libc::c_int::MAX);
    set_option(fd, level, option, &v)
}

/// Sets SO_RCVBUF to `n` bytes, past `net.core.rmem_max` when the process
/// may (SO_RCVBUFFORCE, CAP_NET_ADMIN), else as far as the limit allows.
pub(crate) fn set_recv_buffer(fd: RawFd, n: usize) -> std::io::Result<()> {
    set_int_option(fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, n)
        .or_else(|_| set_int_option(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, n))
}

/// Sets SO_SNDBUF to `n` bytes, forced past `net.core.wmem_max` where allowed.
pub(crate) fn set_send_buffer(fd: RawFd, n: usize) -> std::io::Result<()> {
    set_int_option(fd, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, n)
        .or_else(|_| set_int_option(fd, libc::SOL_SOCKET, libc::SO_SNDBUF, n))
}
