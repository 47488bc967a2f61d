//! `linerate serve`: one frame stream to many TCP clients (docs/serve.md).
//!
//! Each frame is made once into a shared slot and sent to every client from
//! there by the chosen method (write, sendfile, splice, zerocopy, uring). One
//! thread, non-blocking sockets and `poll`: a slow client only fills its own
//! socket and queue; it loses its oldest queued frames (counted), and is cut
//! loose when it takes nothing for --stall-timeout, falls a pool behind, or
//! pins the oldest slot a new frame needs. Memory is the slot pool, fixed at
//! start. UDP subscribers (--udp only) join by a cookie handshake.

use std::collections::HashMap;
use std::io::Read;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use clap::Args;
use linerate_io::fanout::{wait_ready, ClientSocket, Method, SharedFrames, SocketCounters};
use linerate_io::udp::{SendOutcome, UdpEndpoint, UdpOptions};
use linerate_io::uring::{Completion, Piece, UringSender};
use linerate_serve::datagram::piece_headers;
use linerate_serve::frame::{slot_len, write_copied, PatternMaker};
use linerate_serve::hub::{ClientCounters, ClientId, Hub, HubConfig, Release};
use linerate_serve::subscribe::{Event, SubscriptionConfig, Subscriptions};
use linerate_wire::served::{FrameHeader, FrameHeaderRepr, HEADER_LEN};
use serde::Serialize;

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

/// One client's outcome, as reported at the end.
#[derive(Debug, Clone, Serialize)]
pub struct ClientReport {
    /// The client's address.
    pub peer: String,
    /// How it ended: "connected" (still at the end), "closed" (by the
    /// client or an error), or "cut" (cut loose, see `cut_reason`).
    pub end: &'static str,
    /// Why it was cut: "stalled" (took nothing for --stall-timeout),
    /// "behind" (still on a frame a whole pool old) or "pool_full" (held
    /// the oldest slot when a new frame needed it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_reason: Option<&'static str>,
    /// Frames queued for it.
    pub frames_queued: u64,
    /// Frames fully handed to its socket.
    pub frames_sent: u64,
    /// Frames dropped from its queue because it was slow.
    pub frames_dropped: u64,
    /// Bytes handed to its socket.
    pub bytes_sent: u64,
    /// Send syscalls (for uring: send SQEs queued for this client).
    pub syscalls: u64,
    /// Send syscalls that found the socket full (for uring: sends that came
    /// back short and were sent again).
    pub would_block: u64,
    /// MSG_ZEROCOPY completions and how many of them were copied anyway.
    pub zc_completions: u64,
    /// Completions the kernel copied.
    pub zc_copied: u64,
}

/// The report of a `serve` run.
#[derive(Debug, Serialize)]
pub struct ServeReport {
    /// The address served, IP:PORT (the port chosen with --port 0).
    pub address: String,
    /// Send method.
    pub method: &'static str,
    /// Payload bytes per frame.
    pub frame_size: usize,
    /// Frames per second asked.
    pub fps: f64,
    /// Seconds served.
    pub seconds: f64,
    /// Frames made and published.
    pub frames_published: u64,
    /// Frame ticks missed because the loop ran late (frames not made).
    pub frames_late: u64,
    /// Clients accepted.
    pub clients_accepted: u64,
    /// Connections refused for --max-clients or --max-clients-per-source.
    pub clients_refused: u64,
    /// Of those, refused because their address had --max-clients-per-source.
    pub clients_refused_per_source: u64,
    /// Clients cut loose.
    pub clients_cut: u64,
    /// Frames dropped for slow clients, all together.
    pub frames_dropped: u64,
    /// Bytes handed to sockets, all clients.
    pub bytes_sent: u64,
    /// Send syscalls, all clients (for uring: `io_uring_enter` calls).
    pub syscalls: u64,
    /// uring: whether the frame pool was registered as fixed buffers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uring_fixed_buffers: Option<bool>,
    /// uring: send SQEs queued, all clients.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uring_sends: Option<u64>,
    /// uring: cancel requests for clients cut loose with a send in flight.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uring_cancels: Option<u64>,
    /// Process CPU seconds (user + system; softirq work it triggers may be
    /// charged elsewhere, see docs/serve.md).
    pub cpu_seconds: f64,
    /// Largest resident set of the process, KiB (VmHWM).
    pub max_rss_kib: u64,
    /// The frame pool's size in bytes (slots × slot length).
    pub frame_pool_bytes: usize,
    /// Every client, in order of arrival.
    pub clients: Vec<ClientReport>,
    /// Whether UDP subscribers were served (--udp).
    pub udp: bool,
    /// Most UDP subscribers at once: --max-clients, or fewer if the stream
    /// times that many would pass --udp-max-rate.
    pub udp_max_subscribers: usize,
    /// Confirmed UDP subscriptions refused: the most subscribers (or the
    /// total rate) reached, or --udp-per-source for their address.
    pub udp_refused: u64,
    /// Cookies sent in answer to a Hello or a Join with a stale or bad
    /// cookie (each the size of what provoked it).
    pub udp_challenges: u64,
    /// Joins and Leaves with a cookie not valid for their source: forged,
    /// or older than two cookie epochs.
    pub udp_bad_cookies: u64,
    /// Datagrams on the UDP port that were no valid subscription message.
    pub udp_invalid: u64,
    /// Every UDP subscriber, in order of joining.
    pub udp_subscribers: Vec<UdpReport>,
    /// The multicast group's sends (with --multicast).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multicast: Option<MulticastReport>,
}

