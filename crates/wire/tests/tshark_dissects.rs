//! Our emitted GVCP and GVSP packets, dissected by Wireshark's own
//! dissectors (tshark): every packet must be recognised, decode to the
//! values we encoded, and raise no malformed-packet, error or warning
//! expert info. tshark is a required test dependency (`scripts/test`
//! installs it); this test fails, rather than skips, when it is missing.

use std::io::Write;
use std::process::Command as Process;
use std::time::Duration;

use core::net::Ipv4Addr;

use etherparse::PacketBuilder;
use linerate_wire::ethernet::MacAddr;
use linerate_wire::gvcp::{
    Ack, AckRepr, Command, CommandRepr, DiscoveryAck, FixedString, ForceIp, PacketResend,
    RegisterWrite,
};
use linerate_wire::gvsp::{
    Body, HeaderRepr, ImageInfo, LeaderInfo, LeaderRepr, PacketFormat, PacketRepr, PayloadType,
    TrailerRepr,
};
use linerate_wire::{PixelFormat, Status};
use pcap_file::pcap::{PcapPacket, PcapWriter};

const HOST: [u8; 4] = [169, 254, 1, 2];
const DEVICE: [u8; 4] = [169, 254, 1, 1];
const HOST_CONTROL_PORT: u16 = 50_000;
const HOST_STREAM_PORT: u16 = 50_010;
const DEVICE_STREAM_PORT: u16 = 40_000;

