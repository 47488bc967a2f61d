//! Walking the workspace's Rust sources, for the tests that read them
//! (the I/O boundary and the import-cycle check).

use std::path::{Path, PathBuf};

/// Appends every `.rs` file under `dir` (recursively) to `out`; an
/// unreadable directory adds nothing.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
