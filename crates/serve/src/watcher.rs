//! `linerate watch`: K clients of `linerate serve` in one process, each
//! verifying every frame (docs/serve.md).
//!
//! Each client is a thread with its own connection. It reads a frame's
//! 40-byte header, then its payload, checks the payload's CRC-32 and that
//! the sequence continues from the frame before, and times the frame from
//! its capture stamp. The run passes only when every client got every
//! frame sent while it was connected, intact.

use std::io::Read;
use std::net::{SocketAddr, SocketAddrV4, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Result};
use clap::Args;
use hdrhistogram::Histogram;
use linerate_serve::datagram::Reassembler;
use linerate_serve::verify::{Verdict, Verifier, VerifyCounters};
use linerate_wire::served::{Cookie, SubscribeMessage, SubscribeRepr, SUBSCRIBE_LEN};
use linerate_wire::served::{FrameHeader, FrameHeaderRepr, HEADER_LEN};
use serde::Serialize;

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

/// What one client saw.
#[derive(Debug, Clone, Serialize)]
pub struct ClientResult {
    /// Index of the client (0..K).
    pub client: usize,
    /// Frames received intact.
    pub frames_ok: u64,
    /// Frames missing between the first and last received.
    pub frames_missing: u64,
    /// Frames whose payload failed the checksum.
    pub frames_corrupt: u64,
    /// Frames out of order or repeated.
    pub frames_out_of_order: u64,
    /// First and last sequence received.
    pub first_seq: Option<u64>,
    /// Last sequence received.
    pub last_seq: Option<u64>,
    /// Payload Mbit/s over the client's time connected.
    pub mbit_per_s: f64,
    /// Capture-to-receive latency percentiles in microseconds (null when
    /// no frame was timed).
    pub latency_us_p50: Option<u64>,
    /// 99th percentile.
    pub latency_us_p99: Option<u64>,
    /// Largest.
    pub latency_us_max: Option<u64>,
    /// Why the client failed before the end, if it did.
    pub error: Option<String>,
    /// Every frame received, intact and in sequence, and no error.
    pub complete: bool,
}

