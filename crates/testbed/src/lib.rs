//! A network test bench for linerate: cameras, FPGA boards and PCs as
//! network namespaces on one Linux machine.
//!
//! Moving sensor data at line rate has to be tested against links that
//! behave like the real thing: a given rate (1, 5, 10 GbE), jumbo frames,
//! loss on a chosen stream, and receive processing on a chosen core. This
//! crate builds that out of kernel pieces, with nothing but `ip`, `tc` and
//! `nft`:
//!
//! * **hosts** are named network namespaces `lr-<bed>-<host>`, joined by
//!   veth pairs (point-to-point) or all plugged into a bridge living in its
//!   own namespace `lr-<bed>-switch` (devices sharing a switch);
//! * each host interface gets a deterministic link-local address
//!   169.254.x.y/16 (what a GigE Vision camera without DHCP uses) and a
//!   deterministic MAC;
//! * **rate** limits are tc `tbf` per link direction;
//! * **loss** is nftables, at the device's ingress/egress hooks (netdev
//!   family) or the IP stack's input/output hooks (inet family, where a
//!   dropped send fails with EPERM as behind a host firewall), by UDP port
//!   or ethertype, at random or in deterministic bursts of consecutive
//!   packets, changeable at run time;
//! * **RPS** steers a host's receive softirq work to a chosen CPU, and
//!   [`HostCommand`] / [`Testbed::run_in`] pin programs or Rust threads, so
//!   a single core can stand in for one machine (see [`measure_core`]).
//!
//! Nothing is created in the root namespace. The bed is torn down when the
//! [`Testbed`] is dropped, including during a panic's unwinding.
//!
//! ```no_run
//! use std::time::Duration;
//! use linerate_testbed::{LossRule, Rate, Testbed};
//!
//! let bed = Testbed::builder("doc")
//!     .hosts(["cam", "pc"])
//!     .mtu(9000)
//!     .rate(Rate::gbit(1))
//!     .build()?;
//! bed.ping("cam", "pc", 8000, Duration::from_secs(1))?;
//! bed.set_loss(&LossRule::new("pc", 5.0).udp_dport(20202))?;
//! let mut server = bed.command("pc", "my-receiver")?;
//! server.cpu(1);
//! let child = server.spawn()?;
//! # drop(child);
//! # Ok::<(), linerate_testbed::Error>(())
//! ```
//!
//! Requires root (CAP_NET_ADMIN and CAP_SYS_ADMIN), iproute2 and nftables.

mod bed;
mod cleanup;
mod command;
mod cpumask;
mod error;
mod loss;
pub mod netns;
mod plan;
mod probe;
pub mod rps;
mod spec;
mod status;
mod sys;

pub use bed::{list_beds, netns_exists, remove_all_beds, remove_bed, Testbed, TestbedBuilder};
pub use cleanup::tear_down_on_signal;
pub use command::HostCommand;
pub use error::{Error, Result};
pub use loss::{InstalledLoss, TABLE as LOSS_TABLE};
pub use netns::BedNamespace;
pub use plan::{
    host_addr, mac_for, BedInfo, HostInfo, IfaceInfo, MacAddr, BRIDGE_NAME, PREFIX_LEN,
};
pub use probe::ping_from_current_netns;
pub use spec::{
    netns_name, parse_ethertype, parse_netns_name, validate_mtu, validate_name, Direction,
    LinkSpec, LossBurst, LossLayer, LossMatch, LossRule, Rate, RpsSpec, Shaper, TestbedSpec,
    LOSS_RESOLUTION, MAX_MTU, MIN_MTU, NETNS_PREFIX, SWITCH_HOST,
};
pub use status::{BedStatus, HostLoss};

/// The CPU-accounting crate, re-exported so bench code needs one import.
pub use linerate_metrics as metrics;

/// Runs `f` and returns its result with the busy time of core `cpu`
/// meanwhile.
///
/// This is the honest way to charge a benchmark to one host on a shared
/// machine: pin the host's program to `cpu`, steer its RPS to `cpu`, keep
/// everything else off it, and read that core's /proc/stat counters,
/// which include the softirq receive work that per-process CPU time
/// misattributes.
pub fn measure_core<T>(cpu: usize, f: impl FnOnce() -> T) -> Result<(T, metrics::CoreUsage)> {
    let (out, delta) = metrics::measure(f)?;
    let usage = delta
        .core(cpu)
        .ok_or_else(|| Error::Spec(format!("CPU {cpu} is not online (not in /proc/stat)")))?;
    Ok((out, usage))
}
