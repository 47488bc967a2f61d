//! The errors the wire-version layer reports, in one place below the board
//! and the host window that use them: what a board refuses, and what
//! proves board and host disagree about the stream.

/// Why the board refused a packet. None of these stop the board: a real
/// FPGA just ignores what it cannot parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BoardError {
    /// The payload is not a packet of the board's FADE version.
    #[error("not a FADE packet of this version: {0}")]
    Wire(#[from] linerate_wire::Error),
    /// A FADE-10G DATA packet reached the board, which only sends them.
    #[error("board received a FADE-10G DATA packet (packet number {packet_number}); boards only send data")]
    UnexpectedTenGData {
        /// Its packet number.
        packet_number: u32,
    },
    /// A FADE-10G command response reached the board, which only sends them.
    #[error("board received a command response (code {code:#06x}); boards only send them")]
    UnexpectedResponse {
        /// The answered command's code.
        code: u16,
    },
    /// A DATA packet reached the board, which only sends them.
    #[error("board received a DATA packet (set {set}, packet {packet}); boards only send data")]
    UnexpectedData {
        /// Its set number.
        set: u16,
        /// Its packet number.
        packet: u8,
    },
}

/// A packet that proves the board and host disagree about the stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// A packet from a set the board cannot be sending now (v1).
    #[error("packet {packet} of set {set} is impossible: expected set {expected_set} (or the one before or after); did the board restart?")]
    ImpossibleSet {
        /// Its set number.
        set: u16,
        /// Its packet number.
        packet: u8,
        /// The set of the first missing packet.
        expected_set: u16,
    },
    /// A packet number beyond the 32 packets of a set (v1).
    #[error("packet number {packet} of set {set} is beyond the 32 packets of a set")]
    PacketNumber {
        /// Its set number.
        set: u16,
        /// Its packet number.
        packet: u8,
    },
    /// A FADE-10G packet number outside the window of 16 (and the 32
    /// before it, for late copies): impossible for a working board.
    #[error("packet number {packet_number} is impossible: outside the window of 16 from packet {expected} (and the 32 before it); did the board restart?")]
    OutOfWindow {
        /// Its packet number.
        packet_number: u32,
        /// The first missing packet number.
        expected: u32,
    },
}
