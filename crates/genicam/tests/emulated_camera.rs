//! linerate-genicam against linerate's own emulated camera, sans-IO: a
//! `RegisterPort` that encodes GVCP READMEM/WRITEMEM commands, hands them to
//! `linerate_gev::device::Device::handle_datagram` and decodes the acks. No sockets.

use std::net::{Ipv4Addr, SocketAddrV4};

use linerate_genicam::{
    fetch_xml, fetch_xml_document, read_url, AccessMode, Bounds, Category, Error, FeatureKind,
    FeatureValue, Features, PortError, RegisterPort, TreeItem, FIRST_URL_ADDRESS, MAX_CHUNK,
};
use linerate_gev::device::registers::{bootstrap as bs, device as reg};
use linerate_gev::device::{
    Device, DeviceConfig, DeviceEvent, DeviceIdentity, GENICAM_XML, XML_FILE_NAME,
};
use linerate_wire::gvcp::{Ack, AckPacket, AckRepr, Command, CommandRepr, RegisterWrite};
use linerate_wire::{PixelFormat, Status};

const HOST: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(169, 254, 10, 2), 50_000);

/// The GVCP control channel, minus the socket.
struct CameraPort {
    device: Device,
    request_id: u16,
    /// Every event the device raised, in order.
    events: Vec<DeviceEvent>,
    /// Every READMEM: (address, count).
    reads: Vec<(u64, usize)>,
    /// Every WRITEMEM: (address, data).
    writes: Vec<(u64, Vec<u8>)>,
}

/// A GVCP status as a transport error.
#[derive(Debug)]
struct GvcpStatus(Status);

impl std::fmt::Display for GvcpStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GVCP status {}", self.0)
    }
}

impl std::error::Error for GvcpStatus {}

impl CameraPort {
    fn new() -> CameraPort {
        let device = Device::new(DeviceIdentity::default(), DeviceConfig::default())
            .expect("default camera");
        CameraPort {
            device,
            request_id: 0,
            events: Vec::new(),
            reads: Vec::new(),
            writes: Vec::new(),
        }
    }

    /// A camera this host controls (writes need the control channel privilege).
    fn controlled() -> CameraPort {
        let mut port = CameraPort::new();
        let status = port.write_reg(bs::CONTROL_CHANNEL_PRIVILEGE, bs::ccp::CONTROL_ACCESS);
        assert_eq!(status, Status::SUCCESS);
        port.events.clear();
        port
    }

    fn send(&mut self, command: Command) -> AckRepr {
        self.request_id = self.request_id.wrapping_add(1).max(1);
        let bytes = CommandRepr::new(command, self.request_id)
            .to_vec()
            .expect("command encodes");
        let result = self.device.handle_datagram(&bytes, HOST, 10_000_000);
        self.events.extend(result.events);
        let reply = result.reply.expect("the camera acks");
        let packet = AckPacket::new_checked(&reply.datagram[..]).expect("ack header");
        let ack = AckRepr::parse(&packet).expect("ack parses");
        assert_eq!(ack.ack_id, self.request_id);
        ack
    }

    /// WRITEREG outside the feature tree: another host, or the camera's own
    /// logic, changing a register behind the tree's back.
    fn write_reg(&mut self, address: u32, value: u32) -> Status {
        let ack = self.send(Command::WriteReg {
            writes: vec![RegisterWrite { address, value }],
        });
        ack.status
    }

    fn register(&self, address: u32) -> u32 {
        self.device
            .read_register(address)
            .expect("readable register")
    }
}

