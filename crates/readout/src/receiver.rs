//! `linerate fade recv`: the host side. One busy-polling thread (it sleeps
//! in the socket only after a moment of silence) receives every board's
//! DATA and hands it to the readout's protocol core
//! (`linerate_fade::host`), which ACKs each packet at once and copies new
//! ones into the board's ring; one reader thread per board consumes its
//! ring in place (verifying and writing it out if asked). Both wire
//! versions run the same loop, generic over `linerate_fade::version`.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use linerate_fade::board::Controller;
use linerate_fade::command::CommandConfig;
use linerate_fade::fair::FairConfig;
use linerate_fade::host::{BoardFailure, HostConfig, UserCommand};
use linerate_fade::ring::RingReader;
use linerate_fade::stream;
use linerate_fade::version::{self as fade_version, TenG, V1};
use linerate_readout::link::{parse_backend, Backend};
use linerate_readout::{LinkConfig, Readout};
use linerate_testbed::Rate;

use super::command::{completion_json, first_seq, parse_user_command, UserCommandArg};
use super::progress::{Progress, ReadCounters};
use super::report::{self, BoardReport};
use super::{controller_name, parse_controller, parse_mac, parse_version, Version};

/// How long a board may stay silent before START is sent again (START can
/// be lost like any frame).
const START_RETRY: Duration = Duration::from_millis(50);

/// Nice value of the reader threads (the receive thread keeps 0).
const READER_NICE: libc::c_int = 10;

/// Bytes a reader lets gather before it is woken (FADE's wakeup
/// threshold): 1 MiB, about 9 ms of a 1 GbE board, so that a reader
/// keeping up is woken some hundred times a second rather than at every
/// 64 KiB. Each wake is a futex call in the receive thread and, with the
/// reader on another core, an interrupt there: at 64 KiB the wakes took 3 %
/// of the receive core on the bench. The end of the stream and errors
/// wake the reader whatever the threshold.
const READER_WAKEUP: u64 = 1 << 20;

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
    /// on seed 004's adaptive delay.
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
}

