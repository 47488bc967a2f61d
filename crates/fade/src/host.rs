//! The host's side of a FADE readout of several boards, as one sans-IO
//! state machine: which board a frame came from, what to ACK, what to
//! store in which ring, and when to send START, STOP and RESET.
//!
//! [`crate::window`] judges the packets of one board; a [`Host`] runs the
//! readout around the windows. It starts the boards and sends START again
//! to a board that stays silent (START can be lost like any frame). It
//! ACKs their DATA, with each board's pacing hint when the fair controller
//! runs ([`crate::fair`]), and copies new data into the board's buffer
//! (a [`StreamBuffer`], [`crate::buffer`]) for the application. It stops a board whose stream is
//! broken and reports why, resets a board once it has delivered what was
//! asked (or at the deadline), and gives up on a board that stays silent
//! too long. On FADE-10G it can also send one user command to each board
//! once it streams, and collect the answers.
//!
//! The caller owns the sockets and the clock. It hands every received
//! frame to [`Host::handle_frame`], which passes the ACK back at once, through
//! a callback, before it copies the data: the ACK's latency is the figure
//! that matters most and the copy can wait. It sends what
//! [`Host::poll_transmit`] returns and calls [`Host::handle_timeout`] when
//! [`Host::poll_timeout`] says. Times are nanoseconds on any monotonic
//! clock the caller likes, the same for every call. Nothing here blocks or
//! touches the network, so a whole readout runs in a unit test.

use std::collections::VecDeque;
use std::marker::PhantomData;

use linerate_wire::ethernet::{MacAddr, ETHERTYPE_FADE, HEADER_LEN};
use linerate_wire::fade::ten_g::{Command, CommandResponse};
use linerate_wire::fade::CONTROL_LEN;

use crate::buffer::{BufferError, StreamBuffer};
use crate::command::{CommandClient, CommandConfig, CommandError, CommandPoll, Completion};
use crate::fair::{FairConfig, FairConfigError, FairShare};
use crate::version::Version;
use crate::window::{FadeWindow, StreamError, Verdict, WindowCounters};

/// Length of every frame the host sends: an Ethernet header and one
/// 64-byte FADE control payload (ACK, START, STOP, RESET, command).
pub const CONTROL_FRAME_LEN: usize = HEADER_LEN + CONTROL_LEN;

/// Wire bits of one DATA frame of version `W`, as the fair controller
/// counts them: header, payload, and 24 bytes of preamble, start
/// delimiter, FCS and inter-frame gap.
pub fn data_frame_bits<W: Version>() -> u64 {
    (HEADER_LEN as u64 + W::DATA_PACKET_LEN as u64 + 24) * 8
}

/// A FADE-10G user command the host sends to every board once it streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserCommand {
    /// The command (a user code, 0x0100 and above).
    pub command: Command,
    /// Its 32-bit argument.
    pub arg: u32,
    /// How often it is resent without an answer, and how many times.
    pub config: CommandConfig,
}

/// Settings of a readout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// The host's own MAC: the source address of every frame it sends.
    pub host_mac: [u8; 6],
    /// The boards by MAC. A board's index in this list names it in every
    /// call and result.
    pub boards: Vec<[u8; 6]>,
    /// Bytes to receive from each board, after which it is reset; `None`
    /// receives until the deadline or until the board ends its stream.
    pub limit_bytes: Option<u64>,
    /// Reset every board this long after [`Host::start`]; `None`: no
    /// deadline.
    pub duration_ns: Option<u64>,
    /// A board silent this long (nothing new from it) has failed.
    pub idle_timeout_ns: u64,
    /// A board silent this long is sent START again.
    pub start_retry_ns: u64,
    /// STOP and RESET frames sent at the end of a board's stream, since
    /// any one of them may be lost (at least 1 is sent).
    pub farewells: u32,
    /// Ring buffer per board, in bytes; rounded up to whole windows of
    /// packets, so a packet never straddles the ring's end, and to at
    /// least three windows, so that a duplicate can be compared with the
    /// copy received first.
    pub ring_bytes: usize,
    /// `Some`: linerate's fair controller divides the link and every ACK
    /// carries the board's pacing gap (its `frame_bits` is set from the
    /// wire version). `None`: plain ACKs, as the published FADE host sends them.
    pub fair: Option<FairConfig>,
    /// A user command for every board (FADE-10G only).
    pub command: Option<UserCommand>,
    /// Seq of the first START/STOP/RESET (FADE-10G; a board takes a
    /// command with the seq of the one before it for a repeat). User
    /// commands count from 0x8000 past it.
    pub first_seq: u16,
}

impl Default for HostConfig {
    /// No boards yet; 2 s idle timeout, START resent after 50 ms of
    /// silence, 3 farewells, 64 MiB rings, the fair controller on a
    /// 1 Gbit/s link.
    fn default() -> Self {
        HostConfig {
            host_mac: [0; 6],
            boards: Vec::new(),
            limit_bytes: None,
            duration_ns: None,
            idle_timeout_ns: 2_000_000_000,
            start_retry_ns: 50_000_000,
            farewells: 3,
            ring_bytes: 64 << 20,
            fair: Some(FairConfig::default()),
            command: None,
            first_seq: 0,
        }
    }
}

/// Why a readout cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostConfigError {
    /// No board to read.
    #[error("a readout needs at least one board")]
    NoBoards,
    /// One MAC twice: its frames could not be told apart.
    #[error("board {mac} is listed twice")]
    DuplicateBoard {
        /// The MAC given twice.
        mac: MacAddr,
    },
    /// A user command on a wire version without them.
    #[error("FADE version {version} has no user commands")]
    NoUserCommands {
        /// The wire version's name.
        version: &'static str,
    },
    /// The fair controller's settings.
    #[error(transparent)]
    Fair(#[from] FairConfigError),
    /// The ring size.
    #[error(transparent)]
    Ring(#[from] BufferError),
}

/// Why a board's stream ended without delivering what was asked. The
/// application sees the same text as its ring's error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardFailure {
    /// The board sent a packet it cannot be sending; it was stopped.
    #[error("board {mac}: {error}")]
    Stream {
        /// The board.
        mac: MacAddr,
        /// The packet that proved it.
        error: StreamError,
    },
    /// Nothing new arrived from the board for too long.
    #[error("board {mac}: nothing received for {silent_ms} ms: {}", silence_cause(*.delivered, *.foreign))]
    Silent {
        /// The board.
        mac: MacAddr,
        /// How long it had been silent, in milliseconds.
        silent_ms: u64,
        /// Bytes it had delivered before it fell silent: 0, it never
        /// answered START; more, it stopped mid-stream.
        delivered: u64,
        /// The last START or STOP the board answered that this host did
        /// not send (FADE-10G answers carry the command's seq), if any:
        /// someone else commanded it with this host's MAC.
        foreign: Option<ForeignCommand>,
    },
    /// The caller ended the readout early ([`Host::abort`]).
    #[error("board {mac}: interrupted")]
    Interrupted {
        /// The board.
        mac: MacAddr,
    },
    /// The ring refused data the window had accepted (a bug: the window
    /// checks the room first).
    #[error("board {mac}: ring buffer: {error}")]
    Ring {
        /// The board.
        mac: MacAddr,
        /// What the ring said.
        error: BufferError,
    },
}

