//! The receive loop: one thread that takes the boards' frames from the
//! link, hands them to the sans-IO readout ([`linerate_fade::host::Host`]),
//! sends its ACKs at once and its other frames after each batch, and
//! times every ACK.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use linerate_fade::host::{BoardOutcome, Host, HostConfig, CONTROL_FRAME_LEN};
use linerate_fade::version::Version;
use linerate_io::raw::{RawSocket, MAX_BATCH};

use crate::ack_clock::{AckClock, AckStampReport};
use crate::error::{Error, Result};
use crate::link::{Backend, BackendReport, FrameLink};
use crate::live::{LiveBoard, LiveFigures};
use crate::ring::{RingReader, RingWriter};
use crate::timings::{AckTimings, ThreadWork};

/// How a readout meets the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkConfig {
    /// The interface the boards are reached through.
    pub interface: String,
    /// How DATA frames come in.
    pub backend: Backend,
    /// Ask the driver for the transmit stamp of one ACK in this many
    /// (0: none; the ACK latency then ends at the send's return).
    pub tx_stamp_every: u32,
    /// Send the ACKs of one receive batch together (one `sendmmsg` after
    /// the batch) instead of one send right after each frame.
    pub batch_acks: bool,
    /// How long the thread busy-polls after the last frame before it
    /// sleeps in the socket until the next one (zero: never spin).
    pub spin: Duration,
}

impl LinkConfig {
    /// The defaults on `interface`: the ring backend, one stamp per 8 ACKs,
    /// one send per ACK, 200 µs of spinning.
    pub fn new(interface: impl Into<String>) -> LinkConfig {
        LinkConfig {
            interface: interface.into(),
            backend: Backend::Ring,
            tx_stamp_every: 8,
            batch_acks: false,
            spin: Duration::from_micros(200),
        }
    }
}

/// A readout of FADE boards speaking wire version `W`, run on the calling
/// thread by [`Readout::run`]. Pin that thread, and give it priority, as
/// the host allows: every microsecond it is not running is ACK latency.
#[derive(Debug)]
pub struct Readout<W: Version> {
    link: FrameLink,
    ack_clock: AckClock,
    host: Host<W, RingWriter>,
    timings: Vec<AckTimings>,
    work: ThreadWork,
    config: LinkConfig,
    clock: Instant,
    ended_ns: Option<u64>,
    live: Option<LiveFigures>,
}

impl<W: Version> Readout<W> {
    /// Opens the link and sets up the readout of `host.boards`; the
    /// host's MAC is the interface's. Returns the ring reader of each
    /// board, in the same order, for the application.
    pub fn open(config: LinkConfig, host: HostConfig) -> Result<(Readout<W>, Vec<RingReader>)> {
        let mut link = FrameLink::open::<W>(&config.interface, config.backend)?;
        let ack_clock = AckClock::new(link.sender_mut(), config.tx_stamp_every);
        let host_mac = link.sender().mac();
        let (host, readers) = Host::<W, RingWriter>::new(HostConfig { host_mac, ..host })?;
        let timings = readers.iter().map(|_| AckTimings::default()).collect();
        let readout = Readout {
            link,
            ack_clock,
            host,
            timings,
            work: ThreadWork::default(),
            config,
            clock: Instant::now(),
            ended_ns: None,
            live: None,
        };
        Ok((readout, readers))
    }

    /// Publishes each board's live figures into `live` about four times a
    /// second while [`Readout::run`] runs (see [`crate::live`]).
    pub fn publish_live(&mut self, live: LiveFigures) {
        self.live = Some(live);
    }

    /// Nanoseconds since the readout was opened: the clock of
    /// [`BoardOutcome`]'s times.
    pub fn now_ns(&self) -> u64 {
        self.clock.elapsed().as_nanos() as u64
    }

    /// Starts the boards and reads them out until every one has finished
    /// (done or failed) or `stop` is set, which ends the unfinished ones
    /// as interrupted. An error is the link's: the readout cannot go on.
    pub fn run(&mut self, stop: &AtomicBool) -> Result<()> {
        let started = Instant::now();
        let result = self.receive(stop);
        self.work.run_ns = started.elapsed().as_nanos() as u64;
        self.ended_ns = Some(self.now_ns());
        result
    }

