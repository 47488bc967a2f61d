//! The measuring window: what the receiving host's core spent and what
//! reached its interface, over a stretch of a run in steady state.

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
    /// Bytes the sending host's interface sent (frames with their headers),
    /// when the window watched the sender too ([`measure_pair`]): what a
    /// receiver that drops packets before counting them was offered.
    pub tx_bytes: Option<u64>,
    /// Busy fraction of the sending host's core (CPU 0), 0..=1.
    pub sender_core: f64,
    /// CPU-seconds of the sending host's core.
    pub sender_cpu_seconds: f64,
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

    /// The receiving host's CPU-seconds per GB the sender sent, or `None`
    /// when the sender was not watched or sent nothing: the cost of a
    /// stream to a receiver that throws packets away before its interface
    /// counts them.
    pub fn cpu_s_per_gb_sent(&self) -> Option<f64> {
        let tx = self.tx_bytes.filter(|b| *b > 0)?;
        Some(self.receiver_cpu_seconds / (tx as f64 / 1e9))
    }

    /// The sending host's CPU-seconds per GB it sent (or, when its
    /// interface was not watched, per GB received), or `None` when nothing
    /// moved: what a sender pays for its stream.
    pub fn sender_cpu_s_per_gb(&self) -> Option<f64> {
        let bytes = self.tx_bytes.unwrap_or(self.rx_bytes);
        (bytes > 0).then(|| self.sender_cpu_seconds / (bytes as f64 / 1e9))
    }
}

/// Measures a window of `length` on `bed`: CPU counters from /proc/stat and
/// the receive byte counter of `host`'s interface `iface`, read before and
/// after.
pub fn measure(bed: &Testbed, host: &str, iface: &str, length: Duration) -> Result<Window> {
    measure_ends(bed, None, (host, iface), length)
}

/// Like [`measure`], and also counts what `sender`'s interface
/// `sender_iface` sent over the window.
pub fn measure_pair(
    bed: &Testbed,
    (sender, sender_iface): (&str, &str),
    (receiver, receiver_iface): (&str, &str),
    length: Duration,
) -> Result<Window> {
    measure_ends(
        bed,
        Some((sender, sender_iface)),
        (receiver, receiver_iface),
        length,
    )
}

fn measure_ends(
    bed: &Testbed,
    sender: Option<(&str, &str)>,
    (host, iface): (&str, &str),
    length: Duration,
) -> Result<Window> {
    let sent = |bed: &Testbed| -> Result<Option<u64>> {
        sender
            .map(|(h, i)| counters(bed, h, i).map(|c| c.tx_bytes))
            .transpose()
    };
    let tx0 = sent(bed)?;
    let bytes0 = rx_bytes(bed, host, iface)?;
    let cpu0 = CpuSnapshot::take()?;
    let t0 = Instant::now();
    crate::stop::pause(length)?;
    let bytes1 = rx_bytes(bed, host, iface)?;
    let tx1 = sent(bed)?;
    let cpu1 = CpuSnapshot::take()?;
    let seconds = t0.elapsed().as_secs_f64();
    let delta = cpu1.delta_since(&cpu0);
    let receiver = delta.core(RECEIVER_CPU).ok_or_else(|| {
        Error::Argument(format!(
            "the bench needs CPU {RECEIVER_CPU} online for the receiving host (this machine has fewer cores)"
        ))
    })?;
    let busiest = delta.busiest().map(|c| c.utilisation).unwrap_or(0.0);
    let sender_core = delta.core(SENDER_CPU);
    Ok(Window {
        seconds,
        rx_bytes: bytes1.saturating_sub(bytes0),
        receiver_core: receiver.utilisation,
        busiest_core: busiest,
        cpu_avg: delta.total().utilisation,
        receiver_cpu_seconds: receiver.busy_secs,
        tx_bytes: tx0.zip(tx1).map(|(a, b)| b.saturating_sub(a)),
        sender_core: sender_core.map_or(0.0, |c| c.utilisation),
        sender_cpu_seconds: sender_core.map_or(0.0, |c| c.busy_secs),
    })
}

/// The receive byte counter of `iface` inside `host`'s namespace.
fn rx_bytes(bed: &Testbed, host: &str, iface: &str) -> Result<u64> {
    counters(bed, host, iface).map(|c| c.rx_bytes)
}

/// The byte counters of `iface` inside `host`'s namespace.
fn counters(bed: &Testbed, host: &str, iface: &str) -> Result<ByteCounters> {
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
    parse_counters(&text, &iface_owned).ok_or_else(|| Error::Output {
        program: "/proc/net/dev".to_owned(),
        what: format!("the byte counters of {iface_owned} in {host}"),
        detail: crate::process::tail(&text, 300),
    })
}

/// An interface's byte counters, as /proc/net/dev gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteCounters {
    /// Bytes received.
    pub rx_bytes: u64,
    /// Bytes sent.
    pub tx_bytes: u64,
}

/// The byte counters of `iface` in /proc/net/dev text: the first receive
/// column and the first transmit column (the ninth number).
pub fn parse_counters(text: &str, iface: &str) -> Option<ByteCounters> {
    text.lines().find_map(|line| {
        let (name, rest) = line.split_once(':')?;
        if name.trim() != iface {
            return None;
        }
        let mut fields = rest.split_whitespace();
        let rx_bytes = fields.next()?.parse().ok()?;
        let tx_bytes = fields.nth(7)?.parse().ok()?;
        Some(ByteCounters { rx_bytes, tx_bytes })
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
    fn byte_counters_are_read_per_interface() {
        assert_eq!(
            parse_counters(NET_DEV, "eth0"),
            Some(ByteCounters {
                rx_bytes: 123_456_789,
                tx_bytes: 5000
            })
        );
        assert_eq!(parse_counters(NET_DEV, "lo").map(|c| c.rx_bytes), Some(0));
        assert_eq!(parse_counters(NET_DEV, "eth1"), None);
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
            tx_bytes: None,
            sender_core: 0.25,
            sender_cpu_seconds: 0.5,
        };
        assert!((w.gbit_per_s() - 4.0).abs() < 1e-9);
        assert_eq!(w.cpu_s_per_gb(), Some(1.0));
        assert_eq!(w.cpu_s_per_gb_sent(), None);
        assert_eq!(w.sender_cpu_s_per_gb(), Some(0.5));
        let sent = Window {
            tx_bytes: Some(2_000_000_000),
            ..w
        };
        assert_eq!(sent.cpu_s_per_gb_sent(), Some(0.5));
        assert_eq!(sent.sender_cpu_s_per_gb(), Some(0.25));
        let empty = Window { rx_bytes: 0, ..w };
        assert_eq!(empty.cpu_s_per_gb(), None);
    }
}
