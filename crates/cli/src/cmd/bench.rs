//! `linerate bench`: run the published measurement studies on this machine,
//! linerate next to Aravis and iperf3, and report tables, JSON and charts.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use linerate_bench::{plan, run_bench, BenchConfig, HostSetup, Progress, Scenario};

/// The text after the options in `linerate bench --help`: every scenario
/// by number and name (from the bench's own list, so a new scenario is
/// listed without touching this), then how the bench places its work.
fn after_help() -> String {
    let mut text = String::from("Scenarios (names or numbers):\n");
    for (i, s) in linerate_bench::Scenario::ALL.iter().enumerate() {
        text.push_str(&format!(
            "  {:<2} {:<16} {}\n",
            i + 1,
            s.name(),
            s.summary()
        ));
    }
    text.push_str(AFTER_SCENARIOS);
    text
}

/// The setup and examples part of `linerate bench --help`.
const AFTER_SCENARIOS: &str = "
Setup: the sender is pinned to CPU 0; the receiving host's network processing and
the receiver run on CPU 1, whose busy time (wall minus idle, /proc/stat) is the
receiver's cost (--host chooses how receive processing gets to CPU 1). Each scenario
alternates implementations within every repeat; tables show medians and ratios
against the anchor measured in the same run. Needs root and 2 CPUs; run it on an
otherwise idle machine (the report records the load average).

Examples:
  sudo linerate bench --quick --json            # CI smoke run, under 5 minutes
  sudo linerate bench --out docs/bench/latest   # full run: bench.md, bench.json, PNG charts
  sudo linerate bench packet-sizes 4 --repeats 3
  sudo linerate bench ceilings --host napi,rps  # both setups side by side, one run";

/// Arguments of `linerate bench`.
#[derive(Debug, Args)]
#[command(after_help = after_help())]
pub struct BenchArgs {
    /// Scenarios to run, by name or number; all when none is given.
    #[arg(value_name = "SCENARIO")]
    pub scenarios: Vec<Scenario>,
    /// Smoke run: fewer cases, 2-second windows, one repeat (under 5 minutes).
    #[arg(long)]
    pub quick: bool,
    /// Print the report as one JSON object on stdout instead of Markdown.
    #[arg(long)]
    pub json: bool,
    /// Also write bench.md, bench.json and PNG charts into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// How the receiving host's processing is put on CPU 1: napi (a NAPI
    /// kernel thread with GRO pinned there, like a NIC driver), rps
    /// (BRIEF's RPS recipe, no GRO) or rps-gro (GRO on CPU 0, not charged).
    /// Several, comma-separated (`napi,rps`), take turns within every
    /// repeat, each with its own rows and ratios, in one run.
    #[arg(
        long,
        default_value = "napi",
        value_name = "SETUP[,SETUP]",
        value_delimiter = ','
    )]
    pub host: Vec<HostSetup>,
    /// Measuring window of each run, seconds, 0.5..=600 (default 8, or 2
    /// with --quick).
    #[arg(long, value_name = "S", value_parser = crate::arg_range::secs_in(0.5..=600.0))]
    pub seconds: Option<f64>,
    /// Repeats of each configuration, 1..=100 (default 2, or 1 with --quick).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeats: Option<u32>,
    /// Print the planned runs and an estimate of the duration, run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Name of the test bench (its namespaces are lr-<name>-cam,
    /// lr-<name>-pc...). Its own default, so a bed made with `linerate
    /// testbed up` (named "bench" by default) is never touched; a bed that
    /// already has this name is refused, not replaced.
    #[arg(long, default_value = "lrbench")]
    pub name: String,
    /// The Python interpreter the `python` scenario runs; it must import
    /// the linerate package (default: target/venv/bin/python beside this
    /// build, where scripts/test builds the package, else python3).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// linerate's GenTL producer, for the `python` scenario's Harvesters
    /// receiver (default: liblinerate_gentl.so beside this build, made by
    /// `cargo build --release -p linerate-gentl`; without one, Harvesters
    /// is left out).
    #[arg(long, value_name = "PATH")]
    pub cti: Option<PathBuf>,
    /// `python` scenario: run only `linerate grab` and Harvesters with
    /// linerate.cti, not the `linerate` Python package's receivers, so more
    /// repeats of the Harvesters ratio fit (e.g. `--repeats 5`).
    #[arg(long)]
    pub harvesters_only: bool,
}

