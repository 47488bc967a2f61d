//! One monotonic clock in nanoseconds for the sans-IO cores' timestamps.

use std::sync::OnceLock;
use std::time::Instant;

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Nanoseconds since the first call in this process. The cores only compare
/// and subtract timestamps, so any fixed origin works; a process-wide one
/// lets threads exchange them.
pub fn now_ns() -> u64 {
    u64::try_from(epoch().elapsed().as_nanos()).unwrap_or(u64::MAX)
}
