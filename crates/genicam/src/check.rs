//! Checks an XML's shape before cameleon-genapi sees it.
//!
//! cameleon-genapi parses and evaluates recursively: element nesting,
//! formula parentheses, `?:` chains, chains of node references (`pValue`,
//! `pVariable`, ...), and reference cycles all turn into stack depth. A stack
//! overflow aborts the process, which `catch_unwind` cannot stop, so a
//! broken or hostile XML must be refused here, with a typed error, before
//! it is built. The limits are far above what real camera XMLs use (element
//! depth under 10, formulas of tens of operators, reference chains under 20)
//! and far below what overflows a 2 MiB thread stack in a debug build.

use std::collections::HashMap;

use roxmltree::{Document, Node, NodeId};

use crate::error::Error;

/// Deepest element nesting accepted.
pub const MAX_ELEMENT_DEPTH: usize = 64;
/// Deepest parenthesis nesting accepted in one formula.
pub const MAX_PAREN_DEPTH: usize = 32;
/// Most operators accepted in one node's formulas and expressions together.
///
/// A chain like `A+B+C+...` parses into a tree as deep as it is long, and
/// cameleon-genapi evaluates and drops it recursively at about 3 KiB of
/// stack per level in a debug build: about 650 levels overflow a 2 MiB
/// thread. 384 leaves room for a maximal reference chain underneath.
pub const MAX_OPERATORS: usize = 384;
/// Most named `<Expression>`s accepted in one node.
pub const MAX_EXPRESSIONS: usize = 64;
/// Longest chain of node references one evaluation may follow.
pub const MAX_REFERENCE_DEPTH: usize = 64;
/// Largest immediate register `<Length>` accepted (cameleon-genapi
/// allocates a buffer of that size on every access).
pub const MAX_REGISTER_LENGTH: u64 = 1 << 20;

fn too_complex(reason: String) -> Error {
    Error::XmlTooComplex { reason }
}

/// Parses `xml` and checks it against the limits above.
pub(crate) fn check(xml: &str) -> Result<(), Error> {
    let doc = Document::parse(xml).map_err(|e| Error::XmlSyntax {
        reason: e.to_string(),
    })?;
    check_root(&doc)?;
    check_depth_and_lengths(&doc)?;
    let nodes = collect_nodes(&doc);
    for node in &nodes {
        check_formulas(node)?;
    }
    check_references(&nodes)
}

/// Attributes cameleon-genapi requires on the root (it `unwrap`s them).
const ROOT_ATTRIBUTES: &[&str] = &[
    "ModelName",
    "VendorName",
    "StandardNameSpace",
    "SchemaMajorVersion",
    "SchemaMinorVersion",
    "SchemaSubMinorVersion",
    "MajorVersion",
    "MinorVersion",
    "SubMinorVersion",
    "ProductGuid",
    "VersionGuid",
];

/// A GenICam XML is a `RegisterDescription` with its identifying attributes;
/// anything else is not a device description at all.
fn check_root(doc: &Document<'_>) -> Result<(), Error> {
    let root = doc.root_element();
    let name = root.tag_name().name();
    if name != "RegisterDescription" {
        return Err(Error::XmlSyntax {
            reason: format!("the root element is <{name}>, not <RegisterDescription>"),
        });
    }
    if let Some(missing) = ROOT_ATTRIBUTES
        .iter()
        .find(|a| root.attribute(**a).is_none())
    {
        return Err(Error::XmlSyntax {
            reason: format!("<RegisterDescription> has no {missing} attribute"),
        });
    }
    Ok(())
}

fn check_depth_and_lengths(doc: &Document<'_>) -> Result<(), Error> {
    // Descendants come in document order, so a parent's depth is known
    // before its children's; no recursion.
    let mut depths: HashMap<NodeId, usize> = HashMap::new();
    for n in doc.root().descendants().filter(Node::is_element) {
        let depth = n
            .parent()
            .and_then(|p| depths.get(&p.id()).copied())
            .unwrap_or(0)
            + 1;
        if depth > MAX_ELEMENT_DEPTH {
            return Err(too_complex(format!(
                "elements nest deeper than {MAX_ELEMENT_DEPTH} levels (at <{}>)",
                n.tag_name().name()
            )));
        }
        depths.insert(n.id(), depth);
        if n.tag_name().name() == "Length" {
            if let Some(length) = parse_int(text_of(n).trim()) {
                if length > MAX_REGISTER_LENGTH {
                    return Err(too_complex(format!(
                        "a register <Length> of {length} bytes exceeds {MAX_REGISTER_LENGTH}{}",
                        owner_name(n)
                    )));
                }
            }
        }
    }
    Ok(())
}

