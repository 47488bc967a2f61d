//! Turns a camera frame into a small 8-bit RGB picture for the page:
//! decimated to fit the display size, 10/12/16-bit formats scaled to 8 bits
//! (auto contrast from the picture's min/max, or the format's full range),
//! Bayer cells coloured, and rows that never arrived marked in magenta.

use linerate_wire::PixelFormat;
use serde::{Deserialize, Serialize};

use crate::frame::Frame;

/// How more-than-8-bit (and, with `Auto`, any monochrome) pixels map to
/// the page's 8 bits.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Contrast {
    /// Stretch the darkest pixel shown to black and the brightest to white.
    #[default]
    Auto,
    /// The format's full range: 0 is black, the largest code is white.
    Full,
}

/// A rendered picture: `width` × `height` pixels, grey or RGB8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Grey (one byte a pixel) or RGB (three): a mono frame with every row
    /// present stays grey, which costs a third of RGB to encode, send and
    /// decode in the browser.
    pub colour: Colour,
    /// The pixels' bytes, row after row.
    pub pixels: Vec<u8>,
    /// Rows of the source frame that were marked missing.
    pub missing_rows: u32,
}

/// How a [`Picture`]'s pixels are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    /// One grey byte a pixel.
    Grey,
    /// Three bytes a pixel: red, green, blue.
    Rgb,
}

impl Colour {
    /// Bytes a pixel.
    pub fn bytes(self) -> usize {
        match self {
            Colour::Grey => 1,
            Colour::Rgb => 3,
        }
    }
}

/// The colour of a missing row.
pub const MISSING: [u8; 3] = [255, 0, 255];

/// Why a frame cannot be shown.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RenderError {
    /// A format the view cannot decode.
    #[error("pixel format {0} cannot be displayed (Mono8/10/12/16, BayerRG8/GR8 and RGB8 can)")]
    Format(PixelFormat),
    /// A zero-sized frame.
    #[error("the frame is {width}x{height}: nothing to show")]
    Empty {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
}

/// The decimation step that fits `width` × `height` into `max_width` ×
/// `max_height` (at least 1; even for Bayer so a step lands on whole cells).
pub fn step(width: u32, height: u32, max_width: u32, max_height: u32, bayer: bool) -> u32 {
    let sx = width.div_ceil(max_width.max(1));
    let sy = height.div_ceil(max_height.max(1));
    let s = sx.max(sy).max(1);
    if bayer && s > 1 && s % 2 == 1 {
        s + 1
    } else {
        s
    }
}

enum Layout {
    Mono { bytes: usize, bits: u32 },
    Bayer { red_first_row: bool },
    Rgb,
}

fn layout(format: PixelFormat) -> Option<Layout> {
    Some(match format {
        PixelFormat::MONO8 => Layout::Mono { bytes: 1, bits: 8 },
        PixelFormat::MONO10 => Layout::Mono { bytes: 2, bits: 10 },
        PixelFormat::MONO12 => Layout::Mono { bytes: 2, bits: 12 },
        PixelFormat::MONO16 => Layout::Mono { bytes: 2, bits: 16 },
        PixelFormat::BAYER_RG8 => Layout::Bayer {
            red_first_row: true,
        },
        PixelFormat::BAYER_GR8 => Layout::Bayer {
            red_first_row: false,
        },
        PixelFormat::RGB8 => Layout::Rgb,
        _ => return None,
    })
}

