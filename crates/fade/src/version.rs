//! What differs between FADE v1 and FADE-10G, behind one trait, so that the
//! board ([`crate::board`]) and the host's receive window
//! ([`crate::window`]) are written once for both wire versions.
//!
//! Both versions keep a ring of packets on the board, retransmit what the
//! host has not acknowledged and ACK every packet; they differ in packet
//! size, window length, how a packet is named on the wire (v1: a 16-bit set
//! and a packet number in it; 10G: a 32-bit packet number) and in the
//! commands (10G numbers them and answers each one with a 12-byte response
//! carried in the DATA packets). A [`Version`] maps between those wire
//! details and the version-neutral values the state machines use: stream
//! packet indices reduced modulo [`Version::INDEX_MODULUS`], and
//! [`BoardInput`]s.

use linerate_wire::fade::ten_g::{self, Command, CommandRepr, CommandResponse};
use linerate_wire::fade::{pacing, v1, CONTROL_LEN};

use crate::error::{BoardError, StreamError};

/// What a board makes of one packet from the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardInput {
    /// START, STOP, RESET or a user command. `seq` is the command's
    /// sequence number (FADE-10G; `None` in v1, whose commands have none
    /// and get no response).
    Command {
        /// Which command.
        command: Command,
        /// Its sequence number (10G only).
        seq: Option<u16>,
        /// Its argument (10G only; 0 in v1).
        arg: u32,
    },
    /// An ACK.
    Ack {
        /// The acknowledged packet's stream index modulo
        /// [`Version::INDEX_MODULUS`]; `None` when the ACK names a packet
        /// that cannot exist (a v1 packet number beyond the set).
        wire_index: Option<u64>,
        /// The transmission seq the ACK echoes (10G only).
        echo_seq: Option<u16>,
        /// The pacing hint in its padding (linerate extension), if any.
        hint_gap_ns: Option<u32>,
    },
    /// A NACK, which the published cores ignore.
    Nack,
}

/// One DATA packet as the board describes it, for [`Version::emit_data`].
#[derive(Debug, Clone, Copy)]
pub struct DataOut<'a> {
    /// Stream packet index (counted from 0 since START after a RESET).
    pub index: u64,
    /// Transmissions of this packet before this one (v1's retry field).
    pub sends_before: u32,
    /// The board's transmission counter (10G's seq, low 16 bits).
    pub seq: u64,
    /// Inter-packet delay to report.
    pub delay: u32,
    /// The command response to carry (10G only).
    pub response: CommandResponse,
    /// The packet's data, [`Version::PACKET_BYTES`] long.
    pub data: &'a [u8],
    /// The last packet of a stream that ends part-way through it: how many
    /// 64-bit words of `data` are valid (FADE-10G's flushed packet, whose
    /// last 8 bytes then carry this count; v1 has none).
    pub flushed_words: Option<u64>,
}

/// One DATA packet as the host reads it, from [`Version::parse_data`].
#[derive(Debug, Clone, Copy)]
pub struct DataIn<'a> {
    /// Stream index modulo [`Version::INDEX_MODULUS`]; `None` for a v1
    /// packet number beyond the 32 of a set (a fatal stream error).
    pub wire_index: Option<u64>,
    /// Whether the board says it sent this packet before (v1's retry
    /// field); `None` when the wire does not say (10G).
    pub retransmitted: Option<bool>,
    /// The valid data bytes, in the received frame: all of them, or the
    /// counted words of a FADE-10G flushed packet.
    pub data: &'a [u8],
    /// The stream ends with this packet (FADE-10G flushed packet).
    pub last: bool,
    /// The ACK payload confirming this packet.
    pub ack: [u8; CONTROL_LEN],
    /// The piggybacked command response (10G; `None` in v1 or when empty).
    pub response: Option<CommandResponse>,
    /// How the packet names itself, for error messages.
    pub label: Label,
}

/// How a DATA packet names itself on the wire, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// FADE v1: set and packet number.
    V1 {
        /// Set number.
        set: u16,
        /// Packet number in the set.
        packet: u8,
    },
    /// FADE-10G: the 32-bit packet number.
    TenG {
        /// Packet number.
        packet_number: u32,
    },
}

