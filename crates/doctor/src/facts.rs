//! What `linerate doctor` reads about the host: sysctls, the CPU frequency
//! governors, and one interface's settings, interrupts and RPS masks.
//!
//! File readers take a `/proc` and a `/sys` root so tests run them on fake
//! trees; settings only an ioctl reveals (GRO, LRO, coalescing) are filled
//! in by [`Facts::probe`] and given directly in tests.

use std::path::{Path, PathBuf};

use linerate_io::netdev::Coalesce;
use linerate_metrics::cpu::parse_cpu_list;

/// Everything the checks judge. `None` means "could not be read".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// net.core.rmem_max.
    pub rmem_max: Option<u64>,
    /// net.core.wmem_max.
    pub wmem_max: Option<u64>,
    /// net.core.netdev_max_backlog.
    pub netdev_max_backlog: Option<u64>,
    /// net.ipv4.tcp_rmem: min, default, max.
    pub tcp_rmem: Option<[u64; 3]>,
    /// `(cpu, governor)` for every CPU with cpufreq; empty when the host
    /// has none (virtual machines, fixed-frequency boards).
    pub governors: Vec<(usize, String)>,
    /// CPUs online.
    pub cpus: usize,
    /// The interface the stream arrives on, when one was named.
    pub link: Option<LinkFacts>,
}

/// One interface's receive-side state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkFacts {
    /// Device name.
    pub name: String,
    /// MTU in bytes.
    pub mtu: Option<u32>,
    /// Link speed in Mbit/s, when the driver reports one (an up veth
    /// claims 10000; a down one and loopback report none).
    pub speed_mbps: Option<u64>,
    /// Generic receive offload.
    pub gro: Option<bool>,
    /// Large receive offload.
    pub lro: Option<bool>,
    /// Receive interrupt coalescing; `None` when the driver has none.
    pub coalesce: Option<Coalesce>,
    /// The interface's hardware interrupts.
    pub irqs: Vec<Irq>,
    /// `(queue, CPUs)` of every rx queue's RPS mask; `None` for an
    /// unreadable mask.
    pub rps: Vec<(String, Option<Vec<usize>>)>,
}

/// One interrupt line of the interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Irq {
    /// IRQ number.
    pub number: u32,
    /// The name in /proc/interrupts (e.g. "eth0-rx-0").
    pub label: String,
    /// CPUs allowed to service it (`smp_affinity_list`).
    pub affinity: Option<Vec<usize>>,
}

/// Where the `/proc` and `/sys` trees are: `/proc` and `/sys` on a live host.
#[derive(Debug, Clone)]
pub struct Roots {
    /// The `/proc` root.
    pub proc: PathBuf,
    /// The `/sys` root.
    pub sys: PathBuf,
}

impl Default for Roots {
    fn default() -> Self {
        Roots {
            proc: PathBuf::from("/proc"),
            sys: PathBuf::from("/sys"),
        }
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_owned())
}

fn number(path: &Path) -> Option<u64> {
    read(path)?.parse().ok()
}

impl Facts {
    /// Reads the host-wide settings and, for `interface`, what its files
    /// tell; ioctl-only settings stay `None`.
    pub fn read(roots: &Roots, interface: Option<&str>) -> Facts {
        let sysctl = |p: &str| roots.proc.join("sys").join(p);
        let tcp_rmem = read(&sysctl("net/ipv4/tcp_rmem")).and_then(|t| {
            let v: Vec<u64> = t
                .split_ascii_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            <[u64; 3]>::try_from(v).ok()
        });
        let cpu_dir = roots.sys.join("devices/system/cpu");
        let online = read(&cpu_dir.join("online")).and_then(|t| parse_cpu_list(&t));
        let mut governors = Vec::new();
        for cpu in online.clone().unwrap_or_default() {
            let path = cpu_dir.join(format!("cpu{cpu}/cpufreq/scaling_governor"));
            if let Some(g) = read(&path) {
                governors.push((cpu, g));
            }
        }
        Facts {
            rmem_max: number(&sysctl("net/core/rmem_max")),
            wmem_max: number(&sysctl("net/core/wmem_max")),
            netdev_max_backlog: number(&sysctl("net/core/netdev_max_backlog")),
            tcp_rmem,
            governors,
            cpus: online.map_or(0, |o| o.len()),
            link: interface.map(|name| LinkFacts::read(roots, name)),
        }
    }

