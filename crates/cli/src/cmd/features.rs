//! `linerate features`, `get`, `set` and `xml`: any GenICam feature of a
//! GigE Vision device by name, as `arv-tool control` and the GenICam
//! reference tools offer.
//!
//! Everything device-side lives in `linerate_grab::FeatureSession` (on
//! `linerate-genicam`); this module parses arguments and presents the
//! results, as text or as one JSON object.

use std::io::Write as _;
use std::net::Ipv4Addr;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use linerate_grab::genicam::{Bounds, Category, FeatureInfo, FeatureKind, FeatureValue, TreeItem};
use linerate_grab::{ControlConfig, FeatureSession, Setting};
use serde_json::{json, Value};

/// Which device, and how to reach it: shared by the four commands.
#[derive(Debug, Args, Clone)]
pub struct Target {
    /// Device: IPv4 address, IP:PORT (a device on another GVCP port than
    /// 3956), or serial number / user name (found by discovery).
    #[arg(value_name = "DEVICE")]
    camera: String,
    /// Local interface facing the device, by name (eth0) or by one of its
    /// IPv4 addresses (default: from the routing table).
    #[arg(long, value_name = "NAME|IPV4")]
    interface: Option<String>,
    /// Print one JSON object instead of text (on failure: `{"ok": false, "error": ...}`).
    #[arg(long)]
    json: bool,
}

/// Arguments of `linerate features`.
#[derive(Debug, Args)]
pub struct FeaturesArgs {
    #[command(flatten)]
    target: Target,
    /// Describe only these features, in full (display name, description,
    /// visibility, every entry with its value), instead of the whole tree.
    #[arg(value_name = "NAME")]
    names: Vec<String>,
}

/// Arguments of `linerate get`.
#[derive(Debug, Args)]
pub struct GetArgs {
    #[command(flatten)]
    target: Target,
    /// Feature names, e.g. Width PixelFormat.
    #[arg(required = true, value_name = "NAME")]
    names: Vec<String>,
}

/// Arguments of `linerate set`.
#[derive(Debug, Args)]
pub struct SetArgs {
    #[command(flatten)]
    target: Target,
    /// NAME=VALUE to set a feature (an integer in decimal or 0x hex, a
    /// float, an enumeration entry by name, true/false, text), or NAME
    /// alone (or NAME=) to execute a command such as AcquisitionStart.
    /// Applied in order under control of the device, taken for this call
    /// and given back; each is checked before it is written, and the first
    /// that fails stops the rest (the error says which were applied).
    #[arg(required = true, value_name = "NAME=VALUE|COMMAND")]
    settings: Vec<String>,
}