impl RegisterPort for CameraPort {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), PortError> {
        assert!(
            address % 4 == 0 && buf.len() % 4 == 0 && buf.len() <= MAX_CHUNK,
            "the crate promised aligned reads of at most {MAX_CHUNK} bytes: {} at {address:#x}",
            buf.len()
        );
        self.reads.push((address, buf.len()));
        let address32 = u32::try_from(address)
            .map_err(|_| PortError::read(address, buf.len(), "beyond the 32-bit GVCP space"))?;
        let count = u16::try_from(buf.len()).expect("at most 512");
        let ack = self.send(Command::ReadMem {
            address: address32,
            count,
        });
        match ack.ack {
            Ack::ReadMem { data, .. }
                if ack.status == Status::SUCCESS && data.len() == buf.len() =>
            {
                buf.copy_from_slice(&data);
                Ok(())
            }
            _ => Err(PortError::read(address, buf.len(), GvcpStatus(ack.status))),
        }
    }

    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), PortError> {
        assert!(data.len() <= MAX_CHUNK);
        self.writes.push((address, data.to_vec()));
        let address32 = u32::try_from(address)
            .map_err(|_| PortError::write(address, data.len(), "beyond the 32-bit GVCP space"))?;
        let ack = self.send(Command::WriteMem {
            address: address32,
            data: data.to_vec(),
        });
        if ack.status == Status::SUCCESS {
            Ok(())
        } else {
            Err(PortError::write(
                address,
                data.len(),
                GvcpStatus(ack.status),
            ))
        }
    }
}

fn setup() -> (CameraPort, Features) {
    let mut port = CameraPort::controlled();
    let xml = fetch_xml(&mut port).expect("the camera's XML");
    let features = Features::from_xml(&xml).expect("the camera's XML builds");
    port.reads.clear();
    (port, features)
}

#[test]
fn fetches_the_cameras_xml_in_chunks() {
    let mut port = CameraPort::new();
    let url = read_url(&mut port, FIRST_URL_ADDRESS).expect("URL register");
    assert!(
        url.starts_with(&format!("Local:{XML_FILE_NAME};20000;")),
        "{url}"
    );
    port.reads.clear();
    let xml = fetch_xml(&mut port).expect("fetch");
    assert_eq!(xml.as_bytes(), GENICAM_XML);
    // One read of the URL register, then the file in 512-byte chunks.
    assert_eq!(port.reads[0], (u64::from(bs::FIRST_URL), 512));
    let file_reads = &port.reads[1..];
    assert_eq!(file_reads[0].0, u64::from(reg::XML_BASE));
    assert_eq!(file_reads.len(), GENICAM_XML.len().div_ceil(512));
    assert!(file_reads.iter().all(|&(_, n)| n <= 512 && n % 4 == 0));
    let total: usize = file_reads.iter().map(|&(_, n)| n).sum();
    assert!(total >= GENICAM_XML.len() && total < GENICAM_XML.len() + 4);
}

#[test]
fn reads_the_cameras_features() {
    let (mut port, mut f) = setup();
    let config = port.device.stream_config();
    let get = |f: &mut Features, port: &mut CameraPort, name: &str| {
        f.get(port, name)
            .unwrap_or_else(|e| panic!("get {name}: {e}"))
    };
    assert_eq!(
        get(&mut f, &mut port, "Width"),
        FeatureValue::Integer(config.width.into())
    );
    assert_eq!(
        get(&mut f, &mut port, "Height"),
        FeatureValue::Integer(config.height.into())
    );
    assert_eq!(
        get(&mut f, &mut port, "PixelFormat"),
        FeatureValue::Enum("Mono8".into())
    );
    assert_eq!(
        get(&mut f, &mut port, "GevSCPSPacketSize"),
        FeatureValue::Integer(config.packet_size.into())
    );
    assert_eq!(
        get(&mut f, &mut port, "AcquisitionFrameRate"),
        FeatureValue::Float(config.frame_rate)
    );
    assert_eq!(
        get(&mut f, &mut port, "PayloadSize"),
        FeatureValue::Integer(config.payload_size.into())
    );
    assert_eq!(
        get(&mut f, &mut port, "DeviceVendorName"),
        FeatureValue::String(DeviceIdentity::default().manufacturer)
    );
    assert_eq!(
        get(&mut f, &mut port, "GevTimestampTickFrequency"),
        FeatureValue::Integer(i64::try_from(port.device.tick_frequency()).expect("fits"))
    );
    assert_eq!(
        get(&mut f, &mut port, "GevDeviceModeIsBigEndian"),
        FeatureValue::Bool(true)
    );
    assert_eq!(
        get(&mut f, &mut port, "AcquisitionStart"),
        FeatureValue::Command
    );
    assert_eq!(
        get(&mut f, &mut port, "GevCCP"),
        FeatureValue::Enum("ControlAccess".into())
    );
    // Reads never write.
    assert!(port.writes.is_empty(), "{:?}", port.writes);
    assert_eq!(get(&mut f, &mut port, "Width").to_string(), "1024");
}