/// A FADE wire version: sizes, and the translation between wire packets and
/// the version-neutral values the board and window work with.
pub trait Version: Sized + Copy + std::fmt::Debug + Default + Send + 'static {
    /// Name for messages and JSON (`1`, `10g`).
    const NAME: &'static str;
    /// Packets a board may have in flight (v1: 32, 10G: 16).
    const WINDOW: u64;
    /// Data bytes per packet (v1: 1024, 10G: 8192).
    const PACKET_BYTES: u64;
    /// Whether a stream may end part-way through a packet (FADE-10G's
    /// flushed packet); otherwise streams end on a packet boundary.
    const FLUSH: bool;
    /// Payload length of a DATA packet after the ethertype.
    const DATA_PACKET_LEN: usize;
    /// Stream packets the wire names apart (v1: 2^21, 10G: 2^32).
    const INDEX_MODULUS: u64;

    /// Reads a packet arriving at a board.
    fn parse_board_input(payload: &[u8]) -> Result<BoardInput, BoardError>;
    /// Writes a DATA packet into `buf`; `None` if `buf` is too short.
    fn emit_data(out: &DataOut<'_>, buf: &mut [u8]) -> Option<usize>;
    /// Writes a response-only packet (10G); `None` in v1 or if too short.
    fn emit_response(response: &CommandResponse, buf: &mut [u8]) -> Option<usize>;

    /// Reads a DATA packet arriving at the host.
    fn parse_data(payload: &[u8]) -> Result<DataIn<'_>, linerate_wire::Error>;
    /// The answer in a response-only packet arriving at the host (10G);
    /// `None` for any other packet, and always in v1.
    fn parse_response(payload: &[u8]) -> Option<CommandResponse>;
    /// The error for a packet the window cannot place (`low`: first
    /// missing stream index).
    fn impossible(label: Label, low: u64) -> StreamError;
    /// A host-to-board command payload. `seq` and `arg` are used by 10G
    /// only; v1 has no user commands (`None`).
    fn command(command: Command, seq: u16, arg: u32) -> Option<[u8; CONTROL_LEN]>;
    /// Puts a pacing hint into an ACK payload (linerate extension).
    fn write_hint(ack: &mut [u8], gap_ns: u32) -> bool;
}

/// FADE v1: 1024-byte packets in sets of 32.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct V1;

/// FADE-10G: 8192-byte packets, a window of 16, numbered commands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TenG;

impl Version for V1 {
    const NAME: &'static str = "1";
    const WINDOW: u64 = v1::PACKETS_PER_SET as u64;
    const PACKET_BYTES: u64 = v1::DATA_LEN as u64;
    const FLUSH: bool = false;
    const DATA_PACKET_LEN: usize = v1::DATA_PACKET_LEN;
    const INDEX_MODULUS: u64 = 1 << 21;

    fn parse_board_input(payload: &[u8]) -> Result<BoardInput, BoardError> {
        let command = |command| BoardInput::Command {
            command,
            seq: None,
            arg: 0,
        };
        Ok(match v1::Repr::parse_bytes(payload)? {
            v1::Repr::Data(d) => {
                return Err(BoardError::UnexpectedData {
                    set: d.tag.set,
                    packet: d.tag.packet_retry.packet(),
                })
            }
            v1::Repr::Control(v1::ControlRepr::Start) => command(Command::Start),
            v1::Repr::Control(v1::ControlRepr::Stop) => command(Command::Stop),
            v1::Repr::Control(v1::ControlRepr::Reset) => command(Command::Reset),
            v1::Repr::Control(v1::ControlRepr::Nack(_)) => BoardInput::Nack,
            v1::Repr::Control(v1::ControlRepr::Ack(tag)) => BoardInput::Ack {
                wire_index: v1_wire_index(tag.set, tag.packet_retry.packet()),
                echo_seq: None,
                hint_gap_ns: pacing::read_hint(payload),
            },
        })
    }

    fn emit_data(out: &DataOut<'_>, buf: &mut [u8]) -> Option<usize> {
        let data = <&[u8; v1::DATA_LEN]>::try_from(out.data).ok()?;
        let retry = out.sends_before.min(u32::from(v1::MAX_RETRY_COUNT)) as u16;
        // index % 32 < 32 and retry <= 1023: the word is always valid.
        let tag = v1::Tag {
            set: (out.index / Self::WINDOW) as u16,
            packet_retry: v1::PacketRetry::from_bits(
                ((out.index % Self::WINDOW) as u16) << 10 | retry,
            ),
        };
        v1::Repr::Data(v1::DataRepr {
            tag,
            delay: out.delay,
            data,
        })
        .emit(buf)
        .ok()
    }

    fn emit_response(_: &CommandResponse, _: &mut [u8]) -> Option<usize> {
        None
    }

