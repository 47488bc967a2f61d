//! The host's command channel to one FADE-10G board, as a sans-IO state
//! machine: START, STOP, RESET and user commands, resent until answered.
//!
//! The FADE host API (the published kernel driver, FADE-10G version) sends a
//! command with a sequence number and resends it, with the seq unchanged,
//! every few milliseconds until the board's response with the same code
//! and seq arrives, or a retry limit is reached. The board answers a repeat
//! again, so a lost command and a lost answer are both repaired by the same
//! resend. RESET is the exception: the board resets at once and sends no
//! answer, so it is only sent, never awaited.
//!
//! The answer is 12 bytes (`linerate_wire::fade::ten_g::CommandResponse`)
//! that the board puts in every DATA packet it sends, or in a response-only
//! packet when it is not streaming; [`response_of`] finds it in either.
//! One command is outstanding at a time, as in the driver.
//!
//! Use: [`CommandClient::issue`] returns the payload to send;
//! feed every response seen to [`CommandClient::handle_response`]; call
//! [`CommandClient::poll_transmit`] at [`CommandClient::poll_timeout`],
//! which says when to resend and when to give up.

use linerate_wire::fade::ten_g::{self, Command, CommandResponse};
use linerate_wire::fade::CONTROL_LEN;

use crate::version::{TenG, Version};

/// Resend interval and retry limit of a [`CommandClient`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandConfig {
    /// Time between two sends of an unanswered command, in nanoseconds.
    pub retry_interval_ns: u64,
    /// Sends in all before the command times out (at least 1).
    pub max_tries: u32,
}

impl Default for CommandConfig {
    /// 10 ms between sends, 20 sends: a command fails after 200 ms
    /// without an answer (the driver resends every few jiffies).
    fn default() -> Self {
        CommandConfig {
            retry_interval_ns: 10_000_000,
            max_tries: 20,
        }
    }
}

/// Why a command could not be sent or was not answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Another command is still waiting for its answer.
    #[error("command {pending:#06x} (seq {seq}) is still waiting for its answer")]
    Busy {
        /// Code of the outstanding command.
        pending: u16,
        /// Its seq.
        seq: u16,
    },
    /// No answer after every try.
    #[error(
        "command {code:#06x} (seq {seq}, argument {arg:#x}) got no answer after {tries} tries"
    )]
    TimedOut {
        /// The command's code.
        code: u16,
        /// Its seq.
        seq: u16,
        /// Its argument.
        arg: u32,
        /// Sends made.
        tries: u32,
    },
}

/// A command that was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The command.
    pub command: Command,
    /// Its seq.
    pub seq: u16,
    /// Its argument.
    pub arg: u32,
    /// The board-defined 8 bytes of the answer.
    pub data: [u8; 8],
    /// Sends it took (1: answered the first time).
    pub tries: u32,
    /// From the first send to the answer, nanoseconds.
    pub elapsed_ns: u64,
}

/// What [`CommandClient::poll_transmit`] asks of the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandPoll {
    /// Send this payload again now.
    Resend([u8; CONTROL_LEN]),
    /// Nothing to send before this time (nanoseconds, the caller's clock),
    /// which is also [`CommandClient::poll_timeout`].
    WaitUntil(u64),
    /// Nothing outstanding.
    Idle,
    /// The outstanding command was never answered; it is dropped.
    Failed(CommandError),
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    command: Command,
    seq: u16,
    arg: u32,
    tries: u32,
    first_ns: u64,
    next_ns: u64,
}

/// The command channel to one FADE-10G board.
#[derive(Debug, Clone)]
pub struct CommandClient {
    config: CommandConfig,
    next_seq: u16,
    pending: Option<Pending>,
}

impl CommandClient {
    /// A client whose first command gets seq `first_seq`. Two hosts (or
    /// two processes) talking to one board should start far apart: the
    /// board matches answers by code and seq only.
    pub fn new(config: CommandConfig, first_seq: u16) -> CommandClient {
        CommandClient {
            config: CommandConfig {
                max_tries: config.max_tries.max(1),
                ..config
            },
            next_seq: first_seq,
            pending: None,
        }
    }

    /// Whether a command is waiting for its answer.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Starts `command` with `arg` at `now_ns` and returns the payload to
    /// send. RESET is not awaited (the board does not answer it); any
    /// other command is outstanding until answered or timed out.
    pub fn issue(
        &mut self,
        command: Command,
        arg: u32,
        now_ns: u64,
    ) -> Result<[u8; CONTROL_LEN], CommandError> {
        if let Some(p) = &self.pending {
            return Err(CommandError::Busy {
                pending: p.command.code(),
                seq: p.seq,
            });
        }
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        if command != Command::Reset {
            self.pending = Some(Pending {
                command,
                seq,
                arg,
                tries: 1,
                first_ns: now_ns,
                next_ns: now_ns.saturating_add(self.config.retry_interval_ns),
            });
        }
        Ok(payload(command, seq, arg))
    }

