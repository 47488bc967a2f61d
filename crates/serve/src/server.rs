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
    /// Connected TCP clients.
    conns: HashMap<ClientId, Conn>,
    /// Every TCP client's report, in order of arrival.
    reports: Vec<ClientReport>,
    tally: Tally,
}

/// The server's own counts, beside the hub's.
#[derive(Debug, Default)]
struct Tally {
    accepted: u64,
    refused: u64,
    refused_per_source: u64,
    /// Frame ticks missed because the loop ran late.
    late: u64,
    /// Send syscalls of clients no longer connected.
    syscalls_closed: u64,
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
            conns: HashMap::new(),
            reports: Vec::new(),
            tally: Tally::default(),
        })
    }

    /// Serves until `shared.stop` or the configured duration; returns the
    /// report.
    fn run(mut self, config: &ServerConfig, shared: &Shared) -> Result<ServeReport, ServeError> {
        let period = Duration::from_secs_f64(1.0 / config.fps);
        let start = Instant::now();
        let end = config.duration.map(|d| start + d);
        let mut next_frame = start;
        while !shared.stop.load(Ordering::Relaxed) && end.map_or(true, |e| Instant::now() < e) {
            let now = Instant::now();
            // Make every frame that is due (a late loop skips ticks, counted).
            if now >= next_frame {
                self.make_frame(now, start)?;
                shared.frames_published.fetch_add(1, Ordering::Relaxed);
                next_frame += period;
                if now > next_frame + period {
                    let behind = ((now - next_frame).as_secs_f64() / period.as_secs_f64()) as u64;
                    self.tally.late += behind;
                    next_frame += period * behind as u32;
                }
            }
            self.send_round()?;
            shared
                .clients_connected
                .store(self.conns.len() as u64, Ordering::Relaxed);
            let readable = self.wait(next_frame)?;
            if let Some(u) = self.udp.as_mut().filter(|u| u.core.is_some()) {
                if readable.contains(&1) {
                    u.poll(Instant::now());
                }
            }
            if readable.contains(&0) {
                self.accept(config);
                shared
                    .clients_accepted
                    .store(self.tally.accepted, Ordering::Relaxed);
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        shared.clients_connected.store(0, Ordering::Relaxed);
        self.finish(config, seconds)
    }

    /// Cuts the clients the hub finds too slow, claims a slot (waiting, for
    /// uring, until the kernel is done with it), makes the next frame there
    /// and publishes it to every client, subscriber and group.
    fn make_frame(&mut self, now: Instant, start: Instant) -> Result<(), ServeError> {
        release_all(&mut self.hub, &mut self.conns, self.ring.as_ref())?;
        // A client that took nothing for the stall time, or is still on a
        // frame a pool old, is cut whatever the method (a client that never
        // reads pins too few slots for the pool to wrap).
        let mut cut = self.hub.cut_slow(start.elapsed().as_nanos() as u64);
        let claim = self.hub.claim_slot();
        cut.extend(claim.cut.iter().copied());
        for k in &cut {
            if let Some(c) = self.conns.remove(&k.id) {
                let s = sock_counters(&c, k.id, self.ring.as_ref());
                self.tally.syscalls_closed += s.syscalls;
                let r = &mut self.reports[c.report];
                client_report(r, "cut", &k.counters, &s);
                r.cut_reason = Some(k.reason.name().into());
                if let Some(r) = self.ring.as_mut() {
                    // Cancel its send in flight before the reset; its slots
                    // stay held until the notifications come.
                    r.retire(k.id)
                        .map_err(ServeError::io("cancelling a cut client's send"))?;
                }
                c.sock.abort();
            }
        }
        if let Some(r) = self.ring.as_mut() {
            // A client cut loose or closed may still have zero-copy sends
            // reading this slot: wait for their notifications.
            let events = r
                .wait_slot_free(claim.slot, Duration::from_secs(2))
                .map_err(ServeError::io(
                    "waiting for io_uring to release a frame slot",
                ))?;
            self.apply_uring(events)?;
        }
        let slot = self
            .frames
            .slot_mut(claim.slot)
            .ok_or(ServeError::SlotPastPool(claim.slot))?;
        let len = self
            .source
            .next_frame(slot, claim.seq, linerate_io::clock::realtime_ns())?;
        if let Some(u) = self.udp.as_mut() {
            u.poll(now);
            u.send_frame(slot, len)?;
        }
        self.hub.publish(&claim, len);
        Ok(())
    }

    /// Sends what each client can take (for uring: queues one send per
    /// client, all submitted in one `io_uring_enter`). A client whose send
    /// fails is closed.
    fn send_round(&mut self) -> Result<(), ServeError> {
        let ids: Vec<ClientId> = self.conns.keys().copied().collect();
        for id in ids {
            let r = match self.ring.as_mut() {
                Some(ring) => queue_uring(&mut self.hub, &self.conns, &self.frames, ring, id),
                None => pump(&mut self.hub, &mut self.conns, &self.frames, id),
            };
            if let Err(e) = r {
                tracing::debug!("client {id}: {e}");
                self.close(id)?;
            }
        }
        if let Some(r) = self.ring.as_mut() {
            r.submit()
                .map_err(ServeError::io("submitting io_uring sends"))?;
        }
        Ok(())
    }

    /// Waits until `next_frame` at most (50 ms at most) for room in a
    /// socket that has something to send, a new client, a subscription
    /// message or io_uring completions (applied here); returns which of
    /// the listener (0) and the UDP socket (1) are readable.
    fn wait(&mut self, next_frame: Instant) -> Result<Vec<usize>, ServeError> {
        let mut fds = Vec::new();
        if self.ring.is_none() {
            for (&id, c) in &self.conns {
                if self.hub.pending(id).is_some() {
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
        let mut listen = vec![self.listener.as_raw_fd()];
        listen.extend(self.udp.as_ref().and_then(|u| u.raw_fd()));
        listen.extend(self.ring.as_ref().map(|r| r.raw_fd()));
        let (readable, _) =
            wait_ready(&listen, &fds, ms).map_err(ServeError::io("waiting for the sockets"))?;
        if let Some(r) = self.ring.as_mut() {
            let events = r.reap();
            self.apply_uring(events)?;
        }
        Ok(readable)
    }

    /// Accepts every waiting connection: refused past the per-source or
    /// total limit (closed at once), otherwise a new client of the hub.
    fn accept(&mut self, config: &ServerConfig) {
        while let Ok((stream, peer)) = self.listener.accept() {
            let from_peer = self
                .conns
                .values()
                .filter(|c| c.sock.peer().ip() == peer.ip())
                .count();
            if from_peer >= config.max_clients_per_source {
                self.tally.refused += 1;
                self.tally.refused_per_source += 1;
                drop(stream);
                continue;
            }
            let sock = match ClientSocket::new(stream, self.method, config.send_buffer) {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!("client {peer}: {e}");
                    continue;
                }
            };
            match self.hub.add_client() {
                Ok(id) => {
                    self.tally.accepted += 1;
                    if let Some(r) = self.ring.as_mut() {
                        r.add_client(id);
                    }
                    self.reports.push(ClientReport::connected(peer.to_string()));
                    let report = self.reports.len() - 1;
                    self.conns.insert(id, Conn { sock, report });
                }
                Err(_) => {
                    self.tally.refused += 1;
                    drop(sock);
                }
            }
        }
    }

    /// Closes client `id` after a failed send (by the client or an error),
    /// with its counters in its report.
    fn close(&mut self, id: ClientId) -> Result<(), ServeError> {
        if let Some(c) = self.conns.remove(&id) {
            let counters = self.hub.remove_client(id)?;
            let s = sock_counters(&c, id, self.ring.as_ref());
            self.tally.syscalls_closed += s.syscalls;
            client_report(&mut self.reports[c.report], "closed", &counters, &s);
            if let Some(r) = self.ring.as_mut() {
                r.retire(id)
                    .map_err(ServeError::io("cancelling a closed client's send"))?;
            }
        }
        Ok(())
    }

    /// Applies io_uring completions: bytes taken advance the client's frame
    /// (a short send is queued again from there by the next round); an
    /// error closes the client. Notifications need nothing here: they show
    /// in [`UringSender::released`].
    fn apply_uring(&mut self, events: Vec<Completion>) -> Result<(), ServeError> {
        for e in events {
            match e {
                Completion::Sent { client, bytes, .. } => {
                    if self.conns.contains_key(&client) {
                        self.hub.sent(client, bytes)?;
                    }
                }
                Completion::Failed { client, errno } => {
                    tracing::debug!(
                        "client {client}: {}",
                        std::io::Error::from_raw_os_error(errno)
                    );
                    self.close(client)?;
                }
                Completion::Released { .. } | Completion::Ignored => {}
            }
        }
        Ok(())
    }

    /// The report after `seconds` of serving: every client still connected
    /// counted as such, the UDP side's last messages read.
    fn finish(mut self, config: &ServerConfig, seconds: f64) -> Result<ServeReport, ServeError> {
        // Leaves (and ICMP errors) that came since the last frame count too.
        if let Some(u) = self.udp.as_mut() {
            u.poll(Instant::now());
        }
        let mut syscalls = self.tally.syscalls_closed;
        for (id, c) in self.conns.drain() {
            let counters = self.hub.client_counters(id)?;
            let s = sock_counters(&c, id, self.ring.as_ref());
            syscalls += s.syscalls;
            client_report(&mut self.reports[c.report], "connected", &counters, &s);
        }
        let ring = self.ring.as_ref();
        let uring_sends = ring.map(|_| syscalls);
        if let Some(r) = ring {
            syscalls = r.enters();
        }
        let hc = self.hub.counters();
        let udp_counters = self
            .udp
            .as_ref()
            .and_then(|u| u.core.as_ref())
            .map(|c| c.counters())
            .unwrap_or_default();
        let (multicast, udp_subscribers) = match self.udp.take() {
            Some(u) => (u.multicast.map(|(_, r)| r), u.reports),
            None => (None, Vec::new()),
        };
        Ok(ServeReport {
            address: self.addr.to_string(),
            method: self.method.name().into(),
            frame_size: config.frame_size,
            fps: config.fps,
            seconds,
            frames_published: hc.frames_published,
            frames_late: self.tally.late,
            clients_accepted: self.tally.accepted,
            clients_refused: self.tally.refused,
            clients_refused_per_source: self.tally.refused_per_source,
            clients_cut: hc.clients_cut,
            frames_dropped: hc.frames_dropped,
            bytes_sent: self.reports.iter().map(|r| r.bytes_sent).sum(),
            syscalls,
            uring_fixed_buffers: ring.map(|r| r.fixed_buffers()),
            uring_sends,
            uring_cancels: ring.map(|r| r.cancels()),
            cpu_seconds: linerate_io::sched::process_cpu_seconds(),
            max_rss_mib: linerate_io::memory::peak_resident_mib(),
            frame_pool_bytes: self.frames.slots() * self.frames.slot_len(),
            clients: self.reports,
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
            udp_subscribers,
            multicast,
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
