//! The emulated FADE front-end board: the sans-IO board of
//! `linerate_fade::board` on a raw socket, driven by a thread of its own.
//!
//! [`spawn`] opens the socket (in the calling thread's network namespace),
//! starts the board thread and returns a [`BoardHandle`] at once. The
//! board waits for a host's START, streams its verifiable counter stream,
//! resends until every packet is acknowledged, and ends when its stream is
//! over (every byte acknowledged, its duration past, or its owner's RESET
//! once streaming began) or when the handle stops it. Stopping (or waiting
//! for) the handle returns a [`BoardReport`]. Nothing here prints or exits
//! the process: front-ends present the report themselves.

mod error;
mod report;
mod runtime;
mod socket;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use linerate_fade::version::{self, TenG, V1};
use linerate_wire::ethernet::MacAddr;

pub use error::BoardError;
pub use linerate_fade::adaptive_delay::Config as DelayConfig;
pub use linerate_fade::board::Controller;
pub use report::BoardReport;

/// The FADE wire version a board speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WireVersion {
    /// FADE v1: 1024-byte packets in sets of 32.
    #[default]
    V1,
    /// FADE-10G: 8192-byte packets in jumbo frames, a window of 16,
    /// numbered commands answered in the DATA packets.
    TenG,
}

impl WireVersion {
    /// The version's name as reports and `--version` spell it: `1` or `10g`.
    pub fn name(self) -> &'static str {
        match self {
            WireVersion::V1 => <V1 as version::Version>::NAME,
            WireVersion::TenG => <TenG as version::Version>::NAME,
        }
    }
}

/// How to run an emulated board: its link, its stream and how it paces.
/// Defaults are those of `linerate fade feb`; only the interface has to be
/// set.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardConfig {
    /// Interface to send and receive on, by name (the board's socket is
    /// bound to it in the network namespace of the thread calling
    /// [`spawn`]).
    pub interface: String,
    /// FADE wire version to speak.
    pub version: WireVersion,
    /// Stream bytes to send in all; the board ends once all are
    /// acknowledged. `None`: stream until stopped (or `duration`).
    pub limit_bytes: Option<u64>,
    /// Stop filling new packets after this long of streaming; without a
    /// START within this time from the start the board gives up and its
    /// report carries an error.
    pub duration: Option<Duration>,
    /// Line rate to pace to, in bits/s; `None`: unpaced.
    pub rate_bits_per_sec: Option<u64>,
    /// Resend an unacknowledged packet after this long (the smallest
    /// timeout when `adaptive_timeout`).
    pub retransmit_timeout: Duration,
    /// Adapt the retransmission timeout to the measured round trip
    /// instead of keeping it fixed, as the published core does.
    pub adaptive_timeout: bool,
    /// Resend at once the packets sent before one that was acknowledged,
    /// instead of only on timeout, as the v1 core does.
    pub fast_retransmit: bool,
    /// How the board chooses the gap between its packets.
    pub controller: Controller,
    /// The adaptive inter-packet delay's parameters.
    pub delay: DelayConfig,
    /// Let another host take the board over once its owner has sent
    /// nothing for this long; `None`: only the owner's RESET frees it.
    pub takeover_after: Option<Duration>,
    /// Waits shorter than this are spun, longer ones slept (on a timer up
    /// to 100 µs, in the socket beyond, so an ACK can end them): spinning
    /// paces most precisely.
    pub spin: Duration,
    /// Give the CPU up (sched_yield) at every turn of a spin, so boards
    /// (and a host) sharing a core take turns without sleeping on timers.
    pub yield_while_spinning: bool,
    /// Slots of the TPACKET_V2 ring the host's frames are taken from
    /// without a syscall, as an FPGA reads its receive FIFO; 0 looks with
    /// a `recvmmsg` call each time.
    pub ring_slots: usize,
    /// While packets are due back to back or nearly, look for the host's
    /// frames at most once per this interval (zero: before every packet);
    /// a board with nothing to send always looks first.
    pub poll_interval: Duration,
}

/// Slots of the board's receive ring by default: 2 ms of ACKs at 1 GbE
/// line rate, time enough for a board sharing its core to come back and
/// read them.
pub const DEFAULT_RING_SLOTS: usize = 256;

impl Default for BoardConfig {
    fn default() -> Self {
        BoardConfig {
            interface: String::new(),
            version: WireVersion::default(),
            limit_bytes: None,
            duration: None,
            rate_bits_per_sec: None,
            retransmit_timeout: Duration::from_micros(200),
            adaptive_timeout: true,
            fast_retransmit: true,
            controller: Controller::default(),
            delay: DelayConfig {
                initial_ns: 0,
                ..DelayConfig::default()
            },
            takeover_after: None,
            spin: Duration::from_micros(200),
            yield_while_spinning: true,
            ring_slots: DEFAULT_RING_SLOTS,
            poll_interval: Duration::ZERO,
        }
    }
}

impl BoardConfig {
    /// The default board on `interface`.
    pub fn new(interface: impl Into<String>) -> Self {
        BoardConfig {
            interface: interface.into(),
            ..BoardConfig::default()
        }
    }
}