#[test]
fn sets_a_valid_width_and_reads_it_back() {
    let (mut port, mut f) = setup();
    f.set(&mut port, "Width", "640").expect("640 is valid");
    assert_eq!(
        f.get(&mut port, "Width").expect("get"),
        FeatureValue::Integer(640)
    );
    assert_eq!(port.register(reg::WIDTH), 640);
    assert_eq!(port.device.stream_config().width, 640);
    assert!(port.events.contains(&DeviceEvent::StreamConfigChanged));
    // Hexadecimal works too.
    f.set(&mut port, "Width", "0x400").expect("1024");
    assert_eq!(port.register(reg::WIDTH), 1024);
}

#[test]
fn out_of_bounds_integers_are_refused_before_writing() {
    let (mut port, mut f) = setup();
    let (min, max, inc) = f.int_bounds(&mut port, "Width").expect("bounds");
    let config = DeviceConfig::default();
    assert_eq!(
        (min, max, inc),
        (
            config.width_min.into(),
            config.width_max.into(),
            config.width_increment.into()
        )
    );
    let before = port.register(reg::WIDTH);

    match f.set(&mut port, "Width", &(max + 4).to_string()) {
        Err(Error::OutOfRange {
            name,
            value,
            min: lo,
            max: hi,
        }) => {
            assert_eq!((name.as_str(), value, lo, hi), ("Width", max + 4, min, max));
        }
        other => panic!("expected OutOfRange, got {other:?}"),
    }
    match f.set(&mut port, "Width", "1026") {
        Err(e @ Error::NotOnIncrement { .. }) => {
            let Error::NotOnIncrement {
                ref name,
                value,
                inc: step,
                below,
                above,
                ..
            } = e
            else {
                unreachable!()
            };
            assert_eq!(
                (name.as_str(), value, step, below, above),
                ("Width", 1026, 4, 1024, 1028)
            );
            let text = e.to_string();
            assert!(
                text.contains("Width") && text.contains("1026") && text.contains('4'),
                "{text}"
            );
        }
        other => panic!("expected NotOnIncrement, got {other:?}"),
    }
    match f.set(&mut port, "Width", "8") {
        Err(Error::OutOfRange { value: 8, .. }) => {}
        other => panic!("expected OutOfRange, got {other:?}"),
    }
    match f.set(&mut port, "Width", "wide") {
        Err(Error::InvalidValue { name, value, .. }) => {
            assert_eq!((name.as_str(), value.as_str()), ("Width", "wide"));
        }
        other => panic!("expected InvalidValue, got {other:?}"),
    }
    assert!(
        port.writes.is_empty(),
        "refused values were written: {:?}",
        port.writes
    );
    assert_eq!(port.register(reg::WIDTH), before);

    // The packet size: 576 to 16000, step 4.
    assert_eq!(
        f.int_bounds(&mut port, "GevSCPSPacketSize")
            .expect("bounds"),
        (576, 16000, 4)
    );
    assert!(matches!(
        f.set(&mut port, "GevSCPSPacketSize", "1501"),
        Err(Error::NotOnIncrement { .. })
    ));
    f.set(&mut port, "GevSCPSPacketSize", "8000")
        .expect("valid size");
    assert_eq!(port.device.stream_config().packet_size, 8000);
}

