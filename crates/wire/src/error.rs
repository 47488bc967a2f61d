//! The one error type shared by every codec in this crate.

/// Why a buffer could not be decoded, or a value could not be encoded.
///
/// Every variant names the structure or field at fault and carries the
/// offending value, so a log line is enough to diagnose a bad peer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The buffer ends before the structure does.
    #[error("{what} truncated: got {got} bytes, need at least {need}")]
    Truncated {
        /// The structure being decoded, e.g. "GVCP header".
        what: &'static str,
        /// Bytes available.
        got: usize,
        /// Bytes required.
        need: usize,
    },
    /// A length field disagrees with the buffer or with the protocol's rules.
    #[error("{what}: bad length {len} ({rule})")]
    BadLength {
        /// The structure or field at fault.
        what: &'static str,
        /// The length found.
        len: usize,
        /// The rule it breaks, in words.
        rule: &'static str,
    },
    /// Text meant to be a protocol value (a MAC address) is not one.
    #[error("{what} {text:?} is not valid: {rule}")]
    BadText {
        /// What the text should have been.
        what: &'static str,
        /// The text given.
        text: String,
        /// What is expected, in words.
        rule: &'static str,
    },
    /// A field holds a value the protocol does not allow here.
    #[error("{field}: unexpected value {value:#x}")]
    BadValue {
        /// The field at fault, e.g. "GVCP key".
        field: &'static str,
        /// The value found.
        value: u64,
    },
    /// The packet is of a known protocol but of a kind this decoder does not handle.
    #[error("{what}: unsupported kind {value:#x}")]
    Unsupported {
        /// What was being decoded.
        what: &'static str,
        /// The unsupported discriminant (command code, content type, ...).
        value: u64,
    },
    /// An encoder was asked to emit a value that does not fit its field.
    #[error("{field}: value {value} does not fit (maximum {max})")]
    Overflow {
        /// The field that cannot hold the value.
        field: &'static str,
        /// The value given.
        value: u64,
        /// The largest value the field holds.
        max: u64,
    },
}

/// Result alias used throughout the crate.
pub type Result<T> = core::result::Result<T, Error>;

/// Returns `Err(Truncated)` unless `buf` holds at least `need` bytes.
pub(crate) fn ensure_len(what: &'static str, buf: &[u8], need: usize) -> Result<()> {
    if buf.len() < need {
        Err(Error::Truncated {
            what,
            got: buf.len(),
            need,
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_carry_the_offending_value() {
        let e = Error::BadValue {
            field: "GVCP key",
            value: 0x43,
        };
        assert_eq!(e.to_string(), "GVCP key: unexpected value 0x43");
        let e = Error::Truncated {
            what: "GVSP header",
            got: 3,
            need: 8,
        };
        assert!(e.to_string().contains("got 3 bytes"));
    }

    #[test]
    fn ensure_len_checks() {
        assert!(ensure_len("x", &[0; 4], 4).is_ok());
        assert!(ensure_len("x", &[0; 3], 4).is_err());
    }
}