    fn receive(&mut self, stop: &AtomicBool) -> Result<()> {
        let clock = self.clock;
        let now = || clock.elapsed().as_nanos() as u64;
        self.host.start(now());
        send_queued(&mut self.host, self.link.sender())?;
        let mut pending: Vec<([u8; CONTROL_FRAME_LEN], u64, usize)> = Vec::new();
        let mut last_frame = Instant::now();
        let batch_acks = self.config.batch_acks;
        let mut next_live = 0;
        while !self.host.is_finished() {
            if stop.load(Ordering::Relaxed) {
                self.host.abort();
                send_queued(&mut self.host, self.link.sender())?;
                break;
            }
            // Busy-poll while frames keep coming; after `spin` of silence,
            // sleep in the socket (a spinning thread on a shared core only
            // delays the peer it is waiting for).
            let wait = if last_frame.elapsed() < self.config.spin {
                Duration::ZERO
            } else {
                Duration::from_millis(1)
            };
            let received = self.link.recv(Some(wait))?;
            if received == 0 {
                // Caught up: the fair controller's queue guard tells a late
                // thread from a queue standing in the host by this.
                self.host.handle_queue_empty();
                if wait.is_zero() {
                    // Spinning on an empty socket: let whatever shares
                    // this core run (a board emulator, the switch's
                    // softirq work), or it waits out a whole time slice
                    // for the frames this thread is waiting for. Alone on
                    // its core the thread is back at once.
                    std::thread::yield_now();
                }
            }
            let batch_start = (received > 0).then(|| {
                last_frame = Instant::now();
                last_frame
            });
            let link = &self.link;
            let sock = link.sender();
            let ack_clock = &mut self.ack_clock;
            let timings = &mut self.timings;
            let sent_at = ack_clock.sent_at();
            for f in link.frames() {
                let stamp = f.timestamp_ns;
                let waited = (stamp > 0).then(|| link.now_ns().saturating_sub(stamp).max(1));
                // The ACK leaves from inside handle_frame, before the data is
                // copied into the ring.
                let handled = self.host.handle_frame(f.data, now(), waited, |t| {
                    if batch_acks {
                        pending.push((t.frame, stamp, t.board));
                    } else {
                        ack_clock.send(sock, &t.frame, stamp, t.board)?;
                        timings[t.board].sent(stamp, link.now_ns(), sent_at);
                    }
                    Ok::<(), Error>(())
                })?;
                if let (Some(h), Some(w)) = (handled, waited) {
                    if h.acked {
                        timings[h.board].pickup.record_ns(w);
                    }
                }
            }
            // Batched ACKs leave together, after the whole receive batch,
            // handed over in arrays on the stack, one `sendmmsg` at a time
            // (the socket still builds its message headers per call).
            for chunk in pending.chunks(MAX_BATCH) {
                let mut frames: [&[u8]; MAX_BATCH] = [&[]; MAX_BATCH];
                let mut received = [(0u64, 0usize); MAX_BATCH];
                for (k, (f, stamp, i)) in chunk.iter().enumerate() {
                    frames[k] = f;
                    received[k] = (*stamp, *i);
                }
                let n = chunk.len();
                ack_clock.send_batch(sock, &frames[..n], &received[..n])?;
                let returned = link.now_ns();
                for &(_, stamp, i) in chunk {
                    timings[i].sent(stamp, returned, sent_at);
                }
            }
            pending.clear();
            // The driver's stamps of the ACKs: while frames keep coming,
            // read in one go once enough are waiting; all of them when the
            // link is quiet.
            let record = record_latency(timings);
            if received > 0 {
                ack_clock.collect_when_due(sock, || link.realtime_minus_now_ns(), record)?;
            } else {
                ack_clock.collect(sock, || link.realtime_minus_now_ns(), record)?;
            }
            // Timers: START retries, idle boards, the deadline, commands.
            self.host.handle_timeout(now());
            send_queued(&mut self.host, self.link.sender())?;
            if let Some(live) = &self.live {
                let t = now();
                if t >= next_live {
                    next_live = t + crate::live::EVERY_NS;
                    live.try_publish(live_boards(&self.host.outcomes(), &self.timings));
                }
            }
            if let Some(t) = batch_start {
                self.work.batch(received, t.elapsed().as_nanos() as u64);
            }
        }
        // The stamps still waiting.
        let link = &self.link;
        self.ack_clock.collect(
            link.sender(),
            || link.realtime_minus_now_ns(),
            record_latency(&mut self.timings),
        )?;
        Ok(())
    }

    /// Each board's results, in the order of [`HostConfig::boards`].
    pub fn outcomes(&self) -> Vec<BoardOutcome> {
        self.host.outcomes()
    }

    /// Each board's ACK timings, in the same order.
    pub fn timings(&self) -> &[AckTimings] {
        &self.timings
    }

    /// How busy the receive thread was in [`Self::run`].
    pub fn thread_work(&self) -> ThreadWork {
        self.work
    }

    /// When [`Self::run`] returned, on [`Self::now_ns`]'s clock.
    pub fn ended_ns(&self) -> Option<u64> {
        self.ended_ns
    }

    /// The protocol core (the fair controller's counters, the settings).
    pub fn host(&self) -> &Host<W, RingWriter> {
        &self.host
    }

    /// The receive backend and its counters.
    pub fn backend_report(&mut self) -> BackendReport {
        self.link.report()
    }

    /// What the ACKs' transmit stamps came to.
    pub fn ack_stamps(&self) -> AckStampReport {
        self.ack_clock.report()
    }
}

/// Where a matched transmit stamp goes: board `i`'s ACK latency.
/// Each board's live figures from its outcome so far and its ACK timings.
fn live_boards(outcomes: &[BoardOutcome], timings: &[AckTimings]) -> Vec<LiveBoard> {
    outcomes
        .iter()
        .zip(timings)
        .map(|(o, t)| {
            let latency = t.latency.summary();
            let sampled = latency.count > 0;
            LiveBoard {
                received: o.counters.received,
                retransmitted: o.counters.retransmitted,
                acks: latency.count,
                ack_latency_p50_us: sampled.then_some(latency.p50_us),
                ack_latency_p99_us: sampled.then_some(latency.p99_us),
            }
        })
        .collect()
}

fn record_latency(timings: &mut [AckTimings]) -> impl FnMut(usize, u64) + '_ {
    |i, t| {
        if let Some(b) = timings.get_mut(i) {
            b.latency.record_ns(t);
        }
    }
}

/// Sends the frames the readout queued (START, STOP, RESET, commands).
fn send_queued<W: Version>(host: &mut Host<W, RingWriter>, sock: &RawSocket) -> Result<()> {
    while let Some(t) = host.poll_transmit() {
        sock.send(&t.frame)
            .map_err(|e| Error::io("sending a control frame", e))?;
    }
    Ok(())
}
