//! `linerate demo`: the main job on built-in emulated devices.
//!
//! Builds a two-namespace test bench (camera and host joined by a veth
//! link), starts the emulated camera (`linerate_device::camera`, in
//! process) in one, and grabs from it in the other
//! with the host engine and `--verify`, as `linerate grab` does: resends,
//! the one-copy `mmsg` backend, live progress, and a short table at the
//! end. The camera is pinned to CPU 0 and the host's receive path (RPS and
//! the receive thread) to CPU 1, so each side stands in for one machine.
//! Without root it runs on loopback instead, and says so.

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use linerate_device::camera::{self, CameraConfig, CameraError, CameraHandle};
use linerate_grab::receive::Backend;
use linerate_grab::session::{GrabConfig, GrabReport};
use linerate_grab::verify::Pattern;
use linerate_testbed::{LossRule, Testbed};

use super::grab;

/// Host port of the stream, fixed so the loss rule can select it.
const STREAM_PORT: u16 = 50_010;

/// Arguments of `linerate demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Seconds to stream (also with --frames: whichever ends first),
    /// 0.001..=31536000. With --frames alone there is no time limit.
    #[arg(long, value_parser = crate::arg_range::secs_in(0.001..=31_536_000.0),
          default_value = "10",
          default_value_if("frames", clap::builder::ArgPredicate::IsPresent, None))]
    duration: Option<f64>,
    /// Stop after this many frames, or at --duration if that comes first;
    /// 0..=4294967295 (0: no frame limit, until --duration, Ctrl-C or SIGTERM).
    #[arg(long, value_parser = crate::arg_range::u64_in(0..=u64::from(u32::MAX)))]
    frames: Option<u64>,
    /// Image width in pixels (Mono8), 16..=8192, a multiple of 4.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(16..=8192))]
    width: u32,
    /// Image height in lines, 1..=8192.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=8192))]
    height: u32,
    /// Frames per second the camera is asked for (600 × 1 MiB ≈ 5 Gbit/s), 0.1..=10000.
    #[arg(long, default_value_t = 600.0, value_parser = crate::arg_range::float_in(0.1..=10_000.0))]
    fps: f64,
    /// GVSP packet size (IP + UDP + GVSP headers + data), 576..=16000.
    #[arg(long, default_value_t = 8000, value_parser = clap::value_parser!(u32).range(576..=16_000))]
    packet_size: u32,
    /// Receive backend: mmsg (one copy), copy (two copies) or ring (PF_PACKET).
    #[arg(long, default_value = "mmsg")]
    backend: Backend,
    /// Drop this percentage of stream packets on the host's interface
    /// (nftables), to watch resends repair them; 0..=100 (0: none).
    #[arg(long, default_value_t = 0.0, value_parser = crate::arg_range::float_in(0.0..=100.0))]
    loss: f64,
    /// Link MTU on the bench, 1280..=9216.
    #[arg(long, default_value_t = 9000, value_parser = clap::value_parser!(u32).range(1280..=9216))]
    mtu: u32,
    /// Run on loopback even as root (no bench, no loss emulation).
    #[arg(long)]
    loopback: bool,
    /// Print one JSON object instead of progress and a table.
    #[arg(long)]
    json: bool,
    /// The CPU of the host side's receive thread and (on the bench) its
    /// receive processing: 0..=4095, 0 is the first CPU, and it must be
    /// online. The camera runs on another CPU. Default: CPU 1 when there
    /// are two or more.
    #[arg(long, value_parser = crate::arg_range::online_cpu())]
    cpu: Option<usize>,
}

