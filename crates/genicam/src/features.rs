//! The feature tree of one device: cameleon-genapi's node store, driven by
//! name, with bounds checked here before anything is written.

use core::cell::Cell;
use core::fmt;
use std::collections::HashSet;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use cameleon_genapi::builder::GenApiBuilder;
use cameleon_genapi::prelude::*;
use cameleon_genapi::store::{
    DefaultCacheStore, DefaultNodeStore, DefaultValueStore, NodeData, NodeStore,
};
use cameleon_genapi::{GenApiError, NodeId, ValueCtxt};

use crate::check::check;
use crate::error::{Error, PortError};
use crate::fetch::panic_message;
use crate::port::{PortDevice, RegisterPort};

pub(crate) type Cx = ValueCtxt<DefaultValueStore, DefaultCacheStore>;

/// A feature's current value, typed by its GenApi interface so a host can
/// use it without re-parsing text.
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureValue {
    /// IInteger (Integer, IntReg, MaskedIntReg, IntSwissKnife, IntConverter).
    Integer(i64),
    /// IFloat (Float, FloatReg, SwissKnife, Converter).
    Float(f64),
    /// IEnumeration: the current entry's symbolic name, e.g. `Mono8`.
    Enum(String),
    /// IBoolean.
    Bool(bool),
    /// IString (String, StringReg).
    String(String),
    /// ICommand: commands have no value; execute them with
    /// [`Features::execute`].
    Command,
}

impl fmt::Display for FeatureValue {
    /// The value as text that [`Features::set`] accepts back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FeatureValue::Integer(v) => write!(f, "{v}"),
            FeatureValue::Float(v) => write!(f, "{v}"),
            FeatureValue::Enum(v) | FeatureValue::String(v) => f.write_str(v),
            FeatureValue::Bool(v) => write!(f, "{v}"),
            FeatureValue::Command => f.write_str("(command)"),
        }
    }
}

/// What kind of node a name refers to, so a host (or a `--help` listing)
/// can say what a feature takes without touching the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FeatureKind {
    /// An IInteger node.
    Integer,
    /// An IFloat node.
    Float,
    /// An IEnumeration node.
    Enumeration,
    /// An IBoolean node.
    Boolean,
    /// An IString node.
    String,
    /// An ICommand node.
    Command,
    /// A category (a group of features, no value).
    Category,
    /// Anything else (ports, raw registers, enum entries): no value through this API.
    Other,
}

impl FeatureKind {
    pub(crate) fn with_article(self) -> &'static str {
        match self {
            FeatureKind::Integer => "an Integer",
            FeatureKind::Float => "a Float",
            FeatureKind::Enumeration => "an Enumeration",
            FeatureKind::Boolean => "a Boolean",
            FeatureKind::String => "a String",
            FeatureKind::Command => "a Command",
            FeatureKind::Category => "a Category",
            FeatureKind::Other => "a node without a value",
        }
    }
}

pub(crate) fn kind_of(data: &NodeData) -> FeatureKind {
    match data {
        NodeData::Integer(_)
        | NodeData::IntReg(_)
        | NodeData::MaskedIntReg(_)
        | NodeData::IntConverter(_)
        | NodeData::IntSwissKnife(_) => FeatureKind::Integer,
        NodeData::Float(_)
        | NodeData::FloatReg(_)
        | NodeData::Converter(_)
        | NodeData::SwissKnife(_) => FeatureKind::Float,
        NodeData::Enumeration(_) => FeatureKind::Enumeration,
        NodeData::Boolean(_) => FeatureKind::Boolean,
        NodeData::String(_) | NodeData::StringReg(_) => FeatureKind::String,
        NodeData::Command(_) => FeatureKind::Command,
        NodeData::Category(_) => FeatureKind::Category,
        _ => FeatureKind::Other,
    }
}

/// A device's features, built from its GenICam XML with cameleon-genapi,
/// read and written by name through any [`RegisterPort`].
///
/// `Features` holds no transport: every call that touches the device takes
/// the port, so one tree can serve a reconnecting control channel and tests
/// can use in-memory devices.
///
/// Caching: cameleon-genapi caches register values (write-through, except
/// `NoCache` registers). This crate clears that cache at the start and end
/// of every call that takes a port, so each call sees the device as it is
/// then, whatever a command, another host or the camera itself changed in
/// between, while the reads inside one call (a value, its bounds, the
/// registers they share) still hit the device once.
///
/// `Features` is `Send`, so the tree can live on the thread that owns the
/// control connection.
pub struct Features {
    pub(crate) store: DefaultNodeStore,
    pub(crate) cx: Cx,
    names: Vec<String>,
}

