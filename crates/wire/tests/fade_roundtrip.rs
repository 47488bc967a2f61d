//! Property tests for the FADE codecs: every v1 and FADE-10G Repr survives
//! emit -> parse, emitted frames are never runts, and arbitrary bytes never
//! make a decoder panic.

use linerate_wire::ethernet::{HEADER_LEN, MIN_FRAME_LEN};
use linerate_wire::fade::{ten_g, v1, CONTROL_LEN};
use linerate_wire::Error;
use proptest::prelude::*;

/// The strategies build owned values; DATA Reprs borrow their payload, so
/// each test turns these into Reprs over a local buffer.
#[derive(Debug, Clone)]
enum V1Case {
    Data {
        tag: v1::Tag,
        delay: u32,
        data: Vec<u8>,
    },
    Control(v1::ControlRepr),
}

#[derive(Debug, Clone)]
enum TenGCase {
    Data {
        flushed: bool,
        seq: u16,
        packet_number: u32,
        delay: u32,
        response: ten_g::CommandResponse,
        data: Vec<u8>,
    },
    Response(ten_g::CommandResponse),
    Control(ten_g::ControlRepr),
}

fn v1_tag() -> impl Strategy<Value = v1::Tag> {
    (
        any::<u16>(),
        0..=v1::MAX_PACKET_NUMBER,
        0..=v1::MAX_RETRY_COUNT,
    )
        .prop_map(|(set, packet, retry)| v1::Tag::new(set, packet, retry).expect("in range"))
}

fn v1_control() -> impl Strategy<Value = v1::ControlRepr> {
    prop_oneof![
        Just(v1::ControlRepr::Start),
        Just(v1::ControlRepr::Stop),
        Just(v1::ControlRepr::Reset),
        v1_tag().prop_map(v1::ControlRepr::Ack),
        v1_tag().prop_map(v1::ControlRepr::Nack),
    ]
}

fn v1_case() -> impl Strategy<Value = V1Case> {
    prop_oneof![
        (
            v1_tag(),
            any::<u32>(),
            proptest::collection::vec(any::<u8>(), v1::DATA_LEN)
        )
            .prop_map(|(tag, delay, data)| V1Case::Data { tag, delay, data }),
        v1_control().prop_map(V1Case::Control),
    ]
}

fn response() -> impl Strategy<Value = ten_g::CommandResponse> {
    (any::<u16>(), any::<u16>(), any::<[u8; 8]>())
        .prop_map(|(code, seq, data)| ten_g::CommandResponse { code, seq, data })
}

fn command() -> impl Strategy<Value = ten_g::Command> {
    prop_oneof![
        Just(ten_g::Command::Start),
        Just(ten_g::Command::Stop),
        Just(ten_g::Command::Reset),
        (ten_g::FIRST_USER_COMMAND..=u16::MAX)
            .prop_filter_map("packet type words are not commands", |c| {
                ten_g::UserCommand::new(c).ok().map(ten_g::Command::User)
            }),
    ]
}

fn ack() -> impl Strategy<Value = ten_g::AckRepr> {
    (any::<u16>(), any::<u32>(), any::<u32>()).prop_map(|(seq, packet_number, delay)| {
        ten_g::AckRepr {
            seq,
            packet_number,
            delay,
        }
    })
}

fn ten_g_control() -> impl Strategy<Value = ten_g::ControlRepr> {
    prop_oneof![
        (command(), any::<u16>(), any::<u32>()).prop_map(|(command, seq, arg)| {
            ten_g::ControlRepr::Command(ten_g::CommandRepr { command, seq, arg })
        }),
        ack().prop_map(ten_g::ControlRepr::Ack),
        ack().prop_map(ten_g::ControlRepr::Nack),
    ]
}

fn ten_g_case() -> impl Strategy<Value = TenGCase> {
    prop_oneof![
        (
            (any::<bool>(), any::<u16>(), any::<u32>(), any::<u32>()),
            response(),
            proptest::collection::vec(any::<u8>(), ten_g::DATA_LEN),
        )
            .prop_map(|((flushed, seq, packet_number, delay), response, data)| {
                TenGCase::Data {
                    flushed,
                    seq,
                    packet_number,
                    delay,
                    response,
                    data,
                }
            }),
        response().prop_map(TenGCase::Response),
        ten_g_control().prop_map(TenGCase::Control),
    ]
}

