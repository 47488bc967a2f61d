//! The `linerate` command-line tool.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, Subcommand};

mod arg_range;
mod cmd;
mod console;
mod interface_arg;
mod stop_signal;

/// linerate: sensor data over Ethernet at line rate — GigE Vision cameras and
/// FADE front-end boards on one side, Linux hosts on the other.
#[derive(Debug, Parser)]
#[command(
    name = "linerate",
    version = env!("LINERATE_VERSION"),
    about = "linerate: sensor data over Ethernet at line rate (GigE Vision, FADE)"
)]
struct Cli {
    /// More log output on stderr: -v info, -vv debug, -vvv trace (RUST_LOG,
    /// if set, takes precedence).
    #[arg(short, long, global = true, action = ArgAction::Count)]
    verbose: u8,
    /// Only errors on stderr: no warnings or notes from the libraries.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    #[command(subcommand)]
    command: Commands,
}

#[derive(Debug, Subcommand)]
enum Commands {
    /// Run an emulated GigE Vision camera (GVCP server and GVSP streamer) until Ctrl-C.
    Camera(cmd::camera::CameraArgs),
    /// Stream self-verifying frames between two emulated hosts and verify every one.
    Demo(cmd::demo::DemoArgs),
    /// Find GigE Vision devices (GVCP discovery) and list IP, MAC, vendor, model and serial.
    Discover(cmd::discover::DiscoverArgs),
    /// Give a device, found by its MAC, a new IPv4 address (GVCP FORCEIP), e.g. one `discover` cannot reach.
    ForceIp(cmd::force_ip::ForceIpArgs),
    /// Receive frames from a GigE Vision camera, verify them, and report loss, throughput and CPU.
    Grab(cmd::grab::GrabArgs),
    /// List a device's GenICam features: value, type, access, range or entries, unit, by category.
    Features(cmd::features::FeaturesArgs),
    /// Read GenICam features by name (e.g. `linerate get IP Width PixelFormat`).
    Get(cmd::features::GetArgs),
    /// Set GenICam features (NAME=VALUE, checked first) or execute commands (NAME), under control.
    Set(cmd::features::SetArgs),
    /// Print or save a device's GenICam XML (unzipped), saying which URL it came from.
    Xml(cmd::features::XmlArgs),
    /// Check the host against what a stream needs (buffers, MTU, offloads, IRQs) and print fixes.
    Doctor(cmd::doctor::DoctorArgs),
    /// Measure how quiet each CPU is and which latency tails that puts out of reach.
    Noise(cmd::noise::NoiseArgs),
    /// Build, inspect and tear down network test benches (namespaces, veth, loss, rate).
    Testbed(cmd::testbed::TestbedArgs),
    /// Decode GVCP, GVSP, GVSP-over-TCP or FADE packets given as hex.
    Decode(cmd::decode::DecodeArgs),
    /// FADE on raw Ethernet: emulate a front-end board, or receive from boards.
    Fade(cmd::fade::FadeArgs),
    /// Serve one frame stream to many TCP clients (write, sendfile, splice or MSG_ZEROCOPY).
    Serve(cmd::serve::ServeArgs),
    /// Open K client connections to `linerate serve` and verify every frame.
    Watch(cmd::watch::WatchArgs),
    /// Measure linerate against Aravis and iperf3 on this machine (the published studies).
    Bench(cmd::bench::BenchArgs),
    /// Print the JSON Schema of a report that a command prints with --json.
    Schema(cmd::schema::SchemaArgs),
    /// Print a shell completion script (e.g. `linerate completions bash > /etc/bash_completion.d/linerate`).
    Completions(cmd::docs::CompletionsArgs),
    /// Write man pages for linerate and every subcommand into a directory.
    Man(cmd::docs::ManArgs),
    /// Show a camera live in a web page (image, health charts, controls) until Ctrl-C.
    View(cmd::view::ViewArgs),
    /// Read frames or board chunks forwarded to Kafka (ESS ad00/f144), verify every one, report gaps and duplicates.
    Consume(cmd::kafka::ConsumeArgs),
}

