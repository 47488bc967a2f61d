//! `linerate noise`: how quiet each CPU is, and which latency tails that
//! puts out of reach for a receive thread there.
//!
//! A thread pinned to the CPU reads the clock in a tight loop; every jump
//! between two readings is time the CPU spent on something else (the
//! timer tick, interrupts, other tasks, the hypervisor). The report gives
//! the gaps, the interrupts and hypervisor steal behind them, the floor
//! each latency target meets (the share of events no software on that CPU
//! can handle in time), and, given a frame rate and the work per frame, a
//! replay of that load against the gaps measured.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use linerate_metrics::noise::{
    choose_cpus, survey, CpuReport, Load, NoiseReport, QueueEstimate, SurveyConfig, SurveyObserver,
    SurveyReport,
};

/// Arguments of `linerate noise`.
#[derive(Debug, Args)]
#[command(after_help = "\
The floor for a target T is the share of moments at which the CPU goes on being away \
for more than T: an event (a frame, say) arriving then waits longer than T whatever \
the receiver does. A floor of 1 % or more puts a p99 under T out of reach on that CPU; \
0.1 % or more, a p99.9. Run it with the machine as it will be during the stream: pin the \
load elsewhere, and keep housekeeping off the CPU (IRQ affinity, kernel thread affinity, \
and where the kernel allows, the nohz_full=, isolcpus= and rcu_nocbs= boot parameters).

Examples:
  linerate noise --cpu 1
  linerate noise --cpu 1 --duration 10 --target-us 5,30 --frame-rate 111k --work-us 1,2.5,5 --json")]
pub struct NoiseArgs {
    /// CPUs to probe, one after the other (e.g. `1` or `0,2-3`) [default:
    /// every online CPU].
    #[arg(long, value_name = "LIST", value_parser = parse_cpu_list)]
    cpu: Option<CpuList>,
    /// How long to probe each CPU, in seconds, 0.01..=86400 (shorter says
    /// nothing: the clock loop needs time to meet the CPU's interruptions).
    #[arg(long, default_value = "3", value_parser = crate::arg_range::seconds_in(0.01..=86_400.0))]
    duration: Duration,
    /// Shortest jump between two clock readings counted as a gap, in µs,
    /// 0.001..=60000000.
    #[arg(long, default_value_t = 1.0, value_parser = crate::arg_range::float_in(0.001..=60e6))]
    threshold_us: f64,
    /// Latency targets to compute the floor for, in µs (comma-separated),
    /// each 0.001..=60000000.
    #[arg(long, value_name = "US", value_delimiter = ',', default_value = "10,30,100",
          value_parser = crate::arg_range::float_in(0.001..=60e6))]
    target_us: Vec<f64>,
    /// Replay a stream of this many events (frames) per second against
    /// the gaps measured (`111k` is a 1 GbE FADE v1 stream); needs
    /// --work-us.
    #[arg(long, value_name = "HZ", requires = "work_us", value_parser = parse_rate)]
    frame_rate: Option<f64>,
    /// CPU time the receive thread spends per event, in µs, for the replay
    /// (comma-separated: one replay each; `linerate fade recv --json`
    /// reports its own as `receive_thread.work_us_per_frame`); each
    /// 0.001..=60000000.
    #[arg(long, value_name = "US", requires = "frame_rate", value_delimiter = ',',
          value_parser = crate::arg_range::float_in(0.001..=60e6))]
    work_us: Vec<f64>,
    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,
}

/// CPUs named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuList(Vec<usize>);

/// Parses `1`, `0,2` or `0-3,6` into CPU numbers, in order, without
/// repeats (the kernel's list syntax, read by doctor's parser).
fn parse_cpu_list(s: &str) -> std::result::Result<CpuList, String> {
    let mut cpus = linerate_metrics::cpu::parse_cpu_list(s)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| format!("bad CPU list {s:?}: expected numbers and ranges like 0,2-3"))?;
    let mut seen = std::collections::HashSet::new();
    cpus.retain(|c| seen.insert(*c));
    Ok(CpuList(cpus))
}

