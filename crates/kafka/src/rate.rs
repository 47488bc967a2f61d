//! The forwarder's own pace, with no receiver in front of it: stamped
//! test-pattern frames handed over as fast as the forwarder takes them.
//! `linerate bench kafka` runs it beside Apache Kafka's producer benchmark
//! (same record size, broker and topic settings); the `forward_rate`
//! example runs it from the command line.

use linerate_gev::test_pattern::{self, PatternError};

use crate::forwarder::{self, ForwardError, ForwarderConfig, ForwarderReport};
use crate::messages::{ArrayMessage, AttributeValue, ElementType};

/// Distinct frames made up front and reused in turn: the forwarder's cost,
/// not the pattern generator's, is what is measured.
const POOL: u64 = 4;

/// Why a rate run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RateError {
    /// A frame too short to carry the pattern's stamp.
    #[error("a {size}-byte frame cannot carry the test pattern: {source}")]
    Pattern {
        /// The frame size asked for.
        size: usize,
        /// What the pattern said.
        #[source]
        source: PatternError,
    },
    /// The forwarder could not start or stopped.
    #[error(transparent)]
    Forward(#[from] ForwardError),
}

/// Forwards `frames` stamped frames of `size` bytes as ad00 `[size]` uint8
/// arrays (ids 0, 1, ...) and returns the forwarder's report once every one
/// was delivered or failed.
pub fn forward_pattern_frames(
    config: ForwarderConfig,
    frames: u64,
    size: usize,
) -> Result<ForwarderReport, RateError> {
    let pool: Vec<Vec<u8>> = (0..POOL)
        .map(|n| {
            let mut f = vec![0u8; size];
            test_pattern::fill(n, &mut f).map(|()| f)
        })
        .collect::<Result<_, _>>()
        .map_err(|source| RateError::Pattern { size, source })?;
    let source_name = config.source_name.clone();
    let handle = forwarder::spawn(config)?;
    let forward = handle.forward();
    for (id, data) in (0..frames).zip(pool.iter().cycle()) {
        forward.array(
            id,
            &ArrayMessage {
                source_name: &source_name,
                id: id as i32,
                timestamp_ns: 0,
                dimensions: &[size as i64],
                element: ElementType::Uint8,
                data,
                attributes: &[("block_id", AttributeValue::U64(id))],
            },
        )?;
    }
    Ok(handle.finish()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_too_short_for_the_stamp_is_refused_before_connecting() {
        let target = "kafka://127.0.0.1:1/t".parse().expect("target");
        let e = forward_pattern_frames(ForwarderConfig::new(target, "t"), 1, 4)
            .expect_err("4 bytes hold no stamp");
        assert!(e.to_string().contains("4-byte frame"), "{e}");
    }
}
