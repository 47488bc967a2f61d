//! `linerate demo`: the foundation end to end, on a bench of two namespaces.
//!
//! A "camera" namespace streams self-verifying frames as GVSP over UDP
//! (headers from `linerate-gev`'s block plan, data gathered straight from
//! the frame buffer by `linerate-io`'s sendmmsg) to a "host" namespace, which
//! assembles frames with `linerate-gev`'s frame assembler and verifies each
//! frame's stamp and CRC. The emulated camera and the grab
//! engine take over sender and receiver as they land.

use std::net::SocketAddrV4;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use linerate_gev::assembler::{Assembler, Config as AssemblerConfig, IgnoreReason, Placement};
use linerate_gev::block_plan::BlockPlan;
use linerate_gev::test_pattern;
use linerate_io::udp::{RecvMeta, UdpEndpoint, UdpOptions};
use linerate_testbed::{LossRule, Testbed};
use linerate_wire::gvsp::{ImageInfo, LeaderInfo, LeaderRepr, PayloadType, TrailerRepr};
use linerate_wire::{PixelFormat, Status};

const STREAM_PORT: u16 = 50_010;
const SEND_BATCH: usize = 64;

/// Arguments of `linerate demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Frames to stream.
    #[arg(long, default_value_t = 300)]
    frames: u64,
    /// Image width in pixels (Mono8).
    #[arg(long, default_value_t = 1024)]
    width: u32,
    /// Image height in lines.
    #[arg(long, default_value_t = 768)]
    height: u32,
    /// GVSP packet size as GigE Vision counts it (IP + UDP + GVSP headers + data).
    #[arg(long, default_value_t = 8000)]
    packet_size: usize,
    /// Frames per second (0: as fast as the sender can go).
    #[arg(long, default_value_t = 100.0)]
    fps: f64,
    /// Drop this percentage of stream packets on the host's interface
    /// (nftables), to watch incomplete frames being reported.
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Link MTU on the bench.
    #[arg(long, default_value_t = 9000)]
    mtu: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// What the receiving side found.
#[derive(Debug, Default)]
struct Received {
    packets: u64,
    bytes: u64,
    complete_verified: u64,
    incomplete: u64,
    bad_pattern: u64,
    undecodable: u64,
    first_error: Option<String>,
}

/// Receives until `frames` frames are delivered or the sender falls quiet,
/// assembling with the host's own frame assembler and verifying each
/// complete frame's test-pattern stamp and CRC.
fn receive(
    endpoint: &UdpEndpoint,
    frame_len: usize,
    data_per_packet: usize,
    frames: u64,
) -> Received {
    let mut r = Received::default();
    let mut config = AssemblerConfig::new(frame_len);
    config.data_per_packet = Some(data_per_packet);
    // The demo has no control channel to send resend requests on.
    config.resend.enabled = false;
    let mut assembler = match Assembler::new(config) {
        Ok(a) => a,
        Err(e) => {
            r.first_error = Some(e.to_string());
            return r;
        }
    };
    let epoch = Instant::now();
    let mut storage = vec![vec![0u8; 9216]; 64];
    let mut meta = vec![RecvMeta::default(); storage.len()];
    let mut delivered = 0u64;
    let drain = |assembler: &mut Assembler, r: &mut Received, delivered: &mut u64| {
        while let Some(frame) = assembler.poll_frame() {
            *delivered += 1;
            if frame.is_complete() {
                match test_pattern::verify(frame.data()) {
                    Ok(_) => r.complete_verified += 1,
                    Err(e) => {
                        r.bad_pattern += 1;
                        r.first_error.get_or_insert(e.to_string());
                    }
                }
            } else {
                r.incomplete += 1;
            }
            assembler.recycle(frame);
        }
    };
    while delivered < frames {
        let mut bufs: Vec<&mut [u8]> = storage.iter_mut().map(|b| &mut b[..]).collect();
        let n = match endpoint.recv_batch(&mut bufs, &mut meta) {
            Ok(n) => n,
            // The read timeout: the sender is done (or everything after was lost).
            Err(_) => break,
        };
        let now = epoch.elapsed().as_nanos() as u64;
        for (buf, m) in bufs.iter().zip(&meta).take(n) {
            r.packets += 1;
            r.bytes += m.len as u64;
            if let Placement::Ignored(
                reason @ (IgnoreReason::Malformed
                | IgnoreReason::OutOfBounds
                | IgnoreReason::Inconsistent),
            ) = assembler.on_packet(&buf[..m.len], now)
            {
                r.undecodable += 1;
                r.first_error
                    .get_or_insert(format!("packet ignored: {reason:?}"));
            }
        }
        // Lets frames whose retention ran out come out incomplete.
        while assembler.poll_transmit(now).is_some() {}
        drain(&mut assembler, &mut r, &mut delivered);
    }
    assembler.flush();
    drain(&mut assembler, &mut r, &mut delivered);
    r
}