/// Runs the receiver; an error means some board did not deliver all it
/// was asked for, broke its stream, or failed to verify.
pub fn run(args: RecvArgs) -> Result<()> {
    if args.bytes.is_none() && args.duration.is_none() {
        bail!("say how much to receive: --bytes N or --duration S");
    }
    match args.version {
        Version::V1 if args.command.is_some() => {
            bail!("--command needs --version 10g: FADE v1 has no user commands")
        }
        Version::V1 => run_version::<V1>(args),
        Version::TenG => run_version::<TenG>(args),
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
            Controller::Seed => None,
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

/// [`run`] for wire version `W`: a [`Readout`] on this thread, a reader
/// thread per board.
fn run_version<W: fade_version::Version>(args: RecvArgs) -> Result<()> {
    let link = LinkConfig {
        interface: args.interface.clone(),
        backend: args.backend,
        tx_stamp_every: args.tx_stamp_every,
        batch_acks: args.batch_acks,
        spin: Duration::from_micros(args.spin_us),
    };
    let (mut readout, rings) = Readout::<W>::open(link, host_config(&args))?;
    crate::console::say(format_args!(
        "fade recv: on {} (FADE version {}), from board{} {}; {}",
        args.interface,
        W::NAME,
        if args.febs.len() == 1 { "" } else { "s" },
        args.febs
            .iter()
            .map(|m| linerate_wire::ethernet::MacAddr(*m).to_string())
            .collect::<Vec<_>>()
            .join(", "),
        match (args.bytes, args.duration) {
            (Some(b), _) => format!("{b} bytes from each (or until Ctrl-C)"),
            (None, Some(d)) => format!("for {} s (or until Ctrl-C)", d.as_secs_f64()),
            (None, None) => "until Ctrl-C".into(),
        }
    ));
    let stop = crate::stop_signal::on_sigint_or_sigterm()?;
    let mut readers = Vec::new();
    let receive_cpu = args.cpu;
    let read: ReadCounters = rings.iter().map(|_| Arc::new(AtomicU64::new(0))).collect();
    for ((i, reader), read) in rings.into_iter().enumerate().zip(read.clone()) {
        let out = match &args.out {
            Some(p) if args.febs.len() == 1 => Some(p.clone()),
            Some(p) => Some(PathBuf::from(format!("{}.{i}", p.display()))),
            None => None,
        };
        let file = out
            .map(|p| File::create(&p).with_context(|| format!("creating {}", p.display())))
            .transpose()?;
        let verify = args.verify;
        readers.push(
            std::thread::Builder::new()
                .name(format!("fade-read-{i}"))
                .spawn(move || {
                    if let Some(c) = receive_cpu {
                        linerate_io::sched::keep_current_thread_off(c);
                    }
                    consume(reader, verify, file, &read)
                })
                .context("starting a reader thread")?,
        );
    }
    if let Some(cpu) = args.cpu {
        pin(cpu)?;
    }
    if let Some(prio) = args.realtime {
        realtime(prio)?;
    }
    let progress = Progress::start(!args.json, &read, args.bytes, args.duration, args.cpu);
    let result = readout.run(&stop);
    progress.finish();
    result?;
    let ended = readout.ended_ns().unwrap_or_else(|| readout.now_ns());

    let limit = args.bytes;
    let mut reports = Vec::new();
    let timings = readout.timings().to_vec();
    for ((o, t), r) in readout.outcomes().into_iter().zip(timings).zip(readers) {
        let (bytes_received, verify_errors, io_error) = r
            .join()
            .map_err(|_| anyhow::anyhow!("a reader thread panicked"))?;
        let end = o.done_ns.unwrap_or(ended);
        let seconds = o
            .first_data_ns
            .map_or(0.0, |f| end.saturating_sub(f) as f64 / 1e9);
        let complete = o.complete(limit) && (!args.verify || bytes_received >= o.delivered);
        let command = match (&args.command, o.command) {
            (None, _) => None,
            (Some(_), Some(Ok(c))) => Some(completion_json(&c)),
            (Some(_), Some(Err(e))) => Some(serde_json::json!({ "error": e.to_string() })),
            (Some(_), None) if o.command_sent => Some(serde_json::json!({
                "error": "no answer before the stream ended"
            })),
            (Some(_), None) => Some(serde_json::json!({
                "error": "never sent: the board did not stream"
            })),
        };
        reports.push(BoardReport {
            command,
            mac: o.mac.to_string(),
            bytes: o.delivered,
            seconds,
            counters: o.counters,
            latency: t.latency,
            returned: t.returned,
            pickup: t.pickup,
            verify_errors,
            bytes_received,
            verified_bytes: args.verify.then_some(bytes_received),
            error: o
                .failure
                .as_ref()
                .map(|f| failure_text::<W>(f, &args.interface))
                .or(io_error),
            complete,
            foreign_answers: o.foreign_answers,
        });
        if let Some(f) = o.last_foreign {
            // The data is intact (the window checks it), but someone else
            // commands the board with this host's MAC: say so.
            eprintln!(
                "warning: board {}: answered {} START/STOP commands this host never sent (last: \
                 {f}): another host commands it with this host's MAC",
                o.mac, o.foreign_answers
            );
        }
    }
    let seconds = ended as f64 / 1e9;
    let mut value = report::json(&reports, seconds);
    value["controller"] = controller_name(args.controller).into();
    value["version"] = W::NAME.into();
    let backend = readout.backend_report();
    if let Ok(k) = &backend.socket {
        if k.drops > 0 {
            // Not an error (the boards resend), but the sign of a receive
            // thread that fell behind: say so where a person looks.
            eprintln!(
                "warning: the kernel dropped {} of {} frames for want of room in the receive \
                 socket or ring; the boards had to resend them",
                k.drops, k.frames
            );
        }
    }
    value["backend"] = report::backend_json(&backend);
    let work = readout.thread_work();
    value["receive_thread"] = serde_json::json!({
        "frames": work.frames,
        "batches": work.batches,
        "work_us_per_frame": work.us_per_frame(),
        "busy_share": work.busy_share(),
    });
    let stamps = readout.ack_stamps();
    value["ack_sent_at"] = stamps.sent_at.name().into();
    value["ack_stamps"] = report::stamps_json(&stamps);
    if let Some(f) = readout.host().fair() {
        value["fair_rounds"] = f.rounds().into();
        value["fair_capacity_bps"] = f.capacity_bps().into();
        value["fair_queue_cuts"] = f.queue_cuts().into();
        value["fair_late_rounds"] = f.late_rounds().into();
    }
    if args.json {
        crate::json_println!("{value}");
    } else {
        print_text(&reports, &value);
    }
    let failed: Vec<String> = reports
        .iter()
        .filter_map(|r| {
            let command_error = r.command.as_ref().and_then(|c| c["error"].as_str());
            if let Some(e) = &r.error {
                Some(e.clone())
            } else if r.counters.conflicts > 0 {
                Some(format!(
                    "board {}: {} packets arrived again with different bytes (conflicts): some \
                     delivered data may be forged or corrupt",
                    r.mac, r.counters.conflicts
                ))
            } else if let Some(e) = command_error {
                Some(format!("board {}: --command: {e}", r.mac))
            } else if !r.complete {
                Some(format!("board {}: only {} bytes arrived", r.mac, r.bytes))
            } else if r.verify_errors > 0 {
                Some(format!(
                    "board {}: {} words failed verification",
                    r.mac, r.verify_errors
                ))
            } else {
                None
            }
        })
        .collect();
    if !failed.is_empty() {
        bail!("{}", failed.join("; "));
    }
    Ok(())
}

/// The reader of one board: waits for data, checks and writes it in
/// place, commits it. Returns (bytes read, verify errors, I/O error).
fn consume(
    mut reader: RingReader,
    verify: bool,
    mut file: Option<File>,
    read: &AtomicU64,
) -> (u64, u64, Option<String>) {
    reader.set_wakeup(READER_WAKEUP.min(reader.capacity() as u64 / 4));
    // Below the receive thread: when both share a core, a reader waking up
    // should not preempt the thread whose every microsecond is ACK latency.
    // SAFETY: setpriority with PRIO_PROCESS and 0 changes only the calling
    // thread on Linux; a failure leaves the default priority.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, READER_NICE);
    }
    let mut errors = 0u64;
    let mut io_error = None;
    loop {
        let p = reader.wait(Duration::from_millis(100));
        if p.available == 0 && (p.eof || p.error.is_some()) {
            return (p.tail, errors, io_error);
        }
        let data = reader.data();
        let len = data.len() as u64;
        if verify {
            errors += stream::mismatches(p.tail, data);
        }
        if let Some(f) = file.as_mut() {
            if let Err(e) = f.write_all(data) {
                io_error = Some(format!("writing the output file: {e}"));
                file = None;
            }
        }
        // `len` is at most what was available.
        if reader.commit(len).is_err() {
            return (p.tail, errors, Some("ring commit refused".into()));
        }
        read.store(p.tail + len, Ordering::Relaxed);
    }
}

/// Parses `--link-rate` like the test bench does (`1g`, `950m`: bits/s).
fn parse_rate(s: &str) -> std::result::Result<Rate, String> {
    s.parse::<Rate>().map_err(|e| e.to_string())
}

/// Puts the calling thread under SCHED_FIFO at `prio`.
fn realtime(prio: i32) -> Result<()> {
    let param = libc::sched_param {
        sched_priority: prio,
    };
    // SAFETY: pid 0 is the calling thread; `param` outlives the call.
    let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
    if r != 0 {
        bail!(
            "SCHED_FIFO priority {prio} for the receive thread: {} (needs root or CAP_SYS_NICE)",
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

/// What went wrong with a board, in words. A board that never answered
/// START is probed in the other wire version: a version mismatch looks
/// like silence from this side, so name it when it is one.
fn failure_text<W: fade_version::Version>(failure: &BoardFailure, interface: &str) -> String {
    let text = failure.to_string();
    let BoardFailure::Silent {
        mac,
        delivered: 0,
        foreign: None,
        ..
    } = failure
    else {
        return text;
    };
    match linerate_readout::probe::other_version_spoken(
        interface,
        mac.0,
        W::NAME,
        Duration::from_millis(300),
    ) {
        Ok(Some(other)) => format!(
            "{text}; but it answered a FADE {other} START: the board speaks FADE version \
             {other}, this receiver {} (give --version {other} on both ends)",
            W::NAME
        ),
        _ => text,
    }
}

/// Pins the calling thread to `cpu`.
fn pin(cpu: usize) -> Result<()> {
    linerate_metrics::pin_current_thread(cpu)
        .with_context(|| format!("pinning the receive thread to CPU {cpu}"))
}

fn print_text(reports: &[BoardReport], total: &serde_json::Value) {
    for r in reports {
        let latency = match (report::us(&r.latency, 50.0), report::us(&r.latency, 99.0)) {
            (Some(p50), Some(p99)) => format!("p50 {p50:.1} us p99 {p99:.1} us"),
            _ => "none measured".into(),
        };
        println!(
            "board {}: {} bytes in {:.3} s, {:.1} Mbit/s, retransmit ratio {:.4}, ACK latency {latency}, {} duplicates, {} conflicts, {}{}",
            r.mac,
            r.bytes,
            r.seconds,
            r.mbit_per_s(),
            r.retransmit_ratio(),
            r.counters.duplicates,
            r.counters.conflicts,
            match r.verified_bytes {
                Some(v) => format!("{v} bytes verified, {} verify errors", r.verify_errors),
                None => "not verified".into(),
            },
            r.error.as_ref().map(|e| format!(", error: {e}")).unwrap_or_default(),
        );
    }
    println!(
        "total: {} bytes, {:.1} Mbit/s, Jain fairness {:.3}",
        total["bytes"],
        total["mbit_per_s"].as_f64().unwrap_or(0.0),
        total["jain_fairness"].as_f64().unwrap_or(0.0)
    );
}
