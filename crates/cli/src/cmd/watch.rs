//! `linerate watch`: K clients of `linerate serve` in one process, each
//! verifying every frame (docs/serve.md).
//!
//! The clients are `linerate_serve::watcher`; this command turns the
//! arguments into its config, draws progress, ends the run on
//! Ctrl-C/SIGTERM and prints the report.

use std::net::SocketAddrV4;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use clap::Args;
use linerate_serve::watcher::{self, Transport, WatchConfig, WatchReport};

/// Arguments of `linerate watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The server, IP:PORT.
    #[arg(long)]
    connect: SocketAddrV4,
    /// Connections to open, 1..=4096.
    #[arg(long, default_value_t = 1, value_parser = crate::arg_range::usize_in(1..=4096))]
    clients: usize,
    /// Seconds to watch, 0.001..=31536000.
    #[arg(long, default_value_t = 10.0, value_parser = crate::arg_range::secs_in(0.001..=31_536_000.0))]
    duration: f64,
    /// Set TCP_QUICKACK after every read (acknowledge at once instead of
    /// delaying ACKs), to measure what ACKs cost the server.
    #[arg(long)]
    quickack: bool,
    /// Subscribe over UDP instead of connecting over TCP (the server needs
    /// `serve --udp`): each client is a UDP socket that asks the server for
    /// a cookie, joins with it (renewing every second) and puts frames
    /// together from their datagrams.
    #[arg(long)]
    udp: bool,
    /// Receive the server's multicast stream instead (`serve --multicast
    /// GROUP`): each client is a UDP socket bound to GROUP at the server's
    /// port that joins GROUP on the interface that reaches the server; no
    /// subscription is sent.
    #[arg(long, conflicts_with = "udp")]
    multicast: Option<std::net::Ipv4Addr>,
    /// Receive buffer per connection in bytes, 0..=1073741824 (0: the
    /// kernel autotunes).
    #[arg(long, default_value_t = 0, value_parser = crate::arg_range::bytes_usize_in(0..=crate::arg_range::GIB))]
    recv_buffer: usize,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Run on this CPU only, as `taskset -c N` would (every thread of the
    /// command): 0..=4095, 0 is the first CPU, and it must be online.
    #[arg(long, value_parser = crate::arg_range::online_cpu())]
    pub cpu: Option<usize>,
}

impl WatchArgs {
    /// The watcher's config for these arguments.
    fn config(&self) -> WatchConfig {
        WatchConfig {
            server: self.connect,
            clients: self.clients,
            duration: Duration::from_secs_f64(self.duration),
            quickack: self.quickack,
            transport: match (self.udp, self.multicast) {
                (_, Some(g)) => Transport::Multicast(g),
                (true, None) => Transport::Udp,
                (false, None) => Transport::Tcp,
            },
            recv_buffer: self.recv_buffer,
        }
    }
}

/// Runs `linerate watch`; fails (exit 1) unless every client is complete.
pub fn run(args: WatchArgs) -> Result<()> {
    crate::pin_process(args.cpu)?;
    if !(args.duration > 0.0 && args.duration.is_finite()) {
        bail!(
            "--duration {} must be a positive number of seconds",
            args.duration
        );
    }
    if args.clients == 0 || args.clients > 4096 {
        bail!("--clients {} must be 1 to 4096", args.clients);
    }
    let interrupt = crate::stop_signal::Interrupt::install()?;
    let report = watch(&args, &interrupt)?;
    if args.json {
        crate::json_println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{}/{} clients complete, {} frames verified, {} missing, {:.1} Mbit/s in total",
            report.clients_complete,
            report.clients.len(),
            report.frames_ok,
            report.frames_missing,
            report.mbit_per_s
        );
        for c in &report.clients {
            println!(
                "  client {:>3}: {:>7} ok {:>5} missing {:>3} corrupt {:>9.1} Mbit/s latency {}{}",
                c.client,
                c.frames_ok,
                c.frames_missing,
                c.frames_corrupt,
                c.mbit_per_s,
                match (c.latency_us_p50, c.latency_us_p99) {
                    (Some(p50), Some(p99)) => format!("p50 {p50} µs p99 {p99} µs"),
                    _ => "n/a".into(),
                },
                c.error
                    .as_deref()
                    .map(|e| format!(" error: {e}"))
                    .unwrap_or_default()
            );
        }
    }
    if let Some(i) = interrupt.signal() {
        return Err(anyhow::Error::new(i).context(format!(
            "stopped after {:.1} s with {} frames verified",
            report.seconds, report.frames_ok
        )));
    }
    if !report.ok {
        // The first client's error says why (a refused connection, a
        // closed stream), so the last line is not a bare count.
        let why = report
            .clients
            .iter()
            .find_map(|c| {
                c.error
                    .as_ref()
                    .map(|e| format!(": client {}: {e}", c.client))
            })
            .unwrap_or_default();
        bail!(
            "{} of {} clients did not receive every frame intact{why}",
            report.clients.len() - report.clients_complete,
            report.clients.len()
        );
    }
    Ok(())
}

/// Watches with `args.clients` connections and returns what they saw; a
/// signal (`interrupt`) ends the watch early, with the report (its `error`
/// names the signal and `ok` is false).
pub fn watch(args: &WatchArgs, interrupt: &crate::stop_signal::Interrupt) -> Result<WatchReport> {
    crate::console::say(format_args!(
        "watch: {} {} client{} of {}, for {} s (or until Ctrl-C)",
        args.clients,
        match (args.udp, args.multicast) {
            (_, Some(g)) => format!("multicast ({g})"),
            (true, None) => "UDP".into(),
            (false, None) => "TCP".into(),
        },
        if args.clients == 1 { "" } else { "s" },
        args.connect,
        args.duration
    ));
    let start = Instant::now();
    let stop = interrupt.flag();
    let handle = watcher::spawn(args.config())?;
    let bar = crate::console::progress_wanted().then(|| {
        let bar = indicatif::ProgressBar::new((args.duration.ceil() as u64).max(1));
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} s  {msg}")
        {
            bar.set_style(style);
        }
        bar
    });
    while !handle.is_finished() && !stop.load(std::sync::atomic::Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(50));
        if let Some(bar) = &bar {
            bar.set_position(start.elapsed().as_secs());
            bar.set_message(format!(
                "{} frames received",
                handle.counters().frames_verified
            ));
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let mut report = handle.stop();
    if let Some(i) = interrupt.signal() {
        report.error = Some(i.to_string());
        report.ok = false;
    }
    Ok(report)
}
