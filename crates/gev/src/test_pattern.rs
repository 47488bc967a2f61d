//! The linerate test pattern: frames that prove their own integrity.
//!
//! Every emulated frame starts with a 16-byte stamp, so a host can verify
//! each delivered frame end to end (see `docs/test-pattern.md`):
//!
//! | offset | size | content |
//! |-------:|-----:|---------|
//! | 0 | 4 | ASCII `LRTP` |
//! | 4 | 8 | frame number, u64 big-endian |
//! | 12 | 4 | CRC-32 (IEEE) of bytes 16..end, big-endian |
//! | 16 | .. | pixel bytes: byte `i` (from the frame start) is `(i + frame) mod 251` |
//!
//! The pixel bytes depend on the frame number, so data landing in the wrong
//! frame fails the check, and 251 (prime) keeps the pattern from lining up
//! with power-of-two packet sizes.

/// Bytes of the stamp at the start of each frame.
pub const STAMP_LEN: usize = 16;

const MAGIC: &[u8; 4] = b"LRTP";

/// Why a frame fails verification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// The frame is too short to carry a stamp.
    #[error("frame of {0} bytes is shorter than the {STAMP_LEN}-byte stamp")]
    TooShort(usize),
    /// The first four bytes are not `LRTP`.
    #[error("frame does not start with the LRTP stamp (found {0:02x?})")]
    NoStamp([u8; 4]),
    /// The CRC over the pixels does not match the stamp.
    #[error("frame {frame}: CRC {computed:#010x} does not match stamped {stamped:#010x}")]
    Checksum {
        /// Frame number from the stamp.
        frame: u64,
        /// CRC stored in the stamp.
        stamped: u32,
        /// CRC of the bytes received.
        computed: u32,
    },
    /// The pixels do not follow the pattern for this frame number.
    #[error("frame {frame}: byte {offset} is {found}, pattern says {expected}")]
    Pattern {
        /// Frame number from the stamp.
        frame: u64,
        /// First offset that differs.
        offset: usize,
        /// Byte found.
        found: u8,
        /// Byte expected.
        expected: u8,
    },
}

/// One period of the pattern: byte i is i (i < 251).
fn cycle() -> &'static [u8; 251] {
    static CYCLE: std::sync::OnceLock<[u8; 251]> = std::sync::OnceLock::new();
    CYCLE.get_or_init(|| {
        let mut c = [0u8; 251];
        for (i, b) in c.iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        c
    })
}

/// Writes the pixel bytes (offset 16 onwards) for `frame_number`, by copying
/// whole periods, which runs at memcpy speed.
fn fill_pixels(frame_number: u64, frame: &mut [u8]) {
    let start = (frame_number % 251) as usize;
    let c = cycle();
    let mut i = STAMP_LEN;
    while i < frame.len() {
        let phase = (i + start) % 251;
        let n = (251 - phase).max(1).min(frame.len() - i);
        let n = if phase == 0 {
            251.min(frame.len() - i)
        } else {
            n
        };
        frame[i..i + n].copy_from_slice(&c[phase..phase + n]);
        i += n;
    }
}

/// Fills `frame` with a gradient that moves one pixel per frame, for people
/// watching the stream: byte `(x, y)` of a `line_bytes`-wide image is
/// `(x + y + frame_number) mod 256`. The 16-byte stamp (number and CRC)
/// still opens the frame, so [`verify`] works; [`verify_pixels`] does not.
pub fn fill_gradient(
    frame_number: u64,
    line_bytes: usize,
    frame: &mut [u8],
) -> Result<(), PatternError> {
    if frame.len() < STAMP_LEN {
        return Err(PatternError::TooShort(frame.len()));
    }
    let line_bytes = line_bytes.max(1);
    let shift = (frame_number % 256) as usize;
    for (y, line) in frame.chunks_mut(line_bytes).enumerate() {
        for (x, b) in line.iter_mut().enumerate() {
            *b = ((x + y + shift) % 256) as u8;
        }
    }
    stamp(frame_number, frame)
}

/// Fills `frame` with the pattern for `frame_number`, stamp included.
pub fn fill(frame_number: u64, frame: &mut [u8]) -> Result<(), PatternError> {
    if frame.len() < STAMP_LEN {
        return Err(PatternError::TooShort(frame.len()));
    }
    fill_pixels(frame_number, frame);
    stamp(frame_number, frame)
}

/// Generates pattern frames fast: the pixels of frame `n` depend only on
/// `n mod 251` and the length, so their CRC is computed once per phase and
/// cached; each frame then costs one memcpy-speed fill and a 16-byte stamp.
#[derive(Debug)]
pub struct Generator {
    len: usize,
    crcs: PhaseCrcs,
}