/// The log filter for `-v`/`-q`. The GenICam XML parser's own messages
/// are noise to a user, so they appear only at trace level.
fn log_filter(verbose: u8, quiet: bool) -> String {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, _) => "trace",
    };
    if verbose >= 3 {
        level.to_owned()
    } else {
        format!("{level},cameleon_genapi=off,cameleon=off")
    }
}

/// The command line's definition: [`Cli`]'s, with negative numbers taken
/// as values everywhere, so `--width -5` reaches the argument's range check
/// ("-5 is not in 1..=65535") instead of clap's advice to write `-- -5`.
fn command() -> clap::Command {
    fn negative_values(cmd: clap::Command) -> clap::Command {
        cmd.mut_args(|a| {
            if a.get_action().takes_values() {
                a.allow_negative_numbers(true)
            } else {
                a
            }
        })
        .mut_subcommands(negative_values)
    }
    negative_values(Cli::command())
}

fn main() -> ExitCode {
    // With --json, a failure is an object on stdout too ({"ok": false,
    // "error": ...}), unless the command printed its own report already.
    let json_wanted = std::env::args_os().any(|a| a == "--json");
    let cli = match command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => {
            let help = matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp
                    | clap::error::ErrorKind::DisplayVersion
                    | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            );
            if json_wanted && !help {
                let rendered = e.to_string();
                let first = rendered.lines().next().unwrap_or_default();
                let text = first.trim_start_matches("error: ");
                println!("{}", serde_json::json!({"ok": false, "error": text}));
            }
            e.exit()
        }
    };
    console::set_quiet(cli.quiet);
    // Warnings from the libraries (a receive buffer capped by rmem_max, a
    // receive thread that could not be pinned) go to stderr; -v/-q or
    // RUST_LOG change the level.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new(log_filter(cli.verbose, cli.quiet))
            }),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .without_time()
        .init();
    // `linerate ... | head`: a print to the closed pipe panics (Rust
    // ignores SIGPIPE); the panic unwinds (dropping test benches and
    // cameras in order) and the command ends quietly with 141.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !console::is_broken_pipe_panic(info.payload()) {
            default_hook(info);
        }
    }));
    let result = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli))) {
        Ok(result) => result,
        Err(payload) if console::is_broken_pipe_panic(payload.as_ref()) => {
            return ExitCode::from(console::STDOUT_CLOSED_STATUS)
        }
        Err(payload) => std::panic::resume_unwind(payload),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if console::is_broken_pipe_error(&e) => {
            ExitCode::from(console::STDOUT_CLOSED_STATUS)
        }
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            if json_wanted && !console::json_printed() {
                println!(
                    "{}",
                    serde_json::json!({"ok": false, "error": error_chain(&e)})
                );
            }
            // A run a signal ended exits as a shell reports the signal (130, 143).
            match e.downcast_ref::<stop_signal::Interrupted>() {
                Some(i) => ExitCode::from(i.exit_status()),
                None => ExitCode::FAILURE,
            }
        }
    }
}

/// Pins the whole command to `cpu` (`--cpu`), before it starts any thread,
/// so every thread it starts inherits the CPU.
fn pin_process(cpu: Option<usize>) -> Result<()> {
    if let Some(c) = cpu {
        linerate_io::sched::pin_current_thread(c)
            .with_context(|| format!("running on CPU {c} (--cpu)"))?;
    }
    Ok(())
}

