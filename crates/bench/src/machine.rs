//! A description of the machine a bench ran on, so a table is never read
//! without knowing where it came from.

use std::process::Command;

use serde::Serialize;

/// The machine and the versions of the programs compared.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Machine {
    /// `uname -r`.
    pub kernel: String,
    /// The CPU model from /proc/cpuinfo.
    pub cpu_model: String,
    /// Online CPUs.
    pub cpus: usize,
    /// Physical memory, GiB.
    pub memory_gib: f64,
    /// Whether the kernel runs under a hypervisor (cpuinfo's flag).
    pub virtualised: bool,
    /// linerate's version.
    pub linerate: String,
    /// Aravis's version, if installed.
    pub aravis: Option<String>,
    /// iperf3's version, if installed.
    pub iperf3: Option<String>,
    /// The 1-minute load average when the bench started: other work on the
    /// machine spoils CPU figures.
    pub load_average_at_start: Option<f64>,
}

impl Machine {
    /// Reads the description of this machine.
    pub fn describe() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        Machine {
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .map(|s| s.trim().to_owned())
                .unwrap_or_default(),
            cpu_model: cpuinfo_value(&cpuinfo, "model name").unwrap_or_else(|| "unknown".into()),
            cpus: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            memory_gib: meminfo_kib(&meminfo, "MemTotal").unwrap_or(0) as f64 / 1024.0 / 1024.0,
            virtualised: cpuinfo_value(&cpuinfo, "flags")
                .is_some_and(|f| f.split_whitespace().any(|x| x == "hypervisor")),
            linerate: env!("CARGO_PKG_VERSION").to_owned(),
            aravis: first_line("arv-tool-0.8", &["--version"]),
            iperf3: first_line("iperf3", &["--version"]),
            load_average_at_start: std::fs::read_to_string("/proc/loadavg")
                .ok()
                .and_then(|s| s.split_whitespace().next()?.parse().ok()),
        }
    }

    /// A one-line description for report headers.
    pub fn one_line(&self) -> String {
        format!(
            "{} ({} CPUs{}), {:.0} GiB, Linux {}, load {}",
            self.cpu_model,
            self.cpus,
            if self.virtualised {
                ", virtual machine"
            } else {
                ""
            },
            self.memory_gib,
            self.kernel,
            self.load_average_at_start
                .map(|l| format!("{l:.2}"))
                .unwrap_or_else(|| "?".into())
        )
    }
}

fn cpuinfo_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_owned())
    })
}

fn meminfo_kib(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.split_whitespace().next()?.parse().ok())?
    })
}

fn first_line(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read() {
        let cpuinfo =
            "processor\t: 0\nmodel name\t: Example CPU @ 3GHz\nflags\t\t: fpu hypervisor sse\n";
        assert_eq!(
            cpuinfo_value(cpuinfo, "model name").as_deref(),
            Some("Example CPU @ 3GHz")
        );
        assert_eq!(
            meminfo_kib("MemTotal:       24576000 kB\n", "MemTotal"),
            Some(24_576_000)
        );
        let m = Machine::describe();
        assert!(m.cpus >= 1);
        assert!(m.one_line().contains("CPUs"));
    }
}
