//! Makes each frame into its slot from the configured [`FrameSource`].

use std::io::Read;
use std::path::PathBuf;

use linerate_io::fanout::SharedFrames;

use super::config::FrameSource;
use super::error::ServeError;
use crate::frame::{write_copied, PatternMaker};

/// An opened frame source.
pub(crate) enum Source {
    Pattern(PatternMaker),
    File {
        path: PathBuf,
        file: std::fs::File,
        buf: Vec<u8>,
    },
}

impl Source {
    /// Opens `source` for frames of `frame_size` payload bytes, preparing
    /// every slot of `frames` it needs to (the pattern's fixed bytes).
    pub(crate) fn open(
        source: &FrameSource,
        frame_size: usize,
        frames: &mut SharedFrames,
    ) -> Result<Source, ServeError> {
        match source {
            FrameSource::Pattern => {
                let m = PatternMaker::new(frame_size)?;
                for i in 0..frames.slots() {
                    if let Some(s) = frames.slot_mut(i) {
                        m.prepare_slot(s)?;
                    }
                }
                Ok(Source::Pattern(m))
            }
            FrameSource::File(path) => {
                let file = std::fs::File::open(path).map_err(|source| ServeError::OpenSource {
                    path: path.clone(),
                    source,
                })?;
                Ok(Source::File {
                    path: path.clone(),
                    file,
                    buf: vec![0; frame_size],
                })
            }
        }
    }

    /// Writes frame `seq`, stamped `now_ns`, into `slot`; returns its
    /// length with the header.
    pub(crate) fn next_frame(
        &mut self,
        slot: &mut [u8],
        seq: u64,
        now_ns: u64,
    ) -> Result<usize, ServeError> {
        match self {
            Source::Pattern(m) => Ok(m.write(slot, seq, now_ns)?),
            Source::File { path, file, buf } => {
                let path: &PathBuf = path;
                let read_err = |source| ServeError::ReadSource {
                    path: path.clone(),
                    source,
                };
                let mut got = 0;
                let mut rewound = false;
                while got < buf.len() {
                    let n = file.read(&mut buf[got..]).map_err(read_err)?;
                    if n == 0 {
                        if rewound && got == 0 {
                            return Err(ServeError::EmptySource(path.clone()));
                        }
                        std::io::Seek::rewind(file).map_err(read_err)?;
                        rewound = true;
                    }
                    got += n;
                }
                Ok(write_copied(slot, buf, seq, now_ns)?)
            }
        }
    }
}
