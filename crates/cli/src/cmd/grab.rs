//! `linerate grab`: receive frames from a GigE Vision camera, verify them,
//! and report what arrived, what was lost and what it cost in CPU.
//!
//! The session itself (trigger pacing, verification, saving, the tally and
//! the report) is `linerate_grab::session`; this command turns its
//! arguments into a [`GrabConfig`], shows progress, prints the report and
//! picks the exit status.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use linerate_grab::receive::{Backend, Transport};
use linerate_grab::session::{GrabConfig, GrabError, GrabProgress, GrabReport, Session};
use linerate_grab::stream::Buffer;
use linerate_grab::verify::Pattern;
use linerate_kafka::report::ForwardedFields;

use crate::stop_signal::{Interrupt, Interrupted};

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
    /// Show the frames and the stream's health live in a web page served
    /// at this HOST:PORT (e.g. 127.0.0.1:8080) while the grab runs. The
    /// page is lent the frame it shows (no copy), so one or two of the
    /// --buffers are with the page at any time. The page has no
    /// authentication: binding beyond loopback is your choice.
    #[arg(long, value_name = "ADDR")]
    pub view: Option<std::net::SocketAddr>,
    /// Forwarding to Apache Kafka (--to kafka://HOST:PORT/TOPIC).
    #[command(flatten)]
    pub kafka: Box<crate::cmd::kafka::ToKafkaArgs>,
}

/// The fewest frame buffers `--view` accepts: the page may hold two (the
/// frame shown and the one replacing it) and the stream needs two more to
/// keep receiving.
const MIN_BUFFERS_WITH_VIEW: usize = 4;

impl GrabArgs {
    /// The session these arguments ask for.
    pub fn config(&self) -> Result<GrabConfig> {
        let secs = |flag: &str, s: f64| {
            Duration::try_from_secs_f64(s).with_context(|| format!("{flag} {s}"))
        };
        let pattern = match self.pattern.as_str() {
            "linerate" => Some(Pattern::Linerate),
            "aravis" => Some(Pattern::AravisRamp),
            "auto" => None,
            other => bail!("--pattern {other:?}: expected auto, linerate or aravis"),
        };
        if let (Some(_), Some(buffers)) = (self.view, self.buffers) {
            if buffers < MIN_BUFFERS_WITH_VIEW {
                bail!(
                    "--buffers {buffers} with --view: the page holds one or two frame buffers \
                     while it shows them; give --buffers {MIN_BUFFERS_WITH_VIEW} or more"
                );
            }
        }
        Ok(GrabConfig {
            camera: self.camera.clone(),
            frames: self.frames,
            duration: self.duration.map(|d| secs("--duration", d)).transpose()?,
            width: self.width,
            height: self.height,
            fps: self.fps,
            trigger_software: self.trigger_software,
            packet_size: self.packet_size,
            packet_delay_ns: self.packet_delay,
            transport: self.transport,
            pixel_format: self.pixel_format.clone(),
            backend: self.backend,
            verify: self.verify,
            pattern,
            save: self.save.clone(),
            interface: self.interface,
            buffers: self.buffers,
            buffer_memory: self.buffer_memory,
            cpu: self.cpu,
            stream_port: self.stream_port,
            busy_poll_us: self.busy_poll,
            coalesce_us: self.coalesce_us,
            connect: !self.no_connect,
            gro: !self.no_gro,
            resend: !self.no_resend,
            resend_initial: Duration::from_micros(self.resend_initial_us),
            resend_repeat: Duration::from_millis(self.resend_repeat_ms),
            resend_ratio: self.resend_ratio,
            resend_tail: Duration::from_micros(self.resend_tail_us),
            retention: self.retention_ms.map(Duration::from_millis),
            frame_timeout: secs("--frame-timeout", self.frame_timeout)?,
        })
    }
}

