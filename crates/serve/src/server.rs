//! The frame server's runtime: one frame stream to many TCP clients, UDP
//! subscribers and a multicast group (docs/serve.md).
//!
//! Each frame is made once into a shared slot and sent to every client from
//! there by the chosen method (write, sendfile, splice, zerocopy, uring). One
//! thread, non-blocking sockets and `poll`: a slow client only fills its own
//! socket and queue; it loses its oldest queued frames (counted), and is cut
//! loose when it takes nothing for the stall timeout, falls a pool behind,
//! or pins the oldest slot a new frame needs. Memory is the slot pool, fixed
//! at start. UDP subscribers (`udp` only) join by a cookie handshake.
//!
//! [`spawn`] starts the server on its own thread and returns once it
//! listens; the [`ServerHandle`] gives the address, a counters snapshot for
//! progress, and [`ServerHandle::stop`] the typed [`ServeReport`].

mod config;
mod error;
mod report;
mod source;
mod udp_fanout;

pub use config::{FrameSource, ServerConfig};
pub use error::ServeError;
pub use report::{ClientReport, MulticastReport, ServeCounters, ServeReport, UdpReport};

use std::collections::HashMap;
use std::net::{SocketAddrV4, TcpListener};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use linerate_io::fanout::{wait_ready, ClientSocket, Method, SharedFrames, SocketCounters};
use linerate_io::uring::{Completion, Piece, UringSender};

use crate::frame::slot_len;
use crate::hub::{ClientCounters, ClientId, Hub, HubConfig, Release};
use source::Source;
use udp_fanout::UdpFanout;

/// What the server thread and its handle share: the stop request and the
/// progress counters.
#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
    frames_published: AtomicU64,
    clients_connected: AtomicU64,
    clients_accepted: AtomicU64,
}

/// A running frame server. Dropping it stops the server (its report is
/// lost); call [`ServerHandle::stop`] for the report.
#[derive(Debug)]
pub struct ServerHandle {
    address: SocketAddrV4,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<Result<ServeReport, ServeError>>>,
}

impl ServerHandle {
    /// The address served, with the port the kernel chose for port 0.
    pub fn address(&self) -> SocketAddrV4 {
        self.address
    }

    /// What the server has done so far, for a progress line.
    pub fn counters(&self) -> ServeCounters {
        ServeCounters {
            frames_published: self.shared.frames_published.load(Ordering::Relaxed),
            clients_connected: self.shared.clients_connected.load(Ordering::Relaxed),
            clients_accepted: self.shared.clients_accepted.load(Ordering::Relaxed),
        }
    }

    /// Whether the server has ended by itself (its duration passed, or a
    /// failure), so [`ServerHandle::stop`] returns at once.
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().map_or(true, |t| t.is_finished())
    }

    /// Waits for the server to end by itself (its duration; without one,
    /// forever) and returns its report.
    pub fn wait(mut self) -> Result<ServeReport, ServeError> {
        self.join()
    }

    /// Stops the server (it closes every connection) and returns its report.
    pub fn stop(mut self) -> Result<ServeReport, ServeError> {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.join()
    }

    fn join(&mut self) -> Result<ServeReport, ServeError> {
        match self.thread.take() {
            Some(t) => t.join().unwrap_or(Err(ServeError::Thread("panicked"))),
            None => Err(ServeError::Thread("was already joined")),
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.shared.stop.store(true, Ordering::Relaxed);
            let _ = t.join();
        }
    }
}

/// Starts a frame server on a thread of its own and returns once it
/// listens (or why it could not). The thread is created by the calling
/// thread, so it serves in the caller's network namespace.
pub fn spawn(config: ServerConfig) -> Result<ServerHandle, ServeError> {
    config.validate()?;
    let shared = Arc::new(Shared::default());
    let (started_tx, started_rx) = mpsc::sync_channel(1);
    let thread_shared = Arc::clone(&shared);
    let thread = std::thread::Builder::new()
        .name("linerate-serve".into())
        .spawn(move || {
            let server = match Server::open(&config) {
                Ok(s) => s,
                Err(e) => {
                    let _ = started_tx.send(Err(e));
                    return Err(ServeError::Thread("did not start"));
                }
            };
            let _ = started_tx.send(Ok(server.addr));
            server.run(&config, &thread_shared)
        })
        .map_err(|_| ServeError::Thread("could not be started"))?;
    match started_rx.recv() {
        Ok(Ok(address)) => Ok(ServerHandle {
            address,
            shared,
            thread: Some(thread),
        }),
        Ok(Err(e)) => {
            let _ = thread.join();
            Err(e)
        }
        Err(_) => Err(thread.join().map_or(ServeError::Thread("panicked"), |r| {
            r.err().unwrap_or(ServeError::Thread("panicked"))
        })),
    }
}

/// One TCP client's socket and its place in the report.
struct Conn {
    sock: ClientSocket,
    report: usize,
}

