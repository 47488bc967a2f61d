//! `linerate testbed`: build, inspect, change and remove network test
//! benches from the shell.
//!
//! `up` leaves the bed in place when the command exits (the namespaces
//! persist), so servers and clients can be started in it afterwards with
//! `exec`, loss changed with `loss`, and everything removed with `down`.
//! See docs/testbed.md.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{ArgGroup, Args, Subcommand};
use linerate_testbed::{
    list_beds, netns::bed_namespaces, parse_ethertype, remove_all_beds, remove_bed, BedInfo,
    Direction, LinkSpec, LossLayer, LossMatch, LossRule, Rate, RpsSpec, Testbed, TestbedSpec,
};

/// Bed name used when `--name` is not given.
const DEFAULT_BED: &str = "bench";

/// Arguments of `linerate testbed`.
#[derive(Debug, Args)]
#[command(
    about = "Build, inspect and tear down network test benches",
    long_about = "Build, inspect and tear down network test benches: network namespaces \
                  (\"hosts\") named lr-<bed>-<host>, joined by veth pairs or a bridge, with \
                  link-local 169.254.x.y/16 addresses, tc tbf rate limits, nftables loss and \
                  RPS steering. Needs root. Nothing is created in the root namespace."
)]
pub struct TestbedArgs {
    #[command(subcommand)]
    command: TestbedCommand,
}

#[derive(Debug, Subcommand)]
enum TestbedCommand {
    /// Create a bed and leave it running (replaces a bed of the same name).
    // Boxed (like `Loss`) to keep `TestbedArgs` small inside main's enum.
    Up(Box<UpArgs>),
    /// Remove a bed (or all beds) by deleting its namespaces.
    Down(DownArgs),
    /// List beds: namespaces, hosts, interfaces, addresses, loss rules.
    Status(StatusArgs),
    /// Run a command on a host (inside its namespace), optionally pinned to a CPU.
    Exec(ExecArgs),
    /// Change, list or clear packet loss on a running bed.
    Loss(Box<LossCmdArgs>),
}

/// Loss selection, shared by `up` and `loss`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("loss_match").args(["loss_udp_port", "loss_udp_sport", "loss_ethertype"])))]
struct LossArgs {
    /// Drop this percentage (0-100, resolution 0.0001) of matching packets,
    /// at random. 0 removes the rule with the same selector.
    #[arg(long, value_name = "PERCENT", value_parser = crate::arg_range::float_in(0.0..=100.0))]
    loss: Option<f64>,
    /// Host whose interface drops packets (default: every host).
    #[arg(long, value_name = "HOST")]
    loss_host: Option<String>,
    /// Only on this interface of the host, e.g. eth0 (default: all of them).
    #[arg(long, value_name = "IFACE")]
    loss_iface: Option<String>,
    /// Drop packets the host receives (ingress) or sends (egress).
    #[arg(long, value_name = "DIR", default_value = "ingress", value_parser = parse_direction)]
    loss_dir: Direction,
    /// Where the host drops: at the device's hooks (`device`: the sender's
    /// send() still succeeds) or at the IP stack's input/output hooks (`ip`:
    /// as behind a host firewall; a dropped send fails with EPERM).
    #[arg(long, value_name = "LAYER", default_value = "device", value_parser = parse_layer)]
    loss_layer: LossLayer,
    /// Only UDP datagrams to this destination port (e.g. a GVSP stream port).
    /// Only first IP fragments carry the port. 1..=65535.
    #[arg(long, value_name = "PORT", value_parser = clap::value_parser!(u16).range(1..))]
    loss_udp_port: Option<u16>,
    /// Only UDP datagrams from this source port, 1..=65535.
    #[arg(long, value_name = "PORT", value_parser = clap::value_parser!(u16).range(1..))]
    loss_udp_sport: Option<u16>,
    /// Only Ethernet frames of this ethertype: 0x88b5, 2054, arp, ipv4, ipv6.
    #[arg(long, value_name = "TYPE", value_parser = parse_ethertype_arg)]
    loss_ethertype: Option<u16>,
}

