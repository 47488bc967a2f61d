//! One way for long-running commands to end cleanly on Ctrl-C or SIGTERM:
//! a flag the signals set and the main loop polls, so counters are still
//! printed and sockets closed in order.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{Context, Result};

/// A flag that becomes true on SIGINT or SIGTERM.
pub fn on_sigint_or_sigterm() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))
            .with_context(|| format!("installing the handler for signal {sig}"))?;
    }
    Ok(stop)
}
