//! `setsockopt` for the options socket2 does not wrap, and the forced
//! buffer sizes every socket kind here wants, in one place.

use std::os::fd::RawFd;

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
