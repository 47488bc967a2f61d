//! `linerate camera`: runs the emulated GigE Vision camera of
//! `linerate_device::camera` until Ctrl-C or SIGTERM, with its start-up
//! line, status lines and events on stderr and its report (`--json`) on
//! stdout.

use std::net::Ipv4Addr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use linerate_device::camera::{
    self, supported_pixel_formats, CameraConfig, CameraCounters, CameraEvent, CameraInfo,
    CameraReport, EventSink,
};
use linerate_wire::PixelFormat;

/// Arguments of `linerate camera`.
#[derive(Debug, Args)]
pub struct CameraArgs {
    /// IPv4 address of the interface the camera answers on (GVCP port 3956).
    #[arg(long)]
    pub bind: Ipv4Addr,
    /// Serial number reported in discovery (default: derived from the address).
    #[arg(long)]
    serial: Option<String>,
    /// Initial image width in pixels, 16..=8192 (a multiple of 4).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(16..=8192))]
    width: u32,
    /// Initial image height in lines, 1..=8192.
    #[arg(long, default_value_t = 768, value_parser = clap::value_parser!(u32).range(1..=8192))]
    height: u32,
    /// Initial pixel format: Mono8, Mono10, Mono12, Mono16, BayerRG8, BayerGR8 or RGB8.
    #[arg(long, default_value = "Mono8")]
    pixel_format: String,
    /// Initial frame rate in frames per second, 0.1..=10000.
    #[arg(long, default_value_t = 25.0, value_parser = crate::arg_range::float_in(0.1f32..=10_000.0))]
    fps: f32,
    /// Initial GVSP packet size (SCPS: IP + UDP + GVSP headers + data), 576..=16000.
    #[arg(long, default_value_t = 1500, value_parser = clap::value_parser!(u32).range(576..=16_000))]
    packet_size: u32,
    /// Most frames kept for packet resend requests, 1..=1024; fewer when
    /// they would exceed --resend-memory (at least one is always kept).
    #[arg(long, default_value_t = 16, value_parser = crate::arg_range::usize_in(1..=1024))]
    resend_frames: usize,
    /// Most memory the resend buffer may hold, in bytes (suffixes k, m, g:
    /// binary), 1MiB..=1024GiB. Frames bigger than this still keep one
    /// frame. The memory is given back when acquisition stops.
    #[arg(long, default_value = "256MiB", value_name = "BYTES",
          value_parser = crate::arg_range::bytes_in(crate::arg_range::MIB..=1024 * crate::arg_range::GIB))]
    resend_memory: u64,
    /// UDP source port of the stream (0: let the kernel choose). A fixed
    /// port lets firewalls and loss rules select the stream.
    #[arg(long, default_value_t = 0)]
    stream_port: u16,
    /// GVCP port to listen on, 1..=65535 (3956 is the standard's).
    #[arg(long, default_value_t = linerate_wire::gvcp::PORT, value_parser = clap::value_parser!(u16).range(1..))]
    port: u16,
    /// Print a status line every this many seconds, 0..=86400 (0: never).
    #[arg(long, default_value_t = 5.0, value_parser = crate::arg_range::secs_in(0.0..=86_400.0))]
    stats_interval: f64,
    /// Send one datagram per packet, never UDP GSO super-datagrams (for
    /// comparison). By default GSO is used only where the egress interface
    /// cuts super-datagrams into standard datagrams before the wire (a
    /// NIC); on veth, loopback, bridges, tun and unknown devices, which
    /// pass them through whole, every packet is its own datagram anyway.
    #[arg(long)]
    no_gso: bool,
    /// On the TCP transport, send frame data with MSG_ZEROCOPY (the kernel
    /// sends from the frame buffers instead of copying them; it may still
    /// copy, e.g. to a socket on the same machine, and `--json` counts that).
    #[arg(long)]
    tcp_zerocopy: bool,
    /// TCP send buffer (SO_SNDBUF) in bytes, 4096..=1073741824. Default: the
    /// kernel's autotuning (net.ipv4.tcp_wmem), as iperf3 uses; a fixed
    /// buffer turns autotuning off.
    #[arg(long, value_parser = crate::arg_range::bytes_usize_in(4096..=crate::arg_range::GIB))]
    tcp_send_buffer: Option<usize>,
    /// On exit, print the counters as one JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// Run on this CPU only, as `taskset -c N` would (every thread of the
    /// command): 0..=4095, 0 is the first CPU, and it must be online.
    #[arg(long, value_parser = crate::arg_range::online_cpu())]
    cpu: Option<usize>,
}