impl LossArgs {
    fn matcher(&self) -> LossMatch {
        if let Some(p) = self.loss_udp_port {
            LossMatch::UdpDport(p)
        } else if let Some(p) = self.loss_udp_sport {
            LossMatch::UdpSport(p)
        } else if let Some(t) = self.loss_ethertype {
            LossMatch::Ethertype(t)
        } else {
            LossMatch::All
        }
    }

    /// One rule per selected host, or none without `--loss`.
    fn rules(&self, hosts: &[String]) -> Vec<LossRule> {
        let Some(percent) = self.loss else {
            return Vec::new();
        };
        let targets: Vec<String> = match &self.loss_host {
            Some(h) => vec![h.clone()],
            None => hosts.to_vec(),
        };
        targets
            .into_iter()
            .map(|host| LossRule {
                host,
                iface: self.loss_iface.clone(),
                direction: self.loss_dir,
                matcher: self.matcher(),
                percent,
                layer: self.loss_layer,
                burst: None,
            })
            .collect()
    }
}

#[derive(Debug, Args)]
struct UpArgs {
    /// Bed name: [a-z0-9_], at most 24 characters. Namespaces are lr-<name>-<host>.
    /// Default: the spec's name, else "bench".
    #[arg(long)]
    name: Option<String>,
    /// Comma-separated host names, in order (the order fixes addresses:
    /// host i gets 169.254.<segment>.<i+1>). Default: cam,pc.
    #[arg(long, value_delimiter = ',', conflicts_with = "spec")]
    hosts: Vec<String>,
    /// A TOML (or .json) spec file describing hosts, links, rates, loss and
    /// RPS; other flags given too override it.
    #[arg(long, value_name = "FILE")]
    spec: Option<PathBuf>,
    /// Attach every host to one bridge in its own namespace (lr-<name>-switch)
    /// instead of point-to-point veth links.
    #[arg(long)]
    switch: bool,
    /// Point-to-point link A:B (repeatable). Default with exactly two hosts:
    /// one link between them.
    #[arg(long = "link", value_name = "A:B", value_parser = parse_link)]
    links: Vec<LinkSpec>,
    /// MTU of every link, 1280-9216 (1500 standard, 9000 jumbo). Default 1500.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1280..=9216))]
    mtu: Option<u32>,
    /// Rate limit of every link direction (tc tbf): 1g, 5g, 10g, 950m, 2.5g ...
    /// Default: unshaped.
    #[arg(long, value_parser = parse_rate)]
    rate: Option<Rate>,
    /// tbf bucket size in bytes. Default: 2 ms of traffic, at least 256 KiB,
    /// which measured to sustain the rate with jumbo frames. 1500..=1073741824.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u32).range(1500..=1_073_741_824))]
    burst: Option<u32>,
    /// tbf queueing latency in microseconds (sets the queue limit),
    /// 1..=10000000. Default 10000.
    #[arg(long, value_name = "US", value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    latency_us: Option<u32>,
    #[command(flatten)]
    loss: LossArgs,
    /// Steer receive processing (RPS) to these CPUs, e.g. 1 or 0,1 (each 0..=4095).
    #[arg(long, value_delimiter = ',', value_name = "CPU", value_parser = crate::arg_range::online_cpu())]
    rps_cpu: Vec<usize>,
    /// Host whose RPS is set by --rps-cpu (default: every host).
    #[arg(long, value_name = "HOST", requires = "rps_cpu")]
    rps_host: Option<String>,
    /// Keep IPv6 enabled (off by default so links stay quiet).
    #[arg(long)]
    ipv6: bool,
    /// Print the resulting hosts, namespaces, interfaces, addresses and MACs as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("which").args(["name", "all"]).required(true)))]
struct DownArgs {
    /// Bed to remove.
    #[arg(long)]
    name: Option<String>,
    /// Remove every bed on this machine (all lr-<bed>-<host> namespaces),
    /// e.g. leftovers of crashed tests.
    #[arg(long)]
    all: bool,
}

#[derive(Debug, Args)]
struct StatusArgs {
    /// Only this bed (default: all).
    #[arg(long)]
    name: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ExecArgs {
    /// Bed the host belongs to.
    #[arg(long, default_value = DEFAULT_BED)]
    name: String,
    /// Host to run on.
    #[arg(long)]
    host: String,
    /// Pin the command to this CPU (sched_setaffinity before exec), 0..=4095.
    #[arg(long, value_parser = crate::arg_range::online_cpu())]
    cpu: Option<usize>,
    /// The command and its arguments, after `--`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true,
        value_name = "COMMAND"
    )]
    command: Vec<OsString>,
}

