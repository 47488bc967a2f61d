//! FADE-10G: the jumbo-frame FADE wire format for 1 and 10 Gb/s links.
//!
//! Every packet starts with the protocol version word [`VERSION`]
//! (`0x0100`), followed by a 16-bit type: `0xa5a5`/`0xa5a6` for DATA and
//! `0xa55a` for a command response (both FPGA to host), or a command code
//! (host to FPGA). All offsets below count from the first byte after the
//! ethertype.
//!
//! | Packet | Layout |
//! |---|---|
//! | DATA | `0100`, `a5a5` (`a5a6` if flushed), seq u16, packet number u32, delay u32, 12-byte command response, 8192 data bytes |
//! | command response | `0100`, `a55a`, `0000`, 12-byte command response, zero trailer |
//! | command | `0100`, code u16, seq u16, argument u32, padding |
//! | ACK / NACK | `0100`, `0003` / `0004`, seq u16, packet number u32, delay u32 (all copied from the DATA), padding |
//!
//! Packet numbers count up from 0 and wrap at 2^32; the FPGA keeps a window
//! of [`WINDOW_LEN`] unacknowledged packets. The 16-bit seq of a DATA packet
//! counts every transmission, retransmissions included, and the ACK echoes
//! it so the FPGA can tell which retransmissions are still needed.

use super::{fill, CONTROL_LEN};
use crate::bytes::{be_u16, be_u32, be_u64, put_u16, put_u32};
use crate::error::{ensure_len, Error, Result};

/// Byte offsets of FADE-10G packets (after the ethertype).
mod field {
    use crate::{Field, Rest};
    /// Protocol version, first in every packet.
    pub const VERSION: usize = 0;
    /// Packet type (FPGA to host) or command code (host to FPGA).
    pub const TYPE: usize = 2;
    /// Sequence number: DATA and ACK/NACK (transmission), commands (command).
    pub const SEQ: usize = 4;
    /// Packet number in DATA and ACK/NACK; the argument in commands.
    pub const PACKET: usize = 6;
    /// Inter-packet delay in DATA, echoed by ACK/NACK.
    pub const DELAY: usize = 10;
    /// Command response carried by every DATA packet.
    pub const DATA_RESPONSE: Field = 14..26;
    /// User data.
    pub const DATA: Field = 26..8218;
    /// Unused word of a command response packet.
    pub const FILLER: usize = 4;
    /// The response of a command response packet.
    pub const RESPONSE: Field = 6..18;
    /// Zero trailer of a command response packet.
    pub const RESPONSE_TRAILER: Rest = 18..;
    /// Everything a control packet carries after its command code.
    pub const CONTROL_ARGS: Rest = 4..;
    /// Padding after the fields of a control packet.
    pub const CONTROL_PADDING: Rest = 14..;
    /// Offsets inside a 12-byte command response.
    pub const RESP_CODE: usize = 0;
    /// Sequence number of the answered command, inside a response.
    pub const RESP_SEQ: usize = 2;
    /// User-defined bytes, inside a response.
    pub const RESP_DATA: Field = 4..12;
}

/// The only protocol version defined; packets with another are refused.
pub const VERSION: u16 = 0x0100;

/// Type of a DATA packet.
pub const TYPE_DATA: u16 = 0xa5a5;

/// Type of the last DATA packet after the data source ended; its final
/// eight data bytes hold the number of valid 64-bit words.
pub const TYPE_DATA_FLUSHED: u16 = 0xa5a6;

/// Type of a packet that carries only a command response.
pub const TYPE_COMMAND_RESPONSE: u16 = 0xa55a;

/// Command code: start transmission.
pub const CMD_START: u16 = 1;
/// Command code: stop transmission.
pub const CMD_STOP: u16 = 2;
/// Command code: acknowledge a DATA packet.
pub const CMD_ACK: u16 = 3;
/// Command code: negative acknowledgement (ignored by the published core).
pub const CMD_NACK: u16 = 4;
/// Command code: reset the core (it sends no response).
pub const CMD_RESET: u16 = 5;
/// Smallest user command code; lower codes are reserved for the protocol.
pub const FIRST_USER_COMMAND: u16 = 0x0100;

/// Bytes before the user data in a DATA packet.
pub const DATA_HEADER_LEN: usize = field::DATA.start;

/// User data bytes per DATA packet.
pub const DATA_LEN: usize = field::DATA.end - field::DATA.start;

/// Exact length of a DATA packet; the reference driver drops any other length.
pub const DATA_PACKET_LEN: usize = field::DATA.end;

/// Length of a command response (code, seq, 8 user bytes).
pub const RESPONSE_LEN: usize = field::RESPONSE.end - field::RESPONSE.start;

/// Bytes a command response packet must hold to carry its response.
pub const RESPONSE_HEADER_LEN: usize = field::RESPONSE.end;

/// Length of a command response packet as the FPGA emits it (a 64-byte
/// Ethernet frame: the response padded with zeros).
pub const RESPONSE_PACKET_LEN: usize = 50;

/// Bytes a control packet must hold to carry the fields of any command.
pub const CONTROL_HEADER_LEN: usize = field::CONTROL_PADDING.start;

/// Packets the FPGA may have in flight, unacknowledged.
pub const WINDOW_LEN: u32 = 16;

// The FPGA pads its response frames to 64 bytes, above the Ethernet minimum.
const _: () =
    assert!(crate::ethernet::HEADER_LEN + RESPONSE_PACKET_LEN >= crate::ethernet::MIN_FRAME_LEN);
const _: () = assert!(RESPONSE_PACKET_LEN >= RESPONSE_HEADER_LEN);

