//! Batched UDP over loopback: gathered datagrams arrive whole and in order.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Duration;

use linerate_io::udp::{RecvMeta, UdpEndpoint, UdpOptions};

#[test]
fn gathered_datagrams_arrive_whole() {
    let lo = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0);
    let rx = UdpEndpoint::bind(
        lo,
        &UdpOptions {
            recv_buffer: Some(4 << 20),
            ..UdpOptions::default()
        },
    )
    .expect("bind receiver");
    rx.socket()
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let tx = UdpEndpoint::bind(lo, &UdpOptions::default()).expect("bind sender");
    let dest = match rx.local_addr() {
        std::net::SocketAddr::V4(a) => a,
        other => panic!("unexpected {other}"),
    };
    let frame: Vec<u8> = (0..64 * 100).map(|i| (i % 251) as u8).collect();
    let heads: Vec<[u8; 4]> = (0..100u32).map(|i| i.to_be_bytes()).collect();
    let datagrams: Vec<(&[u8], &[u8])> = heads
        .iter()
        .zip(frame.chunks(64))
        .map(|(h, d)| (&h[..], d))
        .collect();
    assert_eq!(tx.send_gather(dest, &datagrams).expect("sendmmsg"), 100);

    let mut storage = vec![[0u8; 128]; 32];
    let mut got = Vec::new();
    while got.len() < 100 {
        let mut bufs: Vec<&mut [u8]> = storage.iter_mut().map(|b| &mut b[..]).collect();
        let mut meta = vec![RecvMeta::default(); bufs.len()];
        let n = rx.recv_batch(&mut bufs, &mut meta).expect("recvmmsg");
        for (b, m) in bufs.iter().zip(&meta).take(n) {
            assert!(!m.truncated);
            assert_eq!(m.len, 68);
            assert_eq!(*m.source.ip(), Ipv4Addr::LOCALHOST);
            got.push(b[..m.len].to_vec());
        }
    }
    for (i, d) in got.iter().enumerate() {
        assert_eq!(&d[..4], &(i as u32).to_be_bytes());
        assert_eq!(&d[4..], &frame[i * 64..(i + 1) * 64]);
    }
    assert!(rx.recv_buffer().expect("getsockopt") >= 4 << 20);
}

#[test]
fn oversized_batches_are_refused() {
    let tx = UdpEndpoint::bind(
        SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0),
        &UdpOptions::default(),
    )
    .expect("bind");
    let d: Vec<(&[u8], &[u8])> = vec![(&[][..], &[][..]); 2000];
    let err = tx
        .send_gather(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 9), &d)
        .expect_err("too large");
    assert_eq!(
        err.to_string(),
        "batch of 2000 datagrams exceeds the limit of 1024"
    );
}

#[test]
fn gso_datagrams_arrive_as_separate_datagrams() {
    let lo = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0);
    let rx = UdpEndpoint::bind(
        lo,
        &UdpOptions {
            recv_buffer: Some(4 << 20),
            ..UdpOptions::default()
        },
    )
    .expect("bind");
    rx.socket()
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let tx = UdpEndpoint::bind(lo, &UdpOptions::default()).expect("bind");
    let dest = match rx.local_addr() {
        std::net::SocketAddr::V4(a) => a,
        other => panic!("unexpected {other}"),
    };
    // 150 datagrams of 1000 bytes (8-byte head + 992 data), the last shorter:
    // more than one super-datagram (at most 64 segments each).
    let frame: Vec<u8> = (0..992 * 150 - 500).map(|i| (i % 253) as u8).collect();
    let heads: Vec<[u8; 8]> = (0..150u64).map(|i| i.to_be_bytes()).collect();
    let datagrams: Vec<(&[u8], &[u8])> = heads
        .iter()
        .zip(frame.chunks(992))
        .map(|(h, d)| (&h[..], d))
        .collect();
    assert_eq!(
        tx.send_gso(dest, 1000, &datagrams).expect("UDP GSO send"),
        150
    );

    let mut storage = vec![[0u8; 2048]; 64];
    let mut got: Vec<Vec<u8>> = Vec::new();
    while got.len() < 150 {
        let mut bufs: Vec<&mut [u8]> = storage.iter_mut().map(|b| &mut b[..]).collect();
        let mut meta = vec![RecvMeta::default(); bufs.len()];
        let n = rx.recv_batch(&mut bufs, &mut meta).expect("recvmmsg");
        for (b, m) in bufs.iter().zip(&meta).take(n) {
            got.push(b[..m.len].to_vec());
        }
    }
    for (i, d) in got.iter().enumerate() {
        assert_eq!(
            &d[..8],
            &(i as u64).to_be_bytes(),
            "datagram {i} out of order"
        );
        let want = &frame[i * 992..((i + 1) * 992).min(frame.len())];
        assert_eq!(&d[8..], want, "datagram {i} content");
    }
    // A datagram of the wrong size in the middle is refused, not sent.
    let bad: Vec<(&[u8], &[u8])> = vec![
        (&heads[0][..], &frame[..10]),
        (&heads[1][..], &frame[..992]),
    ];
    assert!(tx.send_gso(dest, 1000, &bad).is_err());
}

