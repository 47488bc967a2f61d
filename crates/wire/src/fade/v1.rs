//! FADE v1: the original FADE wire format (1024-byte data packets in sets of 32).
//!
//! Every packet starts with a 16-bit word: `0xa5a5` marks a DATA packet
//! (FPGA to host); small values are commands (host to FPGA). All offsets
//! below count from the first byte after the ethertype.
//!
//! | Packet | Layout |
//! |---|---|
//! | DATA  | `a5a5`, set u16, packet/retry u16, delay u32, 1024 data bytes |
//! | START | `0001`, padding |
//! | STOP  | `0002`, padding |
//! | ACK   | `0003`, set u16, packet/retry u16 (copied from the DATA), padding |
//! | NACK  | `0004`, set u16, packet/retry u16, padding |
//! | RESET | `0005`, padding |
//!
//! The packet/retry word holds the packet number within its set in the top
//! 6 bits and a retry count in the low 10 bits ([`PacketRetry`]).

use super::{fill, CONTROL_LEN};
use crate::bytes::{be_u16, be_u32, put_u16, put_u32};
use crate::error::{ensure_len, Error, Result};

/// Byte offsets of FADE v1 packets (after the ethertype).
mod field {
    use crate::{Field, Rest};
    /// Packet type (DATA) or command code (control packets).
    pub const TYPE: usize = 0;
    /// Set number; at the same offset in DATA and in ACK/NACK.
    pub const SET: usize = 2;
    /// Packet number and retry count; same offset in DATA and ACK/NACK.
    pub const PACKET_RETRY: usize = 4;
    /// Inter-packet delay the FPGA currently uses (DATA only).
    pub const DELAY: usize = 6;
    /// User data (DATA only).
    pub const DATA: Field = 10..1034;
    /// Everything a control packet carries after its command word.
    pub const ARGS: Rest = 2..;
    /// Padding after the ACK/NACK tag.
    pub const PADDING: Rest = 6..;
}

/// First word of a DATA packet; anything else is a command.
pub const TYPE_DATA: u16 = 0xa5a5;

/// Bytes before the user data in a DATA packet.
pub const DATA_HEADER_LEN: usize = field::DATA.start;

/// User data bytes per DATA packet; the driver stores packets at this stride.
pub const DATA_LEN: usize = field::DATA.end - field::DATA.start;

/// Exact length of a DATA packet; the reference driver drops any other length.
pub const DATA_PACKET_LEN: usize = field::DATA.end;

/// Bytes a control packet must hold to carry its command and ACK/NACK tag.
///
/// Real frames always hold more (Ethernet pads to 46 payload bytes); we
/// require the tag bytes even for START/STOP so the view never needs to
/// know the command before checking its length.
pub const CONTROL_HEADER_LEN: usize = field::PADDING.start;

/// Packets per set in the published designs (FPGA RAM holds one set).
///
/// The wire field has room for 64, but the reference driver indexes a
/// 32-entry table with it, so a protocol engine should reject larger numbers.
pub const PACKETS_PER_SET: u8 = 32;

/// Largest packet number the 6-bit wire field can carry.
pub const MAX_PACKET_NUMBER: u8 = 63;

/// Largest retry count the 10-bit wire field can carry.
pub const MAX_RETRY_COUNT: u16 = 1023;

/// Bits of the packet/retry word used by the retry count.
const RETRY_BITS: u32 = 10;

/// A FADE v1 command code, the first word of every host-to-FPGA packet.
///
/// The FPGA core understands all five; the reference driver sends START,
/// ACK and RESET (the latter to stop a board immediately).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[repr(u16)]
pub enum Command {
    /// Start (or resume) data transmission.
    Start = 1,
    /// Pause transmission of new data; unacknowledged packets stay queued.
    Stop = 2,
    /// Acknowledge one DATA packet, identified by its [`Tag`].
    Ack = 3,
    /// Negative acknowledgement; accepted but ignored by the published core.
    Nack = 4,
    /// Stop transmission and retransmission immediately and reset the core.
    Reset = 5,
}