/// What was sent to the multicast group.
#[derive(Debug, Clone, Serialize)]
pub struct MulticastReport {
    /// The group and port.
    pub group: String,
    /// Frames sent whole (each once, whatever the number of receivers).
    pub frames_sent: u64,
    /// Datagrams sent.
    pub datagrams: u64,
    /// Frames not sent whole (the socket was full, or an error).
    pub frames_failed: u64,
}

/// One UDP subscriber's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct UdpReport {
    /// The subscriber's address.
    pub peer: String,
    /// How it ended: "subscribed" (at the end), "left", "expired" or
    /// "unreachable" (its address answered with an ICMP error).
    pub end: &'static str,
    /// Frames sent to it whole.
    pub frames_sent: u64,
    /// Datagrams sent.
    pub datagrams: u64,
    /// Frames not sent whole (the socket was full, or an error).
    pub frames_failed: u64,
}

struct Subscriber {
    report: usize,
    /// A socket on the server's address connected to the subscriber: its
    /// renewals, and the ICMP errors our datagrams to it provoke, arrive
    /// here (and only here).
    sock: std::net::UdpSocket,
}

/// UDP subscribers: each frame is cut into datagrams whose headers are
/// built once, and sent to every subscriber straight from the frame's slot
/// (the kernel copies; nothing is held after the call), with UDP GSO where
/// the egress interface segments before the wire, batched one datagram per
/// message elsewhere.
struct UdpFanout {
    ep: UdpEndpoint,
    datagram: usize,
    /// The subscription handshake and limits (with --udp).
    core: Option<Subscriptions>,
    /// The clock of `core`.
    start: Instant,
    /// Confirmed subscribers, as `core` reports them.
    subs: HashMap<SocketAddrV4, Subscriber>,
    reports: Vec<UdpReport>,
    /// The multicast group, sent every frame once (from the same socket).
    multicast: Option<(SocketAddrV4, MulticastReport)>,
}

impl UdpFanout {
    fn bind(addr: SocketAddrV4, args: &ServeArgs) -> Result<UdpFanout> {
        let ep = UdpEndpoint::bind(
            addr,
            &UdpOptions {
                send_buffer: Some(4 << 20),
                reuse_address: true,
                ..UdpOptions::default()
            },
        )?;
        ep.socket().set_nonblocking(true)?;
        let multicast = match args.multicast {
            Some(group) => {
                // Out of the bind address's interface only, one hop, and
                // not looped back to this host.
                linerate_io::socket::set_multicast_sender(ep.socket(), *addr.ip(), 1)
                    .with_context(|| format!("multicast out of {}", addr.ip()))?;
                let dest = SocketAddrV4::new(group, addr.port());
                Some((
                    dest,
                    MulticastReport {
                        group: dest.to_string(),
                        frames_sent: 0,
                        datagrams: 0,
                        frames_failed: 0,
                    },
                ))
            }
            None => None,
        };
        let core = if args.udp {
            Some(Subscriptions::new(SubscriptionConfig {
                key: random_key()?,
                epoch_ns: COOKIE_EPOCH.as_nanos() as u64,
                expiry_ns: (args.udp_expiry * 1e9) as u64,
                max_subscribers: udp_max_subscribers(args),
                max_per_source: args.udp_per_source,
            })?)
        } else {
            None
        };
        Ok(UdpFanout {
            ep,
            datagram: args.datagram_size,
            core,
            start: Instant::now(),
            subs: HashMap::new(),
            reports: Vec::new(),
            multicast,
        })
    }