/// Parses an event rate: a number with an optional k or M suffix.
fn parse_rate(s: &str) -> std::result::Result<f64, String> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'M')) => (&t[..i], 1e6),
        _ => (t, 1.0),
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * mult <= 1e9 => Ok(v * mult),
        _ => Err(format!(
            "bad rate {s:?}: expected events per second, e.g. 111000 or 111k (at most 1e9)"
        )),
    }
}

/// Runs `linerate noise`.
pub fn run(args: NoiseArgs) -> Result<()> {
    if args.target_us.is_empty() {
        bail!("--target-us needs at least one target");
    }
    let online = linerate_metrics::cpu::online_cpus().context("listing the online CPUs")?;
    let cpus = choose_cpus(args.cpu.as_ref().map(|l| l.0.as_slice()), &online)?;
    let ns = |us: f64| Duration::from_nanos((us * 1000.0).round() as u64);
    let loads: Vec<Load> = match args.frame_rate {
        Some(rate) => args
            .work_us
            .iter()
            .map(|work| Load {
                interarrival_ns: (1e9 / rate).round().max(1.0) as u64,
                service_ns: (work * 1000.0).round() as u64,
            })
            .collect(),
        None => Vec::new(),
    };
    let config = SurveyConfig {
        cpus,
        duration: args.duration,
        threshold: ns(args.threshold_us),
        targets: args.target_us.iter().map(|&t| ns(t)).collect(),
        loads,
    };
    let interrupt = crate::stop_signal::Interrupt::install()?;
    crate::console::say(format_args!(
        "noise: probing CPU {} for {} s each (or until Ctrl-C)",
        config
            .cpus
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        args.duration.as_secs_f64()
    ));
    let mut presenter = Presenter {
        text: !args.json,
        duration: args.duration,
        bar: None,
    };
    let reports = survey(&config, interrupt.flag(), &mut presenter)?;
    let interrupted = interrupt.signal();
    let count = reports.len();
    if args.json {
        let report = SurveyReport {
            cpus: reports,
            error: interrupted.as_ref().map(|i| i.to_string()),
        };
        // Through a `Value`, whose keys print sorted, as they always have.
        crate::json_println!("{}", serde_json::to_value(&report)?);
    }
    if let Some(i) = interrupted {
        return Err(anyhow::Error::new(i).context(format!(
            "stopped with {} CPU{} probed (the last one for less than --duration)",
            count,
            if count == 1 { "" } else { "s" }
        )));
    }
    Ok(())
}

/// Shows the survey: a spinner while a CPU is probed, then (unless the
/// output is JSON) its text report.
struct Presenter {
    text: bool,
    duration: Duration,
    bar: Option<indicatif::ProgressBar>,
}

impl SurveyObserver for Presenter {
    fn probing(&mut self, cpu: usize, index: usize, count: usize) {
        self.bar = progress(cpu, index, count, self.duration);
    }

    fn probed(&mut self, report: &CpuReport) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if self.text {
            print_cpu(&report.noise, &report.replays);
        }
    }
}

/// A spinner on a terminal while CPU `cpu` is probed. Its redraw thread
/// is started off that CPU (it inherits this thread's affinity, moved
/// away first), so the display adds no noise to the measurement.
fn progress(
    cpu: usize,
    index: usize,
    count: usize,
    duration: Duration,
) -> Option<indicatif::ProgressBar> {
    if !crate::console::progress_wanted() {
        return None;
    }
    linerate_io::sched::keep_current_thread_off(cpu);
    let bar = indicatif::ProgressBar::new_spinner();
    let template = format!(
        "{{spinner}} probing CPU {cpu} ({} of {count}): {{elapsed}} of {:.1} s",
        index + 1,
        duration.as_secs_f64()
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(250));
    Some(bar)
}