/// A START or STOP a FADE-10G board answered that this host never sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForeignCommand {
    /// The command's code (START 1, STOP 2).
    pub code: u16,
    /// The seq it carried.
    pub seq: u16,
}

impl std::fmt::Display for ForeignCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self.code {
            linerate_wire::fade::ten_g::CMD_START => "START",
            linerate_wire::fade::ten_g::CMD_STOP => "STOP",
            _ => "command",
        };
        write!(f, "{name} (seq {:#06x})", self.seq)
    }
}

/// What a board's silence means, for [`BoardFailure::Silent`].
fn silence_cause(delivered: u64, foreign: Option<ForeignCommand>) -> String {
    if let Some(c) = foreign {
        format!(
            "the board answered a {c} this host never sent: another host commands it with this \
             host's MAC"
        )
    } else if delivered == 0 {
        "the board never answered START (not running, not reachable, or owned by another host)"
            .into()
    } else {
        format!(
            "the board stopped mid-stream after {delivered} bytes (stopped or reset by a command \
             this host did not send, powered off, or the link went down)"
        )
    }
}

/// A control frame for the caller to send to one board (an ACK, START,
/// STOP, RESET or command): complete, Ethernet header included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlFrame {
    /// The board it goes to (index in [`HostConfig::boards`]).
    pub board: usize,
    /// The Ethernet frame.
    pub frame: [u8; CONTROL_FRAME_LEN],
}

impl ControlFrame {
    /// `payload` to board `board` at `destination`, from `source`.
    fn new(
        board: usize,
        destination: [u8; 6],
        source: [u8; 6],
        payload: &[u8; CONTROL_LEN],
    ) -> ControlFrame {
        let mut frame = [0u8; CONTROL_FRAME_LEN];
        frame[..6].copy_from_slice(&destination);
        frame[6..12].copy_from_slice(&source);
        frame[12..HEADER_LEN].copy_from_slice(&ETHERTYPE_FADE.to_be_bytes());
        frame[HEADER_LEN..].copy_from_slice(payload);
        ControlFrame { board, frame }
    }

    /// The FADE payload, after the Ethernet header.
    pub fn payload(&self) -> &[u8] {
        &self.frame[HEADER_LEN..]
    }
}

/// What [`Host::handle_frame`] did with a frame from a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handled {
    /// The board it came from.
    pub board: usize,
    /// Whether it was a DATA packet that was ACKed (new or duplicate):
    /// the frames whose ACK latency counts.
    pub acked: bool,
}

/// Where one board's readout stands, for reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardOutcome {
    /// The board.
    pub mac: MacAddr,
    /// Bytes delivered to its ring in order (at most the limit).
    pub delivered: u64,
    /// Its window's counters.
    pub counters: WindowCounters,
    /// When its first new data arrived.
    pub first_data_ns: Option<u64>,
    /// When it delivered all that was asked (or the deadline came).
    pub done_ns: Option<u64>,
    /// Why it failed, if it did.
    pub failure: Option<BoardFailure>,
    /// Whether the user command was sent at all.
    pub command_sent: bool,
    /// START and STOP answers (FADE-10G) for commands this host never
    /// sent: another host commanding the board with this host's MAC.
    pub foreign_answers: u64,
    /// The last of them.
    pub last_foreign: Option<ForeignCommand>,
    /// The user command's answer, or why there is none; `None` while
    /// waiting, or when no command was asked for.
    pub command: Option<Result<Completion, CommandError>>,
}

impl BoardOutcome {
    /// Whether every byte asked for arrived (any amount when the readout
    /// had no limit), the board did not fail, and no packet conflicted
    /// with another copy of itself (a conflict means some delivered bytes
    /// may be forged).
    pub fn complete(&self, limit_bytes: Option<u64>) -> bool {
        self.failure.is_none()
            && self.counters.conflicts == 0
            && limit_bytes.map_or(true, |l| self.delivered >= l)
    }
}

/// One board as the host sees it.
#[derive(Debug)]
struct Board<W: Version, B> {
    mac: [u8; 6],
    window: FadeWindow<W>,
    /// Seq of the host's START/STOP/RESET (FADE-10G; a START resent
    /// because the board is silent keeps its seq).
    seq: u16,
    client: Option<CommandClient>,
    command: Option<Result<Completion, CommandError>>,
    writer: B,
    first_data_ns: Option<u64>,
    last_progress_ns: u64,
    last_start_ns: u64,
    done_ns: Option<u64>,
    failure: Option<BoardFailure>,
    /// Seq of the first START/STOP/RESET this host sent the board.
    first_seq: u16,
    foreign_answers: u64,
    last_foreign: Option<ForeignCommand>,
}

impl<W: Version, B: StreamBuffer> Board<W, B> {
    fn finished(&self) -> bool {
        self.done_ns.is_some() || self.failure.is_some()
    }

    fn delivered(&self, limit: Option<u64>) -> u64 {
        let d = self.window.delivered_bytes();
        limit.map_or(d, |l| d.min(l))
    }

    /// Ends the stream with `failure`: the application sees it in the ring.
    fn fail(&mut self, failure: BoardFailure) {
        self.writer.fail(failure.to_string());
        self.failure = Some(failure);
    }

    /// Hands an answer from the board to the user command's client, and
    /// notes a START or STOP answer whose seq this host never used.
    fn answered(&mut self, r: &CommandResponse, now_ns: u64) {
        use linerate_wire::fade::ten_g::{CMD_START, CMD_STOP};
        let ours = r.seq.wrapping_sub(self.first_seq) <= self.seq.wrapping_sub(self.first_seq);
        if (r.code == CMD_START || r.code == CMD_STOP) && !ours {
            self.foreign_answers += 1;
            self.last_foreign = Some(ForeignCommand {
                code: r.code,
                seq: r.seq,
            });
        }
        let Some(client) = self.client.as_mut() else {
            return;
        };
        if let Some(done) = client.handle_response(r, now_ns) {
            self.command = Some(Ok(done));
        }
    }
}