    /// The socket to poll for subscription messages (with --udp).
    fn raw_fd(&self) -> Option<std::os::fd::RawFd> {
        self.core.as_ref().map(|_| self.ep.socket().as_raw_fd())
    }

    /// Reads every subscription message waiting (answering Hellos with
    /// cookies), drops subscribers whose address answered with an ICMP
    /// error and those that did not renew in time.
    fn poll(&mut self, now: Instant) {
        let Some(core) = self.core.as_mut() else {
            return;
        };
        let now_ns = now.saturating_duration_since(self.start).as_nanos() as u64;
        let mut buf = [0u8; 64];
        // Bounded per call, so a flood cannot hold the loop.
        for _ in 0..4096 {
            let Ok((n, from)) = self.ep.socket().recv_from(&mut buf) else {
                break;
            };
            let std::net::SocketAddr::V4(from) = from else {
                continue;
            };
            if let Some(reply) = core.handle_datagram(from, &buf[..n], now_ns) {
                if let Err(e) = self.ep.socket().send_to(&reply, from) {
                    tracing::debug!("UDP cookie to {from}: {e}");
                }
            }
        }
        // Each subscriber's own socket: its renewals and Leave, and an
        // ICMP error (port or host unreachable) for what we sent it.
        for (&addr, sub) in &self.subs {
            // The error is reported before datagrams still queued (a Leave
            // sent just before the socket closed): read those first.
            let mut unreachable = false;
            for _ in 0..64 {
                match sub.sock.recv(&mut buf) {
                    Ok(n) => {
                        if let Some(reply) = core.handle_datagram(addr, &buf[..n], now_ns) {
                            if let Err(e) = sub.sock.send(&reply) {
                                tracing::debug!("UDP cookie to {addr}: {e}");
                            }
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        tracing::debug!("UDP to {addr}: {e}");
                        unreachable = true;
                    }
                }
            }
            if unreachable {
                core.handle_unreachable(addr);
            }
        }
        core.handle_timeout(now_ns);
        while let Some(event) = core.poll_event() {
            match event {
                Event::Joined(addr) => {
                    let sock = match self.ep.connected_peer(addr) {
                        Ok(s) => s,
                        Err(e) => {
                            // Without it an unreachable subscriber would
                            // go unnoticed: do not serve it.
                            tracing::warn!("UDP subscriber {addr}: {e}");
                            core.handle_unreachable(addr);
                            continue;
                        }
                    };
                    self.reports.push(UdpReport {
                        peer: addr.to_string(),
                        end: "subscribed",
                        frames_sent: 0,
                        datagrams: 0,
                        frames_failed: 0,
                    });
                    self.subs.insert(
                        addr,
                        Subscriber {
                            report: self.reports.len() - 1,
                            sock,
                        },
                    );
                }
                Event::Ended(addr, why) => {
                    if let Some(s) = self.subs.remove(&addr) {
                        self.reports[s.report].end = why.name();
                    }
                }
            }
        }
    }

    /// Sends the frame in `slot` (`len` bytes, header first) to every subscriber.
    fn send_frame(&mut self, slot: &[u8], len: usize) -> Result<()> {
        if self.subs.is_empty() && self.multicast.is_none() {
            return Ok(());
        }
        let frame = FrameHeaderRepr::parse(&FrameHeader::new_checked(slot)?)?;
        let heads = piece_headers(&frame, self.datagram)?;
        let chunk = self.datagram - HEADER_LEN;
        let payload = slot.get(HEADER_LEN..len).context("frame past its slot")?;
        let pairs: Vec<(&[u8], &[u8])> = heads
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let start = (i * chunk).min(payload.len());
                let end = (start + chunk).min(payload.len());
                (&h[..], &payload[start..end])
            })
            .collect();
        if let Some((group, r)) = self.multicast.as_mut() {
            // Once for every receiver in the group.
            let outcome = self.ep.send_datagrams(*group, &pairs);
            count_frame(
                &outcome,
                *group,
                &mut r.datagrams,
                &mut r.frames_sent,
                &mut r.frames_failed,
            );
        }
        for (addr, s) in &self.subs {
            let r = &mut self.reports[s.report];
            let outcome = self.ep.send_datagrams(*addr, &pairs);
            count_frame(
                &outcome,
                *addr,
                &mut r.datagrams,
                &mut r.frames_sent,
                &mut r.frames_failed,
            );
        }
        Ok(())
    }
}

