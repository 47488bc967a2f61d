//! The board's raw socket: ethertype 0xfade on its interface, with a
//! receive ring or `recvmmsg` for the host's frames.

use linerate_fade::version::Version;
use linerate_io::raw::{RawConfig, RawSocket};

use super::BoardError;

/// Frames on a standard Ethernet MTU; larger DATA packets need jumbo frames.
const STANDARD_MTU: u32 = 1500;

/// Opens the board's socket on `interface`: batches of 32 frames, each
/// buffer 2048 bytes for v1 (a DATA frame is 1072) or 9216 for FADE-10G
/// (8232); `ring_slots` above 0 receives through a TPACKET_V2 ring. A
/// DATA frame that does not fit the interface's MTU is refused up front:
/// without jumbo frames a FADE-10G board's every send would fail.
pub(super) fn open<W: Version>(
    interface: &str,
    ring_slots: usize,
) -> Result<RawSocket, BoardError> {
    let io_error = |what| {
        move |source| BoardError::Io {
            what,
            interface: interface.to_string(),
            source,
        }
    };
    let need = W::DATA_PACKET_LEN as u32;
    if need > STANDARD_MTU {
        let mtu = linerate_io::netdev::offloads(interface)
            .map_err(io_error("reading the MTU"))?
            .mtu;
        if mtu < need {
            return Err(BoardError::Mtu {
                interface: interface.to_string(),
                mtu,
                need,
            });
        }
    }
    RawSocket::open(
        interface,
        linerate_wire::fade::ETHERTYPE,
        &RawConfig {
            batch: 32,
            frame_len: if need > STANDARD_MTU { 9216 } else { 2048 },
            ring_slots,
            ..RawConfig::default()
        },
    )
    .map_err(io_error("opening a FADE socket"))
}
