//! The verifiable test stream a board emulator sends: consecutive
//! little-endian `u64` counters, so byte `n` of the stream is byte `n % 8`
//! of the counter `n / 8`.
//!
//! Any loss, duplication, reordering or restart shows up as a counter that
//! is not the one its position predicts, and a receiver can check a slice
//! of the stream knowing only where the slice starts.

/// Bytes per counter.
pub const WORD: u64 = 8;

/// Fills `buf` with the stream bytes starting at stream offset `offset`.
pub fn fill(offset: u64, buf: &mut [u8]) {
    // Byte by byte up to a word boundary, then whole words.
    let lead = (((WORD - offset % WORD) % WORD) as usize).min(buf.len());
    let (head, rest) = buf.split_at_mut(lead);
    for (i, b) in head.iter_mut().enumerate() {
        *b = byte_at(offset + i as u64);
    }
    let mut word = (offset + lead as u64) / WORD;
    let mut chunks = rest.chunks_exact_mut(WORD as usize);
    for c in &mut chunks {
        c.copy_from_slice(&word.to_le_bytes());
        word = word.wrapping_add(1);
    }
    for (i, b) in chunks.into_remainder().iter_mut().enumerate() {
        *b = word.to_le_bytes()[i];
    }
}

/// The stream byte at `offset`.
pub fn byte_at(offset: u64) -> u8 {
    let word = offset / WORD;
    word.to_le_bytes()[(offset % WORD) as usize]
}

/// Checks `data` against the stream starting at `offset`; returns the
/// number of 8-byte words (or partial words at either end) that differ, 0
/// when the slice is exactly what the stream says.
pub fn mismatches(offset: u64, data: &[u8]) -> u64 {
    let mut bad = 0u64;
    let mut pos = 0usize;
    // Leading partial word, byte by byte.
    while pos < data.len() && (offset + pos as u64) % WORD != 0 {
        if data[pos] != byte_at(offset + pos as u64) {
            bad += 1;
        }
        pos += 1;
    }
    let mut chunks = data[pos..].chunks_exact(WORD as usize);
    let mut word = (offset + pos as u64) / WORD;
    for c in &mut chunks {
        // chunks_exact yields exactly 8 bytes.
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        if u64::from_le_bytes(w) != word {
            bad += 1;
        }
        word = word.wrapping_add(1);
    }
    let rest = chunks.remainder();
    let rest_at = offset + (data.len() - rest.len()) as u64;
    if rest
        .iter()
        .enumerate()
        .any(|(i, &b)| b != byte_at(rest_at + i as u64))
    {
        bad += 1;
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counters_are_little_endian_words() {
        let mut b = [0u8; 24];
        fill(8, &mut b);
        assert_eq!(&b[..8], &1u64.to_le_bytes());
        assert_eq!(&b[8..16], &2u64.to_le_bytes());
        assert_eq!(mismatches(8, &b), 0);
        assert_eq!(mismatches(16, &b), 3);
    }

    proptest! {
        #[test]
        fn any_slice_verifies_and_any_flip_is_seen(
            offset in 0u64..1 << 40, len in 1usize..200, flip in any::<usize>()
        ) {
            let mut b = vec![0u8; len];
            fill(offset, &mut b);
            let slow: Vec<u8> = (0..len as u64).map(|i| byte_at(offset + i)).collect();
            prop_assert_eq!(&b, &slow);
            prop_assert_eq!(mismatches(offset, &b), 0);
            b[flip % len] ^= 0x40;
            prop_assert!(mismatches(offset, &b) >= 1);
        }
    }
}
