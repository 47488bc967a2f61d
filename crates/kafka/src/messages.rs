//! The ESS FlatBuffers mapping: what linerate publishes, as bytes.
//!
//! * A frame or a board chunk is one `ad00` area-detector array
//!   ([`ArrayMessage`], encoded by [`encode_array`] straight from the
//!   caller's bytes: the data is copied once, into the message).
//!
//! Field by field (docs/kafka.md has the table): `source_name` is the
//! camera or board, `id` the block id or chunk sequence (truncated to
//! ad00's 32 bits; the attribute `block_id` carries all 64), `timestamp`
//! the receive time in ns since the UNIX epoch, `dimensions` `[height,
//! width]` for a frame and `[bytes]` for a chunk, `data_type` from the
//! pixel format (`uint8` for board data), `data` the bytes, and the
//! attributes `complete` (0/1), `missing` (byte ranges `a-b,c-d`),
//! `block_id`, `pixel_format`, or `stream_offset` for a chunk.
//! * A receiver counter is one `f144` log value ([`encode_counter`]).
//!
//! [`decode`] reads either back, checking the schema identifier, and fails
//! with a [`DecodeError`] on anything else: a consumer never panics on a
//! message it did not expect.

use flatbuffers::{FlatBufferBuilder, TableFinishedWIPOffset, WIPOffset};
use planus::ReadAsRoot;

use crate::ess::ad00::{Ad00AdArrayRef, DType};
use crate::ess::f144::{F144LogDataRef, ValueRef};

/// Now, in ns since the UNIX epoch: the `timestamp` of every message
/// linerate publishes (0 on a clock before 1970, saturating far after).
pub fn unix_now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// The `ad00` schema identifier (bytes 4..8 of every message).
pub const AD00: [u8; 4] = *b"ad00";
/// The `f144` schema identifier.
pub const F144: [u8; 4] = *b"f144";

/// The element type of an array, as `ad00`'s `DType` names it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ElementType {
    /// 8-bit unsigned (Mono8, Bayer 8-bit, board data).
    Uint8,
    /// 16-bit unsigned (Mono10/12/16 unpacked).
    Uint16,
}

impl ElementType {
    fn dtype(self) -> DType {
        match self {
            ElementType::Uint8 => DType::Uint8,
            ElementType::Uint16 => DType::Uint16,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElementType::Uint8 => 1,
            ElementType::Uint16 => 2,
        }
    }
}

/// One metadata value carried beside an array (ad00's `Attribute`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttributeValue {
    /// An unsigned number (`uint64`, little-endian).
    U64(u64),
    /// Text (`c_string`, UTF-8 without a terminator).
    Text(String),
}

/// An array to publish: a GigE Vision frame or a chunk of a board's stream.
#[derive(Debug, Clone, Copy)]
pub struct ArrayMessage<'a> {
    /// Who produced it: a camera's serial or address, a board's MAC.
    pub source_name: &'a str,
    /// The frame's block id or the chunk's sequence number (ad00's `id` is
    /// 32-bit; the full block id travels as the `block_id` attribute).
    pub id: i32,
    /// When it was received, in nanoseconds since the UNIX epoch.
    pub timestamp_ns: i64,
    /// Dimensions, slowest-varying first (`[height, width]` for a frame).
    pub dimensions: &'a [i64],
    /// Element type.
    pub element: ElementType,
    /// The bytes.
    pub data: &'a [u8],
    /// Metadata (completeness, missing ranges, stream offset).
    pub attributes: &'a [(&'a str, AttributeValue)],
}

/// The builder messages are encoded with. Encoding uses the `flatbuffers`
/// crate's builder (planus 1.3.0 writes a file identifier before the root
/// offset instead of after it, which no other reader accepts); decoding
/// uses the planus-generated readers, which check every offset.
pub type MessageBuilder = FlatBufferBuilder<'static>;

