//! One way for long-running commands to end cleanly on Ctrl-C or SIGTERM:
//! a flag the signals set and the main loop polls, so counters are still
//! printed and sockets closed in order.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use anyhow::{Context, Result};
use signal_hook::consts::{SIGINT, SIGTERM};

/// A flag that becomes true on SIGINT or SIGTERM.
pub fn on_sigint_or_sigterm() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))
            .with_context(|| format!("installing the handler for signal {sig}"))?;
    }
    Ok(stop)
}

/// Which of SIGINT or SIGTERM arrived, for commands that must clean up on
/// the way out (stop a camera, release control) and then say why they
/// ended. Installed once per process; a second signal while the first is
/// being handled ends the process at once (status 128 + signal), so a
/// hung cleanup can still be interrupted.
#[derive(Debug, Clone)]
pub struct Interrupt {
    signal: Arc<AtomicUsize>,
    seen: Arc<AtomicBool>,
}

impl Interrupt {
    /// Installs the handlers (the first call) and returns the shared state.
    pub fn install() -> Result<Interrupt> {
        static INSTALLED: OnceLock<Interrupt> = OnceLock::new();
        if let Some(i) = INSTALLED.get() {
            return Ok(i.clone());
        }
        let signal = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(AtomicBool::new(false));
        for sig in [SIGINT, SIGTERM] {
            // Registered first, so it sees `seen` as the previous signal left it.
            signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(&seen))
                .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&seen)))
                .and_then(|_| {
                    signal_hook::flag::register_usize(sig, Arc::clone(&signal), sig as usize)
                })
                .with_context(|| format!("installing the handler for signal {sig}"))?;
        }
        Ok(INSTALLED.get_or_init(|| Interrupt { signal, seen }).clone())
    }

    /// A flag that becomes true when the signal arrives, for loops (a
    /// library's, a worker thread's) that poll a plain flag.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.seen)
    }

    /// The signal that arrived, if one did.
    pub fn signal(&self) -> Option<Interrupted> {
        match self.signal.load(Ordering::Relaxed) {
            0 => None,
            s => Some(Interrupted { signal: s as i32 }),
        }
    }
}

/// A run ended by SIGINT or SIGTERM. `main` exits with 128 + the signal
/// number, as a shell reports a process the signal killed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("interrupted by {}", signal_name(*.signal))]
pub struct Interrupted {
    /// The signal number.
    pub signal: i32,
}

impl Interrupted {
    /// The exit status that reports it: 130 for SIGINT, 143 for SIGTERM.
    pub fn exit_status(&self) -> u8 {
        u8::try_from(128 + self.signal).unwrap_or(1)
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}
