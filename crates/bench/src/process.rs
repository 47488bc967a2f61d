//! The programs of a run (camera, receiver, iperf3, boards): started in a
//! host's namespace with their output in files, waited for with a deadline,
//! stopped with SIGTERM and then SIGKILL.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use linerate_testbed::HostCommand;

use crate::error::{Error, Result};

/// A started program. Dropping it kills the program, so a failed run never
/// leaves a camera streaming into the next one.
pub struct Running {
    cmdline: String,
    child: Option<Child>,
    stdout: PathBuf,
    stderr: PathBuf,
}

/// A program that has exited, with what it printed.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The command line, for error messages.
    pub cmdline: String,
    /// How it exited.
    pub status: ExitStatus,
    /// Everything it wrote to stdout.
    pub stdout: String,
    /// Everything it wrote to stderr.
    pub stderr: String,
}

impl Running {
    /// Starts `cmd`, sending its stdout and stderr to `<dir>/<tag>.out` and
    /// `<dir>/<tag>.err` (files, not pipes: a chatty program can never
    /// block on a full pipe while the bench sleeps).
    pub fn spawn(mut cmd: HostCommand, dir: &Path, tag: &str) -> Result<Running> {
        let cmdline = cmd.cmdline();
        let stdout = dir.join(format!("{tag}.out"));
        let stderr = dir.join(format!("{tag}.err"));
        let open = |path: &PathBuf| {
            File::create(path).map_err(|source| Error::File {
                path: path.clone(),
                source,
            })
        };
        cmd.stdin(Stdio::null())
            .stdout(open(&stdout)?)
            .stderr(open(&stderr)?);
        let child = cmd.spawn().map_err(|e| Error::Spawn {
            program: cmdline.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        Ok(Running {
            cmdline,
            child: Some(child),
            stdout,
            stderr,
        })
    }

    /// Waits for the program to exit on its own, killing it after `limit`.
    pub fn wait(mut self, limit: Duration) -> Result<Finished> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.try_wait()? {
                return self.finish(status);
            }
            if crate::stop::stop_requested() {
                self.kill();
                return Err(Error::Interrupted);
            }
            if Instant::now() >= deadline {
                self.kill();
                return Err(Error::Timeout {
                    program: self.cmdline.clone(),
                    seconds: limit.as_secs_f64(),
                });
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Asks the program to stop (SIGTERM, which our tools answer with their
    /// final report), and kills it if it has not exited after `grace`.
    pub fn stop(mut self, grace: Duration) -> Result<Finished> {
        if let Some(child) = &self.child {
            // An error means it has exited already; try_wait below sees it.
            let _ = linerate_io::sched::terminate(child.id());
        }
        let deadline = Instant::now() + grace;
        loop {
            if let Some(status) = self.try_wait()? {
                return self.finish(status);
            }
            if Instant::now() >= deadline {
                self.kill();
                let status = self.try_wait()?.ok_or_else(|| Error::Timeout {
                    program: self.cmdline.clone(),
                    seconds: grace.as_secs_f64(),
                })?;
                return self.finish(status);
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// The program's process id while it runs (for reading its threads'
    /// CPU time); `None` once it was waited for.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    fn try_wait(&mut self) -> Result<Option<ExitStatus>> {
        match self.child.as_mut() {
            Some(child) => child.try_wait().map_err(|source| Error::Spawn {
                program: self.cmdline.clone(),
                source,
            }),
            None => Ok(None),
        }
    }

    fn kill(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn finish(&mut self, status: ExitStatus) -> Result<Finished> {
        self.child = None;
        let read = |path: &PathBuf| {
            std::fs::read(path)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .map_err(|source| Error::File {
                    path: path.clone(),
                    source,
                })
        };
        Ok(Finished {
            cmdline: self.cmdline.clone(),
            status,
            stdout: read(&self.stdout)?,
            stderr: read(&self.stderr)?,
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The last line of `text` that parses as a JSON object: our tools print
/// their report last, after any progress lines.
pub fn last_json_object(finished: &Finished) -> Result<serde_json::Value> {
    finished
        .stdout
        .lines()
        .rev()
        .filter(|l| l.trim_start().starts_with('{'))
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .ok_or_else(|| Error::Output {
            program: finished.cmdline.clone(),
            what: "a JSON report".to_owned(),
            detail: format!(
                "no JSON object on stdout (exit {}); stderr ends: {}",
                finished.status,
                tail(&finished.stderr, 300)
            ),
        })
}

/// The last `n` characters of `s`, for error messages.
pub fn tail(s: &str, n: usize) -> String {
    let t = s.trim_end();
    if n == 0 {
        return String::new();
    }
    let start = t
        .char_indices()
        .rev()
        .nth(n - 1)
        .map(|(i, _)| i)
        .unwrap_or(0);
    t[start..].to_owned()
}

/// Fails with a clear message when `program` is not on the PATH.
pub fn require_tool(program: &str, hint: &str) -> Result<()> {
    let found = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()));
    if found {
        Ok(())
    } else {
        Err(Error::MissingTool {
            program: program.to_owned(),
            hint: hint.to_owned(),
        })
    }
}

/// Whether `python` runs and imports `module` (the `linerate` package, or
/// `harvesters`), which the `python` scenario needs; checked once before
/// planning, so a missing package skips the scenario with the way to get
/// it instead of failing every run.
pub fn require_python_package(python: &std::path::Path, module: &str) -> Result<()> {
    let missing = |detail: String| Error::MissingPythonPackage {
        python: python.display().to_string(),
        module: module.to_owned(),
        detail,
    };
    let out = std::process::Command::new(python)
        .args(["-c", &format!("import {module}")])
        .output()
        .map_err(|e| missing(e.to_string()))?;
    if out.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        Err(missing(tail(stderr.trim(), 200)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_end_on_char_boundaries() {
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("ab", 10), "ab");
        assert_eq!(tail("µµµµ\n", 2), "µµ");
    }

    #[test]
    fn missing_tools_are_named() {
        let err = require_tool("no-such-program-here", "apt install it").err();
        assert!(err.is_some_and(|e| e.to_string().contains("no-such-program-here")));
        assert!(require_tool("sh", "").is_ok());
    }

    #[test]
    fn a_python_without_the_package_is_named_with_how_to_build_it() {
        let e = require_python_package(std::path::Path::new("no-such-python-here"), "linerate")
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("no-such-python-here") && e.contains("maturin")));
        // A shell stands in for an interpreter that fails the import.
        let e = require_python_package(std::path::Path::new("false"), "harvesters")
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("cannot import harvesters")));
    }
}
