//! `linerate fade feb`: an emulated FADE front-end board (v1 or FADE-10G)
//! on a raw socket. The protocol logic is `linerate_fade::board`; this
//! module only moves its packets and keeps time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use linerate_fade::adaptive_delay;
use linerate_fade::board::{BoardConfig, BoardPoll, Controller, Event, FadeBoard};
use linerate_fade::version::{self, TenG, V1};
use linerate_io::raw::{RawSocket, ETH_HEADER_LEN};
use linerate_testbed::Rate;

use super::{controller_name, parse_controller, parse_version, Version};

/// Ethernet bytes a frame costs on the wire beyond what the host sees:
/// preamble and start delimiter (8), FCS (4), inter-frame gap (12).
const WIRE_OVERHEAD: u64 = 24;

/// Frames sent with one `sendmmsg` when pacing allows back-to-back packets.
const SEND_BATCH: usize = 16;

/// Timer slack asked for the board's sleeps: the default 50 µs would make
/// every paced sleep late by up to two 1 GbE packet times.
const TIMER_SLACK_NS: libc::c_ulong = 1_000;

/// Waits shorter than this (a paced board's gap to its next packet) sleep
/// on a timer, not in the socket: an ACK arriving meanwhile then does not
/// wake the board, it is read at the next packet. On the bench the host's
/// ACK send runs the board's receive path inline, and a wakeup there is
/// an inter-processor interrupt on the host's receive core for every ACK,
/// work an FPGA board never asks of its host. Longer waits (a full window,
/// a retransmission timeout) sleep in the socket, so an ACK ends them.
const TIMER_ONLY_BELOW: Duration = Duration::from_micros(100);

/// Slots of the board's receive ring: 2 ms of ACKs at 1 GbE line rate,
/// time enough for a board sharing its core to come back and read them.
const DEFAULT_RING_SLOTS: usize = 256;

