//! What a grab asks for, as plain data: the camera, when the run ends, the
//! camera settings to apply, how the stream is received and what is done
//! with each frame. The defaults are `linerate grab`'s, so every front end
//! (the command line, the demo, a binding) starts from the same run.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::time::Duration;

use linerate_gev::assembler::Config as AssemblerConfig;

use super::GrabError;
use crate::receive::{Backend, Transport};
use crate::verify::Pattern;

/// How long an unfinished frame is kept after its last packet over UDP,
/// where a lost packet may never come.
const UDP_FRAME_RETENTION: Duration = Duration::from_millis(100);

/// Buffers used by default, when 16 frames fit the memory budget.
pub const DEFAULT_BUFFERS: usize = 16;
/// The stream needs one buffer being filled and one being read.
pub const MIN_BUFFERS: usize = 2;
/// Memory the frame buffers may take by default (1 GiB): 16 buffers of
/// frames up to 64 MiB.
pub const DEFAULT_BUFFER_MEMORY: u64 = 1 << 30;

/// Everything a grab session needs to know before it opens the camera.
#[derive(Debug, Clone, PartialEq)]
pub struct GrabConfig {
    /// Camera: IPv4 address, `IP:PORT` (a device on another GVCP port than
    /// 3956), or serial number / user name (found by discovery).
    pub camera: String,
    /// Frames to receive: the run stops after this many (complete or not),
    /// or at `duration` if that comes first. 0: no frame limit.
    pub frames: u64,
    /// How long to receive for (with `frames`: whichever ends first).
    /// `None` with `frames` 0: until a stop is requested.
    pub duration: Option<Duration>,
    /// Set the Width feature before starting.
    pub width: Option<u32>,
    /// Set the Height feature before starting.
    pub height: Option<u32>,
    /// Set the AcquisitionFrameRate feature (frames per second); with
    /// `trigger_software`, the rate at which triggers are sent instead
    /// (default 10 Hz).
    pub fps: Option<f64>,
    /// Put the camera in software-trigger mode and send one
    /// TriggerSoftware command at a time, waiting for its frame; the
    /// report gains the command → frame latency.
    pub trigger_software: bool,
    /// UDP: stream packet size in bytes (IP + UDP + GVSP headers + data).
    /// TCP: image bytes per record (the camera's LinerateTransferSize).
    pub packet_size: Option<u32>,
    /// UDP: gap between the camera's stream packets in nanoseconds (SCPD),
    /// to pace a camera to its link. `None` keeps the camera's setting.
    pub packet_delay_ns: Option<u64>,
    /// GVSP over UDP (any camera) or linerate's GVSP records over TCP.
    pub transport: Transport,
    /// Set the PixelFormat feature (e.g. `Mono8`).
    pub pixel_format: Option<String>,
    /// UDP receive backend.
    pub backend: Backend,
    /// Check every complete frame against the camera's test pattern;
    /// mismatches count as corrupt.
    pub verify: bool,
    /// The pattern to verify against; `None` picks it from the camera's
    /// vendor (Aravis's ramp for Aravis, linerate's stamp otherwise).
    pub pattern: Option<Pattern>,
    /// Save every complete frame into this directory (created if missing;
    /// its parent must exist), never overwriting a file.
    pub save: Option<PathBuf>,
    /// The local address facing the camera (default: from the routing table).
    pub interface: Option<Ipv4Addr>,
    /// Frame buffers lent to the stream. `None`: 16, or as many as fit
    /// `buffer_memory` (at least 2). Given, buffers × PayloadSize must fit
    /// `buffer_memory`.
    pub buffers: Option<usize>,
    /// Most memory the frame buffers may take, in bytes.
    pub buffer_memory: u64,
    /// Pin the receive thread to this CPU.
    pub cpu: Option<usize>,
    /// Local UDP port for the stream (0: any free port). A fixed port lets
    /// firewall and loss rules select the stream.
    pub stream_port: u16,
    /// SO_BUSY_POLL in microseconds (0 or `None`: off).
    pub busy_poll_us: Option<u32>,
    /// Receive moderation in microseconds (see
    /// [`crate::receive::ReceiveConfig::coalesce_us`]); `None` keeps the default.
    pub coalesce_us: Option<u32>,
    /// Connect the stream socket to the camera's source port when the
    /// camera reports it, so the kernel filters other senders.
    pub connect: bool,
    /// mmsg: turn UDP GRO on and take coalesced trains whole.
    pub gro: bool,
    /// Ask the camera to resend lost packets.
    pub resend: bool,
    /// How long a gap may stay open before the first resend request.
    pub resend_initial: Duration,
    /// How long before asking again for the same packets.
    pub resend_repeat: Duration,
    /// Most packets per frame requested and left unanswered, as a fraction
    /// of the frame's packets.
    pub resend_ratio: f64,
    /// Silence after a frame's last packet before its missing tail and
    /// trailer are requested (zero: wait for the next frame to start).
    pub resend_tail: Duration,
    /// How long an unfinished frame is kept after its last packet. `None`:
    /// 100 ms over UDP; over TCP, where every byte of a frame arrives while
    /// the connection lives, `frame_timeout`.
    pub retention: Option<Duration>,
    /// How long to wait for a frame before giving up (at least 10 ms).
    pub frame_timeout: Duration,
}

