//! `linerate fade recv`: the host side of a FADE readout. The receiver
//! itself is `linerate_readout::receiver` (a receive thread that ACKs every
//! packet, a reader thread per board); this command turns its arguments
//! into a `ReceiverConfig`, shows progress, and prints the
//! `ReadoutReport` as text or JSON.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;
use linerate_fade::board::Controller;
use linerate_fade::command::CommandConfig;
use linerate_fade::fair::FairConfig;
use linerate_fade::host::{HostConfig, UserCommand};
use linerate_kafka::chunks::{Chunker, DEFAULT_CHUNK};
use linerate_kafka::report::ForwardedFields;
use linerate_readout::link::{parse_backend, Backend};
use linerate_readout::receiver::WireVersion;
use linerate_readout::{DataSink, LinkConfig, ReadoutReport, ReceiverConfig};
use linerate_testbed::Rate;

use super::command::{first_seq, parse_user_command, UserCommandArg};
use super::progress::Progress;
use super::{parse_controller, parse_mac, parse_version, Version};

/// How long a board may stay silent before START is sent again (START can
/// be lost like any frame).
const START_RETRY: Duration = Duration::from_millis(50);

/// STOP/RESET frames sent at the end, since any one may be lost.
const FAREWELLS: u32 = 3;

/// Arguments of `linerate fade recv`.
#[derive(Debug, Args)]
pub struct RecvArgs {
    /// Interface the boards are reached through, by name (eth1) or by one of its IPv4
    /// addresses.
    #[arg(long, value_name = "IF", value_parser = crate::interface_arg::name)]
    interface: String,
    /// MAC address of a board (repeat for several boards).
    #[arg(long = "feb", value_name = "MAC", required = true, value_parser = parse_mac)]
    febs: Vec<[u8; 6]>,
    /// FADE wire version: 1 or 10g (FADE-10G: 8192-byte packets in jumbo
    /// frames, a window of 16; needs an MTU of at least 8218).
    #[arg(long, default_value = "1", value_parser = parse_version)]
    version: Version,
    /// FADE-10G only: once a board streams, send it this user command
    /// (CODE 0x0100-0xffff, ARG a u32; decimal or 0x hex, ARG 0 if left
    /// out), resend it until the answer arrives in its DATA packets, and
    /// report the answer in the board's `command` JSON object. No answer
    /// within --command-tries sends fails the run.
    #[arg(long, value_name = "CODE[:ARG]", value_parser = parse_user_command)]
    command: Option<UserCommandArg>,
    /// Sends of --command before giving up, 10 ms apart; 1..=10000.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    command_tries: u32,
    /// Bytes to receive from each board (e.g. 1GiB); the run succeeds only
    /// if all arrive. 1..=1125899906842624 (1 PiB).
    #[arg(long, value_parser = crate::arg_range::bytes_in(1..=1 << 50), conflicts_with = "duration")]
    bytes: Option<u64>,
    /// Receive for this many seconds, then stop the boards; 0.001..=31536000.
    #[arg(long, value_parser = crate::arg_range::seconds_in(0.001..=31_536_000.0))]
    duration: Option<Duration>,
    /// Check every byte against the emulator's counter stream.
    #[arg(long)]
    verify: bool,
    /// Write the stream to FILE (several boards: FILE.0, FILE.1, ...).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Print one JSON object with totals and per-board figures.
    #[arg(long)]
    json: bool,
    /// Ring buffer per board, in MiB, 1..=65536.
    #[arg(long, default_value_t = 64, value_parser = crate::arg_range::usize_in(1..=65_536))]
    ring_mib: usize,
    /// Give up on a board that sends nothing for this many milliseconds,
    /// 1..=3600000.
    #[arg(long, default_value_t = 2000, value_parser = crate::arg_range::u64_in(1..=3_600_000))]
    idle_timeout_ms: u64,
    /// Send the ACKs of one receive batch together with one sendmmsg,
    /// after the batch, instead of one send right after each packet: one
    /// syscall for several ACKs, which shortens the queue behind a burst
    /// (the driver still stamps one ACK in --tx-stamp-every).
    #[arg(long)]
    batch_acks: bool,
    /// Ask the driver for the software transmit stamp of one ACK in this
    /// many (Linux 6.13+): the moment the ACK was handed to the interface,
    /// where the reported ACK latency then ends, over that sample. With 0,
    /// or when the kernel gives no stamps, it ends at each ACK's send
    /// returning, which on veth also includes the peer's receive path
    /// (always reported too, as ack_return). The JSON says which
    /// (`ack_sent_at`). Each stamp costs an error-queue read on the
    /// receive thread.
    #[arg(long, default_value_t = 8, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    tx_stamp_every: u32,
    /// `fair`: divide the link among the boards and put each board's
    /// pacing gap in its ACKs (a linerate extension in the ACK padding,
    /// which a published board ignores). `seed`: plain ACKs, every board
    /// on the published FADE core's adaptive delay.
    #[arg(long, default_value = "fair", value_parser = parse_controller)]
    controller: Controller,
    /// Rate of the link the boards share (the host's), in bits/s (`1g`,
    /// `950m`): what `fair` divides. Retransmissions lower it at run time
    /// if the link turns out slower.
    #[arg(long, default_value = "1g", value_parser = parse_rate)]
    link_rate: Rate,
    /// How much more than --link-rate the shares may add up to, in percent
    /// (0-100): boards that fall behind their pace then still fill the
    /// link, with a short queue at the bottleneck that their windows bound.
    #[arg(long, default_value_t = 12, value_parser = crate::arg_range::u64_in(0..=100))]
    overbook: u64,
    /// With `fair`: the host's queue guard. When even the shortest wait
    /// of a 2 ms round between a frame's receive stamp and the receive
    /// thread exceeds this many microseconds, a queue is standing in the
    /// host (the host, not the link, is the bottleneck) and the capacity
    /// divided is cut by 1/16; it grows back by 1/64 of the link per round
    /// once the queue is gone. 0..=1000000; 0 turns the guard off.
    #[arg(long, default_value_t = 10, value_name = "US", value_parser = crate::arg_range::u64_in(0..=1_000_000))]
    queue_target_us: u64,
    /// How DATA frames come in: `ring` (a PF_PACKET socket with a
    /// TPACKET_V2 ring of 1024 slots that the receive thread polls without
    /// syscalls; the default, measured lowest in ACK latency of the two
    /// that need only CAP_NET_RAW), `raw` (the same socket read with
    /// recvmmsg, kernel timestamps in control messages) or
    /// `xdp` (linerate's XDP program puts them in an AF_XDP socket that the
    /// receive thread polls without syscalls; needs root and an interface
    /// with XDP). ACKs always leave through the raw
    /// socket, past the interface's qdisc and netfilter egress hooks.
    #[arg(long, default_value = "ring", value_parser = parse_backend)]
    backend: Backend,
    /// Pin the receive thread to this CPU, and keep the reader threads off
    /// it (on every other online CPU), so that a reader waking up never
    /// preempts the thread whose every microsecond is ACK latency.
    /// 0..=4095 (0 is the first CPU).
    #[arg(long, value_parser = crate::arg_range::online_cpu())]
    cpu: Option<usize>,
    /// How long the receive thread busy-polls after the last frame before
    /// it sleeps in the socket until the next one, in microseconds (0:
    /// never spin, wake up for every batch); at most 1000000.
    #[arg(long, default_value_t = 200, value_parser = crate::arg_range::u64_in(0..=1_000_000))]
    spin_us: u64,
    /// Run the receive thread under SCHED_FIFO at this priority (1-99;
    /// needs root or CAP_SYS_NICE), so that on a busy core it preempts
    /// other work the moment a frame arrives. The kernel's real-time
    /// throttling still leaves other tasks 5 % of the core; the reader
    /// threads stay normal, so give them room (or another core).
    #[arg(long, value_name = "PRIO", value_parser = clap::value_parser!(i32).range(1..=99))]
    realtime: Option<i32>,
    /// Show each board's rate, bytes, retransmissions and ACK latency
    /// (p50/p99), and the Jain fairness of the rates,
    /// live in a web page served at this HOST:PORT (e.g. 127.0.0.1:8080).
    /// The page has no authentication: binding beyond loopback is your
    /// choice.
    #[arg(long, value_name = "ADDR")]
    view: Option<std::net::SocketAddr>,
    /// Forward each board's stream to Kafka in chunks (ESS ad00 1-D uint8
    /// arrays: source = board MAC, id = chunk sequence number).
    #[command(flatten)]
    kafka: Box<crate::cmd::kafka::ToKafkaArgs>,
    /// Bytes per forwarded chunk (suffixes k, m: binary), 1KiB..=16MiB.
    #[arg(long, default_value = "1MiB", value_name = "BYTES",
          value_parser = crate::arg_range::bytes_in(1024..=16 * crate::arg_range::MIB))]
    chunk_size: u64,
}

