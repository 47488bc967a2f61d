//! Property tests: every GVCP/GVSP/TCP-framing Repr survives emit -> parse,
//! and arbitrary bytes never make a decoder panic.

use core::net::Ipv4Addr;

use linerate_wire::ethernet::MacAddr;
use linerate_wire::gvcp::{
    Ack, AckRepr, Command, CommandRepr, DiscoveryAck, FixedString, ForceIp, Message, PacketResend,
    RegisterWrite, MAX_MEMORY_DATA, MAX_READ_REGISTERS, MAX_WRITE_REGISTERS,
};
use linerate_wire::gvsp::{
    Body, HeaderRepr, ImageInfo, LeaderInfo, LeaderRepr, PacketFormat, PacketRepr, PayloadType,
    TrailerRepr,
};
use linerate_wire::gvsp_tcp::{self, RecordHeader, RecordKind};
use linerate_wire::{PixelFormat, Status};
use proptest::prelude::*;

fn fixed<const N: usize>() -> impl Strategy<Value = FixedString<N>> {
    proptest::string::string_regex(&format!("[ -~]{{0,{}}}", N - 1))
        .expect("regex")
        .prop_map(|s| FixedString::new(&s).expect("short enough"))
}

fn discovery() -> impl Strategy<Value = DiscoveryAck> {
    (
        (any::<u16>(), any::<u16>(), any::<u32>(), any::<[u8; 6]>()),
        (
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
        ),
        (
            fixed::<32>(),
            fixed::<32>(),
            fixed::<48>(),
            fixed::<16>(),
            fixed::<16>(),
        ),
    )
        .prop_map(
            |((ma, mi, mode, mac), (o, c, ip, mask, gw), (man, model, info, ser, user))| {
                DiscoveryAck {
                    spec_major: ma,
                    spec_minor: mi,
                    device_mode: mode,
                    mac: MacAddr(mac),
                    ip_config_options: o,
                    ip_config_current: c,
                    current_ip: Ipv4Addr::from(ip),
                    subnet_mask: Ipv4Addr::from(mask),
                    gateway: Ipv4Addr::from(gw),
                    manufacturer: man,
                    model,
                    device_version: FixedString::new("1.0").expect("fits"),
                    manufacturer_info: info,
                    serial: ser,
                    user_name: user,
                }
            },
        )
}

fn words(max: usize) -> impl Strategy<Value = Vec<u8>> {
    (1..=max / 4).prop_flat_map(|n| proptest::collection::vec(any::<u8>(), 4 * n))
}

fn resend() -> impl Strategy<Value = PacketResend> {
    prop_oneof![
        (
            any::<u16>(),
            any::<u16>(),
            0u32..=0xff_ffff,
            0u32..=0xff_ffff
        )
            .prop_map(|(c, b, f, l)| {
                PacketResend {
                    channel: c,
                    block_id: b.into(),
                    first_packet_id: f,
                    last_packet_id: l,
                    extended: false,
                }
            }),
        (any::<u16>(), any::<u64>(), any::<u32>(), any::<u32>()).prop_map(|(c, b, f, l)| {
            PacketResend {
                channel: c,
                block_id: b,
                first_packet_id: f,
                last_packet_id: l,
                extended: true,
            }
        }),
    ]
}

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        Just(Command::Discovery),
        Just(Command::Bye),
        (any::<[u8; 6]>(), any::<[u32; 3]>()).prop_map(|(mac, v)| Command::ForceIp(ForceIp {
            mac: MacAddr(mac),
            ip: v[0].into(),
            subnet_mask: v[1].into(),
            gateway: v[2].into(),
        })),
        proptest::collection::vec(any::<u32>(), 1..=MAX_READ_REGISTERS)
            .prop_map(|addresses| Command::ReadReg { addresses }),
        proptest::collection::vec((any::<u32>(), any::<u32>()), 1..=MAX_WRITE_REGISTERS).prop_map(
            |w| Command::WriteReg {
                writes: w
                    .into_iter()
                    .map(|(address, value)| RegisterWrite { address, value })
                    .collect()
            }
        ),
        (any::<u32>(), 1u16..=(MAX_MEMORY_DATA as u16 / 4)).prop_map(|(address, n)| {
            Command::ReadMem {
                address,
                count: 4 * n,
            }
        }),
        (any::<u32>(), words(MAX_MEMORY_DATA))
            .prop_map(|(address, data)| Command::WriteMem { address, data }),
        resend().prop_map(Command::PacketResend),
    ]
}

