//! `linerate fade feb`: an emulated FADE front-end board (v1 or FADE-10G)
//! on a raw socket. The board runs in `linerate_device::board`; this
//! module turns the arguments into its configuration, shows its progress
//! and prints its report.

use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use linerate_device::board::{self, BoardConfig, BoardReport, DelayConfig, WireVersion};
use linerate_fade::board::Controller;
use linerate_testbed::Rate;

use super::{parse_controller, parse_version, Version};

/// How often the command looks for Ctrl-C or SIGTERM while the board runs.
const SIGNAL_POLL: Duration = Duration::from_millis(20);

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
    #[arg(long, default_value_t = board::DEFAULT_RING_SLOTS, value_parser = crate::arg_range::usize_in(0..=65_536))]
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
    let json = args.json;
    let (bytes, duration) = (args.bytes, args.duration);
    let config = config(args);
    let interface = config.interface.clone();
    let stop = crate::stop_signal::on_sigint_or_sigterm()?;
    let handle = board::spawn(config)?;
    let mac = handle.mac();
    crate::console::say(format_args!(
        "fade feb: board {mac} on {interface} (FADE version {}), waiting for a host's START \
         (linerate fade recv --feb {mac}); {}",
        handle.version().name(),
        match (bytes, duration) {
            (Some(b), _) => format!("{b} bytes to send"),
            (None, Some(d)) => format!("streams for {} s after START", d.as_secs_f64()),
            (None, None) => "streams until RESET or Ctrl-C".into(),
        }
    ));
    let progress = super::progress::Progress::start(
        !json,
        &vec![handle.confirmed_bytes_counter()],
        bytes,
        duration,
        None,
    );
    while !stop.load(std::sync::atomic::Ordering::Relaxed) && !handle.wait_timeout(SIGNAL_POLL) {}
    let report = handle.stop();
    progress.finish();
    // The board's errors name its interface.
    let report = report?;
    present(&report, json)?;
    if let Some(e) = report.error {
        anyhow::bail!(e);
    }
    Ok(())
}

/// The board's configuration from the command's arguments.
fn config(args: FebArgs) -> BoardConfig {
    BoardConfig {
        interface: args.interface,
        version: match args.version {
            Version::V1 => WireVersion::V1,
            Version::TenG => WireVersion::TenG,
        },
        limit_bytes: args.bytes,
        duration: args.duration,
        rate_bits_per_sec: args.rate.map(Rate::bits_per_sec),
        retransmit_timeout: Duration::from_micros(args.retransmit_us),
        adaptive_timeout: !args.fixed_timeout,
        fast_retransmit: !args.no_fast_retransmit,
        controller: args.controller,
        delay: DelayConfig {
            t_high: args.t_high,
            t_low: args.t_low,
            alpha_incr: args.alpha_incr,
            alpha_decr: args.alpha_decr,
            window: args.delay_window,
            initial_ns: 0,
            ..DelayConfig::default()
        },
        takeover_after: args.takeover_after_ms.map(Duration::from_millis),
        spin: Duration::from_micros(args.spin_us),
        yield_while_spinning: args.yield_cpu || !args.no_yield,
        ring_slots: args.ring_slots,
        poll_interval: Duration::from_micros(args.poll_us),
    }
}

/// Prints the report: one JSON object with --json (the keys sorted, as
/// `serde_json::Value` keeps them), else one summary line.
fn present(report: &BoardReport, json: bool) -> Result<()> {
    if report.foreign_commands + report.foreign_acks > 0 {
        // Someone else on the segment talked to this board: worth a line
        // where a person looks (docs/security.md).
        eprintln!(
            "warning: ignored {} commands and {} ACKs from hosts other than the board's owner",
            report.foreign_commands, report.foreign_acks
        );
    }
    if json {
        let value = serde_json::to_value(report).context("the board's report as JSON")?;
        crate::json_println!("{value}");
        return Ok(());
    }
    println!(
        "fade feb {}: {} bytes confirmed in {:.3} s ({}), \
         {} packets sent, {} resent, {} ACKs; {}",
        report.mac,
        report.bytes_confirmed,
        report.seconds,
        match report.bits_per_sec() {
            Some(bits) => format!("{:.1} Mbit/s", bits / 1e6),
            None => "rate n/a".into(),
        },
        report.sent,
        report.resent,
        report.acks,
        if report.done {
            "every byte acknowledged"
        } else if report.reset {
            "the host sent RESET"
        } else if report.error.is_some() {
            "no host"
        } else {
            "stopped before the end"
        }
    );
    Ok(())
}

/// Parses `--rate` like the test bench does (`1g`, `950m`: bits/s).
fn parse_rate(s: &str) -> std::result::Result<Rate, String> {
    s.parse::<Rate>().map_err(|e| e.to_string())
}
