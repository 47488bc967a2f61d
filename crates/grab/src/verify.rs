//! End-to-end checks of received frames against the pattern the camera
//! is known to send, so "complete" is proven, not assumed.
//!
//! * linerate's emulated camera stamps every frame with a frame number and
//!   a CRC-32 of its pixels (`linerate_gev::test_pattern`); frame numbers
//!   must also increase from frame to frame.
//! * Aravis's fake camera (`arv-fake-gv-camera-0.8`) fills Mono8 frames with
//!   a diagonal ramp: pixel (x, y) is `(x + y + f) mod 255` for the frame's
//!   counter `f` (at default gain and exposure, where its scale factor is 1).

use linerate_gev::test_pattern;

use crate::stream::Buffer;

/// Which pattern the camera sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// linerate's stamped, checksummed frames.
    Linerate,
    /// Aravis fake camera's diagonal ramp (Mono8).
    AravisRamp,
}

/// Why a frame failed verification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The stamp or checksum is wrong.
    #[error("block {block_id}: {source}")]
    Stamp {
        /// The frame's block id.
        block_id: u64,
        /// What the pattern check found.
        #[source]
        source: test_pattern::PatternError,
    },
    /// The frame number does not belong to this block id: data of another
    /// frame was delivered under this block's id.
    #[error("block {block_id}: carries frame number {found}, expected {expected}")]
    WrongFrame {
        /// The frame's block id.
        block_id: u64,
        /// Number found in the frame.
        found: u64,
        /// Number the block id implies.
        expected: u64,
    },
    /// A ramp pixel differs.
    #[error("block {block_id}: pixel ({x}, {y}) is {found}, the ramp says {expected}")]
    Ramp {
        /// The frame's block id.
        block_id: u64,
        /// Column.
        x: usize,
        /// Line.
        y: usize,
        /// Value found.
        found: u8,
        /// Value expected.
        expected: u8,
    },
    /// The frame's geometry does not match its size.
    #[error("block {block_id}: {width}x{height} Mono8 does not fit {size} bytes")]
    Geometry {
        /// The frame's block id.
        block_id: u64,
        /// Width from the leader.
        width: u32,
        /// Height from the leader.
        height: u32,
        /// Bytes in the frame.
        size: usize,
    },
}

/// Checks frames one after another.
///
/// Frames are delivered in the order they complete, which is not the
/// camera's order when one waits for a resend, so the frame number is not
/// checked for increase but against the block id: the camera numbers both
/// in step, so `block_id - frame_number` stays the same (modulo the 65535
/// standard block ids).
#[derive(Debug, Clone)]
pub struct Verifier {
    pattern: Pattern,
    offset: Option<u64>,
}

/// Standard block ids run 1..=65535, so offsets agree modulo this.
const STANDARD_BLOCK_IDS: u64 = 65_535;

impl Verifier {
    /// A verifier for `pattern`.
    pub fn new(pattern: Pattern) -> Verifier {
        Verifier {
            pattern,
            offset: None,
        }
    }

    /// Checks one complete frame.
    pub fn check(&mut self, buffer: &Buffer) -> Result<(), VerifyError> {
        let block_id = buffer.info().block_id;
        match self.pattern {
            Pattern::Linerate => {
                let n = test_pattern::verify(buffer.data())
                    .map_err(|source| VerifyError::Stamp { block_id, source })?;
                let offset = block_id.wrapping_sub(n);
                match self.offset {
                    None => self.offset = Some(offset),
                    Some(o) if offset.wrapping_sub(o) % STANDARD_BLOCK_IDS == 0 => {}
                    Some(o) => {
                        return Err(VerifyError::WrongFrame {
                            block_id,
                            found: n,
                            expected: block_id.wrapping_sub(o),
                        })
                    }
                }
                Ok(())
            }
            Pattern::AravisRamp => check_ramp(buffer),
        }
    }
}

fn check_ramp(buffer: &Buffer) -> Result<(), VerifyError> {
    let info = buffer.info();
    let (w, h) = (info.width as usize, info.height as usize);
    let data = buffer.data();
    let block_id = info.block_id;
    if w == 0 || w.checked_mul(h) != Some(data.len()) {
        return Err(VerifyError::Geometry {
            block_id,
            width: info.width,
            height: info.height,
            size: data.len(),
        });
    }
    let start = usize::from(data.first().copied().unwrap_or(0));
    // Row y is the sequence 0, 1, ..., 254, 0, ... starting at (y + start)
    // mod 255: compare each row as one slice of a precomputed run.
    let run: Vec<u8> = (0..w + 255).map(|i| (i % 255) as u8).collect();
    for (y, line) in data.chunks_exact(w).enumerate() {
        let from = (y + start) % 255;
        let expected = &run[from..from + w];
        if line != expected {
            let x = line
                .iter()
                .zip(expected)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(VerifyError::Ramp {
                block_id,
                x,
                y,
                found: line.get(x).copied().unwrap_or(0),
                expected: expected.get(x).copied().unwrap_or(0),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::Buffer;

    fn ramp(w: usize, h: usize, f: usize) -> Vec<u8> {
        (0..h)
            .flat_map(|y| (0..w).map(move |x| ((x + y + f) % 255) as u8))
            .collect()
    }

    #[test]
    fn ramp_passes_and_a_changed_pixel_is_found() {
        let (w, h) = (300, 7);
        let good = Buffer::test_frame(ramp(w, h, 42), w as u32, h as u32);
        assert_eq!(check_ramp(&good), Ok(()));
        let mut bad = ramp(w, h, 42);
        bad[3 * w + 17] ^= 1;
        let bad = Buffer::test_frame(bad, w as u32, h as u32);
        assert!(matches!(
            check_ramp(&bad),
            Err(VerifyError::Ramp { x: 17, y: 3, .. })
        ));
    }
}