fn ack() -> impl Strategy<Value = AckRepr> {
    let success = prop_oneof![
        discovery().prop_map(|d| Ack::Discovery(Box::new(d))),
        Just(Ack::Bye),
        proptest::collection::vec(any::<u32>(), 0..=MAX_READ_REGISTERS)
            .prop_map(|values| Ack::ReadReg { values }),
        any::<u16>().prop_map(|index| Ack::WriteReg { index }),
        (any::<u32>(), words(MAX_MEMORY_DATA))
            .prop_map(|(address, data)| Ack::ReadMem { address, data }),
        any::<u16>().prop_map(|index| Ack::WriteMem { index }),
        any::<u16>().prop_map(|t| Ack::PendingAck {
            time_to_completion_ms: t
        }),
    ];
    prop_oneof![
        (success, any::<u16>()).prop_map(|(ack, ack_id)| AckRepr {
            status: Status::SUCCESS,
            ack_id,
            ack
        }),
        (0x8001u16..=0x8fff, any::<u16>(), any::<u16>()).prop_filter_map(
            "bye acks carry no error-only form",
            |(s, answer, ack_id)| (answer != 0x0005).then_some(AckRepr {
                status: Status(s),
                ack_id,
                ack: Ack::Bare { answer }
            })
        ),
    ]
}

fn header(format: PacketFormat) -> impl Strategy<Value = HeaderRepr> {
    prop_oneof![
        (any::<u16>(), 1u16.., 0u32..=0xff_ffff).prop_map(move |(s, b, p)| HeaderRepr {
            status: Status(s & 0x7fff),
            block_id: b.into(),
            packet_id: p,
            format,
            extended: false,
            flags: 0,
        }),
        (any::<u16>(), 1u64.., any::<u32>(), any::<u16>()).prop_map(move |(s, b, p, f)| {
            HeaderRepr {
                status: Status(s & 0x7fff),
                block_id: b,
                packet_id: p,
                format,
                extended: true,
                flags: f,
            }
        }),
    ]
}

fn leader() -> impl Strategy<Value = LeaderRepr> {
    let image = (any::<[u32; 5]>(), any::<u16>(), any::<u16>(), any::<bool>()).prop_map(
        |(v, px, py, chunks)| {
            (
                if chunks {
                    PayloadType::IMAGE_WITH_CHUNKS
                } else {
                    PayloadType::IMAGE
                },
                LeaderInfo::Image(ImageInfo {
                    pixel_format: PixelFormat(v[0]),
                    width: v[1],
                    height: v[2],
                    offset_x: v[3],
                    offset_y: v[4],
                    padding_x: px,
                    padding_y: py,
                }),
            )
        },
    );
    let raw = any::<u64>().prop_map(|s| {
        (
            PayloadType::RAW_DATA,
            LeaderInfo::RawData { payload_size: s },
        )
    });
    let chunk = Just((PayloadType::CHUNK_DATA, LeaderInfo::ChunkData));
    (prop_oneof![image, raw, chunk], any::<u16>(), any::<u64>()).prop_map(
        |((payload_type, info), flags, timestamp)| LeaderRepr {
            flags,
            payload_type,
            timestamp,
            info,
        },
    )
}

