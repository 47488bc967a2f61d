//! Puts the git commit the binary was built from into `linerate --version`,
//! so a report or a bug can name exactly what produced it.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|s| !s.is_empty())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]);
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some();
    let version = match commit {
        Some(c) if dirty => format!("{} (commit {c}, modified)", env!("CARGO_PKG_VERSION")),
        Some(c) => format!("{} (commit {c})", env!("CARGO_PKG_VERSION")),
        None => format!("{} (commit unknown)", env!("CARGO_PKG_VERSION")),
    };
    println!("cargo:rustc-env=LINERATE_VERSION={version}");
    // Rebuild when HEAD moves (a commit, a checkout) or the index changes.
    for path in ["HEAD", "index"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &head_ref]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