impl Generator {
    /// A generator for frames of `len` bytes.
    pub fn new(len: usize) -> Result<Generator, PatternError> {
        if len < STAMP_LEN {
            return Err(PatternError::TooShort(len));
        }
        Ok(Generator {
            len,
            crcs: PhaseCrcs::new(len),
        })
    }

    /// Frame length this generator makes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: frames hold at least the stamp.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes frame `frame_number` into `frame[..len]`. When `frame`
    /// already holds a frame of the same phase (`frame_number mod 251`), pass
    /// `pixels_valid = true` and only the stamp is rewritten.
    pub fn write(
        &mut self,
        frame_number: u64,
        frame: &mut [u8],
        pixels_valid: bool,
    ) -> Result<(), PatternError> {
        let got = frame.len();
        let frame = frame
            .get_mut(..self.len)
            .ok_or(PatternError::TooShort(got))?;
        if !pixels_valid {
            fill_pixels(frame_number, frame);
        }
        let crc = self.crcs.get(frame_number);
        frame[..STAMP_LEN].copy_from_slice(&stamp_bytes(frame_number, crc));
        Ok(())
    }
}

/// Pattern bytes one [`PatternStrip`] slice carries at most: 512 periods
/// (125.5 KiB), about what iperf3 writes per call, so the strip stays in a
/// core's L2 cache.
pub const STRIP_SPAN: usize = 251 * 512;

/// Every pattern frame of one length, served from one small buffer instead
/// of being drawn.
///
/// Pixel byte `i` of frame `n` is `(i + n) mod 251`, so any run of a frame's
/// pixels is a run of the one periodic sequence `j mod 251`, entered at
/// `(i + n) mod 251`. A sender that gathers its sends (iovecs) can thus send
/// the pixels of every frame from one strip of [`STRIP_SPAN`] + 250 bytes
/// that stays in cache, the way iperf3 sends one buffer over and over; only
/// the 16-byte stamp differs from frame to frame. The bytes on the wire are
/// exactly those [`fill`] writes. The CRC of a phase is combined from the
/// CRC of one period (a logarithmic number of steps), so no frame is ever
/// read to stamp it.
#[derive(Debug)]
pub struct PatternStrip {
    len: usize,
    strip: Vec<u8>,
    crcs: PhaseCrcs,
}

impl PatternStrip {
    /// The strip for frames of `len` bytes (stamp included).
    pub fn new(len: usize) -> Result<PatternStrip, PatternError> {
        if len < STAMP_LEN {
            return Err(PatternError::TooShort(len));
        }
        let strip = (0..STRIP_SPAN + 250).map(|j| (j % 251) as u8).collect();
        Ok(PatternStrip {
            len,
            strip,
            crcs: PhaseCrcs::new(len),
        })
    }

    /// Frame length, stamp included.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: frames hold at least the stamp.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The 16-byte stamp of frame `frame_number`: magic, number and the CRC
    /// of its pixels.
    pub fn stamp(&mut self, frame_number: u64) -> [u8; STAMP_LEN] {
        stamp_bytes(frame_number, self.crcs.get(frame_number))
    }

    /// Frame `frame_number`'s bytes in `range`, pixels only: bytes below
    /// [`STAMP_LEN`] (the stamp's) and past the frame's end are left out.
    /// Yields slices of the strip, each at most [`STRIP_SPAN`] long, that
    /// laid end to end are those bytes.
    pub fn pixels(&self, frame_number: u64, range: std::ops::Range<usize>) -> PixelSlices<'_> {
        PixelSlices {
            strip: &self.strip,
            shift: (frame_number % 251) as usize,
            at: range.start.max(STAMP_LEN),
            end: range.end.min(self.len),
        }
    }
}

/// The slices [`PatternStrip::pixels`] yields.
#[derive(Debug, Clone)]
pub struct PixelSlices<'a> {
    strip: &'a [u8],
    shift: usize,
    at: usize,
    end: usize,
}

impl<'a> Iterator for PixelSlices<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.at >= self.end {
            return None;
        }
        let entry = (self.at + self.shift) % 251;
        let n = (self.end - self.at).min(STRIP_SPAN);
        self.at += n;
        self.strip.get(entry..entry + n)
    }
}

/// The CRC-32 of a frame's pixels for each of the 251 phases, for frames of
/// one length. Each is computed once, by combining the CRC of one period
/// with itself (a logarithmic number of steps), so no frame is ever read
/// to stamp it.
#[derive(Debug, Clone)]
struct PhaseCrcs {
    /// Pixel bytes per frame (the length less the stamp).
    pixels: usize,
    cache: Vec<Option<u32>>,
}

impl PhaseCrcs {
    /// For frames of `len` bytes, stamp included.
    fn new(len: usize) -> PhaseCrcs {
        PhaseCrcs {
            pixels: len.saturating_sub(STAMP_LEN),
            cache: vec![None; 251],
        }
    }

