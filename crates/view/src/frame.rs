//! The latest-frame slot between a stream and the display: the stream side
//! hands over a frame (a lent buffer, or a copy made off the receive
//! thread) only when the display asked for one, and never waits on a lock.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwapOption;
use linerate_wire::PixelFormat;

/// Pixel memory a frame holds: a `Vec`, or a stream's buffer that goes
/// back to its stream when the frame is dropped.
pub type Pixels = Box<dyn AsRef<[u8]> + Send + Sync>;

/// One frame as the view sees it: the image bytes as the camera sent
/// them, with their layout and which byte ranges never arrived.
pub struct Frame {
    /// Width in pixels.
    pub width: u32,
    /// Height in lines.
    pub height: u32,
    /// The camera's pixel format (PFNC code).
    pub format: PixelFormat,
    /// The camera's frame id.
    pub block_id: u64,
    /// Byte ranges that never arrived (empty for a complete frame).
    pub missing: Vec<Range<usize>>,
    /// The image bytes, row after row without padding.
    pub pixels: Pixels,
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("format", &self.format)
            .field("block_id", &self.block_id)
            .field("missing", &self.missing)
            .finish_non_exhaustive()
    }
}

impl Frame {
    /// The image bytes.
    pub fn data(&self) -> &[u8] {
        (*self.pixels).as_ref()
    }

    /// True when every byte arrived.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }

    /// Whether any byte of rows `rows` is missing (or beyond the bytes
    /// held), for `stride`-byte rows.
    pub fn rows_missing(&self, rows: Range<usize>, stride: usize) -> bool {
        let start = rows.start * stride;
        let end = rows.end * stride;
        end > self.data().len() || self.missing.iter().any(|m| m.start < end && start < m.end)
    }
}

/// The slot both sides share.
#[derive(Default)]
pub(crate) struct Slot {
    latest: ArcSwapOption<Frame>,
    wanted: AtomicBool,
    sequence: AtomicU64,
}

impl Slot {
    /// A new slot that wants its first frame.
    pub fn new() -> Arc<Slot> {
        let slot = Slot::default();
        slot.wanted.store(true, Ordering::Relaxed);
        Arc::new(slot)
    }

    /// The latest frame and its sequence number (0: none yet).
    pub fn latest(&self) -> (u64, Option<Arc<Frame>>) {
        let frame = self.latest.load_full();
        (self.sequence.load(Ordering::Acquire), frame)
    }

    /// Asks the stream side for the next frame.
    pub fn want(&self) {
        self.wanted.store(true, Ordering::Release);
    }
}

/// The stream side of the slot: cheap to clone, never blocks.
#[derive(Clone)]
pub struct FramePublisher {
    slot: Arc<Slot>,
}

impl std::fmt::Debug for FramePublisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FramePublisher").finish_non_exhaustive()
    }
}

impl FramePublisher {
    pub(crate) fn new(slot: Arc<Slot>) -> FramePublisher {
        FramePublisher { slot }
    }

    /// True when the display is ready for a new frame: hand one over then
    /// (at the display rate), keep the buffer otherwise.
    pub fn wants_frame(&self) -> bool {
        self.slot.wanted.load(Ordering::Acquire)
    }

    /// Replaces the latest frame. The frame it replaces is dropped here or
    /// by the display, whichever lets go last; no lock is taken.
    pub fn publish(&self, frame: Frame) {
        self.slot.wanted.store(false, Ordering::Release);
        self.slot.latest.store(Some(Arc::new(frame)));
        self.slot.sequence.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(missing: Vec<Range<usize>>) -> Frame {
        Frame {
            width: 4,
            height: 4,
            format: PixelFormat::MONO8,
            block_id: 1,
            missing,
            pixels: Box::new(vec![0u8; 16]),
        }
    }

    #[test]
    fn a_published_frame_is_the_latest_and_the_slot_stops_wanting() {
        let slot = Slot::new();
        let publisher = FramePublisher::new(slot.clone());
        assert!(publisher.wants_frame());
        assert_eq!(slot.latest().0, 0);
        publisher.publish(frame(vec![]));
        assert!(!publisher.wants_frame());
        let (seq, latest) = slot.latest();
        assert_eq!(seq, 1);
        assert_eq!(latest.map(|f| f.block_id), Some(1));
        slot.want();
        assert!(publisher.wants_frame());
    }

    #[test]
    fn missing_rows_are_found_by_byte_range() {
        let f = frame(std::iter::once(5..6).collect());
        assert!(!f.rows_missing(0..1, 4));
        assert!(f.rows_missing(1..2, 4));
        assert!(!f.rows_missing(2..4, 4));
        assert!(f.rows_missing(4..5, 4), "rows past the data are missing");
    }
}
