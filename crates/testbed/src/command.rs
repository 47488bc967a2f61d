//! Running programs "on" a host: inside its namespace, optionally pinned.

use std::ffi::OsStr;
use std::ops::{Deref, DerefMut};
use std::process::{Child, Command, ExitStatus, Output};

use crate::error::{Error, Result};
use crate::netns::cpu_set;
use crate::sys::cmdline;

/// A [`std::process::Command`] that runs inside a host's namespace, via
/// `ip netns exec` (which also remounts `/sys` for the namespace, so the
/// program sees the host's interfaces there too).
///
/// CPU pinning is applied in the child between fork and exec with
/// `sched_setaffinity`; the affinity survives `ip`'s own exec of the
/// program, so no `taskset` binary is needed.
///
/// Derefs to `Command`, so `stdout`, `env`, `current_dir`... work as usual.
#[derive(Debug)]
pub struct HostCommand {
    inner: Command,
    netns: String,
    display: String,
    cpus: Option<Vec<usize>>,
}

impl HostCommand {
    /// `program` inside namespace `netns`.
    pub fn new(netns: &str, program: impl AsRef<OsStr>) -> HostCommand {
        let program = program.as_ref();
        let mut inner = Command::new("ip");
        inner.args(["netns", "exec", netns]).arg(program);
        HostCommand {
            inner,
            netns: netns.to_owned(),
            display: cmdline("ip", &["netns", "exec", netns, &program.to_string_lossy()]),
            cpus: None,
        }
    }

    /// Adds an argument.
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut HostCommand {
        self.display.push(' ');
        self.display
            .push_str(&crate::sys::shell_quote(&arg.as_ref().to_string_lossy()));
        self.inner.arg(arg);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut HostCommand
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        for a in args {
            self.arg(a);
        }
        self
    }

    /// Pins the program to one CPU, so its cost lands on a known core.
    pub fn cpu(&mut self, cpu: usize) -> &mut HostCommand {
        self.cpus = Some(vec![cpu]);
        self
    }

    /// Pins the program to a set of CPUs.
    pub fn cpus(&mut self, cpus: &[usize]) -> &mut HostCommand {
        self.cpus = Some(cpus.to_vec());
        self
    }

    /// The namespace the program will run in.
    pub fn netns(&self) -> &str {
        &self.netns
    }

    /// The command line, for logs and error messages.
    pub fn cmdline(&self) -> String {
        match &self.cpus {
            Some(c) => format!("{} (pinned to CPUs {c:?})", self.display),
            None => self.display.clone(),
        }
    }

    /// Finishes the builder into a plain `std::process::Command`, with the
    /// pinning installed. Fails only on an invalid CPU number.
    pub fn into_command(mut self) -> Result<Command> {
        self.apply_affinity()?;
        Ok(self.inner)
    }

    fn apply_affinity(&mut self) -> Result<()> {
        if let Some(cpus) = &self.cpus {
            let set = cpu_set(cpus)?;
            linerate_io::sched::pin_command(&mut self.inner, &set)
                .map_err(|e| Error::io(format!("pinning to CPUs {set:?}"), e))?;
        }
        Ok(())
    }

    /// Starts the program (stdio inherited unless configured).
    pub fn spawn(&mut self) -> Result<Child> {
        self.apply_affinity()?;
        self.inner.spawn().map_err(|source| Error::Spawn {
            cmdline: self.cmdline(),
            source,
        })
    }

    /// Runs the program to completion, capturing stdout and stderr. A
    /// non-zero exit is *not* an error here: check `status`.
    pub fn output(&mut self) -> Result<Output> {
        self.apply_affinity()?;
        self.inner.output().map_err(|source| Error::Spawn {
            cmdline: self.cmdline(),
            source,
        })
    }

    /// Runs the program to completion with inherited stdio.
    pub fn status(&mut self) -> Result<ExitStatus> {
        self.apply_affinity()?;
        self.inner.status().map_err(|source| Error::Spawn {
            cmdline: self.cmdline(),
            source,
        })
    }

    /// Runs the program and returns its stdout, failing with the command
    /// line and stderr if it exits non-zero.
    pub fn run_ok(&mut self) -> Result<String> {
        let out = self.output()?;
        if !out.status.success() {
            return Err(Error::Command {
                cmdline: self.cmdline(),
                status: out.status,
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

impl Deref for HostCommand {
    type Target = Command;
    fn deref(&self) -> &Command {
        &self.inner
    }
}

impl DerefMut for HostCommand {
    fn deref_mut(&mut self) -> &mut Command {
        &mut self.inner
    }
}
