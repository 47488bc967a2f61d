//! The board's side of FADE: the published core's descriptor manager, as a sans-IO
//! state machine, for both wire versions ([`Board`] speaks v1,
//! [`TenGBoard`] FADE-10G; see [`crate::version`]).
//!
//! The board keeps a window of packet buffers in a ring (v1: [`WINDOW`] =
//! 32; 10G: 16). Stream packet *i* lives in buffer *i* mod the window, so a
//! buffer can take a later packet only once the host has confirmed the
//! current one. Each buffer has a
//! descriptor with the published core's flags: V (filled, valid for sending), S (sent
//! at least once) and C (confirmed by an ACK). Three pointers walk the
//! ring, all counted here as packet indices since the stream began:
//! `head` (next buffer to fill), `tail` (oldest unconfirmed) and `retr`
//! (where the sweep that picks the next packet to send stands).
//!
//! The sweep sends any buffer with V=1 and C=0 that was never sent, or
//! whose last transmission is older than the retransmission timeout; the
//! timeout keeps a full window from resending everything at once while the
//! ACKs are still on their way. Between two packets the board waits its
//! adaptive inter-packet delay ([`crate::adaptive_delay`]), and never less
//! than the gap a configured line rate needs.
//!
//! Two controllers choose the delay ([`Controller`]): the published
//! core's adaptive delay, which
//! adapts it to the board's own resend ratio, and linerate's fair sharing,
//! which takes the gap the host puts in its ACKs
//! (`linerate_wire::fade::pacing`, computed by [`crate::fair`]) and falls
//! back to the adaptive delay until a hinted ACK arrives.
//!
//! The data is the verifiable counter stream of [`crate::stream`]. The
//! board fills the 10-bit retry field of every DATA packet with how many
//! times that packet was sent before (the published cores send 0; the FADE
//! core ignores the field in ACKs, so this stays wire compatible), which
//! lets the host measure the retransmission ratio.
//!
//! FADE-10G numbers its commands: the board answers START, STOP and user
//! commands with a 12-byte response (code and seq of the command, 8
//! board-defined bytes) that rides in every DATA packet it sends from then
//! on, and, when no DATA packet is going out at the moment, in a
//! response-only packet. A repeated command (same seq, because the host
//! missed the answer) is run and answered again, as the reference core
//! does. The emulator's user commands answer like the reference core's
//! demonstration command: the argument (4 bytes) and the board's cumulative
//! retransmission count (4 bytes), both big-endian. RESET gets no answer.
//! The seq of a 10G DATA packet is the board's transmission counter; an
//! ACK echoes it, which tells the fast retransmission exactly which copy
//! arrived.
//!
//! Drive it with [`FadeBoard::handle_packet`] for every received FADE payload
//! and [`FadeBoard::poll_transmit`] whenever it may send; the latter (and
//! [`FadeBoard::poll_timeout`]) says when to call again.

use std::marker::PhantomData;

use linerate_wire::fade::ten_g::{Command, CommandResponse};
use linerate_wire::fade::v1;

use crate::adaptive_delay::{self, AdaptiveDelay};
use crate::stream;
use crate::version::{BoardInput, DataOut, TenG, Version, V1};

/// Packet buffers on a FADE v1 board: one set of 32.
pub const WINDOW: u64 = v1::PACKETS_PER_SET as u64;

/// Data bytes per FADE v1 packet.
pub const PACKET_BYTES: u64 = v1::DATA_LEN as u64;

pub use crate::error::BoardError;

/// How a board chooses its inter-packet delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Controller {
    /// The published core's adaptive delay only ([`crate::adaptive_delay`]):
    /// each board reacts to its own resend ratio; pacing hints in ACKs are
    /// ignored, as the published core ignores all ACK padding.
    AdaptiveDelay,
    /// linerate's fair sharing: keep the gap of the last ACK that carried
    /// a pacing hint; the adaptive delay until one arrives (so a board works
    /// with a host that sends no hints).
    #[default]
    Fair,
}

/// Settings of an emulated board.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoardConfig {
    /// Time after which a sent, unconfirmed packet is sent again, in
    /// nanoseconds. Shorter recovers loss sooner, longer wastes less of
    /// the link on packets whose ACK is merely late. With
    /// [`Self::adaptive_timeout`] it is the smallest timeout used.
    pub retransmit_timeout_ns: u64,
    /// Adapt the timeout to the measured ACK round trip (smoothed RTT plus
    /// four times its mean deviation, from packets sent once only, as TCP
    /// does); a few adds and shifts per ACK, cheap in an FPGA. Off: the
    /// fixed timeout, closest to the published core.
    pub adaptive_timeout: bool,
    /// When an ACK confirms a packet, resend at once every unconfirmed
    /// packet that was transmitted before it: on a link that keeps order,
    /// those were lost. FADE-10G's core does the same with the seq its
    /// ACKs echo; a v1 board knows its own send order, so the wire stays
    /// v1. Off: only the timeout resends, as the v1 core does.
    pub fast_retransmit: bool,
    /// Smallest gap between two packet starts, in nanoseconds: the time one
    /// frame takes at the configured line rate (0: unlimited).
    pub min_gap_ns: u64,
    /// The adaptive inter-packet delay's parameters (the published core's by default).
    pub delay: adaptive_delay::Config,
    /// Which controller sets the delay between packets.
    pub controller: Controller,
    /// How long the owner (the host whose START is running the board) must
    /// have been silent before another host's command may take the board
    /// over, in nanoseconds; `None`: never, only the owner's RESET frees
    /// the board. Used by [`FadeBoard::handle_frame`].
    pub takeover_after_ns: Option<u64>,
    /// Stream bytes to send in all; `None` sends until stopped. v1 rounds
    /// up to whole packets. FADE-10G rounds up to 64-bit words and ends a
    /// stream that stops part-way through a packet with a flushed packet
    /// carrying the count of valid words (a whole packet when the count
    /// would not fit: more than 1023 words).
    pub limit_bytes: Option<u64>,
}

impl Default for BoardConfig {
    fn default() -> Self {
        BoardConfig {
            retransmit_timeout_ns: 200_000,
            adaptive_timeout: true,
            fast_retransmit: true,
            min_gap_ns: 0,
            delay: adaptive_delay::Config {
                initial_ns: 0,
                ..adaptive_delay::Config::default()
            },
            controller: Controller::default(),
            takeover_after_ns: None,
            limit_bytes: None,
        }
    }
}

/// What [`Board::poll_transmit`] asks the caller to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardPoll {
    /// Send the first `len` bytes of the buffer as one FADE payload, then
    /// poll again.
    Send(usize),
    /// Nothing to send before this time (nanoseconds, the caller's clock),
    /// which is also [`FadeBoard::poll_timeout`].
    WaitUntil(u64),
    /// Nothing to send until a packet arrives (not started, stopped, all
    /// confirmed).
    Idle,
}

/// What a received packet did to the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// START: transmission (re)started.
    Started,
    /// STOP: no more transmissions until the next START.
    Stopped,
    /// RESET: buffers emptied, the stream starts again from offset 0.
    Reset,
    /// An ACK confirmed an outstanding packet.
    Confirmed,
    /// An ACK for nothing outstanding (a duplicate ACK, or one for a
    /// packet confirmed already).
    StaleAck,
    /// A NACK, which the published core ignores too.
    Nack,
    /// A command or ACK from a host other than the board's owner (see
    /// [`FadeBoard::handle_frame`]): ignored, and counted.
    Foreign,
    /// A FADE-10G user command, run and answered (its response is queued).
    User {
        /// The command code (at least 0x0100).
        code: u16,
        /// Its argument.
        arg: u32,
    },
}

