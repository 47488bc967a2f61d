//! The camera's stream thread: produces frames on time, sends them as GVSP
//! with batched scatter-gather sends, and serves resend requests from the
//! frame ring.
//!
//! All timing and bookkeeping decisions come from sans-IO pieces in
//! `linerate-gev` (frame clock, block plan, frame ring); this file only
//! moves bytes and sleeps. On the TCP transport the frames go through
//! [`super::tcp_stream`] instead of the UDP socket.

use std::net::SocketAddrV4;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use linerate_gev::block_plan::BlockPlan;
use linerate_gev::frame_clock::{FrameClock, Tick};
use linerate_gev::frame_ring::{FrameRing, ResendItem};
use linerate_gev::test_pattern::{self, Generator, PatternStrip};
use linerate_io::netdev::GsoEgress;
use linerate_io::tcp::send::{TcpSendOptions, Waiting};
use linerate_io::udp::{GsoPolicy, UdpEndpoint};
use linerate_wire::gvcp::PacketResend;
use linerate_wire::gvsp::{
    HeaderRepr, ImageInfo, LeaderInfo, LeaderRepr, PacketFormat, PayloadType, TrailerRepr,
};
use linerate_wire::{PixelFormat, Status};

use super::events::{CameraEvent, EventSink};
use super::tcp_stream::{BlockOutcome, FrameBytes, TcpLink};

/// Packets prepared per send call (one sendmmsg, or a few GSO super-datagrams).
const BATCH: usize = 256;
/// Room for the largest head: extended header + image leader.
const HEAD_ROOM: usize = 64;
/// How long the frames of an ended acquisition stay resendable before
/// their memory is given back: the host's last resend requests come
/// within milliseconds of the last packet.
const RELEASE_AFTER_STOP: Duration = Duration::from_secs(1);

/// How the frames reach the host (the LinerateTransport register).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Standard GVSP datagrams, `packet_size` each.
    Udp,
    /// GVSP records on one TCP connection to the destination.
    Tcp {
        /// Image data bytes per payload record.
        data_per_packet: usize,
    },
}

/// What the stream needs to know at acquisition start.
#[derive(Debug, Clone)]
pub struct StreamSettings {
    /// Host address and port the stream goes to (UDP), or connects to (TCP).
    pub destination: SocketAddrV4,
    /// UDP datagrams or TCP records.
    pub transport: Transport,
    /// SCPS packet size (IP + UDP + GVSP headers + data).
    pub packet_size: usize,
    /// Delay between packets in nanoseconds (SCPD with a 1 GHz tick).
    pub packet_delay_ns: u64,
    /// Use 64-bit block ids and 32-bit packet ids.
    pub extended_ids: bool,
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// Region offsets, reported in the leader.
    pub offset_x: u32,
    /// Region offsets, reported in the leader.
    pub offset_y: u32,
    /// Pixel format.
    pub pixel_format: PixelFormat,
    /// Frames per second in free-running mode.
    pub frame_rate: f64,
    /// Frames to send before stopping by itself (None: until told to stop).
    pub frame_limit: Option<u64>,
    /// One frame per software trigger instead of free running.
    pub triggered: bool,
    /// Moving gradient for viewing instead of the fast verifiable pattern.
    pub gradient: bool,
    /// Device timestamp minus stream-thread time at start, in ns, so leader
    /// timestamps match the timestamp registers (which a host may reset).
    pub timestamp_offset_ns: i128,
}

/// Requests from the control thread.
#[derive(Debug)]
pub enum StreamCommand {
    /// Start streaming with these settings.
    Start(StreamSettings),
    /// Stop streaming (frames already sent stay resendable for a second,
    /// then their memory is given back).
    Stop,
    /// A software trigger arrived at this instant.
    Trigger(Instant),
    /// The host asks for packets again.
    Resend(PacketResend),
    /// Send a test packet of `size` bytes (IP + UDP + payload) to `destination`.
    TestPacket {
        /// Where to send it.
        destination: SocketAddrV4,
        /// SCPS packet size.
        size: usize,
    },
    /// End the thread.
    Shutdown,
}

