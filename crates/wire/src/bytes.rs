//! Big-endian accessors used by the views after their length check.
//!
//! Callers must have checked that `buf` covers the offsets they pass; the
//! views do so in `new_checked`, which is why these helpers may index.

#[inline]
pub(crate) fn be_u16(buf: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([buf[at], buf[at + 1]])
}

#[inline]
pub(crate) fn be_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

#[inline]
pub(crate) fn be_u64(buf: &[u8], at: usize) -> u64 {
    (u64::from(be_u32(buf, at)) << 32) | u64::from(be_u32(buf, at + 4))
}

#[inline]
pub(crate) fn put_u16(buf: &mut [u8], at: usize, v: u16) {
    buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

#[inline]
pub(crate) fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

#[inline]
pub(crate) fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_big_endian() {
        let mut b = [0u8; 8];
        put_u64(&mut b, 0, 0x0102_0304_0506_0708);
        assert_eq!(b, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(be_u64(&b, 0), 0x0102_0304_0506_0708);
        assert_eq!(be_u32(&b, 4), 0x0506_0708);
        assert_eq!(be_u16(&b, 6), 0x0708);
        put_u32(&mut b, 0, 0xdead_beef);
        put_u16(&mut b, 4, 0xcafe);
        assert_eq!(&b[..6], &[0xde, 0xad, 0xbe, 0xef, 0xca, 0xfe]);
    }
}