/// Refuses packets of another protocol version.
fn check_version(version: u16) -> Result<()> {
    if version == VERSION {
        Ok(())
    } else {
        Err(Error::BadValue {
            field: "FADE-10G protocol version",
            value: version.into(),
        })
    }
}

/// A user command code: at least [`FIRST_USER_COMMAND`] and not one of the
/// packet type words, so a command can never be mistaken for DATA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct UserCommand(u16);

impl UserCommand {
    /// Checks that `code` is usable as a user command.
    pub fn new(code: u16) -> Result<Self> {
        if code < FIRST_USER_COMMAND
            || code == TYPE_DATA
            || code == TYPE_DATA_FLUSHED
            || code == TYPE_COMMAND_RESPONSE
        {
            Err(Error::BadValue {
                field: "FADE-10G user command code",
                value: code.into(),
            })
        } else {
            Ok(UserCommand(code))
        }
    }

    /// The code as sent on the wire.
    pub const fn code(self) -> u16 {
        self.0
    }
}

/// A command the host sends to the FPGA (ACK and NACK are separate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Command {
    /// Start transmission; the FPGA answers with a response.
    Start,
    /// Stop transmission; the FPGA answers with a response.
    Stop,
    /// Reset the core; no response comes back.
    Reset,
    /// A board-specific command, answered with a response.
    User(UserCommand),
}

impl Command {
    /// The code as sent on the wire.
    pub const fn code(self) -> u16 {
        match self {
            Command::Start => CMD_START,
            Command::Stop => CMD_STOP,
            Command::Reset => CMD_RESET,
            Command::User(u) => u.code(),
        }
    }
}

impl TryFrom<u16> for Command {
    type Error = Error;

    /// Maps a wire code to a command, so reserved codes become typed errors.
    fn try_from(code: u16) -> Result<Self> {
        match code {
            CMD_START => Ok(Command::Start),
            CMD_STOP => Ok(Command::Stop),
            CMD_RESET => Ok(Command::Reset),
            c if c >= FIRST_USER_COMMAND => Ok(Command::User(UserCommand::new(c)?)),
            c => Err(Error::Unsupported {
                what: "FADE-10G command",
                value: c.into(),
            }),
        }
    }
}

/// The 12-byte answer to a command, carried by DATA and response packets.
///
/// The FPGA repeats the answered command's code and seq so the host can
/// match it; the other 8 bytes are board-defined. An all-zero response
/// (code 0) means no response is available yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CommandResponse {
    /// Code of the answered command; 0 when there is no response.
    pub code: u16,
    /// Sequence number of the answered command.
    pub seq: u16,
    /// Board-defined result bytes.
    pub data: [u8; 8],
}

impl CommandResponse {
    /// The all-zero response the FPGA sends while no command has completed.
    pub const NONE: CommandResponse = CommandResponse {
        code: 0,
        seq: 0,
        data: [0; 8],
    };

    /// Whether this carries no answer (code 0 is never a command).
    pub const fn is_none(&self) -> bool {
        self.code == 0
    }

    /// Whether this answers `command`, the check the host uses to match replies.
    pub fn answers(&self, command: &CommandRepr) -> bool {
        self.code == command.command.code() && self.seq == command.seq
    }

    /// Decodes the 12 wire bytes.
    pub fn from_bytes(bytes: &[u8; RESPONSE_LEN]) -> Self {
        let mut data = [0u8; 8];
        data.copy_from_slice(&bytes[field::RESP_DATA]);
        CommandResponse {
            code: be_u16(bytes, field::RESP_CODE),
            seq: be_u16(bytes, field::RESP_SEQ),
            data,
        }
    }

    /// Encodes the 12 wire bytes.
    pub fn to_bytes(&self) -> [u8; RESPONSE_LEN] {
        let mut out = [0u8; RESPONSE_LEN];
        put_u16(&mut out, field::RESP_CODE, self.code);
        put_u16(&mut out, field::RESP_SEQ, self.seq);
        out[field::RESP_DATA].copy_from_slice(&self.data);
        out
    }

    /// Reads a command response packet: version and type must match.
    pub fn parse<T: AsRef<[u8]>>(packet: &ResponsePacket<T>) -> Result<CommandResponse> {
        check_version(packet.version())?;
        if packet.packet_type() != TYPE_COMMAND_RESPONSE {
            return Err(Error::BadValue {
                field: "FADE-10G command response packet type",
                value: packet.packet_type().into(),
            });
        }
        Ok(packet.response())
    }

    /// Bytes a command response packet occupies, as the FPGA sends it.
    pub const fn buffer_len(&self) -> usize {
        RESPONSE_PACKET_LEN
    }

    /// Writes a command response packet, zeroing the rest of the buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut ResponsePacket<T>) {
        packet.set_version(VERSION);
        packet.set_packet_type(TYPE_COMMAND_RESPONSE);
        packet.set_filler(0);
        packet.set_response(self);
        packet.buffer.as_mut()[field::RESPONSE_TRAILER].fill(0);
    }
}

/// A zero-copy view of any FADE-10G packet, used to tell the kinds apart.
#[derive(Debug, Clone)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps `buffer` after checking it holds the version and type words.
    pub fn new_checked(buffer: T) -> Result<Self> {
        ensure_len("FADE-10G packet", buffer.as_ref(), field::TYPE + 2)?;
        Ok(Packet { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Protocol version; [`VERSION`] in a valid packet.
    pub fn version(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::VERSION)
    }

    /// Packet type or command code.
    pub fn packet_type(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::TYPE)
    }

    /// Whether this is a DATA packet, flushed or not.
    pub fn is_data(&self) -> bool {
        matches!(self.packet_type(), TYPE_DATA | TYPE_DATA_FLUSHED)
    }
}