#[test]
fn floats_are_bounded() {
    let (mut port, mut f) = setup();
    f.set(&mut port, "AcquisitionFrameRate", "30.5")
        .expect("valid rate");
    assert_eq!(
        f.get(&mut port, "AcquisitionFrameRate").expect("get"),
        FeatureValue::Float(30.5)
    );
    assert_eq!(port.device.stream_config().frame_rate, 30.5);
    let (min, max) = f
        .float_bounds(&mut port, "AcquisitionFrameRate")
        .expect("bounds");
    port.writes.clear();
    match f.set(&mut port, "AcquisitionFrameRate", "20000") {
        Err(Error::FloatOutOfRange {
            name,
            value,
            min: lo,
            max: hi,
        }) => {
            assert_eq!(name, "AcquisitionFrameRate");
            assert_eq!((value, lo, hi), (20000.0, min, max));
        }
        other => panic!("expected FloatOutOfRange, got {other:?}"),
    }
    for bad in ["fast", "NaN", "inf", ""] {
        assert!(
            matches!(
                f.set(&mut port, "AcquisitionFrameRate", bad),
                Err(Error::InvalidValue { .. })
            ),
            "{bad:?}"
        );
    }
    assert!(port.writes.is_empty());
}

#[test]
fn enumerations_are_set_by_name() {
    let (mut port, mut f) = setup();
    assert_eq!(
        f.kind("PixelFormat").expect("exists"),
        FeatureKind::Enumeration
    );
    assert!(f
        .entries("PixelFormat")
        .expect("entries")
        .contains(&"Mono16".to_string()));
    f.set(&mut port, "PixelFormat", "Mono16")
        .expect("a known format");
    assert_eq!(
        port.device.stream_config().pixel_format,
        PixelFormat::MONO16
    );
    assert_eq!(
        f.get(&mut port, "PixelFormat").expect("get"),
        FeatureValue::Enum("Mono16".into())
    );
    port.writes.clear();
    match f.set(&mut port, "PixelFormat", "Mono9") {
        Err(Error::UnknownEntry {
            name,
            value,
            entries,
        }) => {
            assert_eq!((name.as_str(), value.as_str()), ("PixelFormat", "Mono9"));
            assert!(entries.contains(&"Mono8".to_string()), "{entries:?}");
        }
        other => panic!("expected UnknownEntry, got {other:?}"),
    }
    assert!(port.writes.is_empty());
    f.set(&mut port, "LinerateTransport", "GvspTcp")
        .expect("set");
    assert_eq!(port.device.stream_config().transport, 1);
}

#[test]
fn booleans_and_strings() {
    let (mut port, mut f) = setup();
    f.set(&mut port, "GevSCPSDoNotFragment", "true")
        .expect("set");
    assert!(port.device.stream_config().do_not_fragment);
    assert_eq!(
        f.get(&mut port, "GevSCPSDoNotFragment").expect("get"),
        FeatureValue::Bool(true)
    );
    f.set(&mut port, "DeviceUserID", "bench-1").expect("set");
    assert_eq!(
        f.get(&mut port, "DeviceUserID").expect("get"),
        FeatureValue::String("bench-1".into())
    );
    port.writes.clear();
    match f.set(&mut port, "DeviceUserID", "a-name-of-17-chr") {
        Ok(()) => {} // 16 bytes fit the register exactly
        Err(e) => panic!("16 bytes: {e}"),
    }
    port.writes.clear();
    assert!(matches!(
        f.set(&mut port, "DeviceUserID", "seventeen-bytes!!"),
        Err(Error::StringTooLong {
            length: 17,
            max: 16,
            ..
        })
    ));
    assert!(port.writes.is_empty());
}

#[test]
fn commands_execute_and_the_device_acts() {
    let (mut port, mut f) = setup();
    f.execute(&mut port, "AcquisitionStart").expect("start");
    assert!(
        port.events.contains(&DeviceEvent::AcquisitionStart),
        "{:?}",
        port.events
    );
    assert!(port.device.acquiring());
    assert_eq!(
        port.writes.last(),
        Some(&(
            u64::from(reg::ACQUISITION_START),
            1u32.to_be_bytes().to_vec()
        ))
    );

    // While acquiring, the camera refuses image-format writes: the GVCP
    // status comes back as a typed transport error naming the register.
    match f.set(&mut port, "Width", "640") {
        Err(Error::Port(e)) => {
            assert_eq!(e.address, u64::from(reg::WIDTH));
            assert_eq!(e.length, 4);
            assert!(e.to_string().contains("0x10000"), "{e}");
        }
        other => panic!("expected a port error, got {other:?}"),
    }

    // set() on a command executes it.
    port.events.clear();
    f.set(&mut port, "AcquisitionStop", "").expect("stop");
    assert_eq!(port.events, [DeviceEvent::AcquisitionStop]);
    assert!(!port.device.acquiring());
    f.execute(&mut port, "TriggerSoftware").expect("trigger");
    assert!(port.events.contains(&DeviceEvent::TriggerSoftware));
    assert!(matches!(
        f.set(&mut port, "AcquisitionStart", "0"),
        Err(Error::InvalidValue { .. })
    ));
}

