//! A minimal ICMP echo ("ping") in Rust, so reachability and MTU checks do
//! not depend on an installed `ping` binary.
//!
//! The socket sets "don't fragment" (`IP_PMTUDISC_DO`): a payload that does
//! not fit the route's MTU fails with `EMSGSIZE` instead of being
//! fragmented, which is exactly the jumbo-frame check a camera link needs.

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use linerate_io::socket::IcmpSocket;

use crate::error::{Error, Result};

static SEQ: AtomicU16 = AtomicU16::new(1);

/// Internet checksum (RFC 1071).
pub(crate) fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [b] = chunks.remainder() {
        sum += u32::from(*b) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Builds an echo request with `payload_len` bytes of payload.
pub(crate) fn echo_request(id: u16, seq: u16, payload_len: usize) -> Vec<u8> {
    let mut p = vec![0u8; 8 + payload_len];
    p[0] = 8; // echo request
    p[4..6].copy_from_slice(&id.to_be_bytes());
    p[6..8].copy_from_slice(&seq.to_be_bytes());
    for (i, b) in p[8..].iter_mut().enumerate() {
        *b = i as u8;
    }
    let c = checksum(&p);
    p[2..4].copy_from_slice(&c.to_be_bytes());
    p
}

/// If `packet` (IPv4 header + ICMP, as a raw socket returns it) is the echo
/// reply to `(id, seq)` from `from`, returns its ICMP payload length.
pub(crate) fn match_reply(packet: &[u8], from: Ipv4Addr, id: u16, seq: u16) -> Option<usize> {
    let ihl = usize::from(*packet.first()? & 0x0f) * 4;
    if ihl < 20 || packet.len() < ihl + 8 {
        return None;
    }
    let src = Ipv4Addr::new(packet[12], packet[13], packet[14], packet[15]);
    let icmp = &packet[ihl..];
    let ok = src == from
        && icmp[0] == 0
        && u16::from_be_bytes([icmp[4], icmp[5]]) == id
        && u16::from_be_bytes([icmp[6], icmp[7]]) == seq;
    ok.then(|| icmp.len() - 8)
}

/// Sends one echo request with `payload_len` payload bytes and DF set, from
/// the calling thread's namespace, and waits up to `timeout` for the reply.
/// Returns the round-trip time.
///
/// Call it from inside a host (see `Testbed::ping`). Errors: `EMSGSIZE` if
/// the packet exceeds the MTU, a timeout if no reply came.
pub fn ping_from_current_netns(
    to: Ipv4Addr,
    payload_len: usize,
    timeout: Duration,
) -> Result<Duration> {
    let ctx = |what: &str| format!("ping {to} ({payload_len} bytes): {what}");
    let sock = IcmpSocket::open().map_err(|e| Error::io(ctx("raw socket (needs root)"), e))?;
    sock.set_dont_fragment()
        .map_err(|e| Error::io(ctx("IP_MTU_DISCOVER"), e))?;
    let id = (std::process::id() as u16) ^ 0x4c52;
    // Distinct per call, so concurrent pings in one process (parallel
    // tests) never take each other's replies.
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let req = echo_request(id, seq, payload_len);
    let start = Instant::now();
    sock.send_to(&req, to)
        .map_err(|e| Error::io(ctx("send"), e))?;
    let mut buf = vec![0u8; 65536];
    loop {
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(Error::io(
                ctx("no reply"),
                std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out"),
            ));
        }
        let n = match sock.recv(&mut buf, left) {
            Ok(n) => n,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                continue
            }
            Err(e) => return Err(Error::io(ctx("recv"), e)),
        };
        if match_reply(&buf[..n.min(buf.len())], to, id, seq) == Some(payload_len) {
            return Ok(start.elapsed());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_known_vector() {
        // RFC 1071 example bytes.
        let d = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(checksum(&d), !0xddf2);
        let p = echo_request(7, 9, 33);
        assert_eq!(p.len(), 41);
        assert_eq!(checksum(&p), 0, "a packet with its checksum sums to zero");
    }

    #[test]
    fn reply_matching() {
        let from = Ipv4Addr::new(169, 254, 1, 2);
        let mut pkt = vec![0u8; 20];
        pkt[0] = 0x45;
        pkt[12..16].copy_from_slice(&from.octets());
        let mut icmp = echo_request(7, 9, 10);
        icmp[0] = 0;
        pkt.extend_from_slice(&icmp);
        assert_eq!(match_reply(&pkt, from, 7, 9), Some(10));
        assert_eq!(match_reply(&pkt, from, 7, 10), None);
        assert_eq!(match_reply(&pkt, Ipv4Addr::new(169, 254, 1, 3), 7, 9), None);
        assert_eq!(match_reply(&pkt[..25], from, 7, 9), None);
        assert_eq!(match_reply(&[], from, 7, 9), None);
    }
}
