//! Integration tests: real namespaces, veths, tbf and nftables. Need root.
//! Every test uses its own bed name so they can run in parallel.

mod common;

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use linerate_io::raw::{RawConfig, RawSocket};
use linerate_testbed::{
    measure_core, netns_exists, Direction, LossRule, Rate, Shaper, Testbed, TestbedSpec,
};

const T: Duration = Duration::from_secs(2);

#[test]
fn p2p_jumbo_ping_both_ways() -> TestResult {
    require_root();
    let bed = Testbed::builder("t_ping")
        .hosts(["cam", "pc"])
        .mtu(9000)
        .build()?;
    assert_eq!(bed.addr("cam")?, Ipv4Addr::new(169, 254, 1, 1));
    assert_eq!(bed.addr("pc")?, Ipv4Addr::new(169, 254, 1, 2));
    assert_eq!(bed.iface("pc")?.name, "eth0");
    bed.ping("cam", "pc", 8000, T)?;
    bed.ping("pc", "cam", 8000, T)?;
    // DF really is set: a payload that does not fit 9000 fails locally.
    assert!(bed.ping("cam", "pc", 9000, T).is_err());
    // The kernel's view matches what we report.
    let mac = bed
        .command("pc", "cat")?
        .arg("/sys/class/net/eth0/address")
        .run_ok()?;
    assert_eq!(mac.trim(), bed.mac("pc")?.to_string());
    bed.teardown()?;
    assert!(!netns_exists("t_ping", "cam"));
    Ok(())
}

#[test]
fn mtu_1500_rejects_jumbo_ping() -> TestResult {
    require_root();
    let bed = Testbed::builder("t_mtu1500").hosts(["a", "b"]).build()?;
    bed.ping("a", "b", 1472, T)?;
    assert!(bed.ping("a", "b", 8000, T).is_err());
    Ok(())
}

#[test]
fn switch_three_hosts_all_pairs() -> TestResult {
    require_root();
    let bed = Testbed::builder("t_switch")
        .hosts(["cam1", "cam2", "pc"])
        .switch()
        .mtu(9000)
        .build()?;
    assert_eq!(
        bed.info().switch_netns.as_deref(),
        Some("lr-t_switch-switch")
    );
    assert!(netns_exists("t_switch", "switch"));
    let names = ["cam1", "cam2", "pc"];
    for a in names {
        for b in names {
            if a != b {
                bed.ping(a, b, 8000, T)
                    .map_err(|e| format!("{a} -> {b}: {e}"))?;
            }
        }
    }
    drop(bed);
    assert!(!netns_exists("t_switch", "switch"));
    assert!(!netns_exists("t_switch", "pc"));
    Ok(())
}

#[test]
fn multi_homed_host_reaches_both_peers() -> TestResult {
    require_root();
    let bed = Testbed::builder("t_multi")
        .hosts(["pc", "cam1", "cam2"])
        .link("pc", "cam1")
        .link("pc", "cam2")
        .build()?;
    assert_eq!(bed.host("pc")?.ifaces.len(), 2);
    bed.ping("pc", "cam1", 1000, T)?;
    bed.ping("pc", "cam2", 1000, T)?;
    bed.ping("cam2", "pc", 1000, T)?;
    bed.ping("cam1", "pc", 1000, T)?;
    Ok(())
}

