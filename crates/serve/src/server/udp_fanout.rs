//! UDP subscribers and the multicast group: each frame is cut into
//! datagrams whose headers are built once, and sent to every subscriber
//! straight from the frame's slot (the kernel copies; nothing is held after
//! the call), with UDP GSO where the egress interface segments before the
//! wire, batched one datagram per message elsewhere.

use std::collections::HashMap;
use std::io::Read;
use std::net::SocketAddrV4;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use linerate_io::udp::{SendOutcome, UdpEndpoint, UdpOptions};
use linerate_wire::served::{FrameHeader, FrameHeaderRepr, HEADER_LEN};

use super::config::ServerConfig;
use super::error::ServeError;
use super::report::{MulticastReport, UdpReport};
use crate::datagram::piece_headers;
use crate::subscribe::{Event, SubscriptionConfig, Subscriptions};

/// How long a UDP subscription cookie lasts: it is good in the epoch it
/// was made and the next, and a renewal with last epoch's cookie is
/// answered with this epoch's.
const COOKIE_EPOCH: Duration = Duration::from_secs(30);

struct Subscriber {
    report: usize,
    /// A socket on the server's address connected to the subscriber: its
    /// renewals, and the ICMP errors our datagrams to it provoke, arrive
    /// here (and only here).
    sock: std::net::UdpSocket,
}

/// The server's UDP side: subscribers (with `udp`) and the multicast group.
pub(crate) struct UdpFanout {
    ep: UdpEndpoint,
    datagram: usize,
    /// The subscription handshake and limits (with `udp`).
    pub(crate) core: Option<Subscriptions>,
    /// The clock of `core`.
    start: Instant,
    /// Confirmed subscribers, as `core` reports them.
    subs: HashMap<SocketAddrV4, Subscriber>,
    pub(crate) reports: Vec<UdpReport>,
    /// The multicast group, sent every frame once (from the same socket).
    pub(crate) multicast: Option<(SocketAddrV4, MulticastReport)>,
}

impl UdpFanout {
    /// Binds the UDP socket at `addr` (the TCP listener's address).
    pub(crate) fn bind(addr: SocketAddrV4, config: &ServerConfig) -> Result<UdpFanout, ServeError> {
        let udp_err = |source| ServeError::Udp { addr, source };
        let ep = UdpEndpoint::bind(
            addr,
            &UdpOptions {
                send_buffer: Some(4 << 20),
                reuse_address: true,
                ..UdpOptions::default()
            },
        )
        .map_err(udp_err)?;
        ep.socket()
            .set_nonblocking(true)
            .map_err(ServeError::io("making the UDP socket non-blocking"))?;
        let multicast = match config.multicast {
            Some(group) => {
                // Out of the bind address's interface only, one hop, and
                // not looped back to this host.
                linerate_io::socket::set_multicast_sender(ep.socket(), *addr.ip(), 1)
                    .map_err(ServeError::io("sending multicast out of the bind address"))?;
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
        let core = if config.udp {
            Some(Subscriptions::new(SubscriptionConfig {
                key: random_key()?,
                epoch_ns: COOKIE_EPOCH.as_nanos() as u64,
                expiry_ns: config.udp_expiry.as_nanos() as u64,
                max_subscribers: config.udp_max_subscribers(),
                max_per_source: config.udp_per_source,
            })?)
        } else {
            None
        };
        Ok(UdpFanout {
            ep,
            datagram: config.datagram_size,
            core,
            start: Instant::now(),
            subs: HashMap::new(),
            reports: Vec::new(),
            multicast,
        })
    }

    /// The socket to poll for subscription messages (with `udp`).
    pub(crate) fn raw_fd(&self) -> Option<std::os::fd::RawFd> {
        self.core.as_ref().map(|_| self.ep.socket().as_raw_fd())
    }

    /// Reads every subscription message waiting (answering Hellos with
    /// cookies), drops subscribers whose address answered with an ICMP
    /// error and those that did not renew in time.
    pub(crate) fn poll(&mut self, now: Instant) {
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
                        end: "subscribed".into(),
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
                        self.reports[s.report].end = why.name().into();
                    }
                }
            }
        }
    }

    /// Sends the frame in `slot` (`len` bytes, header first) to every subscriber.
    pub(crate) fn send_frame(&mut self, slot: &[u8], len: usize) -> Result<(), ServeError> {
        if self.subs.is_empty() && self.multicast.is_none() {
            return Ok(());
        }
        let header = FrameHeader::new_checked(slot).map_err(crate::Error::from)?;
        let frame = FrameHeaderRepr::parse(&header).map_err(crate::Error::from)?;
        let heads = piece_headers(&frame, self.datagram)?;
        let chunk = self.datagram - HEADER_LEN;
        let payload = slot
            .get(HEADER_LEN..len)
            .ok_or(crate::Error::SlotTooSmall {
                need: len,
                have: slot.len(),
            })?;
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

/// A fresh random key for this server's cookies.
fn random_key() -> Result<[u8; 16], ServeError> {
    let mut key = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut key))
        .map_err(ServeError::io("reading a cookie key from /dev/urandom"))?;
    Ok(key)
}