/// A readout of several boards speaking wire version `W`, delivering
/// each board's data into a buffer of type `B`.
#[derive(Debug)]
pub struct Host<W: Version, B> {
    config: HostConfig,
    boards: Vec<Board<W, B>>,
    fair: Option<FairShare>,
    out: VecDeque<ControlFrame>,
    started_ns: Option<u64>,
    version: PhantomData<W>,
}

impl<W: Version, B: StreamBuffer> Host<W, B> {
    /// A readout of `config.boards`, not started yet, and the reading end
    /// of each board's buffer (same order) for the application.
    #[allow(clippy::type_complexity)]
    pub fn new(config: HostConfig) -> Result<(Host<W, B>, Vec<B::Reader>), HostConfigError> {
        if config.boards.is_empty() {
            return Err(HostConfigError::NoBoards);
        }
        for (i, mac) in config.boards.iter().enumerate() {
            if config.boards[..i].contains(mac) {
                return Err(HostConfigError::DuplicateBoard { mac: MacAddr(*mac) });
            }
        }
        if config
            .command
            .is_some_and(|c| W::command(c.command, 0, 0).is_none())
        {
            return Err(HostConfigError::NoUserCommands { version: W::NAME });
        }
        let fair = config
            .fair
            .map(|f| {
                FairShare::new(
                    FairConfig {
                        frame_bits: data_frame_bits::<W>(),
                        ..f
                    },
                    config.boards.len(),
                )
            })
            .transpose()?;
        let unit = (W::PACKET_BYTES * W::WINDOW) as usize;
        // At least three windows, so that a duplicate's first copy is
        // still in the ring to compare with (see `StreamBuffer::holds`).
        let capacity = (config.ring_bytes.max(1).div_ceil(unit) * unit).max(3 * unit);
        let mut boards = Vec::with_capacity(config.boards.len());
        let mut readers = Vec::with_capacity(config.boards.len());
        for &mac in &config.boards {
            let (writer, reader) = B::open(capacity, unit)?;
            readers.push(reader);
            boards.push(Board {
                mac,
                window: FadeWindow::new(),
                seq: config.first_seq,
                client: None,
                command: None,
                writer,
                first_data_ns: None,
                last_progress_ns: 0,
                last_start_ns: 0,
                done_ns: None,
                failure: None,
                first_seq: config.first_seq,
                foreign_answers: 0,
                last_foreign: None,
            });
        }
        let host = Host {
            config,
            boards,
            fair,
            out: VecDeque::new(),
            started_ns: None,
            version: PhantomData,
        };
        Ok((host, readers))
    }

    /// Starts the readout at `now_ns`: START to every board. A second
    /// call does nothing.
    pub fn start(&mut self, now_ns: u64) {
        if self.started_ns.is_some() {
            return;
        }
        self.started_ns = Some(now_ns);
        for i in 0..self.boards.len() {
            let b = &mut self.boards[i];
            b.last_progress_ns = now_ns;
            b.last_start_ns = now_ns;
            self.queue_start(i);
        }
    }

    /// START to board `i`; RESET before it while nothing has arrived from
    /// the board, so that a board left running or stopped mid-stream by
    /// an earlier readout begins a new stream at offset 0 (its old
    /// stream's packets are [`Verdict::Stale`] until then).
    fn queue_start(&mut self, i: usize) {
        if self.boards[i].first_data_ns.is_none() {
            self.queue_control(i, Command::Reset, 1);
            let b = &mut self.boards[i];
            b.seq = b.seq.wrapping_add(1);
        }
        self.queue_control(i, Command::Start, 1);
    }

    /// Takes one received frame (Ethernet header included) at `now_ns`.
    /// `queued_ns` is how long it waited in the host between its receive
    /// stamp and the caller holding it, when known: the fair controller's
    /// queue guard uses it. The ACK for it, if any, goes to `send_ack`
    /// before the data is copied into the ring; an error from `send_ack`
    /// is returned after the frame has been dealt with in full (the data
    /// is kept: the board resends a packet whose ACK was lost, and that
    /// copy is ACKed as a duplicate). Frames that are not FADE, or come
    /// from a board not in the readout, are ignored (`None`).
    pub fn handle_frame<E>(
        &mut self,
        frame: &[u8],
        now_ns: u64,
        queued_ns: Option<u64>,
        send_ack: impl FnOnce(ControlFrame) -> Result<(), E>,
    ) -> Result<Option<Handled>, E> {
        let (Some(src), Some(ethertype), Some(payload)) = (
            frame.get(6..12),
            frame.get(12..HEADER_LEN),
            frame.get(HEADER_LEN..),
        ) else {
            return Ok(None);
        };
        if ethertype != ETHERTYPE_FADE.to_be_bytes() {
            return Ok(None);
        }
        let Some(i) = self.boards.iter().position(|b| b.mac == src) else {
            return Ok(None);
        };
        let limit = self.config.limit_bytes;
        let b = &mut self.boards[i];
        if b.finished() {
            // A board we are done with still sending: all our RESETs were
            // lost. Say it again, at most once per START retry interval.
            if b.failure.is_none()
                && now_ns.saturating_sub(b.last_start_ns) >= self.config.start_retry_ns
            {
                b.last_start_ns = now_ns;
                self.queue_control(i, Command::Reset, 1);
            }
            return Ok(Some(Handled {
                board: i,
                acked: false,
            }));
        }
        // A FADE-10G answer the board sent on its own (not streaming).
        if let Some(r) = W::parse_response(payload) {
            b.answered(&r, now_ns);
            return Ok(Some(Handled {
                board: i,
                acked: false,
            }));
        }
        if let (Some(q), Some(fair)) = (queued_ns, self.fair.as_mut()) {
            fair.on_queue_delay(q);
        }
        let room = b.writer.room_until();
        let retransmitted_before = b.window.counters().retransmitted;
        let (ack, store) = match b.window.on_data(payload, room) {
            Verdict::New {
                offset, data, ack, ..
            } => (Some(ack), Some((offset, data))),
            Verdict::Duplicate { ack, offset, data } => {
                // Only duplicates are compared, so the fast path (new
                // packets) pays nothing for it.
                if !b.writer.holds(offset, data) {
                    b.window.record_conflict();
                }
                (Some(ack), None)
            }
            Verdict::NoRoom | Verdict::Rejected(_) | Verdict::Stale => (None, None),
            Verdict::Fatal(error) => {
                let delivered = b.delivered(limit);
                b.seq = b.seq.wrapping_add(1);
                // The head only moves forward to what was delivered.
                let _ = b.writer.publish(delivered);
                b.fail(BoardFailure::Stream {
                    mac: MacAddr(b.mac),
                    error,
                });
                // STOP as the protocol says, then RESET: the board waits
                // for the next readout at the start of a new stream
                // rather than stopped mid-stream.
                let n = self.config.farewells;
                self.queue_control(i, Command::Stop, n);
                self.boards[i].seq = self.boards[i].seq.wrapping_add(1);
                self.queue_control(i, Command::Reset, n);
                return Ok(Some(Handled {
                    board: i,
                    acked: false,
                }));
            }
        };
        let mut sent = Ok(());
        if let Some(payload) = ack {
            let mut t = ControlFrame::new(i, b.mac, self.config.host_mac, &payload);
            if let Some(fair) = &self.fair {
                W::write_hint(&mut t.frame[HEADER_LEN..], fair.gap_ns(i));
            }
            sent = send_ack(t);
            if let Some(fair) = self.fair.as_mut() {
                let retransmitted = b.window.counters().retransmitted > retransmitted_before;
                fair.on_packet(i, retransmitted, now_ns);
            }
        }
        if let Some((offset, data)) = store {
            if let Err(error) = b.writer.write_at(offset, data) {
                b.fail(BoardFailure::Ring {
                    mac: MacAddr(b.mac),
                    error,
                });
            }
        }
        if let Some(r) = b.window.take_response() {
            b.answered(&r, now_ns);
        }
        if b.failure.is_none() {
            let head = b.delivered(limit).min(b.writer.room_until());
            if let Err(error) = b.writer.publish(head) {
                b.fail(BoardFailure::Ring {
                    mac: MacAddr(b.mac),
                    error,
                });
            } else {
                if ack.is_some() {
                    b.first_data_ns.get_or_insert(now_ns);
                    b.last_progress_ns = now_ns;
                }
                // Done: every byte asked for, or the board's stream ended
                // (a FADE-10G flushed packet) and all of it arrived.
                if limit.is_some_and(|l| head >= l) || b.window.is_ended() {
                    self.finish_board(i, now_ns);
                }
            }
        }
        sent.map(|()| {
            Some(Handled {
                board: i,
                acked: ack.is_some(),
            })
        })
    }