impl CameraArgs {
    /// The library's configuration for these arguments; camera events go
    /// to stderr as `camera: ...` lines.
    pub fn config(&self) -> Result<CameraConfig> {
        let pixel_format = PixelFormat::from_name(&self.pixel_format)
            .filter(|f| supported_pixel_formats().contains(f))
            .with_context(|| {
                format!(
                    "unknown --pixel-format {:?}: use Mono8, Mono10, Mono12, Mono16, BayerRG8, BayerGR8 or RGB8",
                    self.pixel_format
                )
            })?;
        Ok(CameraConfig {
            bind: self.bind,
            port: self.port,
            serial: self.serial.clone(),
            width: self.width,
            height: self.height,
            pixel_format,
            frame_rate: self.fps,
            packet_size: self.packet_size,
            resend_frames: self.resend_frames,
            resend_memory: usize::try_from(self.resend_memory).unwrap_or(usize::MAX),
            stream_port: self.stream_port,
            gso: !self.no_gso,
            tcp_zerocopy: self.tcp_zerocopy,
            tcp_send_buffer: self.tcp_send_buffer,
            events: EventSink::new(print_event),
        })
    }
}

/// Writes a camera event on stderr; after a FORCEIP move, the start-up
/// line for the new address follows.
fn print_event(event: &CameraEvent) {
    eprintln!("camera: {event}");
    if let CameraEvent::Moved { info, .. } = event {
        eprintln!("{}", start_line(info));
    }
}

/// "camera: serial ... at ...; Ctrl-C to stop".
fn start_line(info: &CameraInfo) -> String {
    format!(
        "camera: serial {} at {} (stream source port {}), MAC {}; UDP send: {}; Ctrl-C to stop",
        info.serial, info.control, info.stream_source_port, info.mac, info.udp_send
    )
}

/// A status line: rates since the last one, and the skip and resend totals.
fn status_line(now: &CameraCounters, last: &CameraCounters, dt: f64) -> String {
    format!(
        "camera: {}: {:.1} frames/s, {:.2} Gbit/s, {} skipped, {} resent, {} unavailable",
        if now.tcp { "GVSP/TCP" } else { "GVSP/UDP" },
        now.frames_sent.saturating_sub(last.frames_sent) as f64 / dt,
        now.bytes_sent.saturating_sub(last.bytes_sent) as f64 * 8.0 / dt / 1e9,
        now.frames_skipped,
        now.packets_resent,
        now.resend_unavailable,
    )
}

/// Runs `linerate camera` until SIGINT or SIGTERM.
pub fn run(args: CameraArgs) -> Result<()> {
    crate::pin_process(args.cpu)?;
    let stop = crate::stop_signal::on_sigint_or_sigterm()?;
    let camera = camera::spawn(args.config()?)?;
    eprintln!("{}", start_line(&camera.info()));
    let mut last_stats = Instant::now();
    let mut last = CameraCounters::default();
    while !stop.load(Ordering::Relaxed) && !camera.is_finished() {
        std::thread::sleep(Duration::from_millis(50));
        if args.stats_interval > 0.0 && last_stats.elapsed().as_secs_f64() >= args.stats_interval {
            let dt = last_stats.elapsed().as_secs_f64();
            let now = camera.counters();
            if now.frames_sent != last.frames_sent {
                eprintln!("{}", status_line(&now, &last, dt));
            }
            last = now;
            last_stats = Instant::now();
        }
    }
    let report = camera.stop()?;
    if args.json {
        crate::json_println!("{}", serde_json::to_value(&report)?);
    } else {
        eprintln!("{}", stopped_line(&report));
    }
    Ok(())
}

/// The summary printed on exit without `--json`.
fn stopped_line(r: &CameraReport) -> String {
    format!(
        "camera: stopped after {:.1} s: {} frames sent, {} skipped, {} packets resent; \
         GVCP commands refused: {} from the controller's IP on another port, {} from other hosts",
        r.seconds,
        r.frames_sent,
        r.frames_skipped,
        r.packets_resent,
        r.gvcp_access_denied.controller_ip_other_port,
        r.gvcp_access_denied.other_hosts
    )
}
