//! Entering namespaces from a thread: what the test bench does so that a
//! sender and a receiver run "on" two hosts as plain Rust code. A network
//! namespace belongs to a thread, so a thread that enters one and opens a
//! socket keeps that socket on the namespace's stack; a mount namespace,
//! once unshared, belongs to the thread alone too.

use std::fs::File;
use std::os::fd::AsRawFd;

/// Moves the calling thread into the network namespace `namespace` (an
/// open `/run/netns/<name>` or `/proc/<pid>/ns/net`). Needs CAP_SYS_ADMIN.
pub fn enter_network_namespace(namespace: &File) -> std::io::Result<()> {
    // SAFETY: setns takes a descriptor the caller holds open and a flag.
    check(unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) })
}

/// Gives the calling thread a mount namespace of its own (a copy of the
/// current one), so mounts it makes end with it.
pub fn unshare_mount_namespace() -> std::io::Result<()> {
    // SAFETY: unshare takes a flag and touches no memory of ours.
    check(unsafe { libc::unshare(libc::CLONE_NEWNS) })
}

/// Makes every mount of the calling thread's mount namespace a slave of
/// the one it was copied from: mounts still propagate in, none back out.
pub fn stop_mount_propagation() -> std::io::Result<()> {
    mount(None, c"/", None, libc::MS_REC | libc::MS_SLAVE)
}

/// Mounts a fresh sysfs over `/sys` (detaching whatever was there, if
/// anything): sysfs lists the devices of the network namespace it is
/// mounted in, so after [`enter_network_namespace`] in a private mount
/// namespace `/sys/class/net` shows that namespace's interfaces.
pub fn remount_sysfs() -> std::io::Result<()> {
    // Not mounted (a minimal container) is fine: mount over it.
    // SAFETY: a NUL-terminated path and a flag.
    let _ = unsafe { libc::umount2(c"/sys".as_ptr(), libc::MNT_DETACH) };
    mount(Some(c"sysfs"), c"/sys", Some(c"sysfs"), 0)
}

fn mount(
    source: Option<&std::ffi::CStr>,
    target: &std::ffi::CStr,
    fstype: Option<&std::ffi::CStr>,
    flags: libc::c_ulong,
) -> std::io::Result<()> {
    let ptr = |s: Option<&std::ffi::CStr>| s.map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: NUL-terminated strings (or null where mount(2) allows it)
    // that outlive the call, and no data argument.
    check(unsafe {
        libc::mount(
            ptr(source),
            target.as_ptr(),
            ptr(fstype),
            flags,
            std::ptr::null(),
        )
    })
}

fn check(rc: libc::c_int) -> std::io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entering_a_namespace_that_is_no_namespace_fails() {
        let f = File::open("/proc/self/status").expect("open");
        let e = enter_network_namespace(&f).expect_err("not a namespace");
        assert_eq!(e.raw_os_error(), Some(libc::EINVAL));
    }

    #[test]
    fn a_thread_takes_its_own_network_namespace_back() {
        // Entering the namespace the thread is already in works (with the
        // privilege) and changes nothing.
        let f = File::open("/proc/thread-self/ns/net").expect("open");
        std::thread::spawn(move || {
            if crate::privilege::is_root() {
                enter_network_namespace(&f).expect("setns into our own namespace");
            }
        })
        .join()
        .expect("thread");
    }
}