/// Opens the board's socket on `config.interface`, starts the board
/// thread and returns its handle. The socket belongs to the calling
/// thread's network namespace (a test bed's host, entered by the caller);
/// the board thread inherits the caller's CPU affinity.
pub fn spawn(config: BoardConfig) -> Result<BoardHandle, BoardError> {
    match config.version {
        WireVersion::V1 => runtime::spawn::<V1>(config),
        WireVersion::TenG => runtime::spawn::<TenG>(config),
    }
}

/// A running board's counters at one moment, for a start-up line or a
/// progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoardSnapshot {
    /// Stream bytes the host has acknowledged (whole packets).
    pub bytes_confirmed: u64,
    /// DATA packets sent for the first time.
    pub sent: u64,
    /// DATA packets sent again because no ACK came in time.
    pub resent: u64,
    /// ACKs that confirmed an outstanding packet.
    pub acks: u64,
    /// A host's START has arrived.
    pub streaming: bool,
}

/// What the board thread and its handle share.
#[derive(Debug, Default)]
struct Shared {
    /// Set by the handle: end the loop.
    stop: AtomicBool,
    /// Stream bytes acknowledged, its own `Arc` so a progress display can
    /// hold it.
    confirmed_bytes: Arc<AtomicU64>,
    sent: AtomicU64,
    resent: AtomicU64,
    acks: AtomicU64,
    streaming: AtomicBool,
    /// The loop has ended (set last, under the lock, with a notify).
    ended: Mutex<bool>,
    ended_changed: Condvar,
}

impl Shared {
    /// Marks the loop ended and wakes [`BoardHandle::wait_timeout`].
    fn mark_ended(&self) {
        let mut ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        *ended = true;
        self.ended_changed.notify_all();
    }
}

/// A running board: shows its progress and stops it. Dropping the handle
/// stops the board too.
#[derive(Debug)]
pub struct BoardHandle {
    mac: MacAddr,
    version: WireVersion,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<Result<BoardReport, BoardError>>>,
}

impl BoardHandle {
    /// The board's MAC address: what a host names it by (`fade recv --feb`).
    pub fn mac(&self) -> MacAddr {
        self.mac
    }

    /// The wire version the board speaks.
    pub fn version(&self) -> WireVersion {
        self.version
    }

    /// The board's counters now.
    pub fn snapshot(&self) -> BoardSnapshot {
        let s = &self.shared;
        BoardSnapshot {
            bytes_confirmed: s.confirmed_bytes.load(Ordering::Relaxed),
            sent: s.sent.load(Ordering::Relaxed),
            resent: s.resent.load(Ordering::Relaxed),
            acks: s.acks.load(Ordering::Relaxed),
            streaming: s.streaming.load(Ordering::Relaxed),
        }
    }

    /// The live count of acknowledged stream bytes, updated by the board
    /// thread: for a progress display that polls counters of its own.
    pub fn confirmed_bytes_counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.shared.confirmed_bytes)
    }

    /// Whether the board has ended on its own (stream over, no host
    /// within its duration, or a socket error).
    pub fn is_finished(&self) -> bool {
        *self.shared.ended.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits up to `timeout` for the board to end on its own; true if it
    /// has. A front-end waiting for a signal as well polls this.
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        let ended = self.shared.ended.lock().unwrap_or_else(|e| e.into_inner());
        let (ended, _) = self
            .shared
            .ended_changed
            .wait_timeout_while(ended, timeout, |ended| !*ended)
            .unwrap_or_else(|e| e.into_inner());
        *ended
    }

    /// Stops the board (if it is still running) and returns its report.
    pub fn stop(mut self) -> Result<BoardReport, BoardError> {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.join()
    }

    /// Waits until the board ends on its own and returns its report; a
    /// board without a byte limit or duration runs until stopped.
    pub fn wait(mut self) -> Result<BoardReport, BoardError> {
        self.join()
    }

    /// Joins the board thread.
    fn join(&mut self) -> Result<BoardReport, BoardError> {
        match self.thread.take() {
            Some(t) => t.join().map_err(|_| BoardError::Panicked)?,
            None => Err(BoardError::Panicked),
        }
    }
}

impl Drop for BoardHandle {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.shared.stop.store(true, Ordering::Relaxed);
            let _ = t.join();
        }
    }
}

/// Nanoseconds of `d`, saturated: the board's clock counts in u64 ns.
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_those_of_the_command_line() {
        let c = BoardConfig::new("eth1");
        assert_eq!(c.interface, "eth1");
        assert_eq!(c.version.name(), "1");
        assert_eq!(WireVersion::TenG.name(), "10g");
        assert_eq!(c.retransmit_timeout, Duration::from_micros(200));
        assert_eq!(c.ring_slots, 256);
        assert_eq!(c.controller, Controller::Fair);
        assert!(c.delay.validate().is_ok());
        assert_eq!(c.delay.initial_ns, 0);
    }

    #[test]
    fn a_missing_interface_is_an_error_naming_it() {
        let e = spawn(BoardConfig::new("no-such-if0")).expect_err("no interface");
        assert!(e.to_string().contains("no-such-if0"), "{e}");
    }

    #[test]
    fn bad_delay_parameters_are_refused_before_any_socket_opens() {
        let mut c = BoardConfig::new("no-such-if0");
        c.delay.t_low = 0.5;
        c.delay.t_high = 0.1;
        assert!(matches!(spawn(c), Err(BoardError::Delay(_))));
    }
}
