//! The checks of `linerate doctor`: pure functions from [`Facts`] and what
//! the stream needs to a verdict, the measured value, the requirement, the
//! reason and the command that fixes it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::facts::{Facts, LinkFacts};

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Good for the stream.
    Ok,
    /// Works, but costs CPU or margin; fix when the stream drops frames or a core saturates.
    Warn,
    /// The stream will lose data: fix before acquiring.
    Fail,
    /// Could not be read or does not apply here.
    Unknown,
}

impl Status {
    /// The word printed in the table.
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::Unknown => "unknown",
        }
    }
}

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Check {
    /// Short name, e.g. "rmem_max".
    pub name: String,
    /// Verdict.
    pub status: Status,
    /// What the host has.
    pub value: String,
    /// What the stream needs.
    pub needed: String,
    /// Why it matters.
    pub why: String,
    /// The command that fixes it, when something needs fixing.
    pub fix: Option<String>,
    /// For `unknown`: why it could not be checked.
    pub note: Option<String>,
}

/// What the stream needs from the host.
#[derive(Debug, Clone, PartialEq)]
pub struct Need {
    /// Stream rate in Gbit/s.
    pub gbit_per_s: f64,
    /// The CPU the receive thread will be pinned to (`grab --cpu`), if any.
    pub receive_cpu: Option<usize>,
}

const MIB: u64 = 1 << 20;

impl Need {
    /// Socket buffer that absorbs ~10 ms of the stream while the receive
    /// thread is not running, at least 16 MiB for a Gbit/s or more (the
    /// APDCAM-10G study's figure for 9 Gbit/s) and 4 MiB below that.
    pub fn socket_buffer(&self) -> u64 {
        let floor = if self.gbit_per_s >= 1.0 {
            16 * MIB
        } else {
            4 * MIB
        };
        let ten_ms = (self.gbit_per_s.max(0.0) * 1e9 / 8.0 * 0.010) as u64;
        floor.max(ten_ms.div_ceil(MIB) * MIB)
    }

    /// netdev_max_backlog: the APDCAM-10G study used 250000 packets for 9 Gbit/s.
    pub fn backlog(&self) -> u64 {
        if self.gbit_per_s >= 1.0 {
            250_000
        } else {
            10_000
        }
    }
}

fn mib(bytes: u64) -> String {
    if bytes % MIB == 0 {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} B ({:.1} MiB)", bytes as f64 / MIB as f64)
    }
}

fn unknown(name: &'static str, value: &str, note: &str, needed: String, why: &str) -> Check {
    Check {
        name: name.into(),
        status: Status::Unknown,
        value: value.into(),
        needed,
        why: why.into(),
        fix: None,
        note: Some(note.into()),
    }
}

/// Every check, in the order they are printed.
pub fn run_checks(facts: &Facts, need: &Need) -> Vec<Check> {
    let mut out = vec![
        rmem_max(facts, need),
        wmem_max(facts, need),
        tcp_rmem(facts, need),
        backlog(facts, need),
        governor(facts),
    ];
    match &facts.link {
        Some(link) => {
            out.push(mtu(link, need));
            out.push(gro(link));
            out.push(lro(link));
            out.push(coalescing(link, need));
            out.push(irq_affinity(link, need));
            out.push(rps(link, need));
        }
        None => out.push(unknown(
            "interface",
            "none given",
            "give --interface IF or --camera IP to check the link",
            "--interface IF or --camera IP".into(),
            "MTU, offloads, interrupts and RPS are checked per interface",
        )),
    }
    out
}

/// The worst verdict decides the exit status.
pub fn any_failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.status == Status::Fail)
}