    /// Reads the live host, with the interface's ioctl-only settings.
    pub fn probe(interface: Option<&str>) -> Facts {
        let mut facts = Facts::read(&Roots::default(), interface);
        if let Some(link) = facts.link.as_mut() {
            if let Ok(o) = linerate_io::netdev::offloads(&link.name) {
                if o.mtu > 0 {
                    link.mtu = Some(o.mtu);
                }
                link.gro = o.gro;
                link.lro = o.lro;
            }
            link.coalesce = linerate_io::netdev::coalesce(&link.name).ok().flatten();
        }
        facts
    }
}

impl LinkFacts {
    /// What `/sys/class/net/NAME` and `/proc/interrupts` tell about `name`.
    pub fn read(roots: &Roots, name: &str) -> LinkFacts {
        let dev = roots.sys.join("class/net").join(name);
        // Speed is -1 (or unreadable) when the driver has no notion of it.
        let speed_mbps = read(&dev.join("speed"))
            .and_then(|s| s.parse::<i64>().ok())
            .and_then(|s| u64::try_from(s).ok())
            .filter(|s| *s > 0);
        let mut rps = Vec::new();
        if let Ok(entries) = std::fs::read_dir(dev.join("queues")) {
            let mut queues: Vec<String> = entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|q| q.starts_with("rx-"))
                .collect();
            queues.sort();
            for q in queues {
                let mask = read(&dev.join("queues").join(&q).join("rps_cpus"))
                    .and_then(|m| linerate_testbed::rps::parse_cpu_mask(&m).ok());
                rps.push((q, mask));
            }
        }
        LinkFacts {
            name: name.to_owned(),
            mtu: number(&dev.join("mtu")).and_then(|m| u32::try_from(m).ok()),
            speed_mbps,
            gro: None,
            lro: None,
            coalesce: None,
            irqs: irqs(roots, name, &dev),
            rps,
        }
    }
}

