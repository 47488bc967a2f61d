//! Image files from frames: JPEG for the page's picture, PNG for the
//! full-resolution snapshot.

use linerate_wire::PixelFormat;

use crate::frame::Frame;
use crate::render::{Colour, Picture};

/// Why an image could not be encoded.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// The JPEG encoder refused the picture.
    #[error("JPEG encoding of a {width}x{height} picture failed: {source}")]
    Jpeg {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// The encoder's error.
        source: jpeg_encoder::EncodingError,
    },
    /// The PNG encoder refused the frame.
    #[error("PNG encoding of a {width}x{height} {format} frame failed: {source}")]
    Png {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Pixel format.
        format: PixelFormat,
        /// The encoder's error.
        source: png::EncodingError,
    },
    /// A snapshot of a format the view cannot save.
    #[error("pixel format {0} cannot be saved as PNG")]
    Format(PixelFormat),
    /// Too large for the encoder.
    #[error("a {width}x{height} picture is too large for JPEG (65535 at most)")]
    TooLarge {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
}

/// JPEG quality of the page's picture.
pub const JPEG_QUALITY: u8 = 80;

/// Encodes a rendered picture as JPEG.
pub fn jpeg(picture: &Picture) -> Result<Vec<u8>, EncodeError> {
    let too_large = || EncodeError::TooLarge {
        width: picture.width,
        height: picture.height,
    };
    let w = u16::try_from(picture.width).map_err(|_| too_large())?;
    let h = u16::try_from(picture.height).map_err(|_| too_large())?;
    let colour = match picture.colour {
        Colour::Grey => jpeg_encoder::ColorType::Luma,
        Colour::Rgb => jpeg_encoder::ColorType::Rgb,
    };
    let mut out = Vec::with_capacity(picture.pixels.len() / 8);
    jpeg_encoder::Encoder::new(&mut out, JPEG_QUALITY)
        .encode(&picture.pixels, w, h, colour)
        .map_err(|source| EncodeError::Jpeg {
            width: picture.width,
            height: picture.height,
            source,
        })?;
    Ok(out)
}

/// Encodes a frame at full resolution as PNG: Mono8 and Bayer8 as 8-bit
/// grey (Bayer left undemosaiced, as the sensor saw it), Mono10/12/16 as
/// 16-bit grey with the camera's codes unchanged, RGB8 as RGB.
pub fn png_snapshot(frame: &Frame) -> Result<Vec<u8>, EncodeError> {
    let (color, depth, bytes) = match frame.format {
        PixelFormat::MONO8 | PixelFormat::BAYER_RG8 | PixelFormat::BAYER_GR8 => {
            (png::ColorType::Grayscale, png::BitDepth::Eight, 1)
        }
        PixelFormat::MONO10 | PixelFormat::MONO12 | PixelFormat::MONO16 => {
            (png::ColorType::Grayscale, png::BitDepth::Sixteen, 2)
        }
        PixelFormat::RGB8 => (png::ColorType::Rgb, png::BitDepth::Eight, 3),
        other => return Err(EncodeError::Format(other)),
    };
    let len = frame.width as usize * frame.height as usize * bytes;
    let mut pixels = frame.data().get(..len).unwrap_or(frame.data()).to_vec();
    pixels.resize(len, 0);
    if bytes == 2 {
        // GVSP carries little-endian words; PNG wants big-endian.
        for word in pixels.chunks_exact_mut(2) {
            word.swap(0, 1);
        }
    }
    let png_err = |source| EncodeError::Png {
        width: frame.width,
        height: frame.height,
        format: frame.format,
        source,
    };
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, frame.width, frame.height);
    encoder.set_color(color);
    encoder.set_depth(depth);
    let mut writer = encoder.write_header().map_err(png_err)?;
    writer.write_image_data(&pixels).map_err(png_err)?;
    writer.finish().map_err(png_err)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_encodes_as_a_jpeg() {
        let picture = Picture {
            width: 8,
            height: 8,
            colour: Colour::Rgb,
            pixels: vec![128; 8 * 8 * 3],
            missing_rows: 0,
        };
        let bytes = jpeg(&picture).expect("encodes");
        assert_eq!(&bytes[..2], &[0xff, 0xd8], "SOI marker");
        // A grey picture is a one-component JPEG.
        let grey = Picture {
            colour: Colour::Grey,
            pixels: vec![128; 8 * 8],
            ..picture
        };
        let bytes = jpeg(&grey).expect("encodes");
        let sof = bytes
            .windows(2)
            .position(|w| w == [0xff, 0xc0])
            .expect("a baseline frame header");
        assert_eq!(bytes[sof + 9], 1, "components");
    }

    #[test]
    fn a_sixteen_bit_snapshot_keeps_its_codes_big_endian() {
        let frame = Frame {
            width: 2,
            height: 1,
            format: PixelFormat::MONO16,
            block_id: 1,
            missing: vec![],
            pixels: Box::new(vec![0x34, 0x12, 0xff, 0x00]),
        };
        let bytes = png_snapshot(&frame).expect("encodes");
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("a frame");
        assert_eq!((info.width, info.height), (2, 1));
        assert_eq!(info.bit_depth, png::BitDepth::Sixteen);
        assert_eq!(&buf[..4], &[0x12, 0x34, 0x00, 0xff]);
    }
}