/// Adds one frame's send to a receiver's counts: datagrams that left, and
/// the frame as sent whole or failed.
fn count_frame(
    outcome: &SendOutcome,
    to: SocketAddrV4,
    datagrams: &mut u64,
    frames_sent: &mut u64,
    frames_failed: &mut u64,
) {
    *datagrams += outcome.sent as u64;
    match outcome.failed.first() {
        None => *frames_sent += 1,
        Some(f) => {
            tracing::debug!(
                "UDP to {to}: {} datagrams not sent: {}",
                outcome.failed_count(),
                f.error
            );
            *frames_failed += 1;
        }
    }
}

enum Source {
    Pattern(PatternMaker),
    File {
        path: PathBuf,
        file: std::fs::File,
        buf: Vec<u8>,
    },
}

impl Source {
    fn next_frame(&mut self, slot: &mut [u8], seq: u64, now_ns: u64) -> Result<usize> {
        match self {
            Source::Pattern(m) => Ok(m.write(slot, seq, now_ns)?),
            Source::File { path, file, buf } => {
                let mut got = 0;
                let mut rewound = false;
                while got < buf.len() {
                    let n = file
                        .read(&mut buf[got..])
                        .with_context(|| format!("reading {}", path.display()))?;
                    if n == 0 {
                        if rewound && got == 0 {
                            bail!("{} is empty", path.display());
                        }
                        std::io::Seek::rewind(file)?;
                        rewound = true;
                    }
                    got += n;
                }
                Ok(write_copied(slot, buf, seq, now_ns)?)
            }
        }
    }
}

/// How long a UDP subscription cookie lasts: it is good in the epoch it
/// was made and the next, and a renewal with last epoch's cookie is
/// answered with this epoch's.
const COOKIE_EPOCH: Duration = Duration::from_secs(30);

/// A fresh random key for this process's cookies.
fn random_key() -> Result<[u8; 16]> {
    let mut key = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut key))
        .context("reading a cookie key from /dev/urandom")?;
    Ok(key)
}

/// Bits per second one UDP subscriber receives: every frame's payload
/// plus, per datagram, the 40-byte header and 28 bytes of IP and UDP.
fn udp_subscriber_bps(args: &ServeArgs) -> f64 {
    let chunk = args.datagram_size.saturating_sub(HEADER_LEN).max(1);
    let datagrams = args.frame_size.div_ceil(chunk).max(1);
    (args.frame_size + datagrams * (HEADER_LEN + 28)) as f64 * 8.0 * args.fps
}

