//! An info query's answer as a typed value, and its bytes as the GenTL
//! info functions hand them to C (with the `INFO_DATATYPE` saying how).

use crate::abi::info_type;

/// One answer to an info query.
#[derive(Debug, Clone, PartialEq)]
pub enum Info {
    /// A string (NUL-terminated in C).
    Str(String),
    /// `uint32_t`.
    U32(u32),
    /// `int32_t` (enumerations).
    I32(i32),
    /// `uint64_t`.
    U64(u64),
    /// `double`.
    F64(f64),
    /// `bool8_t`.
    Bool(bool),
    /// `size_t`.
    Size(usize),
    /// A pointer, as an address.
    Ptr(usize),
}

impl Info {
    /// The `INFO_DATATYPE` of this answer.
    pub fn data_type(&self) -> i32 {
        match self {
            Info::Str(_) => info_type::STRING,
            Info::U32(_) => info_type::UINT32,
            Info::I32(_) => info_type::INT32,
            Info::U64(_) => info_type::UINT64,
            Info::F64(_) => info_type::FLOAT64,
            Info::Bool(_) => info_type::BOOL8,
            Info::Size(_) => info_type::SIZET,
            Info::Ptr(_) => info_type::PTR,
        }
    }

    /// The answer's bytes as C reads them (native byte order; strings with
    /// their NUL; any NUL inside a string ends it there).
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Info::Str(s) => c_string(s),
            Info::U32(v) => v.to_ne_bytes().to_vec(),
            Info::I32(v) => v.to_ne_bytes().to_vec(),
            Info::U64(v) => v.to_ne_bytes().to_vec(),
            Info::F64(v) => v.to_ne_bytes().to_vec(),
            Info::Bool(v) => vec![u8::from(*v)],
            Info::Size(v) | Info::Ptr(v) => v.to_ne_bytes().to_vec(),
        }
    }
}

/// `s` as a NUL-terminated C string (cut at an inner NUL).
pub fn c_string(s: &str) -> Vec<u8> {
    let mut bytes: Vec<u8> = s.bytes().take_while(|&b| b != 0).collect();
    bytes.push(0);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_carry_their_nul_and_numbers_their_width() {
        assert_eq!(Info::Str("GEV".into()).to_bytes(), b"GEV\0");
        assert_eq!(Info::Str("a\0b".into()).to_bytes(), b"a\0");
        assert_eq!(Info::U32(7).to_bytes().len(), 4);
        assert_eq!(Info::Bool(true).to_bytes(), [1]);
        assert_eq!(Info::Size(1).data_type(), info_type::SIZET);
    }
}