pub use super::counters::StreamCounters;

/// The stream thread's state.
pub struct Streamer {
    socket: UdpEndpoint,
    commands: Receiver<StreamCommand>,
    counters: Arc<StreamCounters>,
    epoch: Instant,
    ring: FrameRing,
    slot_phase: Vec<Option<(u64, usize)>>,
    heads: Vec<[u8; HEAD_ROOM]>,
    frame_number: u64,
    next_block_id: u64,
    settings: Option<StreamSettings>,
    generator: Option<Generator>,
    /// Test-pattern frames over TCP are gathered from this strip, never drawn.
    strip: Option<PatternStrip>,
    sent_in_run: u64,
    last_destination: Option<SocketAddrV4>,
    /// When send errors were last reported (they are counted always,
    /// reported at most every few seconds).
    last_error_report: Option<Instant>,
    /// Where events (send errors, egress decisions, TCP links) go.
    events: EventSink,
    tcp_options: TcpSendOptions,
    /// The current (or, after a stop, the last) acquisition's TCP link.
    tcp: Option<TcpLink>,
    /// The last acquisition ran on TCP: resend requests are ignored.
    on_tcp: bool,
    /// A shutdown came while a frame was going out.
    exit: bool,
    /// Commands read while a TCP send was held up, for the main loop.
    pending: std::collections::VecDeque<StreamCommand>,
    /// When the resend buffer of the ended acquisition is given back.
    release_at: Option<Instant>,
}

/// Whether the main loop should go on.
enum Flow {
    Continue,
    Exit,
}

