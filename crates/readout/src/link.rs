//! How a readout meets the wire: frames out always through the raw
//! socket (so they pass the interface's qdisc, netfilter egress hooks and
//! taps like any frame), frames in through the raw socket or an AF_XDP
//! socket ([`Backend`]).

use std::time::{Duration, Instant};

use linerate_fade::version::Version;
use linerate_io::clock::{monotonic_ns, realtime_ns};
use linerate_io::raw::{KernelCounts, RawSocket};
use linerate_io::xdp::{AttachMode, XdpConfig, XdpReceiver, XdpStats};

use crate::error::{Error, Result};

/// The raw socket every FADE tool uses: ethertype 0xfade on `interface`,
/// batches of 32 frames, each buffer 2048 bytes for v1 (a DATA frame is
/// 1072) or 9216 for FADE-10G (8232). A DATA frame that does not fit the
/// interface's MTU is refused up front: without jumbo frames a FADE-10G
/// board's every send would fail and the readout would only stall.
///
/// `ring_slots` above 0 receives through a TPACKET_V2 ring of that many
/// slots (no syscall per look; see `linerate_io::raw_ring`), 0 with
/// `recvmmsg`.
pub fn open_socket<W: Version>(interface: &str, ring_slots: usize) -> Result<RawSocket> {
    let need = W::DATA_PACKET_LEN as u32;
    RawSocket::open_for_payload(interface, linerate_wire::fade::ETHERTYPE, need, ring_slots)
        .map_err(|e| match e {
            linerate_io::Error::MtuTooSmall {
                interface,
                mtu,
                need,
            } => Error::Mtu {
                interface,
                mtu,
                need,
            },
            e => Error::io(format!("opening a FADE socket on {interface}"), e),
        })
}

/// How DATA frames reach the receive thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A PF_PACKET socket: `recvmmsg` batches with kernel timestamps.
    Raw,
    /// The same socket with a TPACKET_V2 receive ring: the kernel puts
    /// each frame in a slot of memory shared with the receive thread,
    /// which polls it without syscalls.
    Ring,
    /// An AF_XDP socket fed by linerate's XDP program, polled in user
    /// space without syscalls; stamps taken by the program.
    Xdp,
}

impl Backend {
    /// The name `--backend` takes.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Raw => "raw",
            Backend::Ring => "ring",
            Backend::Xdp => "xdp",
        }
    }
}

/// Parses a backend by its name (`raw`, `ring`, `xdp`, any case).
pub fn parse_backend(s: &str) -> std::result::Result<Backend, String> {
    match s.to_ascii_lowercase().as_str() {
        "raw" => Ok(Backend::Raw),
        "ring" => Ok(Backend::Ring),
        "xdp" => Ok(Backend::Xdp),
        _ => Err(format!(
            "unknown receive backend {s:?}: expected raw, ring or xdp"
        )),
    }
}

/// The backend and its counters, for reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendReport {
    /// Which backend received.
    pub backend: Backend,
    /// AF_XDP only: how the program is attached, whether the socket runs
    /// in zero-copy mode, frames that came in through the raw socket
    /// instead, and the socket's and program's counters (or why they
    /// could not be read).
    pub xdp: Option<XdpReport>,
    /// The packet socket's counts from the kernel: frames that matched it
    /// and frames dropped because its queue or ring was full (with AF_XDP,
    /// only the frames the program passed on), or why they could not be
    /// read. Drops here are frames the boards must send again.
    pub socket: Result<KernelCounts, String>,
}

/// The AF_XDP part of a [`BackendReport`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XdpReport {
    /// Native or generic XDP.
    pub attach_mode: AttachMode,
    /// Whether the socket is in zero-copy mode.
    pub zero_copy: bool,
    /// Frames that arrived through the raw socket (a receive queue without
    /// an AF_XDP socket).
    pub passed_to_kernel: u64,
    /// The counters, or why they could not be read.
    pub stats: std::result::Result<XdpStats, String>,
}

/// One received frame and when it arrived, on [`FrameLink::now_ns`]'s clock.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The Ethernet frame.
    pub data: &'a [u8],
    /// Arrival time in nanoseconds; 0 when unknown.
    pub timestamp_ns: u64,
}

/// Slots of the [`Backend::Ring`] receive ring: 1024 frames, as many as
/// 32 windows of 32 boards.
pub const RING_SLOTS: usize = 1024;

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
    /// Opens the raw socket on `interface` for wire version `W` and, for
    /// [`Backend::Xdp`], the AF_XDP receiver beside it.
    pub fn open<W: Version>(interface: &str, backend: Backend) -> Result<FrameLink> {
        let slots = if backend == Backend::Ring {
            RING_SLOTS
        } else {
            0
        };
        let raw = open_socket::<W>(interface, slots)?;
        let xdp = match backend {
            Backend::Raw | Backend::Ring => None,
            Backend::Xdp => Some(
                XdpReceiver::open(
                    interface,
                    linerate_wire::fade::ETHERTYPE,
                    &XdpConfig::default(),
                )
                .map_err(|e| Error::io(format!("opening the AF_XDP receiver on {interface}"), e))?,
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
            self.raw_frames = self.raw.recv(wait).map_err(|e| Error::io("receiving", e))?;
            return Ok(self.raw_frames);
        };
        let n = xdp
            .recv(wait)
            .map_err(|e| Error::io("receiving from the AF_XDP socket", e))?;
        self.raw_frames = 0;
        if self.last_raw_check.elapsed() >= RAW_CHECK {
            self.last_raw_check = Instant::now();
            self.raw_frames = self
                .raw
                .recv(Some(Duration::ZERO))
                .map_err(|e| Error::io("receiving", e))?;
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

    /// The backend and its counters, for reports.
    pub fn report(&mut self) -> BackendReport {
        let passed = self.passed;
        let socket = self.raw.kernel_counts().map_err(|e| e.to_string());
        let Some(x) = &mut self.xdp else {
            let backend = if self.raw.has_ring() {
                Backend::Ring
            } else {
                Backend::Raw
            };
            return BackendReport {
                backend,
                xdp: None,
                socket,
            };
        };
        BackendReport {
            backend: Backend::Xdp,
            xdp: Some(XdpReport {
                attach_mode: x.mode(),
                zero_copy: x.zero_copy(),
                passed_to_kernel: passed,
                stats: x.stats().map_err(|e| e.to_string()),
            }),
            socket,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_parse_by_name() {
        for b in [Backend::Raw, Backend::Ring, Backend::Xdp] {
            assert_eq!(parse_backend(b.name()), Ok(b));
        }
        assert!(parse_backend("dpdk")
            .expect_err("not a backend")
            .contains("dpdk"));
    }
}
