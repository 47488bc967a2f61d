//! The attacker of the hardening tests: a third host on the same switch that
//! forges packets with another host's source address, from a raw IP socket.

use std::net::{SocketAddr, SocketAddrV4};

use linerate_testbed::Testbed;

/// Server, attacker and victim on one switch: the attacker can forge the
/// victim's source address.
pub fn spoof_bed(name: &str) -> Testbed {
    super::require_root();
    Testbed::builder(name)
        .hosts(["srv", "atk", "vic"])
        .switch()
        .mtu(9000)
        .build()
        .expect("test bench")
}

/// An IPv4 UDP packet from `src` to `dst` carrying `payload` (UDP checksum
/// 0: none; the kernel fills the IP checksum and id).
pub fn udp_packet(src: SocketAddrV4, dst: SocketAddrV4, payload: &[u8]) -> Vec<u8> {
    let total = 28 + payload.len();
    let mut p = vec![0u8; total];
    p[0] = 0x45;
    p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    p[6] = 0x40; // DF
    p[8] = 64;
    p[9] = 17;
    p[12..16].copy_from_slice(&src.ip().octets());
    p[16..20].copy_from_slice(&dst.ip().octets());
    p[20..22].copy_from_slice(&src.port().to_be_bytes());
    p[22..24].copy_from_slice(&dst.port().to_be_bytes());
    p[24..26].copy_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    p[28..].copy_from_slice(payload);
    p
}

/// The attacker: sends each of `payloads` to `server` from a raw socket
/// with `victim` as the source address; returns the UDP payload bytes sent.
pub fn spoof(
    bed: &Testbed,
    victim: SocketAddrV4,
    server: SocketAddrV4,
    payloads: Vec<Vec<u8>>,
) -> usize {
    bed.run_in("atk", None, move || {
        let sock = socket2::Socket::new(
            socket2::Domain::IPV4,
            socket2::Type::RAW,
            Some(socket2::Protocol::from(libc::IPPROTO_RAW)),
        )
        .expect("raw socket");
        let to = SocketAddr::V4(server).into();
        let mut sent = 0;
        for p in &payloads {
            sock.send_to(&udp_packet(victim, server, p), &to)
                .expect("spoofed send");
            sent += p.len();
        }
        sent
    })
    .expect("namespace")
}