/// Counters of one board since it was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BoardCounters {
    /// DATA packets sent for the first time.
    pub sent: u64,
    /// DATA packets sent again because no ACK came in time.
    pub resent: u64,
    /// ACKs that confirmed an outstanding packet.
    pub acks: u64,
    /// ACKs for nothing outstanding.
    pub stale_acks: u64,
    /// Packets ignored because they could not be parsed.
    pub rejected: u64,
    /// Packets confirmed in order over the board's life (a RESET does not
    /// clear this, unlike [`FadeBoard::confirmed`]).
    pub confirmed: u64,
    /// Commands answered with a response (FADE-10G).
    pub commands: u64,
    /// Response-only packets sent, when no DATA packet could carry the
    /// answer (FADE-10G).
    pub response_packets: u64,
    /// START, STOP, RESET and user commands from a host other than the
    /// owner, ignored.
    pub foreign_commands: u64,
    /// ACKs (and their pacing hints) from a host other than the owner,
    /// ignored.
    pub foreign_acks: u64,
    /// Pacing hints above [`MAX_HINT_GAP_NS`], clamped to it.
    pub clamped_hints: u64,
    /// Times another host took the board over from a silent owner.
    pub takeovers: u64,
}

#[derive(Debug, Clone)]
struct Descriptor {
    /// Stream index of the packet in this buffer.
    index: u64,
    valid: bool,
    sent: bool,
    confirmed: bool,
    /// Transmissions so far.
    sends: u32,
    /// The board's transmission counter at this packet's last send.
    send_seq: u64,
    /// A later packet was confirmed first: resend without waiting.
    due: bool,
    sent_at_ns: u64,
    data: Box<[u8]>,
}

/// Running state of the transmitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Waiting,
    Running,
}

/// One emulated FADE board speaking wire version `W`.
#[derive(Debug)]
pub struct FadeBoard<W: Version> {
    config: BoardConfig,
    descriptors: Vec<Descriptor>,
    head: u64,
    tail: u64,
    retr: u64,
    limit_packets: Option<u64>,
    state: State,
    delay: AdaptiveDelay,
    next_send_ns: u64,
    counters: BoardCounters,
    /// Smoothed round trip and its mean deviation, nanoseconds (0: none yet).
    srtt_ns: u64,
    rttvar_ns: u64,
    /// Transmissions so far, first sends and resends.
    send_seq: u64,
    /// The gap of the last hinted ACK (fair controller only).
    hint_gap_ns: Option<u64>,
    /// Doublings of the adaptive timeout since the last confirmation.
    backoff: u32,
    /// The host whose START runs the board ([`FadeBoard::handle_frame`]).
    owner: Option<[u8; 6]>,
    /// When the owner was last heard from.
    owner_heard_ns: u64,
    /// The answer to the last command, carried by every DATA packet
    /// (FADE-10G; [`CommandResponse::NONE`] until a command arrives).
    response: CommandResponse,
    /// The answer has not been sent since the command arrived.
    response_due: bool,
    /// What [`FadeBoard::poll_timeout`] says: when `poll_transmit` next
    /// has work, as its last answer or the last input left it.
    timeout: Option<u64>,
    /// The last packet of a limited FADE-10G stream that ends part-way
    /// through it: its index and count of valid words.
    flush_last: Option<(u64, u64)>,
    version: PhantomData<W>,
}

/// Index and valid words of the flushed last packet of a stream of
/// `limit_bytes`, if it needs one.
fn flush_last<W: Version>(limit_bytes: Option<u64>) -> Option<(u64, u64)> {
    let bytes = limit_bytes?;
    let rest = bytes % W::PACKET_BYTES;
    let words = rest.div_ceil(stream::WORD);
    (W::FLUSH && rest > 0 && words <= crate::version::MAX_FLUSHED_WORDS)
        .then(|| (bytes / W::PACKET_BYTES, words))
}

/// An emulated FADE v1 board.
pub type Board = FadeBoard<V1>;

/// An emulated FADE-10G board.
pub type TenGBoard = FadeBoard<TenG>;

/// Gaps of lateness the pacer may make good with back-to-back packets (a
/// window's worth). An FPGA is never late; an emulator sharing a core with
/// other boards often wakes up several gaps late, and every gap it cannot
/// make good is link time lost.
const PACING_CATCH_UP: u64 = 32;

/// Largest adaptive retransmission timeout.
const MAX_TIMEOUT_NS: u64 = 100_000_000;

/// Most doublings of the adaptive timeout while no ACK confirms anything
/// (64 times the round-trip estimate).
const MAX_BACKOFF: u32 = 6;

/// Largest pacing gap a board takes from a hint, in nanoseconds: 10 ms.
/// Larger hints (up to the 4.3 s a 32-bit gap can say) are clamped to it,
/// so that one forged ACK cannot silence a board for longer than a
/// receiver waits. 10 ms is the gap of a v1 board given 0.86 Mbit/s (a
/// 10 Mbit/s link, the slowest Ethernet, shared by 11 boards) and of a
/// FADE-10G board given 6.6 Mbit/s; slower shares are not supported.
pub const MAX_HINT_GAP_NS: u64 = 10_000_000;

impl<W: Version> FadeBoard<W> {
    /// A board waiting for START.
    pub fn new(config: BoardConfig) -> Result<Self, adaptive_delay::ConfigError> {
        let delay = AdaptiveDelay::new(config.delay)?;
        let descriptors = (0..W::WINDOW)
            .map(|_| Descriptor {
                index: 0,
                valid: false,
                sent: false,
                confirmed: false,
                sends: 0,
                send_seq: 0,
                due: false,
                sent_at_ns: 0,
                data: vec![0; W::PACKET_BYTES as usize].into_boxed_slice(),
            })
            .collect();
        Ok(FadeBoard {
            limit_packets: config.limit_bytes.map(|b| b.div_ceil(W::PACKET_BYTES)),
            config,
            descriptors,
            head: 0,
            tail: 0,
            retr: 0,
            state: State::Waiting,
            delay,
            next_send_ns: 0,
            counters: BoardCounters::default(),
            srtt_ns: 0,
            rttvar_ns: 0,
            send_seq: 0,
            hint_gap_ns: None,
            backoff: 0,
            owner: None,
            owner_heard_ns: 0,
            response: CommandResponse::NONE,
            response_due: false,
            timeout: None,
            flush_last: flush_last::<W>(config.limit_bytes),
            version: PhantomData,
        })
    }

    /// Makes a fresh board's stream begin at packet `index` instead of 0,
    /// as if everything before had been confirmed: lets tests reach the
    /// 32-bit wrap of FADE-10G packet numbers.
    #[cfg(test)]
    pub(crate) fn start_at(&mut self, index: u64) {
        self.head = index;
        self.tail = index;
        self.retr = index;
    }

    /// The command response DATA packets carry now (FADE-10G).
    pub fn response(&self) -> CommandResponse {
        self.response
    }

    /// Counters since the board was created.
    pub fn counters(&self) -> BoardCounters {
        self.counters
    }

    /// Packets confirmed in order so far (the `tail` pointer).
    pub fn confirmed(&self) -> u64 {
        self.tail
    }

    /// The current inter-packet delay in nanoseconds, as the controller
    /// sets it: the hinted gap (fair, once hinted) or the adaptive
    /// delay. This is what DATA packets report.
    pub fn delay_ns(&self) -> u64 {
        match (self.config.controller, self.hint_gap_ns) {
            (Controller::Fair, Some(g)) => g,
            _ => self.delay.delay_ns(),
        }
    }

    /// The gap kept between two packet starts now: the controller's delay,
    /// never less than the line rate's gap.
    pub fn gap_ns(&self) -> u64 {
        self.delay_ns().max(self.config.min_gap_ns)
    }

