//! What a command says to the person at the terminal, beside its results:
//! the start-up line (what it does, where), progress while it runs, and a
//! quiet end when the reader of its output goes away.
//!
//! Results go to stdout (one JSON object with `--json`); everything in
//! this module goes to stderr, so a script reading stdout sees only the
//! results.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a command has printed its JSON result, so that `main` does not
/// print a second object for an error that follows it.
static JSON_PRINTED: AtomicBool = AtomicBool::new(false);

/// Records that the command printed its JSON object (see [`json_println`]).
pub fn mark_json_printed() {
    JSON_PRINTED.store(true, Ordering::Relaxed);
}

/// Whether the command printed its JSON object.
pub fn json_printed() -> bool {
    JSON_PRINTED.load(Ordering::Relaxed)
}

/// `println!` for a command's JSON result: prints it and records that it
/// was printed, so a failure after it adds no second object.
#[macro_export]
macro_rules! json_println {
    ($($arg:tt)*) => {{
        println!($($arg)*);
        $crate::console::mark_json_printed();
    }};
}

/// Set by `-q`: no start-up lines and no progress.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Records `-q` for [`say`] and [`progress_wanted`].
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Prints a status line (a start-up line, a note) on stderr, unless `-q`.
pub fn say(line: impl std::fmt::Display) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("{line}");
    }
}

/// Whether to draw a live progress display: stderr is a terminal and
/// `-q` was not given.
pub fn progress_wanted() -> bool {
    !QUIET.load(Ordering::Relaxed) && std::io::IsTerminal::is_terminal(&std::io::stderr())
}

/// "until Ctrl-C", "for 2.5 s", "for 100 frames", "for 100 frames or 2.5 s":
/// when a run started with these limits ends.
pub fn until(frames: Option<u64>, seconds: Option<f64>) -> String {
    match (frames.filter(|&n| n > 0), seconds) {
        (None, None) => "until Ctrl-C".into(),
        (None, Some(s)) => format!("for {s} s (or until Ctrl-C)"),
        (Some(n), None) => format!("for {n} frames (or until Ctrl-C)"),
        (Some(n), Some(s)) => format!("for {n} frames or {s} s, whichever comes first"),
    }
}

/// The exit status of a command whose standard output was closed under
/// it (`linerate ... | head`): 128 + SIGPIPE, as a shell reports a
/// program the signal ended, and what `set -o pipefail` scripts expect.
pub const STDOUT_CLOSED_STATUS: u8 = 141;

/// Whether a panic's message is a failed write to a closed stdout or
/// stderr (`println!` panics on EPIPE): the reader went away, which is no
/// fault of the command.
pub fn is_broken_pipe_panic(payload: &(dyn std::any::Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    text.contains("Broken pipe") || text.contains("os error 32")
}

/// Whether an error comes from writing to a closed pipe.
pub fn is_broken_pipe_error(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipes_are_told_from_other_failures() {
        let closed: Box<dyn std::any::Any + Send> =
            Box::new("failed printing to stdout: Broken pipe (os error 32)".to_string());
        assert!(is_broken_pipe_panic(closed.as_ref()));
        let other: Box<dyn std::any::Any + Send> = Box::new("index out of bounds");
        assert!(!is_broken_pipe_panic(other.as_ref()));
        let e = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("writing the report");
        assert!(is_broken_pipe_error(&e));
        assert!(!is_broken_pipe_error(&anyhow::anyhow!(
            "Broken pipe in the text only"
        )));
    }

    #[test]
    fn until_names_every_limit_in_force() {
        assert_eq!(until(None, None), "until Ctrl-C");
        assert_eq!(until(Some(0), None), "until Ctrl-C");
        assert_eq!(until(Some(0), Some(2.0)), "for 2 s (or until Ctrl-C)");
        assert_eq!(until(Some(5), None), "for 5 frames (or until Ctrl-C)");
        assert!(until(Some(5), Some(1.5)).contains("whichever"));
    }
}
