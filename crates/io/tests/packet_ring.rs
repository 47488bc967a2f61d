//! The PF_PACKET receive ring on a real network: host namespaces joined by
//! veth links or a bridge (linerate-testbed), so these tests need root and
//! fail, not skip, without it. Only the header-parser and error tests run
//! unprivileged.

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use linerate_io::packet_ring::{parse_ipv4_udp, PacketRing, RingConfig, RingStats, UdpFilter};
use linerate_io::udp::{UdpEndpoint, UdpOptions};
use linerate_io::Error;
use linerate_testbed::Testbed;
use proptest::prelude::*;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Fails the test unless we are root: the bench cannot be built otherwise,
/// and a silently skipped network test would look like a passing one.
fn require_root() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    assert!(
        root,
        "this test builds network namespaces and opens AF_PACKET sockets: run it as root"
    );
}

/// Stream port on the receiving host and the camera's source port.
const DST_PORT: u16 = 41000;
const SRC_PORT: u16 = 41001;
/// A port the ring must ignore, both as destination and as source.
const OTHER_PORT: u16 = 41002;

/// Datagram `i` of the test stream: sizes from 0 to the jumbo maximum 8972,
/// content derived from `i` so every byte is checked.
fn datagram(i: usize) -> Vec<u8> {
    let len = match i % 10 {
        0 => 8972,
        1 => 0,
        2 => 1,
        3 => 3,
        _ => (i * 7919) % 8973,
    };
    let mut d: Vec<u8> = (0..len).map(|j| (i * 31 + j * 7) as u8).collect();
    if len >= 4 {
        d[..4].copy_from_slice(&(i as u32).to_be_bytes());
    }
    d
}

/// A datagram the ring delivered: payload, source, timestamp.
type Seen = (Vec<u8>, SocketAddrV4, u64);

/// Reads the ring until `want` datagrams arrived or nothing came for
/// `quiet`.
fn collect(ring: &mut PacketRing, want: usize, quiet: Duration) -> Result<Vec<Seen>, Error> {
    let mut got = Vec::new();
    let mut last = Instant::now();
    while got.len() < want && last.elapsed() < quiet {
        let n = ring.for_each_packet(Duration::from_millis(50), |p, src, ts| {
            got.push((p.to_vec(), src, ts))
        })?;
        if n > 0 {
            last = Instant::now();
        }
    }
    Ok(got)
}

