//! The C ABI as a careless C consumer meets it: `tests/c/misuse.c`,
//! compiled with the system's C compiler, loads the producer with dlopen
//! (as every GenTL consumer does), resolves every GenTL 1.6 function and
//! calls each with NULL pointers and with NULL, made-up, stale and
//! wrong-kind handles, before and after `GCInitLib` and after `GCCloseLib`:
//! every call returns an error code (the one the standard names where it
//! names one) and none crashes.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The producer (`liblinerate_gentl.so`), built now: `cargo test` links
/// its tests with the rlib and leaves the cdylib as it was, so this asks
/// cargo for it (same profile and target directory as this test).
fn producer() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build.args(["build", "--locked", "-p", "linerate-gentl", "--lib"]);
    if !cfg!(debug_assertions) {
        build.arg("--release");
    }
    let built = build.output().expect("running cargo build");
    assert!(
        built.status.success(),
        "cargo build -p linerate-gentl:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>");
    let so = dir.join("liblinerate_gentl.so");
    assert!(so.is_file(), "{} was not built", so.display());
    so
}

#[test]
fn every_function_refuses_null_stale_and_wrong_handles_without_crashing() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/misuse.c");
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let exe = out_dir.join("gentl-misuse");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&cc)
        .args(["-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .arg(&source)
        .arg("-ldl")
        .output()
        .unwrap_or_else(|e| {
            panic!("running the C compiler {cc:?} failed ({e}): the C compiler Rust links with is enough")
        });
    assert!(
        built.status.success(),
        "compiling {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(&exe)
        .arg(producer())
        .output()
        .expect("running the C test");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the C test failed ({}):\n{stdout}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains(", 0 failed"), "{stdout}");
}