    /// The CRC of frame `frame_number`'s pixels.
    fn get(&mut self, frame_number: u64) -> u32 {
        let phase = (frame_number % 251) as usize;
        if let Some(c) = self.cache.get(phase).copied().flatten() {
            return c;
        }
        let c = pixel_crc(self.pixels, phase);
        if let Some(slot) = self.cache.get_mut(phase) {
            *slot = Some(c);
        }
        c
    }
}

/// CRC-32 of `pixels` pattern bytes from offset 16 of a frame of phase
/// `phase`: whole periods (all entered at the same point, so in any order)
/// by doubling, then the rest.
fn pixel_crc(pixels: usize, phase: usize) -> u32 {
    let c = cycle();
    let entry = (STAMP_LEN + phase) % 251;
    // `n` bytes of the sequence from `entry`, wrapping round the period.
    let run = |n: usize| {
        let mut h = crc32fast::Hasher::new();
        let first = n.min(251 - entry);
        h.update(&c[entry..entry + first]);
        h.update(&c[..n - first]);
        h
    };
    let mut acc = crc32fast::Hasher::new();
    let mut doubled = run(251);
    let mut periods = pixels / 251;
    while periods > 0 {
        if periods & 1 == 1 {
            acc.combine(&doubled);
        }
        periods >>= 1;
        if periods > 0 {
            let same = doubled.clone();
            doubled.combine(&same);
        }
    }
    acc.combine(&run(pixels % 251));
    acc.finalize()
}

/// Rewrites only the stamp, for a sender that reuses pixel buffers.
pub fn stamp(frame_number: u64, frame: &mut [u8]) -> Result<(), PatternError> {
    if frame.len() < STAMP_LEN {
        return Err(PatternError::TooShort(frame.len()));
    }
    let crc = crc32fast::hash(&frame[STAMP_LEN..]);
    frame[..STAMP_LEN].copy_from_slice(&stamp_bytes(frame_number, crc));
    Ok(())
}

/// The 16-byte stamp of frame `frame_number` whose pixels have CRC `crc`.
fn stamp_bytes(frame_number: u64, crc: u32) -> [u8; STAMP_LEN] {
    let mut s = [0u8; STAMP_LEN];
    s[..4].copy_from_slice(MAGIC);
    s[4..12].copy_from_slice(&frame_number.to_be_bytes());
    s[12..16].copy_from_slice(&crc.to_be_bytes());
    s
}

/// Checks the stamp and CRC of `frame`; returns its frame number.
pub fn verify(frame: &[u8]) -> Result<u64, PatternError> {
    if frame.len() < STAMP_LEN {
        return Err(PatternError::TooShort(frame.len()));
    }
    let mut magic = [0u8; 4];
    magic.copy_from_slice(&frame[..4]);
    if &magic != MAGIC {
        return Err(PatternError::NoStamp(magic));
    }
    let mut n = [0u8; 8];
    n.copy_from_slice(&frame[4..12]);
    let frame_number = u64::from_be_bytes(n);
    let mut c = [0u8; 4];
    c.copy_from_slice(&frame[12..16]);
    let stamped = u32::from_be_bytes(c);
    let computed = crc32fast::hash(&frame[STAMP_LEN..]);
    if stamped != computed {
        return Err(PatternError::Checksum {
            frame: frame_number,
            stamped,
            computed,
        });
    }
    Ok(frame_number)
}

