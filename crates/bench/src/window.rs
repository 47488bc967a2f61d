//! The measuring window: what the receiving host's core spent and what
//! reached its interface, over a stretch of a run in steady state.

use std::thread;
use std::time::{Duration, Instant};

use linerate_metrics::CpuSnapshot;
use linerate_testbed::Testbed;
use serde::Serialize;

use crate::error::{Error, Result};

/// The CPU the sending side (camera, iperf3 client, boards) is pinned to.
pub const SENDER_CPU: usize = 0;
/// The CPU that stands in for the receiving machine.
pub const RECEIVER_CPU: usize = 1;

/// What one measuring window saw.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Window {
    /// Wall time of the window.
    pub seconds: f64,
    /// Bytes that reached the receiving host's interface (frames with
    /// their Ethernet, IP and UDP/TCP headers).
    pub rx_bytes: u64,
    /// Busy fraction of the receiving host's core, 0..=1.
    pub receiver_core: f64,
    /// Busy fraction of the busiest core, 0..=1.
    pub busiest_core: f64,
    /// Busy fraction over all cores, 0..=1.
    pub cpu_avg: f64,
    /// CPU-seconds of the receiving host's core.
    pub receiver_cpu_seconds: f64,
}

impl Window {
    /// Throughput at the receiving interface.
    pub fn gbit_per_s(&self) -> f64 {
        if self.seconds > 0.0 {
            self.rx_bytes as f64 * 8.0 / self.seconds / 1e9
        } else {
            0.0
        }
    }

    /// The receiving host's CPU-seconds per GB (10^9 bytes) received, or
    /// `None` when nothing arrived.
    pub fn cpu_s_per_gb(&self) -> Option<f64> {
        (self.rx_bytes > 0).then(|| self.receiver_cpu_seconds / (self.rx_bytes as f64 / 1e9))
    }
}

/// Measures a window of `length` on `bed`: CPU counters from /proc/stat and
/// the receive byte counter of `host`'s interface `iface`, read before and
/// after.
pub fn measure(bed: &Testbed, host: &str, iface: &str, length: Duration) -> Result<Window> {
    let bytes0 = rx_bytes(bed, host, iface)?;
    let cpu0 = CpuSnapshot::take()?;
    let t0 = Instant::now();
    thread::sleep(length);
    let bytes1 = rx_bytes(bed, host, iface)?;
    let cpu1 = CpuSnapshot::take()?;
    let seconds = t0.elapsed().as_secs_f64();
    let delta = cpu1.delta_since(&cpu0);
    let receiver = delta.core(RECEIVER_CPU).ok_or_else(|| {
        Error::Argument(format!(
            "the bench needs CPU {RECEIVER_CPU} online for the receiving host (this machine has fewer cores)"
        ))
    })?;
    let busiest = delta.busiest().map(|c| c.utilisation).unwrap_or(0.0);
    Ok(Window {
        seconds,
        rx_bytes: bytes1.saturating_sub(bytes0),
        receiver_core: receiver.utilisation,
        busiest_core: busiest,
        cpu_avg: delta.total().utilisation,
        receiver_cpu_seconds: receiver.busy_secs,
    })
}

/// The receive byte counter of `iface` inside `host`'s namespace.
fn rx_bytes(bed: &Testbed, host: &str, iface: &str) -> Result<u64> {
    let iface_owned = iface.to_owned();
    // /proc/thread-self/net is the namespace of the reading thread, which
    // run_in has moved into the host's namespace.
    let text = bed.run_in(host, Some(&[SENDER_CPU]), move || {
        std::fs::read_to_string("/proc/thread-self/net/dev")
    })?;
    let text = text.map_err(|source| Error::File {
        path: "/proc/thread-self/net/dev".into(),
        source,
    })?;
    parse_rx_bytes(&text, &iface_owned).ok_or_else(|| Error::Output {
        program: "/proc/net/dev".to_owned(),
        what: format!("the receive bytes of {iface_owned} in {host}"),
        detail: crate::process::tail(&text, 300),
    })
}

/// The receive byte count of `iface` in /proc/net/dev text.
pub fn parse_rx_bytes(text: &str, iface: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (name, rest) = line.split_once(':')?;
        (name.trim() == iface).then(|| rest.split_whitespace().next()?.parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NET_DEV: &str = "Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
  eth0: 123456789   90000    0    3    0     0          0         0     5000      70    0    0    0     0       0          0
";

    #[test]
    fn rx_bytes_are_read_per_interface() {
        assert_eq!(parse_rx_bytes(NET_DEV, "eth0"), Some(123_456_789));
        assert_eq!(parse_rx_bytes(NET_DEV, "lo"), Some(0));
        assert_eq!(parse_rx_bytes(NET_DEV, "eth1"), None);
    }

    #[test]
    fn derived_figures() {
        let w = Window {
            seconds: 2.0,
            rx_bytes: 1_000_000_000,
            receiver_core: 0.5,
            busiest_core: 0.9,
            cpu_avg: 0.6,
            receiver_cpu_seconds: 1.0,
        };
        assert!((w.gbit_per_s() - 4.0).abs() < 1e-9);
        assert_eq!(w.cpu_s_per_gb(), Some(1.0));
        let empty = Window { rx_bytes: 0, ..w };
        assert_eq!(empty.cpu_s_per_gb(), None);
    }
}
