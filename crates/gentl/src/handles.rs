//! Checked handles: every handle the producer gives out is a key into one
//! table, never a pointer, and is never reused, so a stale, foreign or
//! made-up handle is found missing (`GC_ERR_INVALID_HANDLE`) instead of
//! being dereferenced.

use std::collections::HashMap;

/// The first handle given out: a tag in the high bits makes handles
/// unlike small integers and heap pointers a caller might pass by mistake.
const FIRST: u64 = 0x4c52_0000_0000_0010;
/// Handles advance by this much (the low bits stay clear).
const STEP: u64 = 0x10;

/// Live objects by handle.
#[derive(Debug)]
pub struct Handles<T> {
    next: u64,
    live: HashMap<u64, T>,
}

impl<T> Default for Handles<T> {
    fn default() -> Self {
        Handles {
            next: FIRST,
            live: HashMap::new(),
        }
    }
}

impl<T: Clone> Handles<T> {
    /// Stores `object` under a handle never given out before.
    pub fn insert(&mut self, object: T) -> u64 {
        let handle = self.next;
        self.next = self.next.wrapping_add(STEP).max(FIRST);
        self.live.insert(handle, object);
        handle
    }

    /// The object `handle` names, if it is live.
    pub fn get(&self, handle: u64) -> Option<T> {
        self.live.get(&handle).cloned()
    }

    /// Takes `handle` out of the table (it is stale from now on).
    pub fn remove(&mut self, handle: u64) -> Option<T> {
        self.live.remove(&handle)
    }

    /// The live handles whose objects satisfy `pick`.
    pub fn find(&self, mut pick: impl FnMut(&T) -> bool) -> Vec<u64> {
        let mut found: Vec<u64> = self
            .live
            .iter()
            .filter(|(_, o)| pick(o))
            .map(|(&h, _)| h)
            .collect();
        found.sort_unstable();
        found
    }

    /// Empties the table, giving the objects back (handles stay unused).
    pub fn drain(&mut self) -> Vec<T> {
        self.live.drain().map(|(_, o)| o).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_removed_handle_is_stale_and_never_reused() {
        let mut table = Handles::default();
        let a = table.insert("a");
        assert_eq!(table.get(a), Some("a"));
        assert_eq!(table.remove(a), Some("a"));
        assert_eq!(table.get(a), None);
        let b = table.insert("b");
        assert_ne!(a, b);
        assert_eq!(table.get(a), None);
        assert_eq!(table.get(0), None);
        assert_eq!(table.find(|o| *o == "b"), vec![b]);
    }
}
