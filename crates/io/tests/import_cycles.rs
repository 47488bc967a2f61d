//! No file-level import cycle in any crate of the workspace: a
//! module file may use another only if that one does not, directly or
//! through others, use it back. Cycles make a crate impossible to split or
//! to read bottom-up; the layering this test holds is in
//! docs/architecture.md.
//!
//! The check reads every `src/**/*.rs` of every crate under `crates/`,
//! takes each `crate::a::b` and `super::x` path outside comments and test
//! modules as an edge to the longest module file it names, ignores edges
//! between a module and its own submodules (a parent declares them), and
//! looks for strongly connected components.

use std::collections::{BTreeMap, BTreeSet};
mod source_tree;

use std::path::{Path, PathBuf};

use source_tree::rust_files;

type Module = Vec<String>;

/// The module path of `file` within `src` (`lib.rs` and `mod.rs` name
/// their directory's module).
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
    {
        parts.pop();
    }
    parts
}

/// The code of a file without comments and without its `mod tests`.
fn code(text: &str) -> String {
    let text = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `prefix` path in `text`, as its segments (`crate::a::{b, c}`
/// gives `a::b` and `a::c`).
fn paths_after(text: &str, prefix: &str) -> Vec<Module> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let head: Module = rest[..end]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if rest[end..].starts_with('{') {
            let close = rest[end..].find('}').map_or(rest.len(), |j| end + j);
            for item in rest[end + 1..close].split(',') {
                let mut p = head.clone();
                p.extend(
                    item.trim()
                        .split("::")
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty()),
                );
                out.push(p);
            }
        } else {
            out.push(head);
        }
    }
    out
}

fn cycles_in(src: &Path) -> Vec<Vec<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<Module, PathBuf> = files
        .iter()
        .map(|f| (module_of(src, f), f.clone()))
        .collect();
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, f) in &modules {
        let text = code(&std::fs::read_to_string(f).unwrap_or_default());
        let mut refs = paths_after(&text, "crate::");
        for p in paths_after(&text, "super::") {
            // `super::super::x` climbs one module per `super`.
            let ups = 1 + p.iter().take_while(|s| *s == "super").count();
            let mut full: Module = m[..m.len().saturating_sub(ups)].to_vec();
            full.extend(p.into_iter().skip_while(|s| s == "super"));
            refs.push(full);
        }
        let edges = graph.entry(m.clone()).or_default();
        for r in refs {
            let target = (1..=r.len())
                .rev()
                .map(|k| r[..k].to_vec())
                .find(|p| modules.contains_key(p));
            if let Some(t) = target {
                let nested = t.starts_with(m) || m.starts_with(&t);
                if &t != m && !t.is_empty() && !nested {
                    edges.insert(t);
                }
            }
        }
    }
    strongly_connected(&graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| c.iter().map(|m| m.join("/")).collect())
        .collect()
}

/// Tarjan's strongly connected components.
fn strongly_connected(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        graph: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        next: usize,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            s.out.push(comp);
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_crate_has_a_file_level_import_cycle() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut checked = 0;
    for e in std::fs::read_dir(&crates).expect("crates/").flatten() {
        let src = e.path().join("src");
        if src.is_dir() {
            checked += 1;
            for c in cycles_in(&src) {
                found.push(format!(
                    "{}: {}",
                    e.file_name().to_string_lossy(),
                    c.join(" <-> ")
                ));
            }
        }
    }
    assert!(checked >= 10, "only {checked} crates found under crates/");
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_cycle_it_is_shown() {
    let dir = std::env::temp_dir().join(format!("import-cycles-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("b")).expect("dirs");
    let write = |p: &str, t: &str| std::fs::write(src.join(p), t).expect("write");
    write("lib.rs", "mod a;\nmod b;\n");
    write("a.rs", "use crate::b::{c::X, Y};\n");
    write("b/mod.rs", "pub mod c;\npub struct Y;\n");
    write(
        "b/c.rs",
        "pub struct X;\n// use crate::a;\nfn f() { super::super::a::g() }\n",
    );
    let found = cycles_in(&src);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(found.len(), 1, "{found:?}");
    let mut c = found[0].clone();
    c.sort();
    assert_eq!(c, ["a", "b/c"]);
}