/// Field slots (vtable offsets: 4 + 2 × the field's index in the schema).
mod slot {
    pub const AD00_SOURCE_NAME: u16 = 4;
    pub const AD00_ID: u16 = 6;
    pub const AD00_TIMESTAMP: u16 = 8;
    pub const AD00_DIMENSIONS: u16 = 10;
    pub const AD00_DATA_TYPE: u16 = 12;
    pub const AD00_DATA: u16 = 14;
    pub const AD00_ATTRIBUTES: u16 = 16;
    pub const ATTRIBUTE_NAME: u16 = 4;
    pub const ATTRIBUTE_DESCRIPTION: u16 = 6;
    pub const ATTRIBUTE_SOURCE: u16 = 8;
    pub const ATTRIBUTE_DATA_TYPE: u16 = 10;
    pub const ATTRIBUTE_DATA: u16 = 12;
    pub const F144_SOURCE_NAME: u16 = 4;
    pub const F144_TIMESTAMP: u16 = 6;
    pub const F144_VALUE_TYPE: u16 = 8;
    pub const F144_VALUE: u16 = 10;
    pub const SCALAR_VALUE: u16 = 4;
}

/// ad00's `DType` values.
fn dtype_code(d: DType) -> i8 {
    d as i8
}

/// f144's `Value` union tag of `ULong` (its 8th member; 0 is NONE).
const F144_VALUE_ULONG: u8 = 8;

/// Serialises `message` as an `ad00` FlatBuffer into `builder` (reset
/// first, its allocation kept), returning the encoded length; the bytes
/// are then `builder.finished_data()`. The data is copied once, into the
/// builder.
pub fn encode_array(builder: &mut MessageBuilder, message: &ArrayMessage<'_>) -> usize {
    builder.reset();
    let mut attributes: Vec<WIPOffset<TableFinishedWIPOffset>> = Vec::new();
    for (name, value) in message.attributes {
        let (data_type, bytes) = match value {
            AttributeValue::U64(v) => (DType::Uint64, v.to_le_bytes().to_vec()),
            AttributeValue::Text(t) => (DType::CString, t.as_bytes().to_vec()),
        };
        let name = builder.create_string(name);
        // Written though optional: ESS's Python decoder reads both.
        let empty = builder.create_string("");
        let data = builder.create_vector(&bytes);
        let t = builder.start_table();
        builder.push_slot_always(slot::ATTRIBUTE_NAME, name);
        builder.push_slot_always(slot::ATTRIBUTE_DESCRIPTION, empty);
        builder.push_slot_always(slot::ATTRIBUTE_SOURCE, empty);
        builder.push_slot_always(slot::ATTRIBUTE_DATA, data);
        builder.push_slot_always(slot::ATTRIBUTE_DATA_TYPE, dtype_code(data_type));
        attributes.push(builder.end_table(t));
    }
    let attributes = builder.create_vector(&attributes);
    let data = builder.create_vector(message.data);
    let dimensions = builder.create_vector(message.dimensions);
    let source = builder.create_string(message.source_name);
    let t = builder.start_table();
    builder.push_slot_always(slot::AD00_TIMESTAMP, message.timestamp_ns);
    builder.push_slot_always(slot::AD00_SOURCE_NAME, source);
    builder.push_slot_always(slot::AD00_DIMENSIONS, dimensions);
    builder.push_slot_always(slot::AD00_DATA, data);
    builder.push_slot_always(slot::AD00_ATTRIBUTES, attributes);
    builder.push_slot_always(slot::AD00_ID, message.id);
    builder.push_slot_always(slot::AD00_DATA_TYPE, dtype_code(message.element.dtype()));
    let root = builder.end_table(t);
    builder.finish(root, Some("ad00"));
    builder.finished_data().len()
}

