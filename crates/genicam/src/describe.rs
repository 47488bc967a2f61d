//! What a feature is, as a listing shows it: type, access mode now, value,
//! range or entries, unit, and the category tree the XML arranges them in.
//!
//! [`Features::describe`] and [`Features::tree`] are what `linerate
//! features` (and any later front end: Python, GenTL, a live view) print;
//! they read through the same [`RegisterPort`] as `get` and `set`.

use core::fmt;
use std::collections::HashSet;

use cameleon_genapi::elem_type::Visibility as GenApiVisibility;
use cameleon_genapi::prelude::*;
use cameleon_genapi::store::{NodeData, NodeStore};
use cameleon_genapi::NodeId;

use crate::error::Error;
use crate::features::{genapi_error, kind_of, FeatureKind, FeatureValue, Features};
use crate::port::RegisterPort;

impl FeatureKind {
    /// The GenApi interface name (`Integer`, `Float`, `Enumeration`, ...),
    /// as listings and JSON reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            FeatureKind::Integer => "Integer",
            FeatureKind::Float => "Float",
            FeatureKind::Enumeration => "Enumeration",
            FeatureKind::Boolean => "Boolean",
            FeatureKind::String => "String",
            FeatureKind::Command => "Command",
            FeatureKind::Category => "Category",
            FeatureKind::Other => "Other",
        }
    }
}

impl fmt::Display for FeatureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a feature can be used at this moment, as GenApi evaluates it
/// (`pIsAvailable`, `pIsLocked` and the node's declared access together),
/// so a host knows before writing whether a write can succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessMode {
    /// Readable and writable.
    ReadWrite,
    /// Readable only (read-only by declaration, or locked now).
    ReadOnly,
    /// Writable only (commands, write-only registers).
    WriteOnly,
    /// Neither, now (not available or not implemented).
    NotAvailable,
}

impl AccessMode {
    fn from_flags(readable: bool, writable: bool) -> AccessMode {
        match (readable, writable) {
            (true, true) => AccessMode::ReadWrite,
            (true, false) => AccessMode::ReadOnly,
            (false, true) => AccessMode::WriteOnly,
            (false, false) => AccessMode::NotAvailable,
        }
    }

    /// GenApi's abbreviation: `RW`, `RO`, `WO`, `NA`.
    pub fn abbreviation(self) -> &'static str {
        match self {
            AccessMode::ReadWrite => "RW",
            AccessMode::ReadOnly => "RO",
            AccessMode::WriteOnly => "WO",
            AccessMode::NotAvailable => "NA",
        }
    }

    /// Whether a read can succeed now.
    pub fn readable(self) -> bool {
        matches!(self, AccessMode::ReadWrite | AccessMode::ReadOnly)
    }

    /// Whether a write can succeed now.
    pub fn writable(self) -> bool {
        matches!(self, AccessMode::ReadWrite | AccessMode::WriteOnly)
    }
}

impl fmt::Display for AccessMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.abbreviation())
    }
}

/// Who the XML says a feature is for; GUIs hide the higher levels by
/// default, listings show them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Visibility {
    /// Every user.
    Beginner,
    /// Users who know the camera.
    Expert,
    /// Users who know the camera's internals.
    Guru,
    /// Not for users (transport-layer plumbing).
    Invisible,
}

impl Visibility {
    /// The XML's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Visibility::Beginner => "Beginner",
            Visibility::Expert => "Expert",
            Visibility::Guru => "Guru",
            Visibility::Invisible => "Invisible",
        }
    }
}

/// The values a feature accepts now, as its node reports them.
#[derive(Debug, Clone, PartialEq)]
pub enum Bounds {
    /// An Integer: `min + k × inc` up to `max`.
    Integer {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
        /// Step, counted from `min` (1 when the XML gives none).
        inc: i64,
    },
    /// A Float: `[min, max]`.
    Float {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// A String: at most this many bytes.
    String {
        /// The register's length.
        max_length: i64,
    },
}

/// One entry of an enumeration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryInfo {
    /// Symbolic name, what [`Features::set`] takes (`Mono8`).
    pub name: String,
    /// The integer written to the device.
    pub value: i64,
    /// Whether it may be selected now (implemented and available).
    pub available: bool,
}

/// Everything a listing says about one feature.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureInfo {
    /// The feature's name, what `get`/`set` take.
    pub name: String,
    /// Its GenApi interface.
    pub kind: FeatureKind,
    /// Access mode now.
    pub access: AccessMode,
    /// Current value; `None` when not readable, for commands, or when the
    /// read failed (then [`FeatureInfo::error`] says why).
    pub value: Option<FeatureValue>,
    /// Range (Integer, Float) or length limit (String) now; `None` for an
    /// Integer that declares no limits (the whole i64 range, step 1).
    pub bounds: Option<Bounds>,
    /// Enumeration entries, in XML order (empty for other kinds).
    pub entries: Vec<EntryInfo>,
    /// Unit of an Integer or Float (`us`, `dB`), when the XML gives one.
    pub unit: Option<String>,
    /// The XML's display name, when it differs from the name.
    pub display_name: Option<String>,
    /// The XML's tool tip, or its description when there is no tool tip.
    pub description: Option<String>,
    /// Intended audience.
    pub visibility: Visibility,
    /// Why the value or its bounds could not be read (a GenApi error on
    /// this feature; a transport failure fails the whole call instead).
    pub error: Option<String>,
}