/// Everything the serving loop owns, opened before it starts.
struct Server {
    method: Method,
    hub: Hub,
    frames: SharedFrames,
    ring: Option<UringSender>,
    source: Source,
    listener: TcpListener,
    addr: SocketAddrV4,
    udp: Option<UdpFanout>,
}

impl Server {
    /// Opens the pool, the ring, the source and the sockets of `config`.
    fn open(config: &ServerConfig) -> Result<Server, ServeError> {
        let method = config.method;
        let hub = Hub::new(HubConfig {
            slots: config.slots,
            queue_frames: config.queue,
            max_clients: config.max_clients,
            release: if method.copies() {
                Release::OnWrite
            } else {
                Release::OnAck
            },
            stall_ns: config.stall_timeout.as_nanos() as u64,
        })?;
        // sendfile and splice read the memfd; write and zerocopy read the
        // mapping, best from huge pages (one pin per 2 MiB for MSG_ZEROCOPY).
        // uring registers the pool as fixed buffers: from the memfd's 4 KiB
        // pages, because registered huge pages stalled TCP here (docs/serve.md).
        let mut frames = match method {
            Method::Sendfile | Method::Splice | Method::Uring => {
                SharedFrames::new(config.slots, slot_len(config.frame_size))
            }
            Method::Write | Method::Zerocopy => {
                SharedFrames::anonymous(config.slots, slot_len(config.frame_size))
            }
        }
        .map_err(ServeError::FramePool)?;
        // uring: one ring for all clients, the pool registered with it.
        let ring = match method {
            Method::Uring => Some(UringSender::new(&frames, config.max_clients)?),
            _ => None,
        };
        let source = Source::open(&config.source, config.frame_size, &mut frames)?;
        let listener = TcpListener::bind(config.bind).map_err(|source| ServeError::Listen {
            addr: config.bind,
            source,
        })?;
        listener
            .set_nonblocking(true)
            .map_err(ServeError::io("making the listener non-blocking"))?;
        // With port 0 the kernel chose the port: UDP takes the same one.
        let addr = match listener.local_addr() {
            Ok(std::net::SocketAddr::V4(a)) => a,
            _ => config.bind,
        };
        // UDP only when asked for: subscribers or a multicast group.
        let udp = if config.udp || config.multicast.is_some() {
            Some(UdpFanout::bind(addr, config)?)
        } else {
            None
        };
        Ok(Server {
            method,
            hub,
            frames,
            ring,
            source,
            listener,
            addr,
            udp,
        })
    }