/// The report of a `watch` run.
#[derive(Debug, Serialize)]
pub struct WatchReport {
    /// The server.
    pub server: String,
    /// Seconds watched.
    pub seconds: f64,
    /// Clients that passed.
    pub clients_complete: usize,
    /// All clients.
    pub clients: Vec<ClientResult>,
    /// Frames received intact, all clients.
    pub frames_ok: u64,
    /// Frames missing, all clients.
    pub frames_missing: u64,
    /// Aggregate payload Mbit/s.
    pub mbit_per_s: f64,
    /// Whether every client received and verified every frame.
    pub ok: bool,
    /// "interrupted by SIGINT" when a signal ended the run early.
    pub error: Option<String>,
    /// The signal that ended the run, if one did.
    #[serde(skip)]
    pub interrupted: Option<crate::stop_signal::Interrupted>,
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
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
    if let Some(i) = report.interrupted {
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
/// signal (`interrupt`) ends the watch early, with the report.
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
    let deadline = start + Duration::from_secs_f64(args.duration);
    let stop = interrupt.flag();
    let verified = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = (0..args.clients)
        .map(|i| {
            let server = args.connect;
            let (quickack, recv_buffer, udp) = (args.quickack, args.recv_buffer, args.udp);
            let multicast = args.multicast;
            let end = End {
                deadline,
                stop: stop.clone(),
                verified: verified.clone(),
            };
            std::thread::spawn(move || {
                if udp || multicast.is_some() {
                    udp_client(i, server, multicast, &end, recv_buffer)
                } else {
                    client(i, server, &end, quickack, recv_buffer)
                }
            })
        })
        .collect();
    let bar = crate::console::progress_wanted().then(|| {
        let bar = indicatif::ProgressBar::new((args.duration.ceil() as u64).max(1));
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} s  {msg}")
        {
            bar.set_style(style);
        }
        bar
    });
    while !handles.iter().all(|h| h.is_finished()) {
        std::thread::sleep(Duration::from_millis(100));
        if let Some(bar) = &bar {
            bar.set_position(start.elapsed().as_secs());
            bar.set_message(format!(
                "{} frames received",
                verified.load(Ordering::Relaxed)
            ));
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let clients: Vec<ClientResult> = handles
        .into_iter()
        .enumerate()
        .map(|(i, h)| {
            h.join().unwrap_or_else(|_| ClientResult {
                error: Some("client thread panicked".into()),
                ..empty(i)
            })
        })
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    let complete = clients.iter().filter(|c| c.complete).count();
    let interrupted = interrupt.signal();
    Ok(WatchReport {
        error: interrupted.map(|i| i.to_string()),
        interrupted,
        server: args.connect.to_string(),
        seconds,
        clients_complete: complete,
        frames_ok: clients.iter().map(|c| c.frames_ok).sum(),
        frames_missing: clients.iter().map(|c| c.frames_missing).sum(),
        mbit_per_s: clients.iter().map(|c| c.mbit_per_s).sum(),
        ok: complete == clients.len() && interrupted.is_none(),
        clients,
    })
}

fn empty(client: usize) -> ClientResult {
    ClientResult {
        client,
        frames_ok: 0,
        frames_missing: 0,
        frames_corrupt: 0,
        frames_out_of_order: 0,
        first_seq: None,
        last_seq: None,
        mbit_per_s: 0.0,
        latency_us_p50: None,
        latency_us_p99: None,
        latency_us_max: None,
        error: None,
        complete: false,
    }
}

/// When a client stops (the deadline or a signal), and the count of
/// frames all clients verified, for the progress line.
struct End {
    deadline: Instant,
    stop: Arc<AtomicBool>,
    verified: Arc<AtomicU64>,
}

impl End {
    fn reached(&self) -> bool {
        Instant::now() >= self.deadline || self.stop.load(Ordering::Relaxed)
    }
}

/// Reads exactly `buf.len()` bytes unless the end comes first (returns
/// false then). Errors on EOF or a socket error.
fn read_until(
    s: &mut TcpStream,
    buf: &mut [u8],
    end: &End,
    quickack: bool,
) -> std::io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        if end.reached() {
            return Ok(false);
        }
        match s.read(&mut buf[got..]) {
            Ok(0) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!("server closed the connection after {got} bytes of a read"),
                ))
            }
            Ok(n) => {
                got += n;
                if quickack {
                    // A failure only leaves ACKs delayed, which the
                    // measurement then shows.
                    let _ = linerate_io::socket::set_tcp_quickack(s);
                }
            }
            Err(e) if is_timeout(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Fills a client's result from its verifier, latencies and outcome.
fn finish(
    mut result: ClientResult,
    verifier: &Verifier,
    hist: Option<&Histogram<u64>>,
    started: Instant,
    outcome: std::io::Result<()>,
) -> ClientResult {
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    let c: VerifyCounters = verifier.counters();
    result.frames_ok = c.frames_ok;
    result.frames_missing = c.frames_missing;
    result.frames_corrupt = c.frames_corrupt;
    result.frames_out_of_order = c.frames_out_of_order;
    result.first_seq = c.first_seq;
    result.last_seq = c.last_seq;
    result.mbit_per_s = c.bytes as f64 * 8.0 / secs / 1e6;
    if let Some(h) = hist.filter(|h| !h.is_empty()) {
        result.latency_us_p50 = Some(h.value_at_quantile(0.5));
        result.latency_us_p99 = Some(h.value_at_quantile(0.99));
        result.latency_us_max = Some(h.max());
    }
    result.error = outcome.err().map(|e| e.to_string());
    result.complete = result.error.is_none() && c.complete();
    result
}

fn record_latency(hist: &mut Option<Histogram<u64>>, capture_ns: u64) {
    if let Some(h) = hist.as_mut() {
        let us = now_ns().saturating_sub(capture_ns) / 1000;
        let _ = h.record(us.clamp(1, 60_000_000));
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock
            | std::io::ErrorKind::TimedOut
            | std::io::ErrorKind::Interrupted
    )
}

/// A UDP subscriber: joins, renews every second, reassembles and verifies;
/// or, with `multicast`, a member of the server's multicast group.
fn udp_client(
    i: usize,
    server: SocketAddrV4,
    multicast: Option<std::net::Ipv4Addr>,
    end: &End,
    recv_buffer: usize,
) -> ClientResult {
    let mut verifier = Verifier::new();
    let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).ok();
    let started = Instant::now();
    let outcome = (|| -> std::io::Result<()> {
        let want = if recv_buffer > 0 {
            recv_buffer
        } else {
            16 << 20
        };
        let sock = match multicast {
            Some(group) => {
                // Every client binds the group at the server's port (each
                // socket gets every datagram) and joins on the interface
                // whose address reaches the server.
                let probe = std::net::UdpSocket::bind("0.0.0.0:0")?;
                probe.connect(server)?;
                let std::net::SocketAddr::V4(local) = probe.local_addr()? else {
                    return Err(std::io::ErrorKind::InvalidInput.into());
                };
                linerate_io::socket::multicast_receiver(group, server.port(), *local.ip(), want)?
            }
            None => linerate_io::socket::udp_client(want)?,
        };
        sock.set_read_timeout(Some(Duration::from_millis(100)))?;
        let subscribe = multicast.is_none();
        let mut reasm = Reassembler::new();
        let mut buf = vec![0u8; 65_536];
        let mut renewed = Instant::now();
        let mut heard = false;
        // The handshake (docs/serve.md): Hello until a Challenge brings a
        // cookie, then Join with it, renewed every second.
        let mut cookie: Option<Cookie> = None;
        let ask = |cookie: Option<Cookie>| match cookie {
            Some(c) => SubscribeRepr::Join(c).to_bytes(),
            None => SubscribeRepr::Hello.to_bytes(),
        };
        if subscribe {
            sock.send_to(&ask(cookie), server)?;
        }
        while !end.reached() {
            // Renew every second; until the server is heard from (it may
            // not be up yet), every 100 ms.
            let every = Duration::from_millis(if heard { 1000 } else { 100 });
            if subscribe && renewed.elapsed() >= every {
                sock.send_to(&ask(cookie), server)?;
                renewed = Instant::now();
            }
            let (n, from) = match sock.recv_from(&mut buf) {
                Ok(n) => n,
                Err(e) if is_timeout(&e) => continue,
                // A refusal (ICMP) before the server listens.
                Err(e) if !heard && e.kind() == std::io::ErrorKind::ConnectionRefused => continue,
                Err(e) => return Err(e),
            };
            if subscribe && n == SUBSCRIBE_LEN && from == SocketAddr::V4(server) {
                let msg =
                    SubscribeMessage::new_checked(&buf[..n]).and_then(|m| SubscribeRepr::parse(&m));
                if let Ok(SubscribeRepr::Challenge(c)) = msg {
                    // A new or fresher cookie: join (again) at once.
                    cookie = Some(c);
                    sock.send_to(&ask(cookie), server)?;
                    renewed = Instant::now();
                }
                continue;
            }
            heard = true;
            if let Some(f) = reasm.push(&buf[..n]) {
                verifier.frame(&f.header, f.payload_crc);
                end.verified.fetch_add(1, Ordering::Relaxed);
                record_latency(&mut hist, f.header.capture_ns);
            }
        }
        if let Some(c) = cookie.filter(|_| subscribe) {
            let _ = sock.send_to(&SubscribeRepr::Leave(c).to_bytes(), server);
        }
        Ok(())
    })();
    finish(empty(i), &verifier, hist.as_ref(), started, outcome)
}