#[test]
fn udp_port_loss_halves_one_port_only_and_changes_at_run_time() -> TestResult {
    require_root();
    const N: usize = 2000;
    let bed = Testbed::builder("t_udploss").hosts(["cam", "pc"]).build()?;
    let pc = bed.addr("pc")?;
    bed.set_loss(&LossRule::new("pc", 50.0).ingress().udp_dport(40000))?;

    let lossy = Receiver::start(&bed, "pc", 40000, None)?;
    let clean = Receiver::start(&bed, "pc", 40001, None)?;
    send_paced(&bed, "cam", pc, &[40000, 40001], N, 200)?;
    let (l, c) = (lossy.finish(), clean.finish());
    let loss = 1.0 - l.packets as f64 / N as f64;
    eprintln!(
        "50% rule: port 40000 got {}/{N} (loss {loss:.3}), port 40001 got {}",
        l.packets, c.packets
    );
    assert!((0.35..=0.65).contains(&loss), "loss {loss}");
    assert_eq!(c.packets, N as u64, "unaffected port lost packets");
    let rules = bed.loss_rules("pc")?;
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].ppm, Some(500_000));
    assert_eq!(
        rules[0].packets,
        N as u64 - l.packets,
        "nft counter = drops"
    );

    // Mid-run change: replace with 10 % on the source side (egress of cam),
    // which must replace nothing on pc and add one rule on cam.
    bed.set_loss(&LossRule::new("pc", 0.0).ingress().udp_dport(40000))?;
    assert!(bed.loss_rules("pc")?.is_empty(), "0 % removes the rule");
    bed.set_loss(&LossRule::new("cam", 10.0).egress().udp_dport(40000))?;
    bed.set_loss(&LossRule::new("cam", 10.0).egress().udp_dport(40000))?;
    assert_eq!(bed.loss_rules("cam")?.len(), 1, "same selector replaces");
    let lossy = Receiver::start(&bed, "pc", 40000, None)?;
    send_paced(&bed, "cam", pc, &[40000], N, 200)?;
    let l = lossy.finish();
    let loss = 1.0 - l.packets as f64 / N as f64;
    eprintln!("10% egress rule: got {}/{N} (loss {loss:.3})", l.packets);
    assert!((0.05..=0.16).contains(&loss), "loss {loss}");

    bed.clear_loss("cam")?;
    assert!(bed.loss_rules("cam")?.is_empty());
    Ok(())
}

/// `status` lists only the hosts that have loss rules, with the bed's
/// addresses and namespaces; `host_loss` reads one host's rules, empty or
/// not; both survive a JSON round trip.
#[test]
fn status_lists_the_hosts_with_loss_and_round_trips() -> TestResult {
    require_root();
    let bed = Testbed::builder("t_status").hosts(["cam", "pc"]).build()?;
    let quiet = bed.status()?;
    assert!(quiet.loss.is_empty(), "{quiet:?}");
    assert_eq!(quiet.info.hosts.len(), 2);
    assert_eq!(quiet.namespaces, bed.namespaces());
    bed.set_loss(&LossRule::new("pc", 25.0).ingress().udp_dport(40000))?;
    let status = bed.status()?;
    assert_eq!(status.loss.len(), 1, "{status:?}");
    assert_eq!(status.loss[0].host, "pc");
    assert_eq!(status.loss[0].rules[0].ppm, Some(250_000));
    assert!(bed.host_loss("cam")?.rules.is_empty());
    let text = serde_json::to_string(&status)?;
    let back: linerate_testbed::BedStatus = serde_json::from_str(&text)?;
    assert_eq!(back, status);
    Ok(())
}

#[test]
fn ip_hook_loss_fails_the_senders_send_and_bursts_drop_exact_runs() -> TestResult {
    require_root();
    const N: usize = 2000;
    let bed = Testbed::builder("t_iploss").hosts(["cam", "pc"]).build()?;
    let pc = bed.addr("pc")?;

    // At the IP output hook a dropped datagram fails the sender's send().
    bed.set_loss(
        &LossRule::new("cam", 100.0)
            .egress()
            .ip_hooks()
            .udp_dport(40002),
    )?;
    let err = bed.run_in("cam", None, move || {
        let sock = UdpSocket::bind("0.0.0.0:0")?;
        sock.send_to(b"x", SocketAddrV4::new(pc, 40002)).map(|_| ())
    })?;
    // EPERM, which std calls PermissionDenied.
    let kind = err.err().map(|e| e.kind());
    assert_eq!(
        kind,
        Some(std::io::ErrorKind::PermissionDenied),
        "output-hook drop must fail send"
    );
    // The device-layer rule on the same port and direction is another selector.
    bed.set_loss(&LossRule::new("cam", 1.0).egress().udp_dport(40002))?;
    assert_eq!(bed.loss_rules("cam")?.len(), 2);
    bed.clear_loss("cam")?;
    assert!(bed.loss_rules("cam")?.is_empty(), "clears both families");

    // Bursts: exactly 50 consecutive datagrams of every 1000, at the
    // receiver's IP input hook and at the sender's device egress.
    bed.set_loss(
        &LossRule::burst("pc", 50, 1000, 300)
            .ip_hooks()
            .udp_dport(40000),
    )?;
    bed.set_loss(
        &LossRule::burst("cam", 50, 1000, 600)
            .egress()
            .udp_dport(40001),
    )?;
    let input = Receiver::start(&bed, "pc", 40000, None)?;
    let egress = Receiver::start(&bed, "pc", 40001, None)?;
    send_paced(&bed, "cam", pc, &[40000, 40001], N, 200)?;
    let (i, e) = (input.finish(), egress.finish());
    assert_eq!(i.packets, (N - 100) as u64, "input-hook bursts");
    assert_eq!(e.packets, (N - 100) as u64, "egress bursts");
    let rules = bed.loss_rules("pc")?;
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].family, "inet");
    assert_eq!(rules[0].packets, 100, "nft counter = drops");
    assert_eq!(rules[0].ppm, Some(50_000));
    Ok(())
}

