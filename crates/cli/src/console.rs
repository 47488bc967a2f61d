//! What a command says to the person at the terminal, beside its results:
//! the start-up line (what it does, where), progress while it runs, and a
//! quiet end when the reader of its output goes away.
//!
//! Results go to stdout (one JSON object with `--json`); everything in
//! this module goes to stderr, so a script reading stdout sees only the
//! results.

use std::sync::atomic::{AtomicBool, Ordering};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_names_every_limit_in_force() {
        assert_eq!(until(None, None), "until Ctrl-C");
        assert_eq!(until(Some(0), None), "until Ctrl-C");
        assert_eq!(until(Some(0), Some(2.0)), "for 2 s (or until Ctrl-C)");
        assert_eq!(until(Some(5), None), "for 5 frames (or until Ctrl-C)");
        assert!(until(Some(5), Some(1.5)).contains("whichever"));
    }
}