impl fmt::Debug for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Features")
            .field("features", &self.names.len())
            .finish_non_exhaustive()
    }
}

/// Runs a cameleon-genapi call, turning a panic in it into
/// [`Error::GenApiPanic`]; a panic in the caller's [`RegisterPort`] is
/// re-raised, since that is the caller's bug, not the XML's.
fn guarded<R>(
    operation: impl FnOnce() -> String,
    in_port: &Cell<bool>,
    f: impl FnOnce() -> Result<R, Error>,
) -> Result<R, Error> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(panic) if in_port.get() => resume_unwind(panic),
        Err(panic) => Err(Error::GenApiPanic {
            operation: operation(),
            message: panic_message(&*panic),
        }),
    }
}

/// Maps cameleon-genapi's error for feature `name`, unwrapping a transport
/// failure back into [`Error::Port`].
pub(crate) fn genapi_error(name: &str, e: GenApiError) -> Error {
    match e {
        GenApiError::Device(inner) => match inner.downcast::<PortError>() {
            Ok(port) => Error::Port(*port),
            Err(other) => Error::GenApi {
                name: name.to_string(),
                message: other.to_string(),
            },
        },
        GenApiError::NotWritable => Error::NotWritable {
            name: name.to_string(),
        },
        other => Error::GenApi {
            name: name.to_string(),
            message: other.to_string(),
        },
    }
}

fn invalid_value(name: &str, value: &str, expected: &'static str) -> Error {
    Error::InvalidValue {
        name: name.to_string(),
        value: value.to_string(),
        expected,
    }
}

/// Integers as a user types them: decimal or `0x` hexadecimal, signed.
fn parse_integer(text: &str) -> Option<i64> {
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let magnitude: i128 = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            i128::from_str_radix(hex, 16).ok()?
        }
        Some(_) => return None,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse().ok()?
        }
        None => return None,
    };
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "on" | "yes" => Some(true),
        "false" | "0" | "off" | "no" => Some(false),
        _ => None,
    }
}

/// Checks `value` against an integer feature's bounds; the error names the
/// allowed range or the nearest allowed values.
fn check_integer(name: &str, value: i64, min: i64, max: i64, inc: i64) -> Result<(), Error> {
    if value < min || value > max {
        return Err(Error::OutOfRange {
            name: name.to_string(),
            value,
            min,
            max,
        });
    }
    if inc > 1 {
        let offset = i128::from(value) - i128::from(min);
        let rem = offset.rem_euclid(i128::from(inc));
        if rem != 0 {
            let below = i128::from(value) - rem;
            let above = below + i128::from(inc);
            return Err(Error::NotOnIncrement {
                name: name.to_string(),
                value,
                min,
                inc,
                below: i64::try_from(below).unwrap_or(min),
                above: i64::try_from(above).unwrap_or(i64::MAX),
            });
        }
    }
    Ok(())
}

impl Features {
    /// Builds the feature tree from the XML text (as [`fetch_xml`] returns it).
    ///
    /// The XML is first checked for shapes that would make cameleon-genapi
    /// recurse without bound (see [`Error::XmlTooComplex`]); a panic while
    /// building becomes [`Error::GenApiPanic`].
    ///
    /// [`fetch_xml`]: crate::fetch_xml
    pub fn from_xml(xml: &str) -> Result<Features, Error> {
        check(xml)?;
        let never = Cell::new(false);
        let (store, cx) = guarded(
            || "building the feature tree".to_string(),
            &never,
            || {
                let (_description, store, cx) = GenApiBuilder::<
                    DefaultNodeStore,
                    DefaultValueStore,
                    DefaultCacheStore,
                >::default()
                .build(&xml)
                .map_err(|e| Error::XmlSyntax {
                    reason: e.to_string(),
                })?;
                Ok((store, cx))
            },
        )?;
        let names = guarded(
            || "listing the features".to_string(),
            &never,
            || Ok(feature_names(&store)),
        )?;
        Ok(Features { store, cx, names })
    }

