//! The board thread: moves the packets of `linerate_fade::board` between
//! its raw socket and the core, and keeps time. The protocol logic is all
//! in the core; this module only paces, batches and sleeps.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use linerate_fade::board::{self as core, BoardPoll, Controller, Event, FadeBoard};
use linerate_fade::version::Version;
use linerate_io::raw::{RawSocket, ETH_HEADER_LEN};
use linerate_wire::ethernet::MacAddr;

use super::{nanos, BoardConfig, BoardError, BoardHandle, BoardReport, Shared};

/// Ethernet bytes a frame costs on the wire beyond what the host sees:
/// preamble and start delimiter (8), FCS (4), inter-frame gap (12).
const WIRE_OVERHEAD: u64 = 24;

/// Frames sent with one `sendmmsg` when pacing allows back-to-back packets.
const SEND_BATCH: usize = 16;

/// Timer slack asked for the board's sleeps: the default 50 µs would make
/// every paced sleep late by up to two 1 GbE packet times.
const TIMER_SLACK: Duration = Duration::from_micros(1);

/// Waits shorter than this (a paced board's gap to its next packet) sleep
/// on a timer, not in the socket: an ACK arriving meanwhile then does not
/// wake the board, it is read at the next packet. On the bench the host's
/// ACK send runs the board's receive path inline, and a wakeup there is
/// an inter-processor interrupt on the host's receive core for every ACK,
/// work an FPGA board never asks of its host. Longer waits (a full window,
/// a retransmission timeout) sleep in the socket, so an ACK ends them.
const TIMER_ONLY_BELOW: Duration = Duration::from_micros(100);

/// The longest the board sleeps in its socket with nothing due, so it sees
/// a stop (or its duration end) soon.
const IDLE_WAIT: Duration = Duration::from_millis(10);

/// [`super::spawn`] for wire version `W`: the core and the socket are set
/// up here, so a bad setting or interface fails the call itself.
pub(super) fn spawn<W: Version>(config: BoardConfig) -> Result<BoardHandle, BoardError> {
    let board = FadeBoard::<W>::new(core_config::<W>(&config))?;
    let sock = super::socket::open::<W>(&config.interface, config.ring_slots)?;
    let mac = MacAddr(sock.mac());
    let version = config.version;
    let shared = Arc::new(Shared::default());
    let thread = {
        let shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name(format!("fade-board-{}", config.interface))
            .spawn(move || {
                let result = Board {
                    board,
                    sock,
                    config,
                    shared: &shared,
                }
                .run();
                shared.mark_ended();
                result
            })
            .map_err(BoardError::Thread)?
    };
    Ok(BoardHandle {
        mac,
        version,
        shared,
        thread: Some(thread),
    })
}

/// The core's settings for `config`: the line rate becomes the smallest
/// gap between two packet starts.
fn core_config<W: Version>(config: &BoardConfig) -> core::BoardConfig {
    let min_gap_ns = config.rate_bits_per_sec.map_or(0, |r| {
        let bits = (ETH_HEADER_LEN as u64 + W::DATA_PACKET_LEN as u64 + WIRE_OVERHEAD) * 8;
        bits.saturating_mul(1_000_000_000) / r.max(1)
    });
    core::BoardConfig {
        retransmit_timeout_ns: nanos(config.retransmit_timeout),
        adaptive_timeout: config.adaptive_timeout,
        fast_retransmit: config.fast_retransmit,
        min_gap_ns,
        delay: config.delay,
        controller: config.controller,
        takeover_after_ns: config.takeover_after.map(nanos),
        limit_bytes: config.limit_bytes,
    }
}

/// A board thread's state.
struct Board<'a, W: Version> {
    board: FadeBoard<W>,
    sock: RawSocket,
    config: BoardConfig,
    shared: &'a Shared,
}