impl Default for GrabConfig {
    fn default() -> Self {
        GrabConfig {
            camera: String::new(),
            frames: 100,
            duration: None,
            width: None,
            height: None,
            fps: None,
            trigger_software: false,
            packet_size: None,
            packet_delay_ns: None,
            transport: Transport::Udp,
            pixel_format: None,
            backend: Backend::Mmsg,
            verify: false,
            pattern: None,
            save: None,
            interface: None,
            buffers: None,
            buffer_memory: DEFAULT_BUFFER_MEMORY,
            cpu: None,
            stream_port: 0,
            busy_poll_us: None,
            coalesce_us: None,
            connect: true,
            gro: true,
            resend: true,
            resend_initial: Duration::from_micros(300),
            resend_repeat: Duration::from_millis(5),
            resend_ratio: 2.0,
            resend_tail: Duration::from_micros(1000),
            retention: None,
            frame_timeout: Duration::from_secs(3),
        }
    }
}

/// Nanoseconds of `d`, saturating (the assembler counts in u64 ns).
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl GrabConfig {
    /// A grab of `camera` with every other setting at its default.
    pub fn new(camera: impl Into<String>) -> GrabConfig {
        GrabConfig {
            camera: camera.into(),
            ..GrabConfig::default()
        }
    }

    /// The assembler's resend and retention settings for `payload`-byte frames.
    pub(crate) fn assembler(&self, payload: usize) -> AssemblerConfig {
        let mut assembler = AssemblerConfig::new(payload);
        assembler.resend.enabled = self.resend;
        assembler.resend.initial_timeout_ns = nanos(self.resend_initial);
        assembler.resend.repeat_timeout_ns = nanos(self.resend_repeat);
        assembler.frame_retention_ns = match self.retention {
            Some(r) => nanos(r),
            None if self.transport == Transport::Tcp => nanos(self.frame_timeout),
            None => nanos(UDP_FRAME_RETENTION),
        };
        assembler.resend.request_ratio = self.resend_ratio;
        assembler.resend.tail_timeout_ns = nanos(self.resend_tail);
        assembler
    }

    /// With `trigger_software`, the time between triggers (`fps`, default
    /// 10 Hz); refused unless the rate is positive and finite.
    pub(crate) fn trigger_period(&self) -> Result<Option<Duration>, GrabError> {
        if !self.trigger_software {
            return Ok(None);
        }
        let fps = self.fps.unwrap_or(10.0);
        let period = (fps.is_finite() && fps > 0.0)
            .then(|| Duration::try_from_secs_f64(1.0 / fps).ok())
            .flatten()
            .ok_or(GrabError::TriggerRate { fps })?;
        Ok(Some(period))
    }

    /// The pattern to verify a camera of `vendor` against.
    pub(crate) fn pattern_for(&self, vendor: &str) -> Pattern {
        match self.pattern {
            Some(p) => p,
            None if vendor.eq_ignore_ascii_case("aravis") => Pattern::AravisRamp,
            None => Pattern::Linerate,
        }
    }

    /// How many frame buffers of `payload` bytes to lend the stream: the
    /// count asked for, which must fit the memory budget, or by default 16
    /// or as many as fit (at least 2).
    pub(crate) fn buffer_count(&self, payload: usize) -> Result<usize, GrabError> {
        buffer_count(self.buffers, self.buffer_memory, payload)
    }
}