/// Runs the receiver; an error means some board did not deliver all it
/// was asked for, broke its stream, or failed to verify.
pub fn run(args: RecvArgs) -> Result<()> {
    if args.bytes.is_none() && args.duration.is_none() {
        bail!("say how much to receive: --bytes N or --duration S");
    }
    if args.version == Version::V1 && args.command.is_some() {
        bail!("--command needs --version 10g: FADE v1 has no user commands")
    }
    let stop = crate::stop_signal::on_sigint_or_sigterm()?;
    let forwarder = args
        .kafka
        .spawn(&format!("fade-recv-{}", args.interface), args.cpu)?;
    let sink = forwarder.as_ref().map(|f| {
        let chunkers: Vec<std::sync::Mutex<Chunker>> = args
            .febs
            .iter()
            .map(|m| {
                std::sync::Mutex::new(Chunker::new(
                    f.forward(),
                    super::mac_text(*m),
                    usize::try_from(args.chunk_size).unwrap_or(DEFAULT_CHUNK),
                ))
            })
            .collect();
        let read = args.febs.len();
        DataSink(std::sync::Arc::new(
            move |board: usize, offset: u64, data: &[u8]| {
                if let Some(Ok(mut c)) = chunkers.get(board % read.max(1)).map(|c| c.lock()) {
                    // A chunk the forwarder could not take is counted in its
                    // report as undelivered.
                    let _ = if data.is_empty() {
                        c.flush()
                    } else {
                        c.push(offset, data)
                    };
                }
            },
        ))
    });
    let config = ReceiverConfig {
        sink,
        version: match args.version {
            Version::V1 => WireVersion::V1,
            Version::TenG => WireVersion::TenG,
        },
        verify: args.verify,
        outputs: output_paths(args.out.as_ref(), args.febs.len()),
        receive_cpu: args.cpu,
        realtime: args.realtime,
        stop,
        ..ReceiverConfig::new(link_config(&args), host_config(&args))
    };
    let version = config.version;
    let receiver = linerate_readout::spawn(config)?;
    crate::console::say(format_args!(
        "fade recv: on {} (FADE version {}), from board{} {}; {}",
        args.interface,
        version.name(),
        if args.febs.len() == 1 { "" } else { "s" },
        args.febs
            .iter()
            .map(|m| super::mac_text(*m))
            .collect::<Vec<_>>()
            .join(", "),
        match (args.bytes, args.duration) {
            (Some(b), _) => format!("{b} bytes from each (or until Ctrl-C)"),
            (None, Some(d)) => format!("for {} s (or until Ctrl-C)", d.as_secs_f64()),
            (None, None) => "until Ctrl-C".into(),
        }
    ));
    let live = match args.view {
        Some(listen) => Some(LiveBoards::start(
            linerate_view::ViewConfig {
                listen,
                receive_cpu: args.cpu,
                ..linerate_view::ViewConfig::default()
            },
            &args.febs,
            receiver.counters(),
            receiver.live(),
        )?),
        None => None,
    };
    let counters = receiver.counters();
    let progress = Progress::start_with(
        !args.json,
        move || counters.total_bytes_read(),
        args.febs.len(),
        args.bytes,
        args.duration,
        args.cpu,
    );
    let report = receiver.join();
    progress.finish();
    if let Some(live) = live {
        live.stop();
    }
    let kafka = forwarder.map(|f| f.finish()).transpose()?;
    let report = report?;
    warn(&report);
    if args.json {
        let value = linerate_kafka::report::Forwarded {
            report: &report,
            forwarded: kafka.as_ref().map(ForwardedFields::of),
        };
        crate::json_println!("{}", serde_json::to_string(&value)?);
    } else {
        print_text(&report);
        if let Some(k) = &kafka {
            crate::cmd::kafka::say_forwarded(k);
        }
    }
    if let Some(k) = &kafka {
        crate::cmd::kafka::undelivered(k)?;
    }
    let failed = report.problems();
    if !failed.is_empty() {
        bail!("{}", failed.join("; "));
    }
    Ok(())
}

