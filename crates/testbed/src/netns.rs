//! Entering namespaces from Rust threads, and finding our namespaces.
//!
//! A network namespace is per *thread*: a thread that `setns`es into a host
//! and opens a socket leaves that socket bound to the host's stack for its
//! whole life, even when used from other threads later. So tests can run a
//! sender and a receiver "on" two hosts as plain Rust code, with no child
//! processes.

use std::fs::File;
use std::path::Path;
use std::sync::Mutex;
use std::thread::JoinHandle;

use linerate_io::netns::{
    enter_network_namespace, remount_sysfs, stop_mount_propagation, unshare_mount_namespace,
};
use linerate_io::sched::{pin_current_thread_to, MAX_CPUS};

use crate::error::{Error, Result};
use crate::spec::{parse_netns_name, NETNS_PREFIX};
use linerate_io::process::{send_signal, Signal};

/// Where `ip netns` keeps its named namespaces.
pub const NETNS_DIR: &str = "/run/netns";

/// Checks a CPU list, rejecting an empty one and numbers the kernel
/// interface cannot hold, so the error comes before any thread or child.
pub(crate) fn cpu_set(cpus: &[usize]) -> Result<Vec<usize>> {
    if cpus.is_empty() {
        return Err(Error::Spec("CPU list is empty".into()));
    }
    if let Some(c) = cpus.iter().find(|&&c| c >= MAX_CPUS) {
        return Err(Error::Spec(format!("CPU {c} out of range 0..{MAX_CPUS}")));
    }
    Ok(cpus.to_vec())
}

/// Moves the calling thread into `netns` and optionally onto `cpus`.
fn enter(netns: &str, cpus: Option<&[usize]>) -> Result<()> {
    let path = Path::new(NETNS_DIR).join(netns);
    let f = File::open(&path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
    enter_network_namespace(&f)
        .map_err(|e| Error::io(format!("setns into network namespace {netns}"), e))?;
    if let Some(set) = cpus {
        pin_current_thread_to(set).map_err(|e| Error::io("sched_setaffinity".to_string(), e))?;
    }
    Ok(())
}

/// Runs `f` on a fresh thread inside `netns` (pinned to `cpus` if given)
/// and waits for it. A panic in `f` is propagated to the caller.
///
/// A fresh thread, because the calling thread must stay in its own
/// namespace.
pub fn run_in_netns<T, F>(netns: &str, cpus: Option<&[usize]>, f: F) -> Result<T>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    let set = cpus.map(cpu_set).transpose()?;
    std::thread::scope(|s| {
        let h = s.spawn(|| -> Result<T> {
            enter(netns, set.as_deref())?;
            Ok(f())
        });
        match h.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Runs `f` on a fresh thread inside `netns` whose `/sys` shows that
/// namespace's interfaces (as `ip netns exec` arranges for a program),
/// with no program run: the thread gets a mount namespace of its own,
/// made a slave of the host's so nothing propagates back, and mounts a
/// sysfs there after entering `netns` (sysfs lists the devices of the
/// network namespace it was mounted in). The mount namespace ends with
/// the thread.
pub fn run_with_sysfs<T, F>(netns: &str, f: F) -> Result<T>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    std::thread::scope(|s| {
        let h = s.spawn(|| -> Result<T> {
            // A thread may take its own mount namespace: CLONE_NEWNS
            // unshares the thread's filesystem context with it.
            unshare_mount_namespace()
                .map_err(|e| Error::io("unshare(CLONE_NEWNS) for a private /sys", e))?;
            stop_mount_propagation().map_err(|e| Error::io("making / a slave mount", e))?;
            enter(netns, None)?;
            remount_sysfs().map_err(|e| Error::io(format!("mounting sysfs for {netns}"), e))?;
            Ok(f())
        });
        match h.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Starts `f` on a background thread inside `netns` (pinned to `cpus` if
/// given). Returns once the thread is in the namespace, so an error to
/// enter it is reported here rather than lost in the thread.
pub fn spawn_in_netns<T, F>(netns: &str, cpus: Option<&[usize]>, f: F) -> Result<JoinHandle<T>>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let set = cpus.map(cpu_set).transpose()?;
    let netns = netns.to_owned();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<()>>(1);
    let handle = std::thread::Builder::new()
        .name(format!("in-{netns}"))
        .spawn(move || {
            let entered = enter(&netns, set.as_deref());
            let ok = entered.is_ok();
            // The receiver only goes away if spawn_in_netns itself is gone.
            let _ = tx.send(entered);
            if !ok {
                // Never run user code in the wrong namespace. The error went
                // to the caller; resume_unwind ends the thread without
                // printing a panic message.
                std::panic::resume_unwind(Box::new("could not enter namespace"));
            }
            f()
        })
        .map_err(|e| Error::io("spawning thread", e))?;
    match rx.recv() {
        Ok(Ok(())) => Ok(handle),
        Ok(Err(e)) => {
            let _ = handle.join();
            Err(e)
        }
        Err(_) => Err(Error::io(
            "thread entering namespace",
            std::io::Error::other("thread died before entering the namespace"),
        )),
    }
}

/// All namespace names in [`NETNS_DIR`] (empty if it does not exist).
pub fn all_namespaces() -> Result<Vec<String>> {
    let dir = match std::fs::read_dir(NETNS_DIR) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("listing {NETNS_DIR}"), e)),
    };
    let mut v = Vec::new();
    for entry in dir {
        let entry = entry.map_err(|e| Error::io(format!("listing {NETNS_DIR}"), e))?;
        if let Some(name) = entry.file_name().to_str() {
            v.push(name.to_owned());
        }
    }
    v.sort();
    Ok(v)
}

/// A namespace that belongs to some bed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BedNamespace {
    /// Full namespace name.
    pub netns: String,
    /// Bed it belongs to.
    pub bed: String,
    /// Host name (or `switch`).
    pub host: String,
}

/// Picks out our namespaces (`lr-<bed>-<host>`) from a list of names.
pub fn filter_bed_namespaces(names: &[String]) -> Vec<BedNamespace> {
    names
        .iter()
        .filter(|n| n.starts_with(NETNS_PREFIX))
        .filter_map(|n| {
            parse_netns_name(n).map(|(bed, host)| BedNamespace {
                netns: n.clone(),
                bed: bed.to_owned(),
                host: host.to_owned(),
            })
        })
        .collect()
}

/// All linerate namespaces on this machine, of every bed.
pub fn bed_namespaces() -> Result<Vec<BedNamespace>> {
    Ok(filter_bed_namespaces(&all_namespaces()?))
}

/// Deletes namespace `netns`; a namespace that is already gone is fine.
///
/// Processes still inside are ended first (SIGKILL): one left behind
/// would keep the namespace alive after its name is gone.
///
/// Deleting the namespace destroys its veths (and with them the peers in
/// other namespaces), qdiscs and nft tables, so this is all teardown needs.
pub(crate) fn delete(netns: &str) -> Result<()> {
    kill_processes_in(netns);
    match crate::sys::run("ip", &["netns", "delete", netns], None) {
        Ok(_) => {
            removed(netns);
            Ok(())
        }
        Err(e) => {
            if Path::new(NETNS_DIR).join(netns).exists() {
                Err(e)
            } else {
                Ok(())
            }
        }
    }
}

/// Namespaces created by this process and not yet removed.
static LIVE: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Notes that this process created `netns`.
pub(crate) fn created(netns: &str) {
    if let Ok(mut live) = LIVE.lock() {
        live.push(netns.to_owned());
    }
}

/// Notes that `netns` is gone.
pub(crate) fn removed(netns: &str) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|n| n != netns);
    }
}

