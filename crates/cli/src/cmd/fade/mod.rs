//! `linerate fade`: the FADE board emulator and host receiver on raw
//! Ethernet (ethertype 0xfade).

use anyhow::Result;
use clap::{Args, Subcommand};

pub mod command;
pub mod feb;
pub mod progress;
pub mod recv;

/// Arguments of `linerate fade`.
#[derive(Debug, Args)]
pub struct FadeArgs {
    #[command(subcommand)]
    command: FadeCommand,
}

#[derive(Debug, Subcommand)]
enum FadeCommand {
    /// Emulate a FADE front-end board: wait for START, stream a verifiable
    /// counter stream, retransmit until every packet is acknowledged.
    Feb(feb::FebArgs),
    /// Receive, acknowledge and verify the streams of one or more boards.
    Recv(recv::RecvArgs),
    /// Send one command to a FADE-10G board (START, STOP, RESET or a user
    /// command) and wait for its answer, resending until it comes.
    Command(command::CommandArgs),
}

/// The raw socket every FADE tool uses (`linerate_readout::link::open_socket`),
/// receiving through a ring of `ring_slots` (0: `recvmmsg`).
fn open_socket(
    interface: &str,
    version: Version,
    ring_slots: usize,
) -> Result<linerate_io::raw::RawSocket> {
    use linerate_fade::version::{TenG, V1};
    use linerate_readout::link::open_socket;
    Ok(match version {
        Version::V1 => open_socket::<V1>(interface, ring_slots)?,
        Version::TenG => open_socket::<TenG>(interface, ring_slots)?,
    })
}

/// Runs `linerate fade ...`.
pub fn run(args: FadeArgs) -> Result<()> {
    match args.command {
        FadeCommand::Feb(a) => feb::run(a),
        FadeCommand::Recv(a) => recv::run(a),
        FadeCommand::Command(a) => command::run(a),
    }
}

/// The FADE wire version to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// FADE v1: 1024-byte packets in sets of 32.
    V1,
    /// FADE-10G: 8192-byte packets, window of 16, numbered commands.
    TenG,
}

/// Parses `--version`: `1` or `10g`.
pub fn parse_version(s: &str) -> std::result::Result<Version, String> {
    match s.to_ascii_lowercase().as_str() {
        "1" | "v1" => Ok(Version::V1),
        "10g" => Ok(Version::TenG),
        _ => Err(format!("unknown FADE version {s:?}: expected 1 or 10g")),
    }
}

/// Parses `--controller`: `seed` (the published FADE core's adaptive
/// delay only, `Controller::AdaptiveDelay`; the value keeps its old name)
/// or `fair` (pacing hints in the ACKs, linerate's default).
pub fn parse_controller(s: &str) -> std::result::Result<linerate_fade::board::Controller, String> {
    use linerate_fade::board::Controller;
    match s.to_ascii_lowercase().as_str() {
        "seed" => Ok(Controller::AdaptiveDelay),
        "fair" => Ok(Controller::Fair),
        _ => Err(format!("unknown controller {s:?}: expected seed or fair")),
    }
}

/// Parses a MAC address `aa:bb:cc:dd:ee:ff`.
pub fn parse_mac(s: &str) -> std::result::Result<[u8; 6], String> {
    s.parse::<linerate_wire::ethernet::MacAddr>()
        .map(|m| m.0)
        .map_err(|e| e.to_string())
}

/// Formats a MAC address.
pub fn mac_text(m: [u8; 6]) -> String {
    linerate_wire::ethernet::MacAddr(m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_versions_macs_and_controllers() {
        assert_eq!(parse_version("10G"), Ok(Version::TenG));
        assert!(parse_version("2").is_err());
        assert_eq!(parse_mac("02:6c:72:00:01:01"), Ok([2, 0x6c, 0x72, 0, 1, 1]));
        assert!(parse_mac("02:6c").is_err());
        use linerate_fade::board::Controller;
        assert_eq!(parse_controller("seed"), Ok(Controller::AdaptiveDelay));
        assert_eq!(parse_controller("fair"), Ok(Controller::Fair));
        assert!(parse_controller("tcp").is_err());
    }
}
