//! Measurement a benchmark can trust: CPU, latency and kernel drops.
//!
//! * [`cpu`]: whole-machine and per-core CPU from `/proc/stat` (softirq
//!   included), with the busiest core — the figure that does not lie on a
//!   veth bench where softirq is billed to whoever happens to run;
//! * [`thread`]: one thread's user and system time from
//!   `/proc/self/task/TID/stat`, so a receive or send thread's own cost can
//!   be reported next to the whole machine's;
//! * [`latency`]: a bounded-memory latency histogram (HdrHistogram) with a
//!   serialisable summary in microseconds (p50 … p99.9, max, mean);
//! * [`kernel_drops`]: the kernel's drop counters (UDP receive-buffer
//!   errors, interface rx drops, softnet backlog drops and time squeezes),
//!   read before and after a run and subtracted;
//! * [`noise`]: how quiet a CPU is (a thread spinning on it records every
//!   moment it was taken away), the latency floor that sets for any
//!   receiver there, and a replay of a receiver's load against it.
//!
//! Every reader has a `parse`/`from_root` form that takes captured text or a
//! fake `/proc` root, so the parsers are tested on fixed input.
//!
//! ```no_run
//! use linerate_metrics::CpuSnapshot;
//! let before = CpuSnapshot::take()?;
//! // ... run the workload ...
//! let delta = CpuSnapshot::take()?.delta_since(&before);
//! if let Some(core) = delta.core(1) {
//!     println!("cpu1 busy {:.3}s ({:.0}%)", core.busy_secs, core.utilisation * 100.0);
//! }
//! # Ok::<(), linerate_metrics::Error>(())
//! ```

pub mod cpu;
pub mod error;
pub mod kernel_drops;
pub mod latency;
pub mod noise;
pub mod thread;

pub use cpu::{measure, ticks_per_second, CoreUsage, CpuDelta, CpuSnapshot, CpuTimes};
pub use error::{Error, Result};
pub use kernel_drops::{KernelDrops, KernelDropsDelta};
pub use latency::{LatencyHistogram, LatencySummary};
pub use thread::{
    current_thread_id, pin_current_thread, threads_of, NamedThreadCpu, ThreadCpu, ThreadCpuUsage,
};
