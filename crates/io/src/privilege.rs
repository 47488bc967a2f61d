//! Whether this process has the privileges that network namespaces, raw
//! sockets and queue disciplines need, so a tool can say "needs root" up
//! front instead of failing halfway with a low-level error.

/// True when the effective user is root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}