    /// Every feature name, in category order from `Root` (categories left
    /// out, each name once), or every node with a value when the XML has
    /// no `Root` category; for listings and `--help`. Any node name, also
    /// one not listed here (e.g. a register node), works with [`Features::get`].
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// Whether a node of that name exists.
    pub fn contains(&self, name: &str) -> bool {
        self.id(name).is_ok()
    }

    /// What kind of node `name` is, without touching the device.
    pub fn kind(&self, name: &str) -> Result<FeatureKind, Error> {
        let id = self.id(name)?;
        Ok(self.store.node_opt(id).map_or(FeatureKind::Other, kind_of))
    }

    /// The symbolic names of an enumeration's entries, in XML order, without
    /// touching the device (availability is checked by [`Features::set`]).
    pub fn entries(&self, name: &str) -> Result<Vec<String>, Error> {
        let id = self.id(name)?;
        let never = Cell::new(false);
        let store = &self.store;
        guarded(
            || format!("listing the entries of {name}"),
            &never,
            || {
                let node = id
                    .as_ienumeration_kind(store)
                    .ok_or_else(|| wrong_kind(store, name, id, "an Enumeration"))?;
                Ok(node
                    .entries(store)
                    .iter()
                    .filter_map(|e| e.as_enum_entry(store))
                    .map(|e| e.symbolic().to_string())
                    .collect())
            },
        )
    }

    /// Reads a feature's current value.
    pub fn get(&mut self, port: &mut dyn RegisterPort, name: &str) -> Result<FeatureValue, Error> {
        let id = self.id(name)?;
        let kind = self.kind(name)?;
        let err = |e| genapi_error(name, e);
        let not_readable = || Error::NotReadable {
            name: name.to_string(),
        };
        self.with_device(
            port,
            || format!("get {name}"),
            |dev, store, cx| match kind {
                FeatureKind::Command => Ok(FeatureValue::Command),
                FeatureKind::Enumeration => {
                    let node = id.expect_ienumeration_kind(store).map_err(err)?;
                    if !node.is_readable(dev, store, cx).map_err(err)? {
                        return Err(not_readable());
                    }
                    let entry = node.current_entry(dev, store, cx).map_err(err)?;
                    let entry = entry.expect_enum_entry(store).map_err(err)?;
                    Ok(FeatureValue::Enum(entry.symbolic().to_string()))
                }
                FeatureKind::Boolean => {
                    let node = id.expect_iboolean_kind(store).map_err(err)?;
                    if !node.is_readable(dev, store, cx).map_err(err)? {
                        return Err(not_readable());
                    }
                    Ok(FeatureValue::Bool(node.value(dev, store, cx).map_err(err)?))
                }
                FeatureKind::Integer => {
                    let node = id.expect_iinteger_kind(store).map_err(err)?;
                    if !node.is_readable(dev, store, cx).map_err(err)? {
                        return Err(not_readable());
                    }
                    Ok(FeatureValue::Integer(
                        node.value(dev, store, cx).map_err(err)?,
                    ))
                }
                FeatureKind::Float => {
                    let node = id.expect_ifloat_kind(store).map_err(err)?;
                    if !node.is_readable(dev, store, cx).map_err(err)? {
                        return Err(not_readable());
                    }
                    Ok(FeatureValue::Float(
                        node.value(dev, store, cx).map_err(err)?,
                    ))
                }
                FeatureKind::String => {
                    let node = id.expect_istring_kind(store).map_err(err)?;
                    if !node.is_readable(dev, store, cx).map_err(err)? {
                        return Err(not_readable());
                    }
                    Ok(FeatureValue::String(
                        node.value(dev, store, cx).map_err(err)?,
                    ))
                }
                FeatureKind::Category | FeatureKind::Other => Err(Error::WrongKind {
                    name: name.to_string(),
                    expected: "a feature with a value",
                    actual: kind.with_article(),
                }),
            },
        )
    }

