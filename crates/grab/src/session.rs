//! `linerate grab`: receive frames from a GigE Vision camera, verify them,
//! and report what arrived, what was lost and what it cost in CPU.

use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use linerate_gev::assembler::Config as AssemblerConfig;
use linerate_gev::assembler::FrameStatus;
use linerate_grab::receive::{Backend, Transport};
use linerate_grab::stream::{Buffer, StreamStats};
use linerate_grab::verify::{Pattern, Verifier};
use linerate_grab::{Camera, ControlConfig, StreamOptions};
use linerate_metrics::{
    CpuSnapshot, KernelDrops, KernelDropsDelta, LatencyHistogram, LatencySummary, ThreadCpuUsage,
};
use serde::Serialize;

/// How long an unfinished frame is kept after its last packet over UDP,
/// where a lost packet may never come (`--retention-ms`).
const UDP_FRAME_RETENTION_MS: u64 = 100;

/// Arguments of `linerate grab`.
#[derive(Debug, Args, Clone)]
pub struct GrabArgs {
    /// Camera: IPv4 address, IP:PORT (a device on another GVCP port than
    /// 3956), or serial number / user name (found by discovery).
    pub camera: String,
    /// Frames to receive; the run stops after this many (complete or not),
    /// or at --duration if that comes first; 0..=4294967295 (0: no frame
    /// limit, until --duration, Ctrl-C or SIGTERM). With --duration alone
    /// there is no frame limit.
    #[arg(long, default_value_t = 100,
          default_value_if("duration", clap::builder::ArgPredicate::IsPresent, Some("0")),
          value_parser = crate::arg_range::u64_in(0..=u64::from(u32::MAX)))]
    pub frames: u64,
    /// Seconds to receive for (also with --frames: whichever ends first),
    /// 0.001..=31536000 (a year).
    #[arg(long, value_parser = crate::arg_range::secs_in(0.001..=31_536_000.0))]
    pub duration: Option<f64>,
    /// Set the Width feature before starting (1..=65535).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65_535))]
    pub width: Option<u32>,
    /// Set the Height feature before starting (1..=65535).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65_535))]
    pub height: Option<u32>,
    /// Set the AcquisitionFrameRate feature (frames per second); with
    /// --trigger-software, the rate at which triggers are sent instead.
    /// 0.001..=1000000.
    #[arg(long, value_parser = crate::arg_range::float_in(0.001..=1_000_000.0))]
    pub fps: Option<f64>,
    /// Put the camera in software-trigger mode (TriggerMode On, source
    /// Software) and send one TriggerSoftware command at a time, at --fps
    /// (default 10) Hz, waiting for its frame: the report gains the
    /// command-sent → frame-delivered latency.
    #[arg(long)]
    pub trigger_software: bool,
    /// UDP: stream packet size in bytes (SCPS: IP + UDP + GVSP headers +
    /// data, 576..=16000). TCP: transfer size, the image bytes per record
    /// (512..=16777216; the camera's LinerateTransferSize feature).
    #[arg(long, value_parser = clap::value_parser!(u32).range(512..=16_777_216))]
    pub packet_size: Option<u32>,
    /// UDP: gap between the camera's stream packets in nanoseconds (the
    /// SCPD register), to pace a camera to its link: 6400 paces
    /// 8000-byte packets to 10 Gbit/s; 0..=4294967295 (0: no gap; the
    /// register holds 32 bits).
    /// Default: the camera's setting.
    #[arg(long, value_name = "NS", value_parser = crate::arg_range::u64_in(0..=u64::from(u32::MAX)))]
    pub packet_delay: Option<u64>,
    /// Stream transport: udp (GVSP, any camera) or tcp (linerate's GVSP
    /// records on TCP: no loss, no resends; needs a camera with the
    /// LinerateTransport feature, such as `linerate camera`).
    #[arg(long, default_value = "udp")]
    pub transport: Transport,
    /// Set the PixelFormat feature (e.g. Mono8).
    #[arg(long)]
    pub pixel_format: Option<String>,
    /// Receive backend: mmsg (one copy, default), copy (two copies,
    /// baseline) or ring (PF_PACKET ring as Aravis uses; needs root).
    #[arg(long, default_value = "mmsg")]
    pub backend: Backend,
    /// Check every frame's test pattern (frame number and checksum for
    /// linerate's camera, the diagonal ramp for Aravis's fake camera);
    /// mismatches count as frames_corrupt.
    #[arg(long)]
    pub verify: bool,
    /// Pattern to verify against: auto (from the camera's vendor), linerate or aravis.
    #[arg(long, default_value = "auto")]
    pub pattern: String,
    /// Save every complete frame into this directory (created if missing; its
    /// parent must exist): PNG for Mono8, Bayer8, RGB8 and Mono16, TIFF with
    /// the camera's metadata for Mono10/Mono12, raw bytes otherwise; named
    /// frame-INDEX-block-ID.EXT, never overwriting a file.
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Print one JSON object with the results instead of text.
    #[arg(long)]
    pub json: bool,
    /// The local interface facing the camera, by name (eth1) or by one of
    /// its IPv4 addresses (default: from the routing table).
    #[arg(long, value_parser = crate::interface_arg::ipv4_address)]
    pub interface: Option<Ipv4Addr>,
    /// Frame buffers lent to the stream, 2..=4096 [default: 16, fewer when
    /// 16 frames exceed --buffer-memory]. Given explicitly, buffers ×
    /// PayloadSize must fit --buffer-memory.
    #[arg(long, value_parser = crate::arg_range::usize_in(2..=4096))]
    pub buffers: Option<usize>,
    /// Most memory the frame buffers may take, in bytes (suffixes k, m, g:
    /// binary), 1MiB..=1024GiB.
    #[arg(long, default_value = "1GiB", value_name = "BYTES",
          value_parser = crate::arg_range::bytes_in(crate::arg_range::MIB..=1024 * crate::arg_range::GIB))]
    pub buffer_memory: u64,
    /// Pin the receive thread to this CPU (0..=4095; 0 is the first CPU).
    #[arg(long, value_parser = crate::arg_range::online_cpu())]
    pub cpu: Option<usize>,
    /// Local UDP port for the stream (0: any free port). A fixed port lets
    /// firewall and loss rules select the stream.
    #[arg(long, default_value_t = 0)]
    pub stream_port: u16,
    /// SO_BUSY_POLL in microseconds (spin instead of sleeping; NAPI drivers
    /// only), 0..=1000000 (0: off).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub busy_poll: Option<u32>,
    /// Receive moderation in microseconds (0: off): after a receive that did
    /// not fill a batch, sleep this long so the packets arriving meanwhile are
    /// taken with one wakeup and one syscall. Adds at most this much latency;
    /// UDP only. Default 0 (off): on the veth bench it cost more CPU than
    /// it saved. At most 100000.
    #[arg(long, value_name = "US", value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub coalesce_us: Option<u32>,
    /// Do not connect the stream socket to the camera's source port (SCSP);
    /// by default it is connected when the camera reports the port.
    #[arg(long)]
    pub no_connect: bool,
    /// mmsg: leave UDP GRO off (by default it is on, and coalesced trains
    /// are taken whole where the network device does GRO).
    #[arg(long)]
    pub no_gro: bool,
    /// Never ask the camera to resend lost packets.
    #[arg(long)]
    pub no_resend: bool,
    /// Microseconds a gap may stay open before the first resend request,
    /// 0..=10000000 (0: at once).
    #[arg(long, default_value_t = 300, value_parser = crate::arg_range::u64_in(0..=10_000_000))]
    pub resend_initial_us: u64,
    /// Milliseconds before asking again for the same packets, 1..=60000.
    #[arg(long, default_value_t = 5, value_parser = crate::arg_range::u64_in(1..=60_000))]
    pub resend_repeat_ms: u64,
    /// Most packets per frame requested and left unanswered, as a fraction
    /// of the frame's packets (repeats count again; each resent packet
    /// that arrives gives its id back), 0..=4 (0: none).
    #[arg(long, default_value_t = 2.0, value_parser = crate::arg_range::float_in(0.0..=4.0))]
    pub resend_ratio: f64,
    /// Microseconds of silence after a frame's last packet before its
    /// missing tail and trailer are requested (at least 16 of the frame's
    /// packet gaps), 0..=10000000; 0 waits for the next frame to start.
    #[arg(long, default_value_t = 1000, value_parser = crate::arg_range::u64_in(0..=10_000_000))]
    pub resend_tail_us: u64,
    /// Milliseconds an unfinished frame is kept after its last packet,
    /// 1..=60000. When not given: 100 over UDP; over TCP, where every byte
    /// of a frame arrives while the connection lives, --frame-timeout (a
    /// busy host may pause delivery longer than 100 ms without losing a
    /// byte).
    #[arg(long, value_parser = crate::arg_range::u64_in(1..=60_000))]
    pub retention_ms: Option<u64>,
    /// Seconds to wait for a frame before giving up, 0.01..=3600.
    #[arg(long, default_value_t = 3.0, value_parser = crate::arg_range::secs_in(0.01..=3600.0))]
    pub frame_timeout: f64,
}