/// A category and what it holds, in XML order, for tree-shaped listings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    /// The category's name (`Root`, `ImageFormatControl`, ...).
    pub name: String,
    /// Sub-categories and features.
    pub children: Vec<TreeItem>,
}

/// One child of a [`Category`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeItem {
    /// A nested category.
    Category(Category),
    /// A feature with a value or a command, by name.
    Feature(String),
}

/// Whether an error is the transport's (the device is gone or refuses),
/// which ends a listing, rather than this one feature's.
fn is_transport(e: &Error) -> bool {
    matches!(e, Error::Port(_))
}

impl Features {
    /// The category tree from `Root`, each category and feature once (a
    /// feature in two categories is shown in the first), without touching
    /// the device; `None` when the XML has no `Root` category (then
    /// [`Features::names`] is the flat list).
    pub fn tree(&self) -> Option<Category> {
        let store = &self.store;
        let root = store
            .id_by_name("Root")
            .filter(|&id| matches!(store.node_opt(id), Some(NodeData::Category(_))))?;
        let mut seen = HashSet::from([root]);
        Some(category_tree(store, root, &mut seen, 0))
    }

    /// Describes feature `name` as it is now: access, value, bounds,
    /// entries, unit and the XML's texts.
    ///
    /// A GenApi error while reading the value or bounds of this feature is
    /// recorded in [`FeatureInfo::error`] so a listing can go on; a
    /// transport failure ([`Error::Port`]) is returned, since every later
    /// read would fail the same way.
    pub fn describe(
        &mut self,
        port: &mut dyn RegisterPort,
        name: &str,
    ) -> Result<FeatureInfo, Error> {
        let id = self.id(name)?;
        let kind = self.kind(name)?;
        let (display_name, description, visibility) = self.texts(id, name);
        let mut info = FeatureInfo {
            name: name.to_string(),
            kind,
            access: AccessMode::NotAvailable,
            value: None,
            bounds: None,
            entries: Vec::new(),
            unit: None,
            display_name,
            description,
            visibility,
            error: None,
        };
        let mut errors = Vec::new();
        let note = |e: Error, errors: &mut Vec<String>| -> Result<(), Error> {
            if is_transport(&e) {
                return Err(e);
            }
            errors.push(e.to_string());
            Ok(())
        };
        match self.access(port, id, name, kind) {
            Ok(access) => info.access = access,
            Err(e) => note(e, &mut errors)?,
        }
        if info.access.readable() && kind != FeatureKind::Command {
            match self.get(port, name) {
                Ok(value) => info.value = Some(value),
                Err(e) => note(e, &mut errors)?,
            }
        }
        let bounds = match kind {
            // The full i64 range with step 1 is GenApi's default for a node
            // that declares no limits: not worth showing as a range.
            FeatureKind::Integer => self.int_bounds(port, name).map(|(min, max, inc)| {
                let unbounded = (min, max, inc) == (i64::MIN, i64::MAX, 1);
                (!unbounded).then_some(Bounds::Integer { min, max, inc })
            }),
            FeatureKind::Float => self
                .float_bounds(port, name)
                .map(|(min, max)| Some(Bounds::Float { min, max })),
            FeatureKind::String => self
                .string_max_length(port, id, name)
                .map(|max_length| Some(Bounds::String { max_length })),
            _ => Ok(None),
        };
        match bounds {
            Ok(bounds) => info.bounds = bounds,
            Err(e) => note(e, &mut errors)?,
        }
        if kind == FeatureKind::Enumeration {
            match self.entry_infos(port, id, name) {
                Ok(entries) => info.entries = entries,
                Err(e) => note(e, &mut errors)?,
            }
        }
        info.unit = self.unit(id);
        if !errors.is_empty() {
            info.error = Some(errors.join("; "));
        }
        Ok(info)
    }

