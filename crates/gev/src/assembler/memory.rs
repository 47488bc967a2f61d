//! The memory a frame is assembled in: a buffer the assembler's user owns
//! (`Vec<u8>`), or memory lent by someone else for as long as the
//! assembler holds it (a GenTL consumer's own buffer, which the receive
//! path then fills directly instead of a pool buffer copied out later).

use core::fmt::Debug;
use core::ops::{Deref, DerefMut};

/// Memory lent to the assembler by its owner: the assembler writes frames
/// into it and hands it back with the frame. Whoever implements it answers
/// for the memory staying valid, and untouched by others, while lent.
pub trait LentMemory: Send + Sync + Debug {
    /// The lender's name for this memory (a buffer handle), so it knows
    /// which of its buffers a delivered frame filled.
    fn id(&self) -> u64;
    /// The memory, read-only.
    fn bytes(&self) -> &[u8];
    /// The memory, to write frames into.
    fn bytes_mut(&mut self) -> &mut [u8];
}

/// A frame buffer: owned, or lent (see [`LentMemory`]). Derefs to its
/// bytes, so the assembler treats both alike.
#[derive(Debug)]
pub enum FrameMemory {
    /// Memory the buffer's holder owns.
    Owned(Vec<u8>),
    /// Memory lent for the time the buffer is in use.
    Lent(Box<dyn LentMemory>),
}

impl FrameMemory {
    /// Makes an owned buffer exactly `len` bytes long. Lent memory keeps
    /// its length (a shorter one gets incomplete frames, never a write
    /// past its end).
    pub fn fit(&mut self, len: usize) {
        if let FrameMemory::Owned(v) = self {
            if v.len() != len {
                v.resize(len, 0);
            }
        }
    }

    /// The owned vector, or `None` for lent memory.
    pub fn into_vec(self) -> Option<Vec<u8>> {
        match self {
            FrameMemory::Owned(v) => Some(v),
            FrameMemory::Lent(_) => None,
        }
    }

    /// The lent memory, or `None` for an owned buffer.
    pub fn into_lent(self) -> Option<Box<dyn LentMemory>> {
        match self {
            FrameMemory::Owned(_) => None,
            FrameMemory::Lent(m) => Some(m),
        }
    }
}

impl Default for FrameMemory {
    fn default() -> FrameMemory {
        FrameMemory::Owned(Vec::new())
    }
}

impl From<Vec<u8>> for FrameMemory {
    fn from(v: Vec<u8>) -> FrameMemory {
        FrameMemory::Owned(v)
    }
}

impl From<Box<dyn LentMemory>> for FrameMemory {
    fn from(m: Box<dyn LentMemory>) -> FrameMemory {
        FrameMemory::Lent(m)
    }
}

impl Deref for FrameMemory {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FrameMemory::Owned(v) => v,
            FrameMemory::Lent(m) => m.bytes(),
        }
    }
}

impl DerefMut for FrameMemory {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            FrameMemory::Owned(v) => v,
            FrameMemory::Lent(m) => m.bytes_mut(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Borrowed(u64, Vec<u8>);

    impl LentMemory for Borrowed {
        fn id(&self) -> u64 {
            self.0
        }
        fn bytes(&self) -> &[u8] {
            &self.1
        }
        fn bytes_mut(&mut self) -> &mut [u8] {
            &mut self.1
        }
    }

    #[test]
    fn owned_memory_is_resized_and_lent_memory_is_not() {
        let mut owned = FrameMemory::from(vec![1u8; 3]);
        owned.fit(5);
        assert_eq!(&*owned, &[1, 1, 1, 0, 0]);
        let mut lent = FrameMemory::from(Box::new(Borrowed(7, vec![2; 3])) as Box<dyn LentMemory>);
        lent.fit(5);
        assert_eq!(lent.len(), 3);
        lent[0] = 9;
        let back = lent.into_lent().expect("lent");
        assert_eq!((back.id(), back.bytes()), (7, &[9u8, 2, 2][..]));
        assert!(owned.into_lent().is_none());
    }
}
