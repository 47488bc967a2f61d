//! Fuzz the GVSP decoder: any datagram either fails with a typed error or
//! parses to a packet that re-encodes to the same packet.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linerate_wire::gvsp::{Packet, PacketRepr};

fuzz_target!(|data: &[u8]| {
    if let Ok(view) = Packet::new_checked(data) {
        // The accessors must be total once the view is checked.
        let _ = (view.status(), view.block_id(), view.packet_id(), view.format_code(), view.data().len());
    }
    if let Ok(packet) = PacketRepr::parse(data) {
        let bytes = packet.to_vec().expect("a parsed packet re-encodes");
        assert_eq!(PacketRepr::parse(&bytes), Ok(packet));
    }
});
