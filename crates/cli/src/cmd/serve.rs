//! `linerate serve`: one frame stream to many TCP clients (docs/serve.md).
//!
//! The server is `linerate_serve::server`; this command turns the
//! arguments into its config, draws progress, stops it on Ctrl-C/SIGTERM
//! and prints the report.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;
use linerate_io::fanout::Method;
use linerate_serve::server::{self, FrameSource, ServeReport, ServerConfig};

/// The method `serve` uses unless told otherwise; chosen from the
/// benchmark in docs/serve.md.
pub const DEFAULT_METHOD: &str = "zerocopy";

/// Arguments of `linerate serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long)]
    bind: Ipv4Addr,
    /// TCP port to listen on (and UDP with --udp/--multicast), 0..=65535
    /// (0: any free port, named in the start-up line and the report).
    #[arg(long, default_value_t = 5600, value_parser = clap::value_parser!(u16).range(0..))]
    port: u16,
    /// Frame source: `pattern` (a self-checking test pattern, almost free to
    /// make) or a file whose consecutive --frame-size chunks are the frames
    /// (read again from the start at its end).
    #[arg(long, default_value = "pattern")]
    source: String,
    /// Frames per second, 0.001..=100000.
    #[arg(long, default_value_t = 30.0, value_parser = crate::arg_range::float_in(0.001..=100_000.0))]
    fps: f64,
    /// Payload bytes per frame (a 40-byte header precedes each),
    /// 8..=67108864.
    #[arg(long, default_value_t = 256 * 1024, value_parser = crate::arg_range::bytes_usize_in(8..=linerate_wire::served::MAX_FRAME_LEN as u64))]
    frame_size: usize,
    /// How frames reach the sockets: zerocopy (MSG_ZEROCOPY, the cheapest in
    /// docs/serve.md's measurements), write (the kernel copies), sendfile,
    /// splice (memfd → pipe → socket), or uring (io_uring SEND_ZC from the
    /// registered pool, all clients' sends of a frame in one syscall).
    #[arg(long, default_value = DEFAULT_METHOD)]
    method: Method,
    /// Most clients at once, 1..=65536; more are refused (closed at once).
    #[arg(long, default_value_t = 64, value_parser = crate::arg_range::usize_in(1..=65_536))]
    max_clients: usize,
    /// Most TCP clients from one IP address at once; more from it are
    /// refused, so one host cannot take every place. 1..=65536.
    #[arg(long, default_value_t = 32, value_parser = crate::arg_range::usize_in(1..=65_536))]
    max_clients_per_source: usize,
    /// Frame slots shared by all clients: the server's whole frame memory
    /// is slots × (frame size + header). A client that still holds the
    /// oldest slot when a new frame needs it is cut loose. 2..=65536.
    #[arg(long, default_value_t = 32, value_parser = crate::arg_range::usize_in(2..=65_536))]
    slots: usize,
    /// Frames a client may have waiting (not started); a slow client loses
    /// its oldest waiting frame beyond this. 1..=4096.
    #[arg(long, default_value_t = 4, value_parser = crate::arg_range::usize_in(1..=4096))]
    queue: usize,
    /// Seconds a client may have frames waiting and take none of them (no
    /// frame handed whole to its socket) before it is cut loose and its
    /// place freed: a client that never reads is cut after this, whatever
    /// the send method. Raise it for frames that take longer to send.
    /// 0.01..=3600.
    #[arg(long, default_value_t = 3.0, value_parser = crate::arg_range::secs_in(0.01..=3600.0))]
    stall_timeout: f64,
    /// Socket send buffer per client in bytes, 0..=1073741824 (0: the
    /// kernel autotunes).
    #[arg(long, default_value_t = 0, value_parser = crate::arg_range::bytes_usize_in(0..=crate::arg_range::GIB))]
    send_buffer: usize,
    /// Also serve UDP subscribers on --port (off unless asked for: a UDP
    /// server can be made to send to addresses that never asked, see
    /// docs/serve.md). A subscriber gets frames only after echoing a
    /// cookie the server sent to its address.
    #[arg(long)]
    udp: bool,
    /// UDP datagram size for UDP subscribers (40-byte header + piece); 1472
    /// fits a 1500-byte MTU, 8972 a 9000-byte one. UDP subscribers join by
    /// a handshake on --port over UDP (docs/serve.md). 41..=65507.
    #[arg(long, default_value_t = 1472, value_parser = crate::arg_range::usize_in(41..=65_507))]
    datagram_size: usize,
    /// Most UDP traffic to all subscribers together, in Mbit/s: a
    /// subscriber that would take the total past it is refused.
    /// 0.001..=1000000.
    #[arg(long, default_value_t = 1000.0, value_parser = crate::arg_range::float_in(0.001..=1_000_000.0))]
    udp_max_rate: f64,
    /// Most UDP subscribers from one IP address, 1..=65536.
    #[arg(long, default_value_t = 8, value_parser = crate::arg_range::usize_in(1..=65_536))]
    udp_per_source: usize,
    /// Seconds a UDP subscriber stays subscribed without renewing,
    /// 0.1..=86400.
    #[arg(long, default_value_t = 5.0, value_parser = crate::arg_range::secs_in(0.1..=86_400.0))]
    udp_expiry: f64,
    /// Also send every frame's UDP datagrams once to this multicast group
    /// (at --port, out of the --bind address's interface, TTL 1), for any
    /// number of `linerate watch --multicast GROUP` receivers. Must be an
    /// administratively scoped group, 239.0.0.0/8 (e.g. 239.255.0.1).
    #[arg(long)]
    multicast: Option<Ipv4Addr>,
    /// Stop after this many seconds, 0.001..=31536000 (default: run until
    /// Ctrl-C/SIGTERM).
    #[arg(long, value_parser = crate::arg_range::secs_in(0.001..=31_536_000.0))]
    duration: Option<f64>,
    /// Print the final report as one JSON object.
    #[arg(long)]
    json: bool,
    /// Run on this CPU only, as `taskset -c N` would (every thread of the
    /// command): 0..=4095, 0 is the first CPU, and it must be online.
    #[arg(long, value_parser = crate::arg_range::online_cpu())]
    pub cpu: Option<usize>,
}

