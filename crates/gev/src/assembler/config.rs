//! Assembler settings and their defaults.

/// Why a [`Config`] is rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// At least one frame must be assembled at a time.
    #[error("max_frames_in_flight must be at least 1")]
    NoFrameSlots,
    /// At least one buffer is needed to hold a frame.
    #[error("buffer_count ({buffers}) must be at least max_frames_in_flight ({slots})")]
    TooFewBuffers {
        /// Buffers configured.
        buffers: usize,
        /// Frame slots configured.
        slots: usize,
    },
    /// Payload packets carry at least one byte.
    #[error("data per packet must be at least 1 byte")]
    ZeroDataPerPacket,
    /// New blocks must be allowed at least one ahead of the newest.
    #[error("max_blocks_ahead must be at least 1")]
    NoBlocksAhead,
    /// The request ratio must be a finite number in 0..=4.
    #[error("resend request ratio {0} is not within 0..=4")]
    BadRequestRatio(String),
}

/// When and how much the resend planner asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct ResendConfig {
    /// Whether to plan resend requests at all (some cameras do not implement them).
    pub enabled: bool,
    /// How long a detected gap may stay open before the first request, so
    /// packets merely reordered (RSS queues, bonding) are not requested.
    pub initial_timeout_ns: u64,
    /// How long to wait for an answer before asking again for the same packet.
    pub repeat_timeout_ns: u64,
    /// Most packet ids per frame that may be requested and stay unanswered,
    /// as a fraction of the frame's packets: every id of a request counts
    /// (repeats count again) and every resent packet that arrives gives its
    /// id back. A camera that answers is asked until the frame is complete
    /// or its retention ends; one that does not (a dead link, a camera
    /// without resends) cannot be flooded.
    pub request_ratio: f64,
    /// Shortest silence after a frame's last packet before its missing tail
    /// (packets after the highest id seen, and the trailer) is requested
    /// without waiting for the next frame's first packet; 0 waits for the
    /// next frame. The silence actually used is at least 16 of the frame's
    /// mean packet gaps, so a slow sender (a line-scan camera sending a line
    /// per millisecond) is not asked for packets it has yet to send.
    pub tail_timeout_ns: u64,
}

impl Default for ResendConfig {
    /// 300 µs initial timeout, 5 ms repeat, ratio 2, 1 ms tail timeout.
    ///
    /// Aravis waits 1 ms before the first request and 20 ms before a repeat.
    /// On a LAN, reordering lasts microseconds and a resend round trip well
    /// under a millisecond, so 300 µs still leaves a wide margin for
    /// reordering while asking three times sooner; a 5 ms repeat gives ~20
    /// attempts inside the 100 ms retention instead of ~4.
    ///
    /// The ratio counts only what went unanswered, and is eight times
    /// Aravis's 0.25 (which counts every request). Loss comes in bursts (a
    /// receive ring overflowing drops tens of consecutive packets; a camera
    /// whose send fails loses the rest of a frame), and the request for it
    /// can be lost too: measured here at 200 fps, frames missing 23 to 60 of
    /// their 131 packets ran out of a half-frame budget after one lost
    /// resend and timed out; at 100 fps with 2% loss at the camera's
    /// output, frames whose last 95 to 129 packets were lost ran out of a
    /// one-frame budget when the first tail request went unanswered. Two frames' worth lets an unanswered request for a whole
    /// frame be made again in full, and still bounds what a silent camera
    /// is asked for to two frames of resends per frame.
    ///
    /// Without the tail timeout a lost tail (the last packets and the
    /// trailer) is noticed only when the next frame starts, a whole frame
    /// period later, or never after the last frame of an acquisition or
    /// between software triggers.
    fn default() -> Self {
        ResendConfig {
            enabled: true,
            initial_timeout_ns: 300_000,
            repeat_timeout_ns: 5_000_000,
            request_ratio: 2.0,
            tail_timeout_ns: 1_000_000,
        }
    }
}

/// Everything the assembler needs to know up front.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Blocks assembled at the same time; a newer block evicts the oldest
    /// (delivered incomplete) when all are busy.
    pub max_frames_in_flight: usize,
    /// Frame buffers the assembler may allocate (lazily, once each). Buffers
    /// come back through `Assembler::recycle`; with none free, a new block is
    /// dropped and counted as an underrun. 0: allocate none, use only the
    /// buffers the caller hands in with `Assembler::supply`.
    pub buffer_count: usize,
    /// Size of each frame buffer: the device's PayloadSize. Data beyond it is ignored.
    pub max_payload_size: usize,
    /// Data bytes per full payload packet, when known from SCPS; `None`
    /// learns it per block from the largest payload packet seen.
    pub data_per_packet: Option<usize>,
    /// Smallest data-per-packet a device may use, bounding packet ids (and
    /// so the per-frame bookkeeping) to `max_payload_size / this`. 256 is
    /// below any real GigE Vision packet size (576-byte IP minimum → 540).
    pub min_data_per_packet: usize,
    /// How long an unfinished frame is kept after its last packet arrived,
    /// before it is delivered incomplete.
    pub frame_retention_ns: u64,
    /// Resend planning.
    pub resend: ResendConfig,
    /// The id form the stream negotiated (true: 64-bit extended ids);
    /// packets of the other form are ignored and counted. `None` takes
    /// the form of the first block seen.
    pub extended_ids: Option<bool>,
    /// How far ahead of the newest block a new block may start. Farther
    /// ids are ignored and counted (no buffer, no resend request), so a
    /// stray or forged packet with a random block id cannot start a
    /// phantom frame, evict a real one or trigger resend requests. A device
    /// that really jumps farther (restarted ids, a long outage) is followed
    /// after `RESYNC_PACKETS` of its packets in a row with no frame in flight.
    pub max_blocks_ahead: u64,
}

impl Config {
    /// Defaults for a device whose PayloadSize is `max_payload_size`:
    /// 4 frames in flight, 8 buffers, learned packet size, 100 ms retention
    /// (Aravis's value; measured from the last packet, so a slow frame is
    /// not cut short), [`ResendConfig::default`], the id form of the first
    /// block, and new blocks at most 64 ahead of the newest: whole frames
    /// lost in a row are rare beyond a few, and a random 16-bit id then
    /// lands in the window once in a thousand.
    pub fn new(max_payload_size: usize) -> Config {
        Config {
            max_frames_in_flight: 4,
            buffer_count: 8,
            max_payload_size,
            data_per_packet: None,
            min_data_per_packet: 256,
            frame_retention_ns: 100_000_000,
            resend: ResendConfig::default(),
            extended_ids: None,
            max_blocks_ahead: 64,
        }
    }

    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        if self.max_frames_in_flight == 0 {
            return Err(ConfigError::NoFrameSlots);
        }
        if self.buffer_count != 0 && self.buffer_count < self.max_frames_in_flight {
            return Err(ConfigError::TooFewBuffers {
                buffers: self.buffer_count,
                slots: self.max_frames_in_flight,
            });
        }
        if self.data_per_packet == Some(0) || self.min_data_per_packet == 0 {
            return Err(ConfigError::ZeroDataPerPacket);
        }
        if self.max_blocks_ahead == 0 {
            return Err(ConfigError::NoBlocksAhead);
        }
        let r = self.resend.request_ratio;
        if !(r.is_finite() && (0.0..=4.0).contains(&r)) {
            return Err(ConfigError::BadRequestRatio(r.to_string()));
        }
        Ok(())
    }
}
