//! The ports of the producer's own modules (system, interface, device,
//! data stream): a small register space per module, described by a GenICam
//! XML of ours that the port itself serves through a `local:` URL, so a
//! GenICam consumer (GenApi, Harvesters) builds a node map for each module
//! as it does for the camera.
//!
//! A module lists its [`Field`]s; this builds the XML from them, places
//! each at its own address and turns reads and writes of those addresses
//! into [`Value`]s the module produces or takes.

use crate::error::{GcError, GcResult};

/// Where the XML file starts in every local port's address space.
pub const XML_ADDRESS: u64 = 0x10_0000;
/// Bytes between two fields' addresses (also the longest string).
const FIELD_STRIDE: u64 = 0x100;
/// Bytes of an integer register (little-endian).
const INT_LEN: usize = 8;

/// How a field looks in the node map.
#[derive(Debug, Clone, Copy)]
pub enum FieldKind {
    /// A string of at most this many bytes (a `StringReg`).
    Text(u32),
    /// An integer within bounds (an `Integer` over an `IntReg`).
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// One of named values (an `Enumeration` over an `IntReg`).
    Enum(&'static [(&'static str, i64)]),
    /// A boolean (a `Boolean` over an `IntReg`).
    Bool,
}

/// One feature of a module.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The feature's name (SFNC / GenTL SFNC where one exists).
    pub name: &'static str,
    /// Its type.
    pub kind: FieldKind,
    /// Whether a consumer may write it.
    pub writable: bool,
    /// One line for the consumer's tooltip.
    pub tooltip: &'static str,
}

/// A field's value, as the module holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A string.
    Text(String),
    /// An integer (enumerations and booleans too).
    Int(i64),
}

/// What a module does with its fields: gives their values and takes new
/// ones for the writable ones.
pub trait Fields {
    /// The current value of `field`.
    fn value(&self, field: &Field) -> Value;
    /// Takes a new value for a writable `field` (already range-checked).
    fn set(&self, field: &Field, value: i64) -> GcResult<()>;
}

/// One module's port: its fields, the XML describing them and its name.
#[derive(Debug)]
pub struct LocalPort {
    /// GenApi's port node name, which `GCGetPortInfo(PORTNAME)` reports.
    pub port_name: &'static str,
    /// The GenTL module type (`TLSystem`, `TLInterface`, ...).
    pub module: &'static str,
    file_name: &'static str,
    fields: &'static [Field],
    xml: Vec<u8>,
}

impl LocalPort {
    /// The port of a module of type `module` with `fields`, its XML named
    /// `file_name`.
    pub fn new(
        module: &'static str,
        port_name: &'static str,
        file_name: &'static str,
        fields: &'static [Field],
    ) -> LocalPort {
        let xml = describe(module, port_name, fields).into_bytes();
        LocalPort {
            port_name,
            module,
            file_name,
            fields,
            xml,
        }
    }

    /// The `local:` URL of the XML in this port's space.
    pub fn url(&self) -> String {
        format!(
            "local:{};{:x};{:x}",
            self.file_name,
            XML_ADDRESS,
            self.xml.len()
        )
    }

    /// The XML text.
    pub fn xml(&self) -> &[u8] {
        &self.xml
    }

    /// The XML's file name.
    pub fn file_name(&self) -> &'static str {
        self.file_name
    }

    /// Reads `len` bytes at `address`: from the XML, or from one field.
    pub fn read(&self, address: u64, len: usize, module: &dyn Fields) -> GcResult<Vec<u8>> {
        let bad = || GcError::InvalidAddress { address, len };
        let end = address
            .checked_add(u64::try_from(len).map_err(|_| bad())?)
            .ok_or_else(bad)?;
        if address >= XML_ADDRESS {
            let from = usize::try_from(address - XML_ADDRESS).map_err(|_| bad())?;
            let to = from.checked_add(len).ok_or_else(bad)?;
            return self.xml.get(from..to).map(<[u8]>::to_vec).ok_or_else(bad);
        }
        let (index, field) = self.field_at(address).ok_or_else(bad)?;
        let start = field_address(index);
        let bytes = encode(field, &module.value(field));
        let from = usize::try_from(address - start).map_err(|_| bad())?;
        let to = usize::try_from(end - start).map_err(|_| bad())?;
        bytes.get(from..to).map(<[u8]>::to_vec).ok_or_else(bad)
    }

    /// Writes `data` at `address`: a whole integer field that is writable.
    pub fn write(&self, address: u64, data: &[u8], module: &dyn Fields) -> GcResult<()> {
        let bad = || GcError::InvalidAddress {
            address,
            len: data.len(),
        };
        let (index, field) = self.field_at(address).ok_or_else(bad)?;
        if field_address(index) != address || data.len() != INT_LEN {
            return Err(bad());
        }
        if !field.writable {
            return Err(GcError::AccessDenied(format!(
                "{} is read-only",
                field.name
            )));
        }
        let mut word = [0u8; INT_LEN];
        word.copy_from_slice(data);
        let value = i64::from_le_bytes(word);
        check(field, value)?;
        module.set(field, value)
    }

    fn field_at(&self, address: u64) -> Option<(usize, &Field)> {
        let index = usize::try_from(address / FIELD_STRIDE).ok()?;
        let field = self.fields.get(index)?;
        let offset = address % FIELD_STRIDE;
        (offset < len_of(field) as u64).then_some((index, field))
    }
}