/// Runs `linerate bench`.
pub fn run(args: BenchArgs) -> Result<()> {
    let linerate = std::env::current_exe().context("finding the linerate binary to run")?;
    let mut config = BenchConfig::new(args.scenarios.clone(), args.quick, linerate);
    let mut hosts: Vec<HostSetup> = Vec::new();
    for h in &args.host {
        if !hosts.contains(h) {
            hosts.push(*h);
        }
    }
    if hosts.is_empty() {
        bail!("--host: name at least one setup (napi, rps or rps-gro)");
    }
    config.hosts = hosts;
    config.bed_name = args.name.clone();
    if let Some(python) = &args.python {
        config.python = python.clone();
    }
    if let Some(cti) = &args.cti {
        if !cti.is_file() {
            bail!("--cti {}: no such file", cti.display());
        }
        config.cti = Some(cti.clone());
    }
    if args.harvesters_only {
        if config.cti.is_none() {
            bail!(
                "--harvesters-only: no GenTL producer found beside this build; \
                 build it (cargo build --release -p linerate-gentl) or name it with --cti"
            );
        }
        config.harvesters_only = true;
    }
    // --seconds and --repeats are range-checked while parsing.
    if let Some(s) = args.seconds {
        config.timing.window = Duration::from_secs_f64(s);
    }
    if let Some(r) = args.repeats {
        config.timing.repeats = r;
    }
    let jobs = plan(&config);
    if args.dry_run {
        for j in &jobs {
            println!("{}", j.label());
        }
        println!(
            "{} runs, at most about {:.0} minutes",
            jobs.len(),
            linerate_bench::estimated_duration(&jobs, &config).as_secs_f64() / 60.0
        );
        return Ok(());
    }
    if !linerate_io::privilege::is_root() {
        bail!("linerate bench builds network namespaces and needs root (try sudo)");
    }
    // The bench rebuilds its bed between scenarios, which replaces any bed
    // of that name: refuse one this run did not make.
    if linerate_testbed::list_beds()?.contains(&args.name) {
        bail!(
            "a test bench named {:?} exists already (made by `linerate testbed up` or left by an \
             interrupted run); linerate bench would replace it. Remove it with `linerate testbed \
             down {}`, or give the bench another --name",
            args.name,
            args.name
        );
    }
    // SIGINT or SIGTERM stops the bench at its next wait: it kills its
    // programs, removes its namespaces and reports what it measured.
    let interrupt = crate::stop_signal::Interrupt::install()?;
    let watcher = interrupt.clone();
    std::thread::spawn(move || loop {
        if watcher.signal().is_some() {
            linerate_bench::request_stop();
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    });
    let bar = progress_bar();
    let report = run_bench(&config, |p| report_progress(&bar, p))?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(dir) = &args.out {
        write_out(&report, dir)?;
    }
    if args.json {
        crate::json_println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", report.markdown());
    }
    if let Some(i) = interrupt.signal().filter(|_| report.interrupted) {
        return Err(anyhow::Error::new(i).context(format!(
            "bench stopped early after {} runs; its test bench is removed",
            report.runs.len()
        )));
    }
    if report.has_failures() {
        bail!(
            "{} of {} runs failed{} (see the report)",
            report.runs.iter().filter(|r| r.error.is_some()).count(),
            report.runs.len(),
            if report.skipped.is_empty() {
                String::new()
            } else {
                format!(" and {} scenarios could not run", report.skipped.len())
            }
        );
    }
    Ok(())
}

fn progress_bar() -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} runs  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(500));
    Some(bar)
}

fn report_progress(bar: &Option<ProgressBar>, p: Progress<'_>) {
    match (bar, p) {
        (Some(b), Progress::Planned { jobs }) => b.set_length(jobs as u64),
        (None, Progress::Planned { jobs }) => eprintln!("bench: {jobs} runs planned"),
        (Some(b), Progress::Start { job, .. }) => b.set_message(job.label()),
        (None, Progress::Start { index, job }) => eprintln!("bench: [{index}] {}", job.label()),
        (Some(b), Progress::Done { run, .. }) => {
            b.inc(1);
            if let Some(e) = &run.error {
                b.println(format!(
                    "run failed: {} {}: {e}",
                    run.implementation, run.case
                ));
            }
        }
        (None, Progress::Done { run, .. }) => match &run.error {
            Some(e) => eprintln!("bench:     failed: {e}"),
            None => eprintln!(
                "bench:     {:.2} Gbit/s, receiving core {:.0}%, {} CPU-s/GB{}",
                run.gbit_per_s.unwrap_or(0.0),
                run.receiver_core_pct.unwrap_or(0.0),
                run.cpu_s_per_gb
                    .map(|c| format!("{c:.3}"))
                    .unwrap_or_else(|| "–".into()),
                match run.lossless {
                    Some(true) => ", lossless",
                    Some(false) => ", lost frames",
                    None => "",
                }
            ),
        },
        (Some(b), Progress::Skipped { jobs }) => b.println(format!(
            "{jobs} sweep runs skipped after a receiver lost frames"
        )),
        (None, Progress::Skipped { jobs }) => {
            eprintln!("bench: {jobs} sweep runs skipped after a receiver lost frames")
        }
    }
}

fn write_out(report: &linerate_bench::Report, dir: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let md = dir.join("bench.md");
    std::fs::write(&md, report.markdown()).with_context(|| format!("writing {}", md.display()))?;
    let json = dir.join("bench.json");
    std::fs::write(&json, serde_json::to_string_pretty(report)?)
        .with_context(|| format!("writing {}", json.display()))?;
    let charts = linerate_bench::draw_charts(report, dir)?;
    eprintln!(
        "bench: wrote {}, {} and {} chart(s) in {}",
        md.display(),
        json.display(),
        charts.len(),
        dir.display()
    );
    Ok(())
}