/// One packet of the capture with what tshark must report for it.
struct Expected {
    proto: &'static str,
    /// (tshark field, value as tshark prints it)
    fields: Vec<(&'static str, String)>,
}

fn gvcp_exchange() -> Vec<(bool, Vec<u8>, Expected)> {
    let discovery = DiscoveryAck {
        spec_major: 2,
        spec_minor: 0,
        device_mode: 0x8000_0000,
        mac: MacAddr([0x02, 0, 0, 0, 0, 1]),
        ip_config_options: 0x8000_0007,
        ip_config_current: 0x8000_0004,
        current_ip: Ipv4Addr::from(DEVICE),
        subnet_mask: Ipv4Addr::new(255, 255, 0, 0),
        gateway: Ipv4Addr::UNSPECIFIED,
        manufacturer: FixedString::new("linerate").expect("fits"),
        model: FixedString::new("tshark check").expect("fits"),
        device_version: FixedString::new("0.1").expect("fits"),
        manufacturer_info: FixedString::default(),
        serial: FixedString::new("LR42").expect("fits"),
        user_name: FixedString::default(),
    };
    let ok = |ack_id, ack| AckRepr {
        status: Status::SUCCESS,
        ack_id,
        ack,
    };
    let pairs: Vec<(CommandRepr, Option<AckRepr>)> = vec![
        (
            CommandRepr::new(Command::Discovery, 1),
            Some(ok(1, Ack::Discovery(Box::new(discovery)))),
        ),
        (
            CommandRepr::new(
                Command::ReadReg {
                    addresses: vec![0x0a00, 0x0934, 0x0d04],
                },
                2,
            ),
            Some(ok(
                2,
                Ack::ReadReg {
                    values: vec![0, 0x0000_0004, 0x0000_05dc],
                },
            )),
        ),
        (
            CommandRepr::new(
                Command::WriteReg {
                    writes: vec![
                        RegisterWrite {
                            address: 0x0a00,
                            value: 2,
                        },
                        RegisterWrite {
                            address: 0x0d00,
                            value: u32::from(HOST_STREAM_PORT),
                        },
                    ],
                },
                3,
            ),
            Some(ok(3, Ack::WriteReg { index: 2 })),
        ),
        (
            CommandRepr::new(
                Command::ReadMem {
                    address: 0x0200,
                    count: 32,
                },
                4,
            ),
            Some(ok(
                4,
                Ack::ReadMem {
                    address: 0x0200,
                    data: b"Local:linerate.xml;10000;3e67\0\0\0".to_vec(),
                },
            )),
        ),
        (
            CommandRepr::new(
                Command::WriteMem {
                    address: 0x00e8,
                    data: b"cam1".to_vec(),
                },
                5,
            ),
            Some(ok(5, Ack::WriteMem { index: 4 })),
        ),
        (
            CommandRepr::new(
                Command::ReadReg {
                    addresses: vec![0x0a00],
                },
                6,
            ),
            Some(ok(
                6,
                Ack::PendingAck {
                    time_to_completion_ms: 100,
                },
            )),
        ),
        (
            CommandRepr::new(
                Command::ReadMem {
                    address: 0x0001_0000,
                    count: 4,
                },
                7,
            ),
            Some(AckRepr {
                status: Status::INVALID_ADDRESS,
                ack_id: 7,
                ack: Ack::ReadMem {
                    address: 0x0001_0000,
                    data: vec![],
                },
            }),
        ),
        (
            CommandRepr::new(
                Command::PacketResend(PacketResend {
                    channel: 0,
                    block_id: 7,
                    first_packet_id: 3,
                    last_packet_id: 5,
                    extended: false,
                }),
                8,
            ),
            None,
        ),
        (
            CommandRepr::new(
                Command::PacketResend(PacketResend {
                    channel: 0,
                    block_id: 0x1_0000_0007,
                    first_packet_id: 3,
                    last_packet_id: 5,
                    extended: true,
                }),
                9,
            ),
            None,
        ),
        (
            CommandRepr::new(
                Command::ForceIp(ForceIp {
                    mac: MacAddr([0x02, 0, 0, 0, 0, 1]),
                    ip: Ipv4Addr::from(DEVICE),
                    subnet_mask: Ipv4Addr::new(255, 255, 0, 0),
                    gateway: Ipv4Addr::new(169, 254, 0, 254),
                }),
                10,
            ),
            Some(ok(10, Ack::Bye)),
        ),
    ];
    let mut out = Vec::new();
    for (cmd, ack) in pairs {
        let code = cmd.command.code();
        let mut fields = vec![
            ("gvcp.cmd.command", format!("{code}")),
            ("gvcp.cmd.req_id", cmd.request_id.to_string()),
        ];
        if let Command::ForceIp(f) = &cmd.command {
            let m = f.mac.0;
            fields.extend([
                (
                    "gvcp.cmd.forceip.macaddress",
                    format!(
                        "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
                        m[0], m[1], m[2], m[3], m[4], m[5]
                    ),
                ),
                ("gvcp.cmd.forceip.ip", f.ip.to_string()),
                ("gvcp.cmd.forceip.subnetmask", f.subnet_mask.to_string()),
                ("gvcp.cmd.forceip.defaultgateway", f.gateway.to_string()),
            ]);
        }
        out.push((
            true,
            cmd.to_vec().expect("command emits"),
            Expected {
                proto: "gvcp",
                fields,
            },
        ));
        if let Some(ack) = ack {
            out.push((
                false,
                ack.to_vec().expect("ack emits"),
                Expected {
                    proto: "gvcp",
                    fields: vec![
                        ("gvcp.ack", format!("{}", ack.ack.code())),
                        ("gvcp.cmd.req_id", ack.ack_id.to_string()),
                    ],
                },
            ));
        }
    }
    out
}

fn gvsp_block(extended: bool, block_id: u64, status: Status) -> Vec<(Vec<u8>, Expected)> {
    let width = 64u32;
    let height = 4u32;
    let pixels: Vec<u8> = (0..width * height).map(|i| i as u8).collect();
    let header = |format, packet_id| HeaderRepr {
        status,
        block_id,
        packet_id,
        format,
        extended,
        flags: 0,
    };
    let leader = LeaderRepr {
        flags: 0,
        payload_type: PayloadType::IMAGE,
        timestamp: 0x0000_0001_0000_0002,
        info: LeaderInfo::Image(ImageInfo {
            pixel_format: PixelFormat::MONO8,
            width,
            height,
            ..ImageInfo::default()
        }),
    };
    let mut packets = vec![PacketRepr {
        header: header(PacketFormat::Leader, 0),
        body: Body::Leader(leader),
    }];
    for (i, chunk) in pixels.chunks(128).enumerate() {
        packets.push(PacketRepr {
            header: header(PacketFormat::Payload, i as u32 + 1),
            body: Body::Payload(chunk),
        });
    }
    packets.push(PacketRepr {
        header: header(PacketFormat::Trailer, packets.len() as u32),
        body: Body::Trailer(TrailerRepr::image(height)),
    });
    packets
        .iter()
        .map(|p| {
            // tshark's format field includes the extended-id bit.
            let ei = if extended { 0x80 } else { 0 };
            let mut fields = vec![("gvsp.format", format!("{}", p.header.format.code() | ei))];
            if extended {
                fields.push(("gvsp.blockid64", block_id.to_string()));
                fields.push(("gvsp.packetid32", p.header.packet_id.to_string()));
            } else {
                fields.push(("gvsp.blockid16", block_id.to_string()));
                fields.push(("gvsp.packetid24", p.header.packet_id.to_string()));
            }
            if let Body::Leader(_) = p.body {
                fields.push(("gvsp.sizex", width.to_string()));
                fields.push(("gvsp.sizey", height.to_string()));
            }
            (
                p.to_vec().expect("packet emits"),
                Expected {
                    proto: "gvsp",
                    fields,
                },
            )
        })
        .collect()
}

fn gvsp_packets() -> Vec<(Vec<u8>, Expected)> {
    let mut out = gvsp_block(false, 1, Status::SUCCESS);
    out.extend(gvsp_block(true, 0x1_0000_0002, Status::SUCCESS));
    out.extend(gvsp_block(false, 3, Status::PACKET_RESEND));
    // A device's answer to a resend request for data it no longer has.
    let unavailable = PacketRepr {
        header: HeaderRepr {
            status: Status::PACKET_UNAVAILABLE,
            block_id: 1,
            packet_id: 2,
            format: PacketFormat::Payload,
            extended: false,
            flags: 0,
        },
        body: Body::Empty,
    };
    out.push((
        unavailable.to_vec().expect("emits"),
        Expected {
            proto: "gvsp",
            fields: vec![("gvsp.status", format!("{}", Status::PACKET_UNAVAILABLE.0))],
        },
    ));
    // A small raw-data block as one all-in packet.
    let data = [0xabu8; 64];
    let all_in = PacketRepr {
        header: HeaderRepr {
            status: Status::SUCCESS,
            block_id: 4,
            packet_id: 0,
            format: PacketFormat::AllIn,
            extended: false,
            flags: 0,
        },
        body: Body::AllIn {
            leader: LeaderRepr {
                flags: 0,
                payload_type: PayloadType::RAW_DATA,
                timestamp: 9,
                info: LeaderInfo::RawData { payload_size: 64 },
            },
            trailer: TrailerRepr {
                payload_type: PayloadType::RAW_DATA,
                size_y: None,
                chunk_payload_length: None,
                chunk_layout_id: None,
            },
            data: &data,
        },
    };
    out.push((
        all_in.to_vec().expect("emits"),
        Expected {
            proto: "gvsp",
            fields: vec![
                ("gvsp.format", "4".into()),
                ("gvsp.payloaddatasize", "64".into()),
            ],
        },
    ));
    out
}

fn frame(src: [u8; 4], sport: u16, dst: [u8; 4], dport: u16, payload: &[u8]) -> Vec<u8> {
    let builder = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 2], [2, 0, 0, 0, 0, 1])
        .ipv4(src, dst, 64)
        .udp(sport, dport);
    let mut out = Vec::with_capacity(builder.size(payload.len()));
    builder.write(&mut out, payload).expect("in-memory write");
    out
}