    /// Tells the fair controller's queue guard that the caller looked for
    /// frames and found none waiting: the host's queue drained, so late
    /// frames this round came from a late (preempted) caller, not from a
    /// queue standing in the host. Cheap; call it on every empty look.
    pub fn handle_queue_empty(&mut self) {
        if let Some(fair) = self.fair.as_mut() {
            fair.on_queue_empty();
        }
    }

    /// The next frame to send that is not an ACK (START, STOP, RESET, a
    /// user command), if any.
    pub fn poll_transmit(&mut self) -> Option<ControlFrame> {
        self.out.pop_front()
    }

    /// Runs the timers due at `now_ns`: the deadline, START retries, idle
    /// boards, user command resends. Calling it early or often is harmless.
    pub fn handle_timeout(&mut self, now_ns: u64) {
        let Some(started) = self.started_ns else {
            return;
        };
        let deadline = self.config.duration_ns.map(|d| started.saturating_add(d));
        for i in 0..self.boards.len() {
            if self.boards[i].finished() {
                continue;
            }
            if deadline.is_some_and(|d| now_ns >= d) {
                self.finish_board(i, now_ns);
                continue;
            }
            self.drive_command(i, now_ns);
            let b = &mut self.boards[i];
            let silent = now_ns.saturating_sub(b.last_progress_ns);
            if silent >= self.config.idle_timeout_ns {
                let mac = MacAddr(b.mac);
                let delivered = b.delivered(self.config.limit_bytes);
                let foreign = b.last_foreign;
                b.fail(BoardFailure::Silent {
                    mac,
                    silent_ms: silent / 1_000_000,
                    delivered,
                    foreign,
                });
            } else if silent >= self.config.start_retry_ns
                && now_ns.saturating_sub(b.last_start_ns) >= self.config.start_retry_ns
            {
                b.last_start_ns = now_ns;
                self.queue_start(i);
            }
        }
    }

    /// When [`Self::handle_timeout`] next has work, at the latest; `None`
    /// when nothing waits on time (not started, or every board finished).
    pub fn poll_timeout(&self) -> Option<u64> {
        let started = self.started_ns?;
        let deadline = self.config.duration_ns.map(|d| started.saturating_add(d));
        let retry = self.config.start_retry_ns;
        self.boards
            .iter()
            .filter(|b| !b.finished())
            .flat_map(|b| {
                let start_retry = b
                    .last_progress_ns
                    .max(b.last_start_ns)
                    .saturating_add(retry);
                let idle = b
                    .last_progress_ns
                    .saturating_add(self.config.idle_timeout_ns);
                // A command is due once the board streams, then at its
                // client's resend times.
                let command = match (self.config.command, b.first_data_ns, &b.command) {
                    (Some(_), Some(first), None) => {
                        b.client.as_ref().map_or(Some(first), |c| c.poll_timeout())
                    }
                    _ => None,
                };
                [Some(start_retry), Some(idle), deadline, command]
            })
            .flatten()
            .min()
    }

    /// Ends every unfinished board's stream as interrupted (the caller
    /// was told to stop) and sends each STOP.
    pub fn abort(&mut self) {
        for i in 0..self.boards.len() {
            let b = &mut self.boards[i];
            if b.finished() {
                continue;
            }
            b.seq = b.seq.wrapping_add(1);
            let _ = b.writer.publish(b.delivered(self.config.limit_bytes));
            b.fail(BoardFailure::Interrupted {
                mac: MacAddr(b.mac),
            });
            self.queue_control(i, Command::Stop, self.config.farewells);
        }
    }

    /// Whether every board has finished, done or failed.
    pub fn is_finished(&self) -> bool {
        self.boards.iter().all(Board::finished)
    }

    /// The boards' results so far, in [`HostConfig::boards`] order.
    pub fn outcomes(&self) -> Vec<BoardOutcome> {
        let limit = self.config.limit_bytes;
        self.boards
            .iter()
            .map(|b| BoardOutcome {
                mac: MacAddr(b.mac),
                delivered: b.delivered(limit),
                counters: b.window.counters(),
                first_data_ns: b.first_data_ns,
                done_ns: b.done_ns,
                failure: b.failure.clone(),
                command_sent: b.client.is_some(),
                command: b.command.clone(),
                foreign_answers: b.foreign_answers,
                last_foreign: b.last_foreign,
            })
            .collect()
    }