impl Command {
    /// The code as sent on the wire.
    pub const fn code(self) -> u16 {
        self as u16
    }
}

impl TryFrom<u16> for Command {
    type Error = Error;

    /// Maps a wire code to a command, so unknown codes become a typed error.
    fn try_from(code: u16) -> Result<Self> {
        match code {
            1 => Ok(Command::Start),
            2 => Ok(Command::Stop),
            3 => Ok(Command::Ack),
            4 => Ok(Command::Nack),
            5 => Ok(Command::Reset),
            _ => Err(Error::Unsupported {
                what: "FADE v1 packet type",
                value: code.into(),
            }),
        }
    }
}

/// The packet number (top 6 bits) and retry count (low 10 bits) of one word.
///
/// Kept packed because that is what an ACK must echo bit for bit; every
/// 16-bit value is a valid packing, so decoding cannot fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PacketRetry(u16);

impl PacketRetry {
    /// Packs `packet` and `retry`, refusing values wider than their bit fields.
    pub fn new(packet: u8, retry: u16) -> Result<Self> {
        if packet > MAX_PACKET_NUMBER {
            return Err(Error::Overflow {
                field: "FADE v1 packet number",
                value: packet.into(),
                max: MAX_PACKET_NUMBER.into(),
            });
        }
        if retry > MAX_RETRY_COUNT {
            return Err(Error::Overflow {
                field: "FADE v1 retry count",
                value: retry.into(),
                max: MAX_RETRY_COUNT.into(),
            });
        }
        Ok(PacketRetry((u16::from(packet) << RETRY_BITS) | retry))
    }

    /// Wraps a word read from the wire.
    pub const fn from_bits(bits: u16) -> Self {
        PacketRetry(bits)
    }

    /// The packed word as sent on the wire.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Packet number within its set (0..=63; 0..32 in the published designs).
    pub const fn packet(self) -> u8 {
        // At most 6 bits remain after the shift, so the cast is lossless.
        (self.0 >> RETRY_BITS) as u8
    }

    /// Retry count (always 0 in the published FPGA designs).
    pub const fn retry(self) -> u16 {
        self.0 & MAX_RETRY_COUNT
    }
}

/// What identifies one DATA packet: its set number and packet/retry word.
///
/// These are the four bytes an ACK copies from the DATA packet it confirms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Tag {
    /// Set number; wraps at 65536.
    pub set: u16,
    /// Packet number within the set, and retry count.
    pub packet_retry: PacketRetry,
}

impl Tag {
    /// Builds a tag, checking that `packet` and `retry` fit their bit fields.
    pub fn new(set: u16, packet: u8, retry: u16) -> Result<Self> {
        Ok(Tag {
            set,
            packet_retry: PacketRetry::new(packet, retry)?,
        })
    }
}

