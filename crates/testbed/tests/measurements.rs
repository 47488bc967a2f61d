//! Measurements behind the numbers in docs/testbed.md, ignored by default
//! (they take a while and their numbers depend on the machine):
//!
//! * `rate_sweep`: what the default tbf parameters deliver at 1, 5 and
//!   10 Gbit/s (and unshaped), with UDP and TCP at MTU 9000;
//! * `cpu_attribution`: where a UDP receiver's cost shows up, per thread
//!   (getrusage) and per core (/proc/stat), with and without RPS.
//!
//! Run with
//! `cargo test --release -p linerate-testbed --test measurements -- --ignored --nocapture`.
//! Environment: `LR_SWEEP_RATES` (default `none,1g,5g,10g`),
//! `LR_SWEEP_BURST` (bytes) and `LR_SWEEP_LATENCY_US` override tbf's
//! automatic parameters.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddrV4, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use common::*;
use linerate_testbed::{Rate, Testbed};

fn tcp_gbit(bed: &Testbed, secs: f64) -> Result<f64, Box<dyn std::error::Error>> {
    let pc = bed.addr("pc")?;
    let listener = bed.run_in("pc", None, || TcpListener::bind(("0.0.0.0", 43000)))??;
    let server = bed.spawn_in(
        "pc",
        Some(&[1]),
        move || -> std::io::Result<(u64, Duration)> {
            let (mut s, _) = listener.accept()?;
            let mut buf = vec![0u8; 1 << 20];
            let mut total = 0u64;
            let start = Instant::now();
            loop {
                let n = s.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
            Ok((total, start.elapsed()))
        },
    )?;
    bed.run_in("cam", Some(&[0]), move || -> std::io::Result<()> {
        let mut s = TcpStream::connect(SocketAddrV4::new(pc, 43000))?;
        let buf = vec![0x11u8; 1 << 20];
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < secs {
            s.write_all(&buf)?;
        }
        Ok(())
    })??;
    let (bytes, dt) = server.join().map_err(|_| "server panicked")??;
    Ok(bytes as f64 * 8.0 / dt.as_secs_f64() / 1e9)
}

#[test]
#[ignore]
fn rate_sweep() -> TestResult {
    require_root();
    const SIZE: usize = 8900;
    let rates = std::env::var("LR_SWEEP_RATES").unwrap_or_else(|_| "none,1g,5g,10g".into());
    let burst = std::env::var("LR_SWEEP_BURST")
        .ok()
        .and_then(|v| v.parse::<u32>().ok());
    let latency = std::env::var("LR_SWEEP_LATENCY_US")
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    for rate in rates.split(',') {
        let rate = (rate != "none").then_some(rate);
        let mut b = Testbed::builder("t_sweep")
            .hosts(["cam", "pc"])
            .mtu(9000)
            .rps("pc", &[1]);
        if let Some(r) = rate {
            b = b.rate(r.parse::<Rate>()?);
        }
        if let Some(x) = burst {
            b = b.burst_bytes(x);
        }
        if let Some(us) = latency {
            b = b.latency(Duration::from_micros(us));
        }
        let bed = b.build()?;
        let pc = bed.addr("pc")?;
        let rx = Receiver::start(&bed, "pc", 41000, Some(1))?;
        let sent = blast(
            &bed,
            "cam",
            Some(0),
            pc,
            41000,
            SIZE,
            Duration::from_millis(1500),
        )?;
        let st = rx.finish();
        let udp = st.bits_per_sec(SIZE) / 1e9;
        let tcp = tcp_gbit(&bed, 1.5)?;
        println!(
            "rate {:>6} burst {burst:?} latency_us {latency:?}: UDP {SIZE}B payload {udp:.3} Gbit/s (received {}/{sent}), TCP {tcp:.3} Gbit/s",
            rate.unwrap_or("none"),
            st.packets
        );
    }
    Ok(())
}

/// CPU time of the calling thread (user + system).
fn thread_cpu() -> Duration {
    linerate_io::process::current_thread_cpu_time()
}

#[test]
#[ignore]
fn cpu_attribution() -> TestResult {
    require_root();
    assert!(
        std::thread::available_parallelism()?.get() >= 2,
        "cpu_attribution needs two CPUs: one for the sender, one for the receiver"
    );
    const SIZE: usize = 8000;
    for rps in [false, true] {
        let mut b = Testbed::builder("t_attr")
            .hosts(["cam", "pc"])
            .mtu(9000)
            .rate(Rate::gbit(2));
        if rps {
            b = b.rps("pc", &[1]);
        }
        let bed = b.build()?;
        let pc = bed.addr("pc")?;
        let sock = bed.run_in("pc", None, || std::net::UdpSocket::bind(("0.0.0.0", 44000)))??;
        force_rcvbuf(&sock, 32 << 20);
        sock.set_read_timeout(Some(Duration::from_millis(300)))?;
        let rx = bed.spawn_in("pc", Some(&[1]), move || {
            let t0 = thread_cpu();
            let mut buf = vec![0u8; 65536];
            let mut n = 0u64;
            while sock.recv(&mut buf).is_ok() {
                n += 1;
            }
            (n, thread_cpu() - t0)
        })?;
        let before = linerate_testbed::metrics::CpuSnapshot::take()?;
        let (sent, tx_cpu) = bed.run_in(
            "cam",
            Some(&[0]),
            move || -> std::io::Result<(u64, Duration)> {
                let t0 = thread_cpu();
                let s = std::net::UdpSocket::bind("0.0.0.0:0")?;
                s.connect(SocketAddrV4::new(pc, 44000))?;
                let payload = vec![1u8; SIZE];
                let start = Instant::now();
                let mut n = 0;
                while start.elapsed() < Duration::from_secs(2) {
                    if s.send(&payload).is_ok() {
                        n += 1;
                    }
                }
                Ok((n, thread_cpu() - t0))
            },
        )??;
        let (received, rx_cpu) = rx.join().map_err(|_| "receiver panicked")?;
        let d = linerate_testbed::metrics::CpuSnapshot::take()?.delta_since(&before);
        println!(
            "RPS {}: sent {sent} received {received}",
            if rps { "-> CPU1" } else { "off" }
        );
        println!(
            "  per thread: sender {:.3}s, receiver {:.3}s",
            tx_cpu.as_secs_f64(),
            rx_cpu.as_secs_f64()
        );
        for c in d.per_core() {
            println!(
                "  cpu{}: busy {:.3}s (user {:.3} sys {:.3} irq+softirq {:.3})",
                c.cpu.unwrap_or(0),
                c.busy_secs,
                c.user_secs,
                c.system_secs,
                c.irq_secs
            );
        }
    }
    Ok(())
}
