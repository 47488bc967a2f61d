//! Where threads run, and signals to child processes: CPU affinity for a
//! receive thread, a benchmark's kernel threads or a measuring probe, and
//! the SIGTERM that asks a tool to stop and print its report. The rest of
//! linerate calls these instead of libc.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// CPUs a CPU set can name (numbers `0..MAX_CPUS`): the kernel
/// interface's fixed set size, `CPU_SETSIZE`.
pub const MAX_CPUS: usize = libc::CPU_SETSIZE as usize;

/// The kernel thread id of the calling thread (what `/proc/self/task/`
/// lists), to hand to another thread that reads this one's CPU time.
pub fn current_thread_id() -> i32 {
    // SAFETY: gettid has no preconditions and cannot fail.
    unsafe { libc::gettid() }
}

/// Pins the calling thread to `cpu`: what a receive thread (and a noise
/// probe measuring its core) does before its CPU time means anything.
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    pin_task(0, &[cpu])
}

/// Pins the calling thread to the CPUs `cpus`: a thread that stands in for
/// a host of the test bench, or a set of cores a workload may share.
pub fn pin_current_thread_to(cpus: &[usize]) -> io::Result<()> {
    pin_task(0, cpus)
}

/// Pins task `tid` (a thread or process id; 0: the calling thread) to the
/// CPUs `cpus`, e.g. a kernel's NAPI thread onto the core that stands in
/// for the receiving machine.
pub fn pin_task(tid: i32, cpus: &[usize]) -> io::Result<()> {
    set_affinity(tid, &cpu_set(cpus)?)
}

/// Makes `command` start its program pinned to the CPUs `cpus`: the
/// affinity is set in the child between fork and exec, and survives
/// further execs (`ip netns exec` running the program), so no `taskset`
/// binary is needed. Fails at once on an empty set or a CPU past
/// [`MAX_CPUS`]; a refusal in the child makes the spawn fail.
pub fn pin_command(command: &mut Command, cpus: &[usize]) -> io::Result<()> {
    let set = cpu_set(cpus)?;
    // SAFETY: the closure runs in the forked child before exec and only
    // makes the sched_setaffinity system call on a set built before the
    // fork: no allocation, no locks, so it is async-signal-safe.
    unsafe {
        command.pre_exec(move || set_affinity(0, &set));
    }
    Ok(())
}

/// The kernel CPU set of `cpus`, refusing an empty list and numbers past
/// [`MAX_CPUS`].
fn cpu_set(cpus: &[usize]) -> io::Result<libc::cpu_set_t> {
    if cpus.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "an empty CPU set pins a task nowhere",
        ));
    }
    if let Some(cpu) = cpus.iter().find(|c| **c >= MAX_CPUS) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("CPU {cpu} is beyond CPU_SETSIZE"),
        ));
    }
    // SAFETY: an all-zero cpu_set_t is the empty set; CPU_SET stays within
    // it (checked above).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus {
            libc::CPU_SET(cpu, &mut set);
        }
        Ok(set)
    }
}

/// sched_setaffinity of task `tid` (0: the caller); async-signal-safe.
fn set_affinity(tid: i32, set: &libc::cpu_set_t) -> io::Result<()> {
    // SAFETY: sched_setaffinity reads exactly size_of::<cpu_set_t>() bytes
    // of a live set.
    let r = unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), set) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The number of CPUs online (at least 1).
pub fn online_cpus() -> usize {
    // SAFETY: sysconf has no memory effects.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(1).max(1)
}

/// Moves the calling thread to every online CPU but `cpu`, if there is
/// another one: a progress display or a probe's bookkeeping stays off the
/// core a receive thread has to itself. A failure leaves it where it was,
/// since the work it moves is only housekeeping.
pub fn keep_current_thread_off(cpu: usize) {
    let others: Vec<usize> = (0..online_cpus().max(cpu + 1))
        .filter(|&c| c != cpu && c < MAX_CPUS)
        .collect();
    if !others.is_empty() {
        let _ = pin_task(0, &others);
    }
}