/// Serialises one counter as an `f144` FlatBuffer (`ULong` value).
pub fn encode_counter(
    builder: &mut MessageBuilder,
    source_name: &str,
    timestamp_ns: i64,
    value: u64,
) -> Vec<u8> {
    builder.reset();
    let t = builder.start_table();
    builder.push_slot_always(slot::SCALAR_VALUE, value);
    let v = builder.end_table(t);
    let source = builder.create_string(source_name);
    let t = builder.start_table();
    builder.push_slot_always(slot::F144_TIMESTAMP, timestamp_ns);
    builder.push_slot_always(slot::F144_SOURCE_NAME, source);
    builder.push_slot_always(slot::F144_VALUE, v);
    builder.push_slot_always(slot::F144_VALUE_TYPE, F144_VALUE_ULONG);
    let root = builder.end_table(t);
    builder.finish(root, Some("f144"));
    builder.finished_data().to_vec()
}

/// Why bytes did not decode as a message linerate understands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Shorter than a FlatBuffer header.
    #[error("message of {0} bytes is too short for a FlatBuffer")]
    TooShort(usize),
    /// A schema other than ad00 or f144.
    #[error("schema {0:?} is neither ad00 nor f144")]
    Schema(String),
    /// The buffer does not hold a valid table of its schema.
    #[error("malformed {schema} message: {reason}")]
    Malformed {
        /// The schema identifier.
        schema: &'static str,
        /// What planus found wrong.
        reason: String,
    },
    /// An f144 value of a type other than the unsigned counters linerate
    /// publishes.
    #[error("f144 value of an unexpected type")]
    ValueType,
}

/// A decoded `ad00` array, borrowing the message's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedArray<'a> {
    /// Source name.
    pub source_name: &'a str,
    /// ad00 `id`.
    pub id: i32,
    /// Timestamp, ns since the UNIX epoch.
    pub timestamp_ns: i64,
    /// Dimensions.
    pub dimensions: Vec<i64>,
    /// Element type, if one linerate publishes.
    pub element: Option<ElementType>,
    /// The array's bytes.
    pub data: &'a [u8],
    /// Attributes linerate understands (uint64 and text ones).
    pub attributes: Vec<(String, AttributeValue)>,
}

impl DecodedArray<'_> {
    /// The unsigned attribute `name`, if present.
    pub fn u64_attribute(&self, name: &str) -> Option<u64> {
        self.attributes.iter().find_map(|(n, v)| match v {
            AttributeValue::U64(x) if n == name => Some(*x),
            _ => None,
        })
    }

    /// The text attribute `name`, if present.
    pub fn text_attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find_map(|(n, v)| match v {
            AttributeValue::Text(t) if n == name => Some(t.as_str()),
            _ => None,
        })
    }
}

/// A decoded `f144` counter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedCounter {
    /// Source name (`<source>:<counter>`).
    pub source_name: String,
    /// Timestamp, ns since the UNIX epoch.
    pub timestamp_ns: i64,
    /// The value.
    pub value: u64,
}

/// A message decoded by [`decode`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// An ad00 array.
    Array(DecodedArray<'a>),
    /// An f144 counter.
    Counter(DecodedCounter),
}

fn malformed(schema: &'static str) -> impl Fn(planus::Error) -> DecodeError {
    move |e| DecodeError::Malformed {
        schema,
        reason: e.to_string(),
    }
}

/// Decodes an ad00 or f144 message.
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>, DecodeError> {
    let id: [u8; 4] = bytes
        .get(4..8)
        .and_then(|b| b.try_into().ok())
        .ok_or(DecodeError::TooShort(bytes.len()))?;
    match id {
        AD00 => decode_array(bytes).map(Decoded::Array),
        F144 => decode_counter(bytes).map(Decoded::Counter),
        other => Err(DecodeError::Schema(
            String::from_utf8_lossy(&other).into_owned(),
        )),
    }
}