/// A TCP client: connects, reads header then payload, verifies each frame.
fn client(
    i: usize,
    server: SocketAddrV4,
    end: &End,
    quickack: bool,
    recv_buffer: usize,
) -> ClientResult {
    let mut verifier = Verifier::new();
    let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).ok();
    let started = Instant::now();
    let outcome = (|| -> std::io::Result<()> {
        // A server just started may not listen yet: retry refusals briefly.
        let connect_by = Instant::now() + Duration::from_secs(3);
        let mut s = loop {
            match TcpStream::connect_timeout(&SocketAddr::V4(server), Duration::from_secs(2)) {
                Ok(s) => break s,
                Err(e)
                    if e.kind() == std::io::ErrorKind::ConnectionRefused
                        && Instant::now() < connect_by.min(end.deadline)
                        && !end.reached() =>
                {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => {
                    return Err(std::io::Error::new(
                        e.kind(),
                        format!("connecting to {server}: {e}"),
                    ))
                }
            }
        };
        if recv_buffer > 0 {
            linerate_io::socket::set_recv_buffer(&s, recv_buffer)?;
        }
        s.set_read_timeout(Some(Duration::from_millis(100)))?;
        let mut header = [0u8; HEADER_LEN];
        let mut payload = Vec::new();
        loop {
            if !read_until(&mut s, &mut header, end, quickack)? {
                return Ok(());
            }
            let repr = FrameHeader::new_checked(&header[..])
                .and_then(|v| FrameHeaderRepr::parse(&v))
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
            if repr.piece_offset != 0 || repr.piece_len != repr.frame_len {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "frame {} on TCP is a piece ({} bytes at {}), not the whole frame",
                        repr.sequence, repr.piece_len, repr.piece_offset
                    ),
                ));
            }
            payload.resize(repr.frame_len as usize, 0);
            if !read_until(&mut s, &mut payload, end, quickack)? {
                return Ok(());
            }
            if let Verdict::OutOfOrder = verifier.frame(&repr, crc32fast::hash(&payload)) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("frame {} arrived out of order", repr.sequence),
                ));
            }
            record_latency(&mut hist, repr.capture_ns);
            end.verified.fetch_add(1, Ordering::Relaxed);
        }
    })();
    finish(empty(i), &verifier, hist.as_ref(), started, outcome)
}