impl GrabArgs {
    /// `linerate grab CAMERA` with every other option at its command-line
    /// default, so callers that change a few (the demo) share one set of
    /// defaults with the command.
    pub fn defaults_for(camera: &str) -> Result<GrabArgs> {
        #[derive(clap::Parser)]
        struct Command {
            #[command(flatten)]
            args: GrabArgs,
        }
        Ok(
            <Command as clap::Parser>::try_parse_from(["grab", "--", camera])
                .with_context(|| format!("grab arguments for camera {camera:?}"))?
                .args,
        )
    }
}

/// Results of a grab, as printed with --json.
#[derive(Debug, Clone, Serialize)]
pub struct GrabReport {
    /// Camera vendor.
    pub vendor: String,
    /// Camera model.
    pub model: String,
    /// Transport used: udp or tcp.
    pub transport: String,
    /// Backend used (UDP; "tcp" for the TCP transport).
    pub backend: String,
    /// Frames asked for (0 with --duration).
    pub frames_requested: u64,
    /// Frames delivered with every byte.
    pub frames_completed: u64,
    /// Frames delivered with bytes missing.
    pub frames_incomplete: u64,
    /// Complete frames that failed verification.
    pub frames_corrupt: u64,
    /// Complete frames that passed verification.
    pub frames_verified: u64,
    /// Of the incomplete frames, those with a conflict: a packet arrived
    /// twice with different bytes, so one copy was forged (or the camera is
    /// broken). Never saved or counted good.
    pub frames_conflict: u64,
    /// Blocks dropped for want of a free buffer.
    pub underruns: u64,
    /// Datagrams handed to the assembler.
    pub packets_received: u64,
    /// Packets still missing in incomplete frames.
    pub packets_missing: u64,
    /// Packets that arrived twice.
    pub packets_duplicate: u64,
    /// Retransmitted packets that filled a gap.
    pub packets_resent: u64,
    /// Duplicates whose bytes differed from the copy already placed.
    pub packets_conflict: u64,
    /// Packets of new blocks far outside the expected block ids (stray or
    /// forged): ignored, never given a buffer or a resend request.
    pub packets_out_of_window: u64,
    /// Packets with the id form (standard or extended) the stream did not
    /// negotiate: ignored.
    pub packets_wrong_id_form: u64,
    /// First transmissions of packets for frames already delivered
    /// complete: what the camera's packets look like when a forger's
    /// copies completed a frame first, but also originals overtaken by
    /// their own resends on a loaded host (a hint, not proof).
    pub packets_after_complete: u64,
    /// Packets ignored (malformed, late, out of bounds, foreign source).
    pub packets_ignored: u64,
    /// Resend requests sent.
    pub resend_requests: u64,
    /// Payload bytes received.
    pub bytes: u64,
    /// Wall-clock seconds from acquisition start to the last frame.
    pub seconds: f64,
    /// Payload throughput; null when the run was too short for a rate to
    /// mean anything (fewer than 2 frames or under 10 ms).
    pub gbit_per_s: Option<f64>,
    /// CPU seconds (user + system, all threads) this process used during
    /// the run: linerate's own cost, unlike the machine-wide cpu_* figures.
    pub process_cpu_seconds: f64,
    /// The machine's busiest core during the run (all processes, from
    /// /proc/stat), busy percentage.
    pub cpu_busy_core_pct: f64,
    /// Which core was busiest (null when /proc/stat could not be read).
    pub cpu_busy_core: Option<usize>,
    /// Of the busiest core's time, the percentage in soft interrupts
    /// (NAPI, RPS, the receive protocol stack), tick-sampled.
    pub cpu_busy_core_softirq_pct: f64,
    /// Average busy percentage over all cores (all processes).
    pub cpu_avg_pct: f64,
    /// Machine-wide CPU-seconds (all cores, all processes) per GB of payload.
    pub cpu_seconds_per_gb: f64,
    /// Receive syscalls that returned data.
    pub syscalls: u64,
    /// mmsg: payload packets the kernel wrote straight into the frame.
    pub packets_placed_in_frame: u64,
    /// Datagrams copied through a staging buffer.
    pub packets_copied: u64,
    /// mmsg: receives that returned a coalesced train (UDP GRO).
    pub gro_trains: u64,
    /// Datagrams the kernel dropped before the receiver saw them (socket
    /// buffer full, or the ring's drop count).
    pub kernel_drops: u64,
    /// Datagrams from other addresses, dropped.
    pub packets_foreign: u64,
    /// Receive buffer granted, bytes.
    pub recv_buffer: usize,
    /// Frame buffers lent to the stream (--buffers, or as many of the
    /// default 16 as fit --buffer-memory).
    pub buffers: usize,
    /// TCP: connections the camera opened to us.
    pub tcp_connections: u64,
    /// TCP: connections that ended while receiving (each leaves the frames
    /// then in flight incomplete).
    pub tcp_connections_lost: u64,
    /// TCP: bytes that went through a staging buffer (unpredicted records).
    pub tcp_bytes_copied: u64,
    /// Host settings in force that change what the stream costs.
    pub host: HostTuning,
    /// Complete frames' delivery latency: the receive thread reading the
    /// frame's last packet → `Stream::wait` returning it to this program.
    pub frame_delivery_latency_us: LatencySummary,
    /// With --trigger-software: TriggerSoftware command sent → its frame
    /// returned complete (the GVCP round trip, the camera's work, the
    /// frame on the wire and its delivery). Null otherwise.
    pub trigger_to_frame_latency_us: Option<LatencySummary>,
    /// CPU time of the receive thread alone (user + system, from
    /// /proc/self/task/TID/stat) over the stream's lifetime. On veth,
    /// softirq work can be billed to it: see docs/grab.md.
    pub receive_thread_cpu: Option<ThreadCpuUsage>,
    /// Growth of the kernel's drop counters during the run (UDP receive
    /// buffer errors, interface rx drops, softnet backlog drops); null when
    /// /proc/net could not be read. `kernel_drops` above is the receive
    /// backend's own count.
    pub kernel_drop_counters: Option<KernelDropsDelta>,
    /// Peak resident memory of this process (VmHWM), MiB: stays flat
    /// whatever the stream sends, since buffers are allocated up front.
    pub max_rss_mib: f64,
    /// Missing byte ranges of the first incomplete frames (block id, ranges), at most 16.
    pub incomplete_examples: Vec<IncompleteFrame>,
    /// First verification failures, at most 16.
    pub corrupt_examples: Vec<String>,
    /// Why the run ended early (control lost, connection closed,
    /// "interrupted by SIGINT"...), if it did.
    pub error: Option<String>,
    /// The signal that ended the run, if one did.
    #[serde(skip)]
    pub interrupted: Option<crate::stop_signal::Interrupted>,
    /// True when every frame asked for arrived complete (and verified with
    /// --verify) and nothing ended the run early.
    pub ok: bool,
}