impl<W: Version> Board<'_, W> {
    /// Runs until the stream is over or a stop: the stream is over when
    /// every packet is acknowledged, when the owner RESETs the board after
    /// streaming began (with a byte limit or duration), or when no host
    /// sent START within the duration. Without a limit a board never ends
    /// on a command: RESET returns it to waiting for START.
    fn run(mut self) -> Result<BoardReport, BoardError> {
        // A failure just leaves the default slack: paced sleeps run late.
        let _ = linerate_io::sched::set_timer_slack(TIMER_SLACK);
        let config = &self.config;
        let shared = self.shared;
        let board = &mut self.board;
        let sock = &mut self.sock;
        let io_error = |what: &'static str| {
            let interface = config.interface.clone();
            move |source| BoardError::Io {
                what,
                interface,
                source,
            }
        };
        let clock = Instant::now();
        let now_ns = || clock.elapsed().as_nanos() as u64;
        let mut frames = vec![vec![0u8; ETH_HEADER_LEN + W::DATA_PACKET_LEN]; SEND_BATCH];
        let mut link = Link::default();
        let mut finished_filling = false;
        let mut no_start = false;
        let mut send_failures = 0u64;
        let spin_ns = nanos(config.spin);
        let poll_ns = nanos(config.poll_interval);
        let duration_ns = config.duration.map(nanos);
        let limited = config.limit_bytes.is_some() || config.duration.is_some();
        let mut last_poll = 0u64;
        let mut idle = true;
        while !shared.stop.load(Ordering::Relaxed) {
            // Control packets first: START, STOP, RESET, ACKs; while
            // packets are due, looked for at most once per poll interval.
            let t = now_ns();
            if idle || t.saturating_sub(last_poll) >= poll_ns {
                last_poll = t;
                sock.recv(Some(Duration::ZERO))
                    .map_err(io_error("receiving"))?;
                link.absorb(board, sock, t);
                publish(shared, board, &link);
            }
            idle = true;
            if board.is_done() || (limited && link.reset_after_start) {
                break;
            }
            let now = now_ns();
            // No host came within the duration: give up rather than wait
            // forever.
            if let (Some(d), None) = (duration_ns, link.streaming_since) {
                if now >= d {
                    no_start = true;
                    break;
                }
            }
            if let (Some(d), Some(t0), false) =
                (duration_ns, link.streaming_since, finished_filling)
            {
                if now.saturating_sub(t0) >= d {
                    board.finish();
                    finished_filling = true;
                }
            }
            let mut wait = Some(IDLE_WAIT);
            if let Some(dest) = link.host {
                // Transmit what is due, batched while packets may go back
                // to back.
                let mut n = 0;
                while n < SEND_BATCH {
                    let frame = &mut frames[n];
                    match board.poll_transmit(now_ns(), &mut frame[ETH_HEADER_LEN..]) {
                        BoardPoll::Send(len) => {
                            sock.write_header(frame, dest);
                            frame.truncate(ETH_HEADER_LEN + len);
                            n += 1;
                            if board.gap_ns() > 0 {
                                break;
                            }
                        }
                        BoardPoll::WaitUntil(t) => {
                            let left = t.saturating_sub(now_ns());
                            wait = (left > 0 && left >= spin_ns)
                                .then(|| Duration::from_nanos(left - spin_ns / 2));
                            break;
                        }
                        BoardPoll::Idle => break,
                    }
                }
                if n > 0 {
                    idle = false;
                    let refs: Vec<&[u8]> = frames[..n].iter().map(|f| f.as_slice()).collect();
                    let sent = sock.send_batch(&refs).map_err(io_error("sending"))?;
                    send_failures += (n - sent) as u64;
                    for f in &mut frames[..n] {
                        f.resize(ETH_HEADER_LEN + W::DATA_PACKET_LEN, 0);
                    }
                    continue;
                }
            }
            // Nothing due: spin on the shortest waits, sleep on a timer
            // until the next paced packet, in the socket on long waits.
            if wait.is_none() && config.yield_while_spinning {
                std::thread::yield_now();
            }
            if let Some(w) = wait {
                if w < TIMER_ONLY_BELOW {
                    std::thread::sleep(w);
                } else {
                    sock.recv(Some(w)).map_err(io_error("receiving"))?;
                    link.absorb(board, sock, now_ns());
                }
            }
        }
        publish(shared, board, &link);
        Ok(self.report(&link, now_ns(), send_failures, no_start))
    }

    /// The report of a board that ended at `end` (board clock, ns).
    fn report(&self, link: &Link, end: u64, send_refused: u64, no_start: bool) -> BoardReport {
        let (board, config) = (&self.board, &self.config);
        let c = board.counters();
        let mac = MacAddr(self.sock.mac()).to_string();
        let seconds = link
            .streaming_since
            .map_or(0.0, |t0| end.saturating_sub(t0) as f64 / 1e9);
        let bytes_confirmed = c.confirmed.saturating_mul(W::PACKET_BYTES);
        let bytes_confirmed = config
            .limit_bytes
            .map_or(bytes_confirmed, |b| bytes_confirmed.min(b));
        let error = no_start.then(|| {
            format!(
                "no host sent START to board {mac} on {} within --duration {} s",
                config.interface,
                config.duration.map_or(0.0, |d| d.as_secs_f64())
            )
        });
        let kernel = self.sock.kernel_counts().ok();
        BoardReport {
            version: W::NAME.to_string(),
            mac,
            sent: c.sent,
            resent: c.resent,
            acks: c.acks,
            stale_acks: c.stale_acks,
            rejected: c.rejected,
            send_refused,
            confirmed_packets: c.confirmed,
            commands: c.commands,
            foreign_commands: c.foreign_commands,
            foreign_acks: c.foreign_acks,
            clamped_hints: c.clamped_hints,
            takeovers: c.takeovers,
            owner: board.owner().map(|m| MacAddr(m).to_string()),
            response_packets: c.response_packets,
            delay_ns: board.delay_ns(),
            controller: controller_name(config.controller).to_string(),
            hint_gap_ns: board.hint_gap_ns(),
            retransmit_timeout_ns: board.retransmit_timeout_ns(),
            done: board.is_done(),
            reset: link.reset_after_start,
            ring_slots: config.ring_slots,
            kernel_frames: kernel.as_ref().map(|k| k.frames),
            kernel_drops: kernel.as_ref().map(|k| k.drops),
            bytes_confirmed,
            seconds,
            error,
        }
    }
}