/// Arguments of `linerate fade feb`.
#[derive(Debug, Args)]
pub struct FebArgs {
    /// Interface to send and receive on, by name (eth1) or by one of its IPv4
    /// addresses.
    #[arg(long, value_name = "IF", value_parser = crate::interface_arg::name)]
    interface: String,
    /// FADE wire version: 1 (1024-byte packets, sets of 32) or 10g
    /// (FADE-10G: 8192-byte packets in jumbo frames, a window of 16,
    /// numbered commands answered in the DATA packets; needs an MTU of at
    /// least 8218).
    #[arg(long, default_value = "1", value_parser = parse_version)]
    version: Version,
    /// Stream bytes to send in all, e.g. 1GiB; the board exits once all
    /// are acknowledged. v1 rounds up to whole 1024-byte packets; 10g
    /// rounds up to 8-byte words and, when the stream ends part-way through
    /// an 8192-byte packet, sends that last packet flushed (type 0xa5a6,
    /// the count of valid words in its last 8 bytes). 1..=1125899906842624
    /// (1 PiB).
    #[arg(long, value_parser = crate::arg_range::bytes_in(1..=1 << 50), conflicts_with = "duration")]
    bytes: Option<u64>,
    /// Stop filling new packets after this many seconds of streaming,
    /// 0.001..=31536000; without a START within this time from launch the
    /// board gives up (exit status 1).
    #[arg(long, value_parser = crate::arg_range::seconds_in(0.001..=31_536_000.0))]
    duration: Option<Duration>,
    /// Line rate to pace to, in bits/s (`1g`, `950m`); unpaced if absent.
    #[arg(long, value_parser = parse_rate)]
    rate: Option<Rate>,
    /// Retransmit an unacknowledged packet after this many microseconds
    /// (the smallest timeout, unless --fixed-timeout), 1..=10000000.
    #[arg(long, default_value_t = 200, value_parser = crate::arg_range::u64_in(1..=10_000_000))]
    retransmit_us: u64,
    /// Keep the retransmission timeout fixed (the published core's
    /// behaviour) instead of adapting it to the measured round trip.
    #[arg(long)]
    fixed_timeout: bool,
    /// Resend only on timeout, as the v1 core does, instead of resending
    /// at once the packets sent before one that was acknowledged.
    #[arg(long)]
    no_fast_retransmit: bool,
    /// How to pace: `fair` keeps the gap the host's ACKs carry (linerate's
    /// fair sharing; the adaptive delay until the first hint), `seed`
    /// uses the published FADE core's adaptive delay only and ignores hints.
    #[arg(long, default_value = "fair", value_parser = parse_controller)]
    controller: Controller,
    /// Adaptive delay: retransmit ratio above which the delay grows, 0..=1
    /// (0: any retransmit).
    #[arg(long, default_value_t = 1.0 / 8.0, value_parser = crate::arg_range::float_in(0.0..=1.0))]
    t_high: f64,
    /// Adaptive delay: retransmit ratio below which the delay shrinks, 0..=1
    /// (0: only without retransmits).
    #[arg(long, default_value_t = 1.0 / 32.0, value_parser = crate::arg_range::float_in(0.0..=1.0))]
    t_low: f64,
    /// Adaptive delay: growth factor, 1..=16.
    #[arg(long, default_value_t = 1.25, value_parser = crate::arg_range::float_in(1.0..=16.0))]
    alpha_incr: f64,
    /// Adaptive delay: shrink factor, 0.01..=1.
    #[arg(long, default_value_t = 0.75, value_parser = crate::arg_range::float_in(0.01..=1.0))]
    alpha_decr: f64,
    /// Adaptive delay: packets between two evaluations, 1..=100000000.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    delay_window: u32,
    /// Waits shorter than this are spun, longer ones slept (on a timer up
    /// to 100 µs, in the socket beyond, so an ACK can end them).
    /// Spinning paces most precisely; a spinning board yields its core at
    /// every turn (see --no-yield), so boards sharing a core take turns.
    /// At most 1000000.
    #[arg(long, default_value_t = 200, value_parser = crate::arg_range::u64_in(0..=1_000_000))]
    spin_us: u64,
    /// Spin without giving the CPU up. By default a spinning board calls
    /// sched_yield at every turn, which costs a syscall when it has its
    /// core to itself and otherwise lets the boards (and the host) sharing
    /// its core take turns without sleeping on timers (dear on a virtual
    /// machine). Spinning through its time slice, each of three boards on
    /// one core held the others' packets back: 500 against 913 Mbit/s
    /// in total with `fair` (docs/fade.md, *Measured*).
    #[arg(long, conflicts_with = "yield_cpu")]
    no_yield: bool,
    /// Yield while spinning: the default, kept for scripts that ask for it.
    #[arg(long = "yield", hide = true)]
    yield_cpu: bool,
    /// Take the host's frames (ACKs, commands) from a TPACKET_V2 receive
    /// ring of this many slots, which the board looks at without a
    /// syscall, as an FPGA reads its receive FIFO; 0 looks with a
    /// `recvmmsg` call each time; at most 65536. The ring is the default because the
    /// emulator should cost its core as little as the hardware it stands
    /// for: with `recvmmsg`, the looks took a quarter of the boards' core
    /// at 1 Gbit/s, and on a bench where boards, switch and host share
    /// cores that capped the throughput (docs/fade.md, *Measured*). On
    /// such a bench the kernel copies each ACK into the ring inside the
    /// host's send, where without a ring it only queues it; profiled, the
    /// host's cost per ACK sent moved little (about 6.3 against 6.0 µs).
    #[arg(long, default_value_t = DEFAULT_RING_SLOTS, value_parser = crate::arg_range::usize_in(0..=65_536))]
    ring_slots: usize,
    /// While packets are due back to back or nearly, look for the host's
    /// frames at most once per this many microseconds, 0..=1000000 (0:
    /// before every packet); a board with nothing to send always looks first.
    #[arg(long, default_value_t = 0, value_parser = crate::arg_range::u64_in(0..=1_000_000))]
    poll_us: u64,
    /// Let another host take the board over once its owner (the host whose
    /// START it runs) has sent nothing for this many milliseconds,
    /// 1..=3600000. Without it, commands and ACKs from any other MAC are
    /// ignored (and counted) until the owner sends RESET.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    takeover_after_ms: Option<u64>,
    /// Print the board's counters as one JSON object when it exits.
    #[arg(long)]
    json: bool,
    /// Run on this CPU only, as `taskset -c N` would (every thread of the
    /// command): 0..=4095, 0 is the first CPU, and it must be online.
    #[arg(long, value_parser = crate::arg_range::online_cpu())]
    cpu: Option<usize>,
}