#[derive(Debug, Args)]
struct LossCmdArgs {
    /// Bed to change.
    #[arg(long, default_value = DEFAULT_BED)]
    name: String,
    #[command(flatten)]
    loss: LossArgs,
    /// Remove all loss rules (of --loss-host, or of every host).
    #[arg(long, conflicts_with = "loss")]
    clear: bool,
    /// Print JSON (the installed rules with their drop counters).
    #[arg(long)]
    json: bool,
}

fn parse_rate(s: &str) -> Result<Rate, String> {
    s.parse()
        .map_err(|e: linerate_testbed::Error| e.to_string())
}

fn parse_direction(s: &str) -> Result<Direction, String> {
    s.parse()
        .map_err(|e: linerate_testbed::Error| e.to_string())
}

fn parse_layer(s: &str) -> Result<LossLayer, String> {
    s.parse()
        .map_err(|e: linerate_testbed::Error| e.to_string())
}

fn parse_ethertype_arg(s: &str) -> Result<u16, String> {
    parse_ethertype(s).map_err(|e| e.to_string())
}

fn parse_link(s: &str) -> Result<LinkSpec, String> {
    match s.split_once(':') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok(LinkSpec::new(a, b)),
        _ => Err(format!("link {s:?} must be A:B")),
    }
}

/// Runs `linerate testbed ...`.
pub fn run(args: TestbedArgs) -> Result<()> {
    let needs_root = match &args.command {
        TestbedCommand::Up(_) => Some("up"),
        TestbedCommand::Down(_) => Some("down"),
        TestbedCommand::Exec(_) => Some("exec"),
        TestbedCommand::Loss(_) => Some("loss"),
        TestbedCommand::Status(_) => None,
    };
    if let Some(sub) = needs_root {
        if !linerate_io::privilege::is_root() {
            anyhow::bail!(
                "linerate testbed {sub} needs root: it creates and changes network namespaces \
                 (run it with sudo)"
            );
        }
    }
    match args.command {
        TestbedCommand::Up(a) => up(*a),
        TestbedCommand::Down(a) => down(a),
        TestbedCommand::Status(a) => status(a),
        TestbedCommand::Exec(a) => exec(a),
        TestbedCommand::Loss(a) => loss(*a),
    }
}

/// Turns `up`'s flags (and optional spec file) into a spec.
fn spec_from_args(a: &UpArgs) -> Result<TestbedSpec> {
    let mut spec = match &a.spec {
        Some(path) => TestbedSpec::from_file(path)
            .with_context(|| format!("reading spec {}", path.display()))?,
        None => {
            let mut s = TestbedSpec::new(DEFAULT_BED);
            s.hosts = if a.hosts.is_empty() {
                vec!["cam".into(), "pc".into()]
            } else {
                a.hosts.clone()
            };
            s
        }
    };
    if let Some(n) = &a.name {
        spec.name = n.clone();
    }
    spec.switch |= a.switch;
    spec.links.extend(a.links.iter().cloned());
    if let Some(m) = a.mtu {
        spec.mtu = m;
    }
    if a.rate.is_some() {
        spec.rate = a.rate;
    }
    if a.burst.is_some() {
        spec.burst_bytes = a.burst;
    }
    if a.latency_us.is_some() {
        spec.latency_us = a.latency_us;
    }
    spec.ipv6 |= a.ipv6;
    let hosts = spec.hosts.clone();
    spec.loss.extend(a.loss.rules(&hosts));
    if !a.rps_cpu.is_empty() {
        let targets = match &a.rps_host {
            Some(h) => vec![h.clone()],
            None => hosts,
        };
        for host in targets {
            spec.rps.push(RpsSpec {
                host,
                cpus: a.rps_cpu.clone(),
            });
        }
    }
    spec.validate()?;
    Ok(spec)
}