    /// Feeds a response seen in a DATA or response packet; returns the
    /// completion when it answers the outstanding command.
    pub fn handle_response(
        &mut self,
        response: &CommandResponse,
        now_ns: u64,
    ) -> Option<Completion> {
        let p = self.pending?;
        if response.code != p.command.code() || response.seq != p.seq {
            return None;
        }
        self.pending = None;
        Some(Completion {
            command: p.command,
            seq: p.seq,
            arg: p.arg,
            data: response.data,
            tries: p.tries,
            elapsed_ns: now_ns.saturating_sub(p.first_ns),
        })
    }

    /// When [`Self::poll_transmit`] next has work (a resend or the timeout), if a
    /// command is outstanding.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.pending.map(|p| p.next_ns)
    }

    /// Resends or gives up when it is time (`now_ns`).
    pub fn poll_transmit(&mut self, now_ns: u64) -> CommandPoll {
        let Some(p) = self.pending.as_mut() else {
            return CommandPoll::Idle;
        };
        if now_ns < p.next_ns {
            return CommandPoll::WaitUntil(p.next_ns);
        }
        if p.tries >= self.config.max_tries {
            let e = CommandError::TimedOut {
                code: p.command.code(),
                seq: p.seq,
                arg: p.arg,
                tries: p.tries,
            };
            self.pending = None;
            return CommandPoll::Failed(e);
        }
        p.tries += 1;
        p.next_ns = now_ns.saturating_add(self.config.retry_interval_ns);
        CommandPoll::Resend(payload(p.command, p.seq, p.arg))
    }
}

/// The FADE-10G payload of `command`.
fn payload(command: Command, seq: u16, arg: u32) -> [u8; CONTROL_LEN] {
    // FADE-10G has every command, so this is always Some.
    TenG::command(command, seq, arg).unwrap_or([0; CONTROL_LEN])
}

/// The command response a FADE-10G payload from a board carries: a
/// response-only packet's, or a DATA packet's when it is not empty.
pub fn response_of(payload: &[u8]) -> Option<CommandResponse> {
    match ten_g::Repr::parse_bytes(payload).ok()? {
        ten_g::Repr::Response(r) => (!r.is_none()).then_some(r),
        ten_g::Repr::Data(d) => (!d.response.is_none()).then_some(d.response),
        ten_g::Repr::Control(_) => None,
    }
}

/// Parses a command as the CLI names it: `start`, `stop`, `reset`, or a
/// user code (`0x0100`..=`0xffff`, decimal or `0x` hex).
pub fn parse_command(s: &str) -> Result<Command, String> {
    match s.to_ascii_lowercase().as_str() {
        "start" => return Ok(Command::Start),
        "stop" => return Ok(Command::Stop),
        "reset" => return Ok(Command::Reset),
        _ => {}
    }
    let code = parse_u32(s)
        .and_then(|v| u16::try_from(v).ok())
        .ok_or_else(|| {
            format!("bad command {s:?}: expected start, stop, reset or a user code 0x0100-0xffff")
        })?;
    ten_g::UserCommand::new(code)
        .map(Command::User)
        .map_err(|e| format!("bad command {s:?}: {e}"))
}