/// A UDP socket bound to `port` on every address and never read: what the
/// host keeps open so the kernel does not answer the stream with ICMP port
/// unreachable.
fn udp_sink(port: u16) -> Result<UdpEndpoint, Error> {
    UdpEndpoint::bind(
        SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, port),
        &UdpOptions::default(),
    )
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[test]
fn ring_keeps_exactly_the_filtered_datagrams_in_order() -> TestResult {
    require_root();
    const COUNT: usize = 2000;
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let bed = Testbed::builder("ringt")
        .hosts(["a", "b", "c"])
        .switch()
        .mtu(9000)
        .build()?;
    let (a, b, c) = (bed.addr("a")?, bed.addr("b")?, bed.addr("c")?);

    // The host side: sinks on both ports, and the ring.
    let (_sink, _other_sink, mut ring) =
        bed.run_in("b", None, move || -> Result<_, Error> {
            let sink = udp_sink(DST_PORT)?;
            let other = udp_sink(OTHER_PORT)?;
            let filter = UdpFilter {
                dst_port: DST_PORT,
                src_addr: Some(a),
                src_port: Some(SRC_PORT),
            };
            let ring = PacketRing::open(b, &filter, &RingConfig::default())?;
            Ok((sink, other, ring))
        })??;
    assert_eq!(ring.interface(), "eth0");

    // Another host sends from the right port to the right port first.
    bed.run_in("c", None, move || -> std::io::Result<()> {
        let s = UdpSocket::bind(SocketAddrV4::new(c, SRC_PORT))?;
        for i in 0..300 {
            s.send_to(&datagram(i), SocketAddrV4::new(b, DST_PORT))?;
        }
        Ok(())
    })??;
    // Then the camera: the stream, interleaved with datagrams to the other
    // port and from the other port.
    let sender = bed.spawn_in("a", None, move || -> std::io::Result<()> {
        let cam = UdpSocket::bind(SocketAddrV4::new(a, SRC_PORT))?;
        let other = UdpSocket::bind(SocketAddrV4::new(a, OTHER_PORT))?;
        for i in 0..COUNT {
            let d = datagram(i);
            cam.send_to(&d, SocketAddrV4::new(b, DST_PORT))?;
            if i % 3 == 0 {
                cam.send_to(&d, SocketAddrV4::new(b, OTHER_PORT))?;
            }
            if i % 4 == 1 {
                other.send_to(&d, SocketAddrV4::new(b, DST_PORT))?;
            }
            if i % 32 == 31 {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        Ok(())
    })?;
    let got = collect(&mut ring, COUNT, Duration::from_secs(5))?;
    sender.join().map_err(|_| "sender panicked")??;
    // Nothing else may turn up.
    let extra = ring.for_each_packet(Duration::from_millis(300), |_, src, _| {
        eprintln!("unexpected datagram from {src}")
    })?;

    assert_eq!(got.len(), COUNT, "datagrams seen by the ring");
    assert_eq!(extra, 0, "datagrams after the stream");
    let cam = SocketAddrV4::new(a, SRC_PORT);
    let (start, end) = (now_ns() - 60_000_000_000, now_ns());
    for (i, (payload, src, ts)) in got.iter().enumerate() {
        assert_eq!(*src, cam, "datagram {i} source");
        assert!(
            *payload == datagram(i),
            "datagram {i}: {} bytes, want {} bytes of datagram {i}",
            payload.len(),
            datagram(i).len()
        );
        assert!((start..=end).contains(ts), "datagram {i} timestamp {ts}");
    }
    let st = ring.stats()?;
    assert_eq!(st.packets, COUNT as u64, "{st:?}");
    assert_eq!((st.drops, st.rejected, st.kept()), (0, 0, COUNT as u64));
    // Counters accumulate across reads (the kernel resets on each).
    assert_eq!(ring.stats()?, st);
    Ok(())
}

/// Datagrams sent with UDP GSO: 150 of 1000 bytes (64 per send), then 20
/// jumbo ones of 8000 bytes (8 per send), the last of each run shorter.
/// Returns the runs as (segment size, count) and the datagrams.
fn gso_stream() -> (Vec<(usize, usize)>, Vec<Vec<u8>>) {
    let runs = vec![(1000, 150), (8000, 20)];
    let mut datagrams = Vec::new();
    for (k, &(segment, count)) in runs.iter().enumerate() {
        for i in 0..count {
            let len = if i + 1 == count {
                segment - 123
            } else {
                segment
            };
            let mut d: Vec<u8> = (0..len).map(|j| (i * 13 + j + k) as u8).collect();
            d[..8].copy_from_slice(&((k * 1000 + i) as u64).to_be_bytes());
            datagrams.push(d);
        }
    }
    (runs, datagrams)
}

/// Sends [`gso_stream`] from `tx_ip` on `tx` to a ring on `rx_ip` on `rx`;
/// returns what the ring saw and its statistics.
fn gso_run(
    bed: &Testbed,
    (tx, tx_ip): (&str, Ipv4Addr),
    (rx, rx_ip): (&str, Ipv4Addr),
) -> Result<(Vec<Seen>, RingStats), Box<dyn std::error::Error>> {
    let (_sink, mut ring) = bed.run_in(rx, None, move || -> Result<_, Error> {
        let filter = UdpFilter {
            dst_port: DST_PORT,
            src_addr: Some(tx_ip),
            src_port: Some(SRC_PORT),
        };
        let ring = PacketRing::open(rx_ip, &filter, &RingConfig::for_bytes(16 << 20))?;
        Ok((udp_sink(DST_PORT)?, ring))
    })??;
    let (runs, datagrams) = gso_stream();
    let want = datagrams.len();
    bed.run_in(tx, None, move || -> Result<(), Error> {
        let cam = UdpEndpoint::bind(SocketAddrV4::new(tx_ip, SRC_PORT), &UdpOptions::default())?;
        let mut at = 0;
        for (segment, count) in runs {
            let batch: Vec<(&[u8], &[u8])> = datagrams[at..at + count]
                .iter()
                .map(|d| (&d[..8], &d[8..]))
                .collect();
            let sent = cam.send_gso(SocketAddrV4::new(rx_ip, DST_PORT), segment, &batch)?;
            assert_eq!(sent, count);
            at += count;
        }
        Ok(())
    })??;
    let got = collect(&mut ring, want, Duration::from_secs(3))?;
    let st = ring.stats()?;
    Ok((got, st))
}

fn assert_gso_stream(got: &[Seen], from: SocketAddrV4, st: &RingStats) {
    let (_, want) = gso_stream();
    assert_eq!(got.len(), want.len(), "{st:?}");
    for (i, ((payload, src, _), want)) in got.iter().zip(&want).enumerate() {
        assert_eq!(*src, from, "datagram {i} source");
        assert!(
            payload == want,
            "datagram {i}: {} bytes starting {:02x?}, want {} bytes starting {:02x?}",
            payload.len(),
            &payload[..payload.len().min(8)],
            want.len(),
            &want[..8]
        );
    }
    assert_eq!((st.drops, st.rejected), (0, 0), "{st:?}");
}

#[test]
fn gso_trains_arrive_as_their_datagrams() -> TestResult {
    require_root();
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let bed = Testbed::builder("ringt_gso")
        .hosts(["a", "b"])
        .mtu(9000)
        .build()?;
    let (a, b) = (bed.addr("a")?, bed.addr("b")?);
    let count = gso_stream().1.len() as u64;

    // veth (in its default state) and loopback pass UDP GSO trains
    // through whole; packet sockets see one packet per train, and the ring
    // cuts them by the segment size in the virtio-net header.
    let (got, st) = gso_run(&bed, ("a", a), ("b", b))?;
    assert_gso_stream(&got, SocketAddrV4::new(a, SRC_PORT), &st);
    assert!(
        st.packets < count,
        "trains were cut before the ring on veth: {st:?}"
    );
    eprintln!(
        "veth: {} datagrams arrived in {} ring packets",
        got.len(),
        st.packets
    );
    let lo = Ipv4Addr::LOCALHOST;
    let (got, st) = gso_run(&bed, ("b", lo), ("b", lo))?;
    assert_gso_stream(&got, SocketAddrV4::new(lo, SRC_PORT), &st);
    assert!(
        st.packets < count,
        "trains were cut before the ring: {st:?}"
    );
    eprintln!(
        "loopback: {} datagrams arrived in {} ring packets",
        got.len(),
        st.packets
    );
    Ok(())
}

#[test]
fn lone_datagrams_are_handed_over_within_the_block_timeout() -> TestResult {
    require_root();
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let bed = Testbed::builder("ringt_lat").hosts(["a", "b"]).build()?;
    let (a, b) = (bed.addr("a")?, bed.addr("b")?);
    let (_sink, mut ring) = bed.run_in("b", None, move || -> Result<_, Error> {
        let sink = udp_sink(DST_PORT)?;
        Ok((
            sink,
            PacketRing::open(b, &UdpFilter::port(DST_PORT), &RingConfig::default())?,
        ))
    })??;
    const COUNT: usize = 20;
    let sender = bed.spawn_in("a", None, move || -> std::io::Result<()> {
        let s = UdpSocket::bind(SocketAddrV4::new(a, 0))?;
        for i in 0..COUNT {
            std::thread::sleep(Duration::from_millis(20));
            s.send_to(&[i as u8; 64], SocketAddrV4::new(b, DST_PORT))?;
        }
        Ok(())
    })?;
    // Delay from the kernel's receive timestamp to the callback: how long
    // the packet sat in a block the kernel had not yet handed over.
    let mut delays = Vec::new();
    let start = Instant::now();
    while delays.len() < COUNT && start.elapsed() < Duration::from_secs(5) {
        ring.for_each_packet(Duration::from_millis(100), |p, _, ts| {
            assert_eq!(p, &[delays.len() as u8; 64][..]);
            delays.push(Duration::from_nanos(now_ns().saturating_sub(ts)));
        })?;
    }
    sender.join().map_err(|_| "sender panicked")??;
    assert_eq!(delays.len(), COUNT);
    delays.sort();
    eprintln!(
        "lone-datagram hand-over delay with a {} ms block timeout: median {:?}, max {:?}",
        ring.config().block_timeout_ms,
        delays[COUNT / 2],
        delays[COUNT - 1]
    );
    // A block of one packet is not left waiting to fill up: with a 1 ms
    // timeout the kernel hands it over within a few timer ticks.
    assert!(delays[COUNT / 2] < Duration::from_millis(20), "{delays:?}");
    assert!(delays[COUNT - 1] < Duration::from_millis(100), "{delays:?}");
    Ok(())
}

#[test]
fn an_address_no_interface_owns_is_a_typed_error() {
    let nobody = Ipv4Addr::new(203, 0, 113, 77);
    let err = PacketRing::open(nobody, &UdpFilter::port(DST_PORT), &RingConfig::default())
        .expect_err("no interface has a TEST-NET-3 address");
    assert!(
        matches!(err, Error::NoInterface { addr } if addr == nobody),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "no network interface owns 203.0.113.77");
}

#[test]
fn without_cap_net_raw_the_error_says_so() {
    // Capabilities belong to threads: drop CAP_NET_RAW from this thread's
    // effective set only.
    #[repr(C)]
    struct CapHeader {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct CapData {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    const CAP_NET_RAW: u32 = 13;
    let err = std::thread::spawn(|| {
        let mut header = CapHeader {
            version: LINUX_CAPABILITY_VERSION_3,
            pid: 0,
        };
        let mut data = [CapData::default(); 2];
        // SAFETY: capget/capset with a version-3 header and the two data
        // words that version takes, all alive across the calls.
        unsafe {
            assert_eq!(
                libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()),
                0
            );
            data[0].effective &= !(1 << CAP_NET_RAW);
            assert_eq!(
                libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()),
                0
            );
        }
        PacketRing::open(
            Ipv4Addr::LOCALHOST,
            &UdpFilter::port(DST_PORT),
            &RingConfig::default(),
        )
        .expect_err("AF_PACKET without CAP_NET_RAW")
    })
    .join()
    .expect("thread");
    assert!(matches!(err, Error::NeedsCapNetRaw { .. }), "{err:?}");
    assert!(err.to_string().contains("CAP_NET_RAW"), "{err}");
}

#[test]
fn bad_ring_geometry_is_refused_with_its_sizes() {
    let config = RingConfig {
        block_size: 1000,
        ..RingConfig::default()
    };
    let err = PacketRing::open(Ipv4Addr::LOCALHOST, &UdpFilter::port(DST_PORT), &config)
        .expect_err("block size is not a page multiple");
    assert!(
        matches!(
            err,
            Error::RingRefused {
                block_size: 1000,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("1000 bytes"), "{err}");
}

/// An IPv4/UDP packet with `options` words of IP options.
fn ipv4_udp(src: SocketAddrV4, dst: SocketAddrV4, options: usize, payload: &[u8]) -> Vec<u8> {
    let ihl = 5 + options;
    let total = ihl * 4 + 8 + payload.len();
    let mut p = vec![0u8; ihl * 4];
    p[0] = 0x40 | ihl as u8;
    p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    p[6] = 0x40; // don't fragment
    p[8] = 64;
    p[9] = 17;
    p[12..16].copy_from_slice(&src.ip().octets());
    p[16..20].copy_from_slice(&dst.ip().octets());
    p.extend_from_slice(&src.port().to_be_bytes());
    p.extend_from_slice(&dst.port().to_be_bytes());
    p.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(payload);
    p
}

fn addr() -> impl Strategy<Value = SocketAddrV4> {
    (any::<u32>(), any::<u16>()).prop_map(|(ip, port)| SocketAddrV4::new(ip.into(), port))
}

proptest! {
    #[test]
    fn parser_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Some(udp) = parse_ipv4_udp(&bytes) {
            prop_assert!(udp.payload.len() + 28 <= bytes.len());
        }
    }

    #[test]
    fn parser_never_panics_on_ipv4_like_headers(
        first in 0x40u8..0x50,
        total in any::<u16>(),
        flags in any::<u16>(),
        proto in prop_oneof![Just(17u8), any::<u8>()],
        udp_len in any::<u16>(),
        len in 0usize..120,
    ) {
        let mut p = vec![0u8; len];
        let mut put = |at: usize, b: &[u8]| {
            for (i, &x) in b.iter().enumerate() {
                if let Some(slot) = p.get_mut(at + i) {
                    *slot = x;
                }
            }
        };
        put(0, &[first]);
        put(2, &total.to_be_bytes());
        put(6, &flags.to_be_bytes());
        put(9, &[proto]);
        let ihl = usize::from(first & 0xf) * 4;
        put(ihl + 4, &udp_len.to_be_bytes());
        if let Some(udp) = parse_ipv4_udp(&p) {
            prop_assert_eq!(proto, 17);
            prop_assert_eq!(flags & 0x3fff, 0);
            prop_assert!(ihl >= 20 && usize::from(total) <= len);
            prop_assert_eq!(udp.payload.len() + 8, usize::from(udp_len));
        }
    }

    #[test]
    fn parser_reads_valid_packets_and_refuses_damaged_ones(
        src in addr(),
        dst in addr(),
        options in 0usize..=10,
        payload in proptest::collection::vec(any::<u8>(), 0..1500),
        padding in 0usize..40,
        cut in any::<prop::sample::Index>(),
    ) {
        let mut p = ipv4_udp(src, dst, options, &payload);
        let total = p.len();
        let ihl = (5 + options) * 4;
        p.resize(total + padding, 0xee);
        let udp = parse_ipv4_udp(&p).expect("valid packet");
        prop_assert_eq!(udp.source, src);
        prop_assert_eq!(udp.destination, dst);
        prop_assert_eq!(udp.payload, &payload[..]);

        // Cut anywhere before the IP total length.
        prop_assert!(parse_ipv4_udp(&p[..cut.index(total)]).is_none());

        let damaged = |at: usize, value: &[u8]| {
            let mut q = p.clone();
            q[at..at + value.len()].copy_from_slice(value);
            parse_ipv4_udp(&q).is_none()
        };
        let ihl_byte = p[0] & 0x0f;
        prop_assert!(damaged(0, &[0x60 | ihl_byte]), "IPv6 version");
        prop_assert!(damaged(0, &[0x44]), "header shorter than 20 bytes");
        if total < 60 + 8 {
            prop_assert!(damaged(0, &[0x4f]), "header length leaving no room for UDP");
        }
        prop_assert!(damaged(9, &[6]), "TCP");
        prop_assert!(damaged(6, &[0x20, 0]), "more fragments");
        prop_assert!(damaged(6, &[0x00, 0x01]), "fragment offset");
        prop_assert!(damaged(2, &((ihl + 7) as u16).to_be_bytes()), "IP length below IP + UDP headers");
        prop_assert!(damaged(2, &((total + padding + 1) as u16).to_be_bytes()), "IP length beyond capture");
        prop_assert!(damaged(ihl + 4, &7u16.to_be_bytes()), "UDP length below its header");
        prop_assert!(
            damaged(ihl + 4, &((total - ihl + 1) as u16).to_be_bytes()),
            "UDP length beyond the IP payload"
        );
    }
}