/// See [`GrabConfig::buffer_count`].
fn buffer_count(asked: Option<usize>, budget: u64, payload: usize) -> Result<usize, GrabError> {
    let payload_bytes = (payload as u64).max(1);
    let fit = usize::try_from(budget / payload_bytes).unwrap_or(usize::MAX);
    let too_big = |buffers: usize| GrabError::BufferMemory {
        buffers,
        payload,
        budget,
        fit,
    };
    match asked {
        Some(n) if n > fit => Err(too_big(n)),
        Some(n) => Ok(n),
        None if fit < MIN_BUFFERS => Err(too_big(MIN_BUFFERS)),
        None => {
            if fit < DEFAULT_BUFFERS {
                tracing::warn!(
                    "using {fit} frame buffers instead of {DEFAULT_BUFFERS}: \
                     {payload}-byte frames, a buffer memory budget of {budget} bytes"
                );
            }
            Ok(fit.min(DEFAULT_BUFFERS))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn buffers_fit_the_memory_budget() {
        // The default count shrinks to what fits, never below 2.
        assert_eq!(buffer_count(None, 1024 * MIB, 1 << 20).ok(), Some(16));
        assert_eq!(buffer_count(None, 1024 * MIB, 201_326_592).ok(), Some(5));
        assert!(buffer_count(None, 256 * MIB, 201_326_592).is_err());
        // An explicit count must fit, and the error says what does.
        assert_eq!(buffer_count(Some(100), 1024 * MIB, 1 << 20).ok(), Some(100));
        let e = buffer_count(Some(4096), 1024 * MIB, 1 << 20).expect_err("4 GiB");
        assert!(
            matches!(
                e,
                GrabError::BufferMemory {
                    buffers: 4096,
                    fit: 1024,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(
            e.to_string().contains("at most 1024 such frames fit"),
            "{e}"
        );
        assert!(buffer_count(Some(2), 1024 * MIB, 0).is_ok());
    }

    #[test]
    fn retention_follows_the_transport_unless_given() {
        let udp = GrabConfig::new("cam");
        assert_eq!(udp.assembler(1000).frame_retention_ns, 100_000_000);
        let tcp = GrabConfig {
            transport: Transport::Tcp,
            ..GrabConfig::new("cam")
        };
        assert_eq!(tcp.assembler(1000).frame_retention_ns, 3_000_000_000);
        let given = GrabConfig {
            retention: Some(Duration::from_millis(7)),
            ..tcp
        };
        assert_eq!(given.assembler(1000).frame_retention_ns, 7_000_000);
        let a = udp.assembler(1000);
        assert_eq!(a.resend.initial_timeout_ns, 300_000);
        assert_eq!(a.resend.repeat_timeout_ns, 5_000_000);
        assert_eq!(a.resend.tail_timeout_ns, 1_000_000);
    }

    #[test]
    fn a_trigger_rate_must_be_positive_and_finite() {
        let mut c = GrabConfig {
            trigger_software: true,
            ..GrabConfig::new("cam")
        };
        assert_eq!(
            c.trigger_period().ok().flatten(),
            Some(Duration::from_millis(100))
        );
        for fps in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-300] {
            c.fps = Some(fps);
            assert!(
                matches!(c.trigger_period(), Err(GrabError::TriggerRate { .. })),
                "{fps}"
            );
        }
        c.trigger_software = false;
        assert_eq!(c.trigger_period().ok(), Some(None));
    }

    #[test]
    fn the_pattern_follows_the_vendor_unless_given() {
        let auto = GrabConfig::new("cam");
        assert_eq!(auto.pattern_for("Aravis"), Pattern::AravisRamp);
        assert_eq!(auto.pattern_for("linerate"), Pattern::Linerate);
        let fixed = GrabConfig {
            pattern: Some(Pattern::Linerate),
            ..auto
        };
        assert_eq!(fixed.pattern_for("Aravis"), Pattern::Linerate);
    }
}