    /// Display name (when it differs), tool tip or description, visibility.
    fn texts(&self, id: NodeId, name: &str) -> (Option<String>, Option<String>, Visibility) {
        let Some(data) = self.store.node_opt(id) else {
            return (None, None, Visibility::Beginner);
        };
        let base = data.node_base();
        let display_name = base
            .display_name()
            .filter(|d| *d != name)
            .map(str::to_string);
        let description = base
            .tooltip()
            .or_else(|| base.description())
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty());
        let visibility = match base.visibility() {
            GenApiVisibility::Beginner => Visibility::Beginner,
            GenApiVisibility::Expert => Visibility::Expert,
            GenApiVisibility::Guru => Visibility::Guru,
            GenApiVisibility::Invisible => Visibility::Invisible,
        };
        (display_name, description, visibility)
    }

    /// An Integer's or Float's unit, from the XML.
    fn unit(&self, id: NodeId) -> Option<String> {
        let store = &self.store;
        let unit = if let Some(node) = id.as_iinteger_kind(store) {
            node.unit(store).map(str::to_string)
        } else if let Some(node) = id.as_ifloat_kind(store) {
            node.unit(store).map(str::to_string)
        } else {
            None
        };
        unit.filter(|u| !u.trim().is_empty())
    }

    /// Evaluates readability and writability now.
    fn access(
        &mut self,
        port: &mut dyn RegisterPort,
        id: NodeId,
        name: &str,
        kind: FeatureKind,
    ) -> Result<AccessMode, Error> {
        let err = |e| genapi_error(name, e);
        self.with_device(
            port,
            || format!("access mode of {name}"),
            |dev, store, cx| {
                // The value interfaces share these two methods but no trait.
                macro_rules! readable_writable {
                    ($node:expr) => {{
                        let n = $node.map_err(err)?;
                        (
                            n.is_readable(dev, store, cx).map_err(err)?,
                            n.is_writable(dev, store, cx).map_err(err)?,
                        )
                    }};
                }
                let (r, w) = match kind {
                    FeatureKind::Integer => readable_writable!(id.expect_iinteger_kind(store)),
                    FeatureKind::Float => readable_writable!(id.expect_ifloat_kind(store)),
                    FeatureKind::Enumeration => {
                        readable_writable!(id.expect_ienumeration_kind(store))
                    }
                    FeatureKind::Boolean => readable_writable!(id.expect_iboolean_kind(store)),
                    FeatureKind::String => readable_writable!(id.expect_istring_kind(store)),
                    FeatureKind::Command => {
                        let n = id.expect_icommand_kind(store).map_err(err)?;
                        (false, n.is_writable(dev, store, cx).map_err(err)?)
                    }
                    FeatureKind::Category | FeatureKind::Other => (false, false),
                };
                Ok(AccessMode::from_flags(r, w))
            },
        )
    }

    /// A String's register length.
    fn string_max_length(
        &mut self,
        port: &mut dyn RegisterPort,
        id: NodeId,
        name: &str,
    ) -> Result<i64, Error> {
        let err = |e| genapi_error(name, e);
        self.with_device(
            port,
            || format!("length of {name}"),
            |dev, store, cx| {
                let n = id.expect_istring_kind(store).map_err(err)?;
                n.max_length(dev, store, cx).map_err(err)
            },
        )
    }

    /// An enumeration's entries with their values and availability now.
    fn entry_infos(
        &mut self,
        port: &mut dyn RegisterPort,
        id: NodeId,
        name: &str,
    ) -> Result<Vec<EntryInfo>, Error> {
        let err = |e| genapi_error(name, e);
        self.with_device(
            port,
            || format!("entries of {name}"),
            |dev, store, cx| {
                let node = id.expect_ienumeration_kind(store).map_err(err)?;
                let mut out = Vec::new();
                for entry in node
                    .entries(store)
                    .iter()
                    .filter_map(|e| e.as_enum_entry(store))
                {
                    let available = entry.is_implemented(dev, store, cx).map_err(err)?
                        && entry.is_available(dev, store, cx).map_err(err)?;
                    out.push(EntryInfo {
                        name: entry.symbolic().to_string(),
                        value: entry.value(),
                        available,
                    });
                }
                Ok(out)
            },
        )
    }
}

/// Deepest category nesting followed; the XML check already bounds element
/// depth, this keeps the recursion bounded whatever the references say.
const MAX_CATEGORY_DEPTH: usize = 32;

fn category_tree(
    store: &impl NodeStore,
    id: NodeId,
    seen: &mut HashSet<NodeId>,
    depth: usize,
) -> Category {
    let name = store.name_by_id(id).unwrap_or_default().to_string();
    let mut children = Vec::new();
    if let Some(NodeData::Category(category)) = store.node_opt(id) {
        for &child in category.nodes(store) {
            if !seen.insert(child) {
                continue;
            }
            match store.node_opt(child) {
                Some(NodeData::Category(_)) if depth < MAX_CATEGORY_DEPTH => children.push(
                    TreeItem::Category(category_tree(store, child, seen, depth + 1)),
                ),
                Some(data)
                    if !matches!(kind_of(data), FeatureKind::Other | FeatureKind::Category) =>
                {
                    if let Some(name) = store.name_by_id(child) {
                        children.push(TreeItem::Feature(name.to_string()));
                    }
                }
                _ => {}
            }
        }
    }
    Category { name, children }
}