#[test]
fn ethertype_loss_in_netdev_family() -> TestResult {
    require_root();
    const N: u64 = 2000;
    const ETH: u16 = 0x88b5; // IEEE local experimental ethertype
    let bed = Testbed::builder("t_ethloss").hosts(["cam", "pc"]).build()?;
    let (cam_mac, pc_mac) = (bed.mac("cam")?, bed.mac("pc")?);
    let mut frame = Vec::new();
    frame.extend_from_slice(&pc_mac.0);
    frame.extend_from_slice(&cam_mac.0);
    frame.extend_from_slice(&ETH.to_be_bytes());
    frame.extend_from_slice(&[0u8; 100]);

    let run = |bed: &Testbed| -> Result<u64, Box<dyn std::error::Error>> {
        let rx = bed.run_in("pc", None, || {
            RawSocket::open("eth0", ETH, &RawConfig::default())
        })??;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let counter = std::thread::spawn(move || count_frames(rx, ETH, &flag));
        let f = frame.clone();
        bed.run_in("cam", None, move || -> Result<(), linerate_io::Error> {
            let tx = RawSocket::open("eth0", 0, &RawConfig::default())?;
            for i in 0..N {
                // A packet socket learns of an egress-hook drop: the
                // kernel refuses the frame (ENOBUFS, NET_XMIT_DROP) and
                // `send` says false. That is the loss we asked for, not a
                // failure.
                tx.send(&f)?;
                if i % 64 == 63 {
                    std::thread::sleep(Duration::from_micros(500));
                }
            }
            Ok(())
        })??;
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, Ordering::Relaxed);
        Ok(counter.join().unwrap_or(0))
    };

    // Egress hook on the sender.
    bed.set_loss(&LossRule::new("cam", 50.0).egress().ethertype(ETH))?;
    let got = run(&bed)?;
    let loss = 1.0 - got as f64 / N as f64;
    eprintln!("ethertype egress 50%: received {got}/{N} (loss {loss:.3})");
    assert!((0.35..=0.65).contains(&loss), "loss {loss}");

    // Ingress hook on the receiver, 100 %: nothing arrives; other traffic
    // (IPv4, ARP) still flows.
    bed.clear_loss("cam")?;
    bed.set_loss(&LossRule::new("pc", 100.0).ingress().ethertype(ETH))?;
    assert_eq!(run(&bed)?, 0);
    bed.ping("cam", "pc", 100, T)?;
    let rules = bed.loss_rules("pc")?;
    assert_eq!(rules[0].packets, N);

    // Removing it restores delivery.
    bed.clear_loss("pc")?;
    assert_eq!(run(&bed)?, N);
    Ok(())
}