/// Runs `linerate grab`. With --json, stdout gets one JSON object also
/// when the grab cannot start (`{"error": ..., "ok": false}`). On SIGINT or
/// SIGTERM the camera is stopped and released, the report printed, and the
/// error is [`Interrupted`].
pub fn run(args: GrabArgs) -> Result<()> {
    let json = args.json;
    let view = args.view.map(|listen| linerate_view::ViewConfig {
        listen,
        receive_cpu: args.cpu,
        ..linerate_view::ViewConfig::default()
    });
    let forwarder = match args.kafka.spawn(&args.camera, args.cpu) {
        Ok(f) => f,
        Err(e) if json => {
            crate::json_println!(
                "{}",
                serde_json::json!({ "error": format!("{e:#}"), "ok": false })
            );
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    let forward = forwarder.as_ref().map(|f| f.forward());
    let source = args.camera.clone();
    let on_frame = move |buffer: &Buffer, p: &GrabProgress| {
        if let Some(f) = &forward {
            // A message the forwarder could not take is counted in its
            // report as undelivered; the grab goes on.
            let _ = linerate_kafka::frames::forward_frame(f, &source, buffer);
            f.set_counter("frames_completed", p.frames_completed);
            f.set_counter("frames_incomplete", p.frames_incomplete);
            f.set_counter("frames_corrupt", p.frames_corrupt);
            f.set_counter("bytes", p.bytes);
        }
    };
    let grabbed = args
        .config()
        .and_then(|config| grab_with(&config, !json, view, on_frame));
    // Every message handed over gets its delivery report before the
    // grab's report is printed.
    let kafka = forwarder.map(|f| f.finish()).transpose()?;
    let report = match grabbed {
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
        // A frame not delivered to Kafka makes the grab not ok.
        let mut shown = report.clone();
        shown.ok &= kafka.as_ref().map_or(true, |k| k.ok);
        let value = linerate_kafka::report::Forwarded {
            report: &shown,
            forwarded: kafka.as_ref().map(ForwardedFields::of),
        };
        crate::json_println!("{}", serde_json::to_string(&value)?);
    } else {
        print_summary(&report);
        if let Some(k) = &kafka {
            crate::cmd::kafka::say_forwarded(k);
        }
    }
    if let Some(k) = &kafka {
        crate::cmd::kafka::undelivered(k)?;
    }
    if let Some(i) = interrupted(&report) {
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

/// The signal that ended a run, if one did (the session was stopped on
/// request, and only a signal asks it to stop).
pub fn interrupted(report: &GrabReport) -> Option<Interrupted> {
    report
        .stopped
        .then(|| Interrupt::install().ok()?.signal())
        .flatten()
}

/// Runs the grab `config` describes with the command's presentation: the
/// start-up line, a progress bar on a terminal when `progress` is set,
/// and SIGINT or SIGTERM ending the run in order (acquisition stopped,
/// control released, the report returned with the signal in `error`).
pub fn grab(config: &GrabConfig, progress: bool) -> Result<GrabReport> {
    grab_with(config, progress, None, |_, _| {})
}

/// Like [`grab`], with a live view served as `view` says, calling
/// `on_frame` with every frame delivered (see `Session::run_with`). The
/// session thread copies a frame for the page only when the page's display
/// thread asks for one (at the display rate) and publishes its counters
/// twice a second; the stream's receive thread never sees the view.
pub fn grab_with<F>(
    config: &GrabConfig,
    progress: bool,
    view: Option<linerate_view::ViewConfig>,
    mut on_frame: F,
) -> Result<GrabReport>
where
    F: FnMut(&Buffer, &GrabProgress),
{
    let interrupt = Interrupt::install()?;
    let session = Session::open_with_stop(config.clone(), interrupt.flag())
        .map_err(|e| start_error(e, &interrupt))?;
    let info = session.info();
    crate::console::say(format_args!(
        "grab: camera {} ({} {}), {}-byte frames over {} to {}:{}, {}",
        config.camera,
        info.vendor,
        info.model,
        info.payload_size,
        config.transport.name(),
        info.local_ip,
        info.stream_port,
        crate::console::until(
            Some(config.frames),
            config.duration.map(|d| d.as_secs_f64())
        ),
    ));
    let target = config.frames;
    let duration = config.duration;
    let bar = progress_bar(progress, target, duration);
    let view = match view {
        Some(v) => {
            let listen = v.listen;
            let handle =
                linerate_view::spawn(v, None).with_context(|| format!("--view {listen}"))?;
            crate::console::say(format_args!(
                "grab: live view at http://{}/ (no authentication)",
                handle.local_addr()
            ));
            Some(handle)
        }
        None => None,
    };
    let mut viewer = view.as_ref().map(|v| LiveView {
        frames: v.frames(),
        stats: v.stats(),
        shape: linerate_view::camera::FrameShape::default(),
        published: std::time::Instant::now(),
    });
    let mut report = session.run_keeping(|buffer, p, requeue| {
        on_frame(&buffer, p);
        let buffer = match &mut viewer {
            Some(v) => v.take(buffer, p, requeue),
            None => Some(buffer),
        };
        if let Some(bar) = &bar {
            if target > 0 {
                bar.set_position(p.frames_delivered());
            } else if duration.is_some() {
                bar.set_position(p.seconds as u64);
            }
            bar.set_message(format!(
                "{} complete, {} incomplete, {:.2} Gbit/s",
                p.frames_completed,
                p.frames_incomplete,
                p.gbit_per_s()
            ));
        }
        buffer
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if report.stopped {
        if let Some(i) = interrupt.signal() {
            report.error = Some(i.to_string());
        }
    }
    Ok(report)
}

/// What `grab --view` hands the page from the session's callback.
struct LiveView {
    frames: linerate_view::FramePublisher,
    stats: linerate_view::StatsPublisher,
    shape: linerate_view::camera::FrameShape,
    published: std::time::Instant,
}

impl LiveView {
    /// Notes `buffer`'s shape and lends it to the page when the page
    /// wants a frame (it then comes back to the stream once shown, so
    /// the receive path copies nothing for the view); returns it when it
    /// stays with the stream.
    fn take(
        &mut self,
        buffer: linerate_grab::stream::Buffer,
        p: &GrabProgress,
        requeue: &linerate_grab::stream::Requeue,
    ) -> Option<linerate_grab::stream::Buffer> {
        self.shape.update(&buffer);
        if self.published.elapsed() >= Duration::from_millis(500) {
            self.published = std::time::Instant::now();
            self.stats
                .publish(linerate_view::camera::grab_counters(p, &self.shape));
        }
        if !self.frames.wants_frame() {
            return Some(buffer);
        }
        match linerate_view::camera::lend(buffer, requeue) {
            Ok(frame) => {
                self.frames.publish(frame);
                None
            }
            Err(buffer) => Some(buffer),
        }
    }
}

/// A session that could not start, in the command's words: a signal as
/// [`Interrupted`] (for the exit status), the buffer budget in terms of
/// the flags that set it.
fn start_error(e: GrabError, interrupt: &Interrupt) -> anyhow::Error {
    match e {
        GrabError::Stopped => match interrupt.signal() {
            Some(i) => i.into(),
            None => e.into(),
        },
        GrabError::BufferMemory {
            buffers,
            payload,
            budget,
            fit,
        } => anyhow::anyhow!(
            "{buffers} buffers × {payload}-byte frames need {} bytes, more than --buffer-memory {} \
             (at most {fit} such frames fit); lower --buffers or raise --buffer-memory",
            (buffers as u64).saturating_mul((payload as u64).max(1)),
            crate::arg_range::show_bytes(budget),
        ),
        e => e.into(),
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

    #[derive(clap::Parser)]
    struct Command {
        #[command(flatten)]
        args: GrabArgs,
    }

    fn parse(argv: &[&str]) -> GrabArgs {
        <Command as clap::Parser>::try_parse_from(argv)
            .expect("arguments")
            .args
    }

    #[test]
    fn the_command_line_defaults_are_the_librarys() {
        let config = parse(&["grab", "10.0.0.2"]).config().expect("config");
        assert_eq!(config, GrabConfig::new("10.0.0.2"));
    }

    #[test]
    fn flags_reach_the_config() {
        let config = parse(&[
            "grab",
            "cam",
            "--duration",
            "2.5",
            "--pattern",
            "aravis",
            "--no-resend",
            "--retention-ms",
            "7",
            "--transport",
            "tcp",
        ])
        .config()
        .expect("config");
        assert_eq!(config.frames, 0, "--duration alone has no frame limit");
        assert_eq!(config.duration, Some(Duration::from_millis(2500)));
        assert_eq!(config.pattern, Some(Pattern::AravisRamp));
        assert!(!config.resend);
        assert_eq!(config.retention, Some(Duration::from_millis(7)));
        assert_eq!(config.transport, Transport::Tcp);
        let e = parse(&["grab", "cam", "--pattern", "ramp"])
            .config()
            .expect_err("unknown pattern");
        assert!(
            e.to_string().contains("expected auto, linerate or aravis"),
            "{e}"
        );
    }

    #[test]
    fn a_buffer_budget_error_names_the_flags() {
        let interrupt = Interrupt::install().expect("handlers");
        let e = start_error(
            GrabError::BufferMemory {
                buffers: 3,
                payload: 10 << 20,
                budget: 20 << 20,
                fit: 2,
            },
            &interrupt,
        );
        let text = e.to_string();
        assert!(
            text.contains("more than --buffer-memory 20MiB (at most 2 such frames fit)"),
            "{text}"
        );
    }
}
