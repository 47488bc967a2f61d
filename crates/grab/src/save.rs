//! Frames saved as image files a person can open: PNG for 8-bit mono, raw
//! Bayer and RGB, and 16-bit mono; TIFF for 10-, 12- and 16-bit mono, with
//! the camera's metadata (block id, timestamp, pixel format) in the file.
//! Formats no viewer understands are written as raw bytes. Files are named
//! by frame index and block id, and a file that exists is never
//! overwritten.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use linerate_wire::PixelFormat;

use crate::stream::{Buffer, FrameInfo};

/// Why a frame could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The file exists already: saving never overwrites.
    #[error("{0} exists already; saving never overwrites (choose an empty directory)")]
    Exists(PathBuf),
    /// The file could not be created or written.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The PNG encoder refused the frame.
    #[error("encoding {path} as PNG: {source}")]
    Png {
        /// The file.
        path: PathBuf,
        /// The encoder's error.
        #[source]
        source: png::EncodingError,
    },
    /// The TIFF encoder refused the frame.
    #[error("encoding {path} as TIFF: {source}")]
    Tiff {
        /// The file.
        path: PathBuf,
        /// The encoder's error.
        #[source]
        source: tiff::TiffError,
    },
    /// The directory to save into cannot be used.
    #[error("cannot save into {path}: {why}")]
    Directory {
        /// The directory asked for.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

/// The file format a frame is saved in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFile {
    /// 8-bit gray (Mono8, raw Bayer mosaics), 8-bit RGB, or 16-bit gray (Mono16).
    Png,
    /// 16-bit gray for Mono10 and Mono12 (values in 16-bit containers).
    Tiff,
    /// The payload as received, for formats no image viewer reads.
    Raw,
}

impl ImageFile {
    /// The format a frame of `info` is saved in: PNG or TIFF when the
    /// payload is exactly the image its format and size describe, raw
    /// otherwise (unknown formats, chunk data, odd sizes).
    pub fn for_frame(info: &FrameInfo, payload_len: usize) -> ImageFile {
        let Some(format) = info.pixel_format else {
            return ImageFile::Raw;
        };
        let exact = format
            .image_bytes(info.width, info.height)
            .is_some_and(|n| n == payload_len as u64);
        match format {
            _ if !exact => ImageFile::Raw,
            PixelFormat::MONO8
            | PixelFormat::BAYER_RG8
            | PixelFormat::BAYER_GR8
            | PixelFormat::RGB8
            | PixelFormat::MONO16 => ImageFile::Png,
            PixelFormat::MONO10 | PixelFormat::MONO12 => ImageFile::Tiff,
            _ => ImageFile::Raw,
        }
    }

    fn extension(self) -> &'static str {
        match self {
            ImageFile::Png => "png",
            ImageFile::Tiff => "tiff",
            ImageFile::Raw => "raw",
        }
    }
}

/// Checks that frames can be saved into `dir`: it is created if missing,
/// but its parent must exist (a typo in a path should not build a tree).
pub fn prepare_directory(dir: &Path) -> Result<(), SaveError> {
    if dir.is_dir() {
        return Ok(());
    }
    let err = |why: String| SaveError::Directory {
        path: dir.to_owned(),
        why,
    };
    if dir.exists() {
        return Err(err("it exists and is not a directory".into()));
    }
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(err(format!(
            "its parent {} does not exist",
            parent.display()
        )));
    }
    std::fs::create_dir(dir).map_err(|e| err(e.to_string()))
}

/// Saves frame number `index` (counted by the caller) into `dir` as
/// `frame-INDEX-block-ID.EXT`; returns the path written.
pub fn save_frame(dir: &Path, index: u64, buffer: &Buffer) -> Result<PathBuf, SaveError> {
    let info = buffer.info();
    let data = buffer.data();
    let kind = ImageFile::for_frame(info, data.len());
    let path = dir.join(format!(
        "frame-{index:06}-block-{}.{}",
        info.block_id,
        kind.extension()
    ));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::AlreadyExists => SaveError::Exists(path.clone()),
            _ => SaveError::Io {
                path: path.clone(),
                source,
            },
        })?;
    let io = |source| SaveError::Io {
        path: path.clone(),
        source,
    };
    match kind {
        ImageFile::Png => {
            write_png(BufWriter::new(file), info, data).map_err(|source| SaveError::Png {
                path: path.clone(),
                source,
            })?
        }
        ImageFile::Tiff => write_tiff(file, info, data).map_err(|source| SaveError::Tiff {
            path: path.clone(),
            source,
        })?,
        ImageFile::Raw => {
            let mut w = BufWriter::new(file);
            w.write_all(data).map_err(io)?;
            w.flush().map_err(io)?;
        }
    }
    Ok(path)
}

/// The camera's metadata, as one line of text stored in the image file.
fn description(info: &FrameInfo) -> String {
    format!(
        "linerate frame: block_id={} timestamp={} pixel_format={} width={} height={}",
        info.block_id,
        info.timestamp,
        info.pixel_format
            .map_or_else(|| "unknown".to_owned(), |f| f.to_string()),
        info.width,
        info.height
    )
}

