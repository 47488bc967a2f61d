//! The crate's errors: one enum for everything a caller can act on, and the
//! transport's own error type, so a message alone says what failed and with
//! which value.

use core::fmt;

/// Which way a register access went, for [`PortError`] messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reading (GVCP READMEM).
    Read,
    /// Writing (GVCP WRITEMEM).
    Write,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Access::Read => "read",
            Access::Write => "write",
        })
    }
}

/// A register access the transport could not complete.
///
/// The transport (GVCP over UDP, a test double, ...) wraps its own error
/// here with the address and length it was asked for, so a failure deep
/// inside a feature evaluation still says which bytes could not be moved.
#[derive(Debug, thiserror::Error)]
#[error("register {access} of {length} bytes at {address:#x} failed: {source}")]
pub struct PortError {
    /// Read or write.
    pub access: Access,
    /// Device address of the first byte.
    pub address: u64,
    /// Number of bytes.
    pub length: usize,
    /// What the transport reported (a GVCP status, a timeout, ...).
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl PortError {
    /// A failed read, for [`RegisterPort::read`](crate::RegisterPort::read) implementations.
    pub fn read(
        address: u64,
        length: usize,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> PortError {
        PortError {
            access: Access::Read,
            address,
            length,
            source: source.into(),
        }
    }

    /// A failed write, for [`RegisterPort::write`](crate::RegisterPort::write) implementations.
    pub fn write(
        address: u64,
        length: usize,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> PortError {
        PortError {
            access: Access::Write,
            address,
            length,
            source: source.into(),
        }
    }
}

/// Everything that can go wrong fetching an XML or using its features.
///
/// Each variant carries the offending value (URL text, feature name, value,
/// bounds, sizes) so the message alone tells a user what to change.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The transport failed; see [`PortError`].
    #[error(transparent)]
    Port(#[from] PortError),

    /// The URL names a source this crate does not read (`File:`, `http:`):
    /// the host must get the XML some other way.
    #[error("unsupported GenICam XML URL {url:?}: only Local: URLs are read from the device")]
    UnsupportedUrl {
        /// The URL as the device gave it.
        url: String,
    },

    /// The URL register does not hold a well-formed URL.
    #[error("invalid GenICam XML URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL text (after the terminating NUL was cut).
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// The XML (compressed or not) is larger than this crate accepts, so a
    /// wrong length in a URL or a zip cannot make the host allocate without bound.
    #[error("GenICam XML {what} of {length} bytes exceeds the limit of {max} bytes")]
    XmlTooLarge {
        /// Which size: "file" (as named by the URL) or "uncompressed XML".
        what: &'static str,
        /// The size found.
        length: u64,
        /// The limit, [`MAX_XML_BYTES`](crate::MAX_XML_BYTES).
        max: u64,
    },

    /// The zipped XML could not be unpacked.
    #[error("cannot unzip GenICam XML {file_name:?}: {reason}")]
    Zip {
        /// The file name from the URL.
        file_name: String,
        /// What the zip reader reported.
        reason: String,
    },

    /// The XML is neither UTF-8 nor declared as ISO-8859-1.
    #[error("GenICam XML {file_name:?} is not UTF-8 (invalid byte at offset {offset})")]
    NotUtf8 {
        /// The file name from the URL.
        file_name: String,
        /// Offset of the first invalid byte.
        offset: usize,
    },

    /// The XML is not well-formed XML.
    #[error("GenICam XML does not parse: {reason}")]
    XmlSyntax {
        /// The parser's message, with the position.
        reason: String,
    },

    /// The XML is well-formed but would make the GenApi evaluator recurse
    /// too deep (a reference cycle, a very long chain, a huge formula), which
    /// would overflow the stack instead of returning an error.
    #[error("GenICam XML rejected: {reason}")]
    XmlTooComplex {
        /// What limit was exceeded, naming the node.
        reason: String,
    },

    /// cameleon-genapi panicked on this XML or on a register value (it has
    /// `unwrap`s on malformed content); the panic was caught and this
    /// `Features` may hold partial state for the node named.
    #[error("GenApi failed on {operation}: {message}")]
    GenApiPanic {
        /// What was being done, e.g. `building the feature tree`, `get Width`.
        operation: String,
        /// The panic message.
        message: String,
    },

    /// No node of that name in the XML.
    #[error("no feature named {name:?}")]
    UnknownFeature {
        /// The name asked for.
        name: String,
    },

    /// The node exists but cannot do what was asked (e.g. `execute` on an
    /// Integer, `get` on a Category).
    #[error("{name} is {actual}, not {expected}")]
    WrongKind {
        /// The feature.
        name: String,
        /// What the operation needs, e.g. "a Command".
        expected: &'static str,
        /// What the node is, e.g. "an Integer".
        actual: &'static str,
    },

    /// The feature is not readable now (write-only, not implemented, or
    /// not available).
    #[error("{name} is not readable")]
    NotReadable {
        /// The feature.
        name: String,
    },

    /// The feature is not writable now (read-only, locked, not available).
    #[error("{name} is not writable")]
    NotWritable {
        /// The feature.
        name: String,
    },

    /// The text given for a feature does not parse as its type.
    #[error("{name}: {value:?} is not {expected}")]
    InvalidValue {
        /// The feature.
        name: String,
        /// The text given.
        value: String,
        /// What was expected, e.g. "an integer".
        expected: &'static str,
    },

    /// An integer outside `[min, max]`; nothing was written.
    #[error("{name} = {value} is out of range: allowed {min} to {max}")]
    OutOfRange {
        /// The feature.
        name: String,
        /// The value asked for.
        value: i64,
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },

    /// An integer in range but not `min + k × inc`; nothing was written.
    #[error("{name} = {value} is not on the increment: allowed {min} + k × {inc} (nearest {below} or {above})")]
    NotOnIncrement {
        /// The feature.
        name: String,
        /// The value asked for.
        value: i64,
        /// The base of the increments.
        min: i64,
        /// The increment.
        inc: i64,
        /// Nearest allowed value below.
        below: i64,
        /// Nearest allowed value above (may exceed the maximum).
        above: i64,
    },

    /// A float outside `[min, max]`; nothing was written.
    #[error("{name} = {value} is out of range: allowed {min} to {max}")]
    FloatOutOfRange {
        /// The feature.
        name: String,
        /// The value asked for.
        value: f64,
        /// Smallest allowed value.
        min: f64,
        /// Largest allowed value.
        max: f64,
    },

    /// A string longer than its register; nothing was written.
    #[error("{name}: {value:?} is {length} bytes, the feature holds at most {max}")]
    StringTooLong {
        /// The feature.
        name: String,
        /// The text given.
        value: String,
        /// Its length in bytes.
        length: usize,
        /// The most the feature holds.
        max: i64,
    },

    /// No entry of that name in the enumeration; nothing was written.
    #[error("{name} has no entry {value:?}; entries: {}", entries.join(", "))]
    UnknownEntry {
        /// The enumeration.
        name: String,
        /// The entry asked for.
        value: String,
        /// The entries it has.
        entries: Vec<String>,
    },

    /// The entry exists but is not available or not implemented now.
    #[error("{name}: entry {value:?} is not available")]
    EntryNotAvailable {
        /// The enumeration.
        name: String,
        /// The entry asked for.
        value: String,
    },

    /// cameleon-genapi reported an error other than a transport failure
    /// (a dangling reference, a register of an unsupported length, an
    /// enumeration value with no entry, ...).
    #[error("{name}: {message}")]
    GenApi {
        /// The feature being accessed.
        name: String,
        /// cameleon-genapi's message.
        message: String,
    },
}