/// A zero-copy view of any FADE v1 packet, used to tell DATA from commands.
#[derive(Debug, Clone)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps `buffer` after checking it holds the type word.
    pub fn new_checked(buffer: T) -> Result<Self> {
        ensure_len("FADE v1 packet", buffer.as_ref(), field::TYPE + 2)?;
        Ok(Packet { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The first word: [`TYPE_DATA`] or a [`Command`] code.
    pub fn packet_type(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::TYPE)
    }

    /// Whether this is a DATA packet (FPGA to host).
    pub fn is_data(&self) -> bool {
        self.packet_type() == TYPE_DATA
    }
}

/// A zero-copy view of a FADE v1 DATA packet.
#[derive(Debug, Clone)]
pub struct DataPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> DataPacket<T> {
    /// Wraps `buffer` after checking it holds a whole DATA packet.
    pub fn new_checked(buffer: T) -> Result<Self> {
        ensure_len("FADE v1 data packet", buffer.as_ref(), DATA_PACKET_LEN)?;
        Ok(DataPacket { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The type word; [`TYPE_DATA`] in a well-formed packet.
    pub fn packet_type(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::TYPE)
    }

    /// Set number, which tells which round of the FPGA's ring this packet is.
    pub fn set_number(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::SET)
    }

    /// Packet number and retry count.
    pub fn packet_retry(&self) -> PacketRetry {
        PacketRetry::from_bits(be_u16(self.buffer.as_ref(), field::PACKET_RETRY))
    }

    /// The set number and packet/retry word an ACK must echo.
    pub fn tag(&self) -> Tag {
        Tag {
            set: self.set_number(),
            packet_retry: self.packet_retry(),
        }
    }

    /// The FPGA's current inter-packet delay, reported for monitoring its
    /// congestion adaptation.
    pub fn delay(&self) -> u32 {
        be_u32(self.buffer.as_ref(), field::DELAY)
    }

    /// The [`DATA_LEN`] user data bytes.
    pub fn data(&self) -> &[u8] {
        &self.buffer.as_ref()[field::DATA]
    }

    /// Bytes after the data; empty in a well-formed packet.
    pub fn trailer(&self) -> &[u8] {
        &self.buffer.as_ref()[DATA_PACKET_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> DataPacket<T> {
    /// Sets the type word.
    pub fn set_packet_type(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::TYPE, value);
    }

    /// Sets the set number.
    pub fn set_set_number(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::SET, value);
    }

    /// Sets the packet/retry word.
    pub fn set_packet_retry(&mut self, value: PacketRetry) {
        put_u16(self.buffer.as_mut(), field::PACKET_RETRY, value.bits());
    }

    /// Sets the set number and packet/retry word together.
    pub fn set_tag(&mut self, tag: Tag) {
        self.set_set_number(tag.set);
        self.set_packet_retry(tag.packet_retry);
    }

    /// Sets the reported inter-packet delay.
    pub fn set_delay(&mut self, value: u32) {
        put_u32(self.buffer.as_mut(), field::DELAY, value);
    }

    /// Mutable access to the user data, so a sender can fill it in place.
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::DATA]
    }
}

/// A zero-copy view of a FADE v1 control packet (host to FPGA).
#[derive(Debug, Clone)]
pub struct ControlPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> ControlPacket<T> {
    /// Wraps `buffer` after checking it holds [`CONTROL_HEADER_LEN`] bytes.
    pub fn new_checked(buffer: T) -> Result<Self> {
        ensure_len(
            "FADE v1 control packet",
            buffer.as_ref(),
            CONTROL_HEADER_LEN,
        )?;
        Ok(ControlPacket { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The raw command code; see [`Command`].
    pub fn command(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::TYPE)
    }

    /// Set number of the acknowledged packet (meaningful in ACK/NACK only).
    pub fn set_number(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::SET)
    }

    /// Packet/retry word of the acknowledged packet (ACK/NACK only).
    pub fn packet_retry(&self) -> PacketRetry {
        PacketRetry::from_bits(be_u16(self.buffer.as_ref(), field::PACKET_RETRY))
    }

    /// The echoed tag (ACK/NACK only).
    pub fn tag(&self) -> Tag {
        Tag {
            set: self.set_number(),
            packet_retry: self.packet_retry(),
        }
    }

    /// Bytes after the tag: padding, ignored by receivers.
    pub fn padding(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PADDING]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ControlPacket<T> {
    /// Sets the command code.
    pub fn set_command(&mut self, value: u16) {
        put_u16(self.buffer.as_mut(), field::TYPE, value);
    }

    /// Sets the echoed tag (ACK/NACK).
    pub fn set_tag(&mut self, tag: Tag) {
        put_u16(self.buffer.as_mut(), field::SET, tag.set);
        put_u16(
            self.buffer.as_mut(),
            field::PACKET_RETRY,
            tag.packet_retry.bits(),
        );
    }

    /// Fills everything after the command word with the driver's fill byte.
    fn fill_arguments(&mut self) {
        fill(&mut self.buffer.as_mut()[field::ARGS]);
    }
}

/// The parsed form of a DATA packet; borrows the user data from the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DataRepr<'a> {
    /// Set number and packet/retry word.
    pub tag: Tag,
    /// The FPGA's current inter-packet delay.
    pub delay: u32,
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
    /// Validates and reads a DATA packet: type word and exact length.
    pub fn parse<B: AsRef<[u8]> + ?Sized>(packet: &DataPacket<&'a B>) -> Result<DataRepr<'a>> {
        let buf: &'a [u8] = packet.buffer.as_ref();
        if packet.packet_type() != TYPE_DATA {
            return Err(Error::BadValue {
                field: "FADE v1 data packet type",
                value: packet.packet_type().into(),
            });
        }
        if buf.len() != DATA_PACKET_LEN {
            return Err(Error::BadLength {
                what: "FADE v1 data packet",
                len: buf.len(),
                rule: "must be exactly 1034 bytes (10-byte header, 1024 data bytes)",
            });
        }
        let data = buf
            .get(field::DATA)
            .and_then(|d| <&[u8; DATA_LEN]>::try_from(d).ok())
            .ok_or(Error::Truncated {
                what: "FADE v1 data packet",
                got: buf.len(),
                need: DATA_PACKET_LEN,
            })?;
        Ok(DataRepr {
            tag: packet.tag(),
            delay: packet.delay(),
            data,
        })
    }

    /// Bytes the packet occupies: always [`DATA_PACKET_LEN`].
    pub const fn buffer_len(&self) -> usize {
        DATA_PACKET_LEN
    }

    /// Writes the packet into `packet`.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut DataPacket<T>) {
        packet.set_packet_type(TYPE_DATA);
        packet.set_tag(self.tag);
        packet.set_delay(self.delay);
        packet.data_mut().copy_from_slice(self.data);
    }

    /// The ACK that confirms this packet, echoing its tag as the FPGA expects.
    pub fn ack(&self) -> ControlRepr {
        ControlRepr::Ack(self.tag)
    }
}

/// The parsed form of a control packet (host to FPGA).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ControlRepr {
    /// Start transmission.
    Start,
    /// Pause transmission.
    Stop,
    /// Acknowledge the DATA packet with this tag.
    Ack(Tag),
    /// Negatively acknowledge the DATA packet with this tag.
    Nack(Tag),
    /// Stop immediately and reset the core.
    Reset,
}

impl ControlRepr {
    /// Reads a control packet; padding is ignored, unknown codes are errors.
    pub fn parse<T: AsRef<[u8]>>(packet: &ControlPacket<T>) -> Result<ControlRepr> {
        Ok(match Command::try_from(packet.command())? {
            Command::Start => ControlRepr::Start,
            Command::Stop => ControlRepr::Stop,
            Command::Ack => ControlRepr::Ack(packet.tag()),
            Command::Nack => ControlRepr::Nack(packet.tag()),
            Command::Reset => ControlRepr::Reset,
        })
    }

    /// The command code this packet carries.
    pub const fn command(&self) -> Command {
        match self {
            ControlRepr::Start => Command::Start,
            ControlRepr::Stop => Command::Stop,
            ControlRepr::Ack(_) => Command::Ack,
            ControlRepr::Nack(_) => Command::Nack,
            ControlRepr::Reset => Command::Reset,
        }
    }

    /// Bytes the packet occupies: always [`CONTROL_LEN`], like the driver's.
    pub const fn buffer_len(&self) -> usize {
        CONTROL_LEN
    }

    /// Writes the packet into `packet`, filling the rest of its buffer with
    /// [`super::FILL_BYTE`]; size the buffer with [`Self::buffer_len`].
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut ControlPacket<T>) {
        packet.set_command(self.command().code());
        packet.fill_arguments();
        if let ControlRepr::Ack(tag) | ControlRepr::Nack(tag) = self {
            packet.set_tag(*tag);
        }
    }
}

