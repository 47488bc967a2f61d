//! Memory lent to the grab engine: a buffer's bytes as a raw view, which
//! the engine receives frames straight into.

use linerate_grab::stream::LentMemory;

/// A buffer's memory lent to the grab engine, which receives frames
/// straight into it.
#[derive(Debug)]
struct LentView {
    id: u64,
    base: usize,
    len: usize,
}

/// Lends the `len` bytes at `base` (a buffer's memory: the consumer's, or
/// ours) to the grab engine under buffer handle `id`.
///
/// The data stream keeps the promise [`LentMemory`] asks for: a lent
/// buffer cannot be revoked or freed until the engine has given it back
/// or stopped (its receive thread joined), and the consumer does not touch
/// a queued buffer's memory until `EventGetData` hands it over.
pub(crate) fn lend_view(id: u64, base: usize, len: usize) -> Box<dyn LentMemory> {
    Box::new(LentView { id, base, len })
}

impl LentMemory for LentView {
    fn id(&self) -> u64 {
        self.id
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: see `lend_view`: `base` holds `len` bytes that nobody
        // else writes while the engine holds this view.
        unsafe { std::slice::from_raw_parts(self.base as *const u8, self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`; the engine is the view's only user.
        unsafe { std::slice::from_raw_parts_mut(self.base as *mut u8, self.len) }
    }
}