/// Arguments of `linerate xml`.
#[derive(Debug, Args)]
pub struct XmlArgs {
    #[command(flatten)]
    target: Target,
    /// Write the XML to this file instead of stdout (refused if it exists).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

impl Target {
    fn open(&self) -> Result<FeatureSession> {
        let local = self.interface.as_deref().map(local_address).transpose()?;
        let config = ControlConfig {
            local,
            ..ControlConfig::default()
        };
        FeatureSession::open(&self.camera, &config)
            .with_context(|| format!("opening device {}", self.camera))
    }
}

/// `--interface`: an interface name or one of its IPv4 addresses.
fn local_address(text: &str) -> Result<Ipv4Addr> {
    if let Ok(ip) = text.parse::<Ipv4Addr>() {
        return Ok(ip);
    }
    let iface = linerate_io::interfaces::find_ipv4_interface(text)
        .with_context(|| format!("--interface {text:?}"))?;
    Ok(iface.address)
}

/// Runs `body`; with `--json` a failure becomes `{"ok": false, "error"}`
/// on stdout (and exit status 1), so a script always gets one object.
fn with_json_errors(json: bool, body: impl FnOnce() -> Result<()>) -> Result<()> {
    match body() {
        Err(e) if json => {
            crate::json_println!(
                "{}",
                json!({ "ok": false, "error": crate::error_chain(&e) })
            );
            Err(e)
        }
        other => other,
    }
}

fn device_json(s: &FeatureSession) -> Value {
    let info = s.info();
    json!({
        "address": s.address().to_string(),
        "vendor": info.vendor,
        "model": info.model,
        "serial": info.serial,
        "version": info.version,
    })
}

fn value_json(value: &FeatureValue) -> Value {
    match value {
        FeatureValue::Integer(v) => json!(v),
        FeatureValue::Float(v) => json!(v),
        FeatureValue::Enum(v) | FeatureValue::String(v) => json!(v),
        FeatureValue::Bool(v) => json!(v),
        FeatureValue::Command => Value::Null,
    }
}

fn feature_json(f: &FeatureInfo, category: Option<&str>) -> Value {
    let mut v = json!({
        "name": f.name,
        "type": f.kind.name(),
        "access": f.access.abbreviation(),
        "value": f.value.as_ref().map_or(Value::Null, value_json),
        "unit": f.unit,
        "category": category,
        "visibility": f.visibility.name(),
        "display_name": f.display_name,
        "description": f.description,
        "error": f.error,
    });
    match &f.bounds {
        Some(Bounds::Integer { min, max, inc }) => {
            v["min"] = json!(min);
            v["max"] = json!(max);
            v["inc"] = json!(inc);
        }
        Some(Bounds::Float { min, max }) => {
            v["min"] = json!(min);
            v["max"] = json!(max);
        }
        Some(Bounds::String { max_length }) => v["max_length"] = json!(max_length),
        None => {}
    }
    if f.kind == FeatureKind::Enumeration {
        v["entries"] = f
            .entries
            .iter()
            .map(|e| json!({ "name": e.name, "value": e.value, "available": e.available }))
            .collect();
    }
    v
}

/// The feature's value and limits on one line, for the tree.
fn summary(f: &FeatureInfo) -> String {
    let mut out = match (&f.value, f.kind) {
        (_, FeatureKind::Command) => String::new(),
        (Some(FeatureValue::String(s)), _) => format!("{s:?}"),
        (Some(v), _) => v.to_string(),
        (None, _) if f.access.readable() => "(unreadable)".into(),
        (None, _) => "-".into(),
    };
    if let (Some(unit), false) = (&f.unit, out.is_empty()) {
        out.push(' ');
        out.push_str(unit);
    }
    match &f.bounds {
        Some(Bounds::Integer { min, max, inc: 1 }) => out.push_str(&format!("  [{min}..={max}]")),
        Some(Bounds::Integer { min, max, inc }) => {
            out.push_str(&format!("  [{min}..={max}, step {inc}]"))
        }
        Some(Bounds::Float { min, max }) => out.push_str(&format!("  [{min}..={max}]")),
        Some(Bounds::String { max_length }) => {
            out.push_str(&format!("  (at most {max_length} bytes)"))
        }
        None => {}
    }
    if !f.entries.is_empty() {
        let names: Vec<String> = f
            .entries
            .iter()
            .map(|e| {
                if e.available {
                    e.name.clone()
                } else {
                    format!("({})", e.name)
                }
            })
            .collect();
        out.push_str(&format!("  {{{}}}", names.join(", ")));
    }
    if let Some(e) = &f.error {
        out.push_str(&format!("  error: {e}"));
    }
    out
}

/// Runs `linerate features`.
pub fn features(args: FeaturesArgs) -> Result<()> {
    let json = args.target.json;
    with_json_errors(json, || {
        let mut session = args.target.open()?;
        let list = if args.names.is_empty() {
            session.list().context("reading the features")?
        } else {
            args.names
                .iter()
                .map(|name| session.describe(name))
                .collect::<Result<Vec<_>, _>>()?
        };
        let tree = session.tree();
        let mut category_of = std::collections::HashMap::new();
        if let Some(root) = &tree {
            index_categories(root, &mut category_of);
        }
        if json {
            let features: Vec<Value> = list
                .iter()
                .map(|f| feature_json(f, category_of.get(f.name.as_str()).map(String::as_str)))
                .collect();
            crate::json_println!(
                "{}",
                json!({
                    "ok": true,
                    "device": device_json(&session),
                    "xml_url": session.xml().url,
                    "features": features,
                })
            );
            return Ok(());
        }
        let info = session.info();
        println!(
            "{} {} (serial {}) at {}; XML from {}",
            info.vendor,
            info.model,
            info.serial,
            session.address(),
            session.xml().url
        );
        if !args.names.is_empty() {
            for f in &list {
                let category = category_of.get(f.name.as_str()).map(String::as_str);
                print_details(f, category);
            }
            return Ok(());
        }
        let by_name: std::collections::HashMap<&str, &FeatureInfo> =
            list.iter().map(|f| (f.name.as_str(), f)).collect();
        let width = list.iter().map(|f| f.name.len()).max().unwrap_or(0);
        let mut out = std::io::stdout().lock();
        match &tree {
            Some(root) => print_category(&mut out, root, 0, &by_name, width)?,
            None => {
                for f in &list {
                    print_feature(&mut out, f, 0, width)?;
                }
            }
        }
        Ok(())
    })
}

/// One feature in full, as `arv-tool description` shows it.
fn print_details(f: &FeatureInfo, category: Option<&str>) {
    println!("{}", f.name);
    let line = |key: &str, value: String| println!("  {key:<12} {value}");
    line("type", f.kind.name().to_string());
    line("access", f.access.abbreviation().to_string());
    if let Some(value) = &f.value {
        let unit = f.unit.as_deref().map_or(String::new(), |u| format!(" {u}"));
        line("value", format!("{value}{unit}"));
    }
    match &f.bounds {
        Some(Bounds::Integer { min, max, inc }) => {
            line("range", format!("{min}..={max}, step {inc}"))
        }
        Some(Bounds::Float { min, max }) => line("range", format!("{min}..={max}")),
        Some(Bounds::String { max_length }) => {
            line("length", format!("at most {max_length} bytes"))
        }
        None => {}
    }
    for e in &f.entries {
        let note = if e.available {
            ""
        } else {
            " (not available now)"
        };
        let value = if e.value > 0xff {
            format!("{} ({:#x})", e.value, e.value)
        } else {
            e.value.to_string()
        };
        line("entry", format!("{} = {value}{note}", e.name));
    }
    if let Some(category) = category {
        line("category", category.to_string());
    }
    if let Some(d) = &f.display_name {
        line("display name", d.clone());
    }
    line("visibility", f.visibility.name().to_string());
    if let Some(d) = &f.description {
        line("description", d.clone());
    }
    if let Some(e) = &f.error {
        line("error", e.clone());
    }
}

fn index_categories<'a>(
    category: &'a Category,
    out: &mut std::collections::HashMap<&'a str, String>,
) {
    for child in &category.children {
        match child {
            TreeItem::Category(sub) => index_categories(sub, out),
            TreeItem::Feature(name) => {
                out.insert(name.as_str(), category.name.clone());
            }
        }
    }
}

