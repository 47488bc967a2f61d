//! How the parsed forms serialise (with the `serde` feature): what
//! `linerate decode --json` prints. Numbers stay numbers and names stay
//! names; borrowed packet data is given as its length, not its bytes, so
//! a decoded packet reads as its fields.

use serde::{Serialize, Serializer};

use crate::gvcp::FixedString;
use crate::gvsp::PayloadType;
use crate::{PixelFormat, Status};

/// Serialises borrowed packet data as its length in bytes.
pub(crate) fn byte_count<S: Serializer, D: AsRef<[u8]> + ?Sized>(
    data: &&D,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_u64(data.as_ref().len() as u64)
}

/// Serialises bytes a register map or file holds (GVCP memory reads and
/// writes) as lowercase hex, two digits a byte.
pub(crate) fn hex<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
    use std::fmt::Write;
    let mut text = String::with_capacity(2 * data.len());
    for b in data {
        let _ = write!(text, "{b:02x}");
    }
    s.serialize_str(&text)
}

impl Serialize for Status {
    /// The status's name (e.g. "SUCCESS"), or its code in hex ("0x8fff")
    /// when it has none.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.name() {
            Some(name) => s.serialize_str(name),
            None => s.collect_str(&format_args!("{:#06x}", self.0)),
        }
    }
}

impl Serialize for PixelFormat {
    /// The PFNC name (e.g. "Mono8"), or the code in hex when unknown.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for PayloadType {
    /// The payload type's code as the wire carries it (chunk flag included).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(self.0)
    }
}

impl<const N: usize> Serialize for FixedString<N> {
    /// The text up to its first NUL, invalid UTF-8 replaced.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string_lossy())
    }
}
