//! The attacker of the hardening tests: a third host on the same switch that
//! forges packets with another host's source address, from a raw IP socket.

use std::net::SocketAddrV4;

use linerate_testbed::Testbed;

/// Server, attacker and victim on one switch: the attacker can forge the
/// victim's source address.
pub fn spoof_bed(name: &str) -> Testbed {
    super::require_root();
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
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
        let sock = linerate_io::inject::Ipv4Injector::open().expect("raw socket");
        let mut sent = 0;
        for p in &payloads {
            sock.send(&udp_packet(victim, server, p), server)
                .expect("spoofed send");
            sent += p.len();
        }
        sent
    })
    .expect("namespace")
}

/// The layer-2 attacker: sends `frames` (whole Ethernet frames, header
/// included, with whatever source MAC the caller forged) from `host`'s
/// interface through an AF_PACKET socket, `every` apart, while counting
/// the frames of `ethertype` that reach `host` (what a forged command
/// diverted to it). Returns the frames sent and the frames received.
pub fn forge_frames(
    bed: &Testbed,
    host: &str,
    ethertype: u16,
    frames: Vec<Vec<u8>>,
    every: std::time::Duration,
) -> (usize, usize) {
    let iface = bed.iface(host).expect("iface").name.clone();
    bed.run_in(host, None, move || {
        let mut sock = linerate_io::raw::RawSocket::open(
            &iface,
            ethertype,
            &linerate_io::raw::RawConfig::default(),
        )
        .expect("packet socket");
        let (mut sent, mut received) = (0, 0);
        for f in &frames {
            if sock.send(f).expect("forged send") {
                sent += 1;
            }
            let until = std::time::Instant::now() + every;
            loop {
                let left = until.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    break;
                }
                if sock.recv(Some(left)).unwrap_or(0) > 0 {
                    let mine = sock.mac();
                    received += sock
                        .frames()
                        .filter(|f| f.data.get(..6) == Some(&mine[..]))
                        .count();
                }
            }
        }
        (sent, received)
    })
    .expect("namespace")
}

/// An Ethernet frame from `src` to `dst` of `ethertype` carrying `payload`.
pub fn ethernet_frame(dst: [u8; 6], src: [u8; 6], ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(14 + payload.len());
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    f
}
