//! `linerate camera`: an emulated GigE Vision camera.
//!
//! The GVCP logic is `linerate_gev::device::Device` (sans-IO); this module
//! binds the sockets, feeds it datagrams and time, and turns its events into
//! work for the stream thread ([`streamer`]), which sends GVSP over UDP or,
//! when the host selects it, over TCP ([`tcp_stream`]).

mod control_socket;
mod counters;
mod interface;
pub mod streamer;
pub mod tcp_stream;

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use linerate_gev::device::{
    AcquisitionMode, Counters, Device, DeviceConfig, DeviceEvent, DeviceIdentity,
};
use linerate_io::netdev::GsoEgress;
use linerate_io::tcp::send::TcpSendOptions;
use linerate_io::udp::{UdpEndpoint, UdpOptions};
use linerate_wire::PixelFormat;

use control_socket::ControlSockets;
use streamer::{StreamCommand, StreamCounters, StreamSettings, Streamer, Transport};

/// Arguments of `linerate camera`.
#[derive(Debug, Args)]
pub struct CameraArgs {
    /// IPv4 address of the interface the camera answers on (GVCP port 3956).
    #[arg(long)]
    bind: Ipv4Addr,
    /// Serial number reported in discovery (default: derived from the address).
    #[arg(long)]
    serial: Option<String>,
    /// Initial image width in pixels, 16..=8192 (a multiple of 4).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(16..=8192))]
    width: u32,
    /// Initial image height in lines, 1..=8192.
    #[arg(long, default_value_t = 768, value_parser = clap::value_parser!(u32).range(1..=8192))]
    height: u32,
    /// Initial pixel format: Mono8, Mono10, Mono12, Mono16, BayerRG8, BayerGR8 or RGB8.
    #[arg(long, default_value = "Mono8")]
    pixel_format: String,
    /// Initial frame rate in frames per second, 0.1..=10000.
    #[arg(long, default_value_t = 25.0, value_parser = crate::arg_range::float_in(0.1f32..=10_000.0))]
    fps: f32,
    /// Initial GVSP packet size (SCPS: IP + UDP + GVSP headers + data), 576..=16000.
    #[arg(long, default_value_t = 1500, value_parser = clap::value_parser!(u32).range(576..=16_000))]
    packet_size: u32,
    /// Most frames kept for packet resend requests, 1..=1024; fewer when
    /// they would exceed --resend-memory (at least one is always kept).
    #[arg(long, default_value_t = 16, value_parser = crate::arg_range::usize_in(1..=1024))]
    resend_frames: usize,
    /// Most memory the resend buffer may hold, in bytes (suffixes k, m, g:
    /// binary), 1MiB..=1024GiB. Frames bigger than this still keep one
    /// frame. The memory is given back when acquisition stops.
    #[arg(long, default_value = "256MiB", value_name = "BYTES",
          value_parser = crate::arg_range::bytes_in(crate::arg_range::MIB..=1024 * crate::arg_range::GIB))]
    resend_memory: u64,
    /// UDP source port of the stream (0: let the kernel choose). A fixed
    /// port lets firewalls and loss rules select the stream.
    #[arg(long, default_value_t = 0)]
    stream_port: u16,
    /// GVCP port to listen on, 1..=65535 (3956 is the standard's).
    #[arg(long, default_value_t = linerate_wire::gvcp::PORT, value_parser = clap::value_parser!(u16).range(1..))]
    port: u16,
    /// Print a status line every this many seconds, 0..=86400 (0: never).
    #[arg(long, default_value_t = 5.0, value_parser = crate::arg_range::secs_in(0.0..=86_400.0))]
    stats_interval: f64,
    /// Send one datagram per packet, never UDP GSO super-datagrams (for
    /// comparison). By default GSO is used only where the egress interface
    /// cuts super-datagrams into standard datagrams before the wire (a
    /// NIC); on veth, loopback, bridges, tun and unknown devices, which
    /// pass them through whole, every packet is its own datagram anyway.
    #[arg(long)]
    no_gso: bool,
    /// On the TCP transport, send frame data with MSG_ZEROCOPY (the kernel
    /// sends from the frame buffers instead of copying them; it may still
    /// copy, e.g. to a socket on the same machine, and `--json` counts that).
    #[arg(long)]
    tcp_zerocopy: bool,
    /// TCP send buffer (SO_SNDBUF) in bytes, 4096..=1073741824.
    #[arg(long, default_value_t = 4 << 20, value_parser = crate::arg_range::bytes_usize_in(4096..=crate::arg_range::GIB))]
    tcp_send_buffer: usize,
    /// On exit, print the counters as one JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// Run on this CPU only, as `taskset -c N` would (every thread of the
    /// command): 0..=4095, 0 is the first CPU, and it must be online.
    #[arg(long, value_parser = crate::arg_range::online_cpu())]
    cpu: Option<usize>,
}

