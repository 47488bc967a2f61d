//! Naming a FADE version mismatch. A board of the other wire version
//! ignores every command it cannot parse, so to the receiver it is just
//! silent. Asked after a silent readout, the probe sends START in the
//! other version and listens: a board that answers (with data, or a
//! FADE-10G command response) speaks that version, and is stopped and
//! reset in it again at once.

use std::time::{Duration, Instant};

use linerate_fade::host::CONTROL_FRAME_LEN;
use linerate_fade::version::Version;
use linerate_io::raw::{RawConfig, RawSocket};
use linerate_wire::fade::ten_g::Command;

use crate::error::{Error, Result};

/// Bytes of an Ethernet header.
const ETH_HEADER_LEN: usize = 14;

/// Whether `board`, reached through `interface`, answers a START of wire
/// version `P` within `wait`. It is stopped and reset in `P` afterwards,
/// so it waits for the next readout.
pub fn speaks<P: Version>(interface: &str, board: [u8; 6], wait: Duration) -> Result<bool> {
    let mut sock = RawSocket::open(
        interface,
        linerate_wire::fade::ETHERTYPE,
        &RawConfig {
            batch: 32,
            frame_len: 9216,
            ..RawConfig::default()
        },
    )
    .map_err(|e| Error::io(format!("opening a FADE socket on {interface} to probe"), e))?;
    let send = |sock: &RawSocket, command: Command, seq: u16| -> Result<()> {
        let Some(payload) = P::command(command, seq, 0) else {
            return Ok(());
        };
        let mut frame = [0u8; CONTROL_FRAME_LEN];
        sock.write_header(&mut frame, board);
        frame[ETH_HEADER_LEN..].copy_from_slice(&payload);
        sock.send(&frame).map(|_| ()).map_err(|e| {
            Error::io(
                format!("sending a FADE {} probe on {interface}", P::NAME),
                e,
            )
        })
    };
    send(&sock, Command::Start, 0x7e01)?;
    let deadline = Instant::now() + wait;
    let mut answered = false;
    while !answered {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let n = sock
            .recv(Some(left))
            .map_err(|e| Error::io(format!("listening for a probe's answer on {interface}"), e))?;
        if n == 0 {
            continue;
        }
        answered = sock.frames().any(|f| {
            f.data.get(6..12) == Some(&board[..])
                && f.data.get(ETH_HEADER_LEN..).is_some_and(|payload| {
                    P::parse_response(payload).is_some() || P::parse_data(payload).is_ok()
                })
        });
    }
    // Whatever it heard, leave the board stopped and reset in that version.
    send(&sock, Command::Stop, 0x7e02)?;
    send(&sock, Command::Reset, 0x7e03)?;
    Ok(answered)
}

/// The other wire version's name, if `board` answers in it: `10g` when
/// this receiver speaks `1`, and the reverse. For a board that stayed
/// silent through a readout of version `this` (a [`Version::NAME`]).
pub fn other_version_spoken(
    interface: &str,
    board: [u8; 6],
    this: &str,
    wait: Duration,
) -> Result<Option<&'static str>> {
    use linerate_fade::version::{TenG, V1};
    let (answered, other) = if this == V1::NAME {
        (speaks::<TenG>(interface, board, wait)?, TenG::NAME)
    } else {
        (speaks::<V1>(interface, board, wait)?, V1::NAME)
    };
    Ok(answered.then_some(other))
}
