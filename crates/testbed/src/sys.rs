//! Running `ip`, `tc` and `nft`, with errors that say exactly what failed.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::error::{Error, Result};

/// Quotes one argument for display so a failing command can be pasted into
/// a shell as is.
pub(crate) fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,@%+".contains(&b));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// Renders a command line for error messages and logs.
pub(crate) fn cmdline<S: AsRef<str>>(program: &str, args: &[S]) -> String {
    let mut s = shell_quote(program);
    for a in args {
        s.push(' ');
        s.push_str(&shell_quote(a.as_ref()));
    }
    s
}

/// Runs `program args...`, optionally feeding `stdin`, and returns stdout.
///
/// Non-zero exit becomes [`Error::Command`] with the command line and
/// stderr; failure to start becomes [`Error::Spawn`].
pub(crate) fn run<S: AsRef<str>>(program: &str, args: &[S], stdin: Option<&str>) -> Result<String> {
    let line = cmdline(program, args);
    tracing::debug!(cmd = %line, "run");
    let mut cmd = Command::new(program);
    cmd.args(args.iter().map(|a| a.as_ref()))
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|source| Error::Spawn {
        cmdline: line.clone(),
        source,
    })?;
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A write error here (EPIPE) means the program exited early; its
        // exit status and stderr below explain why, so it is not reported.
        let _ = pipe.write_all(input.as_bytes());
    }
    let out = child.wait_with_output().map_err(|source| Error::Spawn {
        cmdline: line.clone(),
        source,
    })?;
    if !out.status.success() {
        let mut stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        if let Some(input) = stdin {
            stderr.push_str("\n--- input was ---\n");
            stderr.push_str(input);
        }
        return Err(Error::Command {
            cmdline: line,
            status: out.status,
            stderr,
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `ip -n NETNS args...`: an iproute2 command inside a namespace, without
/// entering it, so nothing ever happens in the root namespace by accident.
pub(crate) fn ip_in(netns: &str, args: &[&str]) -> Result<String> {
    let mut v: Vec<&str> = vec!["-n", netns];
    v.extend_from_slice(args);
    run("ip", &v, None)
}

/// Whether `program` is an executable file in a PATH directory.
pub(crate) fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// Fails with [`Error::MissingTool`] unless `program` is on PATH, so a
/// feature that needs an optional tool says which one, before anything
/// half-runs (`ip netns exec` would report only "exec failed").
pub(crate) fn require(
    program: &'static str,
    purpose: &'static str,
    package: &'static str,
) -> Result<()> {
    if on_path(program) {
        Ok(())
    } else {
        Err(Error::MissingTool {
            program,
            purpose,
            package,
        })
    }
}

/// `tc -n NETNS args...`.
pub(crate) fn tc_in(netns: &str, args: &[&str]) -> Result<String> {
    require("tc", "rate shaping (tbf)", "iproute2's tc")?;
    let mut v: Vec<&str> = vec!["-n", netns];
    v.extend_from_slice(args);
    run("tc", &v, None)
}

/// `ip netns exec NETNS program args...`: for tools without a `-n` flag
/// (nft) and for sysfs, which `ip netns exec` remounts for the namespace.
pub(crate) fn exec_in(
    netns: &str,
    program: &str,
    args: &[&str],
    stdin: Option<&str>,
) -> Result<String> {
    let mut v: Vec<&str> = vec!["netns", "exec", netns, program];
    v.extend_from_slice(args);
    run("ip", &v, stdin)
}

/// Runs an nft script atomically (one transaction) inside `netns`.
pub(crate) fn nft_script(netns: &str, script: &str) -> Result<String> {
    require("nft", "packet loss emulation", "nftables")?;
    exec_in(netns, "nft", &["-f", "-"], Some(script))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("abc-1.2/x"), "abc-1.2/x");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(cmdline("ip", &["-n", "x y"]), "ip -n 'x y'");
    }

    #[test]
    fn failing_command_reports_cmdline_and_stderr() {
        let r = run("sh", &["-c", "echo boom >&2; exit 3"], None);
        match r {
            Err(Error::Command {
                cmdline, stderr, ..
            }) => {
                assert!(cmdline.contains("sh -c"), "{cmdline}");
                assert_eq!(stderr, "boom");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            run("/nonexistent/prog", &["x"], None),
            Err(Error::Spawn { .. })
        ));
        assert!(matches!(run("cat", &[] as &[&str], Some("hi")), Ok(ref s) if s == "hi"));
    }

    #[test]
    fn missing_tools_are_named() {
        assert!(on_path("sh"));
        let e = require("no-such-tool-xyz", "testing", "nothing").expect_err("missing");
        assert_eq!(
            e.to_string(),
            "no-such-tool-xyz is not on PATH; testing needs it (install nothing)"
        );
    }
}
