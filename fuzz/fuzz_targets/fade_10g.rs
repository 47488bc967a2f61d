//! Fuzz the FADE-10G decoder: it must never panic, and whatever it accepts
//! must survive emit -> parse unchanged.

#![no_main]

use libfuzzer_sys::fuzz_target;
use linerate_wire::fade::ten_g::Repr;

fuzz_target!(|data: &[u8]| {
    if let Ok(repr) = Repr::parse_bytes(data) {
        let bytes = repr.to_vec();
        assert_eq!(bytes.len(), repr.buffer_len());
        assert_eq!(Repr::parse_bytes(&bytes), Ok(repr));
    }
});