/// The receiving host's settings that matter for throughput and loss,
/// read at the end of the run, so a report says what was in force.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HostTuning {
    /// Interface facing the camera.
    pub interface: String,
    /// Its MTU.
    pub mtu: u32,
    /// Generic receive offload on the interface (null: not reported).
    pub gro: Option<bool>,
    /// Large receive offload on the interface (null: not reported).
    pub lro: Option<bool>,
    /// net.core.rmem_max: the largest receive buffer an unprivileged socket may ask for.
    pub rmem_max: Option<u64>,
    /// net.ipv4.tcp_rmem: min, default and max TCP receive buffer.
    pub tcp_rmem: Option<String>,
    /// net.core.netdev_max_backlog: packets queued per CPU before drops.
    pub netdev_max_backlog: Option<u64>,
}

impl HostTuning {
    /// Reads the settings for the interface that owns `local_ip`.
    fn read(local_ip: Ipv4Addr) -> HostTuning {
        let sysctl = |path: &str| {
            std::fs::read_to_string(path)
                .ok()
                .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        };
        let number = |path: &str| sysctl(path).and_then(|s| s.parse().ok());
        let (interface, offloads) = match linerate_io::netdev::Link::owning(local_ip) {
            Ok(link) => {
                let o = linerate_io::netdev::offloads(&link.name).unwrap_or_default();
                (link.name, o)
            }
            Err(_) => (String::new(), linerate_io::netdev::Offloads::default()),
        };
        HostTuning {
            interface,
            mtu: offloads.mtu,
            gro: offloads.gro,
            lro: offloads.lro,
            rmem_max: number("/proc/sys/net/core/rmem_max"),
            tcp_rmem: sysctl("/proc/sys/net/ipv4/tcp_rmem"),
            netdev_max_backlog: number("/proc/sys/net/core/netdev_max_backlog"),
        }
    }
}