fn print_category(
    out: &mut impl std::io::Write,
    category: &Category,
    depth: usize,
    features: &std::collections::HashMap<&str, &FeatureInfo>,
    width: usize,
) -> Result<()> {
    writeln!(out, "{:indent$}{}", "", category.name, indent = depth * 2)?;
    for child in &category.children {
        match child {
            TreeItem::Category(sub) => print_category(out, sub, depth + 1, features, width)?,
            TreeItem::Feature(name) => {
                if let Some(f) = features.get(name.as_str()) {
                    print_feature(out, f, depth + 1, width)?;
                }
            }
        }
    }
    Ok(())
}

fn print_feature(
    out: &mut impl std::io::Write,
    f: &FeatureInfo,
    depth: usize,
    width: usize,
) -> Result<()> {
    let line = format!(
        "{:indent$}{:<width$}  {:<11} {}  {}",
        "",
        f.name,
        f.kind.name(),
        f.access.abbreviation(),
        summary(f),
        indent = depth * 2
    );
    writeln!(out, "{}", line.trim_end())?;
    Ok(())
}

/// Runs `linerate get`.
pub fn get(args: GetArgs) -> Result<()> {
    let json = args.target.json;
    with_json_errors(json, || {
        let mut session = args.target.open()?;
        let mut values = Vec::new();
        for name in &args.names {
            let value = session
                .get(name)
                .with_context(|| format!("reading {name}"))?;
            if value == FeatureValue::Command {
                bail!("{name} is a Command and has no value: execute it with `linerate set DEVICE {name}`");
            }
            values.push((name, value));
        }
        if json {
            let features: Vec<Value> = values
                .iter()
                .map(|(name, value)| json!({ "name": name, "value": value_json(value) }))
                .collect();
            crate::json_println!(
                "{}",
                json!({ "ok": true, "device": device_json(&session), "features": features })
            );
        } else {
            for (name, value) in &values {
                println!("{name} = {value}");
            }
        }
        Ok(())
    })
}