/// ` (in node X)` for messages, from the nearest ancestor with a Name.
fn owner_name(n: Node<'_, '_>) -> String {
    n.ancestors()
        .find_map(|a| a.attribute("Name"))
        .map(|name| format!(" (in {name})"))
        .unwrap_or_default()
}

/// An XML integer as GenICam writes them: decimal or `0x` hexadecimal.
fn parse_int(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// All text inside an element (text and CDATA children).
fn text_of(n: Node<'_, '_>) -> String {
    n.descendants()
        .filter(|d| d.is_text())
        .filter_map(|d| d.text())
        .collect()
}

/// How a reference is followed when a node is evaluated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum RefKind {
    /// Evaluating the node's value evaluates the target's value
    /// (`pValue`, `pAddress`, `pIndex`, `pLength`, `pPort`, `pVariable`, ...).
    Value,
    /// A `pVariable` named `X.Min`, `X.Max` or `X.Inc`: the node's value
    /// needs the target's bounds.
    ValueNeedsBound,
    /// `pMin`, `pMax`, `pInc`: the node's bounds need the target's value.
    Bound,
    /// `pIsAvailable`, `pIsImplemented`, `pIsLocked`: the node's access
    /// check needs the target's value.
    Access,
}

/// One node of the XML: its name and references, and its formulas.
struct XmlNode {
    name: String,
    refs: Vec<(RefKind, String)>,
    /// (element name or expression name, formula text)
    formulas: Vec<(String, String)>,
    /// Names of the node's `<Expression>`s.
    expressions: Vec<String>,
}

/// References that are not followed during evaluation: selectors,
/// invalidators, category members, aliases, error nodes, polling hints.
const NOT_EVALUATED: &[&str] = &[
    "pSelected",
    "pInvalidator",
    "pFeature",
    "pAlias",
    "pCastAlias",
    "pError",
    "pBlockPolling",
    "pTerminal",
    "pDependent",
];

fn ref_kind(element: Node<'_, '_>) -> Option<RefKind> {
    let tag = element.tag_name().name();
    if !tag.starts_with('p') || NOT_EVALUATED.contains(&tag) {
        return None;
    }
    Some(match tag {
        "pMin" | "pMax" | "pInc" => RefKind::Bound,
        "pIsAvailable" | "pIsImplemented" | "pIsLocked" => RefKind::Access,
        "pVariable" => {
            let name = element.attribute("Name").unwrap_or_default();
            match name.split('.').nth(1) {
                Some("Min" | "Max" | "Inc") => RefKind::ValueNeedsBound,
                _ => RefKind::Value,
            }
        }
        _ => RefKind::Value,
    })
}

fn add_children(element: Node<'_, '_>, node: &mut XmlNode) {
    for child in element.children().filter(Node::is_element) {
        let tag = child.tag_name().name();
        if let Some(kind) = ref_kind(child) {
            node.refs.push((kind, text_of(child).trim().to_string()));
        }
        match tag {
            "Formula" | "FormulaTo" | "FormulaFrom" => {
                node.formulas.push((tag.to_string(), text_of(child)));
            }
            "Expression" => {
                let name = child.attribute("Name").unwrap_or_default().to_string();
                node.expressions.push(name.clone());
                node.formulas.push((name, text_of(child)));
            }
            _ => {}
        }
    }
}

/// The nodes: named children of `RegisterDescription` and of `Group`s, with
/// each `StructReg` expanded into its `StructEntry`s (which share its
/// address and port references).
fn collect_nodes(doc: &Document<'_>) -> Vec<XmlNode> {
    let mut nodes = Vec::new();
    let mut containers = vec![doc.root_element()];
    while let Some(container) = containers.pop() {
        for element in container.children().filter(Node::is_element) {
            match element.tag_name().name() {
                "Group" => containers.push(element),
                "StructReg" => {
                    for entry in element
                        .children()
                        .filter(|c| c.is_element() && c.tag_name().name() == "StructEntry")
                    {
                        let Some(name) = entry.attribute("Name") else {
                            continue;
                        };
                        let mut node = XmlNode {
                            name: name.to_string(),
                            refs: Vec::new(),
                            formulas: Vec::new(),
                            expressions: Vec::new(),
                        };
                        add_children(element, &mut node);
                        add_children(entry, &mut node);
                        nodes.push(node);
                    }
                }
                _ => {
                    let Some(name) = element.attribute("Name") else {
                        continue;
                    };
                    let mut node = XmlNode {
                        name: name.to_string(),
                        refs: Vec::new(),
                        formulas: Vec::new(),
                        expressions: Vec::new(),
                    };
                    add_children(element, &mut node);
                    nodes.push(node);
                }
            }
        }
    }
    nodes
}