fn rmem_max(f: &Facts, need: &Need) -> Check {
    let want = need.socket_buffer();
    let why = format!(
        "the UDP receive buffer must hold ~10 ms of a {:.1} Gbit/s stream while the \
         receive thread is descheduled; SO_RCVBUF is capped at rmem_max (root receivers \
         force it past the cap)",
        need.gbit_per_s
    );
    let Some(v) = f.rmem_max else {
        return unknown(
            "rmem_max",
            "unreadable",
            "/proc/sys/net/core/rmem_max could not be read",
            mib(want),
            &why,
        );
    };
    let status = if v >= want {
        Status::Ok
    } else if v >= want / 4 {
        Status::Warn
    } else {
        Status::Fail
    };
    Check {
        name: "rmem_max".into(),
        status,
        value: mib(v),
        needed: format!(">= {}", mib(want)),
        why,
        fix: (status != Status::Ok).then(|| format!("sysctl -w net.core.rmem_max={want}")),
        note: None,
    }
}

fn wmem_max(f: &Facts, need: &Need) -> Check {
    let want = need.socket_buffer();
    let why = "a sender on this host (camera emulator, video server) queues bursts in its \
               send buffer; SO_SNDBUF is capped at wmem_max (the APDCAM-10G study raised both)";
    let Some(v) = f.wmem_max else {
        return unknown(
            "wmem_max",
            "unreadable",
            "/proc/sys/net/core/wmem_max could not be read",
            mib(want),
            why,
        );
    };
    let status = if v >= want { Status::Ok } else { Status::Warn };
    Check {
        name: "wmem_max".into(),
        status,
        value: mib(v),
        needed: format!(">= {}", mib(want)),
        why: why.into(),
        fix: (status != Status::Ok).then(|| format!("sysctl -w net.core.wmem_max={want}")),
        note: None,
    }
}

fn tcp_rmem(f: &Facts, need: &Need) -> Check {
    let want = need.socket_buffer();
    let why = "GVSP over TCP: the receive window autotunes up to tcp_rmem's maximum; \
               too small a window caps throughput at window / round-trip time";
    let Some([min, default, max]) = f.tcp_rmem else {
        return unknown(
            "tcp_rmem",
            "unreadable",
            "/proc/sys/net/ipv4/tcp_rmem could not be read",
            format!("max >= {}", mib(want)),
            why,
        );
    };
    let status = if max >= want {
        Status::Ok
    } else {
        Status::Warn
    };
    Check {
        name: "tcp_rmem".into(),
        status,
        value: format!("{min} {default} {max}"),
        needed: format!("max >= {}", mib(want)),
        why: why.into(),
        fix: (status != Status::Ok)
            .then(|| format!("sysctl -w net.ipv4.tcp_rmem=\"{min} {default} {want}\"")),
        note: None,
    }
}

fn backlog(f: &Facts, need: &Need) -> Check {
    let want = need.backlog();
    let why = "packets wait in a per-CPU backlog between the driver (or veth, or RPS) and \
               the stack; when it is full they are dropped (softnet_stat column 2)";
    let Some(v) = f.netdev_max_backlog else {
        return unknown(
            "netdev_max_backlog",
            "unreadable",
            "host-wide, so the kernel hides it inside a network namespace: run doctor outside one",
            format!(">= {want}"),
            why,
        );
    };
    let status = if v >= want { Status::Ok } else { Status::Warn };
    Check {
        name: "netdev_max_backlog".into(),
        status,
        value: v.to_string(),
        needed: format!(">= {want}"),
        why: why.into(),
        fix: (status != Status::Ok)
            .then(|| format!("sysctl -w net.core.netdev_max_backlog={want}")),
        note: None,
    }
}

