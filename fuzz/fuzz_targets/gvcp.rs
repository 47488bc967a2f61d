//! Fuzz the GVCP decoder: any datagram either fails with a typed error or
//! parses to a message that re-encodes to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linerate_wire::gvcp::Message;

fuzz_target!(|data: &[u8]| {
    if let Ok(message) = Message::parse(data) {
        let bytes = message.to_vec().expect("a parsed message re-encodes");
        assert_eq!(Message::parse(&bytes), Ok(message));
    }
});