/// What a formula costs the recursive-descent parser and evaluator.
#[derive(Default, Debug, PartialEq, Eq)]
struct FormulaStats {
    operators: usize,
    paren_depth: usize,
    identifiers: Vec<String>,
}

fn formula_stats(text: &str) -> FormulaStats {
    let mut stats = FormulaStats::default();
    let mut depth = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_ascii_alphabetic() || c == '_' {
            let mut end = start + c.len_utf8();
            while let Some(&(i, d)) = chars.peek() {
                if d.is_ascii_alphanumeric() || d == '_' || d == '.' {
                    end = i + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            stats
                .identifiers
                .push(text.get(start..end).unwrap_or_default().to_string());
        } else if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|&(_, d)| d.is_ascii_alphanumeric() || d == '.')
            {
                chars.next();
            }
        } else if c == '(' {
            depth += 1;
            stats.paren_depth = stats.paren_depth.max(depth);
        } else if c == ')' {
            depth = depth.saturating_sub(1);
        } else if "+-*/%&|^~!<>=?:".contains(c) {
            stats.operators += 1;
        }
    }
    stats
}

fn check_formulas(node: &XmlNode) -> Result<(), Error> {
    let name = &node.name;
    if node.expressions.len() > MAX_EXPRESSIONS {
        return Err(too_complex(format!(
            "{name} has {} expressions, more than {MAX_EXPRESSIONS}",
            node.expressions.len()
        )));
    }
    let mut operators = 0usize;
    let mut uses: Vec<(String, Vec<String>)> = Vec::new();
    for (label, text) in &node.formulas {
        let stats = formula_stats(text);
        if stats.paren_depth > MAX_PAREN_DEPTH {
            return Err(too_complex(format!(
                "{name}: {label} nests parentheses {} deep, more than {MAX_PAREN_DEPTH}",
                stats.paren_depth
            )));
        }
        operators += stats.operators;
        if operators > MAX_OPERATORS {
            return Err(too_complex(format!(
                "{name}: its formulas have more than {MAX_OPERATORS} operators"
            )));
        }
        uses.push((label.clone(), stats.identifiers));
    }
    // Expressions are evaluated by name when a formula mentions them: one
    // that (indirectly) mentions itself recurses without end.
    let index: HashMap<&str, usize> = node
        .expressions
        .iter()
        .enumerate()
        .map(|(i, e)| (e.as_str(), i))
        .collect();
    let edges: Vec<Vec<usize>> = node
        .expressions
        .iter()
        .map(|e| {
            uses.iter()
                .filter(|(label, _)| label == e)
                .flat_map(|(_, ids)| ids.iter())
                .filter_map(|id| index.get(id.as_str()).copied())
                .collect()
        })
        .collect();
    let labels: Vec<String> = node.expressions.clone();
    if let Some(cycle) = find_cycle(&edges) {
        let path: Vec<&str> = cycle.iter().map(|&i| labels[i].as_str()).collect();
        return Err(too_complex(format!(
            "{name}: its expressions refer to each other in a cycle: {}",
            path.join(" -> ")
        )));
    }
    Ok(())
}

/// A cycle in a graph given as adjacency lists, as the list of vertices
/// around it (first repeated at the end). Iterative, so any size is safe.
fn find_cycle(edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    longest_paths(edges).err()
}

