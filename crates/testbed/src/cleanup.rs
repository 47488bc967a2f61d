//! Nothing left behind: the namespaces this process made, and what runs in
//! them, go away when the process is stopped by a signal too.
//!
//! Dropping a [`crate::Testbed`] removes its namespaces, but a process
//! ended by Ctrl-C or SIGTERM runs no destructors: its beds would stay,
//! with whatever ran inside them (a camera frozen by SIGSTOP in a test
//! keeps its namespace alive forever). [`tear_down_on_signal`] installs,
//! once, a watcher that removes this process's beds and exits as a shell
//! reports the signal. It is opt-in: test suites and scripts call it;
//! tools that handle signals themselves (and print a report first) don't.

use std::sync::OnceLock;

/// On SIGINT, SIGTERM or SIGHUP, removes every bed namespace this process
/// created (ending what runs inside) and exits with 128 + the signal's
/// number. Installs its watcher once; later calls do nothing. Returns an
/// error if the handler cannot be installed.
pub fn tear_down_on_signal() -> std::io::Result<()> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    let done = INSTALLED.get_or_init(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals =
            signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]).map_err(|e| e.to_string())?;
        std::thread::Builder::new()
            .name("testbed-signals".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    let live = crate::netns::created_here();
                    for ns in live.iter().rev() {
                        let _ = crate::netns::delete(ns);
                    }
                    if !live.is_empty() {
                        eprintln!(
                            "linerate-testbed: signal {signal}: removed {} namespace(s) of this process",
                            live.len()
                        );
                    }
                    std::process::exit(128 + signal);
                }
            })
            .map_err(|e| e.to_string())?;
        Ok(())
    });
    done.clone().map_err(std::io::Error::other)
}