fn v1_repr(case: &V1Case) -> v1::Repr<'_> {
    match case {
        V1Case::Data { tag, delay, data } => v1::Repr::Data(v1::DataRepr {
            tag: *tag,
            delay: *delay,
            data: data.as_slice().try_into().expect("DATA_LEN bytes"),
        }),
        V1Case::Control(c) => v1::Repr::Control(*c),
    }
}

fn ten_g_repr(case: &TenGCase) -> ten_g::Repr<'_> {
    match case {
        TenGCase::Data {
            flushed,
            seq,
            packet_number,
            delay,
            response,
            data,
        } => ten_g::Repr::Data(ten_g::DataRepr {
            flushed: *flushed,
            seq: *seq,
            packet_number: *packet_number,
            delay: *delay,
            response: *response,
            data: data.as_slice().try_into().expect("DATA_LEN bytes"),
        }),
        TenGCase::Response(r) => ten_g::Repr::Response(*r),
        TenGCase::Control(c) => ten_g::Repr::Control(*c),
    }
}

/// Bytes that start like a FADE-10G packet, so the fuzzing reaches past the
/// version check.
fn ten_g_like_bytes() -> impl Strategy<Value = Vec<u8>> {
    let kind = prop_oneof![
        Just(ten_g::TYPE_DATA),
        Just(ten_g::TYPE_DATA_FLUSHED),
        Just(ten_g::TYPE_COMMAND_RESPONSE),
        0u16..=8,
        any::<u16>(),
    ];
    let len = prop_oneof![
        0usize..80,
        Just(ten_g::DATA_PACKET_LEN),
        (ten_g::DATA_PACKET_LEN - 2)..(ten_g::DATA_PACKET_LEN + 2),
    ];
    (kind, len).prop_flat_map(|(kind, len)| {
        proptest::collection::vec(any::<u8>(), len).prop_map(move |mut v| {
            let [k0, k1] = kind.to_be_bytes();
            let head = [0x01, 0x00, k0, k1];
            let n = v.len().min(head.len());
            v[..n].copy_from_slice(&head[..n]);
            v
        })
    })
}

/// Bytes that start like a FADE v1 packet.
fn v1_like_bytes() -> impl Strategy<Value = Vec<u8>> {
    let kind = prop_oneof![Just(v1::TYPE_DATA), 0u16..=8, any::<u16>()];
    let len = prop_oneof![
        0usize..80,
        Just(v1::DATA_PACKET_LEN),
        (v1::DATA_PACKET_LEN - 2)..(v1::DATA_PACKET_LEN + 2),
    ];
    (kind, len).prop_flat_map(|(kind, len)| {
        proptest::collection::vec(any::<u8>(), len).prop_map(move |mut v| {
            let n = v.len().min(2);
            v[..n].copy_from_slice(&kind.to_be_bytes()[..n]);
            v
        })
    })
}

/// If `bytes` parse, emitting the Repr and parsing again gives the same Repr.
fn v1_reparses(bytes: &[u8]) {
    if let Ok(r) = v1::Repr::parse_bytes(bytes) {
        let again = r.to_vec();
        assert_eq!(again.len(), r.buffer_len());
        assert_eq!(v1::Repr::parse_bytes(&again), Ok(r));
    }
}

fn ten_g_reparses(bytes: &[u8]) {
    if let Ok(r) = ten_g::Repr::parse_bytes(bytes) {
        let again = r.to_vec();
        assert_eq!(again.len(), r.buffer_len());
        assert_eq!(ten_g::Repr::parse_bytes(&again), Ok(r));
    }
}

