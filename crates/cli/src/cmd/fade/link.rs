//! How `fade recv` meets the wire: frames out always through the raw
//! socket (so they pass the interface's qdisc, netfilter egress hooks and
//! taps like any frame), frames in through the raw socket or an AF_XDP
//! socket (`--backend`).

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use linerate_io::clock::{monotonic_ns, realtime_ns};
use linerate_io::raw::RawSocket;
use linerate_io::xdp::{XdpConfig, XdpReceiver};
use serde_json::{json, Value};

use super::Version;

/// How DATA frames reach the receive thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A PF_PACKET socket: `recvmmsg` batches with kernel timestamps.
    Raw,
    /// An AF_XDP socket fed by linerate's XDP program, polled in user
    /// space without syscalls; stamps taken by the program.
    Xdp,
}

impl Backend {
    /// The name `--backend` takes.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Raw => "raw",
            Backend::Xdp => "xdp",
        }
    }
}

/// Parses `--backend`.
pub fn parse_backend(s: &str) -> std::result::Result<Backend, String> {
    match s.to_ascii_lowercase().as_str() {
        "raw" => Ok(Backend::Raw),
        "xdp" => Ok(Backend::Xdp),
        _ => Err(format!(
            "unknown receive backend {s:?}: expected raw or xdp"
        )),
    }
}

/// One received frame and when it arrived, on [`FrameLink::now_ns`]'s clock.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The Ethernet frame.
    pub data: &'a [u8],
    /// Arrival time in nanoseconds; 0 when unknown.
    pub timestamp_ns: u64,
}

/// How often, in XDP mode, the raw socket is also read: a frame that came
/// in on a receive queue without an AF_XDP socket went to the kernel.
const RAW_CHECK: Duration = Duration::from_millis(1);

/// The receive thread's connection to the boards.
#[derive(Debug)]
pub struct FrameLink {
    raw: RawSocket,
    xdp: Option<XdpReceiver>,
    raw_frames: usize,
    last_raw_check: Instant,
    /// Frames that arrived through the raw socket while XDP was on.
    passed: u64,
}

impl FrameLink {
    /// Opens the raw socket on `interface` and, for [`Backend::Xdp`], the
    /// AF_XDP receiver beside it.
    pub fn open(interface: &str, version: Version, backend: Backend) -> Result<FrameLink> {
        let raw = super::open_socket(interface, version)?;
        let xdp = match backend {
            Backend::Raw => None,
            Backend::Xdp => Some(
                XdpReceiver::open(
                    interface,
                    linerate_wire::fade::ETHERTYPE,
                    &XdpConfig::default(),
                )
                .with_context(|| format!("opening the AF_XDP receiver on {interface}"))?,
            ),
        };
        Ok(FrameLink {
            raw,
            xdp,
            raw_frames: 0,
            last_raw_check: Instant::now(),
            passed: 0,
        })
    }

    /// The socket every frame leaves through.
    pub fn sender(&self) -> &RawSocket {
        &self.raw
    }

    /// The socket every frame leaves through, for settings.
    pub fn sender_mut(&mut self) -> &mut RawSocket {
        &mut self.raw
    }

    /// CLOCK_REALTIME minus [`Self::now_ns`]'s clock, now: converts the
    /// kernel's transmit stamps (realtime) to the frames' clock.
    pub fn realtime_minus_now_ns(&self) -> i64 {
        if self.xdp.is_some() {
            realtime_ns() as i64 - monotonic_ns() as i64
        } else {
            0
        }
    }

    /// Takes the next batch (zero `wait`: look only; otherwise wait up to
    /// that long for the first frame). Returns the frames [`Self::frames`]
    /// yields.
    pub fn recv(&mut self, wait: Option<Duration>) -> Result<usize> {
        let Some(xdp) = self.xdp.as_mut() else {
            self.raw_frames = self.raw.recv(wait)?;
            return Ok(self.raw_frames);
        };
        let n = xdp.recv(wait)?;
        self.raw_frames = 0;
        if self.last_raw_check.elapsed() >= RAW_CHECK {
            self.last_raw_check = Instant::now();
            self.raw_frames = self.raw.recv(Some(Duration::ZERO))?;
            self.passed += self.raw_frames as u64;
        }
        Ok(n + self.raw_frames)
    }

    /// The frames of the last [`Self::recv`].
    pub fn frames(&self) -> impl Iterator<Item = Frame<'_>> + '_ {
        let xdp = self.xdp.iter().flat_map(|x| {
            x.frames().map(|f| Frame {
                data: f.data,
                timestamp_ns: f.timestamp_ns,
            })
        });
        // Raw frames carry CLOCK_REALTIME stamps; next to XDP's monotonic
        // ones they would mislead, so they count without a stamp there.
        let realtime = self.xdp.is_none();
        let raw = self.raw.frames().take(self.raw_frames).map(move |f| Frame {
            data: f.data,
            timestamp_ns: if realtime { f.timestamp_ns } else { 0 },
        });
        xdp.chain(raw)
    }

    /// Now, on the clock of the frames' timestamps.
    pub fn now_ns(&self) -> u64 {
        if self.xdp.is_some() {
            monotonic_ns()
        } else {
            realtime_ns()
        }
    }

    /// The backend and its counters, for the JSON report.
    pub fn report(&mut self) -> Value {
        let Some(x) = &mut self.xdp else {
            return json!({ "name": Backend::Raw.name() });
        };
        let mut v = json!({
            "name": Backend::Xdp.name(),
            "attach_mode": x.mode().name(),
            "zero_copy": x.zero_copy(),
            "passed_to_kernel": self.passed,
        });
        match x.stats() {
            Ok(s) => {
                v["seen"] = s.seen.into();
                v["received"] = s.received.into();
                v["pending"] = s.pending.into();
                v["dropped"] = s.dropped.into();
                v["fill_ring_empty"] = s.fill_ring_empty.into();
                v["multi_buffer"] = s.multi_buffer.into();
            }
            Err(e) => v["stats_error"] = e.to_string().into(),
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_parse_by_name() {
        for b in [Backend::Raw, Backend::Xdp] {
            assert_eq!(parse_backend(b.name()), Ok(b));
        }
        assert!(parse_backend("dpdk")
            .expect_err("not a backend")
            .contains("dpdk"));
    }
}