#[test]
fn a_datagram_that_cannot_leave_does_not_stop_the_rest() {
    let lo = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0);
    let rx = UdpEndpoint::bind(lo, &UdpOptions::default()).expect("bind");
    rx.socket()
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let tx = UdpEndpoint::bind(lo, &UdpOptions::default()).expect("bind");
    let dest = match rx.local_addr() {
        std::net::SocketAddr::V4(a) => a,
        other => panic!("unexpected {other}"),
    };
    // The second is larger than any UDP datagram: EMSGSIZE for it alone.
    let huge = vec![7u8; 70_000];
    let small = [1u8; 64];
    let heads: Vec<[u8; 4]> = (0..5u32).map(|i| i.to_be_bytes()).collect();
    let datagrams: Vec<(&[u8], &[u8])> = vec![
        (&heads[0][..], &small[..]),
        (&heads[1][..], &huge[..]),
        (&heads[2][..], &small[..]),
        (&heads[3][..], &small[..]),
        (&heads[4][..], &small[..]),
    ];
    let outcome = tx.send_datagrams(dest, &datagrams);
    assert_eq!(outcome.sent, 4, "{outcome:?}");
    assert_eq!(outcome.failed.len(), 1, "{outcome:?}");
    assert_eq!(outcome.failed[0].datagrams, 1..2);
    assert_eq!(
        outcome.failed[0].error.raw_os_error(),
        Some(libc::EMSGSIZE),
        "{outcome:?}"
    );
    let mut buf = [0u8; 2048];
    for want in [0u32, 2, 3, 4] {
        let n = rx.socket().recv(&mut buf).expect("datagram");
        assert_eq!(n, 68);
        assert_eq!(buf[..4], want.to_be_bytes());
    }
}

#[test]
fn loopback_gets_standard_datagrams_not_gso() {
    let lo = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0);
    let rx = UdpEndpoint::bind(
        lo,
        &UdpOptions {
            recv_buffer: Some(4 << 20),
            ..UdpOptions::default()
        },
    )
    .expect("bind");
    let tx = UdpEndpoint::bind(lo, &UdpOptions::default()).expect("bind");
    let dest = match rx.local_addr() {
        std::net::SocketAddr::V4(a) => a,
        other => panic!("unexpected {other}"),
    };
    let egress = tx.gso_egress(Ipv4Addr::LOCALHOST);
    assert!(!egress.segmented_before_wire, "{egress:?}");
    assert_eq!(egress.interface.as_deref(), Some("lo"));
    let frame = vec![3u8; 1000 * 2000];
    let datagrams: Vec<(&[u8], &[u8])> = frame.chunks(1000).map(|d| (&[][..], d)).collect();
    // More than one sendmmsg batch: all go, none inside a super-datagram.
    let outcome = tx.send_datagrams(dest, &datagrams);
    assert_eq!(outcome.gso_datagrams, 0, "{outcome:?}");
    assert_eq!(outcome.sent + outcome.failed_count(), 2000, "{outcome:?}");
    assert!(outcome.sent > 0, "{outcome:?}");
}

#[test]
fn a_connected_endpoint_still_reaches_its_peer_and_others() {
    let lo = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0);
    let bind = |_| {
        let s = UdpEndpoint::bind(lo, &UdpOptions::default()).expect("bind");
        s.socket()
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        s
    };
    let (peer, other) = (bind(0), bind(1));
    let addr = |e: &UdpEndpoint| match e.local_addr() {
        std::net::SocketAddr::V4(a) => a,
        a => panic!("unexpected {a}"),
    };
    let mut tx = UdpEndpoint::bind(lo, &UdpOptions::default()).expect("bind");
    tx.connect(addr(&peer)).expect("connect");
    let data = [9u8; 100];
    let batch: Vec<(&[u8], &[u8])> = vec![(&[1u8][..], &data[..]); 3];
    for rx in [&peer, &other] {
        let outcome = tx.send_datagrams(addr(rx), &batch);
        assert_eq!(
            (outcome.sent, outcome.failed_count()),
            (3, 0),
            "{outcome:?}"
        );
        let mut buf = [0u8; 256];
        for _ in 0..3 {
            assert_eq!(rx.socket().recv(&mut buf).expect("datagram"), 101);
        }
    }
}