    fn parse_data(payload: &[u8]) -> Result<DataIn<'_>, linerate_wire::Error> {
        let d = v1::DataPacket::new_checked(payload).and_then(|p| v1::DataRepr::parse(&p))?;
        let tag = d.tag;
        let packet = tag.packet_retry.packet();
        Ok(DataIn {
            wire_index: v1_wire_index(tag.set, packet),
            retransmitted: Some(tag.packet_retry.retry() > 0),
            data: d.data,
            last: false,
            ack: v1_control(v1::ControlRepr::Ack(tag)),
            response: None,
            label: Label::V1 {
                set: tag.set,
                packet,
            },
        })
    }

    fn parse_response(_: &[u8]) -> Option<CommandResponse> {
        None
    }

    fn impossible(label: Label, low: u64) -> StreamError {
        match label {
            Label::V1 { set, packet } if u64::from(packet) >= Self::WINDOW => {
                StreamError::PacketNumber { set, packet }
            }
            Label::V1 { set, packet } => StreamError::ImpossibleSet {
                set,
                packet,
                expected_set: (low / Self::WINDOW) as u16,
            },
            Label::TenG { packet_number } => StreamError::OutOfWindow {
                packet_number,
                expected: low as u32,
            },
        }
    }

    fn command(command: Command, _seq: u16, _arg: u32) -> Option<[u8; CONTROL_LEN]> {
        let c = match command {
            Command::Start => v1::ControlRepr::Start,
            Command::Stop => v1::ControlRepr::Stop,
            Command::Reset => v1::ControlRepr::Reset,
            Command::User(_) => return None,
        };
        Some(v1_control(c))
    }

    fn write_hint(ack: &mut [u8], gap_ns: u32) -> bool {
        pacing::write_hint(ack, gap_ns)
    }
}

/// Stream index modulo 2^21 of v1 packet (`set`, `packet`), if the packet
/// number is one of the 32 of a set.
fn v1_wire_index(set: u16, packet: u8) -> Option<u64> {
    (u64::from(packet) < V1::WINDOW).then(|| u64::from(set) * V1::WINDOW + u64::from(packet))
}

/// Most valid 64-bit words in a FADE-10G flushed packet: all but the last
/// word, which holds the count.
pub const MAX_FLUSHED_WORDS: u64 = (ten_g::DATA_LEN as u64 - 8) / 8;

/// A v1 control payload, 64 bytes as the driver sends.
fn v1_control(c: v1::ControlRepr) -> [u8; CONTROL_LEN] {
    let mut out = [0u8; CONTROL_LEN];
    // A 64-byte buffer always holds a control packet.
    let _ = v1::Repr::Control(c).emit(&mut out);
    out
}

/// A FADE-10G control payload, 64 bytes as the driver sends.
fn ten_g_control(c: ten_g::ControlRepr) -> [u8; CONTROL_LEN] {
    let mut out = [0u8; CONTROL_LEN];
    // A 64-byte buffer always holds a control packet.
    let _ = ten_g::Repr::Control(c).emit(&mut out);
    out
}

impl Version for TenG {
    const NAME: &'static str = "10g";
    const WINDOW: u64 = ten_g::WINDOW_LEN as u64;
    const PACKET_BYTES: u64 = ten_g::DATA_LEN as u64;
    const FLUSH: bool = true;
    const DATA_PACKET_LEN: usize = ten_g::DATA_PACKET_LEN;
    const INDEX_MODULUS: u64 = 1 << 32;

    fn parse_board_input(payload: &[u8]) -> Result<BoardInput, BoardError> {
        Ok(match ten_g::Repr::parse_bytes(payload)? {
            ten_g::Repr::Data(d) => {
                return Err(BoardError::UnexpectedTenGData {
                    packet_number: d.packet_number,
                })
            }
            ten_g::Repr::Response(r) => {
                return Err(BoardError::UnexpectedResponse { code: r.code })
            }
            ten_g::Repr::Control(ten_g::ControlRepr::Command(c)) => BoardInput::Command {
                command: c.command,
                seq: Some(c.seq),
                arg: c.arg,
            },
            ten_g::Repr::Control(ten_g::ControlRepr::Ack(a)) => BoardInput::Ack {
                wire_index: Some(u64::from(a.packet_number)),
                echo_seq: Some(a.seq),
                hint_gap_ns: pacing::read_hint_ten_g(payload),
            },
            ten_g::Repr::Control(ten_g::ControlRepr::Nack(_)) => BoardInput::Nack,
        })
    }

