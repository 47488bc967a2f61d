//! One I/O boundary (issue 21): `linerate-io` is the only crate that talks
//! to the kernel through `unsafe` code, libc, nix or socket2; every other
//! crate uses the safe APIs it exports. Two checks hold the line:
//!
//! - no crate but io declares libc, nix or socket2 as a dependency of any
//!   kind (normal, dev, build, per target), read from each `Cargo.toml`;
//! - no source file under `crates/*/src` outside `crates/io` contains the
//!   `unsafe` keyword or a `libc`/`nix`/`socket2` path, as tokens of the
//!   code (comments, strings and character literals do not count).
//!
//! Each failure names the file (and line). [`MOVING`] lists the places
//! that still break the rule while their code moves out; it only shrinks,
//! and an entry that no longer breaks it fails the test until it is
//! removed.

mod source_tree;

use std::path::{Path, PathBuf};

use source_tree::rust_files;

/// The one crate allowed to reach the kernel directly.
const IO_CRATE: &str = "crates/io/";
/// The crates that give raw access to the kernel's interfaces.
const SYSTEM_CRATES: [&str; 3] = ["libc", "nix", "socket2"];

/// Places allowed to break the rule for a while, e.g. while their code
/// moves into a library and its system calls into io. Empty: every crate
/// but io is clean. An entry must be removed as soon as its place is
/// clean (the test says when).
const MOVING: [&str; 0] = [];