fn governor(f: &Facts) -> Check {
    let why = "a power-saving governor lowers the clock between bursts, and the receive \
               thread pays the ramp-up latency on every frame";
    if f.governors.is_empty() {
        return unknown(
            "cpu_governor",
            "no cpufreq",
            "no scaling_governor in sysfs: a virtual machine or a fixed clock",
            "performance".into(),
            why,
        );
    }
    let slow: Vec<String> = f
        .governors
        .iter()
        .filter(|(_, g)| g != "performance")
        .map(|(c, g)| format!("cpu{c}={g}"))
        .collect();
    let mut names: Vec<&str> = f.governors.iter().map(|(_, g)| g.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    Check {
        name: "cpu_governor".into(),
        status: if slow.is_empty() {
            Status::Ok
        } else {
            Status::Warn
        },
        value: if slow.is_empty() {
            names.join(",")
        } else {
            slow.join(" ")
        },
        needed: "performance".into(),
        why: why.into(),
        fix: (!slow.is_empty()).then(|| {
            "echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor".into()
        }),
        note: None,
    }
}

fn mtu(link: &LinkFacts, need: &Need) -> Check {
    let why = "host CPU goes per packet, not per byte (Allied Vision's TCP paper): 9000-byte jumbo frames \
               carry six times the data of 1500-byte ones per interrupt and per syscall";
    let Some(v) = link.mtu else {
        return unknown(
            "mtu",
            "unreadable",
            "neither SIOCGIFMTU nor sysfs gave the MTU",
            ">= 9000".into(),
            why,
        );
    };
    let status = if v >= 9000 || need.gbit_per_s < 1.0 {
        Status::Ok
    } else {
        Status::Warn
    };
    Check {
        name: "mtu".into(),
        status,
        value: format!("{} {v}", link.name),
        needed: if need.gbit_per_s < 1.0 {
            ">= 1500 (9000 saves CPU)".into()
        } else {
            ">= 9000".into()
        },
        why: why.into(),
        fix: (v < 9000).then(|| {
            format!(
                "ip link set dev {} mtu 9000   (the switch and the camera must take jumbo frames too)",
                link.name
            )
        }),
        note: None,
    }
}

fn onoff(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "on",
        Some(false) => "off",
        None => "unknown",
    }
}

fn gro(link: &LinkFacts) -> Check {
    let why = "GRO merges a flow's packets before the stack sees them: fewer per-packet \
               trips for GVSP over TCP, and UDP trains for the GRO receive backend";
    let status = match link.gro {
        Some(true) => Status::Ok,
        Some(false) => Status::Warn,
        None => Status::Unknown,
    };
    Check {
        name: "gro".into(),
        status,
        value: format!("{} {}", link.name, onoff(link.gro)),
        needed: "on".into(),
        why: why.into(),
        fix: (link.gro == Some(false)).then(|| format!("ethtool -K {} gro on", link.name)),
        note: None,
    }
}

fn lro(link: &LinkFacts) -> Check {
    let why = "LRO coalesces TCP segments in the NIC: Allied Vision's TCP stream halved its \
               busiest core with it; UDP streams do not need it, and it breaks routing";
    Check {
        name: "lro".into(),
        status: if link.lro.is_some() {
            Status::Ok
        } else {
            Status::Unknown
        },
        value: format!("{} {}", link.name, onoff(link.lro)),
        needed: "on for GVSP over TCP, if the NIC has it".into(),
        why: why.into(),
        fix: (link.lro == Some(false)).then(|| {
            format!(
                "ethtool -K {} lro on   (only for TCP transport on a host that does not route)",
                link.name
            )
        }),
        note: None,
    }
}

fn coalescing(link: &LinkFacts, need: &Need) -> Check {
    let why = "with no interrupt coalescing every packet raises an interrupt; a few tens \
               of microseconds of coalescing cut interrupts many-fold at multi-Gbit/s";
    let Some(c) = link.coalesce else {
        return unknown(
            "irq_coalescing",
            &format!("{} not reported", link.name),
            "the driver does not answer ETHTOOL_GCOALESCE (virtual interfaces have no interrupts)",
            "rx-usecs > 0 or adaptive-rx on".into(),
            why,
        );
    };
    let coalesced = c.adaptive_rx || c.rx_usecs > 0 || c.rx_max_frames > 1;
    let status = if coalesced || need.gbit_per_s < 1.0 {
        Status::Ok
    } else {
        Status::Warn
    };
    Check {
        name: "irq_coalescing".into(),
        status,
        value: format!(
            "{} rx-usecs {} rx-frames {} adaptive-rx {}",
            link.name,
            c.rx_usecs,
            c.rx_max_frames,
            if c.adaptive_rx { "on" } else { "off" }
        ),
        needed: "rx-usecs > 0 or adaptive-rx on".into(),
        why: why.into(),
        fix: (status != Status::Ok).then(|| {
            format!(
                "ethtool -C {} adaptive-rx on   (or: rx-usecs 50)",
                link.name
            )
        }),
        note: None,
    }
}