    /// The gap of the last pacing hint received, if any (always `None`
    /// with the adaptive-delay controller).
    pub fn hint_gap_ns(&self) -> Option<u64> {
        self.hint_gap_ns
    }

    /// True while START has been received and no STOP or RESET since.
    pub fn is_running(&self) -> bool {
        self.state == State::Running
    }

    /// True once every packet of a limited stream is confirmed.
    pub fn is_done(&self) -> bool {
        self.limit_packets.is_some_and(|n| self.tail >= n)
    }

    /// Stops filling buffers: what is filled is still sent until
    /// confirmed, so the stream ends cleanly at the current `head`.
    pub fn finish(&mut self) {
        self.limit_packets = Some(self.limit_packets.map_or(self.head, |n| n.min(self.head)));
    }

    /// Handles one FADE payload received at `now_ns` from the host that
    /// runs the board, whoever that is: no ownership rule applies (see
    /// [`Self::handle_frame`] for a board on a shared segment).
    pub fn handle_packet(&mut self, payload: &[u8], now_ns: u64) -> Result<Event, BoardError> {
        let input = self.parse(payload)?;
        Ok(self.handle(input, now_ns))
    }

    /// Handles one FADE payload received at `now_ns` from the host with
    /// MAC `from`, under the ownership rule: the host whose START the
    /// board runs owns it until it sends RESET. While owned, START, STOP,
    /// RESET, user commands and ACKs (with their pacing hints) from any
    /// other host are ignored and counted ([`Event::Foreign`]), unless
    /// [`BoardConfig::takeover_after_ns`] allows another host to take over
    /// an owner that has been silent that long. An unowned board takes
    /// commands from anyone; its first START makes the sender its owner.
    pub fn handle_frame(
        &mut self,
        from: [u8; 6],
        payload: &[u8],
        now_ns: u64,
    ) -> Result<Event, BoardError> {
        let input = self.parse(payload)?;
        let command = match input {
            BoardInput::Command { command, .. } => Some(command),
            BoardInput::Ack { .. } => None,
            BoardInput::Nack => return Ok(Event::Nack),
        };
        if self.owner.is_some_and(|o| o != from) {
            let silent = now_ns.saturating_sub(self.owner_heard_ns);
            let takeover =
                command.is_some() && self.config.takeover_after_ns.is_some_and(|t| silent >= t);
            if !takeover {
                match command {
                    Some(_) => self.counters.foreign_commands += 1,
                    None => self.counters.foreign_acks += 1,
                }
                return Ok(Event::Foreign);
            }
            self.counters.takeovers += 1;
            self.owner = None;
        }
        self.owner_heard_ns = now_ns;
        match command {
            Some(Command::Start) => self.owner = Some(from),
            Some(Command::Reset) => self.owner = None,
            _ => {}
        }
        Ok(self.handle(input, now_ns))
    }

    /// The host that owns the board ([`Self::handle_frame`]), if any.
    pub fn owner(&self) -> Option<[u8; 6]> {
        self.owner
    }

    /// Parses a payload for the board, counting what it cannot parse.
    fn parse(&mut self, payload: &[u8]) -> Result<BoardInput, BoardError> {
        W::parse_board_input(payload).inspect_err(|_| self.counters.rejected += 1)
    }

    /// Runs one parsed input.
    fn handle(&mut self, input: BoardInput, now_ns: u64) -> Event {
        // Any accepted input may make a payload due: poll again now.
        self.timeout = Some(now_ns);
        match input {
            BoardInput::Command { command, seq, arg } => {
                let event = match command {
                    Command::Start => {
                        if self.state != State::Running {
                            self.state = State::Running;
                            self.next_send_ns = now_ns;
                        }
                        Event::Started
                    }
                    Command::Stop => {
                        self.state = State::Waiting;
                        Event::Stopped
                    }
                    Command::Reset => {
                        self.reset();
                        // The core resets and does not answer.
                        return Event::Reset;
                    }
                    Command::User(u) => Event::User {
                        code: u.code(),
                        arg,
                    },
                };
                if let Some(seq) = seq {
                    self.answer(command, seq, arg);
                }
                event
            }
            BoardInput::Ack {
                wire_index,
                echo_seq,
                hint_gap_ns,
            } => {
                if self.config.controller == Controller::Fair {
                    if let Some(gap) = hint_gap_ns {
                        self.take_hint(u64::from(gap));
                    }
                }
                self.confirm(wire_index, echo_seq, now_ns)
            }
            BoardInput::Nack => Event::Nack,
        }
    }

    /// Keeps a pacing hint's gap, clamped to [`MAX_HINT_GAP_NS`]. A gap
    /// shorter than the one in force brings the next packet forward at
    /// once: a board recovers from a bad hint with the next good one, not
    /// after the bad gap has run out.
    fn take_hint(&mut self, gap: u64) {
        if gap > MAX_HINT_GAP_NS {
            self.counters.clamped_hints += 1;
        }
        let gap = gap.min(MAX_HINT_GAP_NS);
        let before = self.gap_ns();
        self.hint_gap_ns = Some(gap);
        let after = self.gap_ns();
        if after < before {
            self.next_send_ns = self.next_send_ns.saturating_sub(before - after);
        }
    }

    /// Queues the response to a FADE-10G command: internal commands answer
    /// with 8 zero bytes, user commands with the argument and the
    /// cumulative retransmission count (the reference core's demonstration
    /// command).
    fn answer(&mut self, command: Command, seq: u16, arg: u32) {
        let mut data = [0u8; 8];
        if let Command::User(_) = command {
            data[..4].copy_from_slice(&arg.to_be_bytes());
            data[4..].copy_from_slice(&(self.counters.resent as u32).to_be_bytes());
        }
        self.response = CommandResponse {
            code: command.code(),
            seq,
            data,
        };
        self.response_due = true;
        self.counters.commands += 1;
    }

    /// Empties every buffer and restarts the stream at offset 0, waiting
    /// for START, as the core does on RESET.
    fn reset(&mut self) {
        for d in &mut self.descriptors {
            d.valid = false;
            d.sent = false;
            d.confirmed = false;
        }
        self.head = 0;
        self.tail = 0;
        self.retr = 0;
        self.limit_packets = self.config.limit_bytes.map(|b| b.div_ceil(W::PACKET_BYTES));
        self.state = State::Waiting;
        self.backoff = 0;
        self.response = CommandResponse::NONE;
        self.response_due = false;
    }

    /// The retransmission timeout now in force, in nanoseconds.
    pub fn retransmit_timeout_ns(&self) -> u64 {
        let floor = self.config.retransmit_timeout_ns;
        if !self.config.adaptive_timeout {
            return floor;
        }
        let base = if self.srtt_ns == 0 {
            floor
        } else {
            self.srtt_ns + 4 * self.rttvar_ns
        };
        (base << self.backoff).clamp(floor, MAX_TIMEOUT_NS.max(floor))
    }

    /// Feeds one round-trip sample (RFC 6298's gains of 1/8 and 1/4).
    fn sample_rtt(&mut self, rtt: u64) {
        if self.srtt_ns == 0 {
            self.srtt_ns = rtt.max(1);
            self.rttvar_ns = rtt / 2;
        } else {
            let dev = self.srtt_ns.abs_diff(rtt);
            self.rttvar_ns = self.rttvar_ns - self.rttvar_ns / 4 + dev / 4;
            self.srtt_ns = (self.srtt_ns - self.srtt_ns / 8 + rtt / 8).max(1);
        }
    }