fn trailer_for(payload_type: PayloadType) -> impl Strategy<Value = TrailerRepr> {
    (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(move |(y, len, id)| {
        let chunks = payload_type.has_chunks();
        match payload_type.base() {
            1 => TrailerRepr {
                payload_type,
                size_y: Some(y),
                chunk_payload_length: chunks.then_some(len),
                chunk_layout_id: chunks.then_some(id),
            },
            2 => TrailerRepr {
                payload_type,
                size_y: None,
                chunk_payload_length: chunks.then_some(len),
                chunk_layout_id: chunks.then_some(id),
            },
            _ => TrailerRepr {
                payload_type,
                size_y: None,
                chunk_payload_length: Some(len),
                chunk_layout_id: None,
            },
        }
    })
}

proptest! {
    #[test]
    fn gvcp_commands_round_trip(cmd in command(), id in 1u16..) {
        let repr = CommandRepr::new(cmd, id);
        let bytes = repr.to_vec().expect("valid reprs emit");
        prop_assert_eq!(bytes.len(), repr.buffer_len());
        prop_assert!(bytes.len() <= linerate_wire::gvcp::MAX_UDP_PAYLOAD);
        prop_assert_eq!(Message::parse(&bytes), Ok(Message::Command(repr)));
    }

    #[test]
    fn gvcp_acks_round_trip(repr in ack()) {
        let bytes = repr.to_vec().expect("valid reprs emit");
        prop_assert_eq!(Message::parse(&bytes), Ok(Message::Ack(repr)));
    }

    #[test]
    fn gvsp_leaders_round_trip(h in header(PacketFormat::Leader), l in leader()) {
        let p = PacketRepr { header: h, body: Body::Leader(l) };
        let bytes = p.to_vec().expect("valid reprs emit");
        prop_assert_eq!(PacketRepr::parse(&bytes), Ok(p));
    }

    #[test]
    fn gvsp_trailers_round_trip(
        h in header(PacketFormat::Trailer),
        t in leader().prop_flat_map(|l| trailer_for(l.payload_type)),
    ) {
        let p = PacketRepr { header: h, body: Body::Trailer(t) };
        let bytes = p.to_vec().expect("valid reprs emit");
        prop_assert_eq!(PacketRepr::parse(&bytes), Ok(p));
    }

    #[test]
    fn gvsp_payload_and_all_in_round_trip(
        h in header(PacketFormat::Payload),
        data in proptest::collection::vec(any::<u8>(), 0..9000),
        (l, t) in leader().prop_flat_map(|l| (Just(l), trailer_for(l.payload_type))),
    ) {
        let p = PacketRepr { header: h, body: Body::Payload(&data) };
        let bytes = p.to_vec().expect("valid reprs emit");
        prop_assert_eq!(PacketRepr::parse(&bytes), Ok(p));
        let all_in = PacketRepr {
            header: HeaderRepr { format: PacketFormat::AllIn, ..h },
            body: Body::AllIn { leader: l, trailer: t, data: &data },
        };
        let bytes = all_in.to_vec().expect("valid reprs emit");
        prop_assert_eq!(PacketRepr::parse(&bytes), Ok(all_in));
    }

    #[test]
    fn tcp_records_round_trip(body in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let framed = gvsp_tcp::frame_gvsp(&body).expect("frames");
        let record = gvsp_tcp::Record::new_checked(&framed[..]).expect("complete");
        prop_assert_eq!(record.body(), &body[..]);
        prop_assert_eq!(record.header(), RecordHeader { kind: RecordKind::Gvsp, body_len: body.len() as u32 });
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        // Whatever parses must re-emit to something that parses the same.
        if let Ok(m) = Message::parse(&bytes) {
            let again = m.to_vec().expect("parsed reprs emit");
            prop_assert_eq!(Message::parse(&again), Ok(m));
        }
        if let Ok(p) = PacketRepr::parse(&bytes) {
            let again = p.to_vec().expect("parsed reprs emit");
            prop_assert_eq!(PacketRepr::parse(&again), Ok(p));
        }
        let _ = gvsp_tcp::peek(&bytes);
    }
}