/// Copies the board's counters where its handle reads them.
fn publish<W: Version>(shared: &Shared, board: &FadeBoard<W>, link: &Link) {
    let c = board.counters();
    shared.confirmed_bytes.store(
        c.confirmed.saturating_mul(W::PACKET_BYTES),
        Ordering::Relaxed,
    );
    shared.sent.store(c.sent, Ordering::Relaxed);
    shared.resent.store(c.resent, Ordering::Relaxed);
    shared.acks.store(c.acks, Ordering::Relaxed);
    shared
        .streaming
        .store(link.streaming_since.is_some(), Ordering::Relaxed);
}

/// The name a controller goes by in reports (and `--controller`).
fn controller_name(c: Controller) -> &'static str {
    match c {
        Controller::AdaptiveDelay => "seed",
        Controller::Fair => "fair",
    }
}

/// What the board knows about its host.
#[derive(Debug, Default)]
struct Link {
    /// MAC of the host that sent START: where DATA goes.
    host: Option<[u8; 6]>,
    /// When the first START arrived (board clock, ns).
    streaming_since: Option<u64>,
    /// The owner's RESET arrived after streaming began: the host is done
    /// with this stream.
    reset_after_start: bool,
}

impl Link {
    /// Feeds the frames of the last `recv` to the board.
    fn absorb<W: Version>(&mut self, board: &mut FadeBoard<W>, sock: &RawSocket, now: u64) {
        for f in sock.frames() {
            let (Some(dst), Some(src), Some(payload)) = (
                f.data.get(..6),
                f.data.get(6..12),
                f.data.get(ETH_HEADER_LEN..),
            ) else {
                continue;
            };
            if dst != sock.mac() && dst != [0xff; 6] {
                continue;
            }
            let mut mac = [0u8; 6];
            mac.copy_from_slice(src);
            match board.handle_frame(mac, payload, now) {
                Ok(Event::Started) => {
                    self.host = Some(mac);
                    self.streaming_since.get_or_insert(now);
                }
                Ok(Event::Reset) => self.reset_after_start |= self.streaming_since.is_some(),
                // A FADE-10G command before any START: its answer goes
                // back to whoever asked.
                Ok(Event::Stopped | Event::User { .. }) => {
                    self.host.get_or_insert(mac);
                }
                _ => {}
            }
        }
    }
}