/// A zero-copy view of a FADE-10G DATA packet.
#[derive(Debug, Clone)]
pub struct DataPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> DataPacket<T> {
    /// Wraps `buffer` after checking it holds a whole DATA packet.
    pub fn new_checked(buffer: T) -> Result<Self> {
        ensure_len("FADE-10G data packet", buffer.as_ref(), DATA_PACKET_LEN)?;
        Ok(DataPacket { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Protocol version.
    pub fn version(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::VERSION)
    }

    /// [`TYPE_DATA`] or [`TYPE_DATA_FLUSHED`] in a valid packet.
    pub fn packet_type(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::TYPE)
    }

    /// Whether this is the final, partly filled packet of a stream.
    pub fn is_flushed(&self) -> bool {
        self.packet_type() == TYPE_DATA_FLUSHED
    }

    /// Transmission sequence number, echoed by the ACK.
    pub fn seq(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::SEQ)
    }

    /// Packet number in the stream (wraps at 2^32).
    pub fn packet_number(&self) -> u32 {
        be_u32(self.buffer.as_ref(), field::PACKET)
    }

    /// The FPGA's current inter-packet delay, echoed by the ACK.
    pub fn delay(&self) -> u32 {
        be_u32(self.buffer.as_ref(), field::DELAY)
    }

    /// The piggybacked command response.
    pub fn response(&self) -> CommandResponse {
        let mut raw = [0u8; RESPONSE_LEN];
        raw.copy_from_slice(&self.buffer.as_ref()[field::DATA_RESPONSE]);
        CommandResponse::from_bytes(&raw)
    }

    /// The [`DATA_LEN`] user data bytes.
    pub fn data(&self) -> &[u8] {
        &self.buffer.as_ref()[field::DATA]
    }

    /// The last 8 data bytes as a big-endian count of valid 64-bit words,
    /// meaningful only in a flushed packet.
    pub fn flushed_word_count(&self) -> u64 {
        be_u64(self.buffer.as_ref(), field::DATA.end - 8)
    }

    /// Bytes after the data; empty in a well-formed packet.
    pub fn trailer(&self) -> &[u8] {
        &self.buffer.as_ref()[DATA_PACKET_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> DataPacket<T> {
    /// Sets the protocol version.
    pub fn set_version(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::VERSION, value);
    }

    /// Sets the packet type.
    pub fn set_packet_type(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::TYPE, value);
    }

    /// Sets the transmission sequence number.
    pub fn set_seq(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::SEQ, value);
    }

    /// Sets the packet number.
    pub fn set_packet_number(&mut self, value: u32) {
        put_u32(self.buffer.as_mut(), field::PACKET, value);
    }

    /// Sets the reported inter-packet delay.
    pub fn set_delay(&mut self, value: u32) {
        put_u32(self.buffer.as_mut(), field::DELAY, value);
    }

    /// Sets the piggybacked command response.
    pub fn set_response(&mut self, value: &CommandResponse) {
        self.buffer.as_mut()[field::DATA_RESPONSE].copy_from_slice(&value.to_bytes());
    }

    /// Mutable access to the user data, so a sender can fill it in place.
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::DATA]
    }
}

/// A zero-copy view of a FADE-10G command response packet.
#[derive(Debug, Clone)]
pub struct ResponsePacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> ResponsePacket<T> {
    /// Wraps `buffer` after checking it holds the response.
    pub fn new_checked(buffer: T) -> Result<Self> {
        ensure_len(
            "FADE-10G command response packet",
            buffer.as_ref(),
            RESPONSE_HEADER_LEN,
        )?;
        Ok(ResponsePacket { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Protocol version.
    pub fn version(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::VERSION)
    }

    /// [`TYPE_COMMAND_RESPONSE`] in a valid packet.
    pub fn packet_type(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::TYPE)
    }

    /// The unused word after the type; the FPGA sends zero, nobody reads it.
    pub fn filler(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::FILLER)
    }

    /// The command response.
    pub fn response(&self) -> CommandResponse {
        let mut raw = [0u8; RESPONSE_LEN];
        raw.copy_from_slice(&self.buffer.as_ref()[field::RESPONSE]);
        CommandResponse::from_bytes(&raw)
    }

    /// Bytes after the response: zero padding from the FPGA.
    pub fn trailer(&self) -> &[u8] {
        &self.buffer.as_ref()[field::RESPONSE_TRAILER]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ResponsePacket<T> {
    /// Sets the protocol version.
    pub fn set_version(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::VERSION, value);
    }

    /// Sets the packet type.
    pub fn set_packet_type(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::TYPE, value);
    }

    /// Sets the unused filler word.
    pub fn set_filler(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::FILLER, value);
    }

    /// Sets the command response.
    pub fn set_response(&mut self, value: &CommandResponse) {
        self.buffer.as_mut()[field::RESPONSE].copy_from_slice(&value.to_bytes());
    }
}

/// A zero-copy view of a FADE-10G control packet (command, ACK or NACK).
#[derive(Debug, Clone)]
pub struct ControlPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> ControlPacket<T> {
    /// Wraps `buffer` after checking it holds [`CONTROL_HEADER_LEN`] bytes.
    pub fn new_checked(buffer: T) -> Result<Self> {
        ensure_len(
            "FADE-10G control packet",
            buffer.as_ref(),
            CONTROL_HEADER_LEN,
        )?;
        Ok(ControlPacket { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Protocol version.
    pub fn version(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::VERSION)
    }

    /// The raw command code ([`CMD_ACK`], [`CMD_START`], a user code, ...).
    pub fn command(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::TYPE)
    }

    /// Command sequence number, or the echoed DATA seq in ACK/NACK.
    pub fn seq(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::SEQ)
    }