/// Sets the calling thread's timer slack: how late the kernel may end
/// its sleeps to batch wakeups. A paced sender (an emulated board sleeping
/// until its next packet) asks for little, since the default 50 µs makes
/// every short sleep late by that much. Affects only this thread.
pub fn set_timer_slack(slack: std::time::Duration) -> io::Result<()> {
    // 0 would mean "back to the default"; the smallest slack is 1 ns.
    let ns = libc::c_ulong::try_from(slack.as_nanos())
        .unwrap_or(libc::c_ulong::MAX)
        .max(1);
    // SAFETY: PR_SET_TIMERSLACK takes plain integers and changes only the
    // calling thread's timer slack.
    if unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns, 0, 0, 0) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sets the nice value of the calling thread (on Linux, `setpriority`
/// with `PRIO_PROCESS` and 0 changes only the calling thread): a reader
/// thread runs below the receive thread that shares its core, so that it
/// never preempts the thread whose every microsecond is ACK latency.
/// Raising the value needs no privilege; lowering it below the current
/// one does (CAP_SYS_NICE).
pub fn set_current_thread_nice(nice: i32) -> io::Result<()> {
    // SAFETY: setpriority takes plain integers; no memory is involved.
    if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Puts the calling thread under SCHED_FIFO at `priority` (1..=99; needs
/// root or CAP_SYS_NICE): on a busy core it then preempts other work the
/// moment it becomes runnable, as a receive thread that answers every
/// packet should.
pub fn set_current_thread_fifo(priority: i32) -> io::Result<()> {
    if !(1..=99).contains(&priority) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("SCHED_FIFO priority {priority} is outside 1..=99"),
        ));
    }
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: pid 0 is the calling thread; `param` outlives the call and
    // is only read.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// CPU seconds (user + system) this process has used so far, all threads.
pub fn process_cpu_seconds() -> f64 {
    // SAFETY: an all-zero rusage is valid; getrusage fills the struct we
    // pass and nothing else.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// Sends SIGTERM to process `pid`: how linerate's tools are asked to stop
/// and print their final report.
pub fn terminate(pid: u32) -> io::Result<()> {
    crate::process::send_signal(pid, crate::process::Signal::Terminate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_values_rise_and_bad_realtime_priorities_are_refused() {
        std::thread::spawn(|| {
            // Raising one's own nice value needs no privilege.
            set_current_thread_nice(5).expect("nice 5");
            for bad in [0, 100, -1] {
                let e = set_current_thread_fifo(bad).expect_err("out of range");
                assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            }
        })
        .join()
        .expect("thread");
    }

    #[test]
    fn the_calling_thread_can_be_pinned_and_bad_sets_are_refused() {
        let me = current_thread_id();
        assert!(me > 0);
        std::thread::spawn(|| {
            pin_current_thread(0).expect("CPU 0 exists");
        })
        .join()
        .expect("thread");
        assert!(pin_task(0, &[]).is_err());
        assert!(pin_task(0, &[usize::MAX]).is_err());
    }

    #[test]
    fn timer_slack_is_set_for_the_calling_thread() {
        std::thread::spawn(|| {
            set_timer_slack(std::time::Duration::from_micros(1)).expect("prctl");
            // SAFETY: PR_GET_TIMERSLACK takes no pointer and returns the slack.
            let ns = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
            assert_eq!(ns, 1_000);
        })
        .join()
        .expect("thread");
    }

    #[test]
    fn a_pinned_command_runs_on_its_cpu_only() {
        let mut cmd = Command::new("cat");
        cmd.arg("/proc/self/status");
        pin_command(&mut cmd, &[0]).expect("CPU 0 exists");
        let out = cmd.output().expect("cat runs");
        let status = String::from_utf8_lossy(&out.stdout);
        let allowed = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .map(str::trim);
        assert_eq!(allowed, Some("0"));
        assert!(pin_command(&mut Command::new("true"), &[]).is_err());
        assert!(pin_command(&mut Command::new("true"), &[MAX_CPUS]).is_err());
    }

    #[test]
    fn terminate_names_a_bad_pid() {
        assert!(terminate(u32::MAX).is_err());
    }
}