fn up(a: UpArgs) -> Result<()> {
    let spec = spec_from_args(&a)?;
    let bed = Testbed::build(&spec).with_context(|| format!("building bed {:?}", spec.name))?;
    let info = bed.leak();
    if a.json {
        crate::json_println!("{}", serde_json::to_string_pretty(&info)?);
    } else {
        print_bed(&info);
        if let Some(r) = spec.rate {
            println!("  rate limit {r} per direction");
        }
        for rule in &spec.loss {
            println!(
                "  loss {}% on {} {} ({:?})",
                rule.percent, rule.host, rule.direction, rule.matcher
            );
        }
        for r in &spec.rps {
            println!("  RPS of {} -> CPUs {:?}", r.host, r.cpus);
        }
        println!("remove with: linerate testbed down --name {}", info.name);
    }
    Ok(())
}

fn print_bed(info: &BedInfo) {
    println!("bed {}", info.name);
    if let Some(sw) = &info.switch_netns {
        println!("  switch  netns {sw}");
    }
    for h in &info.hosts {
        for i in &h.ifaces {
            println!(
                "  {:<10} netns {:<24} {:<5} {}/{} mac {} mtu {} -> {}",
                h.name, h.netns, i.name, i.ipv4, i.prefix_len, i.mac, i.mtu, i.peer_host
            );
        }
    }
}

fn down(a: DownArgs) -> Result<()> {
    let removed = if a.all {
        remove_all_beds()?
    } else if let Some(name) = &a.name {
        let r = remove_bed(name)?;
        if r.is_empty() {
            bail!("no bed named {name:?} (see `linerate testbed status`)");
        }
        r
    } else {
        bail!("give --name NAME or --all");
    };
    for ns in &removed {
        println!("removed {ns}");
    }
    if removed.is_empty() {
        println!("no beds");
    }
    Ok(())
}