/// tshark prints integer fields in hex or decimal depending on the field.
fn same_value(got: &str, want: &str) -> bool {
    let number = |s: &str| match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse::<u64>().ok(),
    };
    match (number(got), number(want)) {
        (Some(a), Some(b)) => a == b,
        _ => got == want,
    }
}

fn tshark_available() -> bool {
    Process::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn tshark_dissects_our_packets_cleanly() {
    assert!(
        tshark_available(),
        "tshark is required for this test: run scripts/test, which installs it (apt-get install tshark)"
    );
    let mut expected = Vec::new();
    let mut frames = Vec::new();
    for (to_device, bytes, exp) in gvcp_exchange() {
        frames.push(if to_device {
            frame(HOST, HOST_CONTROL_PORT, DEVICE, 3956, &bytes)
        } else {
            frame(DEVICE, 3956, HOST, HOST_CONTROL_PORT, &bytes)
        });
        expected.push(exp);
    }
    for (bytes, exp) in gvsp_packets() {
        frames.push(frame(
            DEVICE,
            DEVICE_STREAM_PORT,
            HOST,
            HOST_STREAM_PORT,
            &bytes,
        ));
        expected.push(exp);
    }

    let dir = std::env::temp_dir().join(format!("linerate-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let pcap = dir.join("emitted.pcap");
    {
        let file = std::fs::File::create(&pcap).expect("create pcap");
        let mut writer = PcapWriter::new(file).expect("pcap header");
        for (i, f) in frames.iter().enumerate() {
            let ts = Duration::from_micros(1_000 * i as u64);
            writer
                .write_packet(&PcapPacket::new(ts, f.len() as u32, f))
                .expect("pcap record");
        }
        writer.into_writer().flush().expect("flush");
    }

    let mut field_names: Vec<&str> = vec![
        "frame.number",
        "frame.protocols",
        "_ws.malformed",
        "_ws.expert.severity",
        "_ws.expert.message",
    ];
    for e in &expected {
        for (f, _) in &e.fields {
            if !field_names.contains(f) {
                field_names.push(f);
            }
        }
    }
    let mut cmd = Process::new("tshark");
    cmd.args(["-n", "-r"])
        .arg(&pcap)
        .args(["-d", &format!("udp.port=={HOST_STREAM_PORT},gvsp")])
        .args([
            "-T",
            "fields",
            "-E",
            "separator=\t",
            "-E",
            "occurrence=a",
            "-E",
            "aggregator=,",
        ]);
    for f in &field_names {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), expected.len(), "tshark output:\n{stdout}");

    let col = |name: &str| {
        field_names
            .iter()
            .position(|f| *f == name)
            .expect("known field")
    };
    let mut problems = Vec::new();
    for (row, exp) in rows.iter().zip(&expected) {
        let get = |name: &str| row.get(col(name)).copied().unwrap_or("");
        let n = get("frame.number");
        if !get("frame.protocols").split(':').any(|p| p == exp.proto) {
            problems.push(format!(
                "frame {n}: not dissected as {} ({})",
                exp.proto,
                get("frame.protocols")
            ));
        }
        if !get("_ws.malformed").is_empty() {
            problems.push(format!("frame {n}: malformed"));
        }
        // Severity values: 0x00200000 chat, 0x00400000 note, 0x00600000 warn, 0x00800000 error.
        for (sev, msg) in get("_ws.expert.severity")
            .split(',')
            .zip(get("_ws.expert.message").split(','))
        {
            let sev: u32 = sev.parse().unwrap_or(0);
            if sev >= 0x0060_0000 {
                problems.push(format!("frame {n}: expert info severity {sev:#x}: {msg}"));
            }
        }
        for (field, want) in &exp.fields {
            let got = get(field);
            if !got.split(',').any(|v| same_value(v, want)) {
                problems.push(format!("frame {n}: {field} = {got:?}, want {want}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "tshark disagrees (capture kept at {}):\n{}\n\nfull output:\n{stdout}",
        pcap.display(),
        problems.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
