//! Running totals of what the assembler saw and did.

/// Counters, monotonically increasing for the life of an [`super::Assembler`].
///
/// They are finer than Aravis's stream statistics on purpose: when a stream
/// loses frames, the split between "never arrived", "arrived late",
/// "arrived malformed" and "no buffer" says which part of the path to fix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Frames delivered with every byte, leader and trailer.
    pub frames_completed: u64,
    /// Frames delivered with something missing (timed out, evicted or
    /// flushed) or with a conflict.
    pub frames_incomplete: u64,
    /// Of the incomplete frames, those delivered because a packet arrived
    /// twice with different bytes: one copy was forged (or the device is
    /// broken), and which one cannot be told.
    pub frames_conflict: u64,
    /// Incomplete frames delivered because frame retention expired.
    pub frames_timed_out: u64,
    /// Incomplete frames delivered early because a newer block needed the slot.
    pub frames_evicted: u64,
    /// Blocks dropped because no frame buffer was free (the caller did not recycle).
    pub underruns: u64,
    /// Datagrams passed to `handle_packet`, valid or not.
    pub packets_received: u64,
    /// Packets (leader, payload, trailer) still missing when incomplete frames were delivered.
    pub packets_missing: u64,
    /// Packets that arrived again after being placed; never copied twice.
    /// Their bytes are compared with the placed copy (see `packets_conflict`).
    pub packets_duplicate: u64,
    /// Duplicates whose bytes (or leader, or trailer) differ from the copy
    /// already placed; each marks its frame as a conflict.
    pub packets_conflict: u64,
    /// Retransmitted packets (status PACKET_RESEND) that filled a gap.
    pub packets_resent: u64,
    /// All packets ignored, for whatever reason (sum of the detailed counters below and inconsistent ones).
    pub packets_ignored: u64,
    /// Packets for blocks already delivered, dropped or too old.
    pub packets_late: u64,
    /// Of the late packets, first transmissions (not resends) for a block
    /// that was delivered complete: a packet the frame already had came
    /// again. It is what the camera's packets look like after a forger's
    /// copies completed the frame first, the one forgery the assembler
    /// cannot turn into a conflict; but an original overtaken by its own
    /// resend (common when the sender or receiver is loaded) counts too.
    /// A hint, not proof.
    pub packets_after_complete: u64,
    /// Packets of a new block whose id is too far ahead of the newest block
    /// (more than `Config::max_blocks_ahead`) or behind it (more than
    /// `max_frames_in_flight`): no buffer, no resend request.
    pub packets_out_of_window: u64,
    /// Packets with the other id form (extended ids on a standard-id stream
    /// or the reverse): ignored.
    pub packets_wrong_id_form: u64,
    /// Times the block-id window moved to a block outside it because
    /// `RESYNC_PACKETS` packets of it (and the blocks just before it) came
    /// in a row with no frame in flight: the device restarted its ids or
    /// skipped far ahead.
    pub block_id_resyncs: u64,
    /// Datagrams that are not valid GVSP (short, bad format, block id 0, ...).
    pub packets_malformed: u64,
    /// Payload packets that would land outside the announced payload or the buffer.
    pub packets_out_of_bounds: u64,
    /// Packets with an error status (usually answers to resend requests).
    pub packets_error: u64,
    /// Packet ids the device declared unavailable, so they are never requested again.
    pub packets_unavailable: u64,
    /// Resend requests returned by `poll_transmit`.
    pub resend_requests: u64,
    /// Packet ids covered by those requests (a repeat counts again).
    pub resend_packets_requested: u64,
    /// Payload bytes copied into frame buffers.
    pub bytes_received: u64,
}