#[test]
fn tbf_limits_udp_blast_to_1_gbit() -> TestResult {
    require_root();
    const SIZE: usize = 8000;
    let bed = Testbed::builder("t_tbf")
        .hosts(["cam", "pc"])
        .mtu(9000)
        .rate(Rate::gbit(1))
        .build()?;
    let pc = bed.addr("pc")?;
    let rx = Receiver::start(&bed, "pc", 41000, None)?;
    let sent = blast(
        &bed,
        "cam",
        None,
        pc,
        41000,
        SIZE,
        Duration::from_millis(1000),
    )?;
    let st = rx.finish();
    let gbit = st.bits_per_sec(SIZE) / 1e9;
    eprintln!(
        "tbf 1gbit: sent {sent}, received {} in {:?} = {gbit:.3} Gbit/s",
        st.packets, st.span
    );
    assert!(gbit < 1.2 && gbit > 0.5, "{gbit} Gbit/s");

    // Re-shape at run time to 200 Mbit/s in the cam->pc direction.
    bed.set_rate(
        "pc",
        None,
        Direction::Ingress,
        Some(Shaper::from(Rate::mbit(200))),
    )?;
    let rx = Receiver::start(&bed, "pc", 41000, None)?;
    blast(
        &bed,
        "cam",
        None,
        pc,
        41000,
        SIZE,
        Duration::from_millis(500),
    )?;
    let st = rx.finish();
    let gbit = st.bits_per_sec(SIZE) / 1e9;
    eprintln!("tbf 200mbit: {gbit:.3} Gbit/s");
    assert!(gbit < 0.25 && gbit > 0.1, "{gbit} Gbit/s");
    // And removable.
    bed.set_rate("pc", None, Direction::Ingress, None)?;
    bed.set_rate("pc", None, Direction::Ingress, None)?;
    Ok(())
}

#[test]
fn rps_mask_reads_back() -> TestResult {
    require_root();
    let cpus = std::thread::available_parallelism()?.get();
    let target = if cpus > 1 { 1 } else { 0 };
    let bed = Testbed::builder("t_rps")
        .hosts(["cam", "pc"])
        .rps("pc", &[target])
        .build()?;
    assert_eq!(bed.rps("pc")?, vec![target]);
    assert_eq!(bed.rps("cam")?, Vec::<usize>::new());
    bed.set_rps("cam", &[0])?;
    assert_eq!(bed.rps("cam")?, vec![0]);
    bed.set_rps("cam", &[])?;
    assert!(bed.rps("cam")?.is_empty());
    // Independently of our reader: what a process in the namespace sees.
    let raw = bed
        .command("pc", "cat")?
        .arg("/sys/class/net/eth0/queues/rx-0/rps_cpus")
        .run_ok()?;
    assert_eq!(linerate_testbed::rps::parse_cpu_mask(&raw)?, vec![target]);
    Ok(())
}

#[test]
fn pinned_command_runs_on_that_cpu_in_the_namespace() -> TestResult {
    require_root();
    let cpus = std::thread::available_parallelism()?.get();
    let target = cpus - 1;
    let bed = Testbed::builder("t_pin").hosts(["cam", "pc"]).build()?;
    let out = bed
        .command("pc", "sh")?
        .args([
            "-c",
            "grep Cpus_allowed_list /proc/self/status; ip -o -4 addr show dev eth0",
        ])
        .cpu(target)
        .run_ok()?;
    eprintln!("{out}");
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().last() == Some(&target.to_string())),
        "{out}"
    );
    assert!(out.contains("169.254.1.2/16"), "{out}");
    // Rust threads can be pinned too.
    let allowed = bed.run_in("pc", Some(&[target]), || {
        std::fs::read_to_string("/proc/thread-self/status").unwrap_or_default()
    })?;
    let line = allowed
        .lines()
        .find(|l| l.starts_with("Cpus_allowed_list"))
        .unwrap_or_default();
    assert!(line.ends_with(&format!("\t{target}")), "{line:?}");
    // An unknown host is a typed error, not a panic.
    assert!(bed.command("nope", "true").is_err());
    Ok(())
}

#[test]
fn teardown_happens_when_a_test_panics() -> TestResult {
    require_root();
    let r = std::panic::catch_unwind(|| {
        let _bed = Testbed::builder("t_panic")
            .hosts(["a", "b"])
            .switch()
            .build()
            .map_err(|e| e.to_string());
        assert!(netns_exists("t_panic", "a"));
        panic!("simulated test failure");
    });
    assert!(r.is_err());
    for h in ["a", "b", "switch"] {
        assert!(!netns_exists("t_panic", h), "{h} left behind");
    }
    Ok(())
}