/// Runs `linerate demo`.
pub fn run(args: DemoArgs) -> Result<()> {
    if !(0.0..=100.0).contains(&args.loss) {
        bail!("--loss {} is not a percentage between 0 and 100", args.loss);
    }
    if args.packet_size > args.mtu {
        bail!(
            "--packet-size {} exceeds the link MTU {}",
            args.packet_size,
            args.mtu
        );
    }
    let root = linerate_io::privilege::is_root();
    let loopback = args.loopback || !root;
    if loopback && args.loss > 0.0 {
        bail!("--loss needs the test bench, which needs root (run as root, without --loopback)");
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (report, mode) = if loopback {
        crate::console::say(format_args!(
            "note: {}; running camera and host on loopback (127.0.0.1) in one machine's \
             network stack. Run as root for the two-namespace bench with per-side CPU accounting.",
            if root {
                "--loopback given"
            } else {
                "not root, so no test bench"
            }
        ));
        crate::console::say(format_args!("demo: loopback: {}", stream_summary(&args)));
        let ip = Ipv4Addr::LOCALHOST;
        // Loopback is shared by everything on this machine: the camera
        // gets a GVCP port no one holds and the host a stream port the
        // kernel picks, so demos run side by side.
        let (_camera, gvcp) = spawn_loopback_camera(ip)?;
        let mut grab_config = grab_config(&args, ip, args.cpu)?;
        grab_config.camera = gvcp.to_string();
        grab_config.stream_port = 0;
        (grab::grab(&grab_config, !args.json)?, "loopback")
    } else {
        let name = format!("demo{}", std::process::id() % 10_000);
        let mut builder = Testbed::builder(&name)
            .hosts(["camera", "host"])
            .link("camera", "host")
            .mtu(args.mtu);
        let host_cpu = args.cpu.or((cpus > 1).then_some(1));
        // The camera keeps off the host's CPU when there is another.
        let camera_cpu = if host_cpu == Some(0) && cpus > 1 {
            1
        } else {
            0
        };
        if let Some(cpu) = host_cpu {
            builder = builder.rps("host", &[cpu]);
        }
        if args.loss > 0.0 {
            builder = builder.loss(
                LossRule::new("host", args.loss)
                    .ingress()
                    .udp_dport(STREAM_PORT),
            );
        }
        let bed = builder.build().context("building the demo test bench")?;
        let cam_ip = bed.addr("camera")?;
        crate::console::say(format_args!(
            "demo: bench {name}: camera {cam_ip} (CPU {camera_cpu}) -> host {} (CPU {}), MTU {}, {}% loss; {}",
            bed.addr("host")?,
            host_cpu.map_or("any".into(), |c| c.to_string()),
            args.mtu,
            args.loss,
            stream_summary(&args),
        ));
        // The camera's threads start inside its namespace, on its CPU.
        let camera = bed
            .run_in("camera", Some(&[camera_cpu]), || {
                camera::spawn(CameraConfig {
                    bind: cam_ip,
                    ..CameraConfig::default()
                })
            })?
            .context("starting the emulated camera")?;
        let grab_config = grab_config(&args, cam_ip, host_cpu)?;
        let json = args.json;
        let report = bed.run_in("host", host_cpu.map(|c| vec![c]).as_deref(), || {
            wait_for_camera(cam_ip)?;
            grab::grab(&grab_config, !json)
        })??;
        drop(camera);
        drop(bed);
        (report, "testbed")
    };
    print(&args, &report, mode)?;
    // Ctrl-C or SIGTERM: the bench is already torn down and the summary
    // printed; exit as a shell reports the signal (130, 143).
    if let Some(i) = grab::interrupted(&report) {
        return Err(anyhow::Error::new(i).context("demo stopped early; the test bench is removed"));
    }
    if report.frames_corrupt > 0 {
        bail!("{} frames failed verification", report.frames_corrupt);
    }
    if args.loss == 0.0 && report.frames_incomplete > 0 {
        bail!(
            "{} frames incomplete on a loss-free link",
            report.frames_incomplete
        );
    }
    Ok(())
}

/// The stream the demo asks for and how long it runs, for its start-up line.
fn stream_summary(args: &DemoArgs) -> String {
    format!(
        "{}x{} Mono8 at {} fps, {}-byte packets, {} backend; {}",
        args.width,
        args.height,
        args.fps,
        args.packet_size,
        args.backend,
        crate::console::until(args.frames, args.duration),
    )
}

/// The grab session the demo runs: the grab defaults, with the demo's
/// stream, verification, a larger pool, and the fixed stream port.
fn grab_config(args: &DemoArgs, camera: Ipv4Addr, cpu: Option<usize>) -> Result<GrabConfig> {
    let duration = args
        .duration
        .map(|d| Duration::try_from_secs_f64(d).with_context(|| format!("--duration {d}")))
        .transpose()?;
    Ok(GrabConfig {
        frames: args.frames.unwrap_or(0),
        duration,
        width: Some(args.width),
        height: Some(args.height),
        fps: Some(args.fps),
        packet_size: Some(args.packet_size),
        pixel_format: Some("Mono8".into()),
        backend: args.backend,
        verify: true,
        pattern: Some(Pattern::Linerate),
        buffers: Some(32),
        cpu,
        stream_port: STREAM_PORT,
        ..GrabConfig::new(camera.to_string())
    })
}

/// Starts the camera on `ip` (loopback) at a GVCP port that is free now.
/// The port is found by binding port 0 and letting go of it; if another
/// program takes it in between, the camera fails to bind (it never shares
/// a port) and another port is tried.
fn spawn_loopback_camera(ip: Ipv4Addr) -> Result<(CameraHandle, SocketAddrV4)> {
    const ATTEMPTS: usize = 5;
    let mut last_error = None;
    for _ in 0..ATTEMPTS {
        let port = UdpSocket::bind((ip, 0))
            .and_then(|s| s.local_addr())
            .with_context(|| format!("finding a free UDP port on {ip} for the camera"))?
            .port();
        let config = CameraConfig {
            bind: ip,
            port,
            ..CameraConfig::default()
        };
        match camera::spawn(config) {
            Ok(camera) => {
                let gvcp = camera.local_addr();
                return Ok((camera, gvcp));
            }
            Err(e @ CameraError::ControlPortInUse { .. }) => last_error = Some(e),
            Err(e) => return Err(e).context("starting the emulated camera"),
        }
    }
    bail!(
        "could not start the emulated camera on loopback in {ATTEMPTS} attempts: {}",
        last_error.map(|e| e.to_string()).unwrap_or_default()
    )
}

/// Waits until the camera answers discovery (it binds in a few milliseconds).
fn wait_for_camera(ip: Ipv4Addr) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found = linerate_grab::discovery::discover(None, Some(ip), Duration::from_millis(200))
            .unwrap_or_default();
        if found.contains_key(&ip) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the emulated camera at {ip} did not answer discovery within 10 s");
        }
    }
}

