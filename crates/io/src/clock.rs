//! The two clocks receive timestamps come in: the kernel stamps socket
//! buffers with CLOCK_REALTIME, an XDP program with CLOCK_MONOTONIC. A
//! latency is only right when both of its ends read the same one.

/// The current CLOCK_REALTIME time in nanoseconds: the clock of
/// [`crate::raw::RawFrame::timestamp_ns`].
pub fn realtime_ns() -> u64 {
    now_ns(libc::CLOCK_REALTIME)
}

/// The current CLOCK_MONOTONIC time in nanoseconds: the clock of
/// [`crate::xdp::XdpFrame::timestamp_ns`] (`bpf_ktime_get_ns`).
pub fn monotonic_ns() -> u64 {
    now_ns(libc::CLOCK_MONOTONIC)
}

/// The kernel's clock-tick rate (`USER_HZ`, almost always 100): the unit
/// of the CPU times in `/proc/stat` and `/proc/<pid>/stat`. 100 if the
/// system does not say.
pub fn ticks_per_second() -> u64 {
    // SAFETY: sysconf has no preconditions; it only reads a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(hz).ok().filter(|&h| h > 0).unwrap_or(100)
}

fn now_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a live out-parameter.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_clocks_advance_and_differ() {
        let (r, m) = (realtime_ns(), monotonic_ns());
        assert!(realtime_ns() >= r && monotonic_ns() >= m);
        // Realtime counts from 1970, monotonic from boot.
        assert!(r > m);
    }

    #[test]
    fn the_tick_rate_is_positive() {
        assert!(ticks_per_second() > 0);
    }
}