    /// The fair controller, when it runs (for its counters).
    pub fn fair(&self) -> Option<&FairShare> {
        self.fair.as_ref()
    }

    /// The readout's settings.
    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    /// Board `i` delivered what was asked: end its ring and reset it.
    fn finish_board(&mut self, i: usize, now_ns: u64) {
        let b = &mut self.boards[i];
        b.done_ns = Some(now_ns);
        b.writer.finish();
        b.seq = b.seq.wrapping_add(1);
        self.queue_control(i, Command::Reset, self.config.farewells);
    }

    /// Sends the user command once board `i` streams, resends it while it
    /// is unanswered, and gives up after the last try.
    fn drive_command(&mut self, i: usize, now_ns: u64) {
        let Some(c) = self.config.command else {
            return;
        };
        let b = &mut self.boards[i];
        if b.command.is_some() || b.first_data_ns.is_none() {
            return;
        }
        let payload = match b.client.as_mut() {
            None => {
                // Far from the seqs of START/STOP/RESET, which the board
                // would take for a repeat.
                let mut client =
                    CommandClient::new(c.config, self.config.first_seq.wrapping_add(0x8000));
                let issued = client.issue(c.command, c.arg, now_ns);
                b.client = Some(client);
                match issued {
                    Ok(p) => Some(p),
                    Err(e) => {
                        b.command = Some(Err(e));
                        None
                    }
                }
            }
            Some(client) => match client.poll_transmit(now_ns) {
                CommandPoll::Resend(p) => Some(p),
                CommandPoll::Failed(e) => {
                    b.command = Some(Err(e));
                    None
                }
                CommandPoll::WaitUntil(_) | CommandPoll::Idle => None,
            },
        };
        if let Some(p) = payload {
            let t = ControlFrame::new(i, b.mac, self.config.host_mac, &p);
            self.out.push_back(t);
        }
    }

