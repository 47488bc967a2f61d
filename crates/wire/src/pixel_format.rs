//! GenICam PFNC pixel format codes as carried in GVSP image leaders.

/// A 32-bit PFNC pixel format code.
///
/// Bits 16..24 hold the effective bits per pixel, which is all a transport
/// needs to compute frame sizes; the newtype keeps unknown codes intact.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PixelFormat(pub u32);

impl PixelFormat {
    /// 8-bit monochrome.
    pub const MONO8: PixelFormat = PixelFormat(0x0108_0001);
    /// 10-bit monochrome, unpacked into 16 bits.
    pub const MONO10: PixelFormat = PixelFormat(0x0110_0003);
    /// 12-bit monochrome, unpacked into 16 bits.
    pub const MONO12: PixelFormat = PixelFormat(0x0110_0005);
    /// 16-bit monochrome.
    pub const MONO16: PixelFormat = PixelFormat(0x0110_0007);
    /// 8-bit Bayer mosaic, RG pattern.
    pub const BAYER_RG8: PixelFormat = PixelFormat(0x0108_0009);
    /// 8-bit Bayer mosaic, GR pattern.
    pub const BAYER_GR8: PixelFormat = PixelFormat(0x0108_0008);
    /// 24-bit packed RGB.
    pub const RGB8: PixelFormat = PixelFormat(0x0218_0014);

    /// Every format this crate names, in a stable order.
    pub const KNOWN: [PixelFormat; 7] = [
        PixelFormat::MONO8,
        PixelFormat::MONO10,
        PixelFormat::MONO12,
        PixelFormat::MONO16,
        PixelFormat::BAYER_RG8,
        PixelFormat::BAYER_GR8,
        PixelFormat::RGB8,
    ];

    /// Effective bits per pixel, from bits 16..24 of the code.
    pub const fn bits_per_pixel(self) -> u32 {
        (self.0 >> 16) & 0xff
    }

    /// Bytes a `width` × `height` image takes, if it fits in a `u64`.
    pub fn image_bytes(self, width: u32, height: u32) -> Option<u64> {
        let bits = u64::from(width)
            .checked_mul(u64::from(height))?
            .checked_mul(u64::from(self.bits_per_pixel()))?;
        Some(bits.div_ceil(8))
    }

    /// The GenICam name of a well-known format.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            PixelFormat::MONO8 => "Mono8",
            PixelFormat::MONO10 => "Mono10",
            PixelFormat::MONO12 => "Mono12",
            PixelFormat::MONO16 => "Mono16",
            PixelFormat::BAYER_RG8 => "BayerRG8",
            PixelFormat::BAYER_GR8 => "BayerGR8",
            PixelFormat::RGB8 => "RGB8",
            _ => return None,
        })
    }

    /// Looks a format up by its GenICam name (case-insensitive).
    pub fn from_name(name: &str) -> Option<PixelFormat> {
        PixelFormat::KNOWN
            .into_iter()
            .find(|f| f.name().is_some_and(|n| n.eq_ignore_ascii_case(name)))
    }
}

impl core::fmt::Display for PixelFormat {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "{:#010x}", self.0),
        }
    }
}

impl core::fmt::Debug for PixelFormat {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_names() {
        assert_eq!(PixelFormat::MONO8.bits_per_pixel(), 8);
        assert_eq!(PixelFormat::MONO16.image_bytes(4, 2), Some(16));
        assert_eq!(PixelFormat::RGB8.image_bytes(2, 2), Some(12));
        assert_eq!(
            PixelFormat::from_name("bayerrg8"),
            Some(PixelFormat::BAYER_RG8)
        );
        assert_eq!(PixelFormat::from_name("Mono99"), None);
        assert_eq!(PixelFormat(0x1234_5678).to_string(), "0x12345678");
    }
}