/// Any FADE v1 packet, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Repr<'a> {
    /// A DATA packet (FPGA to host).
    Data(DataRepr<'a>),
    /// A command (host to FPGA).
    Control(ControlRepr),
}

impl<'a> Repr<'a> {
    /// Parses whichever kind of packet `packet` holds.
    pub fn parse<B: AsRef<[u8]> + ?Sized>(packet: &Packet<&'a B>) -> Result<Repr<'a>> {
        let bytes: &'a [u8] = packet.buffer.as_ref();
        if packet.is_data() {
            let data = DataPacket::new_checked(bytes)?;
            return Ok(Repr::Data(DataRepr::parse(&data)?));
        }
        // Name an unknown type before complaining about the length.
        Command::try_from(packet.packet_type())?;
        let control = ControlPacket::new_checked(bytes)?;
        Ok(Repr::Control(ControlRepr::parse(&control)?))
    }

    /// Parses an Ethernet payload (the bytes after the ethertype).
    pub fn parse_bytes(bytes: &'a [u8]) -> Result<Repr<'a>> {
        Repr::parse(&Packet::new_checked(bytes)?)
    }

    /// Bytes the packet occupies when emitted.
    pub const fn buffer_len(&self) -> usize {
        match self {
            Repr::Data(d) => d.buffer_len(),
            Repr::Control(c) => c.buffer_len(),
        }
    }

    /// Writes exactly [`Self::buffer_len`] bytes at the start of `buf` and
    /// returns that length, like the GVCP and GVSP codecs do.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let got = buf.len();
        let need = self.buffer_len();
        let out = buf.get_mut(..need).ok_or(Error::Truncated {
            what: "FADE v1 output buffer",
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
            Repr::Control(c) => c.emit(&mut ControlPacket { buffer: out }),
        }
    }
}

impl<'a> From<DataRepr<'a>> for Repr<'a> {
    fn from(d: DataRepr<'a>) -> Self {
        Repr::Data(d)
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

    /// A DATA packet as the FPGA's sender builds it: `a5a5`, set, packet
    /// number in bits 15..10 with the retry count below, delay, data.
    fn data_packet(set: u16, packet: u8, retry: u16, delay: u32) -> Vec<u8> {
        let mut v = vec![0xa5, 0xa5];
        v.extend_from_slice(&set.to_be_bytes());
        v.extend_from_slice(&((u16::from(packet) << 10) | retry).to_be_bytes());
        v.extend_from_slice(&delay.to_be_bytes());
        v.extend((0..DATA_LEN).map(|i| (i % 251) as u8));
        v
    }

    #[test]
    fn data_vector_from_the_published_layout() {
        // set 7, packet 3, retry 0, delay 256.
        let bytes = data_packet(7, 3, 0, 256);
        assert_eq!(
            &bytes[..DATA_HEADER_LEN],
            &[0xa5, 0xa5, 0x00, 0x07, 0x0c, 0x00, 0x00, 0x00, 0x01, 0x00]
        );
        let p = DataPacket::new_checked(&bytes[..]).expect("whole packet");
        assert_eq!(p.set_number(), 7);
        assert_eq!(p.packet_retry().packet(), 3);
        assert_eq!(p.packet_retry().retry(), 0);
        assert_eq!(p.delay(), 256);
        assert_eq!(p.data().len(), DATA_LEN);
        assert!(p.trailer().is_empty());
        let r = Repr::parse_bytes(&bytes).expect("valid DATA");
        let Repr::Data(d) = r else {
            panic!("expected DATA, got {r:?}")
        };
        assert_eq!(d.tag, Tag::new(7, 3, 0).expect("fits"));
        assert_eq!(d.delay, 256);
        assert_eq!(&d.data[..], &bytes[DATA_HEADER_LEN..]);
        assert_eq!(r.to_vec(), bytes);
    }

    #[test]
    fn ack_copies_bytes_2_to_5_of_the_data_packet() {
        let bytes = data_packet(0x1234, 31, 5, 16);
        let Repr::Data(d) = Repr::parse_bytes(&bytes).expect("valid") else {
            panic!("expected DATA")
        };
        let ack = Repr::from(d.ack()).to_vec();
        assert_eq!(ack.len(), CONTROL_LEN);
        assert_eq!(&ack[..2], &[0x00, 0x03]);
        assert_eq!(&ack[2..6], &bytes[2..6]);
        assert_eq!(&ack[2..6], &[0x12, 0x34, 0x7c, 0x05]);
        assert!(ack[6..].iter().all(|&b| b == FILL_BYTE));
        assert_eq!(
            Repr::parse_bytes(&ack).expect("valid ACK"),
            Repr::Control(ControlRepr::Ack(d.tag))
        );
    }

    #[test]
    fn start_and_reset_match_the_driver_bytes() {
        // The driver sends 0x0001 (START) or 0x0005 (its STOP/RESET) followed
        // by 62 bytes of 0xa5.
        let mut start = vec![0x00, 0x01];
        start.extend([0xa5; 62]);
        assert_eq!(Repr::from(ControlRepr::Start).to_vec(), start);
        assert_eq!(
            Repr::parse_bytes(&start).expect("valid"),
            Repr::Control(ControlRepr::Start)
        );
        let mut reset = vec![0x00, 0x05];
        reset.extend([0xa5; 62]);
        assert_eq!(Repr::from(ControlRepr::Reset).to_vec(), reset);
        assert_eq!(
            Repr::parse_bytes(&reset).expect("valid"),
            Repr::Control(ControlRepr::Reset)
        );
    }

    #[test]
    fn control_parse_accepts_any_padding() {
        // Minimal padding to the Ethernet minimum, zero-filled.
        let mut stop = vec![0u8; crate::fade::MIN_PAYLOAD_LEN];
        stop[1] = 2;
        assert_eq!(
            Repr::parse_bytes(&stop).expect("valid"),
            Repr::Control(ControlRepr::Stop)
        );
        // No padding beyond the tag.
        let nack = [0x00, 0x04, 0xff, 0xfe, 0x04, 0x01];
        let p = ControlPacket::new_checked(&nack[..]).expect("long enough");
        assert!(p.padding().is_empty());
        assert_eq!(
            Repr::parse_bytes(&nack).expect("valid"),
            Repr::Control(ControlRepr::Nack(Tag::new(0xfffe, 1, 1).expect("fits")))
        );
    }

    #[test]
    fn every_command_round_trips() {
        let tag = Tag::new(65535, 63, 1023).expect("fits");
        for c in [
            ControlRepr::Start,
            ControlRepr::Stop,
            ControlRepr::Ack(tag),
            ControlRepr::Nack(tag),
            ControlRepr::Reset,
        ] {
            let r = Repr::Control(c);
            let v = r.to_vec();
            assert_eq!(v.len(), r.buffer_len());
            assert_eq!(Command::try_from(be_u16(&v, 0)), Ok(c.command()));
            assert_eq!(Repr::parse_bytes(&v).expect("round trip"), r);
        }
    }

    #[test]
    fn packet_retry_packing() {
        let pr = PacketRetry::new(63, 1023).expect("fits");
        assert_eq!(pr.bits(), 0xffff);
        assert_eq!(PacketRetry::new(1, 0).expect("fits").bits(), 0x0400);
        assert_eq!(PacketRetry::new(0, 1).expect("fits").bits(), 0x0001);
        let pr = PacketRetry::from_bits(0x7c05);
        assert_eq!((pr.packet(), pr.retry()), (31, 5));
        assert_eq!(
            PacketRetry::new(64, 0),
            Err(Error::Overflow {
                field: "FADE v1 packet number",
                value: 64,
                max: 63
            })
        );
        assert_eq!(
            PacketRetry::new(0, 1024),
            Err(Error::Overflow {
                field: "FADE v1 retry count",
                value: 1024,
                max: 1023
            })
        );
        assert!(Tag::new(0, 64, 0).is_err());
        assert!(Tag::new(0, 0, 1024).is_err());
    }

    #[test]
    fn errors_name_the_offending_value() {
        // Empty and one-byte buffers.
        assert_eq!(
            Repr::parse_bytes(&[]),
            Err(Error::Truncated {
                what: "FADE v1 packet",
                got: 0,
                need: 2
            })
        );
        assert!(Packet::new_checked(&[0u8][..]).is_err());
        // Unknown packet type, even when short.
        assert_eq!(
            Repr::parse_bytes(&[0x00, 0x06]),
            Err(Error::Unsupported {
                what: "FADE v1 packet type",
                value: 6
            })
        );
        assert_eq!(
            Repr::parse_bytes(&[0x00, 0x00, 0, 0, 0, 0]),
            Err(Error::Unsupported {
                what: "FADE v1 packet type",
                value: 0
            })
        );
        // Known command, but too short for the tag.
        assert_eq!(
            Repr::parse_bytes(&[0x00, 0x03, 0x00, 0x01]),
            Err(Error::Truncated {
                what: "FADE v1 control packet",
                got: 4,
                need: 6
            })
        );
        // DATA shorter than a full packet.
        let mut data = data_packet(1, 2, 0, 3);
        assert_eq!(
            Repr::parse_bytes(&data[..100]),
            Err(Error::Truncated {
                what: "FADE v1 data packet",
                got: 100,
                need: DATA_PACKET_LEN
            })
        );
        // DATA longer than a full packet.
        data.push(0);
        let p = DataPacket::new_checked(&data[..]).expect("long enough");
        assert_eq!(p.trailer(), &[0]);
        assert!(matches!(
            Repr::parse_bytes(&data),
            Err(Error::BadLength { len: 1035, .. })
        ));
        // A DATA view over a control packet: the type is wrong.
        let mut not_data = data_packet(1, 2, 0, 3);
        not_data[1] = 0x03;
        let p = DataPacket::new_checked(&not_data[..]).expect("long enough");
        assert_eq!(
            DataRepr::parse(&p),
            Err(Error::BadValue {
                field: "FADE v1 data packet type",
                value: 0xa503
            })
        );
        // Control views reject buffers shorter than the tag.
        assert!(ControlPacket::new_checked(&[0u8; 5][..]).is_err());
        // A control view over an unknown code.
        let p = ControlPacket::new_checked(&[0xa5u8; 8][..]).expect("long enough");
        assert!(matches!(
            ControlRepr::parse(&p),
            Err(Error::Unsupported { value: 0xa5a5, .. })
        ));
    }

    #[test]
    fn emit_checks_the_output_length() {
        let r = Repr::Control(ControlRepr::Start);
        let mut small = [0u8; CONTROL_LEN - 1];
        assert_eq!(
            r.emit(&mut small),
            Err(Error::Truncated {
                what: "FADE v1 output buffer",
                got: CONTROL_LEN - 1,
                need: CONTROL_LEN
            })
        );
        let mut big = [0x11u8; CONTROL_LEN + 2];
        r.emit(&mut big).expect("room");
        assert_eq!(&big[CONTROL_LEN..], &[0x11, 0x11]);
        assert_eq!(&big[..2], &[0x00, 0x01]);
    }

    #[test]
    fn views_write_in_place() {
        let mut buf = vec![0u8; DATA_PACKET_LEN];
        let mut p = DataPacket::new_checked(&mut buf[..]).expect("room");
        p.set_packet_type(TYPE_DATA);
        p.set_set_number(9);
        p.set_packet_retry(PacketRetry::new(4, 2).expect("fits"));
        p.set_delay(0xdead_beef);
        p.data_mut().fill(0x5a);
        let p = Packet::new_checked(&buf[..]).expect("room");
        assert!(p.is_data());
        assert_eq!(p.packet_type(), TYPE_DATA);
        let Repr::Data(d) = Repr::parse(&p).expect("valid") else {
            panic!("expected DATA")
        };
        assert_eq!(d.tag, Tag::new(9, 4, 2).expect("fits"));
        assert_eq!(d.delay, 0xdead_beef);
        assert!(d.data.iter().all(|&b| b == 0x5a));

        let mut buf = [0u8; CONTROL_LEN];
        let mut c = ControlPacket::new_checked(&mut buf[..]).expect("room");
        ControlRepr::Nack(d.tag).emit(&mut c);
        assert_eq!(c.command(), Command::Nack.code());
        assert_eq!(c.tag(), d.tag);
        assert_eq!(c.into_inner().len(), CONTROL_LEN);
        assert_eq!(
            DataPacket::new_checked(vec![0u8; DATA_PACKET_LEN])
                .expect("room")
                .into_inner()
                .len(),
            DATA_PACKET_LEN
        );
        assert_eq!(
            Packet::new_checked([1u8, 2]).expect("room").into_inner(),
            [1, 2]
        );
    }
}