/// One incomplete frame, for the report.
#[derive(Debug, Clone, Serialize)]
pub struct IncompleteFrame {
    /// Block id.
    pub block_id: u64,
    /// Why it is incomplete.
    pub status: String,
    /// Missing byte ranges `[start, end)`.
    pub missing: Vec<(usize, usize)>,
    /// The leader never arrived.
    pub leader_missing: bool,
    /// The trailer never arrived.
    pub trailer_missing: bool,
}

/// Runs `linerate grab`. With --json, stdout gets one JSON object also
/// when the grab cannot start (`{"error": ..., "ok": false}`). On SIGINT or
/// SIGTERM the camera is stopped and released, the report printed, and the
/// error is [`Interrupted`](crate::stop_signal::Interrupted).
pub fn run(args: GrabArgs) -> Result<()> {
    let json = args.json;
    let report = match grab(&args, !json) {
        Ok(r) => r,
        Err(e) if json => {
            crate::json_println!(
                "{}",
                serde_json::json!({ "error": format!("{e:#}"), "ok": false })
            );
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    if json {
        crate::json_println!("{}", serde_json::to_string(&report)?);
    } else {
        print_summary(&report);
    }
    if let Some(i) = report.interrupted {
        return Err(anyhow::Error::new(i).context(format!(
            "stopped the camera and released it after {} complete and {} incomplete frames",
            report.frames_completed, report.frames_incomplete
        )));
    }
    if let Some(e) = &report.error {
        bail!(
            "{e} (after {} complete and {} incomplete frames)",
            report.frames_completed,
            report.frames_incomplete
        );
    }
    if !report.ok {
        bail!(
            "{} of {} frames incomplete, {} corrupt, {} dropped for want of a free buffer (try --buffers)",
            report.frames_incomplete,
            report.frames_completed + report.frames_incomplete,
            report.frames_corrupt,
            report.underruns
        );
    }
    Ok(())
}

/// Opens the camera, grabs as `args` say, and returns the report. Shows a
/// progress bar on a terminal when `progress` is set.
pub fn grab(args: &GrabArgs, progress: bool) -> Result<GrabReport> {
    // From here on a signal ends the run in order: acquisition stopped,
    // control released, the report printed.
    let interrupt = crate::stop_signal::Interrupt::install()?;
    let control = ControlConfig {
        local: args.interface,
        ..ControlConfig::default()
    };
    let mut camera = Camera::open(&args.camera, &control)
        .with_context(|| format!("opening camera {}", args.camera))?;
    if let Some(i) = interrupt.signal() {
        return Err(i.into());
    }
    configure(&mut camera, args)?;
    let pattern = match args.pattern.as_str() {
        "linerate" => Pattern::Linerate,
        "aravis" => Pattern::AravisRamp,
        "auto" if camera.info().vendor.eq_ignore_ascii_case("aravis") => Pattern::AravisRamp,
        "auto" => Pattern::Linerate,
        other => bail!("--pattern {other:?}: expected auto, linerate or aravis"),
    };
    let payload = camera.payload_size().context("reading PayloadSize")?;
    let mut assembler = AssemblerConfig::new(payload);
    assembler.resend.enabled = !args.no_resend;
    assembler.resend.initial_timeout_ns = args.resend_initial_us.saturating_mul(1_000);
    assembler.resend.repeat_timeout_ns = args.resend_repeat_ms.saturating_mul(1_000_000);
    assembler.frame_retention_ns = match args.retention_ms {
        Some(ms) => ms.saturating_mul(1_000_000),
        None if args.transport == Transport::Tcp => (args.frame_timeout * 1e9) as u64,
        None => UDP_FRAME_RETENTION_MS * 1_000_000,
    };
    assembler.resend.request_ratio = args.resend_ratio;
    assembler.resend.tail_timeout_ns = args.resend_tail_us.saturating_mul(1_000);
    let buffers = buffer_count(args.buffers, args.buffer_memory, payload)?;
    let tcp = args.transport == Transport::Tcp;
    let options = StreamOptions {
        transport: args.transport,
        transfer_size: if tcp { args.packet_size } else { None },
        backend: args.backend,
        max_buffers: buffers,
        cpu: args.cpu,
        busy_poll_us: args.busy_poll,
        coalesce_us: args.coalesce_us,
        assembler: Some(assembler),
        port: args.stream_port,
        connect: !args.no_connect,
        gro: !args.no_gro,
        ..StreamOptions::default()
    };
    if args.trigger_software && !args.fps.map_or(true, |f| f.is_finite() && f > 0.0) {
        bail!("--fps must be a positive rate with --trigger-software");
    }
    let mut stream = camera.stream(&options).context("opening the stream")?;
    let stream_started = Instant::now();
    let link = linerate_io::netdev::Link::owning(camera.local_ip()).ok();
    let drops_before = KernelDrops::read(link.as_ref().map(|l| l.name.as_str())).ok();
    let trigger_period = args
        .trigger_software
        .then(|| Duration::from_secs_f64(1.0 / args.fps.unwrap_or(10.0)));
    let mut trigger_latency = LatencyHistogram::new();
    let mut next_trigger = Instant::now();
    for _ in 0..buffers {
        stream.queue(Buffer::new(payload))?;
    }
    if let Some(dir) = &args.save {
        linerate_grab::save::prepare_directory(dir)?;
    }
    let target = args.frames;
    let duration = args.duration.map(Duration::from_secs_f64);
    crate::console::say(format_args!(
        "grab: camera {} ({} {}), {payload}-byte frames over {} to {}:{}, {}",
        args.camera,
        camera.info().vendor,
        camera.info().model,
        args.transport.name(),
        camera.local_ip(),
        stream.port(),
        crate::console::until(Some(target), args.duration),
    ));
    let bar = progress_bar(progress, target, duration);
    let mut verifier = args.verify.then(|| Verifier::new(pattern));
    let mut tally = Tally::default();
    let cpu_before = CpuSnapshot::take().ok();
    let process_cpu_before = crate::usage::process_cpu_seconds();
    let started = Instant::now();
    camera.start().context("starting acquisition")?;
    let frame_timeout = Duration::from_secs_f64(args.frame_timeout.max(0.01));
    let mut error = None;
    let mut interrupted = None;
    loop {
        if let Some(i) = interrupt.signal() {
            interrupted = Some(i);
            break;
        }
        let delivered = tally.completed + tally.incomplete;
        if target > 0 && delivered >= target {
            break;
        }
        if duration.is_some_and(|d| started.elapsed() >= d) {
            break;
        }
        let mut triggered_at = None;
        if let Some(period) = trigger_period {
            let now = Instant::now();
            if next_trigger > now && !sleep_unless_interrupted(next_trigger - now, &interrupt) {
                continue;
            }
            next_trigger = next_trigger.max(now) + period;
            triggered_at = Some(linerate_grab::clock::now_ns());
            if let Err(e) = camera.execute("TriggerSoftware") {
                error = Some(anyhow::Error::new(e).context("sending TriggerSoftware"));
                break;
            }
        }
        let buffer = match wait_frame(&stream, frame_timeout, tcp, &interrupt) {
            Ok(Some(b)) => b,
            Ok(None) => continue,
            Err(e) => {
                // Frames stopped: if someone else stopped or redirected the
                // stream, say so instead of "no frame within ...".
                let stalled_or_interfered = matches!(
                    e.downcast_ref::<linerate_grab::Error>(),
                    Some(
                        linerate_grab::Error::Timeout(_)
                            | linerate_grab::Error::ControlInterference { .. }
                    )
                );
                error = Some(match camera.check_interference() {
                    Err(found) if stalled_or_interfered => anyhow::Error::new(found),
                    _ => e,
                });
                break;
            }
        };
        if let Some(t) = triggered_at.filter(|_| buffer.is_complete()) {
            trigger_latency.record_between_ns(t, linerate_grab::clock::now_ns());
        }
        tally.take(&buffer, verifier.as_mut(), args.save.as_deref());
        stream.queue(buffer)?;
        if let Some(bar) = &bar {
            if target > 0 {
                bar.set_position(tally.completed + tally.incomplete);
            } else if duration.is_some() {
                bar.set_position(started.elapsed().as_secs());
            }
            bar.set_message(format!(
                "{} complete, {} incomplete, {:.2} Gbit/s",
                tally.completed,
                tally.incomplete,
                gbit(
                    stream.stats().assembler.bytes_received,
                    started.elapsed().as_secs_f64()
                )
            ));
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_before.and_then(|b| CpuSnapshot::take().ok().map(|a| a.delta_since(&b)));
    let process_cpu_seconds = crate::usage::process_cpu_seconds() - process_cpu_before;
    let _ = camera.stop();
    if args.trigger_software {
        let _ = camera.set("TriggerMode", "Off");
    }
    let stats = stream.stop();
    let stream_seconds = stream_started.elapsed();
    let drops_after = KernelDrops::read(link.as_ref().map(|l| l.name.as_str())).ok();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // When an error ended the run, the frames delivered meanwhile (e.g.
    // those a lost connection left incomplete) are accounted for too.
    // After a normal end, frames beyond the target are not counted.
    if error.is_some() {
        for buffer in stream.drain() {
            tally.take(&buffer, verifier.as_mut(), args.save.as_deref());
        }
    }
    let mut report = report(&camera, args, target, &tally, &stats, seconds, cpu);
    report.host = HostTuning::read(camera.local_ip());
    report.process_cpu_seconds = process_cpu_seconds;
    report.buffers = buffers;
    report.frame_delivery_latency_us = stream.delivery_latency();
    report.trigger_to_frame_latency_us = args.trigger_software.then(|| trigger_latency.summary());
    report.receive_thread_cpu = stream.receive_thread_cpu().map(|t| t.usage(stream_seconds));
    report.kernel_drop_counters = drops_before
        .zip(drops_after)
        .map(|(b, a)| a.delta_since(&b));
    if let Some(e) = error {
        report.error = Some(format!("{e:#}"));
        report.ok = false;
    }
    if let Some(i) = interrupted {
        report.error = Some(i.to_string());
        report.interrupted = Some(i);
        report.ok = false;
    }
    Ok(report)
}

/// Buffers used by default, when 16 frames fit the memory budget.
const DEFAULT_BUFFERS: usize = 16;
/// The stream needs one buffer being filled and one being read.
const MIN_BUFFERS: usize = 2;

/// How many frame buffers of `payload` bytes to lend the stream: the count
/// asked for, which must fit `budget` bytes, or by default 16 or as many as
/// fit (at least 2).
fn buffer_count(asked: Option<usize>, budget: u64, payload: usize) -> Result<usize> {
    let payload_bytes = (payload as u64).max(1);
    let fit = usize::try_from(budget / payload_bytes).unwrap_or(usize::MAX);
    let show = crate::arg_range::show_bytes;
    let too_big = |n: usize| {
        anyhow::anyhow!(
            "{n} buffers × {payload}-byte frames need {} bytes, more than --buffer-memory {} \
             (at most {fit} such frames fit); lower --buffers or raise --buffer-memory",
            (n as u64).saturating_mul(payload_bytes),
            show(budget),
        )
    };
    match asked {
        Some(n) if n > fit => Err(too_big(n)),
        Some(n) => Ok(n),
        None if fit < MIN_BUFFERS => Err(too_big(MIN_BUFFERS)),
        None => {
            if fit < DEFAULT_BUFFERS {
                tracing::warn!(
                    "using {fit} frame buffers instead of {DEFAULT_BUFFERS}: \
                     {payload}-byte frames, --buffer-memory {}",
                    show(budget)
                );
            }
            Ok(fit.min(DEFAULT_BUFFERS))
        }
    }
}

/// How often waits look for a signal.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Sleeps for `d`, or less when a signal comes; false if one came.
fn sleep_unless_interrupted(d: Duration, interrupt: &crate::stop_signal::Interrupt) -> bool {
    let deadline = Instant::now() + d;
    loop {
        if interrupt.signal().is_some() {
            return false;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(SIGNAL_POLL));
    }
}

/// Waits for the next frame; `None` when a signal came first. On TCP, a
/// lost stream connection ends the wait at once with an error (the camera
/// stopped or died), after the frames it left incomplete have been delivered.
fn wait_frame(
    stream: &linerate_grab::stream::Stream,
    timeout: Duration,
    tcp: bool,
    interrupt: &crate::stop_signal::Interrupt,
) -> Result<Option<Buffer>> {
    let deadline = Instant::now() + timeout;
    loop {
        if interrupt.signal().is_some() {
            return Ok(None);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match stream.wait(left.min(SIGNAL_POLL)) {
            Ok(b) => return Ok(Some(b)),
            Err(linerate_grab::Error::Timeout(_)) if !left.is_zero() => {
                let lost = tcp && stream.stats().receive.tcp.connections_lost > 0;
                if lost {
                    bail!("the camera closed the TCP stream connection");
                }
            }
            Err(linerate_grab::Error::Timeout(_)) => {
                return Err(linerate_grab::Error::Timeout(timeout).into())
            }
            Err(e) => return Err(e.into()),
        }
    }
}

fn configure(camera: &mut Camera, args: &GrabArgs) -> Result<()> {
    if let Some(p) = &args.pixel_format {
        camera
            .set("PixelFormat", p)
            .context("setting PixelFormat")?;
    }
    if let Some(w) = args.width {
        camera
            .set("Width", &w.to_string())
            .context("setting Width")?;
    }
    if let Some(h) = args.height {
        camera
            .set("Height", &h.to_string())
            .context("setting Height")?;
    }
    if args.trigger_software {
        // Older cameras have no selector; the one trigger is then implied.
        let _ = camera.set("TriggerSelector", "FrameStart");
        camera
            .set("TriggerMode", "On")
            .context("setting TriggerMode On (--trigger-software)")?;
        camera
            .set("TriggerSource", "Software")
            .context("setting TriggerSource Software (--trigger-software)")?;
    } else if let Some(f) = args.fps {
        camera
            .set("AcquisitionFrameRate", &f.to_string())
            .context("setting AcquisitionFrameRate")?;
    }
    if let Some(p) = args
        .packet_size
        .filter(|_| args.transport == Transport::Udp)
    {
        camera
            .set_packet_size(p)
            .context("setting the packet size")?;
    }
    if let Some(ns) = args
        .packet_delay
        .filter(|_| args.transport == Transport::Udp)
    {
        camera
            .set_packet_delay_ns(ns)
            .with_context(|| format!("setting the packet delay to {ns} ns"))?;
    }
    Ok(())
}

#[derive(Debug, Default)]
struct Tally {
    completed: u64,
    incomplete: u64,
    conflict: u64,
    corrupt: u64,
    verified: u64,
    incomplete_examples: Vec<IncompleteFrame>,
    corrupt_examples: Vec<String>,
    saved: u64,
}

impl Tally {
    fn take(&mut self, buffer: &Buffer, verifier: Option<&mut Verifier>, save: Option<&Path>) {
        if !buffer.is_complete() {
            self.incomplete += 1;
            if buffer.info().status == FrameStatus::Conflict {
                self.conflict += 1;
            }
            if self.incomplete_examples.len() < 16 {
                self.incomplete_examples.push(IncompleteFrame {
                    block_id: buffer.info().block_id,
                    status: format!("{:?}", buffer.info().status),
                    missing: buffer.missing().iter().map(|r| (r.start, r.end)).collect(),
                    leader_missing: buffer.info().leader_missing,
                    trailer_missing: buffer.info().trailer_missing,
                });
            }
            return;
        }
        self.completed += 1;
        if let Some(v) = verifier {
            match v.check(buffer) {
                Ok(()) => self.verified += 1,
                Err(e) => {
                    self.corrupt += 1;
                    if self.corrupt_examples.len() < 16 {
                        self.corrupt_examples.push(e.to_string());
                    }
                }
            }
        }
        if let Some(dir) = save {
            match linerate_grab::save::save_frame(dir, self.completed.saturating_sub(1), buffer) {
                Ok(_) => self.saved += 1,
                Err(e) => tracing::warn!(error = %e, "cannot save frame"),
            }
        }
    }
}

/// The live display on a terminal: a bar of frames (with --frames N), of
/// seconds (with --duration alone), or, with neither limit, a spinner with
/// the time elapsed, so a run until Ctrl-C still shows it is alive.
fn progress_bar(show: bool, frames: u64, duration: Option<Duration>) -> Option<ProgressBar> {
    if !show || !crate::console::progress_wanted() {
        return None;
    }
    let (bar, template) = match (frames, duration) {
        (0, None) => (
            ProgressBar::new_spinner(),
            "{spinner} {elapsed} (until Ctrl-C)  {msg}".to_string(),
        ),
        (0, Some(d)) => (
            ProgressBar::new(d.as_secs().max(1)),
            "{bar:30} {pos}/{len} s  {msg}".to_string(),
        ),
        (n, _) => (
            ProgressBar::new(n),
            "{bar:30} {pos}/{len} frames  {msg}".to_string(),
        ),
    };
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

/// Runs shorter than this report no throughput: the time is mostly the
/// camera starting, not the stream.
const MIN_RATE_SECONDS: f64 = 0.01;

fn gbit(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds / 1e9
    } else {
        0.0
    }
}

fn report(
    camera: &Camera,
    args: &GrabArgs,
    target: u64,
    tally: &Tally,
    stats: &StreamStats,
    seconds: f64,
    cpu: Option<linerate_metrics::CpuDelta>,
) -> GrabReport {
    let a = &stats.assembler;
    let r = &stats.receive;
    let busiest = cpu.as_ref().and_then(|c| c.busiest());
    let total = cpu.as_ref().map(|c| c.total());
    let bytes = a.bytes_received;
    let cpu_secs = total.map_or(0.0, |t| t.busy_secs);
    let delivered = tally.completed + tally.incomplete;
    let all_asked = target == 0 || delivered >= target;
    GrabReport {
        vendor: camera.info().vendor.clone(),
        model: camera.info().model.clone(),
        transport: args.transport.name().into(),
        backend: match args.transport {
            Transport::Udp => args.backend.name().into(),
            Transport::Tcp => "tcp".into(),
        },
        frames_requested: target,
        frames_completed: tally.completed,
        frames_incomplete: tally.incomplete,
        frames_corrupt: tally.corrupt,
        frames_verified: tally.verified,
        frames_conflict: tally.conflict,
        underruns: a.underruns,
        packets_received: a.packets_received,
        packets_missing: a.packets_missing,
        packets_duplicate: a.packets_duplicate,
        packets_resent: a.packets_resent,
        packets_conflict: a.packets_conflict,
        packets_out_of_window: a.packets_out_of_window,
        packets_wrong_id_form: a.packets_wrong_id_form,
        packets_after_complete: a.packets_after_complete,
        packets_ignored: a.packets_ignored + r.foreign,
        resend_requests: a.resend_requests,
        bytes,
        seconds,
        gbit_per_s: (delivered >= 2 && seconds >= MIN_RATE_SECONDS).then(|| gbit(bytes, seconds)),
        process_cpu_seconds: 0.0,
        cpu_busy_core_pct: busiest.map_or(0.0, |b| b.utilisation * 100.0),
        cpu_busy_core: busiest.and_then(|b| b.cpu),
        cpu_busy_core_softirq_pct: busiest.map_or(0.0, |b| {
            if seconds > 0.0 {
                (b.softirq_secs / seconds * 100.0).min(100.0)
            } else {
                0.0
            }
        }),
        cpu_avg_pct: total.map_or(0.0, |t| t.utilisation * 100.0),
        cpu_seconds_per_gb: if bytes > 0 {
            cpu_secs / (bytes as f64 / 1e9)
        } else {
            0.0
        },
        syscalls: r.syscalls,
        packets_placed_in_frame: r.placed_in_frame,
        packets_copied: r.copied,
        gro_trains: r.trains,
        kernel_drops: r.kernel_drops,
        packets_foreign: r.foreign,
        recv_buffer: r.recv_buffer,
        buffers: 0,
        tcp_connections: r.tcp.connections,
        tcp_connections_lost: r.tcp.connections_lost,
        tcp_bytes_copied: r.tcp.bytes_copied,
        host: HostTuning::default(),
        frame_delivery_latency_us: LatencySummary::default(),
        trigger_to_frame_latency_us: None,
        receive_thread_cpu: None,
        kernel_drop_counters: None,
        error: None,
        interrupted: None,
        max_rss_mib: peak_rss_mib(),
        incomplete_examples: tally.incomplete_examples.clone(),
        corrupt_examples: tally.corrupt_examples.clone(),
        // A block dropped for want of a buffer is a lost frame too.
        ok: all_asked
            && delivered > 0
            && tally.incomplete == 0
            && tally.conflict == 0
            && a.packets_conflict == 0
            && tally.corrupt == 0
            && a.underruns == 0,
    }
}

/// VmHWM from /proc/self/status in MiB (0 when unavailable).
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn print_summary(r: &GrabReport) {
    println!(
        "camera        {} {} ({} transport, {} backend)",
        r.vendor, r.model, r.transport, r.backend
    );
    println!(
        "frames        {} complete, {} incomplete{}",
        r.frames_completed,
        r.frames_incomplete,
        if r.frames_verified + r.frames_corrupt > 0 {
            format!(
                ", {} verified, {} corrupt",
                r.frames_verified, r.frames_corrupt
            )
        } else {
            String::new()
        }
    );
    match r.gbit_per_s {
        Some(g) => println!(
            "throughput    {g:.3} Gbit/s ({} bytes in {:.2} s)",
            r.bytes, r.seconds
        ),
        None => println!(
            "throughput    n/a: too short a run for a rate ({} bytes in {:.3} s)",
            r.bytes, r.seconds
        ),
    }
    println!(
        "packets       {} received, {} missing, {} resent, {} duplicate, {} ignored; {} resend requests",
        r.packets_received, r.packets_missing, r.packets_resent, r.packets_duplicate, r.packets_ignored, r.resend_requests
    );
    if r.packets_conflict + r.packets_out_of_window + r.packets_wrong_id_form > 0 {
        println!(
            "not the camera's? {} frames with conflicting duplicates ({} packets), {} packets of far block ids, {} of the wrong id form (see docs/security.md)",
            r.frames_conflict, r.packets_conflict, r.packets_out_of_window, r.packets_wrong_id_form
        );
    }
    println!(
        "process       linerate {:.3} CPU-s (user + system, all threads; {:.1}% of a core)",
        r.process_cpu_seconds,
        if r.seconds > 0.0 {
            r.process_cpu_seconds / r.seconds * 100.0
        } else {
            0.0
        }
    );
    println!(
        "machine       all processes: busiest core{} {:.1}% ({:.1}% softirq), average {:.1}%, {:.3} CPU-s/GB",
        r.cpu_busy_core
            .map_or(String::new(), |c| format!(" (cpu{c})")),
        r.cpu_busy_core_pct,
        r.cpu_busy_core_softirq_pct,
        r.cpu_avg_pct,
        r.cpu_seconds_per_gb
    );
    if let Some(t) = &r.receive_thread_cpu {
        println!(
            "receive       thread {:.3} CPU-s ({:.1}% of a core: user {:.3} s, system {:.3} s)",
            t.total_s, t.pct, t.user_s, t.system_s
        );
    }
    let l = &r.frame_delivery_latency_us;
    if l.count > 0 {
        println!(
            "delivery      last packet → frame: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs ({} frames)",
            l.p50_us, l.p99_us, l.max_us, l.count
        );
    }
    if let Some(l) = r.trigger_to_frame_latency_us.filter(|l| l.count > 0) {
        println!(
            "trigger       command → frame: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs ({} frames)",
            l.p50_us, l.p99_us, l.max_us, l.count
        );
    }
    if let Some(d) = &r.kernel_drop_counters {
        println!(
            "kernel drops  udp rcvbuf {}, udp in errors {}, rx dropped {}, softnet dropped {}, time squeeze {}",
            d.udp_rcvbuf_errors, d.udp_in_errors, d.rx_dropped, d.softnet_dropped, d.softnet_time_squeeze
        );
    }
    for f in &r.incomplete_examples {
        println!(
            "incomplete    block {} ({}): missing {:?}",
            f.block_id, f.status, f.missing
        );
    }
    for c in &r.corrupt_examples {
        println!("corrupt       {c}");
    }
    let h = &r.host;
    let flag = |v: Option<bool>| v.map_or("?", |b| if b { "on" } else { "off" });
    println!(
        "host          {} mtu {}, gro {}, lro {}, receive buffer {} bytes (rmem_max {}, tcp_rmem {})",
        h.interface,
        h.mtu,
        flag(h.gro),
        flag(h.lro),
        r.recv_buffer,
        h.rmem_max.map_or("?".into(), |v| v.to_string()),
        h.tcp_rmem.as_deref().unwrap_or("?")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = crate::arg_range::MIB;

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
            e.to_string().contains("at most 1024 such frames fit"),
            "{e}"
        );
        assert!(buffer_count(Some(2), 1024 * MIB, 0).is_ok());
    }
}
