//! The board's raw socket: ethertype 0xfade on its interface, with a
//! receive ring or `recvmmsg` for the host's frames.

use linerate_fade::version::Version;
use linerate_io::raw::RawSocket;

use super::BoardError;

/// Opens the board's socket on `interface`, buffers sized for version
/// `W`'s DATA frames; `ring_slots` above 0 receives through a TPACKET_V2
/// ring. A DATA frame that does not fit the interface's MTU is refused up
/// front: without jumbo frames a FADE-10G board's every send would fail.
pub(super) fn open<W: Version>(
    interface: &str,
    ring_slots: usize,
) -> Result<RawSocket, BoardError> {
    let need = W::DATA_PACKET_LEN as u32;
    RawSocket::open_for_payload(interface, linerate_wire::fade::ETHERTYPE, need, ring_slots)
        .map_err(|e| match e {
            linerate_io::Error::MtuTooSmall {
                interface,
                mtu,
                need,
            } => BoardError::Mtu {
                interface,
                mtu,
                need,
            },
            source => BoardError::Io {
                what: "opening a FADE socket",
                interface: interface.to_string(),
                source,
            },
        })
}