impl ServeArgs {
    /// The server's config for these arguments.
    fn config(&self) -> ServerConfig {
        ServerConfig {
            bind: SocketAddrV4::new(self.bind, self.port),
            source: if self.source == "pattern" {
                FrameSource::Pattern
            } else {
                FrameSource::File(PathBuf::from(&self.source))
            },
            fps: self.fps,
            frame_size: self.frame_size,
            method: self.method,
            max_clients: self.max_clients,
            max_clients_per_source: self.max_clients_per_source,
            slots: self.slots,
            queue: self.queue,
            stall_timeout: Duration::from_secs_f64(self.stall_timeout),
            send_buffer: self.send_buffer,
            udp: self.udp,
            datagram_size: self.datagram_size,
            udp_max_rate_mbit: self.udp_max_rate,
            udp_per_source: self.udp_per_source,
            udp_expiry: Duration::from_secs_f64(self.udp_expiry),
            multicast: self.multicast,
            duration: self.duration.map(Duration::from_secs_f64),
        }
    }
}

/// Runs `linerate serve`.
pub fn run(args: ServeArgs) -> Result<()> {
    crate::pin_process(args.cpu)?;
    check(&args)?;
    let json = args.json;
    let report = serve(&args)?;
    if json {
        crate::json_println!("{}", serde_json::to_string(&report)?);
    } else {
        print_report(&report);
    }
    Ok(())
}

