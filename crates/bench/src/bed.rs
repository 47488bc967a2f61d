//! The bench's test beds: a camera and a PC joined by a veth pair at MTU
//! 9000, with the PC's receive path placed on CPU 1 as [`HostSetup`] says.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::thread;
use std::time::Duration;

use linerate_testbed::Testbed;

use crate::config::HostSetup;
use crate::error::{Error, Result};
use crate::window::RECEIVER_CPU;

/// The sending host's name in every bed.
pub const SENDER: &str = "cam";
/// The receiving host's name in every bed.
pub const RECEIVER: &str = "pc";

/// A sender and a receiving PC on one veth pair.
pub struct PairBed {
    /// The namespaces and links (torn down on drop).
    pub bed: Testbed,
    /// The sender's address.
    pub sender_ip: Ipv4Addr,
    /// The receiving PC's address.
    pub receiver_ip: Ipv4Addr,
    /// The receiving PC's interface name.
    pub receiver_iface: String,
    /// The sender's interface name.
    pub sender_iface: String,
}

impl PairBed {
    /// Builds the pair named `name` (replacing a leftover bed of that name)
    /// and sets up the PC's receive path.
    pub fn build(name: &str, setup: HostSetup) -> Result<PairBed> {
        let _ = linerate_testbed::remove_bed(name);
        let bed = Testbed::builder(name)
            .hosts([SENDER, RECEIVER])
            .mtu(9000)
            .rps(RECEIVER, &[RECEIVER_CPU])
            .build()?;
        let receiver_iface = bed.iface(RECEIVER)?.name.clone();
        let sender_iface = bed.iface(SENDER)?.name.clone();
        apply_setup(&bed, setup, &sender_iface, &receiver_iface)?;
        Ok(PairBed {
            sender_ip: bed.addr(SENDER)?,
            receiver_ip: bed.addr_seen_from(SENDER, RECEIVER)?,
            receiver_iface,
            sender_iface,
            bed,
        })
    }
}

/// Hosts behind a bridge, with one rate-limited link to the PC: FADE boards
/// sharing a switch port.
pub struct SwitchBed {
    /// The namespaces, bridge and links (torn down on drop).
    pub bed: Testbed,
    /// The sending hosts' names.
    pub senders: Vec<String>,
    /// The receiving PC's interface name.
    pub receiver_iface: String,
}

impl SwitchBed {
    /// `senders` boards and a PC behind a bridge; the bridge's port to the
    /// PC is shaped to `rate_mbit` by tbf (unless it is 0), so the boards
    /// share that link. `jumbo`: MTU 9000 (FADE-10G's frames need it).
    ///
    /// The PC's receive processing is not steered: with RPS on the
    /// receiver's core, that core carries the ACKs' transmit path as well
    /// as the receive path and FADE throughput drops by a third
    /// (docs/fade.md), so the boards' softirq work stays on their core.
    pub fn build(name: &str, senders: usize, rate_mbit: u32, jumbo: bool) -> Result<SwitchBed> {
        let _ = linerate_testbed::remove_bed(name);
        let names: Vec<String> = (1..=senders).map(|i| format!("feb{i}")).collect();
        let mut hosts: Vec<&str> = names.iter().map(String::as_str).collect();
        hosts.push(RECEIVER);
        let mut builder = Testbed::builder(name);
        builder = builder.hosts(hosts).switch();
        if jumbo {
            builder = builder.mtu(9000);
        }
        let bed = builder.build()?;
        let switch = bed.info().switch_netns.clone().ok_or_else(|| {
            Error::Argument(format!(
                "test bed {name} was built without its switch namespace"
            ))
        })?;
        let port = bed.iface(RECEIVER)?.peer_iface.clone();
        if rate_mbit > 0 {
            shape(&switch, &port, rate_mbit)?;
        }
        let receiver_iface = bed.iface(RECEIVER)?.name.clone();
        Ok(SwitchBed {
            bed,
            senders: names,
            receiver_iface,
        })
    }
}

/// Shapes the bridge's `port` in namespace `switch` to `rate_mbit` by tbf.
fn shape(switch: &str, port: &str, rate_mbit: u32) -> Result<()> {
    let mut tc = linerate_testbed::HostCommand::new(switch, "tc");
    tc.args(["qdisc", "replace", "dev", port, "root", "tbf", "rate"])
        .arg(format!("{rate_mbit}mbit"))
        .args(["burst", "65536", "latency", "10ms"]);
    tc.run_ok()?;
    Ok(())
}

fn apply_setup(bed: &Testbed, setup: HostSetup, sender_if: &str, receiver_if: &str) -> Result<()> {
    match setup {
        HostSetup::Rps => Ok(()),
        HostSetup::RpsGro => {
            ethtool(bed, RECEIVER, receiver_if, "gro", "on")?;
            ethtool(bed, SENDER, sender_if, "tso", "off")
        }
        HostSetup::Napi => {
            ethtool(bed, RECEIVER, receiver_if, "gro", "on")?;
            ethtool(bed, SENDER, sender_if, "tso", "off")?;
            let before = napi_threads(receiver_if);
            let mut cmd = bed.command(RECEIVER, "sh")?;
            cmd.arg("-c")
                .arg(format!("echo 1 > /sys/class/net/{receiver_if}/threaded"));
            cmd.run_ok()?;
            // The kernel starts the NAPI thread asynchronously.
            let mut ours = BTreeSet::new();
            for _ in 0..50 {
                ours = napi_threads(receiver_if)
                    .difference(&before)
                    .copied()
                    .collect();
                if !ours.is_empty() {
                    break;
                }
                thread::sleep(Duration::from_millis(20));
            }
            if ours.is_empty() {
                return Err(Error::Argument(format!(
                    "threaded NAPI on {receiver_if} started no napi/{receiver_if}-* kernel thread; \
                     use --host rps on this kernel"
                )));
            }
            pin_to_receiver(ours)
        }
    }
}

/// Puts every `napi/<iface>-*` kernel thread on the receiving CPU. A
/// program attached later (XDP) may start a new NAPI thread; call this
/// again after it.
pub fn pin_napi_threads(iface: &str) -> Result<()> {
    pin_to_receiver(napi_threads(iface))
}

fn pin_to_receiver(pids: BTreeSet<i32>) -> Result<()> {
    for pid in pids {
        linerate_io::sched::pin_task(pid, &[RECEIVER_CPU]).map_err(|e| {
            Error::Argument(format!(
                "pinning NAPI thread {pid} to CPU {RECEIVER_CPU}: {e}"
            ))
        })?;
    }
    Ok(())
}

fn ethtool(bed: &Testbed, host: &str, iface: &str, feature: &str, value: &str) -> Result<()> {
    let mut cmd = bed.command(host, "ethtool")?;
    cmd.args(["-K", iface, feature, value]);
    cmd.run_ok()?;
    Ok(())
}

/// Pids of the kernel's `napi/<iface>-<id>` threads, machine wide.
fn napi_threads(iface: &str) -> BTreeSet<i32> {
    let prefix = format!("napi/{iface}-");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return BTreeSet::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim_end().starts_with(&prefix))
        })
        .collect()
}