/// The whole cause chain on one line, each cause once: a library error
/// often repeats its source's text in its own message, and printing both
/// (as `{:#}` does) says the same thing twice.
fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Commands::Camera(args) => cmd::camera::run(args),
        Commands::Demo(args) => cmd::demo::run(args),
        Commands::Discover(args) => cmd::discover::run(args),
        Commands::ForceIp(args) => cmd::force_ip::run(args),
        Commands::Grab(args) => cmd::grab::run(args),
        Commands::Features(args) => cmd::features::features(args),
        Commands::Get(args) => cmd::features::get(args),
        Commands::Set(args) => cmd::features::set(args),
        Commands::Xml(args) => cmd::features::xml(args),
        Commands::Doctor(args) => cmd::doctor::run(args),
        Commands::Noise(args) => cmd::noise::run(args),
        Commands::Testbed(args) => cmd::testbed::run(args),
        Commands::Decode(args) => cmd::decode::run(args),
        Commands::Fade(args) => cmd::fade::run(args),
        Commands::Serve(args) => cmd::serve::run(args),
        Commands::Watch(args) => cmd::watch::run(args),
        Commands::Bench(args) => cmd::bench::run(args),
        Commands::Schema(args) => cmd::schema::run(args),
        Commands::Completions(args) => cmd::docs::completions(args, command()),
        Commands::Man(args) => cmd::docs::man(args, command()),
        Commands::View(args) => cmd::view::run(args),
        Commands::Consume(args) => cmd::kafka::consume(args),
    }
}

#[cfg(test)]
mod error_chain_tests {
    use super::*;

    #[test]
    fn a_cause_repeated_by_its_wrapper_is_printed_once() {
        let inner = std::io::Error::other("got no ack after 3 attempts");
        let e = anyhow::Error::new(inner)
            .context("camera 169.254.1.1: got no ack after 3 attempts")
            .context("opening the camera");
        assert_eq!(
            error_chain(&e),
            "opening the camera: camera 169.254.1.1: got no ack after 3 attempts"
        );
        let e = anyhow::anyhow!("b").context("a");
        assert_eq!(error_chain(&e), "a: b");
    }
}

#[cfg(test)]
mod tests {
    use std::any::TypeId;
    use std::time::Duration;

    use clap::error::ErrorKind;

    /// Byte counts that may legitimately exceed 4 GiB (a transfer size,
    /// a memory budget): they must still refuse 2^64 - 1.
    const LARGE_BYTE_COUNTS: &[&str] = &[
        "fade feb --bytes",
        "fade recv --bytes",
        "grab --buffer-memory",
        "camera --resend-memory",
    ];

    /// Every argument whose value parser yields a number or a duration,
    /// as (subcommand path, --long, help text, default values).
    fn numeric_args(
        cmd: &clap::Command,
        path: &[String],
        out: &mut Vec<(Vec<String>, String, String, Vec<String>)>,
    ) {
        let numeric = [
            TypeId::of::<u8>(),
            TypeId::of::<u16>(),
            TypeId::of::<u32>(),
            TypeId::of::<u64>(),
            TypeId::of::<usize>(),
            TypeId::of::<i32>(),
            TypeId::of::<i64>(),
            TypeId::of::<f32>(),
            TypeId::of::<f64>(),
            TypeId::of::<Duration>(),
        ];
        let is_numeric = |a: &clap::Arg| {
            let t = a.get_value_parser().type_id();
            // A counting flag (-v, -vv) takes no value.
            let takes_value = !matches!(a.get_action(), clap::ArgAction::Count);
            takes_value && numeric.iter().any(|n| t == *n)
        };
        all_args(cmd, path, &is_numeric, out);
    }

    /// Parses `linerate PATH... ARG VALUE` and says whether the value was
    /// refused (Some(message)) or taken (None). Missing required arguments
    /// and conflicts mean the value itself passed.
    fn refused(path: &[String], arg: &str, value: &str) -> Option<String> {
        let argv = std::iter::once("linerate".to_string())
            .chain(path.iter().cloned())
            .chain([format!("{arg}={value}")]);
        let parsed = std::panic::catch_unwind(|| super::command().try_get_matches_from(argv));
        let parsed = parsed.unwrap_or_else(|_| panic!("{path:?} {arg} {value} panicked"));
        match parsed {
            Ok(_) => None,
            Err(e) => match e.kind() {
                ErrorKind::ValueValidation | ErrorKind::InvalidValue => Some(e.to_string()),
                _ => None,
            },
        }
    }