#[test]
fn get_sees_changes_made_behind_the_trees_back() {
    let (mut port, mut f) = setup();
    assert_eq!(
        f.get(&mut port, "Width").expect("get"),
        FeatureValue::Integer(1024)
    );
    // Width is a cached register in the XML; another write path changes it.
    assert_eq!(port.write_reg(reg::WIDTH, 800), Status::SUCCESS);
    assert_eq!(
        f.get(&mut port, "Width").expect("get"),
        FeatureValue::Integer(800)
    );
    // And bounds that depend on it follow too (OffsetX max = WidthMax - Width).
    let (_, offset_max, _) = f.int_bounds(&mut port, "OffsetX").expect("bounds");
    assert_eq!(
        offset_max,
        i64::from(DeviceConfig::default().width_max) - 800
    );
}

#[test]
fn writes_without_control_fail_with_the_gvcp_status() {
    let mut port = CameraPort::new();
    let xml = fetch_xml(&mut port).expect("reads need no control");
    let mut f = Features::from_xml(&xml).expect("builds");
    match f.set(&mut port, "Width", "640") {
        Err(Error::Port(e)) => {
            assert_eq!((e.address, e.length), (u64::from(reg::WIDTH), 4));
            assert!(
                e.to_string().contains("ACCESS_DENIED") || e.to_string().contains("8006"),
                "{e}"
            );
        }
        other => panic!("expected a port error, got {other:?}"),
    }
}

#[test]
fn names_kinds_and_misuse() {
    let (mut port, mut f) = setup();
    let names: Vec<&str> = f.names().collect();
    for expected in [
        "Width",
        "PixelFormat",
        "AcquisitionStart",
        "GevSCPSPacketSize",
        "LinerateFramesSent",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert!(!names.contains(&"Root") && !names.contains(&"ImageFormatControl"));
    assert!(
        !names.contains(&"WidthReg"),
        "register nodes are not features"
    );
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "duplicates in {names:?}");
    // Category order: DeviceControl comes before ImageFormatControl.
    let pos = |n: &str| names.iter().position(|&x| x == n).expect("listed");
    assert!(pos("DeviceVendorName") < pos("Width"));

    // Register nodes are still reachable by name.
    assert_eq!(
        f.get(&mut port, "WidthReg").expect("get"),
        FeatureValue::Integer(1024)
    );

    assert!(matches!(
        f.get(&mut port, "NoSuchFeature"),
        Err(Error::UnknownFeature { name }) if name == "NoSuchFeature"
    ));
    assert!(matches!(
        f.execute(&mut port, "Width"),
        Err(Error::WrongKind {
            expected: "a Command",
            actual: "an Integer",
            ..
        })
    ));
    assert!(matches!(
        f.get(&mut port, "ImageFormatControl"),
        Err(Error::WrongKind {
            actual: "a Category",
            ..
        })
    ));
    assert!(matches!(
        f.set(&mut port, "PayloadSize", "5"),
        Err(Error::NotWritable { name }) if name == "PayloadSize"
    ));
    assert!(matches!(
        f.int_bounds(&mut port, "PixelFormat"),
        Err(Error::WrongKind { .. })
    ));
    assert!(port.writes.is_empty());
}

