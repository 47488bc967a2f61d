//! The emulated camera's GVCP logic, driven through `Device::handle_datagram` and
//! `Device::handle_timeout` with hand-made commands, Aravis's captured traffic and
//! random datagrams.

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddrV4};

use linerate_gev::device::registers::{bootstrap as bs, device as reg};
use linerate_gev::device::{
    AcquisitionMode, ControlLossReason, Counters, Device, DeviceConfig, DeviceError, DeviceEvent,
    DeviceIdentity, HandleResult, Privilege, GENICAM_XML, XML_FILE_NAME,
};
use linerate_wire::ethernet::MacAddr;
use linerate_wire::gvcp::{
    code, flags, Ack, AckPacket, AckRepr, Command, CommandRepr, ForceIp, PacketResend,
    RegisterWrite,
};
use linerate_wire::{PixelFormat, Status};
use proptest::prelude::*;

const A: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(169, 254, 10, 2), 50_000);
const A_STREAM: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(169, 254, 10, 2), 50_002);
const B: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(169, 254, 10, 3), 50_001);
const FAR: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(192, 168, 1, 7), 40_000);

fn ms(v: u64) -> u64 {
    v * 1_000_000
}

fn device() -> Device {
    Device::new(DeviceIdentity::default(), DeviceConfig::default()).expect("defaults are valid")
}

fn parse_ack(bytes: &[u8]) -> AckRepr {
    let packet = AckPacket::new_checked(bytes).expect("ack header");
    AckRepr::parse(&packet).expect("ack parses")
}

/// Sends `command` with ACK_REQUIRED and returns the parsed ack and the events.
fn send(
    dev: &mut Device,
    from: SocketAddrV4,
    now: u64,
    command: Command,
) -> (AckRepr, Vec<DeviceEvent>) {
    let bytes = CommandRepr::new(command, 0x1234)
        .to_vec()
        .expect("command encodes");
    let HandleResult { reply, events } = dev.handle_datagram(&bytes, from, now);
    let reply = reply.expect("an ack");
    let ack = parse_ack(&reply.datagram);
    assert_eq!(ack.ack_id, 0x1234);
    (ack, events)
}

fn read(dev: &mut Device, from: SocketAddrV4, addresses: &[u32]) -> (Status, Vec<u32>) {
    let (ack, _) = send(
        dev,
        from,
        ms(0),
        Command::ReadReg {
            addresses: addresses.to_vec(),
        },
    );
    match ack.ack {
        Ack::ReadReg { values } => (ack.status, values),
        Ack::Bare {
            answer: code::READREG_ACK,
        } => (ack.status, Vec::new()),
        other => panic!("unexpected ack {other:?}"),
    }
}

fn read1(dev: &mut Device, address: u32) -> u32 {
    let (status, values) = read(dev, A, &[address]);
    assert_eq!(status, Status::SUCCESS, "read {address:#x}");
    values[0]
}

fn write(
    dev: &mut Device,
    from: SocketAddrV4,
    now: u64,
    writes: &[(u32, u32)],
) -> (Status, u16, Vec<DeviceEvent>) {
    let writes = writes
        .iter()
        .map(|&(address, value)| RegisterWrite { address, value })
        .collect();
    let (ack, events) = send(dev, from, now, Command::WriteReg { writes });
    match ack.ack {
        Ack::WriteReg { index } => (ack.status, index, events),
        other => panic!("unexpected ack {other:?}"),
    }
}

fn write_status(dev: &mut Device, address: u32, value: u32) -> Status {
    write(dev, A, ms(0), &[(address, value)]).0
}

fn read_mem(dev: &mut Device, from: SocketAddrV4, address: u32, count: u16) -> (Status, Vec<u8>) {
    let (ack, _) = send(dev, from, ms(0), Command::ReadMem { address, count });
    match ack.ack {
        Ack::ReadMem { address: a, data } => {
            assert_eq!(a, address);
            (ack.status, data)
        }
        Ack::Bare {
            answer: code::READMEM_ACK,
        } => (ack.status, Vec::new()),
        other => panic!("unexpected ack {other:?}"),
    }
}

fn write_mem(dev: &mut Device, from: SocketAddrV4, address: u32, data: &[u8]) -> (Status, u16) {
    let (ack, _) = send(
        dev,
        from,
        ms(0),
        Command::WriteMem {
            address,
            data: data.to_vec(),
        },
    );
    match ack.ack {
        Ack::WriteMem { index } => (ack.status, index),
        other => panic!("unexpected ack {other:?}"),
    }
}

fn take_control(dev: &mut Device, from: SocketAddrV4, now: u64) {
    let (status, _, events) = write(dev, from, now, &[(bs::CONTROL_CHANNEL_PRIVILEGE, 2)]);
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(
        events,
        [DeviceEvent::ControlGranted {
            controller: from,
            exclusive: false
        }]
    );
}

