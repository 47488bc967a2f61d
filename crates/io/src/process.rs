//! Processes and threads seen from outside: sending a process a signal,
//! a pipe whose reader can be closed, and the CPU time of the calling
//! thread. Tools and tests use these to stop, pause and resume a peer
//! (a camera killed or frozen mid-stream is a fault users meet), to run
//! a command into a closed pipe, and to measure what one thread costs,
//! without reaching for libc themselves.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::time::Duration;

/// A signal linerate sends to a process it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT: what Ctrl-C sends; tools stop and print their report.
    Interrupt,
    /// SIGTERM: the polite stop a supervisor sends.
    Terminate,
    /// SIGKILL: a stop the process cannot see (a peer dying mid-stream).
    Kill,
    /// SIGSTOP: freezes the process (a peer that hangs).
    Stop,
    /// SIGCONT: resumes a frozen process.
    Continue,
}

impl Signal {
    /// The signal's number on this system.
    pub fn number(self) -> i32 {
        match self {
            Signal::Interrupt => libc::SIGINT,
            Signal::Terminate => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
            Signal::Stop => libc::SIGSTOP,
            Signal::Continue => libc::SIGCONT,
        }
    }

    /// The signal's conventional name, e.g. "SIGINT".
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::Kill => "SIGKILL",
            Signal::Stop => "SIGSTOP",
            Signal::Continue => "SIGCONT",
        }
    }

    /// The exit status a shell reports for a process that ends because of
    /// this signal, or that exits with the status it conventionally means
    /// (128 + the signal's number).
    pub fn shell_status(self) -> i32 {
        128 + self.number()
    }
}

impl std::fmt::Display for Signal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Sends `signal` to process `pid`.
pub fn send_signal(pid: u32, signal: Signal) -> io::Result<()> {
    let pid = i32::try_from(pid).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("process id {pid} is out of range"),
        )
    })?;
    // SAFETY: kill(2) takes plain integers; no memory is involved.
    if unsafe { libc::kill(pid, signal.number()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// A new pipe: (read end, write end). Dropping the read end makes writes
/// to the other fail with EPIPE, as when `head` has exited.
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two-element array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned only here.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// CPU time (user + system) the calling thread has used so far.
pub fn current_thread_cpu_time() -> Duration {
    // SAFETY: a zeroed rusage is a valid value for getrusage to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer refers to `usage`, live for the call.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    let time = |t: libc::timeval| {
        Duration::new(
            u64::try_from(t.tv_sec).unwrap_or(0),
            u32::try_from(t.tv_usec).unwrap_or(0).saturating_mul(1000),
        )
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn signals_have_their_numbers_and_shell_statuses() {
        assert_eq!(Signal::Interrupt.shell_status(), 130);
        assert_eq!(Signal::Terminate.shell_status(), 143);
        assert_eq!(Signal::Kill.name(), "SIGKILL");
    }

    #[test]
    fn a_signal_to_a_missing_process_is_an_error() {
        // Process ids above pid_max (at most 2^22) never exist.
        assert!(send_signal(1 << 23, Signal::Continue).is_err());
        assert!(send_signal(u32::MAX, Signal::Continue).is_err());
    }

    #[test]
    fn writing_to_a_pipe_whose_reader_is_gone_fails() {
        let (read, write) = pipe().expect("pipe");
        drop(read);
        let mut file = std::fs::File::from(write);
        let err = file.write_all(b"x").expect_err("no reader");
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn thread_cpu_time_grows_with_work() {
        let before = current_thread_cpu_time();
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_millis(30) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        assert!(current_thread_cpu_time() > before);
    }
}