/// `fade recv --view`: the page, and a thread publishing the boards'
/// byte counters to it four times a second.
struct LiveBoards {
    view: linerate_view::ViewHandle,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl LiveBoards {
    fn start(
        view: linerate_view::ViewConfig,
        febs: &[[u8; 6]],
        counters: linerate_readout::receiver::ReadCounters,
        live: linerate_readout::LiveFigures,
    ) -> Result<LiveBoards> {
        use anyhow::Context;
        let listen = view.listen;
        let view = linerate_view::spawn(view, None).with_context(|| format!("--view {listen}"))?;
        crate::console::say(format_args!(
            "fade recv: live view at http://{}/ (no authentication)",
            view.local_addr()
        ));
        let names: Vec<String> = febs.iter().map(|m| super::mac_text(*m)).collect();
        let stats = view.stats();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let finished = done.clone();
        let thread = std::thread::Builder::new()
            .name("fade view".into())
            .spawn(move || {
                while !finished.load(std::sync::atomic::Ordering::Relaxed) {
                    let bytes = counters.bytes_read();
                    let figures = live.boards();
                    stats.publish(linerate_view::Counters {
                        source: "fade".into(),
                        running: true,
                        bytes: bytes.iter().sum(),
                        boards: names
                            .iter()
                            .zip(&bytes)
                            .enumerate()
                            .map(|(i, (name, b))| {
                                let f = figures.get(i).cloned().unwrap_or_default();
                                linerate_view::BoardCounters {
                                    name: name.clone(),
                                    bytes: *b,
                                    packets_received: f.received,
                                    retransmitted: f.retransmitted,
                                    ack_latency_p50_us: f.ack_latency_p50_us,
                                    ack_latency_p99_us: f.ack_latency_p99_us,
                                }
                            })
                            .collect(),
                        ..linerate_view::Counters::default()
                    });
                    std::thread::sleep(Duration::from_millis(250));
                }
            })
            .context("starting the live view's thread")?;
        Ok(LiveBoards { view, done, thread })
    }

    fn stop(self) {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = self.thread.join();
        self.view.stop();
    }
}

/// The readout `args` ask for, as the protocol core takes it (the host's
/// MAC is filled in from the interface).
fn host_config(args: &RecvArgs) -> HostConfig {
    HostConfig {
        boards: args.febs.clone(),
        limit_bytes: args.bytes,
        duration_ns: args.duration.map(|d| d.as_nanos() as u64),
        idle_timeout_ns: args.idle_timeout_ms.saturating_mul(1_000_000),
        start_retry_ns: START_RETRY.as_nanos() as u64,
        farewells: FAREWELLS,
        ring_bytes: args.ring_mib.max(1) << 20,
        fair: match args.controller {
            Controller::Fair => Some(FairConfig {
                link_bits_per_sec: args.link_rate.bits_per_sec(),
                overbook_percent: args.overbook,
                queue_target_ns: args.queue_target_us.saturating_mul(1000),
                ..FairConfig::default()
            }),
            Controller::AdaptiveDelay => None,
        },
        command: args.command.map(|c| UserCommand {
            command: c.command,
            arg: c.arg,
            config: CommandConfig {
                max_tries: args.command_tries,
                ..CommandConfig::default()
            },
        }),
        first_seq: first_seq(),
        ..HostConfig::default()
    }
}

/// How the receiver meets the wire, from `args`.
fn link_config(args: &RecvArgs) -> LinkConfig {
    LinkConfig {
        interface: args.interface.clone(),
        backend: args.backend,
        tx_stamp_every: args.tx_stamp_every,
        batch_acks: args.batch_acks,
        spin: Duration::from_micros(args.spin_us),
    }
}

/// `--out FILE`: FILE for one board; FILE.0, FILE.1, ... for several.
fn output_paths(out: Option<&PathBuf>, boards: usize) -> Vec<PathBuf> {
    match out {
        None => Vec::new(),
        Some(p) if boards == 1 => vec![p.clone()],
        Some(p) => (0..boards)
            .map(|i| PathBuf::from(format!("{}.{i}", p.display())))
            .collect(),
    }
}

/// Says on stderr what is not an error but needs a person's eye.
fn warn(report: &ReadoutReport) {
    for b in &report.boards {
        if let Some(f) = b.last_foreign {
            // The data is intact (the window checks it), but someone else
            // commands the board with this host's MAC: say so.
            eprintln!(
                "warning: board {}: answered {} START/STOP commands this host never sent (last: \
                 {f}): another host commands it with this host's MAC",
                b.mac, b.foreign_answers
            );
        }
    }
    if let (Some(drops), Some(frames)) = (report.backend.kernel_drops, report.backend.kernel_frames)
    {
        if drops > 0 {
            // Not an error (the boards resend), but the sign of a receive
            // thread that fell behind: say so where a person looks.
            eprintln!(
                "warning: the kernel dropped {drops} of {frames} frames for want of room in the \
                 receive socket or ring; the boards had to resend them"
            );
        }
    }
}

/// Parses `--link-rate` like the test bench does (`1g`, `950m`: bits/s).
fn parse_rate(s: &str) -> std::result::Result<Rate, String> {
    s.parse::<Rate>().map_err(|e| e.to_string())
}

fn print_text(report: &ReadoutReport) {
    for r in &report.boards {
        let latency = match (r.ack_latency_us_p50, r.ack_latency_us_p99) {
            (Some(p50), Some(p99)) => format!("p50 {p50:.1} us p99 {p99:.1} us"),
            _ => "none measured".into(),
        };
        println!(
            "board {}: {} bytes in {:.3} s, {:.1} Mbit/s, retransmit ratio {:.4}, ACK latency {latency}, {} duplicates, {} conflicts, {}{}",
            r.mac,
            r.bytes,
            r.seconds,
            r.mbit_per_s,
            r.retransmit_ratio,
            r.duplicates,
            r.conflicts,
            match r.verified_bytes {
                Some(v) => format!("{v} bytes verified, {} verify errors", r.verify_errors),
                None => "not verified".into(),
            },
            r.error.as_ref().map(|e| format!(", error: {e}")).unwrap_or_default(),
        );
    }
    println!(
        "total: {} bytes, {:.1} Mbit/s, Jain fairness {:.3}",
        report.bytes, report.mbit_per_s, report.jain_fairness
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_output_file_per_board_is_numbered_only_for_several() {
        let f = PathBuf::from("/tmp/s");
        assert!(output_paths(None, 3).is_empty());
        assert_eq!(output_paths(Some(&f), 1), [PathBuf::from("/tmp/s")]);
        assert_eq!(
            output_paths(Some(&f), 2),
            [PathBuf::from("/tmp/s.0"), PathBuf::from("/tmp/s.1")]
        );
    }
}