    /// Sets a feature from text, parsed by its type: `"1024"` or `"0x400"`
    /// for an Integer, `"123.5"` for a Float, an entry name such as
    /// `"Mono8"` for an Enumeration, `"true"`/`"false"` (or 1/0, on/off)
    /// for a Boolean, ASCII text for a String; for a Command, `""`, `"1"`,
    /// `"true"` or `"execute"` executes it.
    ///
    /// Everything is checked before anything is written: the text parses,
    /// the feature is writable now, an Integer lies in `[min, max]` and on
    /// `min + k × inc`, a Float in `[min, max]`, an Enumeration entry
    /// exists and is available, a String fits. So a refused value leaves
    /// the device untouched, and the error names the feature, the value and
    /// what is allowed.
    pub fn set(
        &mut self,
        port: &mut dyn RegisterPort,
        name: &str,
        value: &str,
    ) -> Result<(), Error> {
        let id = self.id(name)?;
        let kind = self.kind(name)?;
        if kind == FeatureKind::Command {
            return match value.trim().to_ascii_lowercase().as_str() {
                "" | "1" | "true" | "execute" => self.execute(port, name),
                _ => Err(invalid_value(
                    name,
                    value,
                    "a command argument (empty, 1, true or execute)",
                )),
            };
        }
        let err = |e| genapi_error(name, e);
        let not_writable = || Error::NotWritable {
            name: name.to_string(),
        };
        self.with_device(
            port,
            || format!("set {name} = {value}"),
            |dev, store, cx| match kind {
                FeatureKind::Integer => {
                    let v = parse_integer(value)
                        .ok_or_else(|| invalid_value(name, value, "an integer"))?;
                    let node = id.expect_iinteger_kind(store).map_err(err)?;
                    if !node.is_writable(dev, store, cx).map_err(err)? {
                        return Err(not_writable());
                    }
                    let min = node.min(dev, store, cx).map_err(err)?;
                    let max = node.max(dev, store, cx).map_err(err)?;
                    let inc = node.inc(dev, store, cx).map_err(err)?.unwrap_or(1);
                    check_integer(name, v, min, max, inc)?;
                    node.set_value(v, dev, store, cx).map_err(err)
                }
                FeatureKind::Float => {
                    let v: f64 = value
                        .trim()
                        .parse()
                        .ok()
                        .filter(|v: &f64| v.is_finite())
                        .ok_or_else(|| invalid_value(name, value, "a finite number"))?;
                    let node = id.expect_ifloat_kind(store).map_err(err)?;
                    if !node.is_writable(dev, store, cx).map_err(err)? {
                        return Err(not_writable());
                    }
                    let min = node.min(dev, store, cx).map_err(err)?;
                    let max = node.max(dev, store, cx).map_err(err)?;
                    if v < min || v > max {
                        return Err(Error::FloatOutOfRange {
                            name: name.to_string(),
                            value: v,
                            min,
                            max,
                        });
                    }
                    node.set_value(v, dev, store, cx).map_err(err)
                }
                FeatureKind::Enumeration => {
                    let node = id.expect_ienumeration_kind(store).map_err(err)?;
                    let entries: Vec<_> = node
                        .entries(store)
                        .iter()
                        .filter_map(|e| e.as_enum_entry(store))
                        .collect();
                    let wanted = value.trim();
                    let Some(entry) = entries.iter().find(|e| e.symbolic() == wanted) else {
                        return Err(Error::UnknownEntry {
                            name: name.to_string(),
                            value: value.to_string(),
                            entries: entries.iter().map(|e| e.symbolic().to_string()).collect(),
                        });
                    };
                    if !node.is_writable(dev, store, cx).map_err(err)? {
                        return Err(not_writable());
                    }
                    let usable = entry.is_implemented(dev, store, cx).map_err(err)?
                        && entry.is_available(dev, store, cx).map_err(err)?;
                    if !usable {
                        return Err(Error::EntryNotAvailable {
                            name: name.to_string(),
                            value: wanted.to_string(),
                        });
                    }
                    node.set_entry_by_value(entry.value(), dev, store, cx)
                        .map_err(err)
                }
                FeatureKind::Boolean => {
                    let v = parse_bool(value)
                        .ok_or_else(|| invalid_value(name, value, "true or false"))?;
                    let node = id.expect_iboolean_kind(store).map_err(err)?;
                    if !node.is_writable(dev, store, cx).map_err(err)? {
                        return Err(not_writable());
                    }
                    node.set_value(v, dev, store, cx).map_err(err)
                }
                FeatureKind::String => {
                    if !value.is_ascii() {
                        return Err(invalid_value(name, value, "ASCII text"));
                    }
                    let node = id.expect_istring_kind(store).map_err(err)?;
                    if !node.is_writable(dev, store, cx).map_err(err)? {
                        return Err(not_writable());
                    }
                    let max = node.max_length(dev, store, cx).map_err(err)?;
                    if i64::try_from(value.len()).map_or(true, |len| len > max) {
                        return Err(Error::StringTooLong {
                            name: name.to_string(),
                            value: value.to_string(),
                            length: value.len(),
                            max,
                        });
                    }
                    node.set_value(value.to_string(), dev, store, cx)
                        .map_err(err)
                }
                FeatureKind::Command | FeatureKind::Category | FeatureKind::Other => {
                    Err(Error::WrongKind {
                        name: name.to_string(),
                        expected: "a feature with a value",
                        actual: kind.with_article(),
                    })
                }
            },
        )
    }