fn print(args: &DemoArgs, r: &GrabReport, mode: &str) -> Result<()> {
    if args.json {
        let mut v = serde_json::to_value(r)?;
        v["mode"] = mode.into();
        v["loss_percent"] = args.loss.into();
        crate::json_println!("{v}");
        return Ok(());
    }
    let lost = r.frames_incomplete;
    println!();
    println!("| {:<22} | {:>14} |", "linerate demo", mode);
    println!("|{:-<24}|{:-<16}|", "", "");
    println!("| {:<22} | {:>14} |", "frames complete", r.frames_completed);
    println!("| {:<22} | {:>14} |", "frames verified", r.frames_verified);
    println!("| {:<22} | {:>14} |", "lost (incomplete)", lost);
    println!(
        "| {:<22} | {:>14} |",
        "Gbit/s",
        r.gbit_per_s.map_or("n/a".into(), |g| format!("{g:.2}"))
    );
    println!(
        "| {:<22} | {:>13.1}% |",
        "busiest core", r.cpu_busy_core_pct
    );
    println!("| {:<22} | {:>13.1}% |", "average CPU", r.cpu_avg_pct);
    println!("| {:<22} | {:>14} |", "resend requests", r.resend_requests);
    println!("| {:<22} | {:>14} |", "packets resent", r.packets_resent);
    println!(
        "| {:<22} | {:>14} |",
        "placed without copy",
        format!(
            "{:.1}%",
            100.0 * r.packets_placed_in_frame as f64 / r.packets_received.max(1) as f64
        )
    );
    Ok(())
}