/// For each vertex, the number of vertices on the longest path starting
/// there; or a cycle. Iterative depth-first search.
fn longest_paths(edges: &[Vec<usize>]) -> Result<Vec<usize>, Vec<usize>> {
    const NEW: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; edges.len()];
    let mut longest = vec![0usize; edges.len()];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..edges.len() {
        if state[root] != NEW {
            continue;
        }
        state[root] = ACTIVE;
        stack.push((root, 0));
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            let out = edges.get(v).map(Vec::as_slice).unwrap_or_default();
            if let Some(&w) = out.get(*next) {
                *next += 1;
                match state.get(w).copied() {
                    Some(NEW) => {
                        state[w] = ACTIVE;
                        stack.push((w, 0));
                    }
                    Some(ACTIVE) => {
                        let from = stack.iter().position(|&(u, _)| u == w).unwrap_or(0);
                        let mut cycle: Vec<usize> = stack
                            .get(from..)
                            .unwrap_or_default()
                            .iter()
                            .map(|&(u, _)| u)
                            .collect();
                        cycle.push(w);
                        return Err(cycle);
                    }
                    _ => {}
                }
            } else {
                let best = out
                    .iter()
                    .filter_map(|&w| longest.get(w).copied())
                    .max()
                    .unwrap_or(0);
                longest[v] = best + 1;
                state[v] = DONE;
                stack.pop();
            }
        }
    }
    Ok(longest)
}

/// Evaluation steps a node can be asked for.
const VALUE: usize = 0;
const BOUND: usize = 1;
const ACCESS: usize = 2;
const STEPS: usize = 3;
const STEP_NAMES: [&str; STEPS] = ["value", "bounds", "access"];

/// Checks that following references from any node never loops and never
/// goes deeper than [`MAX_REFERENCE_DEPTH`].
///
/// Each node has three evaluation steps (its value, its bounds, its access
/// check) and a reference links one step of a node to a step of its
/// target, the way cameleon-genapi follows it: so `Width.pMax -> WidthMax`
/// and `WidthMax`'s formula using `Width` is not a loop (the bounds of
/// `Width` need the value of `WidthMax`, which needs the value of `Width`,
/// which needs nothing of `WidthMax`), but `A.pValue -> B`, `B.pValue -> A`
/// is.
fn check_references(nodes: &[XmlNode]) -> Result<(), Error> {
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); nodes.len() * STEPS];
    for (i, node) in nodes.iter().enumerate() {
        for (kind, target) in &node.refs {
            let Some(&t) = index.get(target.as_str()) else {
                // Dangling: cameleon-genapi reports it (or panics, caught) on use.
                continue;
            };
            let mut link = |from: usize, to: usize| edges[i * STEPS + from].push(t * STEPS + to);
            match kind {
                RefKind::Value => {
                    link(VALUE, VALUE);
                    link(BOUND, BOUND);
                    link(ACCESS, ACCESS);
                }
                RefKind::ValueNeedsBound => {
                    link(VALUE, BOUND);
                    link(ACCESS, ACCESS);
                }
                RefKind::Bound => link(BOUND, VALUE),
                RefKind::Access => link(ACCESS, VALUE),
            }
        }
    }
    let describe = |v: usize| {
        format!(
            "{} ({})",
            nodes.get(v / STEPS).map_or("?", |n| n.name.as_str()),
            STEP_NAMES.get(v % STEPS).copied().unwrap_or("?")
        )
    };
    match longest_paths(&edges) {
        Err(cycle) => {
            let path: Vec<String> = cycle.into_iter().map(describe).collect();
            Err(too_complex(format!(
                "node references form a cycle, which would recurse without end: {}",
                path.join(" -> ")
            )))
        }
        // `longest` counts nodes on the path; references are one fewer.
        Ok(longest) => match longest.iter().enumerate().max_by_key(|&(_, &d)| d) {
            Some((v, &nodes)) if nodes.saturating_sub(1) > MAX_REFERENCE_DEPTH => {
                Err(too_complex(format!(
                    "evaluating {} follows a chain of {} node references, more than {MAX_REFERENCE_DEPTH}",
                    describe(v),
                    nodes - 1
                )))
            }
            _ => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_statistics() {
        let s = formula_stats("(SEL = 0) ? (A.Max + 0x10) : ((B << 2) & 0xFF)");
        assert_eq!(s.paren_depth, 2);
        assert_eq!(s.operators, 7, "{s:?}"); // = ? + : << & (<< is two)
        assert_eq!(s.identifiers, ["SEL", "A.Max", "B"]);
    }

    #[test]
    fn longest_paths_and_cycles() {
        assert_eq!(
            longest_paths(&[vec![1], vec![2], vec![]]),
            Ok(vec![3, 2, 1])
        );
        assert_eq!(
            longest_paths(&[vec![1, 2], vec![2], vec![]]),
            Ok(vec![3, 2, 1])
        );
        assert_eq!(
            longest_paths(&[vec![1], vec![2], vec![0]]),
            Err(vec![0, 1, 2, 0])
        );
        assert_eq!(longest_paths(&[vec![0]]), Err(vec![0, 0]));
    }
}
