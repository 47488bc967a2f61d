//! What this process itself has used, for reports that set it beside
//! machine-wide figures.

pub use linerate_io::sched::process_cpu_seconds;