/// Like [`verify`], and also checks every pixel against the pattern, which
/// pinpoints the first wrong byte (slower; for diagnosis).
pub fn verify_pixels(frame: &[u8]) -> Result<u64, PatternError> {
    let frame_number = verify(frame)?;
    let start = (frame_number % 251) as usize;
    for (i, &b) in frame.iter().enumerate().skip(STAMP_LEN) {
        let expected = ((i + start) % 251) as u8;
        if b != expected {
            return Err(PatternError::Pattern {
                frame: frame_number,
                offset: i,
                found: b,
                expected,
            });
        }
    }
    Ok(frame_number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_then_verify() {
        let mut f = vec![0u8; 4096];
        fill(77, &mut f).expect("fills");
        assert_eq!(&f[..4], b"LRTP");
        assert_eq!(verify(&f), Ok(77));
        assert_eq!(verify_pixels(&f), Ok(77));
    }

    #[test]
    fn fast_fill_matches_the_formula() {
        for len in [16, 17, 266, 267, 1000, 4096] {
            for n in [0u64, 1, 250, 251, 252, 1000] {
                let mut f = vec![0u8; len];
                fill(n, &mut f).expect("fills");
                assert_eq!(verify_pixels(&f), Ok(n), "len {len} frame {n}");
            }
        }
    }

    #[test]
    fn generator_caches_crc_and_reuses_pixels() {
        let mut g = Generator::new(5000).expect("long enough");
        let mut f = vec![0u8; 5000];
        g.write(3, &mut f, false).expect("writes");
        assert_eq!(verify_pixels(&f), Ok(3));
        // Same phase, pixels kept: only the stamp changes.
        g.write(3 + 251, &mut f, true).expect("writes");
        assert_eq!(verify_pixels(&f), Ok(254));
        g.write(4, &mut f, false).expect("writes");
        assert_eq!(verify_pixels(&f), Ok(4));
        assert!(g.write(5, &mut [0u8; 10], false).is_err());
        assert!(Generator::new(3).is_err());
    }

    /// Frame `n` of `len` bytes as a gathering sender puts it on the wire:
    /// the stamp, then the strip's slices for every record of `record` bytes.
    fn from_strip(strip: &mut PatternStrip, n: u64, record: usize) -> Vec<u8> {
        let len = strip.len();
        let stamp = strip.stamp(n);
        let mut out = Vec::with_capacity(len);
        let mut at = 0;
        while at < len {
            let r = at..(at + record).min(len);
            out.extend_from_slice(&stamp[r.start.min(STAMP_LEN)..r.end.min(STAMP_LEN)]);
            for s in strip.pixels(n, r.clone()) {
                assert!(s.len() <= STRIP_SPAN);
                out.extend_from_slice(s);
            }
            at = r.end;
        }
        out
    }

    #[test]
    fn strip_frames_are_the_drawn_frames_byte_for_byte() {
        let long = 3 * STRIP_SPAN + 1000;
        for len in [16, 17, 266, 267, 5000, 4096, long] {
            let mut strip = PatternStrip::new(len).expect("long enough");
            for n in [0u64, 1, 235, 250, 251, 252, 1000] {
                let mut drawn = vec![0u8; len];
                fill(n, &mut drawn).expect("fills");
                for record in [1, 7, 16, 17, 1000, 8000, STRIP_SPAN + 3, len] {
                    let sent = from_strip(&mut strip, n, record);
                    assert!(sent == drawn, "len {len} frame {n} record {record}");
                }
                assert_eq!(verify_pixels(&drawn), Ok(n));
            }
        }
        assert!(PatternStrip::new(15).is_err());
    }

    #[test]
    fn strip_stamps_vary_per_frame_and_ranges_are_clipped() {
        let mut strip = PatternStrip::new(4096).expect("long enough");
        assert_ne!(strip.stamp(3)[12..], strip.stamp(4)[12..], "CRC per phase");
        assert_eq!(strip.stamp(3)[12..], strip.stamp(3 + 251)[12..]);
        assert_ne!(strip.stamp(3)[4..12], strip.stamp(3 + 251)[4..12]);
        // The stamp's bytes and bytes past the end are not pixels.
        assert_eq!(strip.pixels(0, 0..16).count(), 0);
        assert_eq!(
            strip.pixels(0, 4000..9000).map(<[u8]>::len).sum::<usize>(),
            96
        );
        assert_eq!(
            strip.pixels(0, 10..20).next(),
            Some(&[16u8, 17, 18, 19][..])
        );
        assert_eq!(strip.pixels(5, 16..18).next(), Some(&[21u8, 22][..]));
    }

    #[test]
    fn gradient_moves_and_stays_verifiable() {
        let mut a = vec![0u8; 64 * 8];
        let mut b = vec![0u8; 64 * 8];
        fill_gradient(1, 64, &mut a).expect("fills");
        fill_gradient(2, 64, &mut b).expect("fills");
        assert_eq!(verify(&a), Ok(1));
        assert_eq!(verify(&b), Ok(2));
        // Line 2 of frame 2 is line 2 of frame 1 moved by one pixel.
        assert_eq!(a[2 * 64 + 1], b[2 * 64]);
        assert!(fill_gradient(0, 64, &mut [0u8; 4]).is_err());
    }

    #[test]
    fn detects_damage() {
        let mut f = vec![0u8; 1024];
        fill(3, &mut f).expect("fills");
        f[500] ^= 1;
        assert!(matches!(
            verify(&f),
            Err(PatternError::Checksum { frame: 3, .. })
        ));
        fill(3, &mut f).expect("fills");
        f[0] = b'X';
        assert!(matches!(verify(&f), Err(PatternError::NoStamp(_))));
        assert_eq!(verify(&f[..8]), Err(PatternError::TooShort(8)));
        // A frame with another frame's pixels but a fresh stamp passes the CRC
        // and is caught by the pixel check.
        fill(4, &mut f).expect("fills");
        stamp(5, &mut f).expect("stamps");
        assert_eq!(verify(&f), Ok(5));
        assert!(matches!(
            verify_pixels(&f),
            Err(PatternError::Pattern {
                frame: 5,
                offset: 16,
                ..
            })
        ));
    }
}