fn field_address(index: usize) -> u64 {
    index as u64 * FIELD_STRIDE
}

fn len_of(field: &Field) -> usize {
    match field.kind {
        FieldKind::Text(n) => n as usize,
        _ => INT_LEN,
    }
}

/// A value as the field's register bytes.
fn encode(field: &Field, value: &Value) -> Vec<u8> {
    let len = len_of(field);
    match value {
        Value::Text(s) => {
            let mut bytes: Vec<u8> = s.bytes().take(len.saturating_sub(1)).collect();
            bytes.resize(len, 0);
            bytes
        }
        Value::Int(v) => {
            let mut bytes = v.to_le_bytes().to_vec();
            bytes.resize(len, 0);
            bytes
        }
    }
}

/// Refuses a value outside the field's bounds or entries.
fn check(field: &Field, value: i64) -> GcResult<()> {
    let ok = match field.kind {
        FieldKind::Text(_) => false,
        FieldKind::Int { min, max } => (min..=max).contains(&value),
        FieldKind::Enum(entries) => entries.iter().any(|&(_, v)| v == value),
        FieldKind::Bool => value == 0 || value == 1,
    };
    if ok {
        Ok(())
    } else {
        Err(GcError::InvalidValue(format!(
            "{value} is not a valid value for {}",
            field.name
        )))
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The GenICam XML (schema 1.1) of a module with `fields` on `port`.
fn describe(module: &str, port: &str, fields: &[Field]) -> String {
    let mut xml = String::new();
    xml.push_str(&format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<RegisterDescription ModelName="linerate_{module}" VendorName="linerate" ToolTip="linerate.cti {module} module" StandardNameSpace="None" SchemaMajorVersion="1" SchemaMinorVersion="1" SchemaSubMinorVersion="0" MajorVersion="1" MinorVersion="0" SubMinorVersion="0" ProductGuid="5f1d7c3e-2b6a-4e1b-9a51-6c0d2f7a9b10" VersionGuid="8a3e6b21-7c4d-4f0e-b2a9-1d5c3e7f9a20" xmlns="http://www.genicam.org/GenApi/Version_1_1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.genicam.org/GenApi/Version_1_1 http://www.genicam.org/GenApi/GenApiSchema_Version_1_1.xsd">
  <Category Name="Root" NameSpace="Standard">
"#
    ));
    for f in fields {
        xml.push_str(&format!("    <pFeature>{}</pFeature>\n", f.name));
    }
    xml.push_str("  </Category>\n");
    for (i, f) in fields.iter().enumerate() {
        let address = field_address(i);
        let access = if f.writable { "RW" } else { "RO" };
        let tip = escape(f.tooltip);
        match f.kind {
            FieldKind::Text(len) => xml.push_str(&format!(
                "  <StringReg Name=\"{name}\" NameSpace=\"Custom\">\n    <ToolTip>{tip}</ToolTip>\n    <Address>{address:#x}</Address>\n    <Length>{len}</Length>\n    <AccessMode>RO</AccessMode>\n    <pPort>{port}</pPort>\n  </StringReg>\n",
                name = f.name
            )),
            FieldKind::Int { min, max } => xml.push_str(&format!(
                "  <Integer Name=\"{name}\" NameSpace=\"Custom\">\n    <ToolTip>{tip}</ToolTip>\n    <pValue>{name}Reg</pValue>\n    <Min>{min}</Min>\n    <Max>{max}</Max>\n  </Integer>\n",
                name = f.name
            )),
            FieldKind::Enum(entries) => {
                xml.push_str(&format!(
                    "  <Enumeration Name=\"{name}\" NameSpace=\"Custom\">\n    <ToolTip>{tip}</ToolTip>\n",
                    name = f.name
                ));
                for (entry, value) in entries {
                    xml.push_str(&format!(
                        "    <EnumEntry Name=\"{entry}\" NameSpace=\"Custom\">\n      <Value>{value}</Value>\n    </EnumEntry>\n"
                    ));
                }
                xml.push_str(&format!(
                    "    <pValue>{name}Reg</pValue>\n  </Enumeration>\n",
                    name = f.name
                ));
            }
            FieldKind::Bool => xml.push_str(&format!(
                "  <Boolean Name=\"{name}\" NameSpace=\"Custom\">\n    <ToolTip>{tip}</ToolTip>\n    <pValue>{name}Reg</pValue>\n    <OnValue>1</OnValue>\n    <OffValue>0</OffValue>\n  </Boolean>\n",
                name = f.name
            )),
        }
        if !matches!(f.kind, FieldKind::Text(_)) {
            xml.push_str(&format!(
                "  <IntReg Name=\"{name}Reg\" NameSpace=\"Custom\">\n    <Visibility>Invisible</Visibility>\n    <Address>{address:#x}</Address>\n    <Length>{INT_LEN}</Length>\n    <AccessMode>{access}</AccessMode>\n    <pPort>{port}</pPort>\n    <Cachable>NoCache</Cachable>\n    <Sign>Signed</Sign>\n    <Endianess>LittleEndian</Endianess>\n  </IntReg>\n",
                name = f.name
            ));
        }
    }
    xml.push_str(&format!(
        "  <Port Name=\"{port}\" NameSpace=\"Standard\"/>\n</RegisterDescription>\n"
    ));
    xml
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    static FIELDS: [Field; 3] = [
        Field {
            name: "TLVendorName",
            kind: FieldKind::Text(64),
            writable: false,
            tooltip: "vendor",
        },
        Field {
            name: "StreamBufferCount",
            kind: FieldKind::Int { min: 2, max: 64 },
            writable: true,
            tooltip: "buffers",
        },
        Field {
            name: "StreamTransport",
            kind: FieldKind::Enum(&[("UDP", 0), ("TCP", 1)]),
            writable: true,
            tooltip: "transport",
        },
    ];

    struct Module(Mutex<i64>);

    impl Fields for Module {
        fn value(&self, field: &Field) -> Value {
            match field.kind {
                FieldKind::Text(_) => Value::Text("linerate".into()),
                _ => Value::Int(*self.0.lock().expect("not poisoned")),
            }
        }
        fn set(&self, _field: &Field, value: i64) -> GcResult<()> {
            *self.0.lock().expect("not poisoned") = value;
            Ok(())
        }
    }

    #[test]
    fn the_xml_is_served_at_its_url_and_parses() {
        let port = LocalPort::new("TLDataStream", "StreamPort", "stream.xml", &FIELDS);
        let module = Module(Mutex::new(8));
        let url = port.url();
        let location = linerate_grab::genicam::parse_url(&url).expect("a valid URL");
        let linerate_grab::genicam::XmlLocation::Local {
            address, length, ..
        } = location
        else {
            panic!("a local URL");
        };
        let bytes = port.read(address, length, &module).expect("the XML reads");
        let xml = String::from_utf8(bytes).expect("UTF-8");
        let features = linerate_grab::genicam::Features::from_xml(&xml).expect("parses");
        assert!(features.contains("StreamBufferCount"));
        assert!(features.contains("StreamTransport"));
    }

    #[test]
    fn fields_read_and_write_within_bounds() {
        let port = LocalPort::new("TLDataStream", "StreamPort", "stream.xml", &FIELDS);
        let module = Module(Mutex::new(8));
        assert_eq!(port.read(0, 8, &module).expect("reads"), b"linerate");
        assert_eq!(
            port.read(0x100, 8, &module).expect("reads"),
            8i64.to_le_bytes()
        );
        port.write(0x100, &16i64.to_le_bytes(), &module)
            .expect("in range");
        assert_eq!(*module.0.lock().expect("not poisoned"), 16);
        assert!(matches!(
            port.write(0x100, &65i64.to_le_bytes(), &module),
            Err(GcError::InvalidValue(_))
        ));
        assert!(matches!(
            port.write(0x200, &2i64.to_le_bytes(), &module),
            Err(GcError::InvalidValue(_))
        ));
        assert!(matches!(
            port.write(0, &[0; 8], &module),
            Err(GcError::AccessDenied(_))
        ));
        assert!(matches!(
            port.read(0x900, 4, &module),
            Err(GcError::InvalidAddress { .. })
        ));
        assert!(port.read(XML_ADDRESS + 1_000_000, 4, &module).is_err());
        assert!(port.read(XML_ADDRESS + 8, usize::MAX, &module).is_err());
        assert!(port.read(u64::MAX - 2, 8, &module).is_err());
    }
}