/// A command datagram with an arbitrary code, flags and payload.
fn raw_command(flag_bits: u8, command: u16, id: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![0x42, flag_bits];
    v.extend_from_slice(&command.to_be_bytes());
    v.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    v.extend_from_slice(&id.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

fn raw_ack(dev: &mut Device, bytes: &[u8]) -> AckRepr {
    let reply = dev.handle_datagram(bytes, A, ms(0)).reply.expect("an ack");
    parse_ack(&reply.datagram)
}

#[test]
fn discovery_reflects_the_bootstrap_registers() {
    let mut dev = device();
    let (ack, events) = send(&mut dev, A, ms(0), Command::Discovery);
    assert!(events.is_empty());
    assert_eq!(ack.status, Status::SUCCESS);
    let Ack::Discovery(d) = ack.ack else {
        panic!("not a discovery ack")
    };
    let id = DeviceIdentity::default();
    assert_eq!((d.spec_major, d.spec_minor), (2, 0));
    assert_eq!(d.device_mode, 0x8000_0001);
    assert_eq!(d.mac, id.mac);
    assert_eq!(d.ip_config_options, 0x6);
    assert_eq!(d.ip_config_current, 0x4);
    assert_eq!(d.current_ip, id.ip);
    assert_eq!(d.subnet_mask, id.subnet);
    assert_eq!(d.manufacturer.to_string_lossy(), id.manufacturer);
    assert_eq!(d.model.to_string_lossy(), id.model);
    assert_eq!(d.serial.to_string_lossy(), id.serial);
    assert_eq!(*d, dev.discovery_ack());
}

#[test]
fn discovery_ack_destination() {
    let mut dev = device();
    let bytes = CommandRepr::new(Command::Discovery, 0xffff)
        .to_vec()
        .expect("encodes");
    assert_eq!(bytes[1], 0x11, "ack required + allow broadcast");
    // Same subnet: unicast even though broadcast is allowed.
    let r = dev.handle_datagram(&bytes, A, ms(0)).reply.expect("ack");
    assert_eq!(r.to, A);
    assert!(!r.is_broadcast());
    // Another subnet with broadcast allowed: broadcast to the sender's port.
    let r = dev.handle_datagram(&bytes, FAR, ms(0)).reply.expect("ack");
    assert_eq!(r.to, SocketAddrV4::new(Ipv4Addr::BROADCAST, FAR.port()));
    assert!(r.is_broadcast());
    // Another subnet without the flag: unicast.
    let plain = raw_command(flags::ACK_REQUIRED, code::DISCOVERY_CMD, 0xffff, &[]);
    assert_eq!(
        dev.handle_datagram(&plain, FAR, ms(0))
            .reply
            .expect("ack")
            .to,
        FAR
    );
    // No ack required: silence.
    let silent = raw_command(0, code::DISCOVERY_CMD, 0xffff, &[]);
    assert_eq!(dev.handle_datagram(&silent, A, ms(0)).reply, None);
}

#[test]
fn discovery_is_answered_while_another_host_has_exclusive_control() {
    let mut dev = device();
    let (status, _, _) = write(&mut dev, A, ms(0), &[(bs::CONTROL_CHANNEL_PRIVILEGE, 1)]);
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(dev.privilege(), Some(Privilege::Exclusive));
    let (ack, _) = send(&mut dev, B, ms(1), Command::Discovery);
    assert_eq!(ack.status, Status::SUCCESS);
    assert!(matches!(ack.ack, Ack::Discovery(_)));
}

#[test]
fn readreg_single_and_concatenated() {
    let mut dev = device();
    let (status, values) = read(
        &mut dev,
        B,
        &[
            bs::VERSION,
            bs::NUM_STREAM_CHANNELS,
            bs::HEARTBEAT_TIMEOUT,
            bs::TIMESTAMP_TICK_FREQUENCY_LOW,
            reg::WIDTH,
            reg::HEIGHT,
            reg::PIXEL_FORMAT,
            reg::PAYLOAD_SIZE,
            reg::ACQUISITION_FRAME_RATE,
            bs::CONTROL_CHANNEL_PRIVILEGE,
        ],
    );
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(
        values,
        [
            0x0002_0000,
            1,
            3000,
            1_000_000_000,
            1024,
            768,
            0x0108_0001,
            1024 * 768,
            25f32.to_bits(),
            0
        ]
    );
    // The most a GVCP datagram can name.
    let many = vec![reg::WIDTH; linerate_wire::gvcp::MAX_READ_REGISTERS];
    let (status, values) = read(&mut dev, B, &many);
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(values.len(), many.len());
}

#[test]
fn readreg_stops_at_the_first_error_with_the_values_before_it() {
    let mut dev = device();
    let (status, values) = read(&mut dev, A, &[reg::WIDTH, 0x0100, reg::HEIGHT]);
    assert_eq!(status, Status::INVALID_ADDRESS);
    assert_eq!(values, [1024]);
    let (status, values) = read(&mut dev, A, &[0x0002]);
    assert_eq!(status, Status::BAD_ALIGNMENT);
    assert!(values.is_empty());
    let (status, _) = read(&mut dev, A, &[0x0b00]);
    assert_eq!(status, Status::INVALID_ADDRESS, "no message channel");
    let (status, _) = read(&mut dev, A, &[0x0d40]);
    assert_eq!(status, Status::INVALID_ADDRESS, "only one stream channel");
}

#[test]
fn writereg_concatenated_and_stopping_at_the_first_failure() {
    let mut dev = device();
    take_control(&mut dev, A, ms(0));
    let (status, index, events) = write(
        &mut dev,
        A,
        ms(1),
        &[(reg::WIDTH, 640), (reg::HEIGHT, 480), (reg::OFFSET_X, 8)],
    );
    assert_eq!((status, index), (Status::SUCCESS, 3));
    assert_eq!(
        events,
        [DeviceEvent::StreamConfigChanged],
        "once per command"
    );
    let c = dev.stream_config();
    assert_eq!((c.width, c.height, c.offset_x), (640, 480, 8));
    assert_eq!(c.payload_size, 640 * 480);

    let (status, index, _) = write(
        &mut dev,
        A,
        ms(2),
        &[
            (reg::WIDTH, 320),
            (reg::PAYLOAD_SIZE, 1),
            (reg::HEIGHT, 240),
        ],
    );
    assert_eq!((status, index), (Status::WRITE_PROTECT, 1));
    assert_eq!(
        dev.stream_config().width,
        320,
        "writes before the failure stay"
    );
    assert_eq!(
        dev.stream_config().height,
        480,
        "writes after it are not done"
    );

    let (status, index, _) = write(
        &mut dev,
        A,
        ms(3),
        &[
            (reg::WIDTH, 64),
            (reg::HEIGHT, 48),
            (0x0100, 0),
            (reg::WIDTH, 32),
        ],
    );
    assert_eq!((status, index), (Status::INVALID_ADDRESS, 2));
    assert_eq!(read1(&mut dev, reg::WIDTH), 64);
}

#[test]
fn write_error_statuses() {
    let mut dev = device();
    // Nobody holds control: writes other than CCP are refused.
    assert_eq!(
        write_status(&mut dev, reg::WIDTH, 640),
        Status::ACCESS_DENIED
    );
    take_control(&mut dev, A, ms(0));
    assert_eq!(
        write(&mut dev, B, ms(0), &[(reg::WIDTH, 640)]).0,
        Status::ACCESS_DENIED
    );
    for (address, value, status) in [
        (reg::WIDTH + 2, 640, Status::BAD_ALIGNMENT),
        (0x0001_005c, 1, Status::INVALID_ADDRESS),
        (reg::LINERATE_TRANSFER_SIZE, 511, Status::INVALID_PARAMETER),
        (0x0800, 1, Status::INVALID_ADDRESS),
        (0x0300, 1, Status::WRITE_PROTECT),
        (bs::MODEL_NAME, 1, Status::WRITE_PROTECT),
        (bs::FIRST_URL, 1, Status::WRITE_PROTECT),
        (bs::GVCP_CAPABILITY, 4, Status::WRITE_PROTECT),
        (reg::PAYLOAD_SIZE, 1, Status::WRITE_PROTECT),
        (reg::WIDTH_MAX, 1, Status::WRITE_PROTECT),
        (reg::FRAMES_SENT, 1, Status::WRITE_PROTECT),
        (reg::XML_BASE, 1, Status::WRITE_PROTECT),
        (bs::STREAM_CHANNEL_BASE + bs::SCSP, 1, Status::WRITE_PROTECT),
        (reg::WIDTH, 0, Status::INVALID_PARAMETER),
        (reg::WIDTH, 1022, Status::INVALID_PARAMETER),
        (reg::WIDTH, 8196, Status::INVALID_PARAMETER),
        (reg::HEIGHT, 0, Status::INVALID_PARAMETER),
        (reg::OFFSET_X, 8192 - 1020, Status::INVALID_PARAMETER),
        (reg::OFFSET_Y, 8192, Status::INVALID_PARAMETER),
        (reg::PIXEL_FORMAT, 0x0108_00ff, Status::INVALID_PARAMETER),
        (reg::ACQUISITION_MODE, 3, Status::INVALID_PARAMETER),
        (reg::ACQUISITION_FRAME_COUNT, 0, Status::INVALID_PARAMETER),
        (
            reg::ACQUISITION_FRAME_RATE,
            0f32.to_bits(),
            Status::INVALID_PARAMETER,
        ),
        (
            reg::ACQUISITION_FRAME_RATE,
            f32::NAN.to_bits(),
            Status::INVALID_PARAMETER,
        ),
        (reg::TRIGGER_MODE, 2, Status::INVALID_PARAMETER),
        (reg::TRIGGER_SOURCE, 1, Status::INVALID_PARAMETER),
        (reg::TEST_PATTERN, 2, Status::INVALID_PARAMETER),
        (reg::TRANSPORT_SELECTOR, 2, Status::INVALID_PARAMETER),
        (
            reg::EXPOSURE_TIME,
            (-1f32).to_bits(),
            Status::INVALID_PARAMETER,
        ),
        (bs::HEARTBEAT_TIMEOUT, 499, Status::INVALID_PARAMETER),
        (
            bs::STREAM_CHANNEL_BASE + bs::SCPS,
            575,
            Status::INVALID_PARAMETER,
        ),
        (
            bs::STREAM_CHANNEL_BASE + bs::SCPS,
            16_001,
            Status::INVALID_PARAMETER,
        ),
        (
            bs::STREAM_CHANNEL_BASE + bs::SCP,
            0x0001_0000 | 5000,
            Status::INVALID_PARAMETER,
        ),
    ] {
        assert_eq!(
            write_status(&mut dev, address, value),
            status,
            "write {value:#x} to {address:#x}"
        );
    }
    // The device is still at its defaults after all those refusals.
    assert_eq!(dev.stream_config().width, 1024);
    assert_eq!(dev.stream_config().packet_size, 1500);
}

#[test]
fn readmem_regions_and_errors() {
    let mut dev = device();
    let (status, data) = read_mem(&mut dev, B, bs::MANUFACTURER_NAME, 32);
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(&data[..8], b"linerate");
    // The whole discovery area in one go, reserved words included.
    let (status, data) = read_mem(&mut dev, B, 0, 0xf8);
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(data.len(), 0xf8);
    // Device-specific registers through readmem.
    let (status, data) = read_mem(&mut dev, B, reg::WIDTH, 8);
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(data, [0, 0, 4, 0, 0, 0, 3, 0]);

    assert_eq!(read_mem(&mut dev, B, 0x0002, 4).0, Status::BAD_ALIGNMENT);
    assert_eq!(read_mem(&mut dev, B, 0x0100, 4).0, Status::INVALID_ADDRESS);
    assert_eq!(
        read_mem(&mut dev, B, 0x00fc, 8).0,
        Status::INVALID_ADDRESS,
        "runs into a hole"
    );
    assert_eq!(
        read_mem(&mut dev, B, 0xffff_fffc, 8).0,
        Status::INVALID_ADDRESS,
        "wraps"
    );
    // Counts the codec refuses: not a multiple of 4, zero, too large.
    let mut payload = 0x48u32.to_be_bytes().to_vec();
    payload.extend_from_slice(&[0, 0, 0, 6]);
    let ack = raw_ack(&mut dev, &raw_command(1, code::READMEM_CMD, 9, &payload));
    assert_eq!((ack.status, ack.ack_id), (Status::BAD_ALIGNMENT, 9));
    payload[7] = 0;
    let ack = raw_ack(&mut dev, &raw_command(1, code::READMEM_CMD, 9, &payload));
    assert_eq!(ack.status, Status::INVALID_PARAMETER);
    payload[6..8].copy_from_slice(&1024u16.to_be_bytes());
    let ack = raw_ack(&mut dev, &raw_command(1, code::READMEM_CMD, 9, &payload));
    assert_eq!(ack.status, Status::INVALID_PARAMETER);
}

#[test]
fn writemem_user_name_and_refusals() {
    let mut dev = device();
    assert_eq!(
        write_mem(&mut dev, A, bs::USER_DEFINED_NAME, b"cam1\0\0\0\0"),
        (Status::ACCESS_DENIED, 0)
    );
    take_control(&mut dev, A, ms(0));
    assert_eq!(
        write_mem(
            &mut dev,
            A,
            bs::USER_DEFINED_NAME,
            b"line-cam\0\0\0\0\0\0\0\0"
        ),
        (Status::SUCCESS, 16)
    );
    assert_eq!(dev.discovery_ack().user_name.to_string_lossy(), "line-cam");
    let (_, data) = read_mem(&mut dev, B, bs::USER_DEFINED_NAME, 16);
    assert_eq!(&data[..9], b"line-cam\0");
    assert_eq!(
        write_mem(&mut dev, B, bs::USER_DEFINED_NAME, b"evil"),
        (Status::ACCESS_DENIED, 0)
    );
    assert_eq!(
        write_mem(&mut dev, A, bs::MODEL_NAME, b"fake"),
        (Status::WRITE_PROTECT, 0)
    );
    // Runs past the user name into reserved space: the first 16 bytes land.
    assert_eq!(
        write_mem(&mut dev, A, bs::USER_DEFINED_NAME, &[b'x'; 20]),
        (Status::WRITE_PROTECT, 16)
    );
    assert_eq!(dev.discovery_ack().user_name.0, [b'x'; 16]);
    assert_eq!(
        write_mem(&mut dev, A, 0x00ea, b"abcd").0,
        Status::BAD_ALIGNMENT
    );
    assert_eq!(
        write_mem(&mut dev, A, 0x0100, b"abcd").0,
        Status::INVALID_ADDRESS
    );
    // writemem reaches registers too: a 4-byte write to Width.
    assert_eq!(
        write_mem(&mut dev, A, reg::WIDTH, &512u32.to_be_bytes()),
        (Status::SUCCESS, 4)
    );
    assert_eq!(dev.stream_config().width, 512);
    // A data length that is not a multiple of 4.
    let mut payload = bs::USER_DEFINED_NAME.to_be_bytes().to_vec();
    payload.extend_from_slice(b"abcde");
    let ack = raw_ack(&mut dev, &raw_command(1, code::WRITEMEM_CMD, 3, &payload));
    assert_eq!(ack.status, Status::BAD_ALIGNMENT);
}

#[test]
fn malformed_and_unknown_commands() {
    let mut dev = device();
    // Unknown command: NOT_IMPLEMENTED with the request id and code + 1.
    let ack = raw_ack(&mut dev, &raw_command(1, 0x0999, 0x7777, &[1, 2, 3, 4]));
    assert_eq!(ack.status, Status::NOT_IMPLEMENTED);
    assert_eq!(ack.ack_id, 0x7777);
    assert_eq!(ack.ack, Ack::Bare { answer: 0x099a });
    // EVENT and ACTION are not implemented either.
    for c in [0x00c0, 0x0100] {
        assert_eq!(
            raw_ack(&mut dev, &raw_command(1, c, 5, &[0; 8])).status,
            Status::NOT_IMPLEMENTED
        );
    }
    // readreg with a 3-byte payload, and with none.
    let ack = raw_ack(&mut dev, &raw_command(1, code::READREG_CMD, 4, &[0, 0, 0]));
    assert_eq!((ack.status, ack.ack_id), (Status::INVALID_PARAMETER, 4));
    let ack = raw_ack(&mut dev, &raw_command(1, code::READREG_CMD, 4, &[]));
    assert_eq!(ack.status, Status::INVALID_PARAMETER);
    // writereg with 12 bytes.
    let ack = raw_ack(&mut dev, &raw_command(1, code::WRITEREG_CMD, 4, &[0; 12]));
    assert_eq!(ack.status, Status::INVALID_PARAMETER);
    // Length field larger than the datagram.
    let mut bytes = raw_command(1, code::READREG_CMD, 6, &[0, 0, 0, 0]);
    bytes[5] = 8;
    let ack = raw_ack(&mut dev, &bytes);
    assert_eq!((ack.status, ack.ack_id), (Status::INVALID_HEADER, 6));
    assert_eq!(
        ack.ack,
        Ack::Bare {
            answer: code::READREG_ACK
        }
    );
    // Request id 0 is reserved.
    let ack = raw_ack(
        &mut dev,
        &raw_command(1, code::READREG_CMD, 0, &[0, 0, 0, 0]),
    );
    assert_eq!(ack.status, Status::INVALID_HEADER);
    // Not commands at all: no answer.
    for junk in [
        &[][..],
        &[0x42, 1, 0, 0x80][..],
        &[0, 0, 0, 0x81, 0, 0, 0, 1][..],
    ] {
        assert_eq!(dev.handle_datagram(junk, A, ms(0)), HandleResult::default());
    }
    // No ACK_REQUIRED: the command runs, silently.
    let bytes = raw_command(0, code::WRITEREG_CMD, 8, &[0, 0, 0x0a, 0, 0, 0, 0, 2]);
    let r = dev.handle_datagram(&bytes, A, ms(0));
    assert_eq!(r.reply, None);
    assert_eq!(dev.controller(), Some(A));
}

#[test]
fn bye_releases_control_only_for_its_holder() {
    let mut dev = device();
    take_control(&mut dev, A, ms(0));
    let (ack, events) = send(&mut dev, B, ms(1), Command::Bye);
    assert_eq!((ack.status, &ack.ack), (Status::SUCCESS, &Ack::Bye));
    assert!(events.is_empty());
    assert_eq!(dev.controller(), Some(A));
    let (ack, events) = send(&mut dev, A, ms(2), Command::Bye);
    assert_eq!(ack.status, Status::SUCCESS);
    assert_eq!(
        events,
        [DeviceEvent::ControlLost {
            controller: A,
            reason: ControlLossReason::Bye
        }]
    );
    assert_eq!(dev.controller(), None);
}

#[test]
fn force_ip() {
    let mut dev = device();
    let id = DeviceIdentity::default();
    let force = |mac, ip, subnet_mask| {
        Command::ForceIp(ForceIp {
            mac,
            ip,
            subnet_mask,
            gateway: Ipv4Addr::new(10, 0, 0, 254),
        })
    };
    let new_ip = Ipv4Addr::new(10, 0, 0, 9);
    let mask24 = Ipv4Addr::new(255, 255, 255, 0);
    // Addressed to another device: silence.
    let bytes = CommandRepr::new(force(MacAddr([2, 0, 0, 0, 0, 9]), new_ip, mask24), 3)
        .to_vec()
        .expect("encodes");
    assert_eq!(dev.handle_datagram(&bytes, A, ms(0)).reply, None);
    // Nonsense addresses and masks are refused and change nothing.
    for (ip, mask) in [
        (Ipv4Addr::BROADCAST, mask24),
        (Ipv4Addr::new(224, 0, 0, 1), mask24),
        (new_ip, Ipv4Addr::new(255, 0, 255, 0)),
        (new_ip, Ipv4Addr::UNSPECIFIED),
    ] {
        let (ack, events) = send(&mut dev, A, ms(0), force(id.mac, ip, mask));
        assert_eq!(ack.status, Status::INVALID_PARAMETER, "{ip}/{mask}");
        assert!(events.is_empty());
    }
    assert_eq!(dev.discovery_ack().current_ip, id.ip);
    // Applied: registers, discovery and the event the I/O layer rebinds on.
    // The sender (on the old subnet, not the new one) gets a broadcast ack.
    let bytes = CommandRepr {
        flags: flags::ACK_REQUIRED | flags::ALLOW_BROADCAST_ACK,
        ..CommandRepr::new(force(id.mac, new_ip, mask24), 4)
    }
    .to_vec()
    .expect("encodes");
    let r = dev.handle_datagram(&bytes, A, ms(0));
    let reply = r.reply.expect("ack");
    assert!(reply.is_broadcast(), "{:?}", reply.to);
    let ack = parse_ack(&reply.datagram);
    assert_eq!((ack.status, ack.ack), (Status::SUCCESS, Ack::Bye));
    assert_eq!(
        r.events,
        [DeviceEvent::AddressForced {
            ip: new_ip,
            subnet_mask: mask24,
            gateway: Ipv4Addr::new(10, 0, 0, 254),
        }]
    );
    assert_eq!(dev.discovery_ack().current_ip, new_ip);
    assert_eq!(dev.discovery_ack().subnet_mask, mask24);
    assert_eq!(read1(&mut dev, bs::CURRENT_IP), u32::from(new_ip));
    assert_eq!(read1(&mut dev, bs::CURRENT_GATEWAY), 0x0a00_00fe);
    // While a host controls the camera, nobody may move it.
    take_control(&mut dev, A, ms(1));
    let (ack, events) = send(&mut dev, B, ms(2), force(id.mac, id.ip, id.subnet));
    assert_eq!(ack.status, Status::ACCESS_DENIED);
    assert!(events.is_empty());
    write(&mut dev, A, ms(3), &[(bs::CONTROL_CHANNEL_PRIVILEGE, 0)]);
    // 0.0.0.0 restarts the IP configuration: back to the start-up address.
    let (ack, events) = send(
        &mut dev,
        A,
        ms(4),
        force(id.mac, Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED),
    );
    assert_eq!(ack.status, Status::SUCCESS);
    assert_eq!(
        events,
        [DeviceEvent::AddressForced {
            ip: id.ip,
            subnet_mask: id.subnet,
            gateway: id.gateway,
        }]
    );
    assert_eq!(dev.discovery_ack().current_ip, id.ip);
}

#[test]
fn ccp_grant_deny_release_between_two_hosts() {
    let mut dev = device();
    take_control(&mut dev, A, ms(0));
    assert_eq!(dev.controller(), Some(A));
    assert_eq!(dev.privilege(), Some(Privilege::Control));
    // B may read (control access is not exclusive) but not take control or release it.
    assert_eq!(
        read(&mut dev, B, &[bs::CONTROL_CHANNEL_PRIVILEGE]),
        (Status::SUCCESS, vec![2])
    );
    assert_eq!(
        write(&mut dev, B, ms(1), &[(bs::CONTROL_CHANNEL_PRIVILEGE, 2)]).0,
        Status::ACCESS_DENIED
    );
    assert_eq!(
        write(&mut dev, B, ms(1), &[(bs::CONTROL_CHANNEL_PRIVILEGE, 0)]).0,
        Status::ACCESS_DENIED
    );
    // Same IP, other port: another application.
    assert_eq!(
        write(&mut dev, A_STREAM, ms(1), &[(reg::WIDTH, 640)]).0,
        Status::ACCESS_DENIED
    );
    // A releases; B takes over.
    let (status, _, events) = write(&mut dev, A, ms(2), &[(bs::CONTROL_CHANNEL_PRIVILEGE, 0)]);
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(
        events,
        [DeviceEvent::ControlLost {
            controller: A,
            reason: ControlLossReason::Released
        }]
    );
    take_control(&mut dev, B, ms(3));
    assert_eq!(
        write(&mut dev, A, ms(4), &[(reg::WIDTH, 640)]).0,
        Status::ACCESS_DENIED
    );
    assert_eq!(
        write(&mut dev, B, ms(4), &[(reg::WIDTH, 640)]).0,
        Status::SUCCESS
    );
}

#[test]
fn exclusive_access_refuses_a_second_hosts_reads() {
    let mut dev = device();
    let (_, _, events) = write(&mut dev, A, ms(0), &[(bs::CONTROL_CHANNEL_PRIVILEGE, 1)]);
    assert_eq!(
        events,
        [DeviceEvent::ControlGranted {
            controller: A,
            exclusive: true
        }]
    );
    assert_eq!(read(&mut dev, B, &[bs::VERSION]).0, Status::ACCESS_DENIED);
    assert_eq!(
        read(&mut dev, B, &[bs::CONTROL_CHANNEL_PRIVILEGE]).0,
        Status::ACCESS_DENIED
    );
    assert_eq!(
        read_mem(&mut dev, B, bs::FIRST_URL, 512).0,
        Status::ACCESS_DENIED
    );
    assert_eq!(
        read(&mut dev, A, &[bs::CONTROL_CHANNEL_PRIVILEGE]),
        (Status::SUCCESS, vec![1])
    );
    // Downgrading to control access lets B read again.
    let (_, _, events) = write(&mut dev, A, ms(1), &[(bs::CONTROL_CHANNEL_PRIVILEGE, 2)]);
    assert_eq!(
        events,
        [DeviceEvent::ControlGranted {
            controller: A,
            exclusive: false
        }]
    );
    assert_eq!(read(&mut dev, B, &[bs::VERSION]).0, Status::SUCCESS);
}

fn configure_stream(dev: &mut Device, now: u64) {
    let sc = bs::STREAM_CHANNEL_BASE;
    let (status, _, _) = write(
        dev,
        A,
        now,
        &[
            (sc + bs::SCDA, u32::from(*A_STREAM.ip())),
            (sc + bs::SCP, u32::from(A_STREAM.port())),
        ],
    );
    assert_eq!(status, Status::SUCCESS);
}

#[test]
fn heartbeat_expiry_releases_control_and_stops_the_stream() {
    let mut dev = device();
    assert_eq!(dev.poll_timeout(), None);
    take_control(&mut dev, A, ms(0));
    configure_stream(&mut dev, ms(10));
    let (_, _, events) = write(&mut dev, A, ms(20), &[(reg::ACQUISITION_START, 1)]);
    assert_eq!(events, [DeviceEvent::AcquisitionStart]);
    assert!(dev.acquiring());
    assert_eq!(dev.poll_timeout(), Some(ms(3020)));
    assert!(dev.handle_timeout(ms(3019)).is_empty());
    assert_eq!(
        dev.handle_timeout(ms(3020)),
        [
            DeviceEvent::ControlLost {
                controller: A,
                reason: ControlLossReason::HeartbeatExpired
            },
            DeviceEvent::AcquisitionStop,
            DeviceEvent::StreamConfigChanged,
        ]
    );
    assert_eq!(dev.controller(), None);
    assert!(!dev.acquiring());
    assert_eq!(
        dev.stream_config().destination,
        None,
        "stream channel closed"
    );
    assert_eq!(dev.poll_timeout(), None);
    assert!(dev.handle_timeout(ms(10_000)).is_empty());
    // The late host is a stranger now.
    assert_eq!(
        write(&mut dev, A, ms(10_001), &[(reg::WIDTH, 640)]).0,
        Status::ACCESS_DENIED
    );
}

#[test]
fn traffic_from_the_controller_refreshes_the_heartbeat() {
    let mut dev = device();
    take_control(&mut dev, A, ms(0));
    // Aravis keeps the session alive by reading CCP about once a second.
    for t in [1000, 2000, 3000, 4000] {
        let bytes = CommandRepr::new(
            Command::ReadReg {
                addresses: vec![bs::CONTROL_CHANNEL_PRIVILEGE],
            },
            7,
        )
        .to_vec()
        .expect("encodes");
        let r = dev.handle_datagram(&bytes, A, ms(t));
        assert!(r.events.is_empty());
        assert_eq!(dev.poll_timeout(), Some(ms(t + 3000)));
    }
    // Traffic from other hosts does not count.
    let _ = read(&mut dev, B, &[bs::VERSION]);
    let r = dev.handle_datagram(
        &CommandRepr::new(Command::Discovery, 1)
            .to_vec()
            .expect("encodes"),
        B,
        ms(6500),
    );
    assert!(r.events.is_empty());
    // A command arriving after the deadline finds control already gone.
    let r = dev.handle_datagram(
        &CommandRepr::new(Command::Discovery, 1)
            .to_vec()
            .expect("encodes"),
        A,
        ms(7000),
    );
    assert_eq!(
        r.events,
        [DeviceEvent::ControlLost {
            controller: A,
            reason: ControlLossReason::HeartbeatExpired
        }]
    );
}

#[test]
fn heartbeat_timeout_and_disable_are_registers() {
    let mut dev = device();
    take_control(&mut dev, A, ms(0));
    assert_eq!(
        write(&mut dev, A, ms(0), &[(bs::HEARTBEAT_TIMEOUT, 10_000)]).0,
        Status::SUCCESS
    );
    assert_eq!(dev.poll_timeout(), Some(ms(10_000)));
    assert_eq!(read1(&mut dev, bs::HEARTBEAT_TIMEOUT), 10_000);
    let hd = bs::gvcp_configuration::HEARTBEAT_DISABLE;
    assert_eq!(
        write(&mut dev, A, ms(0), &[(bs::GVCP_CONFIGURATION, hd)]).0,
        Status::SUCCESS
    );
    assert_eq!(dev.heartbeat_timeout(), None);
    assert_eq!(dev.poll_timeout(), None);
    assert!(dev.handle_timeout(ms(1_000_000)).is_empty());
    assert_eq!(dev.controller(), Some(A));
    // Pending ack enable is stored; the pending timeout is the device's own.
    let pe = bs::gvcp_configuration::PENDING_ACK_ENABLE;
    assert_eq!(
        write(&mut dev, A, ms(1_000_000), &[(bs::GVCP_CONFIGURATION, pe)]).0,
        Status::SUCCESS
    );
    assert_eq!(read1(&mut dev, bs::GVCP_CONFIGURATION), pe);
    assert_eq!(read1(&mut dev, bs::PENDING_TIMEOUT), 200);
    assert_eq!(
        write_status(&mut dev, bs::PENDING_TIMEOUT, 1),
        Status::WRITE_PROTECT
    );
    assert_eq!(dev.poll_timeout(), Some(ms(1_010_000)));
}

#[test]
fn packet_resend_becomes_an_event_without_an_ack() {
    let mut dev = device();
    let request = PacketResend {
        channel: 0,
        block_id: 7,
        first_packet_id: 1,
        last_packet_id: 3,
        extended: false,
    };
    let mut bytes = CommandRepr::new(Command::PacketResend(request), 5)
        .to_vec()
        .expect("encodes");
    // No stream destination yet: nothing to resend to.
    assert_eq!(
        dev.handle_datagram(&bytes, A_STREAM, ms(0)),
        HandleResult::default()
    );
    take_control(&mut dev, A, ms(0));
    configure_stream(&mut dev, ms(1));
    // Even with ACK_REQUIRED set, a resend is never acknowledged.
    bytes[1] |= flags::ACK_REQUIRED;
    let r = dev.handle_datagram(&bytes, A_STREAM, ms(2));
    assert_eq!(r.reply, None);
    assert_eq!(r.events, [DeviceEvent::PacketResend(request)]);
    // From a host that neither receives the stream nor controls: ignored.
    assert!(dev.handle_datagram(&bytes, B, ms(3)).events.is_empty());
    // Extended ids come through too.
    let ext = PacketResend {
        block_id: 1 << 40,
        extended: true,
        ..request
    };
    let bytes = CommandRepr::new(Command::PacketResend(ext), 6)
        .to_vec()
        .expect("encodes");
    assert_eq!(
        dev.handle_datagram(&bytes, A_STREAM, ms(4)).events,
        [DeviceEvent::PacketResend(ext)]
    );
    // Another stream channel does not exist.
    let other = PacketResend {
        channel: 1,
        ..request
    };
    let bytes = CommandRepr::new(Command::PacketResend(other), 7)
        .to_vec()
        .expect("encodes");
    assert!(dev
        .handle_datagram(&bytes, A_STREAM, ms(5))
        .events
        .is_empty());
    // A truncated resend gets neither ack nor event.
    let bytes = raw_command(1, code::PACKET_RESEND_CMD, 8, &[0, 0, 0, 7]);
    assert_eq!(
        dev.handle_datagram(&bytes, A_STREAM, ms(6)),
        HandleResult::default()
    );
}

#[test]
fn stream_registers_drive_the_stream_config() {
    let mut dev = device();
    let sc = bs::STREAM_CHANNEL_BASE;
    let c = dev.stream_config();
    assert_eq!(c.destination, None);
    assert_eq!(
        (c.width, c.height, c.pixel_format),
        (1024, 768, PixelFormat::MONO8)
    );
    assert_eq!(c.payload_size, 1024 * 768);
    assert_eq!(c.packet_size, 1500);
    assert_eq!(c.transfer_size, 0, "follows SCPS by default");
    assert_eq!(c.frame_rate, 25.0);
    assert_eq!(c.acquisition_mode, AcquisitionMode::Continuous);
    assert!(!c.extended_ids && !c.do_not_fragment && !c.trigger_mode_on);

    take_control(&mut dev, A, ms(0));
    configure_stream(&mut dev, ms(0));
    let (status, _, events) = write(
        &mut dev,
        A,
        ms(0),
        &[
            (sc + bs::SCPS, 0x4000_0000 | 9000),
            (sc + bs::SCPD, 1234),
            (0x0960, 0x4000_0000),
            (reg::PIXEL_FORMAT, PixelFormat::MONO16.0),
            (reg::ACQUISITION_FRAME_RATE, 100f32.to_bits()),
            (reg::ACQUISITION_MODE, 2),
            (reg::ACQUISITION_FRAME_COUNT, 10),
            (reg::TRIGGER_MODE, 1),
            (reg::TEST_PATTERN, 1),
            (reg::TRANSPORT_SELECTOR, 1),
            (reg::LINERATE_TRANSFER_SIZE, 1 << 20),
        ],
    );
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(events, [DeviceEvent::StreamConfigChanged]);
    let c = dev.stream_config();
    assert_eq!(c.destination, Some(A_STREAM));
    assert_eq!(
        (c.packet_size, c.do_not_fragment, c.packet_delay_ticks),
        (9000, true, 1234)
    );
    assert!(c.extended_ids);
    assert_eq!(c.pixel_format, PixelFormat::MONO16);
    assert_eq!(c.payload_size, 1024 * 768 * 2);
    assert_eq!(read1(&mut dev, reg::PAYLOAD_SIZE), 1024 * 768 * 2);
    assert_eq!(c.frame_rate, 100.0);
    assert_eq!(
        (c.acquisition_mode, c.frame_count),
        (AcquisitionMode::MultiFrame, 10)
    );
    assert!(c.trigger_mode_on);
    assert_eq!((c.test_pattern, c.transport), (1, 1));
    assert_eq!(c.transfer_size, 1 << 20);

    // Fire test packet: an event, and the bit does not stick.
    let (_, _, events) = write(&mut dev, A, ms(0), &[(sc + bs::SCPS, 0x8000_0000 | 1500)]);
    assert!(events.contains(&DeviceEvent::FireTestPacket));
    assert_eq!(read1(&mut dev, sc + bs::SCPS), 1500);
    // Writing the same values again changes nothing.
    let (_, _, events) = write(&mut dev, A, ms(0), &[(sc + bs::SCPD, 1234)]);
    assert!(events.is_empty());
    // Port 0 closes the channel.
    write(&mut dev, A, ms(0), &[(sc + bs::SCP, 0)]);
    assert_eq!(dev.stream_config().destination, None);

    dev.set_source_port(40_123);
    assert_eq!(read1(&mut dev, sc + bs::SCSP), 40_123);
    dev.set_counters(Counters {
        frames_sent: (1 << 32) + 5,
        frames_skipped: 2,
        packets_resent: 3,
        resend_unavailable: 4,
        trigger_latency_us: u64::MAX,
    });
    let (_, values) = read(
        &mut dev,
        B,
        &[
            reg::FRAMES_SENT,
            reg::FRAMES_SKIPPED,
            reg::PACKETS_RESENT,
            reg::RESEND_UNAVAILABLE,
            reg::TRIGGER_LATENCY_US,
        ],
    );
    assert_eq!(values, [5, 2, 3, 4, u32::MAX]);

    // Extended ids: bit [1] of the GVSP configuration register, as the standard has it.
    let (_, _, events) = write(&mut dev, A, ms(0), &[(bs::GVSP_CONFIGURATION, 0)]);
    assert_eq!(events, [DeviceEvent::StreamConfigChanged]);
    assert!(!dev.stream_config().extended_ids);
    let ei = bs::gvsp_configuration::EXTENDED_IDS;
    let (_, _, events) = write(&mut dev, A, ms(0), &[(bs::GVSP_CONFIGURATION, ei)]);
    assert_eq!(events, [DeviceEvent::StreamConfigChanged]);
    assert!(dev.stream_config().extended_ids);
    assert_eq!(read1(&mut dev, bs::GVSP_CONFIGURATION), ei);
}

#[test]
fn acquisition_commands_and_locked_image_format() {
    let mut dev = device();
    take_control(&mut dev, A, ms(0));
    let (_, _, events) = write(&mut dev, A, ms(0), &[(reg::ACQUISITION_START, 1)]);
    assert_eq!(events, [DeviceEvent::AcquisitionStart]);
    let (_, _, events) = write(&mut dev, A, ms(0), &[(reg::ACQUISITION_START, 1)]);
    assert!(events.is_empty(), "already running");
    assert_eq!(
        read1(&mut dev, reg::ACQUISITION_START),
        0,
        "command registers read 0"
    );
    for (address, value) in [
        (reg::WIDTH, 640),
        (reg::HEIGHT, 480),
        (reg::OFFSET_X, 4),
        (reg::PIXEL_FORMAT, PixelFormat::MONO16.0),
        (reg::ACQUISITION_MODE, 1),
        (reg::TRANSPORT_SELECTOR, 1),
        (reg::LINERATE_TRANSFER_SIZE, 8000),
    ] {
        assert_eq!(
            write_status(&mut dev, address, value),
            Status::WRITE_PROTECT
        );
    }
    assert_eq!(
        write_status(&mut dev, reg::WIDTH, 1024),
        Status::SUCCESS,
        "unchanged value"
    );
    let (status, _, events) = write(
        &mut dev,
        A,
        ms(0),
        &[(reg::ACQUISITION_FRAME_RATE, 50f32.to_bits())],
    );
    assert_eq!(
        status,
        Status::SUCCESS,
        "frame rate may change while acquiring"
    );
    assert_eq!(events, [DeviceEvent::StreamConfigChanged]);
    let (_, _, events) = write(&mut dev, A, ms(0), &[(reg::TRIGGER_SOFTWARE, 1)]);
    assert_eq!(events, [DeviceEvent::TriggerSoftware]);
    let (_, _, events) = write(&mut dev, A, ms(0), &[(reg::ACQUISITION_STOP, 1)]);
    assert_eq!(events, [DeviceEvent::AcquisitionStop]);
    assert_eq!(write_status(&mut dev, reg::WIDTH, 640), Status::SUCCESS);

    // A single-frame acquisition ends by itself.
    write(&mut dev, A, ms(0), &[(reg::ACQUISITION_START, 1)]);
    assert!(dev.acquisition_complete());
    assert!(!dev.acquisition_complete());
    assert_eq!(write_status(&mut dev, reg::WIDTH, 320), Status::SUCCESS);
    // Releasing control while acquiring stops the stream.
    write(&mut dev, A, ms(0), &[(reg::ACQUISITION_START, 1)]);
    let (_, _, events) = write(&mut dev, A, ms(0), &[(bs::CONTROL_CHANNEL_PRIVILEGE, 0)]);
    assert_eq!(
        events,
        [
            DeviceEvent::ControlLost {
                controller: A,
                reason: ControlLossReason::Released
            },
            DeviceEvent::AcquisitionStop
        ]
    );
}

#[test]
fn timestamp_latch_and_reset() {
    let mut dev = device();
    take_control(&mut dev, A, ms(0));
    let latched = |dev: &mut Device| {
        let (_, v) = read(dev, A, &[bs::TIMESTAMP_VALUE_HIGH, bs::TIMESTAMP_VALUE_LOW]);
        (u64::from(v[0]) << 32) | u64::from(v[1])
    };
    let latch = |dev: &mut Device, t: u64, value: u32| {
        let (status, _, _) = write(dev, A, ms(t), &[(bs::TIMESTAMP_CONTROL, value)]);
        assert_eq!(status, Status::SUCCESS);
    };
    latch(&mut dev, 1500, 2);
    assert_eq!(latched(&mut dev), 1_500_000_000);
    latch(&mut dev, 2000, 1);
    assert_eq!(
        latched(&mut dev),
        1_500_000_000,
        "reset alone does not latch"
    );
    latch(&mut dev, 2250, 2);
    assert_eq!(latched(&mut dev), 250_000_000);
    assert_eq!(dev.timestamp(ms(3000)), 1_000_000_000);
    latch(&mut dev, 3000, 3);
    assert_eq!(latched(&mut dev), 0, "reset, then latch");
    assert_eq!(read1(&mut dev, bs::TIMESTAMP_TICK_FREQUENCY_HIGH), 0);
    assert_eq!(
        read1(&mut dev, bs::TIMESTAMP_TICK_FREQUENCY_LOW),
        1_000_000_000
    );
    assert_eq!(dev.tick_frequency(), 1_000_000_000);
}

#[test]
fn gvcp_capability_advertises_what_is_implemented() {
    let mut dev = device();
    use bs::gvcp_capability as g;
    let cap = read1(&mut dev, bs::GVCP_CAPABILITY);
    for bit in [
        g::USER_DEFINED_NAME,
        g::SERIAL_NUMBER,
        g::HEARTBEAT_DISABLE,
        g::EXTENDED_STATUS_CODES_V2,
        g::PENDING_ACK,
        g::PACKET_RESEND,
        g::WRITEMEM,
        g::CONCATENATION,
    ] {
        assert_ne!(cap & bit, 0, "bit {bit:#x}");
    }
    assert_eq!(read1(&mut dev, bs::NUM_NETWORK_INTERFACES), 1);
    assert_eq!(read1(&mut dev, bs::NUM_MESSAGE_CHANNELS), 0);
    assert_eq!(read1(&mut dev, bs::NUM_STREAM_CHANNELS), 1);
    assert_eq!(
        read1(&mut dev, 0x092c),
        0xc000_0000,
        "GVSP capability: SCSP, 16-bit ids"
    );
    assert_eq!(read1(&mut dev, bs::DEVICE_MODE), 0x8000_0001);
}

#[test]
fn xml_is_readable_in_512_byte_chunks() {
    let mut dev = device();
    let (status, url) = read_mem(&mut dev, B, bs::FIRST_URL, 512);
    assert_eq!(status, Status::SUCCESS);
    let end = url
        .iter()
        .position(|&b| b == 0)
        .expect("NUL-terminated URL");
    let url = std::str::from_utf8(&url[..end]).expect("UTF-8 URL");
    let rest = url.strip_prefix("Local:").expect("local URL");
    let parts: Vec<&str> = rest.split(';').collect();
    assert_eq!(parts.len(), 3, "{url}");
    assert_eq!(parts[0], XML_FILE_NAME);
    let base = u32::from_str_radix(parts[1], 16).expect("hex address");
    let len = usize::from_str_radix(parts[2], 16).expect("hex length");
    assert_eq!(base, reg::XML_BASE);
    assert_eq!(len, GENICAM_XML.len(), "URL length field matches the XML");

    let padded = len.div_ceil(4) * 4;
    let mut xml = Vec::new();
    while xml.len() < padded {
        let count = (padded - xml.len()).min(512) as u16;
        let (status, chunk) = read_mem(&mut dev, B, base + xml.len() as u32, count);
        assert_eq!(status, Status::SUCCESS, "chunk at {}", xml.len());
        xml.extend_from_slice(&chunk);
    }
    assert_eq!(&xml[..len], GENICAM_XML);
    assert!(xml[len..].iter().all(|&b| b == 0), "padding is zeros");
    // One word past the padded end is outside the region.
    let (status, _) = read_mem(&mut dev, B, base + padded as u32, 4);
    assert_eq!(status, Status::INVALID_ADDRESS);
}

#[test]
fn xml_padding_with_an_odd_length() {
    let mut dev = Device::with_xml(
        DeviceIdentity::default(),
        DeviceConfig::default(),
        b"<RegisterDescription/>\n",
    )
    .expect("valid");
    let (status, data) = read_mem(&mut dev, B, reg::XML_BASE, 24);
    assert_eq!(status, Status::SUCCESS);
    assert_eq!(&data[..23], b"<RegisterDescription/>\n");
    assert_eq!(data[23], 0);
    let (_, url) = read_mem(&mut dev, B, bs::FIRST_URL, 64);
    assert!(url.starts_with(b"Local:linerate-camera.xml;20000;17\0"));
}

#[test]
fn construction_errors_name_the_value() {
    let identity = DeviceIdentity {
        serial: "0123456789abcdef".into(),
        ..DeviceIdentity::default()
    };
    let err = Device::new(identity, DeviceConfig::default()).expect_err("serial too long");
    assert!(matches!(
        err,
        DeviceError::StringTooLong {
            field: "serial",
            len: 16,
            max: 15,
            ..
        }
    ));
    assert!(err.to_string().contains("0123456789abcdef"), "{err}");
    let config = DeviceConfig {
        width: 0,
        ..DeviceConfig::default()
    };
    assert!(Device::new(DeviceIdentity::default(), config).is_err());
    static HUGE: [u8; 0x0002_0001] = [b' '; 0x0002_0001];
    assert!(matches!(
        Device::with_xml(DeviceIdentity::default(), DeviceConfig::default(), &HUGE),
        Err(DeviceError::XmlTooLarge {
            len: 0x0002_0001,
            ..
        })
    ));
}

/// GVCP commands (host to device) of a vector file, in order: (source port, bytes).
fn vector_commands(name: &str) -> Vec<(u16, Vec<u8>)> {
    let path = format!(
        "{}/../../tests/vectors/aravis/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("vector file");
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [proto, src, dst, hex] = fields[..] else {
            panic!("bad vector line {line:?}")
        };
        if proto != "gvcp" || dst != "3956" {
            continue;
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
            .collect();
        out.push((src.parse().expect("port"), bytes));
    }
    out
}

/// Standard bootstrap registers this device implements; reads must succeed.
fn is_standard_register(address: u32) -> bool {
    address < 0x00f8
        || (bs::FIRST_URL..0x0600).contains(&address)
        || [
            bs::NUM_NETWORK_INTERFACES,
            0x064c,
            0x065c,
            0x066c,
            bs::NUM_MESSAGE_CHANNELS,
            bs::NUM_STREAM_CHANNELS,
            bs::GVCP_CAPABILITY,
            bs::HEARTBEAT_TIMEOUT,
            bs::TIMESTAMP_TICK_FREQUENCY_HIGH,
            bs::TIMESTAMP_TICK_FREQUENCY_LOW,
            bs::TIMESTAMP_VALUE_HIGH,
            bs::TIMESTAMP_VALUE_LOW,
            bs::GVCP_CONFIGURATION,
            bs::PENDING_TIMEOUT,
            bs::CONTROL_CHANNEL_PRIVILEGE,
        ]
        .contains(&address)
        || (bs::STREAM_CHANNEL_BASE..bs::STREAM_CHANNEL_BASE + 0x28).contains(&address)
}

fn replay(name: &str) -> BTreeMap<String, usize> {
    let mut dev = device();
    let mut now = ms(1000);
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    let commands = vector_commands(name);
    assert!(!commands.is_empty());
    for (port, bytes) in &commands {
        now += ms(1);
        let from = SocketAddrV4::new(Ipv4Addr::new(169, 254, 10, 2), *port);
        let command = CommandRepr::parse(
            &linerate_wire::gvcp::CommandPacket::new_checked(&bytes[..]).expect("header"),
        )
        .expect("Aravis commands parse");
        let result = dev.handle_datagram(bytes, from, now);
        if !command.ack_required() {
            assert_eq!(result.reply, None);
            continue;
        }
        let reply = result.reply.expect("every command is acknowledged");
        let ack = parse_ack(&reply.datagram);
        assert_eq!(ack.ack_id, command.request_id);
        if ack.status == Status::SUCCESS {
            continue;
        }
        let what = match &command.command {
            Command::ReadReg { addresses } => {
                let a = addresses[0];
                assert!(!is_standard_register(a), "readreg {a:#x}: {}", ack.status);
                format!("readreg {a:#06x}")
            }
            Command::WriteReg { writes } => format!("writereg {:#06x}", writes[0].address),
            Command::ReadMem { address, .. } => {
                assert!(
                    !is_standard_register(*address),
                    "readmem {address:#x}: {}",
                    ack.status
                );
                if *address >= 0x1_0000 {
                    "readmem of the fake camera's XML at 0x10000".to_string()
                } else {
                    format!("readmem {address:#06x}")
                }
            }
            Command::WriteMem { address, .. } => format!("writemem {address:#06x}"),
            other => panic!("unexpected failure of {other:?}: {}", ack.status),
        };
        *refused
            .entry(format!("{what}: {}", ack.status))
            .or_default() += 1;
    }
    println!(
        "{name}: {} commands; refused (Aravis fake-camera addresses):",
        commands.len()
    );
    for (what, n) in &refused {
        println!("  {n:4} × {what}");
    }
    assert_eq!(dev.controller(), None, "every session released control");
    refused
}

#[test]
fn replay_arv_tool_session() {
    let refused = replay("gvcp_arv_tool.hex");
    // The fake camera's feature registers live in bootstrap holes for us.
    assert!(refused.keys().any(|k| k.starts_with("readreg 0x0100")));
    // Its TestStringReg at 0x200 is our (read-only) first URL.
    assert!(refused.contains_key("writemem 0x0200: WRITE_PROTECT (0x8004)"));
}

#[test]
fn replay_arv_camera_test_session() {
    let refused = replay("gvcp_arv_camera_test.hex");
    assert!(
        refused
            .keys()
            .all(|k| !k.contains("0x0a00") && !k.contains("0x0d")),
        "CCP and stream channel writes succeed: {refused:?}"
    );
}

/// A small deterministic generator: proptest picks the seed, which keeps
/// cases cheap to generate (per-byte value trees are slow in debug builds).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn arbitrary_datagram() -> impl Strategy<Value = Vec<u8>> {
    const CODES: [u16; 10] = [
        code::DISCOVERY_CMD,
        code::BYE_CMD,
        code::PACKET_RESEND_CMD,
        code::READREG_CMD,
        code::WRITEREG_CMD,
        code::READMEM_CMD,
        code::WRITEMEM_CMD,
        code::PENDING_ACK,
        0x00c0,
        0xffff,
    ];
    const INTERESTING: [u32; 10] = [
        0,
        bs::CONTROL_CHANNEL_PRIVILEGE,
        bs::USER_DEFINED_NAME,
        bs::FIRST_URL,
        bs::STREAM_CHANNEL_BASE + bs::SCPS,
        bs::TIMESTAMP_CONTROL,
        reg::WIDTH,
        reg::ACQUISITION_START,
        reg::XML_BASE,
        0xffff_fffc,
    ];
    (
        any::<u64>(),
        0usize..700,
        any::<u8>(),
        0usize..CODES.len(),
        any::<u16>(),
        0u8..4,
    )
        .prop_map(|(seed, len, flag_bits, code_index, id, shape)| {
            let mut rng = seed;
            match shape {
                // Pure noise.
                0 => (0..len).map(|_| splitmix(&mut rng) as u8).collect(),
                // A well-formed header over plausible payload words; shape 3
                // also lies in the length field.
                _ => {
                    let words = (0..len / 8).map(|_| {
                        let r = splitmix(&mut rng);
                        match r % 3 {
                            0 => INTERESTING[(r >> 8) as usize % INTERESTING.len()],
                            1 => (r >> 8) as u32 % 4,
                            _ => (r >> 16) as u32,
                        }
                    });
                    let payload: Vec<u8> = words.flat_map(|w| w.to_be_bytes()).collect();
                    let mut v = raw_command(flag_bits, CODES[code_index], id, &payload);
                    if shape == 3 {
                        v[5] ^= 0x04;
                    }
                    v
                }
            }
        })
}

fn arbitrary_host() -> impl Strategy<Value = SocketAddrV4> {
    (
        prop::sample::select(vec![A, A_STREAM, B, FAR]),
        any::<bool>(),
        any::<u32>(),
        any::<u16>(),
    )
        .prop_map(|(known, random, ip, port)| {
            if random {
                SocketAddrV4::new(Ipv4Addr::from(ip), port)
            } else {
                known
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_datagrams_never_panic_and_replies_parse(
        steps in prop::collection::vec((arbitrary_datagram(), arbitrary_host(), 0u64..2000), 1..30),
    ) {
        let mut dev = device();
        // Let one host hold control so privileged paths run too.
        dev.handle_datagram(&raw_command(1, code::WRITEREG_CMD, 1, &[0, 0, 0x0a, 0, 0, 0, 0, 2]), A, ms(0));
        let mut now = ms(0);
        for (bytes, from, dt) in steps {
            now += ms(dt);
            let r = dev.handle_datagram(&bytes, from, now);
            if let Some(reply) = r.reply {
                prop_assert!(bytes.len() >= 8 && bytes[0] == 0x42);
                prop_assert!(bytes[1] & flags::ACK_REQUIRED != 0);
                let packet = AckPacket::new_checked(&reply.datagram[..]);
                prop_assert!(packet.is_ok(), "ack header: {:?}", packet.err());
                let parsed = AckPacket::new_checked(&reply.datagram[..])
                    .and_then(|p| AckRepr::parse(&p));
                prop_assert!(parsed.is_ok(), "reply {:02x?}: {:?}", reply.datagram, parsed.err());
                if let Ok(ack) = parsed {
                    prop_assert_eq!(ack.ack_id, u16::from_be_bytes([bytes[6], bytes[7]]));
                }
                prop_assert!(reply.datagram.len() <= linerate_wire::gvcp::MAX_UDP_PAYLOAD);
            }
            let _ = dev.handle_timeout(now);
            let _ = dev.stream_config();
            if let Some(t) = dev.poll_timeout() {
                prop_assert!(dev.controller().is_some() && t > now);
            }
        }
    }
}

#[test]
fn a_port_sweep_from_the_controllers_ip_is_refused_counted_and_keeps_no_heartbeat() {
    // An attacker forges the controlling host's IP address
    // and tries every source port. Only the controller's own port may write
    // or keep control alive; the rest are refused and counted apart.
    let mut dev = device();
    take_control(&mut dev, A, ms(0));
    configure_stream(&mut dev, ms(10));
    let (_, _, events) = write(&mut dev, A, ms(20), &[(reg::ACQUISITION_START, 1)]);
    assert_eq!(events, [DeviceEvent::AcquisitionStart]);
    assert_eq!(read1(&mut dev, reg::ACQUISITION_STATUS), 1);
    let mut refused = 0;
    for port in (1..=u16::MAX).filter(|&p| p != A.port()) {
        let forged = SocketAddrV4::new(*A.ip(), port);
        let now = ms(100 + u64::from(port) / 32);
        let (status, _, events) = write(&mut dev, forged, now, &[(reg::ACQUISITION_STOP, 1)]);
        assert_eq!(status, Status::ACCESS_DENIED, "port {port}");
        assert!(events.is_empty(), "port {port}: {events:?}");
        refused += 1;
    }
    let denied = dev.access_denied();
    assert_eq!(denied.controller_ip_other_port, refused);
    assert_eq!(denied.other_hosts, 0);
    // The forgeries kept nothing alive: control expires on the genuine
    // host's last command (at 20 ms) plus the 3 s heartbeat timeout.
    assert!(dev.acquiring());
    assert_eq!(dev.poll_timeout(), Some(ms(3020)));
    // Another host is counted as such; the status register is read-only.
    assert_eq!(
        write(&mut dev, B, ms(2100), &[(reg::ACQUISITION_STOP, 1)]).0,
        Status::ACCESS_DENIED
    );
    assert_eq!(dev.access_denied().other_hosts, 1);
    assert_eq!(
        write(&mut dev, A, ms(2200), &[(reg::ACQUISITION_STATUS, 0)]).0,
        Status::WRITE_PROTECT
    );
    // Only the controller's own port stops acquisition, and the status says so.
    let (status, _, events) = write(&mut dev, A, ms(2300), &[(reg::ACQUISITION_STOP, 1)]);
    assert_eq!(
        (status, events),
        (Status::SUCCESS, vec![DeviceEvent::AcquisitionStop])
    );
    assert_eq!(read1(&mut dev, reg::ACQUISITION_STATUS), 0);
}