    fn confirm(&mut self, wire_index: Option<u64>, echo_seq: Option<u16>, now_ns: u64) -> Event {
        let Some(wire) = wire_index else {
            self.counters.stale_acks += 1;
            return Event::StaleAck;
        };
        let Some(d) = self.descriptors.get_mut((wire % W::WINDOW) as usize) else {
            self.counters.stale_acks += 1;
            return Event::StaleAck;
        };
        let matches = d.valid
            && d.sent
            && !d.confirmed
            && d.index % W::INDEX_MODULUS == wire
            && d.index >= self.tail
            && d.index < self.head;
        if !matches {
            self.counters.stale_acks += 1;
            return Event::StaleAck;
        }
        d.confirmed = true;
        // Only packets sent once give an unambiguous round trip (Karn).
        let sample = (d.sends == 1).then(|| now_ns.saturating_sub(d.sent_at_ns));
        self.counters.acks += 1;
        // The transmission that arrived: the echoed seq (FADE-10G) names
        // it exactly, the latest one is the best guess otherwise. Widen
        // the 16-bit echo to the most recent counter value it can be.
        let last_seq = self.send_seq.saturating_sub(1);
        let acked_seq = echo_seq.map_or(d.send_seq, |e| {
            last_seq.saturating_sub(u64::from((last_seq as u16).wrapping_sub(e)))
        });
        if let Some(rtt) = sample {
            self.sample_rtt(rtt);
            // Karn: the backed-off timeout stands until a round trip can
            // be measured again; an ACK for a resent packet may answer an
            // earlier copy and says nothing about the path now.
            self.backoff = 0;
        }
        if self.config.fast_retransmit {
            for d in &mut self.descriptors {
                if d.valid && d.sent && !d.confirmed && d.send_seq < acked_seq {
                    d.due = true;
                }
            }
        }
        while self.tail < self.head && self.descriptor(self.tail).confirmed {
            self.tail += 1;
            self.counters.confirmed += 1;
        }
        Event::Confirmed
    }

    fn descriptor(&self, index: u64) -> &Descriptor {
        &self.descriptors[(index % W::WINDOW) as usize]
    }

    /// The data writer: fills every free buffer (V=0) with the next stream
    /// packet, up to the limit.
    fn fill(&mut self) {
        while self.head - self.tail < W::WINDOW
            && self.limit_packets.map_or(true, |n| self.head < n)
        {
            let index = self.head;
            let d = &mut self.descriptors[(index % W::WINDOW) as usize];
            d.index = index;
            d.valid = true;
            d.sent = false;
            d.confirmed = false;
            d.sends = 0;
            d.due = false;
            stream::fill(index * W::PACKET_BYTES, &mut d.data[..]);
            self.head += 1;
        }
    }

    /// Writes the next payload into `buf` if one is due at `now_ns`: a
    /// DATA packet, or (FADE-10G) a response-only packet when a command
    /// answer is waiting and no DATA packet can carry it now.
    ///
    /// `buf` must hold [`Version::DATA_PACKET_LEN`] bytes; a shorter buffer
    /// gets [`BoardPoll::Idle`] rather than a panic.
    pub fn poll_transmit(&mut self, now_ns: u64, buf: &mut [u8]) -> BoardPoll {
        if buf.len() < W::DATA_PACKET_LEN {
            return BoardPoll::Idle;
        }
        let poll = self.poll_payload(now_ns, buf);
        self.timeout = match poll {
            BoardPoll::Send(_) => Some(now_ns),
            BoardPoll::WaitUntil(t) => Some(t),
            BoardPoll::Idle => None,
        };
        poll
    }

    /// When (ns) [`Self::poll_transmit`] next has work, once it has
    /// answered [`BoardPoll::WaitUntil`] or [`BoardPoll::Idle`]: that
    /// time, or `None` until a packet arrives. After a packet arrives or a
    /// payload was sent, the time of that call: poll again at once.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.timeout
    }

    /// [`Self::poll_transmit`] with a buffer known to be large enough.
    fn poll_payload(&mut self, now_ns: u64, buf: &mut [u8]) -> BoardPoll {
        let t = self.poll_data(now_ns, buf);
        if !self.response_due || matches!(t, BoardPoll::Send(_)) {
            self.response_due = false;
            return t;
        }
        self.response_due = false;
        match W::emit_response(&self.response, buf) {
            Some(len) => {
                self.counters.response_packets += 1;
                BoardPoll::Send(len)
            }
            None => t,
        }
    }

    /// The DATA part of [`Self::poll_transmit`].
    fn poll_data(&mut self, now_ns: u64, buf: &mut [u8]) -> BoardPoll {
        if self.state != State::Running {
            return BoardPoll::Idle;
        }
        self.fill();
        let outstanding = self.head - self.tail;
        if outstanding == 0 {
            return BoardPoll::Idle;
        }
        if now_ns < self.next_send_ns {
            return BoardPoll::WaitUntil(self.next_send_ns);
        }
        if self.retr < self.tail || self.retr >= self.head {
            self.retr = self.tail;
        }
        let timeout = self.retransmit_timeout_ns();
        let mut earliest: Option<u64> = None;
        let mut pick = None;
        for k in 0..outstanding {
            let index = self.tail + (self.retr - self.tail + k) % outstanding;
            let d = self.descriptor(index);
            if d.confirmed {
                continue;
            }
            if !d.sent || d.due {
                pick = Some(index);
                break;
            }
            let due = d.sent_at_ns.saturating_add(timeout);
            if due <= now_ns {
                pick = Some(index);
                // A timeout, not a fast resend: the host or the path is
                // slower than the estimate; wait longer next time (as TCP
                // does) rather than resend a whole window again and again
                // while a stalled host catches up. Reset by the next ACK.
                if self.config.adaptive_timeout && index == self.tail {
                    self.backoff = (self.backoff + 1).min(MAX_BACKOFF);
                }
                break;
            }
            earliest = Some(earliest.map_or(due, |e: u64| e.min(due)));
        }
        let Some(index) = pick else {
            return earliest.map_or(BoardPoll::Idle, BoardPoll::WaitUntil);
        };
        let delay_ns = self.delay_ns();
        let d = &mut self.descriptors[(index % W::WINDOW) as usize];
        let resend = d.sent;
        let out = DataOut {
            index,
            sends_before: d.sends,
            seq: self.send_seq,
            delay: u32::try_from(delay_ns).unwrap_or(u32::MAX),
            response: self.response,
            data: &d.data,
            flushed_words: self
                .flush_last
                .filter(|&(last, _)| last == index)
                .map(|(_, words)| words),
        };
        let Some(len) = W::emit_data(&out, buf) else {
            return BoardPoll::Idle;
        };
        d.sent = true;
        d.due = false;
        d.send_seq = self.send_seq;
        self.send_seq += 1;
        d.sends = d.sends.saturating_add(1);
        d.sent_at_ns = now_ns;
        if resend {
            self.counters.resent += 1;
        } else {
            self.counters.sent += 1;
        }
        self.delay.on_packet_sent(resend);
        self.retr = index + 1;
        // Schedule from the previous slot, not from now, so a late wake-up
        // is caught up instead of lowering the rate; at most PACING_CATCH_UP
        // gaps of lateness are made good, in a short burst.
        let gap = self.gap_ns();
        let floor = now_ns.saturating_sub(gap.saturating_mul(PACING_CATCH_UP));
        self.next_send_ns = self.next_send_ns.max(floor).saturating_add(gap);
        BoardPoll::Send(len)
    }
}