/// Runs the emulated board until its stream (--bytes, --duration) is
/// over, or SIGINT/SIGTERM. The stream is over when every packet is
/// acknowledged or when the owner RESETs the board after streaming began.
/// Without a limit a board never exits on a command: RESET returns it to
/// waiting for START, and commands from other hosts are ignored.
pub fn run(args: FebArgs) -> Result<()> {
    crate::pin_process(args.cpu)?;
    match args.version {
        Version::V1 => run_version::<V1>(args),
        Version::TenG => run_version::<TenG>(args),
    }
}

/// [`run`] for wire version `W`.
fn run_version<W: version::Version>(args: FebArgs) -> Result<()> {
    let min_gap_ns = args.rate.map_or(0, |r| {
        let bits = (ETH_HEADER_LEN as u64 + W::DATA_PACKET_LEN as u64 + WIRE_OVERHEAD) * 8;
        bits.saturating_mul(1_000_000_000) / r.bits_per_sec().max(1)
    });
    let config = BoardConfig {
        retransmit_timeout_ns: args.retransmit_us.saturating_mul(1000),
        adaptive_timeout: !args.fixed_timeout,
        fast_retransmit: !args.no_fast_retransmit,
        min_gap_ns,
        delay: adaptive_delay::Config {
            t_high: args.t_high,
            t_low: args.t_low,
            alpha_incr: args.alpha_incr,
            alpha_decr: args.alpha_decr,
            window: args.delay_window,
            initial_ns: 0,
            ..adaptive_delay::Config::default()
        },
        controller: args.controller,
        takeover_after_ns: args
            .takeover_after_ms
            .map(|ms| ms.saturating_mul(1_000_000)),
        limit_bytes: args.bytes,
    };
    let mut board = FadeBoard::<W>::new(config).context("adaptive delay parameters")?;
    let spin_ns = args.spin_us.saturating_mul(1000);
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer and affects only
    // this thread's timers; a failure just leaves the default slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, TIMER_SLACK_NS, 0, 0, 0);
    }
    let mut sock = super::open_socket(&args.interface, args.version, args.ring_slots)?;
    let stop = crate::stop_signal::on_sigint_or_sigterm()?;
    let board_mac = linerate_wire::ethernet::MacAddr(sock.mac());
    crate::console::say(format_args!(
        "fade feb: board {board_mac} on {} (FADE version {}), waiting for a host's START \
         (linerate fade recv --feb {board_mac}); {}",
        args.interface,
        W::NAME,
        match (args.bytes, args.duration) {
            (Some(b), _) => format!("{b} bytes to send"),
            (None, Some(d)) => format!("streams for {} s after START", d.as_secs_f64()),
            (None, None) => "streams until RESET or Ctrl-C".into(),
        }
    ));
    let confirmed = Arc::new(AtomicU64::new(0));
    let progress = super::progress::Progress::start(
        !args.json,
        &vec![confirmed.clone()],
        args.bytes,
        args.duration,
        None,
    );
    let mut no_start = false;

    let clock = Instant::now();
    let now_ns = || clock.elapsed().as_nanos() as u64;
    let mut frames = vec![vec![0u8; ETH_HEADER_LEN + W::DATA_PACKET_LEN]; SEND_BATCH];
    let mut link = Link::default();
    let mut finished_filling = false;
    let mut send_failures = 0u64;

    let poll_ns = args.poll_us.saturating_mul(1000);
    let mut last_poll = 0u64;
    let mut idle = true;
    while !stop.load(Ordering::Relaxed) {
        // Control packets first: START, STOP, RESET, ACKs; while packets
        // are due, looked for at most once per --poll-us.
        let t = now_ns();
        if idle || t.saturating_sub(last_poll) >= poll_ns {
            last_poll = t;
            sock.recv(Some(Duration::ZERO))?;
            link.absorb(&mut board, &sock, t);
            confirmed.store(
                board.counters().confirmed.saturating_mul(W::PACKET_BYTES),
                Ordering::Relaxed,
            );
        }
        idle = true;
        let limited = args.bytes.is_some() || args.duration.is_some();
        if board.is_done() || (limited && link.reset_after_start) {
            break;
        }
        let now = now_ns();
        // No host came within --duration: give up rather than wait forever.
        if let (Some(d), None) = (args.duration, link.streaming_since) {
            if now >= d.as_nanos() as u64 {
                no_start = true;
                break;
            }
        }
        if let (Some(d), Some(t0), false) = (args.duration, link.streaming_since, finished_filling)
        {
            if now.saturating_sub(t0) >= d.as_nanos() as u64 {
                board.finish();
                finished_filling = true;
            }
        }
        let mut wait = Some(Duration::from_millis(10));
        if let Some(dest) = link.host {
            // BoardPoll what is due, batched while packets may go back to back.
            let mut n = 0;
            while n < SEND_BATCH {
                let frame = &mut frames[n];
                match board.poll_transmit(now_ns(), &mut frame[ETH_HEADER_LEN..]) {
                    BoardPoll::Send(len) => {
                        sock.write_header(frame, dest);
                        frame.truncate(ETH_HEADER_LEN + len);
                        n += 1;
                        if board.gap_ns() > 0 {
                            break;
                        }
                    }
                    BoardPoll::WaitUntil(t) => {
                        let left = t.saturating_sub(now_ns());
                        wait = (left > 0 && left >= spin_ns)
                            .then(|| Duration::from_nanos(left - spin_ns / 2));
                        break;
                    }
                    BoardPoll::Idle => break,
                }
            }
            if n > 0 {
                idle = false;
                let refs: Vec<&[u8]> = frames[..n].iter().map(|f| f.as_slice()).collect();
                let sent = sock.send_batch(&refs)?;
                send_failures += (n - sent) as u64;
                for f in &mut frames[..n] {
                    f.resize(ETH_HEADER_LEN + W::DATA_PACKET_LEN, 0);
                }
                continue;
            }
        }
        // Nothing due: spin on the shortest waits, sleep on a timer until
        // the next paced packet, in the socket on long waits.
        if wait.is_none() && (args.yield_cpu || !args.no_yield) {
            // SAFETY: sched_yield takes no arguments and cannot fail on Linux.
            unsafe {
                libc::sched_yield();
            }
        }
        if let Some(w) = wait {
            if w < TIMER_ONLY_BELOW {
                std::thread::sleep(w);
            } else {
                sock.recv(Some(w))?;
                link.absorb(&mut board, &sock, now_ns());
            }
        }
    }
    progress.finish();
    let c = board.counters();
    let end = now_ns();
    let seconds = link
        .streaming_since
        .map_or(0.0, |t0| end.saturating_sub(t0) as f64 / 1e9);
    let bytes_confirmed = c.confirmed.saturating_mul(W::PACKET_BYTES);
    let bytes_confirmed = args
        .bytes
        .map_or(bytes_confirmed, |b| bytes_confirmed.min(b));
    let error = no_start.then(|| {
        format!(
            "no host sent START to board {board_mac} on {} within --duration {} s",
            args.interface,
            args.duration.map_or(0.0, |d| d.as_secs_f64())
        )
    });
    if c.foreign_commands + c.foreign_acks > 0 {
        // Someone else on the segment talked to this board: worth a line
        // where a person looks (docs/security.md).
        eprintln!(
            "warning: ignored {} commands and {} ACKs from hosts other than the board's owner",
            c.foreign_commands, c.foreign_acks
        );
    }
    if args.json {
        // Frames from the host the board's socket had no room for: ACKs
        // lost on the board's side, which only retransmission repairs.
        let kernel = sock.kernel_counts();
        crate::json_println!(
            "{}",
            serde_json::json!({
                "version": W::NAME,
                "sent": c.sent,
                "resent": c.resent,
                "acks": c.acks,
                "stale_acks": c.stale_acks,
                "rejected": c.rejected,
                "send_refused": send_failures,
                "confirmed_packets": c.confirmed,
                "commands": c.commands,
                "foreign_commands": c.foreign_commands,
                "foreign_acks": c.foreign_acks,
                "clamped_hints": c.clamped_hints,
                "takeovers": c.takeovers,
                "owner": board.owner().map(super::mac_text),
                "response_packets": c.response_packets,
                "delay_ns": board.delay_ns(),
                "controller": controller_name(args.controller),
                "hint_gap_ns": board.hint_gap_ns(),
                "retransmit_timeout_ns": board.retransmit_timeout_ns(),
                "done": board.is_done(),
                "reset": link.reset_after_start,
                "ring_slots": args.ring_slots,
                "kernel_frames": kernel.as_ref().ok().map(|k| k.frames),
                "kernel_drops": kernel.as_ref().ok().map(|k| k.drops),
                "mac": board_mac.to_string(),
                "bytes_confirmed": bytes_confirmed,
                "seconds": seconds,
                "error": error,
            })
        );
    } else {
        println!(
            "fade feb {board_mac}: {bytes_confirmed} bytes confirmed in {seconds:.3} s ({}), \
             {} packets sent, {} resent, {} ACKs; {}",
            match seconds > 0.0 {
                true => format!("{:.1} Mbit/s", bytes_confirmed as f64 * 8.0 / seconds / 1e6),
                false => "rate n/a".into(),
            },
            c.sent,
            c.resent,
            c.acks,
            if board.is_done() {
                "every byte acknowledged"
            } else if link.reset_after_start {
                "the host sent RESET"
            } else if no_start {
                "no host"
            } else {
                "stopped before the end"
            }
        );
    }
    if let Some(e) = error {
        anyhow::bail!(e);
    }
    Ok(())
}

