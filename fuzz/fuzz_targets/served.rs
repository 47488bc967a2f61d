//! Fuzz the served-frame header and subscription decoders: arbitrary bytes
//! never panic them, and whatever parses emits back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linerate_wire::served::{
    FrameHeader, FrameHeaderRepr, SubscribeMessage, SubscribeRepr, HEADER_LEN,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = SubscribeMessage::new_checked(data) {
        if let Ok(s) = SubscribeRepr::parse(&m) {
            assert_eq!(&s.to_bytes()[..], data);
        }
    }
    if let Ok(view) = FrameHeader::new_checked(data) {
        if let Ok(repr) = FrameHeaderRepr::parse(&view) {
            let bytes = repr.to_bytes().expect("a parsed header emits");
            assert_eq!(&bytes[..], &data[..HEADER_LEN]);
        }
    }
});