    /// Serves until `shared.stop` or the configured duration; returns the
    /// report.
    fn run(mut self, config: &ServerConfig, shared: &Shared) -> Result<ServeReport, ServeError> {
        let Server {
            method,
            ref mut hub,
            ref mut frames,
            ref mut ring,
            ref mut source,
            ref listener,
            addr,
            ref mut udp,
        } = self;
        let period = Duration::from_secs_f64(1.0 / config.fps);
        let start = Instant::now();
        let end = config.duration.map(|d| start + d);
        let mut next_frame = start;
        let mut conns: HashMap<ClientId, Conn> = HashMap::new();
        let mut reports: Vec<ClientReport> = Vec::new();
        let (mut accepted, mut refused, mut late, mut syscalls_closed) = (0u64, 0u64, 0u64, 0u64);
        let mut refused_per_source = 0u64;

        while !shared.stop.load(Ordering::Relaxed) && end.map_or(true, |e| Instant::now() < e) {
            let now = Instant::now();
            // Make every frame that is due (a late loop skips ticks, counted).
            if now >= next_frame {
                release_all(hub, &mut conns, ring.as_ref())?;
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
                        r.cut_reason = Some(k.reason.name().into());
                        if let Some(r) = ring.as_mut() {
                            // Cancel its send in flight before the reset; its
                            // slots stay held until the notifications come.
                            r.retire(k.id)
                                .map_err(ServeError::io("cancelling a cut client's send"))?;
                        }
                        c.sock.abort();
                    }
                }
                if let Some(r) = ring.as_mut() {
                    // A client cut loose or closed may still have zero-copy
                    // sends reading this slot: wait for their notifications.
                    let events = r
                        .wait_slot_free(claim.slot, Duration::from_secs(2))
                        .map_err(ServeError::io(
                            "waiting for io_uring to release a frame slot",
                        ))?;
                    apply_uring(
                        events,
                        hub,
                        &mut conns,
                        &mut reports,
                        r,
                        &mut syscalls_closed,
                    )?;
                }
                let slot = frames
                    .slot_mut(claim.slot)
                    .ok_or(ServeError::SlotPastPool(claim.slot))?;
                let len = source.next_frame(slot, claim.seq, linerate_io::clock::realtime_ns())?;
                if let Some(u) = udp.as_mut() {
                    u.poll(now);
                    u.send_frame(slot, len)?;
                }
                hub.publish(&claim, len);
                shared.frames_published.fetch_add(1, Ordering::Relaxed);
                next_frame += period;
                if now > next_frame + period {
                    let behind = ((now - next_frame).as_secs_f64() / period.as_secs_f64()) as u64;
                    late += behind;
                    next_frame += period * behind as u32;
                }
            }
            // Send what each client can take.
            let ids: Vec<ClientId> = conns.keys().copied().collect();
            for id in ids {
                let r = match ring.as_mut() {
                    Some(ring) => queue_uring(hub, &conns, frames, ring, id),
                    None => pump(hub, &mut conns, frames, id),
                };
                if let Err(e) = r {
                    tracing::debug!("client {id}: {e}");
                    if let Some(c) = conns.remove(&id) {
                        let counters = hub.remove_client(id)?;
                        let s = sock_counters(&c, id, ring.as_ref());
                        syscalls_closed += s.syscalls;
                        client_report(&mut reports[c.report], "closed", &counters, &s);
                        if let Some(r) = ring.as_mut() {
                            r.retire(id)
                                .map_err(ServeError::io("cancelling a closed client's send"))?;
                        }
                    }
                }
            }
            if let Some(r) = ring.as_mut() {
                // Every client's sends of this round in one io_uring_enter.
                r.submit()
                    .map_err(ServeError::io("submitting io_uring sends"))?;
            }
            shared
                .clients_connected
                .store(conns.len() as u64, Ordering::Relaxed);
            // Wait for room in a socket that has something to send, a new
            // client, or the next frame.
            let mut fds = Vec::new();
            if ring.is_none() {
                for (&id, c) in &conns {
                    if hub.pending(id).is_some() {
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
            let (readable, _) =
                wait_ready(&listen, &fds, ms).map_err(ServeError::io("waiting for the sockets"))?;
            if let Some(r) = ring.as_mut() {
                let events = r.reap();
                apply_uring(
                    events,
                    hub,
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
                    if from_peer >= config.max_clients_per_source {
                        refused += 1;
                        refused_per_source += 1;
                        drop(stream);
                        continue;
                    }
                    let sock = match ClientSocket::new(stream, method, config.send_buffer) {
                        Ok(s) => s,
                        Err(e) => {
                            tracing::warn!("client {peer}: {e}");
                            continue;
                        }
                    };
                    match hub.add_client() {
                        Ok(id) => {
                            accepted += 1;
                            shared.clients_accepted.store(accepted, Ordering::Relaxed);
                            if let Some(r) = ring.as_mut() {
                                r.add_client(id);
                            }
                            reports.push(ClientReport::connected(peer.to_string()));
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
        shared.clients_connected.store(0, Ordering::Relaxed);
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
            method: method.name().into(),
            frame_size: config.frame_size,
            fps: config.fps,
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
            cpu_seconds: linerate_io::sched::process_cpu_seconds(),
            max_rss_kib: report::max_rss_kib(),
            frame_pool_bytes: frames.slots() * frames.slot_len(),
            clients: reports,
            udp: config.udp,
            udp_max_subscribers: if config.udp {
                config.udp_max_subscribers()
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
            udp_subscribers: udp.take().map(|u| u.reports).unwrap_or_default(),
        })
    }
}

/// A failure of one client's send: it closes that client, not the server.
#[derive(Debug, thiserror::Error)]
enum ClientError {
    #[error("sending to {peer}: {source}")]
    Send {
        peer: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Core(#[from] crate::Error),
}

/// Sends to client `id` until its socket is full or it has nothing left.
fn pump(
    hub: &mut Hub,
    conns: &mut HashMap<ClientId, Conn>,
    frames: &SharedFrames,
    id: ClientId,
) -> Result<(), ClientError> {
    let Some(conn) = conns.get_mut(&id) else {
        return Ok(());
    };
    while let Some(p) = hub.pending(id) {
        let more = hub.queued(id) > 0;
        let n = conn
            .sock
            .send(frames, p.frame.slot, p.offset, p.len, more)
            .map_err(|source| ClientError::Send {
                peer: conn.sock.peer(),
                source,
            })?;
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
) -> Result<(), ClientError> {
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
            .map_err(|source| ClientError::Send {
                peer: conn.sock.peer(),
                source,
            })?;
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
) -> Result<(), ServeError> {
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
                    ring.retire(client)
                        .map_err(ServeError::io("cancelling a failed client's send"))?;
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
) -> Result<(), ServeError> {
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

/// Copies a client's hub and socket counters into its report, with how it
/// ended.
fn client_report(r: &mut ClientReport, end: &str, c: &ClientCounters, s: &SocketCounters) {
    r.end = end.into();
    r.frames_queued = c.frames_queued;
    r.frames_sent = c.frames_sent;
    r.frames_dropped = c.frames_dropped;
    r.bytes_sent = c.bytes_sent;
    r.syscalls = s.syscalls;
    r.would_block = s.would_block;
    r.zc_completions = s.zc_completions;
    r.zc_copied = s.zc_copied;
}