fn write_png(w: impl Write, info: &FrameInfo, data: &[u8]) -> Result<(), png::EncodingError> {
    let mut enc = png::Encoder::new(w, info.width, info.height);
    let sixteen = info.pixel_format == Some(PixelFormat::MONO16);
    enc.set_color(if info.pixel_format == Some(PixelFormat::RGB8) {
        png::ColorType::Rgb
    } else {
        png::ColorType::Grayscale
    });
    enc.set_depth(if sixteen {
        png::BitDepth::Sixteen
    } else {
        png::BitDepth::Eight
    });
    enc.add_text_chunk("Description".into(), description(info))?;
    let mut writer = enc.write_header()?;
    if sixteen {
        // GigE Vision sends 16-bit pixels little-endian; PNG stores them
        // big-endian.
        let swapped: Vec<u8> = data.chunks_exact(2).flat_map(|p| [p[1], p[0]]).collect();
        writer.write_image_data(&swapped)?;
    } else {
        writer.write_image_data(data)?;
    }
    writer.finish()
}

fn write_tiff(file: File, info: &FrameInfo, data: &[u8]) -> Result<(), tiff::TiffError> {
    let pixels: Vec<u16> = data
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    let mut tiff = tiff::encoder::TiffEncoder::new(BufWriter::new(file))?;
    let mut image = tiff.new_image::<tiff::encoder::colortype::Gray16>(info.width, info.height)?;
    image.encoder().write_tag(
        tiff::tags::Tag::ImageDescription,
        description(info).as_str(),
    )?;
    image
        .encoder()
        .write_tag(tiff::tags::Tag::Software, "linerate")?;
    image.write_data(&pixels)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(format: PixelFormat, w: u32, h: u32, data: Vec<u8>) -> Buffer {
        Buffer::test_frame_as(data, w, h, format)
    }

    fn tempdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("linerate-save-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn mono8_rgb8_and_mono16_become_pngs_that_decode_to_the_same_pixels() {
        let dir = tempdir("png");
        prepare_directory(&dir).expect("dir");
        let mono: Vec<u8> = (0..12u8).collect();
        let p = save_frame(&dir, 1, &frame(PixelFormat::MONO8, 4, 3, mono.clone())).expect("save");
        assert!(p.ends_with("frame-000001-block-7.png"), "{p:?}");
        let mut r = png::Decoder::new(std::io::BufReader::new(File::open(&p).expect("open")))
            .read_info()
            .expect("decode");
        let mut out = vec![0; r.output_buffer_size().expect("size")];
        r.next_frame(&mut out).expect("frame");
        assert_eq!(out, mono);

        let m16: Vec<u8> = vec![0x34, 0x12, 0xff, 0x00];
        let p = save_frame(&dir, 2, &frame(PixelFormat::MONO16, 2, 1, m16)).expect("save");
        let mut r = png::Decoder::new(std::io::BufReader::new(File::open(&p).expect("open")))
            .read_info()
            .expect("decode");
        assert_eq!(r.info().bit_depth, png::BitDepth::Sixteen);
        let mut out = vec![0; r.output_buffer_size().expect("size")];
        r.next_frame(&mut out).expect("frame");
        assert_eq!(out, [0x12, 0x34, 0x00, 0xff], "big-endian in PNG");

        let rgb: Vec<u8> = (0..18u8).collect();
        let p = save_frame(&dir, 3, &frame(PixelFormat::RGB8, 3, 2, rgb)).expect("save");
        let r = png::Decoder::new(std::io::BufReader::new(File::open(&p).expect("open")))
            .read_info()
            .expect("decode");
        assert_eq!(r.info().color_type, png::ColorType::Rgb);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn mono12_becomes_a_tiff_with_metadata_and_odd_payloads_stay_raw() {
        let dir = tempdir("tiff");
        prepare_directory(&dir).expect("dir");
        let px: Vec<u8> = vec![0xff, 0x0f, 0x01, 0x00];
        let p = save_frame(&dir, 1, &frame(PixelFormat::MONO12, 2, 1, px)).expect("save");
        assert!(p.extension().is_some_and(|e| e == "tiff"));
        let bytes = std::fs::read(&p).expect("read");
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.contains("block_id=7") && text.contains("Mono12"),
            "{text}"
        );
        // Size that does not match the format: raw.
        let p = save_frame(&dir, 2, &frame(PixelFormat::MONO8, 4, 4, vec![1; 5])).expect("save");
        assert!(p.extension().is_some_and(|e| e == "raw"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn never_overwrites_and_refuses_a_directory_without_a_parent() {
        let dir = tempdir("exists");
        prepare_directory(&dir).expect("dir");
        let f = frame(PixelFormat::MONO8, 2, 1, vec![1, 2]);
        save_frame(&dir, 1, &f).expect("first");
        let err = save_frame(&dir, 1, &f).expect_err("second");
        assert!(matches!(err, SaveError::Exists(_)), "{err}");
        let deep = dir.join("no/such/parent/frames");
        let err = prepare_directory(&deep).expect_err("no parent");
        assert!(err.to_string().contains("does not exist"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