/// The set number of stream packet `index` (wraps at 65536).
pub fn set_of(index: u64) -> u16 {
    (index / WINDOW) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate_wire::fade::pacing;
    use linerate_wire::fade::v1::{ControlRepr, DataRepr, Repr, Tag, DATA_LEN};
    use proptest::prelude::*;

    fn control(c: ControlRepr) -> Vec<u8> {
        Repr::Control(c).to_vec()
    }

    fn data(buf: &[u8]) -> DataRepr<'_> {
        match Repr::parse_bytes(buf) {
            Ok(Repr::Data(d)) => d,
            other => panic!("not data: {other:?}"),
        }
    }

    fn started(config: BoardConfig) -> Board {
        let mut b = Board::new(config).expect("config");
        assert_eq!(
            b.handle_packet(&control(ControlRepr::Start), 0),
            Ok(Event::Started)
        );
        b
    }

    #[test]
    fn waits_for_start_then_fills_one_set_and_stops_for_acks() {
        let mut b = Board::new(BoardConfig::default()).expect("config");
        let mut buf = [0u8; 2048];
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Idle);
        assert_eq!(b.poll_timeout(), None, "idle until a packet arrives");
        b.handle_packet(&control(ControlRepr::Start), 0)
            .expect("start");
        assert_eq!(b.poll_timeout(), Some(0), "START: poll again now");
        for i in 0..32u16 {
            assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
            let d = data(&buf[..1034]);
            assert_eq!(d.tag.set, 0);
            assert_eq!(u16::from(d.tag.packet_retry.packet()), i);
            assert_eq!(d.tag.packet_retry.retry(), 0);
            assert_eq!(stream::mismatches(u64::from(i) * 1024, d.data), 0);
        }
        // Window full, nothing confirmed: wait for the retransmission timeout.
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::WaitUntil(200_000));
        assert_eq!(b.poll_timeout(), Some(200_000));
        // ACK packet 0: buffer 0 takes packet 0 of set 1.
        b.handle_packet(
            &control(ControlRepr::Ack(Tag::new(0, 0, 0).expect("tag"))),
            1,
        )
        .expect("ack");
        assert_eq!(b.confirmed(), 1);
        assert_eq!(b.poll_transmit(1, &mut buf), BoardPoll::Send(1034));
        let d = data(&buf[..1034]);
        assert_eq!((d.tag.set, d.tag.packet_retry.packet()), (1, 0));
        assert_eq!(stream::mismatches(32 * 1024, d.data), 0);
    }

    #[test]
    fn resends_unconfirmed_packets_after_the_timeout_with_a_retry_count() {
        let mut b = started(BoardConfig {
            limit_bytes: Some(2 * 1024),
            fast_retransmit: false,
            ..BoardConfig::default()
        });
        let mut buf = [0u8; 1034];
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
        b.handle_packet(
            &control(ControlRepr::Ack(Tag::new(0, 1, 0).expect("tag"))),
            5,
        )
        .expect("ack");
        // Packet 1 confirmed out of order: tail stays on packet 0.
        assert_eq!(b.confirmed(), 0);
        assert_eq!(b.poll_transmit(10, &mut buf), BoardPoll::WaitUntil(200_000));
        assert_eq!(b.poll_transmit(200_000, &mut buf), BoardPoll::Send(1034));
        let d = data(&buf);
        assert_eq!(d.tag.packet_retry.packet(), 0);
        assert_eq!(d.tag.packet_retry.retry(), 1);
        assert_eq!(b.counters().resent, 1);
        b.handle_packet(&control(ControlRepr::Ack(d.tag)), 200_001)
            .expect("ack");
        assert_eq!(b.confirmed(), 2);
        assert!(b.is_done());
        assert_eq!(b.poll_transmit(300_000, &mut buf), BoardPoll::Idle);
    }

    #[test]
    fn an_ack_for_a_later_packet_resends_the_earlier_one_at_once() {
        let mut b = started(BoardConfig::default());
        let mut buf = [0u8; 1034];
        for _ in 0..3 {
            assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
        }
        // Packet 1 confirmed: packet 0, sent before it, was lost; packet 2,
        // sent after, may still be on its way.
        b.handle_packet(
            &control(ControlRepr::Ack(Tag::new(0, 1, 0).expect("tag"))),
            10,
        )
        .expect("ack");
        let mut resent = Vec::new();
        while let BoardPoll::Send(_) = b.poll_transmit(20, &mut buf) {
            let d = data(&buf);
            if d.tag.packet_retry.retry() > 0 {
                resent.push(d.tag.packet_retry.packet());
            }
        }
        assert_eq!(resent, vec![0]);
        assert_eq!(b.counters().resent, 1);
    }

    #[test]
    fn the_timeout_follows_the_round_trip() {
        let mut b = started(BoardConfig {
            retransmit_timeout_ns: 1_000,
            ..BoardConfig::default()
        });
        let mut buf = [0u8; 1034];
        assert_eq!(b.retransmit_timeout_ns(), 1_000);
        for i in 0..20u64 {
            let t = i * 1_000_000;
            assert_eq!(b.poll_transmit(t, &mut buf), BoardPoll::Send(1034));
            let tag = data(&buf).tag;
            b.handle_packet(&control(ControlRepr::Ack(tag)), t + 500_000)
                .expect("ack");
        }
        // Round trips of 500 us, steady: the timeout settles just above.
        let rto = b.retransmit_timeout_ns();
        assert!((500_000..700_000).contains(&rto), "{rto}");
        let mut fixed = started(BoardConfig {
            retransmit_timeout_ns: 1_000,
            adaptive_timeout: false,
            ..BoardConfig::default()
        });
        fixed.poll_transmit(0, &mut buf);
        let tag = data(&buf).tag;
        fixed
            .handle_packet(&control(ControlRepr::Ack(tag)), 500_000)
            .expect("ack");
        assert_eq!(fixed.retransmit_timeout_ns(), 1_000);
    }

    #[test]
    fn stale_and_foreign_acks_change_nothing() {
        let mut b = started(BoardConfig::default());
        let mut buf = [0u8; 1034];
        b.poll_transmit(0, &mut buf);
        // Wrong set for buffer 0, unsent buffer 1, packet number 40.
        for (set, p) in [(1, 0), (0, 1), (0, 40)] {
            let ack = control(ControlRepr::Ack(Tag::new(set, p, 0).expect("tag")));
            assert_eq!(b.handle_packet(&ack, 1), Ok(Event::StaleAck));
        }
        assert_eq!(b.confirmed(), 0);
        assert_eq!(b.counters().stale_acks, 3);
    }

    #[test]
    fn stop_pauses_and_reset_restarts_the_stream() {
        let mut b = started(BoardConfig::default());
        let mut buf = [0u8; 1034];
        b.poll_transmit(0, &mut buf);
        b.handle_packet(&control(ControlRepr::Ack(data(&buf).tag)), 1)
            .expect("ack");
        b.handle_packet(&control(ControlRepr::Stop), 2)
            .expect("stop");
        assert_eq!(b.poll_transmit(3, &mut buf), BoardPoll::Idle);
        b.handle_packet(&control(ControlRepr::Start), 4)
            .expect("start");
        assert_eq!(b.poll_transmit(4, &mut buf), BoardPoll::Send(1034));
        assert_eq!(data(&buf).tag.packet_retry.packet(), 1);
        b.handle_packet(&control(ControlRepr::Reset), 5)
            .expect("reset");
        assert_eq!(b.poll_transmit(6, &mut buf), BoardPoll::Idle);
        b.handle_packet(&control(ControlRepr::Start), 7)
            .expect("start");
        b.poll_transmit(7, &mut buf);
        let d = data(&buf);
        assert_eq!((d.tag.set, d.tag.packet_retry.packet()), (0, 0));
        assert_eq!(stream::mismatches(0, d.data), 0);
    }

    #[test]
    fn paces_packets_by_the_line_rate_gap() {
        let mut b = started(BoardConfig {
            min_gap_ns: 8_000,
            ..BoardConfig::default()
        });
        let mut buf = [0u8; 1034];
        assert_eq!(b.poll_transmit(100, &mut buf), BoardPoll::Send(1034));
        assert_eq!(b.poll_transmit(101, &mut buf), BoardPoll::WaitUntil(8_000));
        // Woken 2 us late: the next slot still follows the schedule.
        assert_eq!(b.poll_transmit(10_000, &mut buf), BoardPoll::Send(1034));
        assert_eq!(
            b.poll_transmit(10_001, &mut buf),
            BoardPoll::WaitUntil(16_000)
        );
        // Far behind (160 us, 20 gaps): the missed slots are made good
        // back to back (up to 32 gaps, which is the window anyway), then
        // the schedule again.
        let mut burst = 0;
        while let BoardPoll::Send(_) = b.poll_transmit(176_000, &mut buf) {
            burst += 1;
        }
        assert_eq!(burst, 21);
        assert_eq!(
            b.poll_transmit(176_000, &mut buf),
            BoardPoll::WaitUntil(184_000)
        );
    }

    fn hinted_ack(tag: Tag, gap_ns: u32) -> Vec<u8> {
        let mut a = control(ControlRepr::Ack(tag));
        assert!(pacing::write_hint(&mut a, gap_ns));
        a
    }

    #[test]
    fn the_fair_controller_keeps_the_hinted_gap_and_the_seed_one_ignores_it() {
        for (controller, want) in [
            (Controller::Fair, 25_000),
            (Controller::AdaptiveDelay, 8_000),
        ] {
            let mut b = started(BoardConfig {
                min_gap_ns: 8_000,
                controller,
                ..BoardConfig::default()
            });
            let mut buf = [0u8; 1034];
            assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
            // No hint yet: the line rate's gap.
            assert_eq!(b.gap_ns(), 8_000);
            b.handle_packet(&hinted_ack(data(&buf).tag, 25_000), 1_000)
                .expect("ack");
            assert_eq!(b.gap_ns(), want, "{controller:?}");
            // The slot already scheduled stands; the one after follows the hint.
            assert_eq!(
                b.poll_transmit(1_001, &mut buf),
                BoardPoll::WaitUntil(8_000)
            );
            assert_eq!(b.poll_transmit(8_000, &mut buf), BoardPoll::Send(1034));
            let next = 8_000 + want;
            assert_eq!(b.poll_transmit(8_001, &mut buf), BoardPoll::WaitUntil(next));
            // DATA reports the delay in force.
            let reported = u64::from(data(&buf).delay);
            assert_eq!(
                reported,
                if controller == Controller::Fair {
                    25_000
                } else {
                    0
                }
            );
            // A smaller hint speeds the board up, but never past its line.
            b.handle_packet(&hinted_ack(data(&buf).tag, 1_000), next)
                .expect("ack");
            assert_eq!(b.gap_ns(), 8_000);
        }
    }

    #[test]
    fn a_huge_hint_is_clamped_and_the_next_good_one_ends_it_at_once() {
        let mut b = started(BoardConfig::default());
        let mut buf = [0u8; 1034];
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
        let tag = data(&buf).tag;
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
        let second = data(&buf).tag;
        // A forged ACK with the largest gap a hint can say (4.3 s).
        b.handle_packet(&hinted_ack(tag, u32::MAX), 1_000)
            .expect("ack");
        assert_eq!(b.hint_gap_ns(), Some(MAX_HINT_GAP_NS));
        assert_eq!(b.counters().clamped_hints, 1);
        // The slot already scheduled stands; the one after is 10 ms on.
        assert_eq!(b.poll_transmit(1_000, &mut buf), BoardPoll::Send(1034));
        assert_eq!(
            b.poll_transmit(1_000, &mut buf),
            BoardPoll::WaitUntil(MAX_HINT_GAP_NS)
        );
        // The host's next ACK says 20 us: the next packet is due 20 us
        // after the last, not 10 ms.
        b.handle_packet(&hinted_ack(second, 20_000), 2_000)
            .expect("ack");
        assert_eq!(
            b.poll_transmit(2_000, &mut buf),
            BoardPoll::WaitUntil(20_000)
        );
        assert_eq!(b.poll_transmit(20_000, &mut buf), BoardPoll::Send(1034));
    }

    #[test]
    fn only_the_owner_commands_the_board_or_paces_it() {
        let (host, other) = ([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 9]);
        let start = control(ControlRepr::Start);
        let stop = control(ControlRepr::Stop);
        let reset = control(ControlRepr::Reset);
        let mut b = Board::new(BoardConfig::default()).expect("config");
        assert_eq!(b.handle_frame(host, &start, 0), Ok(Event::Started));
        assert_eq!(b.owner(), Some(host));
        let mut buf = [0u8; 1034];
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
        let tag = data(&buf).tag;
        // Another host's START, STOP, RESET and hinted ACK: ignored, counted.
        for c in [&start, &stop, &reset] {
            assert_eq!(b.handle_frame(other, c, 10), Ok(Event::Foreign));
        }
        assert_eq!(
            b.handle_frame(other, &hinted_ack(tag, 1_000_000), 10),
            Ok(Event::Foreign)
        );
        assert!(b.is_running());
        assert_eq!(b.owner(), Some(host));
        assert_eq!(b.hint_gap_ns(), None);
        assert_eq!(
            (b.counters().foreign_commands, b.counters().foreign_acks),
            (3, 1)
        );
        assert_eq!(
            b.handle_frame(host, &hinted_ack(tag, 500), 20),
            Ok(Event::Confirmed)
        );
        // The owner's STOP stops it and keeps it owned; its RESET frees it.
        assert_eq!(b.handle_frame(host, &stop, 30), Ok(Event::Stopped));
        assert_eq!(b.handle_frame(other, &start, 40), Ok(Event::Foreign));
        assert_eq!(b.handle_frame(host, &reset, 50), Ok(Event::Reset));
        assert_eq!(b.owner(), None);
        assert_eq!(b.handle_frame(other, &start, 60), Ok(Event::Started));
        assert_eq!(b.owner(), Some(other));
        // The trusted path (one host, no source) has no owner rule.
        assert_eq!(b.handle_packet(&stop, 70), Ok(Event::Stopped));
    }

    #[test]
    fn another_host_may_take_over_a_silent_owner_when_allowed() {
        let (host, other) = ([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 9]);
        let start = control(ControlRepr::Start);
        let mut b = Board::new(BoardConfig {
            takeover_after_ns: Some(1_000_000),
            ..BoardConfig::default()
        })
        .expect("config");
        b.handle_frame(host, &start, 0).expect("start");
        assert_eq!(b.handle_frame(other, &start, 999_999), Ok(Event::Foreign));
        assert_eq!(b.handle_frame(other, &start, 1_000_000), Ok(Event::Started));
        assert_eq!(b.owner(), Some(other));
        assert_eq!(b.counters().takeovers, 1);
        // The old owner is now a stranger; an ACK never takes over.
        assert_eq!(b.handle_frame(host, &start, 1_000_001), Ok(Event::Foreign));
    }

    #[test]
    fn timeouts_back_off_until_a_round_trip_is_measured_again() {
        let mut b = started(BoardConfig {
            limit_bytes: Some(1024),
            ..BoardConfig::default()
        });
        let mut buf = [0u8; 1034];
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
        let tag = data(&buf).tag;
        // No ACK: resent after 200 us, then 400, then 800.
        let mut t = 0;
        for wait in [200_000, 400_000, 800_000] {
            assert_eq!(
                b.poll_transmit(t + 1, &mut buf),
                BoardPoll::WaitUntil(t + wait)
            );
            t += wait;
            assert_eq!(b.poll_transmit(t, &mut buf), BoardPoll::Send(1034));
        }
        assert_eq!(b.retransmit_timeout_ns(), 1_600_000);
        assert_eq!(b.counters().resent, 3);
        // The ACK of a packet sent four times measures nothing (Karn): the
        // backed-off timeout stays.
        b.handle_packet(&control(ControlRepr::Ack(tag)), t + 10)
            .expect("ack");
        assert_eq!(b.retransmit_timeout_ns(), 1_600_000);
        assert!(b.is_done());
    }

    #[test]
    fn a_clean_round_trip_ends_the_backoff() {
        let mut b = started(BoardConfig {
            limit_bytes: Some(2048),
            ..BoardConfig::default()
        });
        let mut buf = [0u8; 1034];
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
        assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Send(1034));
        let second = data(&buf).tag;
        // Packet 0 times out and is resent: the timeout doubles, so packet
        // 1 is not due yet.
        assert_eq!(b.poll_transmit(250_000, &mut buf), BoardPoll::Send(1034));
        assert_eq!(data(&buf).tag.packet_retry.packet(), 0);
        assert_eq!(b.retransmit_timeout_ns(), 400_000);
        assert_eq!(
            b.poll_transmit(250_000, &mut buf),
            BoardPoll::WaitUntil(400_000)
        );
        // Packet 1 was sent once: its ACK is a clean sample of 260 us, and
        // the timeout is the estimate again (260 + 4 x 130 us), undoubled.
        b.handle_packet(&control(ControlRepr::Ack(second)), 260_000)
            .expect("ack");
        assert_eq!(b.retransmit_timeout_ns(), 780_000);
    }

    #[test]
    fn data_packets_and_garbage_are_refused() {
        let mut b = Board::new(BoardConfig::default()).expect("config");
        let d = [0u8; DATA_LEN];
        let pkt = Repr::Data(DataRepr {
            tag: Tag::new(3, 4, 0).expect("tag"),
            delay: 0,
            data: &d,
        })
        .to_vec();
        assert_eq!(
            b.handle_packet(&pkt, 0),
            Err(BoardError::UnexpectedData { set: 3, packet: 4 })
        );
        assert!(b.handle_packet(&[0x00, 0x09, 0, 0, 0, 0], 0).is_err());
        assert_eq!(b.counters().rejected, 2);
    }

    proptest! {
        /// No payload, however malformed, panics the board.
        #[test]
        fn any_bytes_are_handled(bytes in proptest::collection::vec(any::<u8>(), 0..1100)) {
            let mut b = started(BoardConfig::default());
            let mut buf = [0u8; 1034];
            b.poll_transmit(0, &mut buf);
            let _ = b.handle_packet(&bytes, 1);
            let _ = b.poll_transmit(2, &mut buf);
        }

        /// Whatever subset of packets the network loses and whatever ACKs
        /// it drops, as long as the host ACKs what arrives, the board
        /// finishes with every packet confirmed exactly in order.
        #[test]
        fn lossy_links_still_complete(seed in any::<u64>(), loss in 0u32..40) {
            let mut rng = seed | 1;
            let mut next = move || { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; (rng % 100) as u32 };
            let packets = 200u64;
            let mut b = started(BoardConfig { limit_bytes: Some(packets * 1024), ..BoardConfig::default() });
            let mut buf = [0u8; 1034];
            let mut now = 0u64;
            let mut got = vec![false; packets as usize];
            for _ in 0..200_000 {
                if b.is_done() { break; }
                match b.poll_transmit(now, &mut buf) {
                    BoardPoll::Send(_) => {
                        if next() < loss { continue; }
                        let d = data(&buf);
                        let p = u64::from(d.tag.packet_retry.packet());
                        // Recover the stream index from the data itself.
                        let first = u64::from_le_bytes(d.data[..8].try_into().expect("8"));
                        let index = first * 8 / 1024;
                        prop_assert_eq!(index % 32, p);
                        got[index as usize] = true;
                        if next() < loss { continue; }
                        b.handle_packet(&control(ControlRepr::Ack(d.tag)), now).expect("ack");
                    }
                    BoardPoll::WaitUntil(t) => now = t,
                    BoardPoll::Idle => prop_assert!(false, "idle before done"),
                }
            }
            prop_assert!(b.is_done());
            prop_assert!(got.iter().all(|&g| g));
        }
    }

    mod ten_g {
        use super::super::*;
        use linerate_wire::fade::ten_g::{
            self as wire, AckRepr, CommandRepr, ControlRepr, DataRepr, Repr,
        };

        fn command(command: Command, seq: u16) -> Vec<u8> {
            Repr::Control(ControlRepr::Command(CommandRepr {
                command,
                seq,
                arg: 0,
            }))
            .to_vec()
        }

        fn data(buf: &[u8]) -> DataRepr<'_> {
            match Repr::parse_bytes(buf) {
                Ok(Repr::Data(d)) => d,
                other => panic!("not data: {other:?}"),
            }
        }

        fn ack_of(buf: &[u8]) -> Vec<u8> {
            Repr::Control(ControlRepr::Ack(data(buf).ack())).to_vec()
        }

        #[test]
        fn fills_a_window_of_16_with_numbered_8192_byte_packets() {
            let mut b = TenGBoard::new(BoardConfig::default()).expect("config");
            let mut buf = vec![0u8; 9000];
            assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::Idle);
            assert_eq!(
                b.handle_packet(&command(Command::Start, 9), 0),
                Ok(Event::Started)
            );
            for i in 0..16u32 {
                assert_eq!(
                    b.poll_transmit(0, &mut buf),
                    BoardPoll::Send(wire::DATA_PACKET_LEN)
                );
                let d = data(&buf[..wire::DATA_PACKET_LEN]);
                assert_eq!((d.packet_number, d.seq), (i, i as u16));
                assert!(!d.flushed);
                // START's answer rides in every DATA packet.
                assert_eq!((d.response.code, d.response.seq), (wire::CMD_START, 9));
                assert_eq!(stream::mismatches(u64::from(i) * 8192, d.data), 0);
            }
            // Window full: wait for the timeout.
            assert_eq!(b.poll_transmit(0, &mut buf), BoardPoll::WaitUntil(200_000));
            assert_eq!(b.counters().response_packets, 0);
            // A buffer too short for a 10G DATA packet is refused, not a panic.
            assert_eq!(b.poll_transmit(0, &mut buf[..1034]), BoardPoll::Idle);
        }

        #[test]
        fn a_stream_ending_mid_packet_ends_with_a_flushed_packet() {
            // 2 packets and 100 bytes: 13 words (104 bytes) in a flushed third.
            let mut b = TenGBoard::new(BoardConfig {
                limit_bytes: Some(2 * 8192 + 100),
                ..BoardConfig::default()
            })
            .expect("config");
            b.handle_packet(&command(Command::Start, 1), 0)
                .expect("start");
            let mut buf = vec![0u8; 9000];
            for i in 0..3u32 {
                assert_eq!(
                    b.poll_transmit(0, &mut buf),
                    BoardPoll::Send(wire::DATA_PACKET_LEN)
                );
                let d = data(&buf[..wire::DATA_PACKET_LEN]);
                assert_eq!(d.packet_number, i);
                assert_eq!(d.flushed, i == 2);
                assert_eq!(d.flushed_word_count(), (i == 2).then_some(13));
                assert_eq!(stream::mismatches(u64::from(i) * 8192, &d.data[..104]), 0);
            }
            assert!(
                matches!(b.poll_transmit(0, &mut buf), BoardPoll::WaitUntil(_)),
                "three packets only"
            );
            // The last 7 bytes of a packet leave no room for the count: a
            // whole packet instead.
            for (limit, flushed) in [
                (8192 + 8184, Some((1, 1023))),
                (8192 + 8185, None),
                (8192, None),
            ] {
                assert_eq!(flush_last::<TenG>(Some(limit)), flushed, "{limit}");
            }
            assert_eq!(
                flush_last::<V1>(Some(1000)),
                None,
                "v1 has no flushed packets"
            );
        }

        #[test]
        fn the_echoed_seq_says_which_copy_arrived() {
            let mut b = TenGBoard::new(BoardConfig {
                limit_bytes: Some(3 * 8192),
                ..BoardConfig::default()
            })
            .expect("config");
            b.handle_packet(&command(Command::Start, 1), 0)
                .expect("start");
            let mut buf = vec![0u8; 9000];
            let mut sent = Vec::new();
            for t in [0, 1_000, 2_000] {
                assert!(matches!(b.poll_transmit(t, &mut buf), BoardPoll::Send(_)));
                sent.push(buf[..wire::DATA_PACKET_LEN].to_vec());
            }
            // Packet 0 times out and is resent as transmission 3.
            assert!(matches!(
                b.poll_transmit(200_000, &mut buf),
                BoardPoll::Send(_)
            ));
            let resent = data(&buf[..wire::DATA_PACKET_LEN]);
            assert_eq!((resent.packet_number, resent.seq), (0, 3));
            // Then the ACK of packet 0's first copy (seq 0) arrives: it
            // confirms packet 0 and, since nothing was sent before that
            // copy, makes no other packet due (by the last transmission,
            // packets 1 and 2 would look lost).
            assert_eq!(
                b.handle_packet(&ack_of(&sent[0]), 200_001),
                Ok(Event::Confirmed)
            );
            assert_eq!(b.confirmed(), 1);
            assert!(matches!(
                b.poll_transmit(200_002, &mut buf),
                BoardPoll::WaitUntil(_)
            ));
            // The ACK of packet 2 (seq 2) makes packet 1 (seq 1) due at once.
            assert_eq!(
                b.handle_packet(&ack_of(&sent[2]), 200_003),
                Ok(Event::Confirmed)
            );
            assert!(matches!(
                b.poll_transmit(200_004, &mut buf),
                BoardPoll::Send(_)
            ));
            let d = data(&buf[..wire::DATA_PACKET_LEN]);
            assert_eq!((d.packet_number, d.seq), (1, 4));
            assert_eq!(b.counters().resent, 2);
            b.handle_packet(&ack_of(&buf[..wire::DATA_PACKET_LEN]), 200_005)
                .expect("ack");
            assert!(b.is_done());
            // An ACK for a packet not in flight is stale.
            let stale = Repr::Control(ControlRepr::Ack(AckRepr {
                seq: 0,
                packet_number: 40,
                delay: 0,
            }))
            .to_vec();
            assert_eq!(b.handle_packet(&stale, 200_006), Ok(Event::StaleAck));
        }

        #[test]
        fn a_stopped_board_answers_in_a_response_packet_and_reset_clears_the_answer() {
            let mut b = TenGBoard::new(BoardConfig::default()).expect("config");
            let mut buf = vec![0u8; 9000];
            b.handle_packet(&command(Command::Start, 1), 0)
                .expect("start");
            assert!(matches!(
                b.poll_transmit(0, &mut buf),
                BoardPoll::Send(wire::DATA_PACKET_LEN)
            ));
            assert_eq!(
                b.handle_packet(&command(Command::Stop, 2), 1),
                Ok(Event::Stopped)
            );
            let BoardPoll::Send(n) = b.poll_transmit(2, &mut buf) else {
                panic!("no answer")
            };
            assert_eq!(n, wire::RESPONSE_PACKET_LEN);
            match Repr::parse_bytes(&buf[..n]) {
                Ok(Repr::Response(r)) => assert_eq!((r.code, r.seq, r.data), (2, 2, [0; 8])),
                other => panic!("{other:?}"),
            }
            // Answered once; a repeat of the command (same seq) is answered again.
            assert_eq!(b.poll_transmit(3, &mut buf), BoardPoll::Idle);
            b.handle_packet(&command(Command::Stop, 2), 4)
                .expect("stop again");
            assert!(matches!(b.poll_transmit(5, &mut buf), BoardPoll::Send(50)));
            assert_eq!(b.counters().commands, 3);
            // RESET: no answer, the carried response is cleared, the stream restarts at 0.
            assert_eq!(
                b.handle_packet(&command(Command::Reset, 3), 6),
                Ok(Event::Reset)
            );
            assert_eq!(b.poll_transmit(7, &mut buf), BoardPoll::Idle);
            assert!(b.response().is_none());
            b.handle_packet(&command(Command::Start, 4), 8)
                .expect("start");
            assert!(matches!(b.poll_transmit(9, &mut buf), BoardPoll::Send(_)));
            assert_eq!(data(&buf[..wire::DATA_PACKET_LEN]).packet_number, 0);
        }

        #[test]
        fn the_fair_controller_reads_the_hint_behind_the_ack_fields() {
            let mut b = TenGBoard::new(BoardConfig {
                min_gap_ns: 1_000,
                ..BoardConfig::default()
            })
            .expect("config");
            b.handle_packet(&command(Command::Start, 1), 0)
                .expect("start");
            let mut buf = vec![0u8; 9000];
            assert!(matches!(b.poll_transmit(0, &mut buf), BoardPoll::Send(_)));
            let mut ack = ack_of(&buf[..wire::DATA_PACKET_LEN]);
            assert!(linerate_wire::fade::pacing::write_hint_ten_g(
                &mut ack, 70_000
            ));
            b.handle_packet(&ack, 10).expect("ack");
            assert_eq!(b.hint_gap_ns(), Some(70_000));
            assert_eq!(b.gap_ns(), 70_000);
        }

        proptest::proptest! {
            /// No payload, however malformed, panics a FADE-10G board.
            #[test]
            fn any_bytes_are_handled(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..8300)) {
                let mut b = TenGBoard::new(BoardConfig::default()).expect("config");
                b.handle_packet(&command(Command::Start, 1), 0).expect("start");
                let mut buf = vec![0u8; 9000];
                b.poll_transmit(0, &mut buf);
                let _ = b.handle_packet(&bytes, 1);
                let _ = b.poll_transmit(2, &mut buf);
            }
        }

        #[test]
        fn v1_packets_and_data_are_refused() {
            let mut b = TenGBoard::new(BoardConfig::default()).expect("config");
            let v1_start =
                linerate_wire::fade::v1::Repr::Control(linerate_wire::fade::v1::ControlRepr::Start)
                    .to_vec();
            assert!(matches!(
                b.handle_packet(&v1_start, 0),
                Err(BoardError::Wire(_))
            ));
            let d = [0u8; wire::DATA_LEN];
            let pkt = Repr::Data(DataRepr {
                flushed: false,
                seq: 0,
                packet_number: 7,
                delay: 0,
                response: wire::CommandResponse::NONE,
                data: &d,
            })
            .to_vec();
            assert_eq!(
                b.handle_packet(&pkt, 0),
                Err(BoardError::UnexpectedTenGData { packet_number: 7 })
            );
            let resp = Repr::Response(wire::CommandResponse {
                code: 0x100,
                seq: 1,
                data: [0; 8],
            })
            .to_vec();
            assert_eq!(
                b.handle_packet(&resp, 0),
                Err(BoardError::UnexpectedResponse { code: 0x100 })
            );
            assert_eq!(b.counters().rejected, 3);
            assert!(!b.is_running());
        }
    }
}