/// Files outside io that may hold the `unsafe` keyword (never libc, nix or
/// socket2), because what they do is FFI with another language's memory
/// model and cannot go through io: lending a grab buffer to numpy without
/// a copy needs numpy's `borrow_from_array`, whose contract (the array's
/// base keeps the memory alive and unchanged) the Python frame type keeps;
/// lending a FADE ring's bytes the same way (chunk.rs) needs it too, the
/// chunk's ring lease keeping them alive and unchanged. Each use carries a
/// SAFETY comment. The GenTL producer's C ABI (crates/gentl/src/ffi) takes
/// and fills C pointers and copies frames into memory the consumer
/// announced, or lends that memory to the receive engine (ffi/lent.rs):
/// that is its whole job and no io API can do it; its logic lives in safe
/// modules beside it.
const FFI_UNSAFE: [&str; 5] = [
    "crates/python/src/frame.rs",
    "crates/python/src/chunk.rs",
    "crates/gentl/src/ffi/mod.rs",
    "crates/gentl/src/ffi/stream.rs",
    "crates/gentl/src/ffi/lent.rs",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `path` relative to the workspace, with `/` separators.
fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn crate_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("the workspace has a crates directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The system crates a manifest declares, under any dependency table
/// (including `[target.'cfg(..)'.dependencies]` and renamed packages).
fn system_dependencies(manifest: &str) -> Vec<String> {
    let doc: toml::Table = manifest.parse().expect("a valid Cargo.toml");
    let kinds = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables: Vec<(String, &toml::Table)> = Vec::new();
    for kind in kinds {
        if let Some(t) = doc.get(kind).and_then(|v| v.as_table()) {
            tables.push((kind.to_string(), t));
        }
    }
    if let Some(targets) = doc.get("target").and_then(|v| v.as_table()) {
        for (cfg, t) in targets {
            for kind in kinds {
                if let Some(t) = t.get(kind).and_then(|v| v.as_table()) {
                    tables.push((format!("target.{cfg}.{kind}"), t));
                }
            }
        }
    }
    let mut found = Vec::new();
    for (kind, table) in tables {
        for (name, spec) in table {
            let package = spec.get("package").and_then(|p| p.as_str()).unwrap_or(name);
            if SYSTEM_CRATES.contains(&package) {
                found.push(format!("[{kind}] {name}"));
            }
        }
    }
    found
}

/// What in `source` breaks the boundary, as (line, what): the `unsafe`
/// keyword, and `libc`/`nix`/`socket2` used as a path or imported.
/// Comments, string literals (raw and byte ones too) and character
/// literals are skipped, so prose about `unsafe` is not code.
fn violations(source: &str) -> Vec<(usize, String)> {
    let tokens = tokens(source);
    let mut found = Vec::new();
    for (i, (line, tok)) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(|t| t.1.as_str());
        let prev = i
            .checked_sub(1)
            .and_then(|p| tokens.get(p))
            .map(|t| t.1.as_str());
        if tok == "unsafe" {
            found.push((*line, "`unsafe`".to_string()));
        } else if SYSTEM_CRATES.contains(&tok.as_str())
            && (next == Some("::") || matches!(prev, Some("use" | "crate")))
        {
            found.push((*line, format!("`{tok}`")));
        }
    }
    found
}

/// Identifiers and `::` of `source` with their line numbers; everything
/// else (comments, literals, other punctuation) is dropped.
fn tokens(source: &str) -> Vec<(usize, String)> {
    let s: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    while i < s.len() {
        let c = at(i);
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < s.len() && at(i) != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < s.len() {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if at(i) == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < s.len() && at(i) != '"' {
                if at(i) == '\\' {
                    i += 1;
                }
                if at(i) == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                // An escaped character literal: past the escaped character,
                // up to the closing quote.
                i += 3;
                while i < s.len() && at(i) != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                // A lifetime or label: its name is an ordinary identifier.
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < s.len() && (at(i).is_alphanumeric() || at(i) == '_') {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            // Raw (byte) strings: r"..", r#".."#, br"..".
            if (word == "r" || word == "br") && (at(i) == '#' || at(i) == '"') {
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                if at(i) == '"' {
                    i += 1;
                    loop {
                        if i >= s.len() {
                            break;
                        }
                        if at(i) == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                            i += 1 + hashes;
                            break;
                        }
                        if at(i) == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    continue;
                }
            }
            out.push((line, word));
        } else if c == ':' && at(i + 1) == ':' {
            out.push((line, "::".to_string()));
            i += 2;
        } else {
            i += 1;
        }
    }
    out
}

fn moving(place: &str) -> bool {
    MOVING.iter().any(|m| place.starts_with(m))
}

/// Generated files outside io that hold the `unsafe` keyword (never libc,
/// nix or socket2): FlatBuffers readers that planus generates from the ESS
/// schemas implement its `unsafe` traits for every table; the code is
/// regenerated, never edited by hand (crates/kafka/schemas/README.md).
const GENERATED_UNSAFE: [&str; 2] = [
    "crates/kafka/src/ess/ad00.rs",
    "crates/kafka/src/ess/f144.rs",
];

#[test]
fn only_io_declares_libc_nix_or_socket2() {
    let root = workspace();
    let mut broken = Vec::new();
    let mut still_moving = Vec::new();
    for dir in crate_dirs(&root) {
        let manifest = dir.join("Cargo.toml");
        let place = relative(&root, &manifest);
        if place.starts_with(IO_CRATE) {
            continue;
        }
        let text = std::fs::read_to_string(&manifest).expect("readable manifest");
        let found = system_dependencies(&text);
        if moving(&place) {
            if !found.is_empty() {
                still_moving.push(place);
            }
            continue;
        }
        for dep in found {
            broken.push(format!("{place}: {dep}"));
        }
    }
    assert!(
        broken.is_empty(),
        "only crates/io may depend on libc, nix or socket2; use linerate-io's safe API \
         instead (add one there if it is missing):\n{}",
        broken.join("\n")
    );
    for m in MOVING.iter().filter(|m| m.ends_with("Cargo.toml")) {
        assert!(
            still_moving.iter().any(|p| p == m),
            "{m} no longer declares libc, nix or socket2: remove it from MOVING"
        );
    }
}

#[test]
fn no_unsafe_or_system_crate_outside_io() {
    let root = workspace();
    let mut files = Vec::new();
    for dir in crate_dirs(&root) {
        rust_files(&dir.join("src"), &mut files);
    }
    files.sort();
    let mut broken = Vec::new();
    let mut still_moving = Vec::new();
    for file in &files {
        let place = relative(&root, file);
        if place.starts_with(IO_CRATE) {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("readable source");
        let found = violations(&text);
        if moving(&place) {
            if !found.is_empty() {
                still_moving.push(place);
            }
            continue;
        }
        let ffi =
            FFI_UNSAFE.contains(&place.as_str()) || GENERATED_UNSAFE.contains(&place.as_str());
        for (line, what) in found {
            if ffi && what == "`unsafe`" {
                continue;
            }
            broken.push(format!("{place}:{line}: {what}"));
        }
    }
    assert!(
        !files.is_empty(),
        "no sources found under {}",
        root.display()
    );
    assert!(
        broken.is_empty(),
        "unsafe code and libc/nix/socket2 belong in crates/io only; move this behind a \
         safe API there:\n{}",
        broken.join("\n")
    );
    for m in MOVING.iter().filter(|m| !m.ends_with("Cargo.toml")) {
        assert!(
            still_moving.iter().any(|p| p.starts_with(m)),
            "{m} is clean now: remove it from MOVING"
        );
    }
}

#[test]
fn the_scan_sees_code_and_skips_prose() {
    let code = "use libc;\nfn f() {\n    let x = unsafe { libc::getpid() };\n}\n\
                use nix::sched;\nfn g() { socket2::SockRef::from(&s); }\n";
    let found = violations(code);
    let lines: Vec<usize> = found.iter().map(|f| f.0).collect();
    assert_eq!(lines, [1, 3, 3, 5, 6], "{found:?}");
    let prose = "// unsafe { libc::x() }\n/* nested /* unsafe */ libc::y */\n\
                 const A: &str = \"unsafe libc::z\";\nconst B: &str = r#\"unsafe \"nix::q\"\"#;\n\
                 const C: char = '\\'';\nfn h<'a>(x: &'a str) -> &'a str { x }\n\
                 const D: &[u8] = br\"socket2::S\";\nfn unsafe_free() { let libc_like = 1; }\n";
    assert!(violations(prose).is_empty(), "{:?}", violations(prose));
    // A line count that survives comments and strings over several lines.
    let later = "/* a\nb */\nconst S: &str = \"x\ny\";\nunsafe fn z() {}\n";
    assert_eq!(violations(later), [(5, "`unsafe`".to_string())]);
}

#[test]
fn the_manifest_check_reads_every_dependency_table() {
    let manifest = r#"
[package]
name = "x"

[dependencies]
serde = "1"
libc = "0.2"

[dev-dependencies.nix]
version = "0.29"

[target.'cfg(unix)'.build-dependencies]
sockets = { package = "socket2", version = "0.5" }
"#;
    assert_eq!(
        system_dependencies(manifest),
        [
            "[dependencies] libc",
            "[dev-dependencies] nix",
            "[target.cfg(unix).build-dependencies] sockets",
        ]
    );
}