/// Where the camera answers: the `--bind` address at start, or the address
/// a FORCEIP moved it to (with the serial it started with, and the mask and
/// gateway the FORCEIP gave).
#[derive(Debug, Clone)]
struct Address {
    ip: Ipv4Addr,
    serial: Option<String>,
    forced: Option<(Ipv4Addr, Ipv4Addr)>,
}

fn identity(args: &CameraArgs, at: &Address) -> Result<DeviceIdentity> {
    let iface = interface::find(at.ip).with_context(|| {
        format!(
            "no local interface has address {} (give --bind one of this host's IPv4 addresses)",
            at.ip
        )
    })?;
    let o = at.ip.octets();
    let (subnet, gateway) = at
        .forced
        .unwrap_or((iface.netmask, DeviceIdentity::default().gateway));
    Ok(DeviceIdentity {
        serial: at
            .serial
            .clone()
            .or_else(|| args.serial.clone())
            .unwrap_or_else(|| format!("LR{:03}{:03}", o[2], o[3])),
        mac: iface.mac,
        ip: at.ip,
        subnet,
        gateway,
        ..DeviceIdentity::default()
    })
}

fn config(args: &CameraArgs) -> Result<DeviceConfig> {
    // The formats the GenICam XML lists are DeviceConfig's defaults.
    let defaults = DeviceConfig::default();
    let pixel_format = PixelFormat::from_name(&args.pixel_format)
        .filter(|f| defaults.pixel_formats.contains(f))
        .with_context(|| {
            format!(
                "unknown --pixel-format {:?}: use Mono8, Mono10, Mono12, Mono16, BayerRG8, BayerGR8 or RGB8",
                args.pixel_format
            )
        })?;
    let config = DeviceConfig {
        width: args.width,
        height: args.height,
        pixel_format,
        frame_rate: args.fps,
        packet_size: args.packet_size,
        ..defaults
    };
    config.validate().context("invalid camera settings")?;
    Ok(config)
}

fn snapshot(c: &StreamCounters) -> Counters {
    Counters {
        frames_sent: c.frames_sent.load(Ordering::Relaxed),
        frames_skipped: c.frames_skipped.load(Ordering::Relaxed),
        packets_resent: c.packets_resent.load(Ordering::Relaxed),
        resend_unavailable: c.resend_unavailable.load(Ordering::Relaxed),
        trigger_latency_us: c.trigger_latency_us.load(Ordering::Relaxed),
    }
}