fn status(a: StatusArgs) -> Result<()> {
    let beds: Vec<String> = match &a.name {
        Some(n) => vec![n.clone()],
        None => list_beds()?,
    };
    let mut out = Vec::new();
    for name in beds {
        let bed = Testbed::attach(&name).with_context(|| format!("bed {name:?}"))?;
        out.push(bed.status()?);
    }
    if a.json {
        crate::json_println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    if out.is_empty() {
        let stray = bed_namespaces()?;
        println!(
            "no beds{}",
            if stray.is_empty() {
                ""
            } else {
                " (but stray namespaces)"
            }
        );
        return Ok(());
    }
    for b in &out {
        print_bed(&b.info);
        for hl in &b.loss {
            for r in &hl.rules {
                println!(
                    "  loss on {}: {} ({} packets dropped)",
                    hl.host, r.comment, r.packets
                );
            }
        }
    }
    Ok(())
}

fn exec(a: ExecArgs) -> Result<()> {
    let bed = Testbed::attach(&a.name)?;
    let (program, rest) = a
        .command
        .split_first()
        .context("no command given (put it after --)")?;
    let mut cmd = bed.command(&a.host, program)?;
    cmd.args(rest);
    if let Some(c) = a.cpu {
        cmd.cpu(c);
    }
    // Become the command (through `ip netns exec`) instead of waiting for
    // it: a signal sent to this process then reaches the command itself,
    // so stopping `testbed exec` never leaves it running, and its exit
    // status is this process's.
    let cmdline = cmd.cmdline();
    let err = std::os::unix::process::CommandExt::exec(&mut cmd.into_command()?);
    Err(anyhow::Error::new(err).context(format!("running `{cmdline}`")))
}

fn loss(a: LossCmdArgs) -> Result<()> {
    let bed = Testbed::attach(&a.name)?;
    let hosts: Vec<String> = match &a.loss.loss_host {
        Some(h) => vec![h.clone()],
        None => bed.hosts().iter().map(|h| h.name.clone()).collect(),
    };
    if a.clear {
        for h in &hosts {
            bed.clear_loss(h)?;
        }
    } else {
        for rule in a.loss.rules(&hosts) {
            bed.set_loss(&rule)
                .with_context(|| format!("setting loss on {}", rule.host))?;
        }
    }
    let all = hosts
        .iter()
        .map(|h| bed.host_loss(h))
        .collect::<linerate_testbed::Result<Vec<_>>>()?;
    if a.json {
        crate::json_println!("{}", serde_json::to_string_pretty(&all)?);
    } else {
        for hl in &all {
            if hl.rules.is_empty() {
                println!("{}: no loss", hl.host);
            }
            for r in &hl.rules {
                println!("{}: {} ({} packets dropped)", hl.host, r.comment, r.packets);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        args: TestbedArgs,
    }

    fn up_args(argv: &[&str]) -> UpArgs {
        let mut v = vec!["t", "up"];
        v.extend_from_slice(argv);
        match Cli::try_parse_from(v) {
            Ok(Cli {
                args:
                    TestbedArgs {
                        command: TestbedCommand::Up(a),
                    },
            }) => *a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn up_flags_make_a_spec() -> Result<()> {
        let a = up_args(&[
            "--name",
            "b1",
            "--hosts",
            "cam,pc",
            "--mtu",
            "9000",
            "--rate",
            "950m",
            "--loss",
            "2.5",
            "--loss-host",
            "pc",
            "--loss-udp-port",
            "20202",
            "--rps-cpu",
            "1",
            "--rps-host",
            "pc",
        ]);
        let s = spec_from_args(&a)?;
        assert_eq!(s.name, "b1");
        assert_eq!(s.mtu, 9000);
        assert_eq!(s.rate.map(|r| r.bits_per_sec()), Some(950_000_000));
        assert_eq!(s.loss.len(), 1);
        assert_eq!(s.loss[0].matcher, LossMatch::UdpDport(20202));
        assert_eq!(s.loss[0].direction, Direction::Ingress);
        assert_eq!(
            s.rps,
            vec![RpsSpec {
                host: "pc".into(),
                cpus: vec![1]
            }]
        );
        Ok(())
    }

    #[test]
    fn defaults_and_errors() -> Result<()> {
        let s = spec_from_args(&up_args(&[
            "--switch",
            "--loss",
            "1",
            "--loss-dir",
            "egress",
            "--loss-ethertype",
            "arp",
        ]))?;
        assert_eq!(s.name, DEFAULT_BED);
        assert_eq!(s.hosts, ["cam", "pc"]);
        assert!(s.switch);
        assert_eq!(s.loss.len(), 2, "one rule per host");
        assert_eq!(s.loss[0].matcher, LossMatch::Ethertype(0x0806));
        assert!(Cli::try_parse_from(["t", "up", "--rate", "fast"]).is_err());
        assert!(Cli::try_parse_from([
            "t",
            "up",
            "--loss-udp-port",
            "1",
            "--loss-ethertype",
            "arp"
        ])
        .is_err());
        assert!(Cli::try_parse_from(["t", "down"]).is_err());
        assert!(Cli::try_parse_from(["t", "exec", "--host", "pc"]).is_err());
        assert!(
            Cli::try_parse_from(["t", "exec", "--host", "pc", "--", "ip", "-o", "link"]).is_ok()
        );
        assert!(spec_from_args(&up_args(&["--name", "Bad-Name"])).is_err());
        Ok(())
    }
}