    /// Executes a command (e.g. `AcquisitionStart`): writes its command
    /// value to its register, if the command is writable now.
    pub fn execute(&mut self, port: &mut dyn RegisterPort, name: &str) -> Result<(), Error> {
        let id = self.id(name)?;
        let err = |e| genapi_error(name, e);
        self.with_device(
            port,
            || format!("execute {name}"),
            |dev, store, cx| {
                let node = id
                    .as_icommand_kind(store)
                    .ok_or_else(|| wrong_kind(store, name, id, "a Command"))?;
                if !node.is_writable(dev, store, cx).map_err(err)? {
                    return Err(Error::NotWritable {
                        name: name.to_string(),
                    });
                }
                node.execute(dev, store, cx).map_err(err)
            },
        )
    }

    /// An Integer's current bounds `(min, max, inc)` (inc is 1 when the XML
    /// gives none), so a host can adapt a request before setting it, e.g.
    /// round a packet size down to the increment.
    pub fn int_bounds(
        &mut self,
        port: &mut dyn RegisterPort,
        name: &str,
    ) -> Result<(i64, i64, i64), Error> {
        let id = self.id(name)?;
        let err = |e| genapi_error(name, e);
        self.with_device(
            port,
            || format!("bounds of {name}"),
            |dev, store, cx| {
                let node = id
                    .as_iinteger_kind(store)
                    .ok_or_else(|| wrong_kind(store, name, id, "an Integer"))?;
                let min = node.min(dev, store, cx).map_err(err)?;
                let max = node.max(dev, store, cx).map_err(err)?;
                let inc = node.inc(dev, store, cx).map_err(err)?.unwrap_or(1);
                Ok((min, max, inc))
            },
        )
    }

    /// A Float's current bounds `(min, max)`.
    pub fn float_bounds(
        &mut self,
        port: &mut dyn RegisterPort,
        name: &str,
    ) -> Result<(f64, f64), Error> {
        let id = self.id(name)?;
        let err = |e| genapi_error(name, e);
        self.with_device(
            port,
            || format!("bounds of {name}"),
            |dev, store, cx| {
                let node = id
                    .as_ifloat_kind(store)
                    .ok_or_else(|| wrong_kind(store, name, id, "a Float"))?;
                let min = node.min(dev, store, cx).map_err(err)?;
                let max = node.max(dev, store, cx).map_err(err)?;
                Ok((min, max))
            },
        )
    }