    /// Every argument `keep` takes, as (subcommand path, --long, help
    /// text, default values).
    fn all_args(
        cmd: &clap::Command,
        path: &[String],
        keep: &dyn Fn(&clap::Arg) -> bool,
        out: &mut Vec<(Vec<String>, String, String, Vec<String>)>,
    ) {
        for a in cmd.get_arguments().filter(|a| keep(a)) {
            let Some(long) = a.get_long() else { continue };
            out.push((
                path.to_vec(),
                format!("--{long}"),
                a.get_help().map(|h| h.to_string()).unwrap_or_default(),
                a.get_default_values()
                    .iter()
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect(),
            ));
        }
        for s in cmd.get_subcommands() {
            let mut p = path.to_vec();
            p.push(s.get_name().to_string());
            all_args(s, &p, keep, out);
        }
    }

    /// A default clap knows is printed by clap (`[default: 100]`) from
    /// the value the program really uses; a help text that states one of
    /// its own beside it can drift from it (as `grab --frames` once said
    /// 10 while 100 was used), so none may.
    #[test]
    fn defaults_are_stated_once_by_clap() {
        let mut args = Vec::new();
        all_args(&super::command(), &[], &|_| true, &mut args);
        let stated = states_a_default();
        assert!(stated(
            "Frames to receive. Default 100 when neither is given"
        ));
        assert!(!stated("By default the socket is connected"));
        let twice: Vec<String> = args
            .iter()
            .filter(|(_, _, help, defaults)| !defaults.is_empty() && stated(help))
            .map(|(path, arg, help, _)| format!("{} {arg}: {help}", path.join(" ")))
            .collect();
        assert!(
            twice.is_empty(),
            "defaults stated twice:\n{}",
            twice.join("\n")
        );
    }

    /// Whether a help text states a default value itself ("Default 10",
    /// "(default: 5)", "[default: 16"), as opposed to describing what
    /// happens by default in words.
    fn states_a_default() -> impl Fn(&str) -> bool {
        |help: &str| {
            let lower = help.to_ascii_lowercase();
            lower.match_indices("default").any(|(i, w)| {
                let rest = lower[i + w.len()..].trim_start_matches([':', ' ', 'i', 's']);
                rest.starts_with(|c: char| c.is_ascii_digit())
            })
        }
    }

    #[test]
    fn every_numeric_argument_has_a_checked_range() {
        let mut args = Vec::new();
        numeric_args(&super::command(), &[], &mut args);
        assert!(
            args.len() > 80,
            "introspection found only {} args",
            args.len()
        );
        let mut failures = Vec::new();
        for (path, arg, help, defaults) in &args {
            let name = format!("{} {arg}", path.join(" "));
            let mut huge = vec!["18446744073709551615", "-1", "x", "NaN"];
            if !LARGE_BYTE_COUNTS.contains(&name.as_str()) {
                huge.push("4294967296");
            }
            for value in huge {
                match refused(path, arg, value) {
                    Some(msg) if msg.contains(arg.as_str()) => {}
                    Some(msg) => {
                        failures.push(format!("{name} {value}: error names no argument: {msg}"))
                    }
                    None => failures.push(format!("{name} {value}: accepted")),
                }
            }
            // The defaults themselves lie in the range.
            for d in defaults {
                if let Some(msg) = refused(path, arg, d) {
                    failures.push(format!("{name}: default {d} refused: {msg}"));
                }
            }
            // 0 is refused, or accepted and its meaning documented.
            if refused(path, arg, "0").is_none()
                && !help.contains('0')
                && !defaults.iter().any(|d| d == "0")
            {
                failures.push(format!("{name} 0: accepted, but --help says nothing of 0"));
            }
        }
        assert!(
            failures.is_empty(),
            "{} problems:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}
