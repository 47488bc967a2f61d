//! GenICam for linerate hosts: fetch a device's XML and use its features by
//! name, over any register transport.
//!
//! A GigE Vision host needs three things from a camera's GenICam
//! description: where the XML is ([`parse_url`], from the URL bootstrap
//! registers), the XML itself ([`fetch_xml`]: read in chunks of at most
//! 512 bytes, unzipped when it is a `.zip`, bounded by [`MAX_XML_BYTES`]),
//! and its features ([`Features`]: get, set with Min/Max/Inc checked before
//! anything is written, execute commands, integer bounds, names; for
//! listings, [`Features::describe`] gives a feature's type, access mode now,
//! value, range or entries and unit, and [`Features::tree`] the categories).
//! [`fetch_xml_document`] also keeps the URL the XML came from.
//!
//! The crate is sans-IO like the rest of linerate's protocol code: register
//! access goes through the [`RegisterPort`] trait, which the GVCP control
//! connection implements with READMEM/WRITEMEM, and which tests implement
//! over the emulated camera or plain memory. Nothing here opens a socket.
//!
//! # GenApi engine and its licence
//!
//! Features are evaluated by [cameleon-genapi], used unmodified as a
//! library. Its licence is **MPL-2.0**: file-level copyleft, which applies
//! to changes to cameleon-genapi's own files (those would have to be
//! published under the MPL), not to this crate or to programs linking it.
//! linerate itself stays MIT OR Apache-2.0. A binary that includes it must
//! tell its recipients where cameleon-genapi's source form can be had (its
//! crates.io release, MPL-2.0 §3.2) and keep its licence notice.
//!
//! # Robustness
//!
//! No XML and no register content may crash the host:
//! * before building, the XML is checked for shapes that would make
//!   cameleon-genapi's recursive parser or evaluator overflow the stack
//!   (deep nesting, huge formulas, reference cycles and long reference
//!   chains, self-referencing expressions, giant register lengths), which
//!   no `catch_unwind` could stop; see the `MAX_*` limits and
//!   [`Error::XmlTooComplex`];
//! * cameleon-genapi `unwrap`s on some malformed content (e.g. a
//!   non-numeric `<Value>`, a dangling reference); every call into it runs
//!   under `catch_unwind` and a panic becomes [`Error::GenApiPanic`]
//!   (the default panic hook still prints it to stderr; a binary built with
//!   `panic = "abort"` loses this guard). A panic raised by the caller's own
//!   [`RegisterPort`] is passed on unchanged.
//!
//! Not covered: a register whose *length* comes from another register
//! (`pLength`) is allocated by cameleon-genapi at whatever size the device
//! reports.
//!
//! # Caching
//!
//! cameleon-genapi caches register values; [`Features`] clears the cache
//! at the start and end of every call, so a `get` always reflects the
//! device now (after a command, another host's write, or the camera's own
//! changes), at the cost of re-reading registers on each call.
//!
//! [cameleon-genapi]: https://crates.io/crates/cameleon-genapi

mod check;
mod describe;
mod error;
mod features;
mod fetch;
mod port;
mod url;

pub use check::{
    MAX_ELEMENT_DEPTH, MAX_EXPRESSIONS, MAX_OPERATORS, MAX_PAREN_DEPTH, MAX_REFERENCE_DEPTH,
    MAX_REGISTER_LENGTH,
};
pub use describe::{AccessMode, Bounds, Category, EntryInfo, FeatureInfo, TreeItem, Visibility};
pub use error::{Access, Error, PortError};
pub use features::{FeatureKind, FeatureValue, Features};
pub use fetch::{
    decode_xml, fetch_from, fetch_xml, fetch_xml_document, read_url, XmlDocument,
    FIRST_URL_ADDRESS, MAX_XML_BYTES, SECOND_URL_ADDRESS, URL_REGISTER_LEN,
};
pub use port::{read_memory, write_memory, RegisterPort, MAX_CHUNK};
pub use url::{parse_url, XmlFormat, XmlLocation};