    /// Command argument; in ACK/NACK, the acknowledged packet number.
    pub fn arg(&self) -> u32 {
        be_u32(self.buffer.as_ref(), field::PACKET)
    }

    /// The echoed DATA delay (ACK/NACK only; padding otherwise).
    pub fn delay(&self) -> u32 {
        be_u32(self.buffer.as_ref(), field::DELAY)
    }

    /// Bytes after the fields: padding, ignored by the FPGA.
    pub fn padding(&self) -> &[u8] {
        &self.buffer.as_ref()[field::CONTROL_PADDING]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ControlPacket<T> {
    /// Sets the protocol version.
    pub fn set_version(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::VERSION, value);
    }

    /// Sets the command code.
    pub fn set_command(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::TYPE, value);
    }

    /// Sets the sequence number.
    pub fn set_seq(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::SEQ, value);
    }

    /// Sets the argument (the packet number in ACK/NACK).
    pub fn set_arg(&mut self, value: u32) {
        put_u32(self.buffer.as_mut(), field::PACKET, value);
    }

    /// Sets the echoed delay (ACK/NACK).
    pub fn set_delay(&mut self, value: u32) {
        put_u32(self.buffer.as_mut(), field::DELAY, value);
    }

    /// Fills everything after the command code with the driver's fill byte.
    fn fill_arguments(&mut self) {
        fill(&mut self.buffer.as_mut()[field::CONTROL_ARGS]);
    }
}

/// The parsed form of a DATA packet; borrows the user data from the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DataRepr<'a> {
    /// Set on the final, partly filled packet of a stream ([`TYPE_DATA_FLUSHED`]).
    pub flushed: bool,
    /// Transmission sequence number (counts retransmissions too).
    pub seq: u16,
    /// Packet number in the stream.
    pub packet_number: u32,
    /// The FPGA's current inter-packet delay.
    pub delay: u32,
    /// Piggybacked command response ([`CommandResponse::NONE`] if none).
    pub response: CommandResponse,
    /// The user data, borrowed so a receiver copies it only once.
    #[cfg_attr(
        feature = "serde",
        serde(
            rename = "data_bytes",
            serialize_with = "crate::serde_support::byte_count"
        )
    )]
    pub data: &'a [u8; DATA_LEN],
}

impl<'a> DataRepr<'a> {
    /// Validates and reads a DATA packet: version, type and exact length.
    pub fn parse<B: AsRef<[u8]> + ?Sized>(packet: &DataPacket<&'a B>) -> Result<DataRepr<'a>> {
        let buf: &'a [u8] = packet.buffer.as_ref();
        check_version(packet.version())?;
        let flushed = match packet.packet_type() {
            TYPE_DATA => false,
            TYPE_DATA_FLUSHED => true,
            other => {
                return Err(Error::BadValue {
                    field: "FADE-10G data packet type",
                    value: other.into(),
                })
            }
        };
        if buf.len() != DATA_PACKET_LEN {
            return Err(Error::BadLength {
                what: "FADE-10G data packet",
                len: buf.len(),
                rule: "must be exactly 8218 bytes (26-byte header, 8192 data bytes)",
            });
        }
        let data = buf
            .get(field::DATA)
            .and_then(|d| <&[u8; DATA_LEN]>::try_from(d).ok())
            .ok_or(Error::Truncated {
                what: "FADE-10G data packet",
                got: buf.len(),
                need: DATA_PACKET_LEN,
            })?;
        Ok(DataRepr {
            flushed,
            seq: packet.seq(),
            packet_number: packet.packet_number(),
            delay: packet.delay(),
            response: packet.response(),
            data,
        })
    }

    /// Bytes the packet occupies: always [`DATA_PACKET_LEN`].
    pub const fn buffer_len(&self) -> usize {
        DATA_PACKET_LEN
    }

    /// Writes the packet into `packet`.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut DataPacket<T>) {
        packet.set_version(VERSION);
        packet.set_packet_type(if self.flushed {
            TYPE_DATA_FLUSHED
        } else {
            TYPE_DATA
        });
        packet.set_seq(self.seq);
        packet.set_packet_number(self.packet_number);
        packet.set_delay(self.delay);
        packet.set_response(&self.response);
        packet.data_mut().copy_from_slice(self.data);
    }

    /// The ACK that confirms this packet, echoing seq, number and delay.
    pub fn ack(&self) -> AckRepr {
        AckRepr {
            seq: self.seq,
            packet_number: self.packet_number,
            delay: self.delay,
        }
    }

    /// In a flushed packet, the count of valid 64-bit words the FPGA wrote
    /// into the last 8 data bytes; `None` for ordinary packets.
    pub fn flushed_word_count(&self) -> Option<u64> {
        if !self.flushed {
            return None;
        }
        let mut word = [0u8; 8];
        word.copy_from_slice(&self.data[DATA_LEN - 8..]);
        Some(u64::from_be_bytes(word))
    }
}

/// A command with its sequence number and argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CommandRepr {
    /// What to do.
    pub command: Command,
    /// Sequence number; the FPGA latches a command only when this changes,
    /// so resends keep it, and the response repeats it.
    pub seq: u16,
    /// Command argument.
    pub arg: u32,
}

/// The fields of an ACK or NACK, all copied from the DATA packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AckRepr {
    /// The DATA packet's transmission sequence number.
    pub seq: u16,
    /// The acknowledged packet number.
    pub packet_number: u32,
    /// The DATA packet's delay (ignored by the FPGA).
    pub delay: u32,
}