/// The interface's IRQs: lines of /proc/interrupts naming it, plus the
/// MSI vectors its PCI device lists (drivers often name vectors after the
/// PCI address, not the interface).
fn irqs(roots: &Roots, name: &str, dev: &Path) -> Vec<Irq> {
    // The device behind the interface: virtio NICs name their vectors
    // "virtio2-input.0", some PCI drivers "mlx5_comp0@pci:0000:03:00.0".
    let device = std::fs::read_link(dev.join("device"))
        .ok()
        .and_then(|p| Some(p.file_name()?.to_string_lossy().into_owned()));
    let names_device = |label: &str, name: &str| {
        let prefixed = |who: &str| {
            label == who
                || label
                    .strip_prefix(who)
                    .is_some_and(|r| r.starts_with(['-', '@', ':', '_']))
        };
        prefixed(name)
            || device.as_deref().is_some_and(|d| {
                prefixed(d) || (d.contains(':') && label.ends_with(&format!("@pci:{d}")))
            })
    };
    let mut numbers: Vec<(u32, String)> = Vec::new();
    let msi: Vec<u32> = std::fs::read_dir(dev.join("device/msi_irqs"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    for line in read(&roots.proc.join("interrupts"))
        .unwrap_or_default()
        .lines()
    {
        let Some((num, rest)) = line.trim_start().split_once(':') else {
            continue;
        };
        let Ok(number) = num.trim().parse::<u32>() else {
            continue;
        };
        let label = rest
            .split_ascii_whitespace()
            .last()
            .unwrap_or("")
            .to_owned();
        if names_device(&label, name) || msi.contains(&number) {
            numbers.push((number, label));
        }
    }
    numbers
        .into_iter()
        .map(|(number, label)| Irq {
            number,
            label,
            affinity: read(&roots.proc.join(format!("irq/{number}/smp_affinity_list")))
                .and_then(|t| parse_cpu_list(&t)),
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fake `/proc` + `/sys` pair under the temp dir, removed on drop.
    pub struct FakeRoot {
        pub roots: Roots,
        dir: PathBuf,
    }

    impl FakeRoot {
        pub fn new(tag: &str) -> FakeRoot {
            let dir = std::env::temp_dir().join(format!("lr-doctor-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            FakeRoot {
                roots: Roots {
                    proc: dir.join("proc"),
                    sys: dir.join("sys"),
                },
                dir,
            }
        }

        pub fn file(&self, rel: &str, text: &str) -> &Self {
            let path = self.dir.join(rel);
            std::fs::create_dir_all(path.parent().expect("has parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
            self
        }
    }

    impl Drop for FakeRoot {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    const INTERRUPTS: &str = "           CPU0       CPU1
 24:          1          0  IO-APIC   5-edge      ACPI:Ged
 40:       9000          0  PCI-MSIX-0000:03:00.0   0-edge      eth1-TxRx-0
 41:          0       8000  PCI-MSIX-0000:03:00.0   1-edge      eth1-TxRx-1
 42:          5          0  PCI-MSIX-0000:03:00.0   2-edge      eth10
 43:          5          0  PCI-MSIX-0000:03:00.0   3-edge      mlx5_comp0@pci:0000:03:00.0
NMI:          0          0   Non-maskable interrupts
";

    const VIRTIO_INTERRUPTS: &str = "           CPU0       CPU1
 33:          0          0 PCI-MSIX-0000:00:05.0   0-edge      virtio4-config
 38:          0       7388 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0
 39:       5564          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0
 40:          0          0 PCI-MSIX-0000:00:04.0   0-edge      virtio20-config
";

    #[test]
    fn reads_sysctls_governors_and_a_link_from_fake_roots() {
        let f = FakeRoot::new("read");
        f.file("proc/sys/net/core/rmem_max", "212992\n")
            .file("proc/sys/net/core/wmem_max", "16777216\n")
            .file("proc/sys/net/core/netdev_max_backlog", "1000\n")
            .file("proc/sys/net/ipv4/tcp_rmem", "4096\t131072\t6291456\n")
            .file("sys/devices/system/cpu/online", "0-1\n")
            .file(
                "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
                "powersave\n",
            )
            .file(
                "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor",
                "performance\n",
            )
            .file("proc/interrupts", INTERRUPTS)
            .file("proc/irq/40/smp_affinity_list", "0\n")
            .file("proc/irq/41/smp_affinity_list", "0-1\n")
            .file("proc/irq/43/smp_affinity_list", "1\n")
            .file("sys/class/net/eth1/mtu", "9000\n")
            .file("sys/class/net/eth1/speed", "10000\n")
            .file("sys/class/net/eth1/queues/rx-0/rps_cpus", "2\n")
            .file("sys/class/net/eth1/queues/tx-0/xps_cpus", "0\n")
            .file("sys/class/net/eth1/device/msi_irqs/43", "msix\n");
        let facts = Facts::read(&f.roots, Some("eth1"));
        f.file("proc/interrupts", VIRTIO_INTERRUPTS)
            .file("sys/devices/virtio2/uevent", "")
            .file("sys/class/net/eth0/mtu", "1500\n");
        std::os::unix::fs::symlink(
            f.roots.sys.join("devices/virtio2"),
            f.roots.sys.join("class/net/eth0/device"),
        )
        .expect("symlink");
        let virtio = LinkFacts::read(&f.roots, "eth0");
        let numbers: Vec<u32> = virtio.irqs.iter().map(|i| i.number).collect();
        assert_eq!(numbers, vec![38, 39]);
        assert_eq!(facts.rmem_max, Some(212992));
        assert_eq!(facts.wmem_max, Some(16777216));
        assert_eq!(facts.netdev_max_backlog, Some(1000));
        assert_eq!(facts.tcp_rmem, Some([4096, 131072, 6291456]));
        assert_eq!(facts.cpus, 2);
        assert_eq!(
            facts.governors,
            vec![(0, "powersave".into()), (1, "performance".into())]
        );
        let link = facts.link.expect("link");
        assert_eq!(link.mtu, Some(9000));
        assert_eq!(link.speed_mbps, Some(10000));
        assert_eq!(link.rps, vec![("rx-0".into(), Some(vec![1]))]);
        let irqs: Vec<(u32, Option<Vec<usize>>)> = link
            .irqs
            .iter()
            .map(|i| (i.number, i.affinity.clone()))
            .collect();
        // eth10 is another interface; 43 is found through msi_irqs.
        assert_eq!(
            irqs,
            vec![
                (40, Some(vec![0])),
                (41, Some(vec![0, 1])),
                (43, Some(vec![1]))
            ]
        );
    }

    #[test]
    fn an_empty_root_reads_as_unknown() {
        let f = FakeRoot::new("empty");
        let facts = Facts::read(&f.roots, Some("veth0"));
        assert_eq!(facts.rmem_max, None);
        assert!(facts.governors.is_empty());
        let link = facts.link.expect("link");
        assert_eq!(link.mtu, None);
        assert!(link.irqs.is_empty() && link.rps.is_empty());
    }
}