/// Ends every process inside `netns` other than this one (SIGKILL, which
/// also ends a stopped process): a process left inside would keep the
/// namespace, its links and its sockets alive after `ip netns delete`.
pub(crate) fn kill_processes_in(netns: &str) {
    let Ok(out) = crate::sys::run("ip", &["netns", "pids", netns], None) else {
        return;
    };
    let me = std::process::id();
    for pid in out.split_whitespace().filter_map(|p| p.parse::<u32>().ok()) {
        if pid != me {
            let _ = send_signal(pid, Signal::Kill);
        }
    }
}

/// The namespaces this process created and has not removed, oldest first.
pub(crate) fn created_here() -> Vec<String> {
    LIVE.lock().map(|l| l.clone()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_our_namespaces() {
        let names: Vec<String> = [
            "lr-a-cam",
            "lr-a-switch",
            "lrx-a",
            "lr-b-pc",
            "lr-bad",
            "docker",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let ours = filter_bed_namespaces(&names);
        let got: Vec<_> = ours
            .iter()
            .map(|b| (b.bed.as_str(), b.host.as_str()))
            .collect();
        assert_eq!(got, [("a", "cam"), ("a", "switch"), ("b", "pc")]);
    }

    #[test]
    fn cpu_sets() {
        assert!(cpu_set(&[0]).is_ok());
        assert!(cpu_set(&[]).is_err());
        assert!(cpu_set(&[MAX_CPUS]).is_err());
    }

    #[test]
    fn missing_namespace_is_an_error_not_a_panic() {
        let r = run_in_netns("lr-does_not_exist-x", None, || 1);
        assert!(matches!(r, Err(Error::Io { .. })));
        let r = spawn_in_netns("lr-does_not_exist-x", None, || 1);
        assert!(r.is_err());
    }
}