fn send(endpoint: &UdpEndpoint, dest: SocketAddrV4, args: &DemoArgs) -> Result<(u64, Duration)> {
    let frame_len = args.width as usize * args.height as usize;
    let mut frame = vec![0u8; frame_len];
    let mut heads = vec![[0u8; 64]; SEND_BATCH];
    let mut packets = 0u64;
    let start = Instant::now();
    for n in 0..args.frames {
        if args.fps > 0.0 {
            let due = start + Duration::from_secs_f64(n as f64 / args.fps);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
        test_pattern::fill(n, &mut frame)?;
        let block_id = n % 0xffff + 1;
        let plan = BlockPlan::new(
            block_id,
            false,
            args.packet_size,
            frame_len,
            LeaderRepr {
                flags: 0,
                payload_type: PayloadType::IMAGE,
                timestamp: start.elapsed().as_nanos() as u64,
                info: LeaderInfo::Image(ImageInfo {
                    pixel_format: PixelFormat::MONO8,
                    width: args.width,
                    height: args.height,
                    ..ImageInfo::default()
                }),
            },
            TrailerRepr::image(args.height),
        )?;
        let count = plan.packet_count();
        let mut id = 0u32;
        while id < count {
            let batch = (count - id).min(SEND_BATCH as u32);
            let mut ranges = Vec::with_capacity(batch as usize);
            for (k, head) in heads.iter_mut().enumerate().take(batch as usize) {
                ranges.push(plan.write_head(id + k as u32, Status::SUCCESS, head)?);
            }
            let datagrams: Vec<(&[u8], &[u8])> = heads
                .iter()
                .zip(&ranges)
                .map(|(h, (n, r))| (&h[..*n], &frame[r.clone()]))
                .collect();
            let sent = endpoint.send_gather(dest, &datagrams)?;
            packets += sent as u64;
            id += batch;
        }
    }
    Ok((packets, start.elapsed()))
}

/// Runs `linerate demo`.
pub fn run(args: DemoArgs) -> Result<()> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        bail!("linerate demo builds network namespaces and needs root (try: sudo linerate demo)");
    }
    let frame_len = args.width as usize * args.height as usize;
    if frame_len < test_pattern::STAMP_LEN {
        bail!(
            "frame of {}x{} is too small for the 16-byte test-pattern stamp",
            args.width,
            args.height
        );
    }
    if !(0.0..=100.0).contains(&args.loss) {
        bail!("--loss {} is not a percentage between 0 and 100", args.loss);
    }
    let data_per_packet = linerate_wire::gvsp::payload_per_packet(args.packet_size, false);
    if args.packet_size > args.mtu as usize {
        bail!(
            "--packet-size {} exceeds the link MTU {}",
            args.packet_size,
            args.mtu
        );
    }
    let bed_name = format!("demo{}", std::process::id() % 10_000);
    let mut builder = Testbed::builder(&bed_name)
        .hosts(["camera", "host"])
        .link("camera", "host")
        .mtu(args.mtu);
    if args.loss > 0.0 {
        builder = builder.loss(
            LossRule::new("host", args.loss)
                .ingress()
                .udp_dport(STREAM_PORT),
        );
    }
    let bed = builder.build().context("building the demo test bench")?;
    let host_ip = bed.addr("host")?;
    let camera_ip = bed.addr("camera")?;
    if !args.json {
        eprintln!(
            "bench {bed_name}: camera {camera_ip} -> host {host_ip}, MTU {}, {:.1}% loss; streaming {} frames of {}x{} Mono8 at {} fps, {}-byte packets",
            args.mtu, args.loss, args.frames, args.width, args.height, args.fps, args.packet_size
        );
    }

    let frames = args.frames;
    let receiver = bed.spawn_in("host", None, move || -> Result<Received> {
        let ep = UdpEndpoint::bind(
            SocketAddrV4::new(host_ip, STREAM_PORT),
            &UdpOptions {
                recv_buffer: Some(64 << 20),
                ..UdpOptions::default()
            },
        )?;
        ep.socket()
            .set_read_timeout(Some(Duration::from_millis(1500)))?;
        Ok(receive(&ep, frame_len, data_per_packet, frames))
    })?;
    // Give the receiver time to bind before the first packet.
    std::thread::sleep(Duration::from_millis(200));
    let (sent, elapsed) = bed.run_in("camera", None, || -> Result<(u64, Duration)> {
        let ep = UdpEndpoint::bind(
            SocketAddrV4::new(camera_ip, 0),
            &UdpOptions {
                send_buffer: Some(8 << 20),
                ..UdpOptions::default()
            },
        )?;
        send(&ep, SocketAddrV4::new(host_ip, STREAM_PORT), &args)
    })??;
    let got = receiver
        .join()
        .map_err(|_| anyhow::anyhow!("receiver thread panicked"))??;
    drop(bed);

    let gbit = got.bytes as f64 * 8.0 / elapsed.as_secs_f64() / 1e9;
    let ok = got.complete_verified == frames && got.bad_pattern == 0 && got.undecodable == 0;
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "frames_sent": frames,
                "frames_complete_verified": got.complete_verified,
                "frames_incomplete": got.incomplete,
                "frames_bad_pattern": got.bad_pattern,
                "packets_sent": sent,
                "packets_received": got.packets,
                "packets_undecodable": got.undecodable,
                "bytes_received": got.bytes,
                "seconds": elapsed.as_secs_f64(),
                "gbit_per_s": gbit,
                "loss_percent": args.loss,
                "first_error": got.first_error,
                "ok": ok,
            })
        );
    } else {
        println!(
            "sent      {frames} frames, {sent} packets in {:.2} s ({gbit:.2} Gbit/s received)",
            elapsed.as_secs_f64()
        );
        println!(
            "received  {} packets, {} frames complete and verified",
            got.packets, got.complete_verified
        );
        println!(
            "          {} incomplete (no resend yet: that arrives with the host engine)",
            got.incomplete
        );
        if got.bad_pattern + got.undecodable > 0 {
            println!(
                "ERRORS    {} frames failed verification, {} packets undecodable: {}",
                got.bad_pattern,
                got.undecodable,
                got.first_error.as_deref().unwrap_or("")
            );
        }
    }
    if args.loss == 0.0 && !ok {
        bail!("frames were lost or damaged on a loss-free link");
    }
    if got.bad_pattern + got.undecodable > 0 {
        bail!(
            "{} frames failed verification",
            got.bad_pattern + got.undecodable
        );
    }
    Ok(())
}