/// The parsed form of a control packet (host to FPGA).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ControlRepr {
    /// START, STOP, RESET or a user command.
    Command(CommandRepr),
    /// Acknowledge a DATA packet.
    Ack(AckRepr),
    /// Negatively acknowledge a DATA packet.
    Nack(AckRepr),
}

impl ControlRepr {
    /// Reads a control packet; padding is ignored, reserved codes are errors.
    pub fn parse<T: AsRef<[u8]>>(packet: &ControlPacket<T>) -> Result<ControlRepr> {
        check_version(packet.version())?;
        let ack = || AckRepr {
            seq: packet.seq(),
            packet_number: packet.arg(),
            delay: packet.delay(),
        };
        Ok(match packet.command() {
            CMD_ACK => ControlRepr::Ack(ack()),
            CMD_NACK => ControlRepr::Nack(ack()),
            code => ControlRepr::Command(CommandRepr {
                command: Command::try_from(code)?,
                seq: packet.seq(),
                arg: packet.arg(),
            }),
        })
    }

    /// The command code this packet carries.
    pub const fn code(&self) -> u16 {
        match self {
            ControlRepr::Command(c) => c.command.code(),
            ControlRepr::Ack(_) => CMD_ACK,
            ControlRepr::Nack(_) => CMD_NACK,
        }
    }

    /// Bytes the packet occupies: always [`CONTROL_LEN`], which the FPGA's
    /// receiver requires.
    pub const fn buffer_len(&self) -> usize {
        CONTROL_LEN
    }

    /// Writes the packet into `packet`, filling the rest of its buffer with
    /// [`super::FILL_BYTE`]; size the buffer with [`Self::buffer_len`].
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut ControlPacket<T>) {
        packet.set_version(VERSION);
        packet.set_command(self.code());
        packet.fill_arguments();
        match self {
            ControlRepr::Command(c) => {
                packet.set_seq(c.seq);
                packet.set_arg(c.arg);
            }
            ControlRepr::Ack(a) | ControlRepr::Nack(a) => {
                packet.set_seq(a.seq);
                packet.set_arg(a.packet_number);
                packet.set_delay(a.delay);
            }
        }
    }
}

/// Any FADE-10G packet, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Repr<'a> {
    /// A DATA packet (FPGA to host).
    Data(DataRepr<'a>),
    /// A command response packet (FPGA to host).
    Response(CommandResponse),
    /// A command, ACK or NACK (host to FPGA).
    Control(ControlRepr),
}

impl<'a> Repr<'a> {
    /// Parses whichever kind of packet `packet` holds.
    pub fn parse<B: AsRef<[u8]> + ?Sized>(packet: &Packet<&'a B>) -> Result<Repr<'a>> {
        let bytes: &'a [u8] = packet.buffer.as_ref();
        check_version(packet.version())?;
        match packet.packet_type() {
            TYPE_DATA | TYPE_DATA_FLUSHED => {
                let data = DataPacket::new_checked(bytes)?;
                Ok(Repr::Data(DataRepr::parse(&data)?))
            }
            TYPE_COMMAND_RESPONSE => {
                let resp = ResponsePacket::new_checked(bytes)?;
                Ok(Repr::Response(CommandResponse::parse(&resp)?))
            }
            code => {
                // Name a reserved code before complaining about the length.
                if code != CMD_ACK && code != CMD_NACK {
                    Command::try_from(code)?;
                }
                let control = ControlPacket::new_checked(bytes)?;
                Ok(Repr::Control(ControlRepr::parse(&control)?))
            }
        }
    }

    /// Parses an Ethernet payload (the bytes after the ethertype).
    pub fn parse_bytes(bytes: &'a [u8]) -> Result<Repr<'a>> {
        Repr::parse(&Packet::new_checked(bytes)?)
    }

    /// Bytes the packet occupies when emitted.
    pub const fn buffer_len(&self) -> usize {
        match self {
            Repr::Data(d) => d.buffer_len(),
            Repr::Response(r) => r.buffer_len(),
            Repr::Control(c) => c.buffer_len(),
        }
    }

    /// Writes exactly [`Self::buffer_len`] bytes at the start of `buf` and
    /// returns that length, like the GVCP and GVSP codecs do.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let got = buf.len();
        let need = self.buffer_len();
        let out = buf.get_mut(..need).ok_or(Error::Truncated {
            what: "FADE-10G output buffer",
            got,
            need,
        })?;
        self.emit_exact(out);
        Ok(need)
    }

    /// Emits into a new vector of exactly [`Self::buffer_len`] bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.buffer_len()];
        self.emit_exact(&mut out);
        out
    }

    /// Emits into `out`, whose length the caller made `buffer_len()`.
    fn emit_exact(&self, out: &mut [u8]) {
        match self {
            Repr::Data(d) => d.emit(&mut DataPacket { buffer: out }),
            Repr::Response(r) => r.emit(&mut ResponsePacket { buffer: out }),
            Repr::Control(c) => c.emit(&mut ControlPacket { buffer: out }),
        }
    }
}

impl<'a> From<DataRepr<'a>> for Repr<'a> {
    fn from(d: DataRepr<'a>) -> Self {
        Repr::Data(d)
    }
}

impl From<CommandResponse> for Repr<'_> {
    fn from(r: CommandResponse) -> Self {
        Repr::Response(r)
    }
}