proptest! {
    #[test]
    fn fade_v1_round_trip(case in v1_case()) {
        let repr = v1_repr(&case);
        let bytes = repr.to_vec();
        prop_assert_eq!(bytes.len(), repr.buffer_len());
        prop_assert!(HEADER_LEN + bytes.len() >= MIN_FRAME_LEN);
        prop_assert_eq!(v1::Repr::parse_bytes(&bytes), Ok(repr));
        // emit into a larger buffer writes the same prefix and nothing else.
        let mut big = vec![0x3c; bytes.len() + 5];
        repr.emit(&mut big).expect("room");
        prop_assert_eq!(&big[..bytes.len()], &bytes[..]);
        prop_assert!(big[bytes.len()..].iter().all(|&b| b == 0x3c));
        if let v1::Repr::Control(_) = repr {
            prop_assert_eq!(bytes.len(), CONTROL_LEN);
        }
    }

    #[test]
    fn fade_v1_control_parse_ignores_padding(c in v1_control(), pad in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut bytes = v1::Repr::Control(c).to_vec();
        bytes.truncate(v1::CONTROL_HEADER_LEN);
        if !matches!(c, v1::ControlRepr::Ack(_) | v1::ControlRepr::Nack(_)) {
            // START/STOP/RESET carry nothing in the tag bytes either.
            for (b, p) in bytes[2..].iter_mut().zip(pad.iter().rev()) {
                *b = *p;
            }
        }
        bytes.extend(pad);
        prop_assert_eq!(v1::Repr::parse_bytes(&bytes), Ok(v1::Repr::Control(c)));
    }

    #[test]
    fn fade_v1_packet_retry_packing(packet in any::<u8>(), retry in any::<u16>()) {
        match v1::PacketRetry::new(packet, retry) {
            Ok(pr) => {
                prop_assert!(packet <= v1::MAX_PACKET_NUMBER && retry <= v1::MAX_RETRY_COUNT);
                prop_assert_eq!((pr.packet(), pr.retry()), (packet, retry));
                prop_assert_eq!(v1::PacketRetry::from_bits(pr.bits()), pr);
            }
            Err(Error::Overflow { value, max, .. }) => {
                prop_assert!(value > max);
                prop_assert!(packet > v1::MAX_PACKET_NUMBER || retry > v1::MAX_RETRY_COUNT);
            }
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }

    #[test]
    fn fade_v1_bits_unpack_and_repack(bits in any::<u16>()) {
        let pr = v1::PacketRetry::from_bits(bits);
        prop_assert_eq!(v1::PacketRetry::new(pr.packet(), pr.retry()), Ok(pr));
    }

    #[test]
    fn fade_v1_arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1100)) {
        v1_reparses(&bytes);
    }

    #[test]
    fn fade_v1_packet_like_bytes_never_panic(bytes in v1_like_bytes()) {
        v1_reparses(&bytes);
    }

    #[test]
    fn fade_ten_g_round_trip(case in ten_g_case()) {
        let repr = ten_g_repr(&case);
        let bytes = repr.to_vec();
        prop_assert_eq!(bytes.len(), repr.buffer_len());
        prop_assert!(HEADER_LEN + bytes.len() >= MIN_FRAME_LEN);
        prop_assert_eq!(ten_g::Repr::parse_bytes(&bytes), Ok(repr));
        let mut big = vec![0x3c; bytes.len() + 5];
        repr.emit(&mut big).expect("room");
        prop_assert_eq!(&big[..bytes.len()], &bytes[..]);
        prop_assert!(big[bytes.len()..].iter().all(|&b| b == 0x3c));
        match repr {
            ten_g::Repr::Control(_) => prop_assert_eq!(bytes.len(), CONTROL_LEN),
            ten_g::Repr::Response(_) => {
                prop_assert_eq!(bytes.len(), ten_g::RESPONSE_PACKET_LEN)
            }
            ten_g::Repr::Data(d) => {
                // The ACK for a DATA packet echoes its bytes 4..14.
                let ack = ten_g::Repr::Control(ten_g::ControlRepr::Ack(d.ack())).to_vec();
                prop_assert_eq!(&ack[4..14], &bytes[4..14]);
            }
        }
    }

    #[test]
    fn fade_ten_g_arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..9000)) {
        ten_g_reparses(&bytes);
    }

    #[test]
    fn fade_ten_g_packet_like_bytes_never_panic(bytes in ten_g_like_bytes()) {
        ten_g_reparses(&bytes);
    }

    #[test]
    fn fade_ten_g_user_codes(code in any::<u16>()) {
        let ok = ten_g::UserCommand::new(code).is_ok();
        let reserved = code < ten_g::FIRST_USER_COMMAND
            || [ten_g::TYPE_DATA, ten_g::TYPE_DATA_FLUSHED, ten_g::TYPE_COMMAND_RESPONSE].contains(&code);
        prop_assert_eq!(ok, !reserved);
    }
}