/// Most UDP subscribers: --max-clients, or fewer where that many streams
/// would pass --udp-max-rate.
fn udp_max_subscribers(args: &ServeArgs) -> usize {
    let by_rate = (args.udp_max_rate * 1e6 / udp_subscriber_bps(args)).floor();
    args.max_clients.min(by_rate as usize)
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

struct Conn {
    sock: ClientSocket,
    report: usize,
}

fn client_report(r: &mut ClientReport, end: &'static str, c: &ClientCounters, s: &SocketCounters) {
    r.end = end;
    r.frames_queued = c.frames_queued;
    r.frames_sent = c.frames_sent;
    r.frames_dropped = c.frames_dropped;
    r.bytes_sent = c.bytes_sent;
    r.syscalls = s.syscalls;
    r.would_block = s.would_block;
    r.zc_completions = s.zc_completions;
    r.zc_copied = s.zc_copied;
}

/// Runs `linerate serve`.
pub fn run(args: ServeArgs) -> Result<()> {
    crate::pin_process(args.cpu)?;
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
        if udp_max_subscribers(&args) == 0 {
            bail!(
                "--udp-max-rate {} Mbit/s is below one UDP subscriber's {:.1} Mbit/s ({} fps of {} bytes): raise it or lower the stream's rate",
                args.udp_max_rate,
                udp_subscriber_bps(&args) / 1e6,
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
    let json = args.json;
    let report = serve(&args)?;
    if json {
        crate::json_println!("{}", serde_json::to_string(&report)?);
    } else {
        print_report(&report);
    }
    Ok(())
}

fn print_report(r: &ServeReport) {
    println!(
        "served {} frames of {} bytes at {} fps with {} on {} for {:.1} s: {} clients ({} refused, {} cut), {} frames dropped, {:.3} GB sent in {} syscalls, {:.2} CPU-s, max RSS {} MiB",
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
        r.max_rss_kib / 1024
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
    let method = args.method;
    let mut hub = Hub::new(HubConfig {
        slots: args.slots,
        queue_frames: args.queue,
        max_clients: args.max_clients,
        release: if method.copies() {
            Release::OnWrite
        } else {
            Release::OnAck
        },
        stall_ns: (args.stall_timeout * 1e9) as u64,
    })?;
    // sendfile and splice read the memfd; write and zerocopy read the
    // mapping, best from huge pages (one pin per 2 MiB for MSG_ZEROCOPY).
    // uring registers the pool as fixed buffers: from the memfd's 4 KiB
    // pages, because registered huge pages stalled TCP here (docs/serve.md).
    let mut frames = match method {
        Method::Sendfile | Method::Splice | Method::Uring => {
            SharedFrames::new(args.slots, slot_len(args.frame_size))
                .context("creating the shared frame pool (memfd)")?
        }
        Method::Write | Method::Zerocopy => {
            SharedFrames::anonymous(args.slots, slot_len(args.frame_size))
                .context("creating the shared frame pool")?
        }
    };
    // uring: one ring for all clients, the pool registered with it.
    let mut ring = match method {
        Method::Uring => Some(UringSender::new(&frames, args.max_clients)?),
        _ => None,
    };
    let mut source = if args.source == "pattern" {
        let m = PatternMaker::new(args.frame_size)?;
        for i in 0..frames.slots() {
            if let Some(s) = frames.slot_mut(i) {
                m.prepare_slot(s)?;
            }
        }
        Source::Pattern(m)
    } else {
        let path = PathBuf::from(&args.source);
        let file = std::fs::File::open(&path)
            .with_context(|| format!("opening --source {}", path.display()))?;
        Source::File {
            path,
            file,
            buf: vec![0; args.frame_size],
        }
    };
    let addr = SocketAddrV4::new(args.bind, args.port);
    let listener = TcpListener::bind(addr).with_context(|| format!("listening on {addr}"))?;
    listener.set_nonblocking(true)?;
    // With --port 0 the kernel chose the port: UDP takes the same one.
    let addr = match listener.local_addr() {
        Ok(std::net::SocketAddr::V4(a)) => a,
        _ => addr,
    };
    // UDP only when asked for: subscribers (--udp) or a group (--multicast).
    let mut udp = if args.udp || args.multicast.is_some() {
        Some(UdpFanout::bind(addr, args).with_context(|| format!("UDP on {addr}"))?)
    } else {
        None
    };

    crate::console::say(format_args!(
        "serve: {} fps of {}-byte frames with {} on tcp {addr}{}{}, {}",
        args.fps,
        args.frame_size,
        method.name(),
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
    let mut published = 0u64;
    let mut next_draw = Instant::now();
    let period = Duration::from_secs_f64(1.0 / args.fps);
    let start = Instant::now();
    let end = args.duration.map(|d| start + Duration::from_secs_f64(d));
    let mut next_frame = start;
    let mut conns: HashMap<ClientId, Conn> = HashMap::new();
    let mut reports: Vec<ClientReport> = Vec::new();
    let (mut accepted, mut refused, mut late, mut syscalls_closed) = (0u64, 0u64, 0u64, 0u64);
    let mut refused_per_source = 0u64;

    while !stop.load(Ordering::Relaxed) && end.map_or(true, |e| Instant::now() < e) {
        let now = Instant::now();
        // Make every frame that is due (a late loop skips ticks, counted).
        if now >= next_frame {
            release_all(&mut hub, &mut conns, ring.as_ref())?;
            // A client that took nothing for the stall time, or is still
            // on a frame a pool old, is cut whatever the method (a client
            // that never reads pins too few slots for the pool to wrap).
            let mut cut = hub.cut_slow(start.elapsed().as_nanos() as u64);
            let claim = hub.claim_slot();
            cut.extend(claim.cut.iter().copied());
            for k in &cut {
                if let Some(c) = conns.remove(&k.id) {
                    let s = sock_counters(&c, k.id, ring.as_ref());
                    syscalls_closed += s.syscalls;
                    let r = &mut reports[c.report];
                    client_report(r, "cut", &k.counters, &s);
                    r.cut_reason = Some(k.reason.name());
                    if let Some(r) = ring.as_mut() {
                        // Cancel its send in flight before the reset; its
                        // slots stay held until the notifications come.
                        r.retire(k.id)?;
                    }
                    c.sock.abort();
                }
            }
            if let Some(r) = ring.as_mut() {
                // A client cut loose or closed may still have zero-copy
                // sends reading this slot: wait for their notifications.
                let events = r
                    .wait_slot_free(claim.slot, Duration::from_secs(2))
                    .context("waiting for io_uring to release a frame slot")?;
                apply_uring(
                    events,
                    &mut hub,
                    &mut conns,
                    &mut reports,
                    r,
                    &mut syscalls_closed,
                )?;
            }
            let slot = frames
                .slot_mut(claim.slot)
                .context("the hub named a slot past the pool")?;
            let len = source.next_frame(slot, claim.seq, now_ns())?;
            if let Some(u) = udp.as_mut() {
                u.poll(now);
                u.send_frame(slot, len)?;
            }
            hub.publish(&claim, len);
            published += 1;
            next_frame += period;
            if now > next_frame + period {
                let behind = ((now - next_frame).as_secs_f64() / period.as_secs_f64()) as u64;
                late += behind;
                next_frame += period * behind as u32;
            }
        }
        if let Some(bar) = bar.as_ref().filter(|_| now >= next_draw) {
            next_draw = now + Duration::from_millis(200);
            bar.set_message(format!(
                "{published} frames published, {} clients connected, {accepted} accepted",
                conns.len()
            ));
            bar.tick();
        }
        // Send what each client can take.
        let ids: Vec<ClientId> = conns.keys().copied().collect();
        for id in ids {
            let r = match ring.as_mut() {
                Some(ring) => queue_uring(&mut hub, &conns, &frames, ring, id),
                None => pump(&mut hub, &mut conns, &frames, id),
            };
            if let Err(e) = r {
                tracing::debug!("client {id}: {e}");
                if let Some(c) = conns.remove(&id) {
                    let counters = hub.remove_client(id)?;
                    let s = sock_counters(&c, id, ring.as_ref());
                    syscalls_closed += s.syscalls;
                    client_report(&mut reports[c.report], "closed", &counters, &s);
                    if let Some(r) = ring.as_mut() {
                        r.retire(id)?;
                    }
                }
            }
        }
        if let Some(r) = ring.as_mut() {
            // Every client's sends of this round in one io_uring_enter.
            r.submit().context("submitting io_uring sends")?;
        }
        // Wait for room in a socket that has something to send, a new
        // client, or the next frame.
        let mut waiting = Vec::new();
        let mut fds = Vec::new();
        if ring.is_none() {
            for (&id, c) in &conns {
                if hub.pending(id).is_some() {
                    waiting.push(id);
                    fds.push(c.sock.raw_fd());
                }
            }
        }
        let wait = next_frame.saturating_duration_since(Instant::now());
        let ms = if wait.is_zero() {
            0
        } else {
            wait.as_millis().clamp(1, 50) as i32
        };
        // uring: the ring's descriptor is readable when completions wait.
        let mut listen = vec![listener.as_raw_fd()];
        listen.extend(udp.as_ref().and_then(|u| u.raw_fd()));
        listen.extend(ring.as_ref().map(|r| r.raw_fd()));
        let (readable, _) = wait_ready(&listen, &fds, ms)?;
        if let Some(r) = ring.as_mut() {
            let events = r.reap();
            apply_uring(
                events,
                &mut hub,
                &mut conns,
                &mut reports,
                r,
                &mut syscalls_closed,
            )?;
        }
        if let Some(u) = udp.as_mut().filter(|u| u.core.is_some()) {
            if readable.contains(&1) {
                u.poll(Instant::now());
            }
        }
        if readable.contains(&0) {
            while let Ok((stream, peer)) = listener.accept() {
                let from_peer = conns
                    .values()
                    .filter(|c| c.sock.peer().ip() == peer.ip())
                    .count();
                if from_peer >= args.max_clients_per_source {
                    refused += 1;
                    refused_per_source += 1;
                    drop(stream);
                    continue;
                }
                let sock = match ClientSocket::new(stream, method, args.send_buffer) {
                    Ok(s) => s,
                    Err(e) => {
                        tracing::warn!("client {peer}: {e}");
                        continue;
                    }
                };
                match hub.add_client() {
                    Ok(id) => {
                        accepted += 1;
                        if let Some(r) = ring.as_mut() {
                            r.add_client(id);
                        }
                        reports.push(ClientReport {
                            peer: peer.to_string(),
                            end: "connected",
                            cut_reason: None,
                            frames_queued: 0,
                            frames_sent: 0,
                            frames_dropped: 0,
                            bytes_sent: 0,
                            syscalls: 0,
                            would_block: 0,
                            zc_completions: 0,
                            zc_copied: 0,
                        });
                        conns.insert(
                            id,
                            Conn {
                                sock,
                                report: reports.len() - 1,
                            },
                        );
                    }
                    Err(_) => {
                        refused += 1;
                        drop(sock);
                    }
                }
            }
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let seconds = start.elapsed().as_secs_f64();
    // Leaves (and ICMP errors) that came since the last frame count too.
    if let Some(u) = udp.as_mut() {
        u.poll(Instant::now());
    }
    let mut syscalls = syscalls_closed;
    for (id, c) in conns.drain() {
        let counters = hub.client_counters(id)?;
        let s = sock_counters(&c, id, ring.as_ref());
        syscalls += s.syscalls;
        client_report(&mut reports[c.report], "connected", &counters, &s);
    }
    let uring_sends = ring.as_ref().map(|_| syscalls);
    if let Some(r) = ring.as_ref() {
        syscalls = r.enters();
    }
    let hc = hub.counters();
    let udp_counters = udp
        .as_ref()
        .and_then(|u| u.core.as_ref())
        .map(|c| c.counters())
        .unwrap_or_default();
    Ok(ServeReport {
        address: addr.to_string(),
        method: method.name(),
        frame_size: args.frame_size,
        fps: args.fps,
        seconds,
        frames_published: hc.frames_published,
        frames_late: late,
        clients_accepted: accepted,
        clients_refused: refused,
        clients_refused_per_source: refused_per_source,
        clients_cut: hc.clients_cut,
        frames_dropped: hc.frames_dropped,
        bytes_sent: reports.iter().map(|r| r.bytes_sent).sum(),
        syscalls,
        uring_fixed_buffers: ring.as_ref().map(|r| r.fixed_buffers()),
        uring_sends,
        uring_cancels: ring.as_ref().map(|r| r.cancels()),
        cpu_seconds: crate::usage::process_cpu_seconds(),
        max_rss_kib: max_rss_kib(),
        frame_pool_bytes: frames.slots() * frames.slot_len(),
        clients: reports,
        udp: args.udp,
        udp_max_subscribers: if args.udp {
            udp_max_subscribers(args)
        } else {
            0
        },
        udp_refused: udp_counters.refused_full + udp_counters.refused_per_source,
        udp_challenges: udp_counters.challenges,
        udp_bad_cookies: udp_counters.bad_cookies,
        udp_invalid: udp_counters.invalid,
        multicast: udp
            .as_mut()
            .and_then(|u| u.multicast.take())
            .map(|(_, r)| r),
        udp_subscribers: udp.map(|u| u.reports).unwrap_or_default(),
    })
}

/// Sends to client `id` until its socket is full or it has nothing left.
fn pump(
    hub: &mut Hub,
    conns: &mut HashMap<ClientId, Conn>,
    frames: &SharedFrames,
    id: ClientId,
) -> Result<()> {
    let Some(conn) = conns.get_mut(&id) else {
        return Ok(());
    };
    while let Some(p) = hub.pending(id) {
        let more = hub.queued(id) > 0;
        let n = conn
            .sock
            .send(frames, p.frame.slot, p.offset, p.len, more)
            .with_context(|| format!("sending to {}", conn.sock.peer()))?;
        if n == 0 {
            break;
        }
        hub.sent(id, n)?;
    }
    Ok(())
}

/// Queues one io_uring send to client `id` of what it has pending, if it
/// has nothing in flight (submitted later with every other client's).
fn queue_uring(
    hub: &mut Hub,
    conns: &HashMap<ClientId, Conn>,
    frames: &SharedFrames,
    ring: &mut UringSender,
    id: ClientId,
) -> Result<()> {
    let Some(conn) = conns.get(&id) else {
        return Ok(());
    };
    if !ring.can_send(id) {
        return Ok(());
    }
    if let Some(p) = hub.pending(id) {
        let more = hub.queued(id) > 0;
        let piece = Piece {
            slot: p.frame.slot,
            offset: p.offset,
            len: p.len,
            more,
        };
        ring.queue_send(id, conn.sock.raw_fd(), frames, piece)
            .with_context(|| format!("queueing a send to {}", conn.sock.peer()))?;
    }
    Ok(())
}

/// Applies io_uring completions: bytes taken advance the client's frame (a
/// short send is queued again from there by the next round); an error
/// closes the client with its errno. Notifications need nothing here: they
/// show in [`UringSender::released`].
fn apply_uring(
    events: Vec<Completion>,
    hub: &mut Hub,
    conns: &mut HashMap<ClientId, Conn>,
    reports: &mut [ClientReport],
    ring: &mut UringSender,
    syscalls_closed: &mut u64,
) -> Result<()> {
    for e in events {
        match e {
            Completion::Sent { client, bytes, .. } => {
                if conns.contains_key(&client) {
                    hub.sent(client, bytes)?;
                }
            }
            Completion::Failed { client, errno } => {
                tracing::debug!(
                    "client {client}: {}",
                    std::io::Error::from_raw_os_error(errno)
                );
                if let Some(c) = conns.remove(&client) {
                    let counters = hub.remove_client(client)?;
                    let s = sock_counters(&c, client, Some(ring));
                    *syscalls_closed += s.syscalls;
                    client_report(&mut reports[c.report], "closed", &counters, &s);
                    ring.retire(client)?;
                }
            }
            Completion::Released { .. } | Completion::Ignored => {}
        }
    }
    Ok(())
}

/// A client's socket counters; for uring, from the ring's books (sends
/// queued, notifications, copied).
fn sock_counters(c: &Conn, id: ClientId, ring: Option<&UringSender>) -> SocketCounters {
    match ring {
        Some(r) => {
            let k = r.counters(id);
            SocketCounters {
                syscalls: k.sends,
                would_block: k.short_sends,
                zc_completions: k.notifs,
                zc_copied: k.copied,
            }
        }
        None => c.sock.counters(),
    }
}

/// Tells the hub how far each client's kernel is done with its stream.
fn release_all(
    hub: &mut Hub,
    conns: &mut HashMap<ClientId, Conn>,
    ring: Option<&UringSender>,
) -> Result<()> {
    for (&id, c) in conns.iter_mut() {
        if hub.has_unacked(id) {
            let pos = match ring {
                Some(r) => r.released(id),
                None => c.sock.released().ok(),
            };
            if let Some(pos) = pos {
                hub.acked(id, pos)?;
            }
        }
    }
    Ok(())
}

/// VmHWM of this process in KiB (0 if /proc cannot tell).
fn max_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}