    /// Queues `copies` (at least 1) of START, STOP or RESET to board `i`,
    /// with its current seq.
    fn queue_control(&mut self, i: usize, command: Command, copies: u32) {
        let b = &self.boards[i];
        // Every wire version has START, STOP and RESET.
        let Some(payload) = W::command(command, b.seq, 0) else {
            return;
        };
        let t = ControlFrame::new(i, b.mac, self.config.host_mac, &payload);
        for _ in 0..copies.max(1) {
            self.out.push_back(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{BoardConfig, BoardPoll, FadeBoard};
    use crate::buffer::{LocalReader, LocalRing};
    use crate::stream;
    use crate::version::{TenG, V1};
    use linerate_wire::fade::ten_g::UserCommand as UserCode;

    const HOST_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0xaa];
    const US: u64 = 1_000;
    const MS: u64 = 1_000_000;

    fn mac(i: usize) -> [u8; 6] {
        [2, 0, 0, 0, 1, i as u8]
    }

    fn config(boards: usize, limit: u64) -> HostConfig {
        HostConfig {
            host_mac: HOST_MAC,
            boards: (0..boards).map(mac).collect(),
            limit_bytes: Some(limit),
            ring_bytes: 256 << 10,
            first_seq: 7,
            ..HostConfig::default()
        }
    }

    /// `payload` from board `i` as the host receives it.
    /// A v1 board that has had START.
    fn started_board() -> FadeBoard<V1> {
        let mut board = FadeBoard::<V1>::new(BoardConfig::default()).expect("board");
        let start = V1::command(Command::Start, 0, 0).expect("start");
        board.handle_packet(&start, 0).expect("start");
        board
    }

    fn frame_from(i: usize, payload: &[u8]) -> Vec<u8> {
        let mut f = Vec::with_capacity(HEADER_LEN + payload.len());
        f.extend_from_slice(&HOST_MAC);
        f.extend_from_slice(&mac(i));
        f.extend_from_slice(&ETHERTYPE_FADE.to_be_bytes());
        f.extend_from_slice(payload);
        f
    }

    /// Boards and a host joined in memory, with a rule that drops some
    /// DATA frames and some ACKs (by their running count), and the
    /// application consuming every ring as it fills.
    struct Readout<W: Version> {
        host: Host<W, LocalRing>,
        readers: Vec<LocalReader>,
        boards: Vec<FadeBoard<W>>,
        now: u64,
        data_sent: u64,
        acks_sent: u64,
        drop_data: fn(u64) -> bool,
        drop_ack: fn(u64) -> bool,
        /// Bytes read, and words that failed verification, per board.
        read: Vec<u64>,
        mismatches: u64,
        /// Control frames (not ACKs) the boards were sent, by command word.
        controls: Vec<(usize, [u8; 2])>,
    }

    impl<W: Version> Readout<W> {
        fn new(config: HostConfig, board: BoardConfig) -> Readout<W> {
            let n = config.boards.len();
            let (host, readers) = Host::<W, LocalRing>::new(config).expect("host");
            Readout {
                host,
                readers,
                boards: (0..n)
                    .map(|_| FadeBoard::new(board).expect("board"))
                    .collect(),
                now: 1_000 * MS,
                data_sent: 0,
                acks_sent: 0,
                drop_data: |_| false,
                drop_ack: |_| false,
                read: vec![0; n],
                mismatches: 0,
                controls: Vec::new(),
            }
        }

        /// One microsecond of the readout.
        fn step(&mut self) {
            let mut buf = vec![0u8; W::DATA_PACKET_LEN];
            let mut acks = Vec::new();
            for i in 0..self.boards.len() {
                while let BoardPoll::Send(len) = self.boards[i].poll_transmit(self.now, &mut buf) {
                    self.data_sent += 1;
                    if (self.drop_data)(self.data_sent) {
                        continue;
                    }
                    let f = frame_from(i, &buf[..len]);
                    let r = self.host.handle_frame(&f, self.now, Some(US), |t| {
                        acks.push(t);
                        Ok::<(), ()>(())
                    });
                    let handled = r.expect("sent").expect("a board's frame");
                    assert_eq!(handled.board, i);
                }
            }
            for t in acks {
                self.acks_sent += 1;
                if !(self.drop_ack)(self.acks_sent) {
                    let _ = self.boards[t.board].handle_packet(t.payload(), self.now);
                }
            }
            self.host.handle_timeout(self.now);
            self.deliver_controls();
            for (i, r) in self.readers.iter_mut().enumerate() {
                let tail = r.pointers().tail;
                let data = r.data();
                let len = data.len() as u64;
                self.mismatches += stream::mismatches(tail, &data);
                drop(data);
                r.commit(len).expect("commit");
                self.read[i] += len;
            }
            self.now += US;
        }

        fn deliver_controls(&mut self) {
            while let Some(t) = self.host.poll_transmit() {
                assert_eq!(t.frame[..6], mac(t.board));
                assert_eq!(t.frame[6..12], HOST_MAC);
                self.controls
                    .push((t.board, [t.payload()[0], t.payload()[1]]));
                let _ = self.boards[t.board].handle_packet(t.payload(), self.now);
            }
        }

        /// Starts and steps until board 0 has delivered `bytes`.
        fn stream_until(&mut self, bytes: u64) {
            self.host.start(self.now);
            self.deliver_controls();
            while self.host.outcomes()[0].delivered < bytes {
                self.step();
            }
        }

        /// Starts and steps until the host finishes (at most `limit_ms`).
        fn run(&mut self, limit_ms: u64) {
            self.host.start(self.now);
            self.deliver_controls();
            let end = self.now + limit_ms * MS;
            while !self.host.is_finished() && self.now < end {
                self.step();
            }
            // The application reads what is left.
            self.step();
        }

        fn count(&self, board: usize, command: Command) -> usize {
            let code = W::command(command, 0, 0).expect("command");
            self.controls
                .iter()
                .filter(|(b, c)| *b == board && c[..] == code[..2])
                .count()
        }
    }

    #[test]
    fn a_lossy_readout_delivers_every_byte_once_in_order_and_resets_the_board() {
        let limit = 3 << 20;
        let mut r = Readout::<V1>::new(config(1, limit), BoardConfig::default());
        r.drop_data = |k| k % 7 == 0;
        r.drop_ack = |k| k % 11 == 0;
        r.run(2_000);
        let o = &r.host.outcomes()[0];
        assert!(o.complete(Some(limit)), "{o:?}");
        assert_eq!(o.delivered, limit);
        assert_eq!(r.read[0], limit);
        assert_eq!(r.mismatches, 0);
        assert!(
            o.counters.duplicates > 0 && o.counters.retransmitted > 0,
            "{o:?}"
        );
        let p = r.readers[0].pointers();
        assert!(p.eof && p.error.is_none());
        // One RESET before the first START, three at the end.
        assert_eq!(r.count(0, Command::Reset), 1 + 3);
        assert!(!r.boards[0].is_running());
        assert!(o.first_data_ns.is_some() && o.done_ns.is_some());
    }

    #[test]
    fn the_fair_controller_paces_every_board_and_the_seed_one_none() {
        for fair in [true, false] {
            let limit = 1 << 20;
            let mut c = config(3, limit);
            if !fair {
                c.fair = None;
            }
            let mut r = Readout::<V1>::new(c, BoardConfig::default());
            r.run(2_000);
            for (i, o) in r.host.outcomes().iter().enumerate() {
                assert!(o.complete(Some(limit)), "{o:?}");
                assert_eq!(r.read[i], limit);
                assert_eq!(r.boards[i].hint_gap_ns().is_some(), fair, "board {i}");
            }
            assert_eq!(r.host.fair().is_some(), fair);
            assert_eq!(r.mismatches, 0);
        }
    }

    #[test]
    fn a_restarted_board_is_stopped_and_its_reader_told_why() {
        let mut r = Readout::<V1>::new(config(1, 64 << 20), BoardConfig::default());
        r.stream_until(200 * 1024);
        // The board loses its state and streams from 0 again.
        r.boards[0] = FadeBoard::new(BoardConfig::default()).expect("board");
        let start = V1::command(Command::Start, 0, 0).expect("start");
        let _ = r.boards[0].handle_packet(&start, r.now);
        for _ in 0..10 {
            r.step();
        }
        let o = &r.host.outcomes()[0];
        let Some(BoardFailure::Stream { error, .. }) = &o.failure else {
            panic!("not a stream failure: {o:?}");
        };
        assert!(
            matches!(error, StreamError::ImpossibleSet { set: 0, .. }),
            "{error}"
        );
        assert_eq!(r.count(0, Command::Stop), 3);
        let p = r.readers[0].pointers();
        let why = p.error.expect("the reader sees the error");
        assert!(
            why.contains("impossible") && why.contains("02:00:00:00:01:00"),
            "{why}"
        );
        assert!(r.host.is_finished());
        assert_eq!(r.mismatches, 0);
    }

    #[test]
    fn a_silent_board_is_started_again_then_given_up() {
        let (mut host, readers) = Host::<V1, LocalRing>::new(config(1, 1 << 20)).expect("host");
        assert_eq!(host.poll_timeout(), None, "nothing waits before the start");
        host.start(0);
        let start = V1::command(Command::Start, 0, 0).expect("start");
        let reset = V1::command(Command::Reset, 0, 0).expect("reset");
        // RESET first: a board left mid-stream by an earlier readout
        // begins a new stream.
        let sent: Vec<Vec<u8>> = std::iter::from_fn(|| host.poll_transmit())
            .map(|t| t.payload().to_vec())
            .collect();
        assert_eq!(sent, vec![reset.to_vec(), start.to_vec()]);
        assert_eq!(host.poll_timeout(), Some(50 * MS));
        host.handle_timeout(49 * MS);
        assert_eq!(host.poll_transmit(), None, "too early");
        let (mut starts, mut resets) = (0, 0);
        let mut t = 0;
        while !host.is_finished() {
            t += MS;
            host.handle_timeout(t);
            while let Some(x) = host.poll_transmit() {
                if x.payload() == start {
                    starts += 1;
                } else {
                    assert_eq!(x.payload(), reset);
                    resets += 1;
                }
            }
        }
        assert_eq!(t, 2_000 * MS);
        assert_eq!(starts, 39, "one START per 50 ms of silence");
        assert_eq!(resets, 39, "each after a RESET, as nothing arrived");
        let o = &host.outcomes()[0];
        assert!(
            matches!(
                o.failure,
                Some(BoardFailure::Silent {
                    silent_ms: 2000,
                    delivered: 0,
                    ..
                })
            ),
            "{o:?}"
        );
        assert!(!o.complete(None));
        let why = readers[0].pointers().error.expect("error");
        assert!(
            why.contains("nothing received for 2000 ms") && why.contains("never answered START"),
            "{why}"
        );
        assert_eq!(host.poll_timeout(), None);
    }

    #[test]
    fn a_board_silent_mid_stream_is_reported_as_stopped_with_what_it_delivered() {
        let mut r = Readout::<V1>::new(config(1, 64 << 20), BoardConfig::default());
        r.stream_until(64 * 1024);
        // STOP from someone else: the board falls silent, and the host's
        // START retries are lost.
        let stop = V1::command(Command::Stop, 0, 0).expect("stop");
        let _ = r.boards[0].handle_packet(&stop, r.now);
        r.host.start(r.now);
        let end = r.now + 3_000 * MS;
        while !r.host.is_finished() && r.now < end {
            r.now += MS;
            r.host.handle_timeout(r.now);
            while r.host.poll_transmit().is_some() {}
        }
        let o = &r.host.outcomes()[0];
        let Some(f @ BoardFailure::Silent { delivered, .. }) = &o.failure else {
            panic!("{o:?}");
        };
        assert_eq!(*delivered, o.delivered);
        let why = f.to_string();
        assert!(
            why.contains("stopped mid-stream after") && why.contains("command"),
            "{why}"
        );
    }

    #[test]
    fn frames_that_are_not_a_boards_fade_are_ignored() {
        let (mut host, _readers) = Host::<V1, LocalRing>::new(config(1, 1 << 20)).expect("host");
        host.start(0);
        let mut buf = vec![0u8; V1::DATA_PACKET_LEN];
        let mut board = started_board();
        let BoardPoll::Send(len) = board.poll_transmit(0, &mut buf) else {
            panic!("the board sends");
        };
        let good = frame_from(0, &buf[..len]);
        let mut stranger = good.clone();
        stranger[11] = 9;
        let mut ip = good.clone();
        ip[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        for f in [&good[..5], &good[..13], &stranger[..], &ip[..]] {
            let r = host.handle_frame(f, 1, None, |_| Err("no ACK expected"));
            assert_eq!(r, Ok(None));
        }
        // A frame from the board that is no DATA packet: no ACK.
        let r = host.handle_frame(&good[..HEADER_LEN + 3], 1, None, |_| Err("no ACK expected"));
        assert_eq!(
            r,
            Ok(Some(Handled {
                board: 0,
                acked: false
            }))
        );
        assert_eq!(host.outcomes()[0].counters.rejected, 1);
        // The real one is ACKed, and a failed send is the caller's error.
        let r = host.handle_frame(&good, 2, None, |_| Err("link down"));
        assert_eq!(r, Err("link down"));
        assert_eq!(host.outcomes()[0].delivered, 1024, "the data is kept");
    }

    #[test]
    fn a_duplicate_with_other_bytes_is_a_conflict_and_the_first_copy_stays() {
        let (mut host, mut readers) = Host::<V1, LocalRing>::new(config(1, 1 << 20)).expect("host");
        host.start(0);
        while host.poll_transmit().is_some() {}
        let mut board = started_board();
        let mut buf = vec![0u8; V1::DATA_PACKET_LEN];
        let BoardPoll::Send(len) = board.poll_transmit(0, &mut buf) else {
            panic!("the board sends");
        };
        let good = frame_from(0, &buf[..len]);
        let mut forged = good.clone();
        forged[HEADER_LEN + 100] ^= 0xff;
        let ok = |_| Ok::<(), ()>(());
        // The forged copy first, then the real one: both ACKed, the real
        // one counted as a conflict; the same bytes again are no conflict.
        for (k, f) in [&forged, &good, &forged].iter().enumerate() {
            let h = host.handle_frame(f, k as u64 + 1, None, ok).expect("ok");
            assert_eq!(h.map(|h| h.acked), Some(true));
        }
        // Consumed by the reader: still compared (the ring keeps it).
        let n = readers[0].data().len() as u64;
        readers[0].commit(n).expect("commit");
        host.handle_frame(&good, 5, None, ok).expect("ok");
        let o = &host.outcomes()[0];
        assert_eq!(o.counters.conflicts, 2, "{o:?}");
        assert_eq!(o.counters.duplicates, 3);
        assert!(!o.complete(None), "conflicts make a run not clean");
        assert_eq!(o.delivered, 1024);
    }

    #[test]
    fn a_stale_packet_before_the_stream_is_ignored_and_a_fatal_one_resets_the_board() {
        let (mut host, _readers) = Host::<V1, LocalRing>::new(config(1, 1 << 20)).expect("host");
        host.start(0);
        while host.poll_transmit().is_some() {}
        let d = [0u8; 1024];
        let old = linerate_wire::fade::v1::Repr::Data(linerate_wire::fade::v1::DataRepr {
            tag: linerate_wire::fade::v1::Tag::new(605, 3, 0).expect("tag"),
            delay: 0,
            data: &d,
        })
        .to_vec();
        let f = frame_from(0, &old);
        let ok = |_| Ok::<(), ()>(());
        let h = host.handle_frame(&f, 1, None, ok).expect("ok");
        assert_eq!(h.map(|h| h.acked), Some(false));
        assert_eq!(host.outcomes()[0].counters.stale, 1);
        assert!(host.outcomes()[0].failure.is_none());
        // Once data flows, the same packet is fatal: STOP, then RESET.
        let first = linerate_wire::fade::v1::Repr::Data(linerate_wire::fade::v1::DataRepr {
            tag: linerate_wire::fade::v1::Tag::new(0, 0, 0).expect("tag"),
            delay: 0,
            data: &d,
        })
        .to_vec();
        host.handle_frame(&frame_from(0, &first), 2, None, ok)
            .expect("ok");
        host.handle_frame(&f, 3, None, ok).expect("ok");
        assert!(host.outcomes()[0].failure.is_some());
        let sent: Vec<[u8; 2]> = std::iter::from_fn(|| host.poll_transmit())
            .map(|t| [t.payload()[0], t.payload()[1]])
            .collect();
        let code = |c| {
            let p = V1::command(c, 0, 0).expect("command");
            [p[0], p[1]]
        };
        let (stop, reset) = (code(Command::Stop), code(Command::Reset));
        assert_eq!(sent, vec![stop, stop, stop, reset, reset, reset]);
    }

    #[test]
    fn a_ten_g_answer_to_a_command_this_host_never_sent_is_noted() {
        let limit = 4 << 20;
        let mut r = Readout::<TenG>::new(config(1, limit), BoardConfig::default());
        r.stream_until(1 << 20);
        // A STOP forged with the host's MAC: the board obeys and answers
        // it; the host's START after 50 ms of silence resumes the stream.
        let stop = TenG::command(Command::Stop, 0x4242, 0).expect("stop");
        let _ = r.boards[0].handle_packet(&stop, r.now);
        let end = r.now + 2_000 * MS;
        while !r.host.is_finished() && r.now < end {
            r.step();
        }
        let o = &r.host.outcomes()[0];
        assert!(o.complete(Some(limit)), "{o:?}");
        assert!(o.foreign_answers >= 1, "{o:?}");
        let f = o.last_foreign.expect("noted");
        assert_eq!((f.code, f.seq), (2, 0x4242));
        assert_eq!(f.to_string(), "STOP (seq 0x4242)");
        assert!(
            silence_cause(o.delivered, Some(f)).contains("never sent"),
            "the cause a silent board would be reported with"
        );
    }

    #[test]
    fn the_deadline_resets_every_board_and_ends_its_ring() {
        let mut c = config(2, 1 << 40);
        c.limit_bytes = None;
        c.duration_ns = Some(5 * MS);
        let mut r = Readout::<V1>::new(c, BoardConfig::default());
        let begin = r.now;
        r.run(100);
        for (i, o) in r.host.outcomes().iter().enumerate() {
            assert_eq!(o.done_ns, Some(begin + 5 * MS), "{o:?}");
            assert!(o.complete(None) && o.delivered > 0, "{o:?}");
            assert_eq!(r.read[i], o.delivered);
            assert_eq!(r.count(i, Command::Reset), 1 + 3);
            assert!(r.readers[i].pointers().eof);
        }
        assert_eq!(r.mismatches, 0);
    }

    #[test]
    fn a_finished_board_that_keeps_sending_is_reset_once_per_retry() {
        let (mut host, _readers) = Host::<V1, LocalRing>::new(HostConfig {
            limit_bytes: Some(1024),
            ..config(1, 0)
        })
        .expect("host");
        host.start(0);
        while host.poll_transmit().is_some() {}
        let mut board = started_board();
        let mut buf = vec![0u8; V1::DATA_PACKET_LEN];
        let mut frames = Vec::new();
        while let BoardPoll::Send(len) = board.poll_transmit(0, &mut buf) {
            frames.push(frame_from(0, &buf[..len]));
        }
        let ok = |_| Ok::<(), ()>(());
        host.handle_frame(&frames[0], MS, None, ok).expect("first");
        assert!(host.is_finished());
        assert_eq!(std::iter::from_fn(|| host.poll_transmit()).count(), 3);
        // Its RESETs were lost: it keeps sending.
        let mut resets = 0;
        for (k, f) in frames.iter().enumerate().skip(1) {
            let h = host
                .handle_frame(f, MS + k as u64 * 10 * MS, None, ok)
                .expect("later");
            assert_eq!(
                h,
                Some(Handled {
                    board: 0,
                    acked: false
                })
            );
            resets += std::iter::from_fn(|| host.poll_transmit()).count();
        }
        // 31 frames 10 ms apart: a RESET every 50 ms, from 50 ms on.
        assert_eq!(resets, 6);
        assert_eq!(host.outcomes()[0].delivered, 1024);
    }

    #[test]
    fn a_user_command_is_sent_once_a_ten_g_board_streams_and_its_answer_kept() {
        let limit = 4 << 20;
        let mut c = config(2, limit);
        c.ring_bytes = 1 << 20;
        c.command = Some(UserCommand {
            command: Command::User(UserCode::new(0x0123).expect("user code")),
            arg: 0xfeed,
            config: CommandConfig::default(),
        });
        let mut r = Readout::<TenG>::new(c, BoardConfig::default());
        r.drop_ack = |k| k % 5 == 0;
        r.run(2_000);
        for (i, o) in r.host.outcomes().iter().enumerate() {
            assert!(o.complete(Some(limit)), "{o:?}");
            assert_eq!(r.read[i], limit);
            assert!(o.command_sent);
            let done = o.command.clone().expect("answered").expect("no error");
            assert_eq!(done.arg, 0xfeed);
            assert_eq!(done.seq, 7u16.wrapping_add(0x8000));
            assert_eq!(done.data[..4], 0xfeedu32.to_be_bytes());
        }
        assert_eq!(r.mismatches, 0);
    }

    #[test]
    fn bad_readouts_are_refused_with_the_reason() {
        let dup = HostConfig {
            boards: vec![mac(1), mac(2), mac(1)],
            ..config(0, 1)
        };
        let e = Host::<V1, LocalRing>::new(dup).expect_err("duplicate");
        assert_eq!(e.to_string(), "board 02:00:00:00:01:01 is listed twice");
        assert_eq!(
            Host::<V1, LocalRing>::new(config(0, 1)).expect_err("none"),
            HostConfigError::NoBoards
        );
        let v1_command = HostConfig {
            command: Some(UserCommand {
                command: Command::User(UserCode::new(0x0100).expect("code")),
                arg: 0,
                config: CommandConfig::default(),
            }),
            ..config(1, 1)
        };
        assert!(matches!(
            Host::<V1, LocalRing>::new(v1_command),
            Err(HostConfigError::NoUserCommands { version: "1" })
        ));
    }

    #[test]
    fn abort_ends_every_running_board_as_interrupted_with_a_stop() {
        let (mut host, readers) = Host::<V1, LocalRing>::new(config(2, 1 << 20)).expect("host");
        host.start(0);
        while host.poll_transmit().is_some() {}
        host.abort();
        assert!(host.is_finished());
        assert_eq!(std::iter::from_fn(|| host.poll_transmit()).count(), 6);
        for r in &readers {
            assert!(r.pointers().error.expect("error").ends_with("interrupted"));
        }
    }

    proptest::proptest! {
        #[test]
        fn no_frame_panics_or_delivers_what_was_not_sent(
            frames in proptest::collection::vec(
                (0usize..3, proptest::collection::vec(proptest::num::u8::ANY, 0..1200)),
                0..64,
            )
        ) {
            let (mut host, _readers) = Host::<V1, LocalRing>::new(config(2, 1 << 20)).expect("host");
            host.start(0);
            for (t, (from, payload)) in frames.iter().enumerate() {
                let f = frame_from(*from, payload);
                let _ = host.handle_frame(&f, t as u64, Some(1), |_| Ok::<(), ()>(()));
                host.handle_timeout(t as u64);
                while host.poll_transmit().is_some() {}
            }
            for o in host.outcomes() {
                proptest::prop_assert!(o.delivered <= o.counters.bytes);
            }
        }
    }
}