#[test]
fn stale_bed_is_replaced_and_attach_finds_a_leaked_bed() -> TestResult {
    require_root();
    let first = Testbed::builder("t_stale")
        .hosts(["a", "b"])
        .mtu(9000)
        .build()?;
    let info = first.leak(); // as if the process had crashed
    assert!(netns_exists("t_stale", "a"));
    // Another process finds it by name.
    let attached = Testbed::attach("t_stale")?;
    assert_eq!(attached.info(), &info);
    drop(attached); // attach handles do not tear down
    assert!(netns_exists("t_stale", "a"));
    // Building again over the leftovers works.
    let again = Testbed::builder("t_stale").hosts(["a", "b"]).build()?;
    again.ping("a", "b", 100, T)?;
    assert_eq!(again.iface("a")?.mtu, 1500);
    drop(again);
    assert!(!netns_exists("t_stale", "a"));
    assert!(matches!(
        Testbed::attach("t_stale"),
        Err(linerate_testbed::Error::NotFound(_))
    ));
    Ok(())
}

#[test]
fn spec_file_builds_and_no_root_interface_is_added() -> TestResult {
    require_root();
    let before = root_links()?;
    let spec = TestbedSpec::from_toml(
        r#"
        name = "t_spec"
        hosts = ["cam", "fpga", "pc"]
        switch = true
        mtu = 9000
        rate = "5g"
        [[loss]]
        host = "pc"
        match = { udp_dport = 20202 }
        percent = 1
        "#,
    )?;
    let bed = Testbed::build(&spec)?;
    bed.ping("cam", "pc", 8000, T)?;
    assert_eq!(bed.loss_rules("pc")?.len(), 1);
    let during = root_links()?;
    drop(bed);
    let after = root_links()?;
    assert_eq!(
        before, during,
        "root namespace changed while the bed was up"
    );
    assert_eq!(before, after, "root namespace changed");
    Ok(())
}

#[test]
fn one_core_stands_in_for_the_receiving_host() -> TestResult {
    require_root();
    if std::thread::available_parallelism()?.get() < 2 {
        eprintln!("skipped: needs 2 CPUs");
        return Ok(());
    }
    const SIZE: usize = 8000;
    let bed = Testbed::builder("t_cpu")
        .hosts(["cam", "pc"])
        .mtu(9000)
        .rate(Rate::gbit(1))
        .rps("pc", &[1])
        .build()?;
    let pc = bed.addr("pc")?;
    let rx = Receiver::start(&bed, "pc", 42000, Some(1))?;
    let (sent, usage) = measure_core(1, || {
        blast(
            &bed,
            "cam",
            Some(0),
            pc,
            42000,
            SIZE,
            Duration::from_millis(700),
        )
    })?;
    let st = rx.finish();
    eprintln!(
        "sent {:?}, received {}; cpu1 busy {:.3}s (irq+softirq {:.3}s, util {:.2})",
        sent.as_ref().ok(),
        st.packets,
        usage.busy_secs,
        usage.irq_secs,
        usage.utilisation
    );
    sent?;
    assert!(st.packets > 1000);
    // The receiver's work (softirq via RPS plus the pinned receiver
    // thread) shows up on CPU 1.
    assert!(usage.busy_secs > 0.0);
    Ok(())
}

