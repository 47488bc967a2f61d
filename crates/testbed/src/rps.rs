//! RPS (receive packet steering): choosing the CPU that runs a host's
//! receive processing.
//!
//! On veth the receive work (IP, UDP, socket queueing) runs in softirq on
//! the CPU that *sent* the packet unless RPS moves it. Steering the
//! receiving host's interface to its own CPU is what lets one core stand in
//! for "the receiving machine".
//!
//! The mask lives in sysfs, which is per network namespace only through a
//! sysfs mount made inside it; a plain `setns` does not give one, so these
//! helpers read and write it from a thread with its own sysfs mount
//! ([`crate::netns::run_with_sysfs`]), with no outside program.

use crate::error::{Error, Result};
use crate::netns::run_with_sysfs;

pub use crate::cpumask::{cpu_mask, parse_cpu_mask, MAX_CPUS};

/// Checks an interface name before building a sysfs path from it.
fn check_iface(iface: &str) -> Result<()> {
    let ok = !iface.is_empty()
        && iface.len() < 16
        && iface
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
        && iface != "."
        && iface != "..";
    if ok {
        Ok(())
    } else {
        Err(Error::Spec(format!("bad interface name {iface:?}")))
    }
}

fn rps_path(iface: &str) -> Result<String> {
    check_iface(iface)?;
    Ok(format!("/sys/class/net/{iface}/queues/rx-0/rps_cpus"))
}

/// Reads the RPS CPUs of `iface` in `netns` (empty: RPS off).
pub(crate) fn read(netns: &str, iface: &str) -> Result<Vec<usize>> {
    let path = rps_path(iface)?;
    let out = run_with_sysfs(netns, || std::fs::read_to_string(&path))?
        .map_err(|e| Error::io(format!("reading {path} in {netns}"), e))?;
    parse_cpu_mask(&out).map_err(|_| Error::Output {
        cmdline: format!("reading {path} in {netns}"),
        detail: format!("not a cpumask: {out:?}"),
    })
}

/// Steers `iface` in `netns` to `cpus` (empty list: RPS off) and reads the
/// mask back, failing if the kernel did not take it (e.g. offline CPUs).
pub(crate) fn write(netns: &str, iface: &str, cpus: &[usize]) -> Result<()> {
    let mask = if cpus.is_empty() {
        "0".to_owned()
    } else {
        cpu_mask(cpus)?
    };
    let path = rps_path(iface)?;
    run_with_sysfs(netns, || std::fs::write(&path, format!("{mask}\n")))?
        .map_err(|e| Error::io(format!("writing {mask} to {path} in {netns}"), e))?;
    let mut want = cpus.to_vec();
    want.sort_unstable();
    want.dedup();
    let got = read(netns, iface)?;
    if got != want {
        return Err(Error::Output {
            cmdline: format!("writing {mask} to {path} in {netns}"),
            detail: format!("wrote CPUs {want:?} (mask {mask}) but it reads back as {got:?}"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iface_names_are_checked() {
        assert!(rps_path("eth0").is_ok());
        assert!(rps_path("../x").is_err());
        assert!(rps_path("").is_err());
        assert!(rps_path("a b").is_err());
    }
}
