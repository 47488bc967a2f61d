//! `linerate fade command`: the FADE host API's "start/stop/reset a board
//! by MAC" and "user command with retries and timeout", for FADE-10G
//! boards. The protocol logic is `linerate_fade::command`; this module
//! sends its payloads and waits for the answer.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use clap::Args;
use linerate_fade::command::{
    parse_command, parse_u32, response_of, CommandClient, CommandConfig, CommandPoll, Completion,
};
use linerate_io::raw::{realtime_ns, ETH_HEADER_LEN};
use linerate_readout::report::CommandAnswer;
use linerate_wire::fade::ten_g::Command;
use serde_json::{json, Value};

use super::{mac_text, parse_mac, Version};

/// Arguments of `linerate fade command`.
#[derive(Debug, Args)]
pub struct CommandArgs {
    /// Interface the board is reached through, by name (eth1) or by one of its IPv4
    /// addresses.
    #[arg(long, value_name = "IF", value_parser = crate::interface_arg::name)]
    interface: String,
    /// MAC address of the board.
    #[arg(long = "feb", value_name = "MAC", value_parser = parse_mac)]
    feb: [u8; 6],
    /// What to send: `start`, `stop`, `reset`, or a user command code
    /// 0x0100-0xffff (decimal or 0x hex). The board answers every command
    /// but RESET, in its DATA packets while it streams and in a
    /// response-only packet otherwise; the answer's 8 board-defined bytes
    /// are printed (the linerate emulator answers a user command with the
    /// argument and its retransmission count).
    #[arg(value_name = "COMMAND", value_parser = parse_command)]
    command: Command,
    /// The command's 32-bit argument (decimal or 0x hex).
    #[arg(long, default_value = "0", value_parser = parse_arg)]
    arg: u32,
    /// Sends in all before giving up (the same seq each time, so the board
    /// answers a repeat again), 1..=10000.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    tries: u32,
    /// Milliseconds between two sends.
    #[arg(long, default_value_t = 10, value_parser = crate::arg_range::u64_in(1..=60_000))]
    retry_ms: u64,
    /// Print the outcome as one JSON object.
    #[arg(long)]
    json: bool,
}

/// A user command as `--command CODE[:ARG]` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserCommandArg {
    /// The command (a user code).
    pub command: Command,
    /// Its argument.
    pub arg: u32,
}

/// Parses `CODE[:ARG]`: a user code 0x0100-0xffff and a u32 argument.
pub fn parse_user_command(s: &str) -> std::result::Result<UserCommandArg, String> {
    let (code, arg) = s.split_once(':').unwrap_or((s, "0"));
    let command = parse_command(code)?;
    if !matches!(command, Command::User(_)) {
        return Err(format!(
            "--command takes a user command code (0x0100-0xffff), not {code:?}"
        ));
    }
    Ok(UserCommandArg {
        command,
        arg: parse_arg(arg)?,
    })
}

fn parse_arg(s: &str) -> std::result::Result<u32, String> {
    parse_u32(s).ok_or_else(|| format!("bad argument {s:?}: expected a u32, decimal or 0x hex"))
}

/// A first command seq that differs from one run to the next, so that a
/// board does not take a new run's command for a repeat of an old one.
pub fn first_seq() -> u16 {
    (realtime_ns() / 1_000) as u16
}

/// The JSON object describing an answered command (the same object a
/// readout report carries for its user command).
pub fn completion_json(c: &Completion) -> Value {
    serde_json::to_value(CommandAnswer::from(c)).unwrap_or(Value::Null)
}

/// Sends the command, waits for the answer (resending), prints it.
pub fn run(args: CommandArgs) -> Result<()> {
    let mut sock = super::open_socket(&args.interface, Version::TenG, 0)?;
    let mut client = CommandClient::new(
        CommandConfig {
            retry_interval_ns: args.retry_ms * 1_000_000,
            max_tries: args.tries,
        },
        first_seq(),
    );
    let clock = Instant::now();
    let now_ns = || clock.elapsed().as_nanos() as u64;
    let payload = client.issue(args.command, args.arg, now_ns())?;
    let mut frame = [0u8; ETH_HEADER_LEN + linerate_wire::fade::CONTROL_LEN];
    sock.write_header(&mut frame, args.feb);
    frame[ETH_HEADER_LEN..].copy_from_slice(&payload);
    sock.send(&frame)?;
    let mut outcome = json!({
        "mac": mac_text(args.feb),
        "command": args.command.code(),
        "arg": args.arg,
    });
    if args.command == Command::Reset {
        // The board resets without answering: send it a few times, as any
        // one frame may be lost.
        for _ in 1..args.tries.min(3) {
            sock.send(&frame)?;
        }
        outcome["answered"] = false.into();
        return print(
            &args,
            &outcome,
            "RESET sent (boards do not answer it)".into(),
        );
    }
    let done = loop {
        let wait = match client.poll_transmit(now_ns()) {
            CommandPoll::Resend(p) => {
                frame[ETH_HEADER_LEN..].copy_from_slice(&p);
                sock.send(&frame)?;
                continue;
            }
            CommandPoll::WaitUntil(t) => t.saturating_sub(now_ns()),
            CommandPoll::Idle => bail!("internal: the command is no longer outstanding"),
            CommandPoll::Failed(e) => {
                outcome["error"] = e.to_string().into();
                if args.json {
                    crate::json_println!("{outcome}");
                }
                bail!("board {}: {e}", mac_text(args.feb));
            }
        };
        sock.recv(Some(Duration::from_nanos(wait.max(1))))?;
        let answer = sock.frames().find_map(|f| {
            let from_board = f.data.get(6..12) == Some(&args.feb[..]);
            let payload = f.data.get(ETH_HEADER_LEN..)?;
            from_board.then(|| response_of(payload)).flatten()
        });
        if let Some(r) = answer {
            if let Some(done) = client.handle_response(&r, now_ns()) {
                break done;
            }
        }
    };
    let text = format!(
        "board {} answered command {:#06x} (seq {}) after {} tries in {:.1} us: {}",
        mac_text(args.feb),
        done.command.code(),
        done.seq,
        done.tries,
        done.elapsed_ns as f64 / 1000.0,
        done.data
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>(),
    );
    outcome["answered"] = true.into();
    outcome["response"] = completion_json(&done);
    print(&args, &outcome, text)
}

fn print(args: &CommandArgs, outcome: &Value, text: String) -> Result<()> {
    if args.json {
        crate::json_println!("{outcome}");
    } else {
        println!("{text}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_commands_parse_with_and_without_argument() {
        let c = parse_user_command("0x0123:0xcafe").expect("valid");
        assert_eq!((c.command.code(), c.arg), (0x0123, 0xcafe));
        let c = parse_user_command("300").expect("valid");
        assert_eq!((c.command.code(), c.arg), (300, 0));
        assert!(parse_user_command("start:1").is_err());
        assert!(parse_user_command("0x100:-1").is_err());
        assert!(parse_user_command("0x10:1").is_err());
    }
}