    fn emit_data(out: &DataOut<'_>, buf: &mut [u8]) -> Option<usize> {
        let data = <&[u8; ten_g::DATA_LEN]>::try_from(out.data).ok()?;
        let len = ten_g::Repr::Data(ten_g::DataRepr {
            flushed: out.flushed_words.is_some(),
            seq: out.seq as u16,
            packet_number: out.index as u32,
            delay: out.delay,
            response: out.response,
            data,
        })
        .emit(buf)
        .ok()?;
        if let Some(words) = out.flushed_words {
            // The count of valid words rides in the last data word.
            buf.get_mut(len - 8..len)?
                .copy_from_slice(&words.to_be_bytes());
        }
        Some(len)
    }

    fn emit_response(response: &CommandResponse, buf: &mut [u8]) -> Option<usize> {
        ten_g::Repr::Response(*response).emit(buf).ok()
    }

    fn parse_data(payload: &[u8]) -> Result<DataIn<'_>, linerate_wire::Error> {
        let d = ten_g::DataPacket::new_checked(payload).and_then(|p| ten_g::DataRepr::parse(&p))?;
        let valid = match d.flushed_word_count() {
            None => ten_g::DATA_LEN,
            // The count's own word is not data: at most 1023 words.
            Some(w) if w < MAX_FLUSHED_WORDS + 1 => (w * 8) as usize,
            Some(w) => {
                return Err(linerate_wire::Error::BadValue {
                    field: "FADE-10G flushed word count",
                    value: w,
                })
            }
        };
        Ok(DataIn {
            wire_index: Some(u64::from(d.packet_number)),
            retransmitted: None,
            data: &d.data[..valid],
            last: d.flushed,
            ack: ten_g_control(ten_g::ControlRepr::Ack(d.ack())),
            response: (!d.response.is_none()).then_some(d.response),
            label: Label::TenG {
                packet_number: d.packet_number,
            },
        })
    }

    fn parse_response(payload: &[u8]) -> Option<CommandResponse> {
        let p = ten_g::ResponsePacket::new_checked(payload).ok()?;
        ten_g::CommandResponse::parse(&p).ok()
    }

    fn impossible(label: Label, low: u64) -> StreamError {
        V1::impossible(label, low)
    }

    fn command(command: Command, seq: u16, arg: u32) -> Option<[u8; CONTROL_LEN]> {
        Some(ten_g_control(ten_g::ControlRepr::Command(CommandRepr {
            command,
            seq,
            arg,
        })))
    }

    fn write_hint(ack: &mut [u8], gap_ns: u32) -> bool {
        pacing::write_hint_ten_g(ack, gap_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_wire() {
        assert_eq!((V1::WINDOW, V1::PACKET_BYTES), (32, 1024));
        assert_eq!((TenG::WINDOW, TenG::PACKET_BYTES), (16, 8192));
        assert_eq!(TenG::DATA_PACKET_LEN, 8218);
        assert!(V1::command(
            Command::User(ten_g::UserCommand::new(0x100).expect("code")),
            1,
            2
        )
        .is_none());
    }

    #[test]
    fn ten_g_data_round_trips_through_the_host_view() {
        let data = vec![9u8; 8192];
        let resp = CommandResponse {
            code: 0x101,
            seq: 7,
            data: [1, 2, 3, 4, 5, 6, 7, 8],
        };
        let mut buf = vec![0u8; 9000];
        let n = TenG::emit_data(
            &DataOut {
                index: (1 << 32) + 5,
                sends_before: 3,
                seq: 0x1_0009,
                delay: 42,
                response: resp,
                data: &data,
                flushed_words: None,
            },
            &mut buf,
        )
        .expect("room");
        assert_eq!(n, 8218);
        let d = TenG::parse_data(&buf[..n]).expect("valid");
        assert_eq!(d.wire_index, Some(5));
        assert_eq!(d.response, Some(resp));
        assert_eq!(d.label, Label::TenG { packet_number: 5 });
        // The ACK echoes seq, packet number and delay.
        assert_eq!(&d.ack[..4], &[1, 0, 0, 3]);
        assert_eq!(&d.ack[4..14], &buf[4..14]);
        match TenG::parse_board_input(&d.ack).expect("ack") {
            BoardInput::Ack {
                wire_index,
                echo_seq,
                hint_gap_ns,
            } => {
                assert_eq!(
                    (wire_index, echo_seq, hint_gap_ns),
                    (Some(5), Some(9), None)
                );
            }
            other => panic!("{other:?}"),
        }
        // Too short a buffer is refused, not a panic.
        assert!(TenG::emit_data(
            &DataOut {
                index: 0,
                sends_before: 0,
                seq: 0,
                delay: 0,
                response: resp,
                data: &data,
                flushed_words: None,
            },
            &mut buf[..100]
        )
        .is_none());
    }
}