#[test]
fn every_listed_feature_reads() {
    let (mut port, mut f) = setup();
    let names: Vec<String> = f.names().map(str::to_string).collect();
    assert!(names.len() > 60, "{} features", names.len());
    for name in &names {
        match f.get(&mut port, name) {
            Ok(_) => {}
            Err(e) => panic!("get {name}: {e}"),
        }
    }
    assert!(port.writes.is_empty(), "{:?}", port.writes);
    // Selectors steer the features they select.
    f.set(&mut port, "GevSupportedOptionSelector", "PacketResend")
        .expect("select");
    assert_eq!(
        f.get(&mut port, "GevSupportedOption").expect("get"),
        FeatureValue::Bool(true)
    );
    f.set(&mut port, "GevSupportedOptionSelector", "Action")
        .expect("select");
    assert_eq!(
        f.get(&mut port, "GevSupportedOption").expect("get"),
        FeatureValue::Bool(false)
    );
}

#[test]
fn describe_gives_type_access_range_entries_and_unit() {
    let (mut port, mut f) = setup();
    let width = f.describe(&mut port, "Width").expect("describe Width");
    assert_eq!(width.kind, FeatureKind::Integer);
    assert_eq!(width.access, AccessMode::ReadWrite);
    assert!(matches!(width.value, Some(FeatureValue::Integer(_))));
    match width.bounds {
        Some(Bounds::Integer { min, max, inc }) => {
            assert_eq!((min, inc), (16, 4));
            assert!(max >= 16, "{max}");
        }
        other => panic!("Width bounds {other:?}"),
    }
    assert!(width.description.is_some());
    assert_eq!(width.error, None);

    let format = f.describe(&mut port, "PixelFormat").expect("PixelFormat");
    assert_eq!(format.kind, FeatureKind::Enumeration);
    let mono8 = format
        .entries
        .iter()
        .find(|e| e.name == "Mono8")
        .expect("Mono8 entry");
    assert_eq!((mono8.value, mono8.available), (0x0108_0001, true));

    let payload = f.describe(&mut port, "PayloadSize").expect("PayloadSize");
    assert_eq!(payload.access, AccessMode::ReadOnly);
    let start = f.describe(&mut port, "AcquisitionStart").expect("command");
    assert_eq!((start.access, start.value), (AccessMode::WriteOnly, None));
    let exposure = f.describe(&mut port, "ExposureTime").expect("float");
    assert!(matches!(exposure.bounds, Some(Bounds::Float { .. })));
    let vendor = f.describe(&mut port, "DeviceVendorName").expect("string");
    assert_eq!(vendor.bounds, Some(Bounds::String { max_length: 32 }));
    assert!(port.writes.is_empty(), "describing wrote {:?}", port.writes);
    assert!(matches!(
        f.describe(&mut port, "NoSuchFeature"),
        Err(Error::UnknownFeature { .. })
    ));
}

#[test]
fn the_tree_holds_every_listed_feature_once_under_its_category() {
    let (_port, f) = setup();
    let root = f.tree().expect("the camera's XML has a Root category");
    assert_eq!(root.name, "Root");
    fn collect(c: &Category, path: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
        for child in &c.children {
            match child {
                TreeItem::Category(sub) => {
                    path.push(sub.name.clone());
                    collect(sub, path, out);
                    path.pop();
                }
                TreeItem::Feature(name) => out.push((name.clone(), path.clone())),
            }
        }
    }
    let mut found = Vec::new();
    collect(&root, &mut Vec::new(), &mut found);
    let mut in_tree: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    let mut listed: Vec<&str> = f.names().collect();
    in_tree.sort_unstable();
    listed.sort_unstable();
    assert_eq!(in_tree, listed);
    let (_, path) = found.iter().find(|(n, _)| n == "Width").expect("Width");
    assert_eq!(path.last().map(String::as_str), Some("ImageFormatControl"));
}

#[test]
fn the_xml_document_says_where_it_came_from() {
    let mut port = CameraPort::controlled();
    let document = fetch_xml_document(&mut port).expect("XML");
    assert_eq!(document.register, FIRST_URL_ADDRESS);
    assert!(
        document.url.starts_with(&format!("Local:{XML_FILE_NAME}")),
        "{}",
        document.url
    );
    assert!(!document.zipped());
    assert_eq!(document.text, fetch_xml(&mut port).expect("XML"));
}