/// Renders `frame` to fit `max_width` × `max_height`.
pub fn render(
    frame: &Frame,
    max_width: u32,
    max_height: u32,
    contrast: Contrast,
) -> Result<Picture, RenderError> {
    let layout = layout(frame.format).ok_or(RenderError::Format(frame.format))?;
    if frame.width == 0 || frame.height == 0 {
        return Err(RenderError::Empty {
            width: frame.width,
            height: frame.height,
        });
    }
    let bayer = matches!(layout, Layout::Bayer { .. });
    let step = step(frame.width, frame.height, max_width, max_height, bayer) as usize;
    let (w, h) = (frame.width as usize, frame.height as usize);
    let (ow, oh) = (w.div_ceil(step), h.div_ceil(step));
    let data = frame.data();
    let bytes_per_pixel = match layout {
        Layout::Mono { bytes, .. } => bytes,
        Layout::Bayer { .. } => 1,
        Layout::Rgb => 3,
    };
    let stride = w * bytes_per_pixel;
    let byte = |i: usize| data.get(i).copied().unwrap_or(0);
    let mono = matches!(layout, Layout::Mono { .. });
    let mut pixels = Vec::with_capacity(ow * oh * if mono { 1 } else { 3 });
    match layout {
        Layout::Mono { bytes, bits } => {
            let sample = |x: usize, y: usize| -> u32 {
                let i = y * stride + x * bytes;
                if bytes == 1 {
                    u32::from(byte(i))
                } else {
                    u32::from(u16::from_le_bytes([byte(i), byte(i + 1)]))
                }
            };
            let full = (1u32 << bits) - 1;
            let (lo, hi) = match contrast {
                Contrast::Full => (0, full),
                Contrast::Auto => {
                    let mut lo = u32::MAX;
                    let mut hi = 0;
                    for y in (0..h).step_by(step) {
                        for x in (0..w).step_by(step) {
                            let v = sample(x, y);
                            lo = lo.min(v);
                            hi = hi.max(v);
                        }
                    }
                    (lo.min(hi), hi)
                }
            };
            let span = (hi - lo).max(1);
            for y in (0..h).step_by(step) {
                for x in (0..w).step_by(step) {
                    let v = sample(x, y).clamp(lo, hi);
                    pixels.push(((v - lo) * 255 / span) as u8);
                }
            }
        }
        Layout::Bayer { red_first_row } => {
            for y in (0..h).step_by(step) {
                let cy = y & !1;
                for x in (0..w).step_by(step) {
                    let cx = x & !1;
                    let p = |dx: usize, dy: usize| {
                        if cx + dx < w && cy + dy < h {
                            byte((cy + dy) * stride + cx + dx)
                        } else {
                            0
                        }
                    };
                    let (r, g1, g2, b) = if red_first_row {
                        (p(0, 0), p(1, 0), p(0, 1), p(1, 1))
                    } else {
                        (p(1, 0), p(0, 0), p(1, 1), p(0, 1))
                    };
                    let g = ((u16::from(g1) + u16::from(g2)) / 2) as u8;
                    pixels.extend_from_slice(&[r, g, b]);
                }
            }
        }
        Layout::Rgb => {
            for y in (0..h).step_by(step) {
                for x in (0..w).step_by(step) {
                    let i = y * stride + x * 3;
                    pixels.extend_from_slice(&[byte(i), byte(i + 1), byte(i + 2)]);
                }
            }
        }
    }
    let mut colour = if mono { Colour::Grey } else { Colour::Rgb };
    let mut missing_rows = 0;
    if !frame.is_complete() || data.len() < stride * h {
        let missing: Vec<(usize, u32)> = (0..h)
            .step_by(step)
            .enumerate()
            .map(|(oy, y)| (oy, y..(y + step).min(h)))
            .filter(|(_, rows)| frame.rows_missing(rows.clone(), stride))
            .map(|(oy, rows)| (oy, rows.len() as u32))
            .collect();
        if !missing.is_empty() && colour == Colour::Grey {
            // Missing rows are marked in colour.
            pixels = pixels.iter().flat_map(|&g| [g, g, g]).collect();
            colour = Colour::Rgb;
        }
        for (oy, rows) in missing {
            missing_rows += rows;
            for px in pixels[oy * ow * 3..(oy + 1) * ow * 3].chunks_exact_mut(3) {
                px.copy_from_slice(&MISSING);
            }
        }
    }
    Ok(Picture {
        width: ow as u32,
        height: oh as u32,
        colour,
        pixels,
        missing_rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(format: PixelFormat, width: u32, height: u32, data: Vec<u8>) -> Frame {
        Frame {
            width,
            height,
            format,
            block_id: 1,
            missing: vec![],
            pixels: Box::new(data),
        }
    }

    #[test]
    fn the_step_fits_the_display_and_lands_on_bayer_cells() {
        assert_eq!(step(640, 480, 1024, 768, false), 1);
        assert_eq!(step(4096, 3000, 1024, 768, false), 4);
        assert_eq!(step(2048, 100, 1024, 768, false), 2);
        assert_eq!(step(3000, 100, 1024, 768, false), 3);
        assert_eq!(step(3000, 100, 1024, 768, true), 4);
    }

    #[test]
    fn mono8_is_decimated_by_picking_every_step_th_pixel() {
        let data: Vec<u8> = (0..16).collect();
        let f = frame(PixelFormat::MONO8, 4, 4, data);
        let p = render(&f, 2, 2, Contrast::Full).expect("renders");
        assert_eq!((p.width, p.height), (2, 2));
        assert_eq!(p.colour, Colour::Grey);
        assert_eq!(p.pixels, vec![0, 2, 8, 10]);
    }

    #[test]
    fn sixteen_bit_pixels_are_stretched_by_auto_contrast_and_scaled_by_full() {
        let values: [u16; 4] = [1000, 1100, 1200, 1300];
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let f = frame(PixelFormat::MONO16, 2, 2, data.clone());
        let auto = render(&f, 8, 8, Contrast::Auto).expect("renders");
        assert_eq!(auto.pixels, vec![0, 85, 170, 255]);
        let full = render(&f, 8, 8, Contrast::Full).expect("renders");
        assert_eq!(full.pixels, vec![3, 4, 4, 5]);
        let f12 = frame(PixelFormat::MONO12, 2, 2, data);
        let full = render(&f12, 8, 8, Contrast::Full).expect("renders");
        assert_eq!(full.pixels[0], (1000u32 * 255 / 4095) as u8);
    }

    #[test]
    fn a_flat_image_is_not_divided_by_zero() {
        let f = frame(PixelFormat::MONO16, 2, 1, vec![7, 7, 7, 7]);
        let p = render(&f, 8, 8, Contrast::Auto).expect("renders");
        assert_eq!(p.pixels, vec![0; 2]);
    }

    #[test]
    fn bayer_rg_cells_become_one_colour() {
        // R G / G B with R=200, G=100/50, B=10.
        let f = frame(PixelFormat::BAYER_RG8, 2, 2, vec![200, 100, 50, 10]);
        let p = render(&f, 1, 1, Contrast::Auto).expect("renders");
        assert_eq!(p.colour, Colour::Rgb);
        assert_eq!(p.pixels, vec![200, 75, 10]);
        let f = frame(PixelFormat::BAYER_GR8, 2, 2, vec![100, 200, 10, 50]);
        let p = render(&f, 1, 1, Contrast::Auto).expect("renders");
        assert_eq!(p.colour, Colour::Rgb);
        assert_eq!(p.pixels, vec![200, 75, 10]);
    }

    #[test]
    fn rgb8_keeps_its_colours() {
        let f = frame(PixelFormat::RGB8, 1, 1, vec![1, 2, 3]);
        let p = render(&f, 4, 4, Contrast::Auto).expect("renders");
        assert_eq!(p.pixels, vec![1, 2, 3]);
    }

    #[test]
    fn missing_rows_are_marked_and_counted() {
        let mut f = frame(PixelFormat::MONO8, 2, 3, vec![9; 6]);
        f.missing = std::iter::once(2..4).collect();
        let p = render(&f, 8, 8, Contrast::Full).expect("renders");
        // A mono picture turns RGB to show the missing rows in colour.
        assert_eq!(p.colour, Colour::Rgb);
        assert_eq!(p.pixels.len(), 2 * 3 * 3);
        assert_eq!(&p.pixels[6..12], &[255, 0, 255, 255, 0, 255]);
        assert_eq!(&p.pixels[0..3], &[9, 9, 9]);
        assert_eq!(p.missing_rows, 1);
    }

    #[test]
    fn unknown_formats_and_empty_frames_are_refused() {
        let f = frame(PixelFormat(0x1234), 1, 1, vec![0]);
        assert!(matches!(
            render(&f, 1, 1, Contrast::Auto),
            Err(RenderError::Format(_))
        ));
        let f = frame(PixelFormat::MONO8, 0, 1, vec![]);
        assert!(matches!(
            render(&f, 1, 1, Contrast::Auto),
            Err(RenderError::Empty { .. })
        ));
    }
}