/// Parses a decimal or `0x` hexadecimal u32.
pub fn parse_u32(s: &str) -> Option<u32> {
    let t = s.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{BoardConfig, BoardPoll, Event, TenGBoard};

    fn user(code: u16) -> Command {
        Command::User(ten_g::UserCommand::new(code).expect("user code"))
    }

    #[test]
    fn a_user_command_round_trips_through_an_idle_board() {
        let mut client = CommandClient::new(CommandConfig::default(), 40);
        let mut board = TenGBoard::new(BoardConfig::default()).expect("board");
        let cmd = client.issue(user(0x0123), 0xcafe_f00d, 0).expect("issue");
        assert_eq!(
            &cmd[..10],
            &[1, 0, 0x01, 0x23, 0, 40, 0xca, 0xfe, 0xf0, 0x0d]
        );
        assert_eq!(
            board.handle_packet(&cmd, 5),
            Ok(Event::User {
                code: 0x0123,
                arg: 0xcafe_f00d
            })
        );
        // Not streaming: the answer leaves in a response-only packet.
        let mut buf = vec![0u8; 9000];
        let BoardPoll::Send(n) = board.poll_transmit(10, &mut buf) else {
            panic!("no response packet")
        };
        assert_eq!(n, ten_g::RESPONSE_PACKET_LEN);
        assert_eq!(board.poll_transmit(11, &mut buf[..]), BoardPoll::Idle);
        let r = response_of(&buf[..n]).expect("a response");
        // A response to something else is not ours.
        let other = CommandResponse { seq: 41, ..r };
        assert_eq!(client.handle_response(&other, 20), None);
        let done = client.handle_response(&r, 30).expect("answered");
        assert_eq!(done.command, user(0x0123));
        assert_eq!(
            (done.seq, done.arg, done.tries, done.elapsed_ns),
            (40, 0xcafe_f00d, 1, 30)
        );
        // The emulator's answer: the argument, then the resend count (0).
        assert_eq!(done.data, [0xca, 0xfe, 0xf0, 0x0d, 0, 0, 0, 0]);
        assert!(!client.is_pending());
        assert_eq!(board.counters().commands, 1);
        assert_eq!(board.counters().response_packets, 1);
    }

    #[test]
    fn lost_commands_are_resent_with_the_same_seq_then_time_out() {
        let mut client = CommandClient::new(
            CommandConfig {
                retry_interval_ns: 100,
                max_tries: 3,
            },
            7,
        );
        let first = client.issue(Command::Start, 0, 1_000).expect("issue");
        assert_eq!(
            client.issue(Command::Stop, 0, 1_001),
            Err(CommandError::Busy { pending: 1, seq: 7 })
        );
        assert_eq!(client.poll_transmit(1_050), CommandPoll::WaitUntil(1_100));
        assert_eq!(client.poll_transmit(1_100), CommandPoll::Resend(first));
        assert_eq!(client.poll_transmit(1_200), CommandPoll::Resend(first));
        assert_eq!(
            client.poll_transmit(1_300),
            CommandPoll::Failed(CommandError::TimedOut {
                code: 1,
                seq: 7,
                arg: 0,
                tries: 3
            })
        );
        assert_eq!(client.poll_transmit(1_400), CommandPoll::Idle);
        // The next command gets the next seq.
        let next = client.issue(Command::Stop, 0, 2_000).expect("issue");
        assert_eq!(&next[2..6], &[0, 2, 0, 8]);
    }

    #[test]
    fn a_streaming_board_answers_in_its_data_packets_and_reset_is_not_awaited() {
        let mut client = CommandClient::new(CommandConfig::default(), 0xfffe);
        let mut board = TenGBoard::new(BoardConfig::default()).expect("board");
        let start = client.issue(Command::Start, 0, 0).expect("start");
        board.handle_packet(&start, 0).expect("start");
        let mut buf = vec![0u8; 9000];
        // The first DATA packet carries START's answer, so no response
        // packet is needed.
        assert_eq!(
            board.poll_transmit(1, &mut buf),
            BoardPoll::Send(ten_g::DATA_PACKET_LEN)
        );
        let r = response_of(&buf[..ten_g::DATA_PACKET_LEN]).expect("response in DATA");
        assert_eq!((r.code, r.seq), (1, 0xfffe));
        assert!(client.handle_response(&r, 2).is_some());
        // A user command while streaming: answered in the next DATA packet.
        let cmd = client.issue(user(0x0200), 5, 3).expect("user");
        board.handle_packet(&cmd, 3).expect("user");
        assert_eq!(
            board.poll_transmit(4, &mut buf),
            BoardPoll::Send(ten_g::DATA_PACKET_LEN)
        );
        let r = response_of(&buf[..ten_g::DATA_PACKET_LEN]).expect("response in DATA");
        let done = client.handle_response(&r, 5).expect("answered");
        assert_eq!(done.seq, 0xffff, "seq wraps");
        assert_eq!(&done.data[..4], &5u32.to_be_bytes());
        assert_eq!(board.counters().response_packets, 0);
        // RESET: sent, never outstanding; the board stops and does not answer.
        let reset = client.issue(Command::Reset, 0, 6).expect("reset");
        assert!(!client.is_pending());
        assert_eq!(&reset[4..6], &[0, 0], "seq wrapped to 0");
        assert_eq!(board.handle_packet(&reset, 6), Ok(Event::Reset));
        assert_eq!(board.poll_transmit(7, &mut buf), BoardPoll::Idle);
        assert!(board.response().is_none());
    }

    #[test]
    fn command_names_and_numbers_parse() {
        assert_eq!(parse_command("START"), Ok(Command::Start));
        assert_eq!(parse_command("stop"), Ok(Command::Stop));
        assert_eq!(parse_command("reset"), Ok(Command::Reset));
        assert_eq!(parse_command("0x0100"), Ok(user(0x100)));
        assert_eq!(parse_command("512"), Ok(user(512)));
        for bad in ["0x5", "0xa5a5", "70000", "go", ""] {
            assert!(parse_command(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_u32("0xffffffff"), Some(u32::MAX));
        assert_eq!(parse_u32("12"), Some(12));
        assert_eq!(parse_u32("0x1_0000_0000"), None);
    }
}