fn list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn irq_affinity(link: &LinkFacts, need: &Need) -> Check {
    let why = "the interrupt's softirq work (protocol processing) runs on the CPU that \
               takes the interrupt; on the receive thread's CPU the two compete for one core";
    if link.irqs.is_empty() {
        return unknown(
            "irq_affinity",
            &format!("{} no IRQs found", link.name),
            "no line of /proc/interrupts names the interface or its device (virtual interfaces have none)",
            "IRQs off the receive thread's CPU".into(),
            why,
        );
    }
    let value = link
        .irqs
        .iter()
        .map(|i| {
            format!(
                "{}→{}",
                i.number,
                i.affinity.as_deref().map_or("?".into(), list)
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    let Some(rx) = need.receive_cpu else {
        return Check {
            name: "irq_affinity".into(),
            status: Status::Ok,
            value,
            needed: "give --cpu N to check against the receive thread".into(),
            why: why.into(),
            fix: None,
            note: None,
        };
    };
    let clashing: Vec<u32> = link
        .irqs
        .iter()
        .filter(|i| i.affinity.as_ref().is_some_and(|a| a.contains(&rx)))
        .map(|i| i.number)
        .collect();
    let other = if rx == 0 { 1 } else { 0 };
    Check {
        name: "irq_affinity".into(),
        status: if clashing.is_empty() {
            Status::Ok
        } else {
            Status::Warn
        },
        value,
        needed: format!("no IRQ on CPU {rx} (the receive thread's)"),
        why: why.into(),
        fix: (!clashing.is_empty()).then(|| {
            clashing
                .iter()
                .map(|n| format!("echo {other} > /proc/irq/{n}/smp_affinity_list"))
                .collect::<Vec<_>>()
                .join("; ")
        }),
        note: None,
    }
}

fn rps(link: &LinkFacts, need: &Need) -> Check {
    let why = "RPS moves protocol processing from the interrupted CPU to others: useful \
               when one queue's interrupts land on the receive thread's CPU";
    if link.rps.is_empty() {
        return unknown(
            "rps",
            &format!("{} no rx queues", link.name),
            "sysfs shows no rx queues: outside the namespace's own sysfs mount (use ip netns exec)",
            "optional".into(),
            why,
        );
    }
    let value = link
        .rps
        .iter()
        .map(|(q, m)| {
            let cpus = match m.as_deref() {
                None => "?".to_owned(),
                Some([]) => "off".to_owned(),
                Some(c) => list(c),
            };
            format!("{q}:{cpus}")
        })
        .collect::<Vec<_>>()
        .join(" ");
    let clash = need.receive_cpu.is_some_and(|rx| {
        link.rps
            .iter()
            .any(|(_, m)| m.as_ref().is_some_and(|m| m.contains(&rx)))
    });
    let fix = need.receive_cpu.filter(|_| clash).map(|rx| {
        let other = if rx == 0 { 1 } else { 0 };
        let mask = linerate_testbed::rps::cpu_mask(&[other]).unwrap_or_else(|_| "1".into());
        format!(
            "echo {mask} > /sys/class/net/{}/queues/rx-0/rps_cpus   (for each rx queue)",
            link.name
        )
    });
    Check {
        name: "rps".into(),
        status: if clash { Status::Warn } else { Status::Ok },
        value,
        needed: match need.receive_cpu {
            Some(rx) => format!("not CPU {rx} (the receive thread's), or off"),
            None => "optional".into(),
        },
        why: why.into(),
        fix,
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::Irq;
    use linerate_io::netdev::Coalesce;

    fn need(gbit: f64, cpu: Option<usize>) -> Need {
        Need {
            gbit_per_s: gbit,
            receive_cpu: cpu,
        }
    }

    fn tuned() -> Facts {
        Facts {
            rmem_max: Some(16 * MIB),
            wmem_max: Some(16 * MIB),
            netdev_max_backlog: Some(250_000),
            tcp_rmem: Some([4096, 131072, 16 * MIB]),
            governors: vec![(0, "performance".into()), (1, "performance".into())],
            cpus: 2,
            link: Some(LinkFacts {
                name: "eth1".into(),
                mtu: Some(9000),
                speed_mbps: Some(10_000),
                gro: Some(true),
                lro: Some(false),
                coalesce: Some(Coalesce {
                    rx_usecs: 50,
                    rx_max_frames: 0,
                    adaptive_rx: false,
                }),
                irqs: vec![Irq {
                    number: 40,
                    label: "eth1-TxRx-0".into(),
                    affinity: Some(vec![0]),
                }],
                rps: vec![("rx-0".into(), Some(vec![]))],
            }),
        }
    }

    fn by_name<'a>(checks: &'a [Check], name: &str) -> &'a Check {
        checks
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no check {name}"))
    }

    #[test]
    fn a_tuned_host_passes_every_check() {
        let checks = run_checks(&tuned(), &need(9.0, Some(1)));
        for c in &checks {
            assert_eq!(c.status, Status::Ok, "{c:?}");
        }
        assert!(!any_failed(&checks));
        assert_eq!(checks.len(), 11);
    }

    #[test]
    fn buffer_need_follows_the_rate() {
        assert_eq!(need(9.0, None).socket_buffer(), 16 * MIB);
        assert_eq!(need(0.5, None).socket_buffer(), 4 * MIB);
        // 40 Gbit/s: 50 MB in 10 ms, rounded up to whole MiB.
        assert_eq!(need(40.0, None).socket_buffer(), 48 * MIB);
        assert_eq!(need(9.0, None).backlog(), 250_000);
    }

    #[test]
    fn default_buffers_fail_and_say_how_to_fix() {
        let mut f = tuned();
        f.rmem_max = Some(212_992);
        f.wmem_max = Some(212_992);
        f.tcp_rmem = Some([4096, 131072, 6_291_456]);
        f.netdev_max_backlog = Some(1000);
        let checks = run_checks(&f, &need(9.0, None));
        let r = by_name(&checks, "rmem_max");
        assert_eq!(r.status, Status::Fail);
        assert_eq!(
            r.fix.as_deref(),
            Some("sysctl -w net.core.rmem_max=16777216")
        );
        assert!(any_failed(&checks));
        assert_eq!(by_name(&checks, "wmem_max").status, Status::Warn);
        let t = by_name(&checks, "tcp_rmem");
        assert_eq!(t.status, Status::Warn);
        assert_eq!(
            t.fix.as_deref(),
            Some("sysctl -w net.ipv4.tcp_rmem=\"4096 131072 16777216\"")
        );
        let b = by_name(&checks, "netdev_max_backlog");
        assert_eq!(b.status, Status::Warn);
        assert_eq!(
            b.fix.as_deref(),
            Some("sysctl -w net.core.netdev_max_backlog=250000")
        );
        // 8 MiB is a quarter or more of 16 MiB: a warning, not a failure.
        f.rmem_max = Some(8 * MIB);
        assert_eq!(
            by_name(&run_checks(&f, &need(9.0, None)), "rmem_max").status,
            Status::Warn
        );
    }

    #[test]
    fn mtu_flips_at_jumbo_and_is_fine_for_slow_streams() {
        let mut f = tuned();
        if let Some(l) = f.link.as_mut() {
            l.mtu = Some(1500);
        }
        let m = by_name(&run_checks(&f, &need(4.3, None)), "mtu").clone();
        assert_eq!(m.status, Status::Warn);
        assert_eq!(
            m.fix
                .as_deref()
                .map(|s| s.starts_with("ip link set dev eth1 mtu 9000")),
            Some(true)
        );
        assert_eq!(
            by_name(&run_checks(&f, &need(0.1, None)), "mtu").status,
            Status::Ok
        );
        assert_eq!(
            by_name(&run_checks(&tuned(), &need(4.3, None)), "mtu").fix,
            None
        );
    }

    #[test]
    fn offloads_and_coalescing() {
        let mut f = tuned();
        if let Some(l) = f.link.as_mut() {
            l.gro = Some(false);
            l.lro = None;
            l.coalesce = Some(Coalesce::default());
        }
        let checks = run_checks(&f, &need(9.0, None));
        let g = by_name(&checks, "gro");
        assert_eq!(
            (g.status, g.fix.as_deref()),
            (Status::Warn, Some("ethtool -K eth1 gro on"))
        );
        assert_eq!(by_name(&checks, "lro").status, Status::Unknown);
        let c = by_name(&checks, "irq_coalescing");
        assert_eq!(c.status, Status::Warn);
        assert!(c
            .fix
            .as_deref()
            .is_some_and(|f| f.starts_with("ethtool -C eth1 adaptive-rx on")));
        if let Some(l) = f.link.as_mut() {
            l.coalesce = None;
        }
        let c = by_name(&run_checks(&f, &need(9.0, None)), "irq_coalescing").clone();
        assert_eq!(c.status, Status::Unknown);
        assert!(
            c.note
                .as_deref()
                .is_some_and(|n| n.contains("ETHTOOL_GCOALESCE")),
            "{c:?}"
        );
    }

    #[test]
    fn governor_absent_is_unknown_and_powersave_warns() {
        let mut f = tuned();
        f.governors.clear();
        let g = by_name(&run_checks(&f, &need(9.0, None)), "cpu_governor").clone();
        assert_eq!(g.status, Status::Unknown);
        assert!(g.value.contains("no cpufreq"));
        f.governors = vec![(0, "performance".into()), (1, "powersave".into())];
        let g = by_name(&run_checks(&f, &need(9.0, None)), "cpu_governor").clone();
        assert_eq!(g.status, Status::Warn);
        assert_eq!(g.value, "cpu1=powersave");
        assert!(g.fix.is_some());
    }

    #[test]
    fn irqs_and_rps_on_the_receive_cpu_warn_with_a_fix() {
        let mut f = tuned();
        if let Some(l) = f.link.as_mut() {
            l.irqs.push(Irq {
                number: 41,
                label: "eth1-TxRx-1".into(),
                affinity: Some(vec![0, 1]),
            });
            l.rps = vec![("rx-0".into(), Some(vec![1]))];
        }
        let checks = run_checks(&f, &need(9.0, Some(1)));
        let i = by_name(&checks, "irq_affinity");
        assert_eq!(i.status, Status::Warn);
        assert_eq!(i.value, "40→0 41→0,1");
        assert_eq!(
            i.fix.as_deref(),
            Some("echo 0 > /proc/irq/41/smp_affinity_list")
        );
        let r = by_name(&checks, "rps");
        assert_eq!(r.status, Status::Warn);
        assert!(r
            .fix
            .as_deref()
            .is_some_and(|f| f.starts_with("echo 1 > /sys/class/net/eth1/queues/rx-0/rps_cpus")));
        // Without --cpu there is nothing to clash with.
        let checks = run_checks(&f, &need(9.0, None));
        assert_eq!(by_name(&checks, "irq_affinity").status, Status::Ok);
        assert_eq!(by_name(&checks, "rps").status, Status::Ok);
        // A virtual interface has no IRQs at all.
        if let Some(l) = f.link.as_mut() {
            l.irqs.clear();
        }
        let i = by_name(&run_checks(&f, &need(9.0, Some(1))), "irq_affinity").clone();
        assert_eq!(i.status, Status::Unknown);
    }

    #[test]
    fn unreadable_facts_are_unknown_not_failures() {
        let f = Facts::default();
        let checks = run_checks(&f, &need(9.0, None));
        assert!(!any_failed(&checks));
        assert!(
            checks.iter().all(|c| c.status == Status::Unknown),
            "{checks:?}"
        );
        assert_eq!(by_name(&checks, "interface").value, "none given");
        // Every unknown says why; nothing else carries a note.
        assert!(checks.iter().all(|c| c.note.is_some()), "{checks:?}");
        assert!(run_checks(&tuned(), &need(9.0, Some(1)))
            .iter()
            .all(|c| c.note.is_none()));
    }
}