fn decode_array(bytes: &[u8]) -> Result<DecodedArray<'_>, DecodeError> {
    let m = malformed("ad00");
    let a = Ad00AdArrayRef::read_as_root(bytes).map_err(&m)?;
    let element = match a.data_type().map_err(&m)? {
        DType::Uint8 => Some(ElementType::Uint8),
        DType::Uint16 => Some(ElementType::Uint16),
        _ => None,
    };
    let mut attributes = Vec::new();
    if let Some(list) = a.attributes().map_err(&m)? {
        for attr in list.iter() {
            let attr = attr.map_err(&m)?;
            let name = attr.name().map_err(&m)?.to_string();
            let data = attr.data().map_err(&m)?;
            match attr.data_type().map_err(&m)? {
                DType::Uint64 => {
                    if let Ok(b) = <[u8; 8]>::try_from(data) {
                        attributes.push((name, AttributeValue::U64(u64::from_le_bytes(b))));
                    }
                }
                DType::CString => attributes.push((
                    name,
                    AttributeValue::Text(String::from_utf8_lossy(data).into_owned()),
                )),
                _ => {}
            }
        }
    }
    Ok(DecodedArray {
        source_name: a.source_name().map_err(&m)?,
        id: a.id().map_err(&m)?,
        timestamp_ns: a.timestamp().map_err(&m)?,
        dimensions: a.dimensions().map_err(&m)?.iter().collect(),
        element,
        data: a.data().map_err(&m)?,
        attributes,
    })
}

fn decode_counter(bytes: &[u8]) -> Result<DecodedCounter, DecodeError> {
    let m = malformed("f144");
    let l = F144LogDataRef::read_as_root(bytes).map_err(&m)?;
    let value = match l.value().map_err(&m)? {
        ValueRef::ULong(v) => v.value().map_err(&m)?,
        _ => return Err(DecodeError::ValueType),
    };
    Ok(DecodedCounter {
        source_name: l.source_name().map_err(&m)?.to_string(),
        timestamp_ns: l.timestamp().map_err(&m)?,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_round_trips_with_its_attributes() {
        let data: Vec<u8> = (0..=255).collect();
        let attributes = [
            ("complete", AttributeValue::U64(1)),
            ("missing", AttributeValue::Text("10-20".into())),
        ];
        let mut b = MessageBuilder::new();
        let len = encode_array(
            &mut b,
            &ArrayMessage {
                source_name: "cam",
                id: 7,
                timestamp_ns: 1_700_000_000_000_000_000,
                dimensions: &[16, 16],
                element: ElementType::Uint8,
                data: &data,
                attributes: &attributes,
            },
        );
        let bytes = b.finished_data();
        assert_eq!(bytes.len(), len);
        assert_eq!(&bytes[4..8], b"ad00");
        let Ok(Decoded::Array(a)) = decode(bytes) else {
            panic!("not an array")
        };
        assert_eq!(a.source_name, "cam");
        assert_eq!(a.id, 7);
        assert_eq!(a.timestamp_ns, 1_700_000_000_000_000_000);
        assert_eq!(a.dimensions, [16, 16]);
        assert_eq!(a.element, Some(ElementType::Uint8));
        assert_eq!(a.data, data.as_slice());
        assert_eq!(a.u64_attribute("complete"), Some(1));
        assert_eq!(a.text_attribute("missing"), Some("10-20"));
    }

    #[test]
    fn a_counter_round_trips() {
        let mut b = MessageBuilder::new();
        let bytes = encode_counter(&mut b, "cam:kafka_messages", 5, 42);
        assert_eq!(
            decode(&bytes),
            Ok(Decoded::Counter(DecodedCounter {
                source_name: "cam:kafka_messages".into(),
                timestamp_ns: 5,
                value: 42
            }))
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert_eq!(decode(b"abc"), Err(DecodeError::TooShort(3)));
        assert!(matches!(
            decode(b"\0\0\0\0xxxx"),
            Err(DecodeError::Schema(_))
        ));
        let mut b = MessageBuilder::new();
        let bytes = encode_counter(&mut b, "x", 1, 2);
        for cut in 0..bytes.len() {
            let _ = decode(&bytes[..cut]);
        }
        let mut flipped = bytes.clone();
        for i in 8..flipped.len() {
            flipped[i] ^= 0xff;
            let _ = decode(&flipped);
            flipped[i] ^= 0xff;
        }
    }
}