impl Streamer {
    /// A stream thread state sending from `socket`, keeping up to
    /// `resend.0` frames and `resend.1` bytes of them for resends. With
    /// `gso` false, every packet goes as its own datagram; otherwise UDP
    /// GSO is used where the egress interface segments. Events go to
    /// `events`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        mut socket: UdpEndpoint,
        commands: Receiver<StreamCommand>,
        counters: Arc<StreamCounters>,
        epoch: Instant,
        resend: (usize, usize),
        gso: bool,
        tcp_options: TcpSendOptions,
        events: EventSink,
    ) -> Streamer {
        let ring = FrameRing::with_memory_limit(resend.0, resend.1);
        if !gso {
            socket.set_gso_policy(GsoPolicy::Never);
        }
        Streamer {
            slot_phase: vec![None; ring.capacity()],
            ring,
            socket,
            commands,
            counters,
            epoch,
            heads: vec![[0u8; HEAD_ROOM]; BATCH],
            frame_number: 0,
            next_block_id: 1,
            settings: None,
            generator: None,
            strip: None,
            sent_in_run: 0,
            last_destination: None,
            last_error_report: None,
            events,
            tcp_options,
            tcp: None,
            on_tcp: false,
            exit: false,
            pending: std::collections::VecDeque::new(),
            release_at: None,
        }
    }

    fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Runs until `Shutdown` or until the control thread goes away.
    pub fn run(mut self) {
        let mut clock: Option<FrameClock> = None;
        loop {
            if self.exit {
                self.stop();
                return;
            }
            if self.release_at.is_some_and(|t| Instant::now() >= t) {
                self.release_at = None;
                self.ring.release();
                self.slot_phase.fill(None);
                // Freed frames may sit in the allocator's heap; give them back.
                linerate_io::memory::return_free_memory();
            }
            let acquiring = self.settings.is_some();
            let free_running = self.settings.as_ref().is_some_and(|s| !s.triggered);
            // How long we may block waiting for a command.
            let wait = match (&mut clock, free_running) {
                (Some(c), true) => match c.poll(self.now_ns()) {
                    Tick::Produce { skipped } => {
                        self.counters
                            .frames_skipped
                            .fetch_add(skipped, Ordering::Relaxed);
                        self.send_frame(None);
                        if self.limit_reached() {
                            self.finish_run();
                            clock = None;
                        }
                        Some(Duration::ZERO)
                    }
                    Tick::WaitUntil(t) => {
                        Some(Duration::from_nanos(t.saturating_sub(self.now_ns())))
                    }
                },
                _ => None,
            };
            // Idle, wake up to give the resend buffer back.
            let wait = wait.or_else(|| {
                self.release_at
                    .map(|t| t.saturating_duration_since(Instant::now()))
            });
            let cmd = match wait {
                _ if !self.pending.is_empty() => self.pending.pop_front(),
                Some(d) if d.is_zero() => match self.commands.try_recv() {
                    Ok(c) => Some(c),
                    Err(std::sync::mpsc::TryRecvError::Empty) => None,
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => return,
                },
                Some(d) => match self.commands.recv_timeout(d) {
                    Ok(c) => Some(c),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return,
                },
                None => match self.commands.recv() {
                    Ok(c) => Some(c),
                    Err(_) => return,
                },
            };
            let Some(cmd) = cmd else { continue };
            match cmd {
                StreamCommand::Start(s) => {
                    let fps = s.frame_rate;
                    self.start(s);
                    clock = Some(FrameClock::new(fps, self.now_ns()));
                }
                StreamCommand::Stop => {
                    self.stop();
                    clock = None;
                }
                StreamCommand::Trigger(at) => {
                    if acquiring && !free_running {
                        self.send_frame(Some(at));
                        if self.limit_reached() {
                            self.finish_run();
                            clock = None;
                        }
                    }
                }
                other => {
                    if let Flow::Exit = self.handle_side_command(other) {
                        return;
                    }
                }
            }
        }
    }

    fn start(&mut self, s: StreamSettings) {
        let len = s.pixel_format.image_bytes(s.width, s.height).unwrap_or(0) as usize;
        self.generator = Generator::new(len).ok();
        // Fewer frames held when they are big; slots freed lose their pixels.
        self.release_at = None;
        self.ring.fit(len);
        self.slot_phase.fill(None);
        self.last_destination = Some(s.destination);
        self.on_tcp = matches!(s.transport, Transport::Tcp { .. });
        // Over TCP nothing is resent, so pattern frames need no frame memory.
        self.strip = if self.on_tcp && !s.gradient {
            PatternStrip::new(len).ok()
        } else {
            None
        };
        if !self.on_tcp {
            self.decide_egress(s.destination);
        }
        if let Some(mut old) = self.tcp.take() {
            old.close(&self.counters);
        }
        if self.on_tcp {
            let local = match self.socket.local_addr() {
                std::net::SocketAddr::V4(a) => *a.ip(),
                std::net::SocketAddr::V6(_) => std::net::Ipv4Addr::UNSPECIFIED,
            };
            let mut link = TcpLink::new(
                local,
                s.destination,
                self.tcp_options.clone(),
                self.ring.capacity(),
                self.events.clone(),
            );
            link.ensure_connected(&self.counters);
            self.tcp = Some(link);
        }
        self.settings = Some(s);
        self.sent_in_run = 0;
        self.counters.acquiring.store(1, Ordering::Relaxed);
    }

    fn stop(&mut self) {
        if let Some(mut link) = self.tcp.take() {
            link.close(&self.counters);
        }
        if self.settings.take().is_some() {
            self.release_at = Some(Instant::now() + RELEASE_AFTER_STOP);
        }
        self.counters.acquiring.store(0, Ordering::Relaxed);
    }

    /// A single- or multi-frame acquisition sent all its frames.
    fn finish_run(&mut self) {
        self.stop();
        self.counters.runs_finished.fetch_add(1, Ordering::Relaxed);
    }

    fn limit_reached(&self) -> bool {
        self.settings
            .as_ref()
            .and_then(|s| s.frame_limit)
            .is_some_and(|n| self.sent_in_run >= n)
    }

    /// Resends, test packets and shutdown: handled also in the middle of a frame.
    fn handle_side_command(&mut self, cmd: StreamCommand) -> Flow {
        match cmd {
            // TCP is reliable: there is nothing to resend.
            StreamCommand::Resend(_) if self.on_tcp => {
                self.counters
                    .tcp_resend_ignored
                    .fetch_add(1, Ordering::Relaxed);
            }
            StreamCommand::Resend(r) => self.resend(&r),
            StreamCommand::TestPacket { .. } if self.on_tcp => {}
            StreamCommand::TestPacket { destination, size } => {
                let payload = vec![0u8; size.saturating_sub(linerate_wire::gvsp::IP_UDP_OVERHEAD)];
                if self
                    .socket
                    .send_gather(destination, &[(&payload[..], &[][..])])
                    .is_err()
                {
                    self.counters.send_errors.fetch_add(1, Ordering::Relaxed);
                }
            }
            StreamCommand::Shutdown => return Flow::Exit,
            // Start/Stop/Trigger are handled by the main loop.
            StreamCommand::Start(_) | StreamCommand::Stop | StreamCommand::Trigger(_) => {}
        }
        Flow::Continue
    }

    /// Produces and sends one frame.
    fn send_frame(&mut self, trigger: Option<Instant>) {
        let Some(s) = self.settings.clone() else {
            return;
        };
        if self.generator.is_none() {
            return;
        }
        if let Transport::Tcp { data_per_packet } = s.transport {
            self.send_frame_tcp(&s, data_per_packet, trigger);
            return;
        }
        let Some((slot, count)) = self.produce(&s, None) else {
            return;
        };
        let batch = paced_batch(s.packet_delay_ns);
        let start = Instant::now();
        let mut id = 0u32;
        while id < count {
            let n = (count - id).min(batch);
            let bytes = self.send_packets(slot, id, n, Status::SUCCESS, s.destination);
            self.counters
                .record_sent(trigger.filter(|_| id == 0), u64::from(n), bytes);
            id += n;
            if s.packet_delay_ns > 0 {
                let due = start + Duration::from_nanos(u64::from(id) * s.packet_delay_ns);
                if let Some(w) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(w);
                }
            }
            // Serve resend requests that arrive while a large frame goes out.
            while let Ok(cmd) = self.commands.try_recv() {
                match cmd {
                    StreamCommand::Stop => {
                        self.stop();
                        return;
                    }
                    StreamCommand::Trigger(_) | StreamCommand::Start(_) => {}
                    other => {
                        if let Flow::Exit = self.handle_side_command(other) {
                            self.stop();
                            self.exit = true;
                            return;
                        }
                    }
                }
            }
        }
        self.counters.frames_sent.fetch_add(1, Ordering::Relaxed);
    }

    /// Claims a ring slot, draws the next frame into it and plans its block
    /// (with the SCPS packet size, or `data_per_packet` bytes per packet on
    /// TCP). Takes the block id. Returns the slot and its packet count.
    fn produce(
        &mut self,
        s: &StreamSettings,
        data_per_packet: Option<usize>,
    ) -> Option<(usize, u32)> {
        let generator = self.generator.as_mut()?;
        let len = generator.len();
        let frame_number = self.frame_number;
        let (slot, data) = self.ring.claim(len);
        let phase = (frame_number % 251, len);
        if s.gradient {
            let line =
                (u64::from(s.width) * u64::from(s.pixel_format.bits_per_pixel())).div_ceil(8);
            if test_pattern::fill_gradient(frame_number, line as usize, data).is_err() {
                return None;
            }
            if let Some(p) = self.slot_phase.get_mut(slot) {
                *p = None;
            }
        } else {
            let pixels_valid = self.slot_phase.get(slot).copied().flatten() == Some(phase);
            if generator.write(frame_number, data, pixels_valid).is_err() {
                return None;
            }
            if let Some(p) = self.slot_phase.get_mut(slot) {
                *p = Some(phase);
            }
        }
        let plan = self.take_block(s, data_per_packet, len)?;
        self.ring.commit(slot, plan);
        let count = self.ring.slot(slot).map_or(0, |(p, _)| p.packet_count());
        Some((slot, count))
    }

    /// Plans the block of the next frame, `len` bytes (with the SCPS packet
    /// size, or `data_per_packet` bytes per packet on TCP), and takes its
    /// block id and frame number.
    fn take_block(
        &mut self,
        s: &StreamSettings,
        data_per_packet: Option<usize>,
        len: usize,
    ) -> Option<BlockPlan> {
        let block_id = self.next_block_id;
        let leader = LeaderRepr {
            flags: 0,
            payload_type: PayloadType::IMAGE,
            timestamp: (i128::from(self.now_ns()) + s.timestamp_offset_ns)
                .clamp(0, i128::from(u64::MAX)) as u64,
            info: LeaderInfo::Image(ImageInfo {
                pixel_format: s.pixel_format,
                width: s.width,
                height: s.height,
                offset_x: s.offset_x,
                offset_y: s.offset_y,
                padding_x: 0,
                padding_y: 0,
            }),
        };
        let trailer = TrailerRepr::image(s.height);
        let plan = match data_per_packet {
            None => BlockPlan::new(
                block_id,
                s.extended_ids,
                s.packet_size,
                len,
                leader,
                trailer,
            ),
            Some(n) => {
                BlockPlan::with_data_per_packet(block_id, s.extended_ids, n, len, leader, trailer)
            }
        };
        let plan = match plan {
            Ok(p) => p,
            Err(_) => {
                self.counters.send_errors.fetch_add(1, Ordering::Relaxed);
                return None;
            }
        };
        self.frame_number += 1;
        self.next_block_id = if s.extended_ids {
            block_id + 1
        } else {
            block_id % 0xffff + 1
        };
        self.sent_in_run += 1;
        Some(plan)
    }

    /// Produces one frame and sends it as records on the TCP link: a
    /// test-pattern frame gathered from the strip, a gradient frame drawn in
    /// the ring. With no connection (host not listening yet), the frame is
    /// skipped before it takes a block id.
    fn send_frame_tcp(
        &mut self,
        s: &StreamSettings,
        data_per_packet: usize,
        trigger: Option<Instant>,
    ) {
        let Some(mut link) = self.tcp.take() else {
            return;
        };
        // Pattern frames keep only their heads and stamp in a slot.
        let slot = if self.strip.is_some() {
            (self.frame_number % self.ring.capacity() as u64) as usize
        } else {
            self.ring.next_slot()
        };
        if link.ensure_connected(&self.counters) {
            link.release_slot(slot, &self.counters);
        }
        if !link.is_connected() {
            self.counters.frames_skipped.fetch_add(1, Ordering::Relaxed);
            self.tcp = Some(link);
            return;
        }
        let pattern = match self.strip.as_mut() {
            Some(strip) => {
                let frame_number = self.frame_number;
                let stamp = strip.stamp(frame_number);
                let len = strip.len();
                let Some(plan) = self.take_block(s, Some(data_per_packet), len) else {
                    self.tcp = Some(link);
                    return;
                };
                Some((plan, frame_number, stamp))
            }
            None => {
                if self.produce(s, Some(data_per_packet)).is_none() {
                    self.tcp = Some(link);
                    return;
                }
                None
            }
        };
        // While the host holds a send up, watch the commands: a stop ends
        // the stream at the next record boundary.
        let (commands, counters) = (&self.commands, &self.counters);
        let (mut stop, mut exit) = (false, false);
        let mut deferred = Vec::new();
        let mut on_hold = || {
            while let Ok(cmd) = commands.try_recv() {
                match cmd {
                    StreamCommand::Stop => stop = true,
                    StreamCommand::Shutdown => (stop, exit) = (true, true),
                    StreamCommand::Resend(_) => {
                        counters.tcp_resend_ignored.fetch_add(1, Ordering::Relaxed);
                    }
                    StreamCommand::Trigger(_) | StreamCommand::TestPacket { .. } => {}
                    start @ StreamCommand::Start(_) => deferred.push(start),
                }
            }
            if stop {
                Waiting::Stop
            } else {
                Waiting::Continue
            }
        };
        let outcome = match (&pattern, self.strip.as_ref(), self.ring.slot(slot)) {
            (Some((plan, frame_number, stamp)), Some(strip), _) => {
                let frame = FrameBytes::Pattern {
                    strip,
                    frame_number: *frame_number,
                    stamp: *stamp,
                };
                link.send_block(slot, plan, frame, counters, &mut on_hold)
            }
            (None, _, Some((plan, data))) => {
                let frame = FrameBytes::Memory(data);
                link.send_block(slot, plan, frame, counters, &mut on_hold)
            }
            _ => BlockOutcome::Lost,
        };
        self.pending.extend(deferred);
        if let BlockOutcome::Sent { records, bytes } = outcome {
            self.counters
                .record_sent(trigger, u64::from(records), bytes);
            self.counters.frames_sent.fetch_add(1, Ordering::Relaxed);
        }
        self.tcp = Some(link);
        if stop || outcome == BlockOutcome::Stopped {
            self.stop();
        }
        self.exit |= exit;
    }

    /// Sends packets `first..first+n` of the frame in `slot`; returns bytes sent.
    fn send_packets(
        &mut self,
        slot: usize,
        first: u32,
        n: u32,
        status: Status,
        to: SocketAddrV4,
    ) -> u64 {
        let Some((plan, data)) = self.ring.slot(slot) else {
            return 0;
        };
        let mut parts: Vec<(usize, std::ops::Range<usize>)> = Vec::with_capacity(n as usize);
        for (k, head) in self.heads.iter_mut().enumerate().take(n as usize) {
            match plan.write_head(first + k as u32, status, head) {
                Ok(p) => parts.push(p),
                Err(_) => break,
            }
        }
        let datagrams: Vec<(&[u8], &[u8])> = self
            .heads
            .iter()
            .zip(&parts)
            .map(|(h, (len, r))| (&h[..*len], &data[r.clone()]))
            .collect();
        let bytes = datagrams
            .iter()
            .map(|(h, d)| (h.len() + d.len()) as u64)
            .sum();
        // What did not leave stays in the frame ring: the host's resend
        // request brings it. Nothing is switched off.
        let outcome = self.socket.send_datagrams(to, &datagrams);
        let failed = outcome.failed_count() as u64;
        let message = outcome.failed.first().map(|f| {
            format!(
                "{failed} packet(s) of block {} to {to} not sent ({}); \
                 they stay available for resend",
                plan.block_id(),
                f.error
            )
        });
        if let Some(message) = message {
            self.counters
                .send_errors
                .fetch_add(failed, Ordering::Relaxed);
            self.report_send_error(message);
        }
        bytes
    }

    /// Reports a send error, unless one was reported in the last five
    /// seconds (the `send_errors` counter has them all).
    fn report_send_error(&mut self, message: String) {
        let now = Instant::now();
        if self
            .last_error_report
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(5))
        {
            return;
        }
        self.last_error_report = Some(now);
        self.events.emit(CameraEvent::SendFailed { message });
    }

    /// Connects the stream socket to `destination`, decides how datagrams
    /// to it leave (GSO or one by one), says so when it differs from the last decision, and keeps it for
    /// the report.
    fn decide_egress(&mut self, destination: SocketAddrV4) {
        // Connected, the kernel looks the route up once, not per packet.
        if let Err(e) = self.socket.connect(destination) {
            self.events.emit(CameraEvent::StreamNotConnected {
                error: e.to_string(),
            });
        }
        let egress = self.socket.redecide_gso(*destination.ip());
        let mut last = self
            .counters
            .udp_egress
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let changed = last.as_ref() != Some(&egress);
        *last = Some(egress.clone());
        drop(last);
        if changed {
            self.events.emit(CameraEvent::StreamEgress {
                destination,
                description: describe_egress(&egress, self.socket_gso_policy_never()),
            });
        }
    }

    fn socket_gso_policy_never(&self) -> bool {
        self.socket.gso_policy() == GsoPolicy::Never
    }

    fn resend(&mut self, r: &PacketResend) {
        let Some(dest) = self.last_destination() else {
            return;
        };
        let items = self
            .ring
            .plan_resend(r.block_id, r.first_packet_id, r.last_packet_id);
        let slot = self.ring.find(r.block_id);
        // Resent packets are stream packets: the packet delay (SCPD) paces
        // them like first transmissions, or a long resend would burst into
        // the receiver's ring and be lost again.
        let delay = self.settings.as_ref().map_or(0, |s| s.packet_delay_ns);
        let batch = paced_batch(delay) as usize;
        let start = Instant::now();
        let mut sent = 0u64;
        // Consecutive packets of a held frame go out together, in one send
        // call per run (at most `batch` packets), like first transmissions.
        let mut i = 0;
        while i < items.len() {
            match (items[i], slot) {
                (ResendItem::Packet { packet_id }, Some(slot)) => {
                    if delay > 0 && sent > 0 {
                        let due = start + Duration::from_nanos(sent.saturating_mul(delay));
                        if let Some(w) = due.checked_duration_since(Instant::now()) {
                            std::thread::sleep(w);
                        }
                    }
                    let mut n = 1u32;
                    while (n as usize) < batch
                        && matches!(
                            (items.get(i + n as usize), packet_id.checked_add(n)),
                            (Some(&ResendItem::Packet { packet_id: next }), Some(want)) if next == want
                        )
                    {
                        n += 1;
                    }
                    self.send_packets(slot, packet_id, n, Status::PACKET_RESEND, dest);
                    self.counters
                        .packets_resent
                        .fetch_add(u64::from(n), Ordering::Relaxed);
                    sent += u64::from(n);
                    i += n as usize;
                }
                (ResendItem::Error { packet_id, status }, _) => {
                    self.send_error_packet(dest, r, packet_id, status);
                    i += 1;
                }
                (ResendItem::Packet { packet_id }, None) => {
                    self.send_error_packet(dest, r, packet_id, Status::PACKET_UNAVAILABLE);
                    i += 1;
                }
            }
        }
    }

    /// Answers a resend request for data we do not have with a header-only
    /// packet carrying an error status.
    fn send_error_packet(
        &mut self,
        dest: SocketAddrV4,
        r: &PacketResend,
        packet_id: u32,
        status: Status,
    ) {
        let header = HeaderRepr {
            status,
            block_id: r.block_id.max(1),
            packet_id: if r.extended {
                packet_id
            } else {
                packet_id & 0x00ff_ffff
            },
            format: PacketFormat::Payload,
            extended: r.extended,
            flags: 0,
        };
        let mut head = [0u8; HEAD_ROOM];
        if let Ok(n) = header.emit(&mut head) {
            if self
                .socket
                .send_gather(dest, &[(&head[..n], &[][..])])
                .is_err()
            {
                self.counters.send_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.counters
            .resend_unavailable
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Resends go where the stream went, also after acquisition stopped.
    fn last_destination(&self) -> Option<SocketAddrV4> {
        self.last_destination
    }
}

/// How UDP datagrams leave, in words (`gso_off`: GSO was switched off):
/// for a camera's start-up line and its event when a stream starts.
pub fn describe_egress(egress: &GsoEgress, gso_off: bool) -> String {
    let iface = egress.interface.as_deref().unwrap_or("egress unknown");
    if gso_off {
        "one sendmmsg message per packet (--no-gso)".to_owned()
    } else if egress.segmented_before_wire {
        format!("UDP GSO ({iface}: {})", egress.reason)
    } else {
        format!(
            "software segmentation, one datagram per packet batched with sendmmsg ({iface}: {})",
            egress.reason
        )
    }
}

/// Packets per send call with a packet delay of `delay_ns`: about 20 µs
/// worth, so the gaps between packets stay even; `BATCH` without a delay.
fn paced_batch(delay_ns: u64) -> u32 {
    20_000u64
        .checked_div(delay_ns)
        .map_or(BATCH as u32, |n| n.clamp(1, BATCH as u64) as u32)
}
