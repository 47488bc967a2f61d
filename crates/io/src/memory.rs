//! Giving freed memory back to the system. glibc's allocator raises its
//! mmap threshold after a large block is freed, so the next large buffers
//! come from the heap, and freeing them later keeps the pages: a camera
//! that let go of its resend frames would still hold their memory.

/// Returns the allocator's free memory at the top of its heaps to the
/// system (`malloc_trim`), after a large buffer was freed on purpose. A
/// no-op where the C library has no such call.
pub fn return_free_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only releases memory the allocator holds free.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The largest resident set this process has had (VmHWM), in MiB; 0 when
/// /proc cannot tell. Reports give it as `max_rss_mib` so a user sees
/// that memory stayed flat however long a run was.
pub fn peak_resident_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn trimming_after_a_large_free_is_harmless() {
        let v = vec![1u8; 64 << 20];
        drop(v);
        super::return_free_memory();
        let w = vec![2u8; 1 << 20];
        assert_eq!(w[0], 2);
    }
}