/// Refuses values clap's ranges let through, in the flags' own words
/// (the library checks them again, by setting name).
fn check(args: &ServeArgs) -> Result<()> {
    if !(args.fps > 0.0 && args.fps <= 100_000.0) {
        bail!("--fps {} must be above 0 and at most 100000", args.fps);
    }
    if args.frame_size < 8 || args.frame_size > linerate_wire::served::MAX_FRAME_LEN as usize {
        bail!("--frame-size {} must be 8 bytes to 64 MiB", args.frame_size);
    }
    if !(41..=65_507).contains(&args.datagram_size) {
        bail!(
            "--datagram-size {} must be 41 to 65507 bytes",
            args.datagram_size
        );
    }
    if let Some(g) = args.multicast {
        if g.octets()[0] != 239 {
            bail!("--multicast {g} must be an administratively scoped group in 239.0.0.0/8 (e.g. 239.255.0.1), which stays inside the site");
        }
    }
    if args.max_clients_per_source == 0 {
        bail!("--max-clients-per-source must be at least 1");
    }
    if !(args.stall_timeout > 0.0 && args.stall_timeout <= 3600.0) {
        bail!(
            "--stall-timeout {} must be above 0 and at most 3600 seconds",
            args.stall_timeout
        );
    }
    if args.udp {
        if !(args.udp_max_rate > 0.0 && args.udp_max_rate.is_finite()) {
            bail!(
                "--udp-max-rate {} must be a positive number of Mbit/s",
                args.udp_max_rate
            );
        }
        if args.udp_per_source == 0 {
            bail!("--udp-per-source must be at least 1");
        }
        let config = args.config();
        if config.udp_max_subscribers() == 0 {
            bail!(
                "--udp-max-rate {} Mbit/s is below one UDP subscriber's {:.1} Mbit/s ({} fps of {} bytes): raise it or lower the stream's rate",
                args.udp_max_rate,
                config.udp_subscriber_bps() / 1e6,
                args.fps,
                args.frame_size
            );
        }
    }
    if !(args.udp_expiry > 0.0 && args.udp_expiry.is_finite()) {
        bail!(
            "--udp-expiry {} must be a positive number of seconds",
            args.udp_expiry
        );
    }
    Ok(())
}

fn print_report(r: &ServeReport) {
    println!(
        "served {} frames of {} bytes at {} fps with {} on {} for {:.1} s: {} clients ({} refused, {} cut), {} frames dropped, {:.3} GB sent in {} syscalls, {:.2} CPU-s, max RSS {:.1} MiB",
        r.frames_published,
        r.frame_size,
        r.fps,
        r.method,
        r.address,
        r.seconds,
        r.clients_accepted,
        r.clients_refused,
        r.clients_cut,
        r.frames_dropped,
        r.bytes_sent as f64 / 1e9,
        r.syscalls,
        r.cpu_seconds,
        r.max_rss_mib
    );
    if let Some(m) = &r.multicast {
        println!(
            "  multicast {:<16} sent {:>7} failed {:>6} datagrams {:>9}",
            m.group, m.frames_sent, m.frames_failed, m.datagrams
        );
    }
    for u in &r.udp_subscribers {
        println!(
            "  {:<22} UDP {:<10} sent {:>7} failed {:>6} datagrams {:>9}",
            u.peer, u.end, u.frames_sent, u.frames_failed, u.datagrams
        );
    }
    for c in &r.clients {
        println!(
            "  {:<22} {:<9} sent {:>7} dropped {:>6} {:>10.1} MB",
            c.peer,
            c.end,
            c.frames_sent,
            c.frames_dropped,
            c.bytes_sent as f64 / 1e6
        );
    }
}

/// Serves until the duration ends or a signal comes; returns the report.
pub fn serve(args: &ServeArgs) -> Result<ServeReport> {
    let stop = crate::stop_signal::on_sigint_or_sigterm()?;
    let handle = server::spawn(args.config())?;
    let addr = handle.address();
    crate::console::say(format_args!(
        "serve: {} fps of {}-byte frames with {} on tcp {addr}{}{}, {}",
        args.fps,
        args.frame_size,
        args.method.name(),
        if args.udp {
            format!(" and udp {addr}")
        } else {
            String::new()
        },
        args.multicast
            .map(|g| format!(", multicast {g}:{}", addr.port()))
            .unwrap_or_default(),
        match args.duration {
            Some(d) => format!("for {d} s (or until Ctrl-C)"),
            None => "until Ctrl-C".into(),
        }
    ));
    let bar = crate::console::progress_wanted().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {elapsed}  {msg}") {
            bar.set_style(style);
        }
        bar
    });
    while !handle.is_finished() && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(50));
        if let Some(bar) = &bar {
            let c = handle.counters();
            bar.set_message(format!(
                "{} frames published, {} clients connected, {} accepted",
                c.frames_published, c.clients_connected, c.clients_accepted
            ));
            bar.tick();
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(handle.stop()?)
}
