//! Fuzz the GVSP-over-TCP record decoder on an arbitrary byte stream: walk
//! the records, decode each body as GVSP, and never read out of bounds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linerate_wire::gvsp::PacketRepr;
use linerate_wire::gvsp_tcp::{peek, Progress, Record};

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    while let Ok(Progress::Complete(header)) = peek(rest) {
        let record = Record::new_checked(rest).expect("peek said complete");
        assert_eq!(record.header(), header);
        let _ = PacketRepr::parse(record.body());
        rest = &rest[record.total_len()..];
    }
});
