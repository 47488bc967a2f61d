//! One watch client: receives frames over TCP, a UDP subscription or a
//! multicast group, verifies each and times it from its capture stamp.

use std::io::Read;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use linerate_io::clock::realtime_ns;
use linerate_wire::served::{Cookie, SubscribeMessage, SubscribeRepr, SUBSCRIBE_LEN};
use linerate_wire::served::{FrameHeader, FrameHeaderRepr, HEADER_LEN};

use super::{ClientResult, WatchConfig};
use crate::datagram::Reassembler;
use crate::verify::{Verdict, Verifier, VerifyCounters};

/// When a client stops (the deadline or a stop request), and the count of
/// frames all clients verified, for the progress line.
pub(super) struct End {
    pub(super) deadline: Instant,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) verified: Arc<AtomicU64>,
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
        let us = realtime_ns().saturating_sub(capture_ns) / 1000;
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
pub(super) fn udp(
    i: usize,
    config: &WatchConfig,
    multicast: Option<Ipv4Addr>,
    end: &End,
) -> ClientResult {
    let server = config.server;
    let mut verifier = Verifier::new();
    let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).ok();
    let started = Instant::now();
    let outcome = (|| -> std::io::Result<()> {
        let want = if config.recv_buffer > 0 {
            config.recv_buffer
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
    finish(
        ClientResult::empty(i),
        &verifier,
        hist.as_ref(),
        started,
        outcome,
    )
}

/// A TCP client: connects, reads header then payload, verifies each frame.
pub(super) fn tcp(i: usize, config: &WatchConfig, end: &End) -> ClientResult {
    let server = config.server;
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
        if config.recv_buffer > 0 {
            linerate_io::socket::set_recv_buffer(&s, config.recv_buffer)?;
        }
        s.set_read_timeout(Some(Duration::from_millis(100)))?;
        let mut header = [0u8; HEADER_LEN];
        let mut payload = Vec::new();
        loop {
            if !read_until(&mut s, &mut header, end, config.quickack)? {
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
            if !read_until(&mut s, &mut payload, end, config.quickack)? {
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
    finish(
        ClientResult::empty(i),
        &verifier,
        hist.as_ref(),
        started,
        outcome,
    )
}
