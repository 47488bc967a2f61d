//! A grab buffer as an ESS `ad00` message: the frame mapping every
//! front end that forwards frames shares (the CLI's `grab --to`, and any
//! program over the grab library).

use linerate_grab::stream::Buffer;
use linerate_wire::pixel_format::PixelFormat;

use crate::forwarder::{Forward, ForwardError, Handed};
use crate::messages::{unix_now_ns, ArrayMessage, AttributeValue, ElementType};

/// The byte ranges a frame lacks, as `a-b,c-d` (end exclusive).
fn missing_ranges(buffer: &Buffer) -> String {
    buffer
        .missing()
        .iter()
        .map(|r| format!("{}-{}", r.start, r.end))
        .collect::<Vec<_>>()
        .join(",")
}

/// Hands one grab buffer to the forwarder as ad00: `[height, width]` of
/// uint8 or uint16 for the pixel formats that are plain arrays, the raw
/// bytes `[size]` of uint8 otherwise.
pub fn forward_frame(
    forward: &Forward,
    source_name: &str,
    buffer: &Buffer,
) -> Result<Handed, ForwardError> {
    let info = buffer.info();
    let data = buffer.data().get(..info.size).unwrap_or(buffer.data());
    let (element, dims) = match info.pixel_format {
        Some(p @ (PixelFormat::MONO8 | PixelFormat::BAYER_RG8 | PixelFormat::BAYER_GR8))
            if p.image_bytes(info.width, info.height) == Some(data.len() as u64) =>
        {
            (
                ElementType::Uint8,
                vec![i64::from(info.height), i64::from(info.width)],
            )
        }
        Some(p @ (PixelFormat::MONO10 | PixelFormat::MONO12 | PixelFormat::MONO16))
            if p.image_bytes(info.width, info.height) == Some(data.len() as u64) =>
        {
            (
                ElementType::Uint16,
                vec![i64::from(info.height), i64::from(info.width)],
            )
        }
        _ => (ElementType::Uint8, vec![data.len() as i64]),
    };
    let mut attributes = vec![
        ("block_id", AttributeValue::U64(info.block_id)),
        (
            "complete",
            AttributeValue::U64(u64::from(buffer.is_complete())),
        ),
        ("camera_timestamp", AttributeValue::U64(info.timestamp)),
    ];
    if !buffer.is_complete() {
        attributes.push(("missing", AttributeValue::Text(missing_ranges(buffer))));
    }
    if let Some(name) = info.pixel_format.and_then(PixelFormat::name) {
        attributes.push(("pixel_format", AttributeValue::Text(name.to_string())));
    }
    forward.array(
        info.block_id,
        &ArrayMessage {
            source_name,
            id: info.block_id as i32,
            timestamp_ns: unix_now_ns(),
            dimensions: &dims,
            element,
            data,
            attributes: &attributes,
        },
    )
}