#[test]
fn loss_changes_while_a_stream_runs() -> TestResult {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    require_root();
    let bed = Testbed::builder("t_midrun").hosts(["cam", "pc"]).build()?;
    let pc = bed.addr("pc")?;
    let rx = Receiver::start(&bed, "pc", 45000, None)?;
    // Phases are set only after each rule change has returned, so the
    // per-phase counts hold however slow a loaded machine is:
    // 0 before loss, 1 under 100% loss, 2 after it is removed, 3 stop.
    let phase = Arc::new(AtomicUsize::new(0));
    let p = phase.clone();
    let tx = bed.spawn_in("cam", None, move || -> std::io::Result<[u64; 3]> {
        let s = std::net::UdpSocket::bind("0.0.0.0:0")?;
        let mut sent = [0u64; 3];
        loop {
            let ph = p.load(Ordering::SeqCst);
            if ph >= 3 {
                return Ok(sent);
            }
            for _ in 0..5 {
                s.send_to(&[7u8; 100], std::net::SocketAddrV4::new(pc, 45000))?;
                sent[ph] += 1;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    })?;
    std::thread::sleep(Duration::from_millis(150));
    bed.set_loss(&LossRule::new("pc", 100.0).udp_dport(45000))?;
    phase.store(1, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(150));
    // Swap phase before the rule goes, so no phase-1 packet can slip through.
    phase.store(2, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(20));
    bed.set_loss(&LossRule::new("pc", 0.0).udp_dport(45000))?;
    std::thread::sleep(Duration::from_millis(150));
    phase.store(3, Ordering::SeqCst);
    let [before, during, after] = tx.join().map_err(|_| "sender panicked")??;
    let got = rx.finish().packets;
    eprintln!(
        "mid-run: sent {before} before, {during} under 100% loss, {after} after; received {got}"
    );
    assert!(during > 0 && after > 0, "phases too short");
    assert!(
        got <= before + after,
        "packets sent under 100% loss arrived"
    );
    assert!(got > before, "loss did not stop again");
    Ok(())
}

/// The child of [`a_signal_removes_the_beds_and_what_runs_in_them`]: builds
/// a bed, freezes a process inside it (as a test that SIGSTOPs a camera
/// does), says so, and waits to be signalled.
#[test]
#[ignore = "run as a child process by a_signal_removes_the_beds_and_what_runs_in_them"]
fn signalled_child_with_a_frozen_process_in_its_bed() {
    require_root();
    let bed = Testbed::builder("t_sigchild")
        .hosts(["a", "b"])
        .build()
        .expect("bed");
    let mut frozen = std::process::Command::new("ip")
        .args(["netns", "exec", "lr-t_sigchild-a", "sleep", "300"])
        .spawn()
        .expect("sleep in the bed");
    std::thread::sleep(Duration::from_millis(300));
    linerate_io::process::send_signal(frozen.id(), linerate_io::process::Signal::Stop)
        .expect("SIGSTOP");
    println!("ready {}", frozen.id());
    std::thread::sleep(Duration::from_secs(60));
    drop(bed);
    let _ = frozen.wait();
}

/// An interrupted test run must not leave a SIGSTOPped camera and its
/// namespaces behind. A process that asked for it removes its beds on
/// SIGINT and SIGTERM, ending what runs inside (stopped or not), and exits
/// as a shell reports the signal.
#[test]
fn a_signal_removes_the_beds_and_what_runs_in_them() {
    use linerate_io::process::Signal;
    use std::io::BufRead;
    require_root();
    for signal in [Signal::Interrupt, Signal::Terminate] {
        let mut child = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "signalled_child_with_a_frozen_process_in_its_bed",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("child test");
        let stdout = child.stdout.take().expect("stdout");
        let frozen: u32 = std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            // The harness prints the test's name on the same line first.
            .find_map(|l| {
                l.split_once("ready ")
                    .and_then(|(_, pid)| pid.trim().parse().ok())
            })
            .expect("the child never got ready");
        assert!(netns_exists("t_sigchild", "a"));
        linerate_io::process::send_signal(child.id(), signal).expect("signal the child");
        let out = child.wait_with_output().expect("child exit");
        assert_eq!(
            out.status.code(),
            Some(signal.shell_status()),
            "{signal}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!netns_exists("t_sigchild", "a"), "{signal}: bed left");
        assert!(!netns_exists("t_sigchild", "b"), "{signal}: bed left");
        // The frozen process is gone too (reaped by init once killed).
        let deadline = std::time::Instant::now() + Duration::from_secs(3);
        loop {
            let state = std::fs::read_to_string(format!("/proc/{frozen}/stat")).unwrap_or_default();
            // Gone, or a zombie waiting for its parent (ip netns exec) to be reaped.
            if state.is_empty() || state.contains(") Z ") {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{signal}: the frozen process survived: {state}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