/// Runs `linerate set`.
pub fn set(args: SetArgs) -> Result<()> {
    let json = args.target.json;
    with_json_errors(json, || {
        let settings = args
            .settings
            .iter()
            .map(|s| Setting::parse(s))
            .collect::<Result<Vec<_>, _>>()?;
        let mut session = args.target.open()?;
        // `NAME=` on a command executes it, as NAME alone does.
        let settings: Vec<Setting> = settings
            .into_iter()
            .map(|mut s| {
                if s.value.as_deref() == Some("")
                    && session.kind(&s.name).ok() == Some(FeatureKind::Command)
                {
                    s.value = None;
                }
                s
            })
            .collect();
        session.apply(&settings)?;
        // Read back what the device holds now (it may round or clamp).
        let mut applied = Vec::new();
        for s in &settings {
            let command = session.kind(&s.name).ok() == Some(FeatureKind::Command);
            let now = match s.value {
                _ if command => None,
                None => None,
                Some(_) => Some(
                    session
                        .get(&s.name)
                        .with_context(|| format!("reading {} back", s.name))?,
                ),
            };
            applied.push((s, now));
        }
        if json {
            let list: Vec<Value> = applied
                .iter()
                .map(|(s, now)| match now {
                    None => json!({ "name": s.name, "executed": true }),
                    Some(v) => json!({ "name": s.name, "value": value_json(v) }),
                })
                .collect();
            crate::json_println!(
                "{}",
                json!({ "ok": true, "device": device_json(&session), "applied": list })
            );
        } else {
            for (s, now) in &applied {
                match now {
                    None => println!("{} executed", s.name),
                    Some(v) => println!("{} = {v}", s.name),
                }
            }
        }
        Ok(())
    })
}

/// Runs `linerate xml`.
pub fn xml(args: XmlArgs) -> Result<()> {
    let json = args.target.json;
    with_json_errors(json, || {
        let session = args.target.open()?;
        let document = session.xml();
        let mut report = json!({
            "ok": true,
            "device": device_json(&session),
            "url": document.url,
            "file_name": document.file_name(),
            "zipped": document.zipped(),
            "xml_bytes": document.text.len(),
        });
        let source = format!(
            "{} ({} bytes at {:#x}{}; URL register {:#06x})",
            document.url,
            document.file_length(),
            document.address(),
            if document.zipped() {
                ", zipped; written unzipped"
            } else {
                ""
            },
            document.register
        );
        match &args.out {
            Some(path) => {
                if path.exists() {
                    bail!(
                        "--out {}: the file exists; not overwriting it",
                        path.display()
                    );
                }
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(path)
                    .with_context(|| format!("--out {}: creating the file", path.display()))?;
                file.write_all(document.text.as_bytes())
                    .with_context(|| format!("--out {}: writing", path.display()))?;
                if json {
                    report["out"] = path.display().to_string().into();
                    crate::json_println!("{report}");
                } else {
                    eprintln!(
                        "wrote {} bytes of GenICam XML to {}, from {source}",
                        document.text.len(),
                        path.display()
                    );
                }
            }
            None if json => {
                report["xml"] = document.text.as_str().into();
                crate::json_println!("{report}");
            }
            None => {
                eprintln!("GenICam XML from {source}");
                let mut out = std::io::stdout().lock();
                out.write_all(document.text.as_bytes())?;
                if !document.text.ends_with('\n') {
                    out.write_all(b"\n")?;
                }
            }
        }
        Ok(())
    })
}
