//! Board streams cut into fixed-size chunks, each forwarded as an `ad00`
//! 1-D uint8 array: source name = the board's MAC, `id` = the chunk's
//! sequence number (from 0), attribute `stream_offset` = where its first
//! byte sits in the board's stream (so a consumer checks the counter
//! stream of any chunk on its own).
//!
//! A reader hands over whatever the ring holds; the chunker gathers it
//! into a chunk buffer (one copy) and encodes a full chunk into the ad00
//! message (a second copy). The last chunk may be shorter.

use crate::forwarder::{Forward, ForwardError};
use crate::messages::{ArrayMessage, AttributeValue, ElementType};

/// Default chunk size: 1 MiB.
pub const DEFAULT_CHUNK: usize = 1 << 20;

/// One board's chunker.
#[derive(Debug)]
pub struct Chunker {
    forward: Forward,
    source: String,
    chunk: usize,
    buf: Vec<u8>,
    start: u64,
    sequence: u64,
}

impl Chunker {
    /// Cuts `source`'s stream into chunks of `chunk` bytes (at least 1).
    pub fn new(forward: Forward, source: impl Into<String>, chunk: usize) -> Chunker {
        let chunk = chunk.max(1);
        Chunker {
            forward,
            source: source.into(),
            chunk,
            buf: Vec::with_capacity(chunk),
            start: 0,
            sequence: 0,
        }
    }

    /// Takes the bytes at stream offset `offset` (the next ones after the
    /// last call), forwarding every chunk they complete.
    pub fn push(&mut self, offset: u64, mut data: &[u8]) -> Result<(), ForwardError> {
        if self.buf.is_empty() {
            self.start = offset;
        }
        while !data.is_empty() {
            let take = (self.chunk - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buf.len() == self.chunk {
                // send() moves `start` past the chunk it forwarded.
                self.send()?;
            }
        }
        Ok(())
    }

    /// Forwards what is gathered (the stream's last, shorter chunk).
    pub fn flush(&mut self) -> Result<(), ForwardError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.send()
    }

    fn send(&mut self) -> Result<(), ForwardError> {
        let attributes = [
            ("stream_offset", AttributeValue::U64(self.start)),
            ("block_id", AttributeValue::U64(self.sequence)),
        ];
        let now = crate::messages::unix_now_ns();
        let r = self.forward.array(
            self.sequence,
            &ArrayMessage {
                source_name: &self.source,
                id: self.sequence as i32,
                timestamp_ns: now,
                dimensions: &[self.buf.len() as i64],
                element: ElementType::Uint8,
                data: &self.buf,
                attributes: &attributes,
            },
        );
        self.start += self.buf.len() as u64;
        self.sequence += 1;
        self.buf.clear();
        r.map(|_| ())
    }
}