impl From<ControlRepr> for Repr<'_> {
    fn from(c: ControlRepr) -> Self {
        Repr::Control(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fade::FILL_BYTE;

    /// A DATA packet laid out as the FPGA's sender concatenates it:
    /// `0100`, type, seq, packet number, delay, response, data.
    fn data_packet(flushed: bool, seq: u16, pkt: u32, delay: u32, resp: [u8; 12]) -> Vec<u8> {
        let mut v = vec![0x01, 0x00];
        v.extend_from_slice(if flushed {
            &[0xa5, 0xa6]
        } else {
            &[0xa5, 0xa5]
        });
        v.extend_from_slice(&seq.to_be_bytes());
        v.extend_from_slice(&pkt.to_be_bytes());
        v.extend_from_slice(&delay.to_be_bytes());
        v.extend_from_slice(&resp);
        v.extend((0..DATA_LEN).map(|i| (i % 253) as u8));
        v
    }

    fn user(code: u16) -> Command {
        Command::User(UserCommand::new(code).expect("valid user code"))
    }

    #[test]
    fn data_vector_from_the_published_layout() {
        let resp = [0x01, 0x23, 0x00, 0x07, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 9];
        let bytes = data_packet(false, 0x002a, 0x0001_0000, 16, resp);
        assert_eq!(
            &bytes[..14],
            &[0x01, 0x00, 0xa5, 0xa5, 0x00, 0x2a, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10]
        );
        assert_eq!(bytes.len(), DATA_PACKET_LEN);
        let Repr::Data(d) = Repr::parse_bytes(&bytes).expect("valid DATA") else {
            panic!("expected DATA")
        };
        assert!(!d.flushed);
        assert_eq!(d.seq, 42);
        assert_eq!(d.packet_number, 65536);
        assert_eq!(d.delay, 16);
        assert_eq!(
            d.response,
            CommandResponse {
                code: 0x0123,
                seq: 7,
                data: [0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 9]
            }
        );
        assert_eq!(d.response.to_bytes(), resp);
        assert!(!d.response.is_none());
        assert_eq!(d.flushed_word_count(), None);
        assert_eq!(&d.data[..], &bytes[DATA_HEADER_LEN..]);
        assert_eq!(Repr::Data(d).to_vec(), bytes);
    }

    #[test]
    fn ack_copies_ten_bytes_from_offset_4_of_the_data() {
        let bytes = data_packet(false, 0xbeef, 0xffff_fff0, 0x1234_5678, [0; 12]);
        let Repr::Data(d) = Repr::parse_bytes(&bytes).expect("valid") else {
            panic!("expected DATA")
        };
        assert!(d.response.is_none());
        assert_eq!(d.response, CommandResponse::NONE);
        let ack = Repr::from(ControlRepr::Ack(d.ack())).to_vec();
        assert_eq!(ack.len(), CONTROL_LEN);
        assert_eq!(&ack[..4], &[0x01, 0x00, 0x00, 0x03]);
        assert_eq!(&ack[4..14], &bytes[4..14]);
        assert!(ack[14..].iter().all(|&b| b == FILL_BYTE));
        let p = ControlPacket::new_checked(&ack[..]).expect("long enough");
        assert_eq!(p.seq(), 0xbeef);
        assert_eq!(p.arg(), 0xffff_fff0);
        assert_eq!(p.delay(), 0x1234_5678);
        assert_eq!(p.padding().len(), CONTROL_LEN - CONTROL_HEADER_LEN);
        assert_eq!(
            Repr::parse_bytes(&ack).expect("valid ACK"),
            Repr::Control(ControlRepr::Ack(d.ack()))
        );
    }

    #[test]
    fn commands_match_the_driver_bytes() {
        // send_cmd: version, code, seq, argument, then 0xa5 up to 64 bytes.
        let mut start = vec![0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00];
        start.extend([0xa5; 54]);
        let r = Repr::Control(ControlRepr::Command(CommandRepr {
            command: Command::Start,
            seq: 1,
            arg: 0,
        }));
        assert_eq!(r.to_vec(), start);
        assert_eq!(Repr::parse_bytes(&start).expect("valid"), r);

        // A user command with an argument.
        let mut cmd = vec![0x01, 0x00, 0x12, 0x34, 0x00, 0x09, 0xca, 0xfe, 0xf0, 0x0d];
        cmd.extend([0xa5; 54]);
        let r = Repr::Control(ControlRepr::Command(CommandRepr {
            command: user(0x1234),
            seq: 9,
            arg: 0xcafe_f00d,
        }));
        assert_eq!(r.to_vec(), cmd);
        assert_eq!(Repr::parse_bytes(&cmd).expect("valid"), r);

        // The RESET the driver sends to an unknown board carries only the
        // version and code before the fill; its seq and argument read as fill.
        let mut reset = vec![0x01, 0x00, 0x00, 0x05];
        reset.extend([0xa5; 60]);
        let r = Repr::parse_bytes(&reset).expect("valid");
        assert_eq!(
            r,
            Repr::Control(ControlRepr::Command(CommandRepr {
                command: Command::Reset,
                seq: 0xa5a5,
                arg: 0xa5a5_a5a5,
            }))
        );
        assert_eq!(r.to_vec(), reset);
    }

    #[test]
    fn response_packet_matches_the_fpga_bytes() {
        // The sender's command header: version, a55a, 0000, 12-byte response,
        // then four zero 64-bit words. Internal commands answer with their
        // code and seq followed by zeros.
        let mut bytes = vec![0x01, 0x00, 0xa5, 0x5a, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03];
        bytes.extend([0u8; 8]);
        bytes.extend([0u8; 32]);
        assert_eq!(bytes.len(), RESPONSE_PACKET_LEN);
        let r = Repr::parse_bytes(&bytes).expect("valid response");
        let stop = CommandRepr {
            command: Command::Stop,
            seq: 3,
            arg: 0,
        };
        let Repr::Response(resp) = r else {
            panic!("expected a response")
        };
        assert!(resp.answers(&stop));
        assert!(!resp.answers(&CommandRepr { seq: 4, ..stop }));
        assert_eq!(r.to_vec(), bytes);
        let p = ResponsePacket::new_checked(&bytes[..]).expect("long enough");
        assert_eq!(p.filler(), 0);
        assert_eq!(p.trailer(), &[0u8; 32]);
        // Parsers accept the response without its trailer, or a nonzero filler.
        bytes[5] = 1;
        assert_eq!(
            Repr::parse_bytes(&bytes[..RESPONSE_HEADER_LEN]).expect("valid"),
            Repr::Response(resp)
        );
    }

    #[test]
    fn flushed_packet_carries_a_word_count() {
        let mut bytes = data_packet(true, 1, 2, 3, [0; 12]);
        let n = bytes.len();
        bytes[n - 8..].copy_from_slice(&17u64.to_be_bytes());
        let p = DataPacket::new_checked(&bytes[..]).expect("whole packet");
        assert!(p.is_flushed());
        assert_eq!(p.flushed_word_count(), 17);
        assert!(p.trailer().is_empty());
        let Repr::Data(d) = Repr::parse_bytes(&bytes).expect("valid") else {
            panic!("expected DATA")
        };
        assert!(d.flushed);
        assert_eq!(d.flushed_word_count(), Some(17));
        assert_eq!(Repr::Data(d).to_vec(), bytes);
    }

    #[test]
    fn every_control_kind_round_trips() {
        let a = AckRepr {
            seq: 65535,
            packet_number: u32::MAX,
            delay: 7,
        };
        for c in [
            ControlRepr::Ack(a),
            ControlRepr::Nack(a),
            ControlRepr::Command(CommandRepr {
                command: Command::Start,
                seq: 1,
                arg: 2,
            }),
            ControlRepr::Command(CommandRepr {
                command: Command::Stop,
                seq: 3,
                arg: 4,
            }),
            ControlRepr::Command(CommandRepr {
                command: Command::Reset,
                seq: 0,
                arg: 0,
            }),
            ControlRepr::Command(CommandRepr {
                command: user(0xffff),
                seq: 5,
                arg: 6,
            }),
        ] {
            let r = Repr::Control(c);
            let v = r.to_vec();
            assert_eq!(v.len(), r.buffer_len());
            assert_eq!(be_u16(&v, 2), c.code());
            assert_eq!(Repr::parse_bytes(&v).expect("round trip"), r);
        }
    }

    #[test]
    fn user_command_codes() {
        assert_eq!(UserCommand::new(0x0100).expect("valid").code(), 0x0100);
        for bad in [
            0,
            1,
            5,
            0x00ff,
            TYPE_DATA,
            TYPE_DATA_FLUSHED,
            TYPE_COMMAND_RESPONSE,
        ] {
            assert_eq!(
                UserCommand::new(bad),
                Err(Error::BadValue {
                    field: "FADE-10G user command code",
                    value: bad.into()
                })
            );
        }
        assert_eq!(Command::try_from(1), Ok(Command::Start));
        assert_eq!(Command::try_from(2), Ok(Command::Stop));
        assert_eq!(Command::try_from(5), Ok(Command::Reset));
        assert_eq!(Command::try_from(0x200), Ok(user(0x200)));
        for reserved in [0, CMD_ACK, CMD_NACK, 6, 0xff] {
            assert_eq!(
                Command::try_from(reserved),
                Err(Error::Unsupported {
                    what: "FADE-10G command",
                    value: reserved.into()
                })
            );
        }
    }

    #[test]
    fn errors_name_the_offending_value() {
        assert_eq!(
            Repr::parse_bytes(&[0x01, 0x00, 0x00]),
            Err(Error::Truncated {
                what: "FADE-10G packet",
                got: 3,
                need: 4
            })
        );
        // Wrong version, on every kind of view.
        let mut v1_start = vec![0x00, 0x01];
        v1_start.extend([0xa5; 62]);
        assert_eq!(
            Repr::parse_bytes(&v1_start),
            Err(Error::BadValue {
                field: "FADE-10G protocol version",
                value: 0x0001
            })
        );
        let wrong_version = Error::BadValue {
            field: "FADE-10G protocol version",
            value: 0x0200,
        };
        let mut data = data_packet(false, 0, 0, 0, [0; 12]);
        data[0] = 0x02;
        let p = DataPacket::new_checked(&data[..]).expect("long enough");
        assert_eq!(DataRepr::parse(&p), Err(wrong_version.clone()));
        let mut resp = [0u8; RESPONSE_PACKET_LEN];
        resp[0] = 0x02;
        let p = ResponsePacket::new_checked(&resp[..]).expect("long enough");
        assert_eq!(CommandResponse::parse(&p), Err(wrong_version.clone()));
        let mut ctl = [0xa5u8; CONTROL_LEN];
        ctl[..4].copy_from_slice(&[0x02, 0x00, 0x00, 0x03]);
        let p = ControlPacket::new_checked(&ctl[..]).expect("long enough");
        assert_eq!(ControlRepr::parse(&p), Err(wrong_version));
        // Reserved command codes, even in short packets.
        for code in [0u16, 6, 0xff] {
            let mut b = vec![0x01, 0x00];
            b.extend(code.to_be_bytes());
            assert_eq!(
                Repr::parse_bytes(&b),
                Err(Error::Unsupported {
                    what: "FADE-10G command",
                    value: code.into()
                })
            );
        }
        // Known codes, too short for their fields.
        for code in [CMD_ACK, CMD_NACK, CMD_START, 0x0100] {
            let mut b = vec![0x01, 0x00];
            b.extend(code.to_be_bytes());
            b.extend([0u8; 9]);
            assert_eq!(
                Repr::parse_bytes(&b),
                Err(Error::Truncated {
                    what: "FADE-10G control packet",
                    got: 13,
                    need: CONTROL_HEADER_LEN
                })
            );
        }
        // DATA too short, and too long.
        assert_eq!(
            Repr::parse_bytes(&data_packet(true, 0, 0, 0, [0; 12])[..DATA_PACKET_LEN - 1]),
            Err(Error::Truncated {
                what: "FADE-10G data packet",
                got: DATA_PACKET_LEN - 1,
                need: DATA_PACKET_LEN
            })
        );
        let mut long = data_packet(false, 0, 0, 0, [0; 12]);
        long.push(0xee);
        assert_eq!(
            DataPacket::new_checked(&long[..])
                .expect("long enough")
                .trailer(),
            &[0xee]
        );
        assert!(matches!(
            Repr::parse_bytes(&long),
            Err(Error::BadLength { len: 8219, .. })
        ));
        // Response too short.
        assert_eq!(
            Repr::parse_bytes(&[0x01, 0x00, 0xa5, 0x5a, 0, 0, 0, 1]),
            Err(Error::Truncated {
                what: "FADE-10G command response packet",
                got: 8,
                need: RESPONSE_HEADER_LEN
            })
        );
        // Views over the wrong kind of packet.
        let mut not_data = data_packet(false, 0, 0, 0, [0; 12]);
        not_data[3] = 0x5a;
        let p = DataPacket::new_checked(&not_data[..]).expect("long enough");
        assert_eq!(
            DataRepr::parse(&p),
            Err(Error::BadValue {
                field: "FADE-10G data packet type",
                value: 0xa55a
            })
        );
        let p = ResponsePacket::new_checked(&not_data[..]).expect("long enough");
        assert!(CommandResponse::parse(&p).is_ok());
        let p = ResponsePacket::new_checked(&data[..]).expect("long enough");
        assert!(matches!(
            CommandResponse::parse(&p),
            Err(Error::BadValue { .. })
        ));
        let mut ctl = [0u8; CONTROL_HEADER_LEN];
        ctl[..4].copy_from_slice(&[0x01, 0x00, 0xa5, 0xa5]);
        let p = ControlPacket::new_checked(&ctl[..]).expect("long enough");
        assert_eq!(
            ControlRepr::parse(&p),
            Err(Error::BadValue {
                field: "FADE-10G user command code",
                value: 0xa5a5
            })
        );
        assert!(ControlPacket::new_checked(&ctl[..13]).is_err());
        assert!(ResponsePacket::new_checked(&ctl[..]).is_err());
        assert!(DataPacket::new_checked(&ctl[..]).is_err());
        assert!(Packet::new_checked(&ctl[..3]).is_err());
    }

    #[test]
    fn emit_checks_the_output_length() {
        let r = Repr::Response(CommandResponse::NONE);
        let mut small = [0u8; RESPONSE_PACKET_LEN - 1];
        assert_eq!(
            r.emit(&mut small),
            Err(Error::Truncated {
                what: "FADE-10G output buffer",
                got: RESPONSE_PACKET_LEN - 1,
                need: RESPONSE_PACKET_LEN
            })
        );
        let mut big = [0x11u8; RESPONSE_PACKET_LEN + 1];
        r.emit(&mut big).expect("room");
        assert_eq!(big[RESPONSE_PACKET_LEN], 0x11);
        assert_eq!(&big[..4], &[0x01, 0x00, 0xa5, 0x5a]);
    }

    #[test]
    fn views_write_in_place() {
        let mut buf = vec![0u8; DATA_PACKET_LEN];
        let mut p = DataPacket::new_checked(&mut buf[..]).expect("room");
        p.set_version(VERSION);
        p.set_packet_type(TYPE_DATA);
        p.set_seq(3);
        p.set_packet_number(4);
        p.set_delay(5);
        p.set_response(&CommandResponse {
            code: 0x100,
            seq: 1,
            data: [2; 8],
        });
        p.data_mut().fill(0x77);
        let p = Packet::new_checked(&buf[..]).expect("room");
        assert!(p.is_data());
        assert_eq!(p.version(), VERSION);
        let Repr::Data(d) = Repr::parse(&p).expect("valid") else {
            panic!("expected DATA")
        };
        assert_eq!((d.seq, d.packet_number, d.delay), (3, 4, 5));
        assert_eq!(d.response.data, [2; 8]);
        assert!(d.data.iter().all(|&b| b == 0x77));

        let mut buf = [0u8; RESPONSE_PACKET_LEN];
        let mut p = ResponsePacket::new_checked(&mut buf[..]).expect("room");
        d.response.emit(&mut p);
        assert_eq!(p.packet_type(), TYPE_COMMAND_RESPONSE);
        assert_eq!(p.response(), d.response);
        assert_eq!(p.into_inner().len(), RESPONSE_PACKET_LEN);

        let mut buf = [0u8; CONTROL_LEN];
        let mut p = ControlPacket::new_checked(&mut buf[..]).expect("room");
        ControlRepr::Nack(d.ack()).emit(&mut p);
        assert_eq!(p.command(), CMD_NACK);
        assert_eq!(p.version(), VERSION);
        assert_eq!(p.into_inner().len(), CONTROL_LEN);
        assert_eq!(
            DataPacket::new_checked(vec![0u8; DATA_PACKET_LEN])
                .expect("room")
                .into_inner()
                .len(),
            DATA_PACKET_LEN
        );
        assert_eq!(
            Packet::new_checked([1u8, 0, 0, 1])
                .expect("room")
                .into_inner(),
            [1, 0, 0, 1]
        );
    }
}