    /// Runs `f` with a device over `port`: the value cache cleared before
    /// and after (so each call sees the device as it is now) and a panic in
    /// cameleon-genapi turned into [`Error::GenApiPanic`] naming `operation`.
    /// The frame every call that touches the device shares.
    pub(crate) fn with_device<R>(
        &mut self,
        port: &mut dyn RegisterPort,
        operation: impl FnOnce() -> String,
        f: impl FnOnce(&mut PortDevice<'_>, &DefaultNodeStore, &mut Cx) -> Result<R, Error>,
    ) -> Result<R, Error> {
        self.cx.clear_cache();
        let in_port = Cell::new(false);
        let mut dev = PortDevice::new(port, &in_port);
        let (store, cx) = (&self.store, &mut self.cx);
        let result = guarded(operation, &in_port, || f(&mut dev, store, cx));
        self.cx.clear_cache();
        result
    }

    /// The node named `name`, if it is defined (a name that is only
    /// referenced is interned by cameleon-genapi but has no node).
    pub(crate) fn id(&self, name: &str) -> Result<NodeId, Error> {
        self.store
            .id_by_name(name)
            .filter(|&id| self.store.node_opt(id).is_some())
            .ok_or_else(|| Error::UnknownFeature {
                name: name.to_string(),
            })
    }
}

/// The error for using `name` as something it is not.
fn wrong_kind(store: &DefaultNodeStore, name: &str, id: NodeId, expected: &'static str) -> Error {
    let actual = store
        .node_opt(id)
        .map_or(FeatureKind::Other, kind_of)
        .with_article();
    Error::WrongKind {
        name: name.to_string(),
        expected,
        actual,
    }
}

/// Features reachable from the `Root` category, depth first in XML order;
/// every node with a value if there is no `Root`.
fn feature_names(store: &DefaultNodeStore) -> Vec<String> {
    let name_of = |id: NodeId| store.name_by_id(id).map(str::to_string);
    let mut names = Vec::new();
    let mut seen = HashSet::new();
    let root = store
        .id_by_name("Root")
        .filter(|&id| matches!(store.node_opt(id), Some(NodeData::Category(_))));
    if let Some(root) = root {
        let mut stack = vec![root];
        seen.insert(root);
        while let Some(id) = stack.pop() {
            match store.node_opt(id) {
                Some(NodeData::Category(category)) => {
                    // Reversed so the stack pops them in XML order.
                    for &child in category.nodes(store).iter().rev() {
                        if seen.insert(child) {
                            stack.push(child);
                        }
                    }
                }
                Some(data) if kind_of(data) != FeatureKind::Other => {
                    names.extend(name_of(id));
                }
                _ => {}
            }
        }
    } else {
        store.visit_nodes(|data| {
            if !matches!(kind_of(data), FeatureKind::Other | FeatureKind::Category) {
                let id = data.node_base().id();
                if seen.insert(id) {
                    names.extend(name_of(id));
                }
            }
        });
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_parse_as_typed() {
        assert_eq!(parse_integer("1024"), Some(1024));
        assert_eq!(parse_integer(" -16 "), Some(-16));
        assert_eq!(parse_integer("+7"), Some(7));
        assert_eq!(parse_integer("0x400"), Some(1024));
        assert_eq!(parse_integer("-0X10"), Some(-16));
        assert_eq!(parse_integer("9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_integer("-9223372036854775808"), Some(i64::MIN));
        for bad in [
            "",
            "-",
            "0x",
            "12a",
            "1.5",
            "9223372036854775808",
            "--1",
            "0x-1",
        ] {
            assert_eq!(parse_integer(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn integer_bounds() {
        assert!(check_integer("W", 1024, 16, 4096, 4).is_ok());
        assert!(check_integer("W", 16, 16, 4096, 4).is_ok());
        assert!(check_integer("W", 5, i64::MIN, i64::MAX, 0).is_ok());
        match check_integer("W", 1026, 16, 4096, 4) {
            Err(Error::NotOnIncrement { below, above, .. }) => {
                assert_eq!((below, above), (1024, 1028))
            }
            other => panic!("{other:?}"),
        }
        // Increments count from min, not from zero.
        assert!(check_integer("X", 7, 3, 100, 4).is_ok());
        assert!(check_integer("X", -1, -5, 100, 4).is_ok());
        assert!(matches!(
            check_integer("W", 4100, 16, 4096, 4),
            Err(Error::OutOfRange {
                min: 16,
                max: 4096,
                ..
            })
        ));
        assert!(matches!(
            check_integer("W", i64::MAX, i64::MIN, i64::MAX - 1, 3),
            Err(Error::OutOfRange { .. })
        ));
    }

    #[test]
    fn features_can_move_between_threads() {
        fn send<T: Send>() {}
        send::<Features>();
        send::<Error>();
    }

    #[test]
    fn booleans_parse() {
        assert_eq!(parse_bool("TRUE"), Some(true));
        assert_eq!(parse_bool("0"), Some(false));
        assert_eq!(parse_bool("maybe"), None);
    }
}