/// Nanoseconds since `epoch`: the device core's clock.
fn elapsed_ns(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Turns a device event into work for the stream thread.
fn dispatch(event: &DeviceEvent, device: &Device, now: u64, tx: &mpsc::Sender<StreamCommand>) {
    let cfg = device.stream_config();
    let cmd = match event {
        DeviceEvent::AcquisitionStart => {
            let Some(destination) = cfg.destination else {
                eprintln!("camera: acquisition started with no stream destination (SCDA/SCP unset); not streaming");
                return;
            };
            let transport = if cfg.transport == 0 {
                Transport::Udp
            } else {
                // 0 follows SCPS: exactly the UDP packetisation.
                let data_per_packet = match cfg.transfer_size {
                    0 => linerate_wire::gvsp::payload_per_packet(
                        cfg.packet_size as usize,
                        cfg.extended_ids,
                    ),
                    n => n as usize,
                };
                Transport::Tcp { data_per_packet }
            };
            StreamCommand::Start(StreamSettings {
                destination,
                transport,
                packet_size: cfg.packet_size as usize,
                packet_delay_ns: u64::from(cfg.packet_delay_ticks),
                extended_ids: cfg.extended_ids,
                width: cfg.width,
                height: cfg.height,
                offset_x: cfg.offset_x,
                offset_y: cfg.offset_y,
                pixel_format: cfg.pixel_format,
                frame_rate: cfg.frame_rate,
                frame_limit: match cfg.acquisition_mode {
                    AcquisitionMode::Continuous => None,
                    AcquisitionMode::SingleFrame => Some(1),
                    AcquisitionMode::MultiFrame => Some(u64::from(cfg.frame_count.max(1))),
                },
                triggered: cfg.trigger_mode_on,
                gradient: cfg.test_pattern == 1,
                timestamp_offset_ns: i128::from(device.timestamp(now)) - i128::from(now),
            })
        }
        DeviceEvent::AcquisitionStop => StreamCommand::Stop,
        DeviceEvent::TriggerSoftware => StreamCommand::Trigger(Instant::now()),
        DeviceEvent::PacketResend(r) => StreamCommand::Resend(*r),
        // A test packet probes the UDP path; on TCP there is nothing to probe.
        DeviceEvent::FireTestPacket if cfg.transport != 0 => return,
        DeviceEvent::FireTestPacket => match cfg.destination {
            Some(destination) => StreamCommand::TestPacket {
                destination,
                size: cfg.packet_size as usize,
            },
            None => return,
        },
        DeviceEvent::ControlGranted { controller, .. } => {
            eprintln!("camera: {controller} took control");
            return;
        }
        DeviceEvent::ControlLost { controller, reason } => {
            eprintln!("camera: {controller} lost control ({reason:?})");
            return;
        }
        // The serve loop moves the sockets (see `run`).
        DeviceEvent::StreamConfigChanged | DeviceEvent::AddressForced { .. } => return,
    };
    // A closed channel means the stream thread ended; the main loop notices.
    let _ = tx.send(cmd);
}

/// Runs `linerate camera` until SIGINT or SIGTERM.
///
/// A FORCEIP addressed to the camera's MAC (and not refused: nobody holds
/// control) changes what it reports at once; it then moves its sockets to
/// the new address as soon as one of this host's interfaces has that
/// address (the emulator does not change interface addresses itself),
/// like a camera restarting its network stack: counters restart there.
pub fn run(args: CameraArgs) -> Result<()> {
    crate::pin_process(args.cpu)?;
    let stop = crate::stop_signal::on_sigint_or_sigterm()?;
    let mut at = Address {
        ip: args.bind,
        serial: None,
        forced: None,
    };
    while let Some(next) = serve(&args, &at, &stop)? {
        eprintln!(
            "camera: FORCEIP: now answering at {}:{} (mask {}, gateway {})",
            next.ip,
            args.port,
            next.forced.map_or(Ipv4Addr::UNSPECIFIED, |f| f.0),
            next.forced.map_or(Ipv4Addr::UNSPECIFIED, |f| f.1),
        );
        at = next;
    }
    Ok(())
}

/// Serves at `at` until a signal (`None`) or until a FORCEIP moved the
/// camera to an address this host has (`Some`: serve again there).
fn serve(
    args: &CameraArgs,
    at: &Address,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<Option<Address>> {
    let identity = identity(args, at)?;
    let mut device = Device::new(identity.clone(), config(args)?).context("building the camera")?;
    let sockets = ControlSockets::bind(at.ip, args.port)?;
    let stream_socket = UdpEndpoint::bind(
        SocketAddrV4::new(at.ip, args.stream_port),
        &UdpOptions {
            send_buffer: Some(16 << 20),
            ..UdpOptions::default()
        },
    )
    .with_context(|| {
        format!(
            "binding the stream socket at {}:{}",
            at.ip, args.stream_port
        )
    })?;
    let source_port = stream_socket.local_addr().port();
    device.set_source_port(source_port);

    let epoch = Instant::now();
    let counters = Arc::new(StreamCounters::default());
    let (tx, rx) = mpsc::channel();
    let streamer = Streamer::new(
        stream_socket,
        rx,
        Arc::clone(&counters),
        epoch,
        (
            args.resend_frames,
            usize::try_from(args.resend_memory).unwrap_or(usize::MAX),
        ),
        !args.no_gso,
        TcpSendOptions {
            send_buffer: args.tcp_send_buffer,
            zerocopy: args.tcp_zerocopy,
            ..TcpSendOptions::default()
        },
    );
    let stream_thread = std::thread::Builder::new()
        .name("gvsp-stream".into())
        .spawn(move || {
            streamer.run();
            // Its /proc entry goes with the thread: read its CPU time last.
            linerate_metrics::ThreadCpu::current().ok()
        })
        .context("starting the stream thread")?;

    // How stream datagrams leave through the bound interface (decided
    // again per destination when a stream starts).
    let egress = match linerate_io::netdev::Link::owning(at.ip) {
        Ok(link) => GsoEgress::of_interface(&link.name),
        Err(e) => GsoEgress {
            interface: None,
            driver: None,
            segmented_before_wire: false,
            reason: e.to_string(),
        },
    };
    eprintln!(
        "camera: serial {} at {}:{} (stream source port {source_port}), MAC {}; UDP send: {}; Ctrl-C to stop",
        identity.serial,
        at.ip,
        args.port,
        identity.mac,
        streamer::describe_egress(&egress, args.no_gso)
    );
    let mut buf = vec![0u8; 2048];
    let mut last_stats = Instant::now();
    let mut last_frames = 0u64;
    let mut last_bytes = 0u64;
    let mut runs_seen = 0u64;
    let mut moving: Option<Address> = None;
    while !stop.load(Ordering::Relaxed) {
        let now = elapsed_ns(epoch);
        let wait = device
            .poll_timeout()
            .map_or(Duration::from_millis(100), |t| {
                Duration::from_nanos(t.saturating_sub(now))
            })
            .min(Duration::from_millis(100));
        if let Some((n, from)) = sockets.recv(&mut buf, wait)? {
            device.set_counters(snapshot(&counters));
            let foreign_before = device.access_denied().controller_ip_other_port;
            let result = device.handle_datagram(&buf[..n], from, elapsed_ns(epoch));
            if foreign_before == 0 && device.access_denied().controller_ip_other_port == 1 {
                eprintln!(
                    "camera: refused a command from {from}: the controlling host's address on \
                     another UDP port (a second program there, or a forgery); counting the rest"
                );
            }
            if let Some(reply) = &result.reply {
                if let Err(e) = sockets.send(&reply.datagram, reply.to) {
                    eprintln!("camera: {e:#}");
                }
            }
            for e in &result.events {
                dispatch(e, &device, elapsed_ns(epoch), &tx);
                if let DeviceEvent::AddressForced {
                    ip,
                    subnet_mask,
                    gateway,
                } = *e
                {
                    if interface::find(ip).is_none() {
                        eprintln!(
                            "camera: FORCEIP to {ip}/{subnet_mask}: discovery reports it now; \
                             still answering at {} until an interface of this host has {ip}",
                            at.ip
                        );
                    }
                    moving = Some(Address {
                        ip,
                        serial: Some(identity.serial.clone()),
                        forced: Some((subnet_mask, gateway)),
                    });
                }
            }
        }
        // Move once the forced address exists here (at once, or when added).
        if moving
            .as_ref()
            .is_some_and(|m| m.ip != at.ip && interface::find(m.ip).is_some())
        {
            break;
        }
        for e in device.handle_timeout(elapsed_ns(epoch)) {
            dispatch(&e, &device, elapsed_ns(epoch), &tx);
        }
        // Single- and multi-frame acquisitions end by themselves.
        let runs = counters.runs_finished.load(Ordering::Relaxed);
        if runs != runs_seen {
            runs_seen = runs;
            device.acquisition_complete();
        }
        if stream_thread.is_finished() {
            bail!("the stream thread ended unexpectedly");
        }
        if args.stats_interval > 0.0 && last_stats.elapsed().as_secs_f64() >= args.stats_interval {
            let dt = last_stats.elapsed().as_secs_f64();
            let frames = counters.frames_sent.load(Ordering::Relaxed);
            let bytes = counters.bytes_sent.load(Ordering::Relaxed);
            if frames != last_frames {
                let transport = if device.stream_config().transport == 0 {
                    "GVSP/UDP"
                } else {
                    "GVSP/TCP"
                };
                eprintln!(
                    "camera: {transport}: {:.1} frames/s, {:.2} Gbit/s, {} skipped, {} resent, {} unavailable",
                    (frames - last_frames) as f64 / dt,
                    (bytes - last_bytes) as f64 * 8.0 / dt / 1e9,
                    counters.frames_skipped.load(Ordering::Relaxed),
                    counters.packets_resent.load(Ordering::Relaxed),
                    counters.resend_unavailable.load(Ordering::Relaxed),
                );
            }
            last_frames = frames;
            last_bytes = bytes;
            last_stats = Instant::now();
        }
    }
    let _ = tx.send(StreamCommand::Shutdown);
    let send_thread_cpu = stream_thread.join().ok().flatten();
    if let Some(next) = moving.filter(|m| m.ip != at.ip && !stop.load(Ordering::Relaxed)) {
        return Ok(Some(next));
    }
    let c = snapshot(&counters);
    let seconds = epoch.elapsed().as_secs_f64();
    let send_thread_cpu = send_thread_cpu.map(|t| t.usage(Duration::from_secs_f64(seconds)));
    let stream_egress = counters
        .udp_egress
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let shown = stream_egress.as_ref().unwrap_or(&egress);
    let denied = device.access_denied();
    let udp_send = serde_json::json!({
        "interface": shown.interface,
        "driver": shown.driver,
        "gso": !args.no_gso && shown.segmented_before_wire,
        "reason": if args.no_gso { "--no-gso" } else { shown.reason.as_str() },
        "decided_for": if stream_egress.is_some() { "stream destination" } else { "bound interface" },
    });
    if args.json {
        crate::json_println!(
            "{}",
            serde_json::json!({
                "serial": identity.serial,
                "seconds": seconds,
                "frames_sent": c.frames_sent,
                "frames_skipped": c.frames_skipped,
                "packets_sent": counters.packets_sent.load(Ordering::Relaxed),
                "bytes_sent": counters.bytes_sent.load(Ordering::Relaxed),
                "packets_resent": c.packets_resent,
                "resend_unavailable": c.resend_unavailable,
                "send_errors": counters.send_errors.load(Ordering::Relaxed),
                "trigger_latency_us": c.trigger_latency_us,
                "tcp_connections": counters.tcp_connections.load(Ordering::Relaxed),
                "tcp_connections_lost": counters.tcp_connections_lost.load(Ordering::Relaxed),
                "tcp_connect_failures": counters.tcp_connect_failures.load(Ordering::Relaxed),
                "tcp_resend_ignored": counters.tcp_resend_ignored.load(Ordering::Relaxed),
                "zerocopy_sends": counters.zerocopy_sends.load(Ordering::Relaxed),
                "zerocopy_completions": counters.zerocopy_completions.load(Ordering::Relaxed),
                "zerocopy_copied": counters.zerocopy_copied.load(Ordering::Relaxed),
                "send_thread_cpu": send_thread_cpu,
                "udp_send": udp_send,
                // Commands refused for want of control; from the controller's
                // IP on another port they are a second program or forgeries.
                "gvcp_access_denied": {
                    "controller_ip_other_port": denied.controller_ip_other_port,
                    "other_hosts": denied.other_hosts,
                },
            })
        );
    } else {
        eprintln!(
            "camera: stopped after {seconds:.1} s: {} frames sent, {} skipped, {} packets resent; \
             GVCP commands refused: {} from the controller's IP on another port, {} from other hosts",
            c.frames_sent,
            c.frames_skipped,
            c.packets_resent,
            denied.controller_ip_other_port,
            denied.other_hosts
        );
    }
    Ok(None)
}
