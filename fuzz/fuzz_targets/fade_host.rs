//! Fuzz the FADE host's readout (`linerate_fade::host`) with a stream of
//! frames from two boards and a stranger: it must never panic, never
//! deliver more than its windows accepted, and never hand out more than a
//! ring holds. Input: records of [sender, length (2 bytes, big-endian),
//! payload], each payload sent after an Ethernet header from that sender,
//! with 50 us of time between records. Both wire versions read the same
//! input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use linerate_fade::buffer::LocalRing;
use linerate_fade::host::{Host, HostConfig};
use linerate_fade::version::{TenG, Version, V1};

const HOST: [u8; 6] = [2, 0, 0, 0, 0, 0xaa];

fn mac(i: u8) -> [u8; 6] {
    [2, 0, 0, 0, 1, i]
}

fn readout<W: Version>(data: &[u8]) {
    let config = HostConfig {
        host_mac: HOST,
        boards: vec![mac(0), mac(1)],
        limit_bytes: Some(1 << 20),
        ring_bytes: 256 << 10,
        ..HostConfig::default()
    };
    let Ok((mut host, mut rings)) = Host::<W, LocalRing>::new(config) else {
        return;
    };
    host.start(0);
    let mut t = 0u64;
    let mut rest = data;
    while let [sender, hi, lo, tail @ ..] = rest {
        let len = (usize::from(*hi) << 8 | usize::from(*lo)).min(tail.len());
        let (payload, next) = tail.split_at(len);
        let mut frame = Vec::with_capacity(14 + len);
        frame.extend_from_slice(&HOST);
        frame.extend_from_slice(&mac(sender % 3));
        frame.extend_from_slice(&0xfadeu16.to_be_bytes());
        frame.extend_from_slice(payload);
        let _ = host.handle_frame(&frame, t, Some(1_000), |a| {
            assert_eq!(a.frame[..6], mac(sender % 3));
            Ok::<(), ()>(())
        });
        t += 50_000;
        host.handle_timeout(t);
        while host.poll_transmit().is_some() {}
        for r in &mut rings {
            let n = r.data().len() as u64;
            assert!(n <= r.capacity() as u64);
            let _ = r.commit(n);
        }
        rest = next;
    }
    for o in host.outcomes() {
        assert!(o.delivered <= o.counters.bytes);
    }
}

fuzz_target!(|data: &[u8]| {
    readout::<V1>(data);
    readout::<TenG>(data);
});