/// What the board knows about its host.
#[derive(Debug, Default)]
struct Link {
    /// MAC of the host that sent START: where DATA goes.
    host: Option<[u8; 6]>,
    /// When the first START arrived (board clock, ns).
    streaming_since: Option<u64>,
    /// The owner's RESET arrived after streaming began: the host is done
    /// with this stream.
    reset_after_start: bool,
}

impl Link {
    /// Feeds the frames of the last `recv` to the board.
    fn absorb<W: version::Version>(
        &mut self,
        board: &mut FadeBoard<W>,
        sock: &RawSocket,
        now: u64,
    ) {
        for f in sock.frames() {
            let (Some(dst), Some(src), Some(payload)) = (
                f.data.get(..6),
                f.data.get(6..12),
                f.data.get(ETH_HEADER_LEN..),
            ) else {
                continue;
            };
            if dst != sock.mac() && dst != [0xff; 6] {
                continue;
            }
            let mut mac = [0u8; 6];
            mac.copy_from_slice(src);
            match board.handle_frame(mac, payload, now) {
                Ok(Event::Started) => {
                    self.host = Some(mac);
                    self.streaming_since.get_or_insert(now);
                }
                Ok(Event::Reset) => self.reset_after_start |= self.streaming_since.is_some(),
                // A FADE-10G command before any START: its answer goes
                // back to whoever asked.
                Ok(Event::Stopped | Event::User { .. }) => {
                    self.host.get_or_insert(mac);
                }
                _ => {}
            }
        }
    }
}

/// Parses `--rate` like the test bench does (`1g`, `950m`: bits/s).
fn parse_rate(s: &str) -> std::result::Result<Rate, String> {
    s.parse::<Rate>().map_err(|e| e.to_string())
}
