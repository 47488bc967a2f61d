//! Helpers shared by the integration tests: root check, UDP sender and
//! receiver, raw Ethernet frames. All traffic goes to 169.254.0.0/16
//! addresses inside the test's own namespaces.

#![allow(dead_code)]

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use linerate_io::raw::RawSocket;
use linerate_testbed::Testbed;

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Fails the test unless we are root: the bench cannot be built otherwise,
/// and a silently skipped network test would look like a passing one.
pub fn require_root() {
    assert!(
        linerate_io::privilege::is_root(),
        "this test builds network namespaces and must run as root (scripts/test)"
    );
    // Ctrl-C or SIGTERM to the test run removes the test's beds too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
}

/// Raises a socket's receive buffer past rmem_max (we are root), so bursts
/// are not dropped by the socket and every loss we count is the bench's.
pub fn force_rcvbuf(fd: &impl AsRawFd, bytes: i32) {
    let _ = linerate_io::socket::set_recv_buffer(fd, usize::try_from(bytes).unwrap_or(0));
}

/// What a UDP receiver saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct RxStats {
    pub packets: u64,
    pub bytes: u64,
    /// Time from first to last datagram.
    pub span: Duration,
}

impl RxStats {
    /// Throughput over the span, bits per second (first packet excluded).
    pub fn bits_per_sec(&self, datagram: usize) -> f64 {
        if self.packets < 2 || self.span.is_zero() {
            return 0.0;
        }
        ((self.bytes - datagram as u64) * 8) as f64 / self.span.as_secs_f64()
    }
}

/// A UDP receiver running on `host`, counting until `stop` is set and the
/// socket has been quiet for 200 ms.
pub struct Receiver {
    pub stop: Arc<AtomicBool>,
    pub handle: JoinHandle<RxStats>,
}

impl Receiver {
    pub fn start(
        bed: &Testbed,
        host: &str,
        port: u16,
        cpu: Option<usize>,
    ) -> Result<Receiver, Box<dyn std::error::Error>> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let sock = bed.run_in(host, None, move || UdpSocket::bind(("0.0.0.0", port)))??;
        force_rcvbuf(&sock, 16 << 20);
        sock.set_read_timeout(Some(Duration::from_millis(200)))?;
        let cpus = cpu.map(|c| vec![c]);
        let handle = bed.spawn_in(host, cpus.as_deref(), move || {
            let mut st = RxStats::default();
            let mut buf = vec![0u8; 65536];
            let mut first = None;
            let mut last = Instant::now();
            loop {
                match sock.recv(&mut buf) {
                    Ok(n) => {
                        let now = Instant::now();
                        first.get_or_insert(now);
                        last = now;
                        st.packets += 1;
                        st.bytes += n as u64;
                    }
                    Err(_) if flag.load(Ordering::Relaxed) => break,
                    Err(_) => {}
                }
            }
            if let Some(f) = first {
                st.span = last - f;
            }
            st
        })?;
        Ok(Receiver { stop, handle })
    }

    pub fn finish(self) -> RxStats {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}

/// Sends `count` datagrams of `size` bytes to each of `ports` (interleaved)
/// from `host`, pausing briefly every 64 rounds so receivers keep up.
pub fn send_paced(
    bed: &Testbed,
    host: &str,
    to: Ipv4Addr,
    ports: &[u16],
    count: usize,
    size: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let ports = ports.to_vec();
    bed.run_in(host, None, move || -> std::io::Result<()> {
        let sock = UdpSocket::bind("0.0.0.0:0")?;
        let payload = vec![0xabu8; size];
        for i in 0..count {
            for &p in &ports {
                sock.send_to(&payload, SocketAddrV4::new(to, p))?;
            }
            if i % 64 == 63 {
                std::thread::sleep(Duration::from_micros(500));
            }
        }
        Ok(())
    })??;
    Ok(())
}

/// Sends `size`-byte datagrams as fast as possible for `duration`; returns
/// how many send calls succeeded.
pub fn blast(
    bed: &Testbed,
    host: &str,
    cpu: Option<usize>,
    to: Ipv4Addr,
    port: u16,
    size: usize,
    duration: Duration,
) -> Result<u64, Box<dyn std::error::Error>> {
    let cpus = cpu.map(|c| vec![c]);
    let n = bed.run_in(host, cpus.as_deref(), move || -> std::io::Result<u64> {
        let sock = UdpSocket::bind("0.0.0.0:0")?;
        sock.connect(SocketAddrV4::new(to, port))?;
        let payload = vec![0x5au8; size];
        let start = Instant::now();
        let mut n = 0;
        while start.elapsed() < duration {
            if sock.send(&payload).is_ok() {
                n += 1;
            }
        }
        Ok(n)
    })??;
    Ok(n)
}

/// Names of the root namespace's interfaces, from `ip -o link`.
pub fn root_links() -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let out = std::process::Command::new("ip")
        .args(["-o", "link", "show"])
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v: Vec<String> = text
        .lines()
        .filter_map(|l| l.split(':').nth(1).map(|s| s.trim().to_owned()))
        .collect();
    v.sort();
    Ok(v)
}

/// Receives frames until `stop` is set and 200 ms pass quietly; counts
/// those whose ethertype is `ethertype`.
pub fn count_frames(mut socket: RawSocket, ethertype: u16, stop: &AtomicBool) -> u64 {
    let mut n = 0;
    loop {
        match socket.recv(Some(Duration::from_millis(200))) {
            Ok(0) | Err(_) if stop.load(Ordering::Relaxed) => return n,
            Ok(_) => {
                n += socket
                    .frames()
                    .filter(|f| {
                        f.data.len() >= 14
                            && u16::from_be_bytes([f.data[12], f.data[13]]) == ethertype
                    })
                    .count() as u64;
            }
            Err(_) => {}
        }
    }
}