/// What a floor means for a percentile target.
fn verdict(share: f64) -> &'static str {
    if share >= 0.01 {
        "p99 out of reach"
    } else if share >= 0.001 {
        "p99.9 out of reach"
    } else {
        "within reach"
    }
}

/// Prints one CPU's report as text.
fn print_cpu(r: &NoiseReport, replays: &[QueueEstimate]) {
    let g = &r.gaps;
    let secs = g.duration_ns as f64 / 1e9;
    let cpu = r.cpu.map_or("?".to_string(), |c| c.to_string());
    println!(
        "CPU {cpu}: away {:.2} % of {secs:.2} s in {} gaps over {:.1} µs ({:.0}/s); gap median {:.1} µs, p99 {:.1} µs, longest {:.1} µs",
        g.lost_share * 100.0,
        g.gaps,
        g.threshold_ns as f64 / 1000.0,
        g.gaps as f64 / secs.max(1e-9),
        g.gap_us.p50_us,
        g.gap_us.p99_us,
        g.gap_us.max_us,
    );
    if let Some(s) = r.steal_share {
        println!("  hypervisor steal: {:.2} % of the time", s * 100.0);
    }
    if !r.interrupts.is_empty() {
        let top: Vec<String> = r
            .interrupts
            .iter()
            .take(4)
            .map(|i| {
                let name = if i.description.is_empty() {
                    i.label.clone()
                } else {
                    format!("{} ({})", i.description, i.label)
                };
                format!("{name} {:.0}/s", i.count as f64 / secs.max(1e-9))
            })
            .collect();
        println!("  interrupts: {}", top.join(", "));
    }
    println!("  events no thread on this CPU can handle within:");
    for f in &g.floors {
        println!(
            "    {:>8.1} µs: at least {:.3} % ({} gaps longer): {}",
            f.target_us,
            f.share_over * 100.0,
            f.gaps_over,
            verdict(f.share_over)
        );
    }
    for q in replays {
        let rate = 1e9 / q.load.interarrival_ns as f64;
        println!(
            "  replay: {rate:.0} events/s, {:.2} µs of work each ({:.0} % busy): wait before pickup p50 {:.1} µs, p99 {:.1} µs, p99.9 {:.1} µs; done p99 {:.1} µs",
            q.load.service_ns as f64 / 1000.0,
            q.utilisation * 100.0,
            q.pickup_us.p50_us,
            q.pickup_us.p99_us,
            q.pickup_us.p999_us,
            q.done_us.p99_us,
        );
        if q.utilisation >= 1.0 {
            println!("    (the work exceeds the time between events: the queue only grows)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_numbers_and_ranges_once_each() {
        assert_eq!(parse_cpu_list("1"), Ok(CpuList(vec![1])));
        assert_eq!(parse_cpu_list("0,2-3,2"), Ok(CpuList(vec![0, 2, 3])));
        assert!(parse_cpu_list("3-1")
            .expect_err("backwards")
            .contains("3-1"));
        assert!(parse_cpu_list("x")
            .expect_err("not a number")
            .contains("\"x\""));
        assert!(parse_cpu_list("0-99999").is_err());
    }

    #[test]
    fn rates_take_suffixes_and_refuse_nonsense() {
        assert_eq!(parse_rate("111k"), Ok(111_000.0));
        assert_eq!(parse_rate("1.5M"), Ok(1_500_000.0));
        assert_eq!(parse_rate("250"), Ok(250.0));
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("fast").expect_err("word").contains("fast"));
    }

    #[test]
    fn verdicts_follow_the_percentile_a_floor_rules_out() {
        assert_eq!(verdict(0.02), "p99 out of reach");
        assert_eq!(verdict(0.002), "p99.9 out of reach");
        assert_eq!(verdict(0.0), "within reach");
    }
}
