//! The emulated camera's GenICam XML, loaded with an independent GenApi
//! implementation (cameleon-genapi): every feature the camera documents is
//! there with the expected interface, every register node sits at an address
//! from `registers.rs`, and reading and writing features through a register
//! map moves the bytes the camera expects.
//!
//! The same file is checked by the EMVA reference implementation
//! (tests/python/test_genicam_xml.py) and by Aravis
//! (scripts/check-genicam-aravis); see docs/genicam.md.

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;

use cameleon_genapi::builder::GenApiBuilder;
use cameleon_genapi::elem_type::{
    AccessMode, AddressKind, BitMask, Endianness, ImmOrPNode, StandardNameSpace, ValueKind,
};
use cameleon_genapi::prelude::*;
use cameleon_genapi::store::{
    DefaultCacheStore, DefaultNodeStore, DefaultValueStore, NodeData, NodeStore, ValueStore,
};
use cameleon_genapi::{Device, NodeId, RegisterBase, ValueCtxt};
use linerate_gev::device::registers::{bootstrap as bs, device as dev};

const XML: &str = include_str!("../src/device/linerate-camera.xml");

type Cx = ValueCtxt<DefaultValueStore, DefaultCacheStore>;
type DeviceResult = Result<(), Box<dyn Error + Send + Sync>>;

/// Address of stream channel 0's register at `offset`.
const fn sc0(offset: u32) -> u32 {
    bs::STREAM_CHANNEL_BASE + offset
}

// ---------------------------------------------------------------------------
// a register map standing in for the camera

/// Big-endian 32-bit registers, plus a log of every write.
#[derive(Default)]
struct Registers {
    words: BTreeMap<i64, u32>,
    writes: Vec<(i64, Vec<u8>)>,
}

impl Registers {
    fn set(&mut self, address: u32, value: u32) {
        self.words.insert(i64::from(address), value);
    }

    fn get(&self, address: u32) -> u32 {
        self.words.get(&i64::from(address)).copied().unwrap_or(0)
    }

    fn set_string(&mut self, address: u32, text: &str) {
        for (i, chunk) in text.as_bytes().chunks(4).enumerate() {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            self.set(address + 4 * i as u32, u32::from_be_bytes(word));
        }
    }
}

impl Device for Registers {
    fn read_mem(&mut self, address: i64, buf: &mut [u8]) -> DeviceResult {
        if address % 4 != 0 || buf.len() % 4 != 0 {
            return Err(format!("unaligned read of {} bytes at {address:#x}", buf.len()).into());
        }
        for (i, chunk) in buf.chunks_mut(4).enumerate() {
            let word = self.words.get(&(address + 4 * i as i64)).copied();
            chunk.copy_from_slice(&word.unwrap_or(0).to_be_bytes());
        }
        Ok(())
    }

    fn write_mem(&mut self, address: i64, data: &[u8]) -> DeviceResult {
        if address % 4 != 0 || data.len() % 4 != 0 {
            return Err(format!("unaligned write of {} bytes at {address:#x}", data.len()).into());
        }
        self.writes.push((address, data.to_vec()));
        for (i, chunk) in data.chunks(4).enumerate() {
            let word = u32::from_be_bytes(chunk.try_into().expect("4-byte chunk"));
            self.words.insert(address + 4 * i as i64, word);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// helpers

struct Loaded {
    store: DefaultNodeStore,
    cx: Cx,
}

fn load() -> (cameleon_genapi::RegisterDescription, Loaded) {
    let (desc, store, cx) =
        GenApiBuilder::<DefaultNodeStore, DefaultValueStore, DefaultCacheStore>::default()
            .build(&XML)
            .expect("the XML parses");
    (desc, Loaded { store, cx })
}

impl Loaded {
    fn id(&self, name: &str) -> NodeId {
        let id = self
            .store
            .id_by_name(name)
            .unwrap_or_else(|| panic!("no node named {name}"));
        assert!(
            self.store.node_opt(id).is_some(),
            "{name} is referenced but never defined"
        );
        id
    }

    fn node(&self, name: &str) -> &NodeData {
        self.store.node(self.id(name))
    }

    fn int(&mut self, name: &str, regs: &mut Registers) -> i64 {
        let id = self.id(name);
        let node = id.expect_iinteger_kind(&self.store).expect("an integer");
        node.value(regs, &self.store, &mut self.cx)
            .unwrap_or_else(|e| panic!("reading {name}: {e}"))
    }

    fn set_int(&mut self, name: &str, value: i64, regs: &mut Registers) {
        let id = self.id(name);
        let node = id.expect_iinteger_kind(&self.store).expect("an integer");
        node.set_value(value, regs, &self.store, &mut self.cx)
            .unwrap_or_else(|e| panic!("writing {name}: {e}"));
    }

    fn float(&mut self, name: &str, regs: &mut Registers) -> f64 {
        let id = self.id(name);
        let node = id.expect_ifloat_kind(&self.store).expect("a float");
        node.value(regs, &self.store, &mut self.cx)
            .unwrap_or_else(|e| panic!("reading {name}: {e}"))
    }

    fn boolean(&mut self, name: &str, regs: &mut Registers) -> bool {
        let id = self.id(name);
        let node = id.expect_iboolean_kind(&self.store).expect("a boolean");
        node.value(regs, &self.store, &mut self.cx)
            .unwrap_or_else(|e| panic!("reading {name}: {e}"))
    }

    fn string(&mut self, name: &str, regs: &mut Registers) -> String {
        let id = self.id(name);
        let node = id.expect_istring_kind(&self.store).expect("a string");
        node.value(regs, &self.store, &mut self.cx)
            .unwrap_or_else(|e| panic!("reading {name}: {e}"))
    }

    fn symbolic(&mut self, name: &str, regs: &mut Registers) -> String {
        let id = self.id(name);
        let node = id
            .expect_ienumeration_kind(&self.store)
            .expect("an enumeration");
        let entry = node
            .current_entry(regs, &self.store, &mut self.cx)
            .unwrap_or_else(|e| panic!("reading {name}: {e}"));
        let entry = entry.expect_enum_entry(&self.store).expect("an entry");
        entry.symbolic().to_string()
    }

    fn set_symbolic(&mut self, name: &str, symbolic: &str, regs: &mut Registers) {
        let id = self.id(name);
        let node = id
            .expect_ienumeration_kind(&self.store)
            .expect("an enumeration");
        node.set_entry_by_symbolic(symbolic, regs, &self.store, &mut self.cx)
            .unwrap_or_else(|e| panic!("writing {name}={symbolic}: {e}"));
    }

    fn execute(&mut self, name: &str, regs: &mut Registers) {
        let id = self.id(name);
        let node = id.expect_icommand_kind(&self.store).expect("a command");
        node.execute(regs, &self.store, &mut self.cx)
            .unwrap_or_else(|e| panic!("executing {name}: {e}"));
    }

    /// The node a feature takes its value from (`pValue`), by name.
    fn p_value(&self, feature: &str) -> String {
        let target = match self.node(feature) {
            NodeData::Integer(n) => match n.value_kind() {
                ValueKind::PValue(p) => p.p_value(),
                _ => panic!("{feature} has no pValue"),
            },
            NodeData::Float(n) => match n.value_kind() {
                ValueKind::PValue(p) => p.p_value(),
                _ => panic!("{feature} has no pValue"),
            },
            NodeData::Enumeration(n) => pnode(n.value_elem(), feature),
            NodeData::Boolean(n) => pnode(n.value_elem(), feature),
            NodeData::Command(n) => pnode(n.value_elem(), feature),
            _ => panic!("{feature} is not a value feature"),
        };
        self.store
            .name_by_id(target)
            .expect("named node")
            .to_string()
    }
}

fn pnode<T>(elem: ImmOrPNode<T>, feature: &str) -> NodeId {
    match elem {
        ImmOrPNode::PNode(id) => id,
        ImmOrPNode::Imm(_) => panic!("{feature} has an immediate value, not a pValue"),
    }
}

/// What a register node says about itself.
#[derive(Debug, PartialEq, Eq)]
struct Reg {
    kind: &'static str,
    address: u32,
    length: i64,
    access: &'static str,
    big_endian: bool,
    bits: Option<(u64, u64)>,
}

fn register_base(node: &NodeData) -> Option<(&'static str, &RegisterBase)> {
    Some(match node {
        NodeData::IntReg(n) => ("IntReg", n.register_base()),
        NodeData::MaskedIntReg(n) => ("MaskedIntReg", n.register_base()),
        NodeData::FloatReg(n) => ("FloatReg", n.register_base()),
        NodeData::StringReg(n) => ("StringReg", n.register_base()),
        _ => return None,
    })
}

fn describe_register(node: &NodeData) -> Option<Reg> {
    let (kind, base) = register_base(node)?;
    let [AddressKind::Address(ImmOrPNode::Imm(address))] = base.address_kinds() else {
        panic!("{kind} without one immediate <Address>");
    };
    let ImmOrPNode::Imm(length) = *base.length_elem() else {
        panic!("{kind} without an immediate <Length>");
    };
    let endianness = match node {
        NodeData::IntReg(n) => Some(n.endianness()),
        NodeData::MaskedIntReg(n) => Some(n.endianness()),
        NodeData::FloatReg(n) => Some(n.endianness()),
        _ => None,
    };
    let bits = match node {
        NodeData::MaskedIntReg(n) => Some(match n.bit_mask() {
            BitMask::SingleBit(bit) => (bit, bit),
            BitMask::Range { lsb, msb } => (lsb, msb),
        }),
        _ => None,
    };
    Some(Reg {
        kind,
        address: u32::try_from(*address).expect("32-bit address"),
        length,
        access: match base.access_mode() {
            AccessMode::RO => "RO",
            AccessMode::WO => "WO",
            AccessMode::RW => "RW",
        },
        // Strings have no byte order; everything else must be big-endian.
        big_endian: endianness.map_or(true, |e| e == Endianness::BE),
        bits,
    })
}

fn reg(kind: &'static str, address: u32, access: &'static str) -> Reg {
    Reg {
        kind,
        address,
        length: 4,
        access,
        big_endian: true,
        bits: None,
    }
}

fn masked(address: u32, access: &'static str, lsb: u64, msb: u64) -> Reg {
    Reg {
        bits: Some((lsb, msb)),
        ..reg("MaskedIntReg", address, access)
    }
}

fn string_reg(address: u32, length: i64, access: &'static str) -> Reg {
    Reg {
        length,
        ..reg("StringReg", address, access)
    }
}

fn kind_of(node: &NodeData) -> &'static str {
    match node {
        NodeData::Category(_) => "Category",
        NodeData::Integer(_) => "Integer",
        NodeData::IntReg(_) => "IntReg",
        NodeData::MaskedIntReg(_) => "MaskedIntReg",
        NodeData::Boolean(_) => "Boolean",
        NodeData::Command(_) => "Command",
        NodeData::Enumeration(_) => "Enumeration",
        NodeData::EnumEntry(_) => "EnumEntry",
        NodeData::Float(_) => "Float",
        NodeData::FloatReg(_) => "FloatReg",
        NodeData::StringReg(_) => "StringReg",
        NodeData::IntSwissKnife(_) => "IntSwissKnife",
        NodeData::Port(_) => "Port",
        _ => "other",
    }
}

/// Every feature the camera documents, with its node type.
const FEATURES: &[(&str, &str)] = &[
    // categories
    ("Root", "Category"),
    ("DeviceControl", "Category"),
    ("ImageFormatControl", "Category"),
    ("AcquisitionControl", "Category"),
    ("AnalogControl", "Category"),
    ("TransportLayerControl", "Category"),
    ("TestControl", "Category"),
    ("LinerateStatistics", "Category"),
    // DeviceControl
    ("DeviceVendorName", "StringReg"),
    ("DeviceModelName", "StringReg"),
    ("DeviceVersion", "StringReg"),
    ("DeviceManufacturerInfo", "StringReg"),
    ("DeviceSerialNumber", "StringReg"),
    ("DeviceUserID", "StringReg"),
    // ImageFormatControl
    ("Width", "Integer"),
    ("Height", "Integer"),
    ("OffsetX", "Integer"),
    ("OffsetY", "Integer"),
    ("WidthMax", "Integer"),
    ("HeightMax", "Integer"),
    ("PixelFormat", "Enumeration"),
    // AcquisitionControl, AnalogControl, TestControl
    ("AcquisitionMode", "Enumeration"),
    ("AcquisitionStart", "Command"),
    ("AcquisitionStop", "Command"),
    ("AcquisitionStatus", "Boolean"),
    ("AcquisitionFrameCount", "Integer"),
    ("AcquisitionFrameRate", "Float"),
    ("TriggerSelector", "Enumeration"),
    ("TriggerMode", "Enumeration"),
    ("TriggerSource", "Enumeration"),
    ("TriggerSoftware", "Command"),
    ("ExposureTime", "Float"),
    ("Gain", "Float"),
    ("TestPattern", "Enumeration"),
    // TransportLayerControl
    ("PayloadSize", "Integer"),
    ("LinerateTransport", "Enumeration"),
    ("LinerateTransferSize", "Integer"),
    ("TLParamsLocked", "Integer"),
    ("GevVersionMajor", "Integer"),
    ("GevVersionMinor", "Integer"),
    ("GevDeviceModeIsBigEndian", "Boolean"),
    ("GevDeviceModeCharacterSet", "Integer"),
    ("GevSupportedOptionSelector", "Enumeration"),
    ("GevSupportedOption", "Boolean"),
    ("GevInterfaceSelector", "Integer"),
    ("GevMACAddress", "Integer"),
    ("GevCurrentIPConfigurationLLA", "Boolean"),
    ("GevCurrentIPConfigurationDHCP", "Boolean"),
    ("GevCurrentIPConfigurationPersistentIP", "Boolean"),
    ("GevCurrentIPAddress", "Integer"),
    ("GevCurrentSubnetMask", "Integer"),
    ("GevCurrentDefaultGateway", "Integer"),
    ("GevFirstURL", "StringReg"),
    ("GevSecondURL", "StringReg"),
    ("GevNumberOfInterfaces", "Integer"),
    ("GevMessageChannelCount", "Integer"),
    ("GevStreamChannelCount", "Integer"),
    ("GevActiveLinkCount", "Integer"),
    ("GevHeartbeatTimeout", "Integer"),
    ("GevTimestampTickFrequency", "Integer"),
    ("GevTimestampControlLatch", "Command"),
    ("GevTimestampControlReset", "Command"),
    ("GevTimestampValue", "Integer"),
    ("GevGVCPExtendedStatusCodesSelector", "Enumeration"),
    ("GevGVCPExtendedStatusCodes", "Boolean"),
    ("GevGVCPPendingAck", "Boolean"),
    ("GevGVCPHeartbeatDisable", "Boolean"),
    ("GevGVCPPendingTimeout", "Integer"),
    ("GevGVSPExtendedIDMode", "Enumeration"),
    ("GevCCP", "Enumeration"),
    ("GevStreamChannelSelector", "Integer"),
    ("GevSCPInterfaceIndex", "Integer"),
    ("GevSCPHostPort", "Integer"),
    ("GevSCPSFireTestPacket", "Boolean"),
    ("GevSCPSDoNotFragment", "Boolean"),
    ("GevSCPSPacketSize", "Integer"),
    ("GevSCPD", "Integer"),
    ("GevSCDA", "Integer"),
    ("GevSCSP", "Integer"),
    // LinerateStatistics
    ("LinerateFramesSent", "Integer"),
    ("LinerateFramesSkipped", "Integer"),
    ("LineratePacketsResent", "Integer"),
    ("LinerateResendUnavailable", "Integer"),
    ("LinerateTriggerLatency", "Integer"),
];

/// Every register-backed feature: the register its value lives in.
fn feature_registers() -> Vec<(&'static str, Reg)> {
    vec![
        (
            "DeviceVendorName",
            string_reg(bs::MANUFACTURER_NAME, 32, "RO"),
        ),
        ("DeviceModelName", string_reg(bs::MODEL_NAME, 32, "RO")),
        ("DeviceVersion", string_reg(bs::DEVICE_VERSION, 32, "RO")),
        (
            "DeviceManufacturerInfo",
            string_reg(bs::MANUFACTURER_INFO, 48, "RO"),
        ),
        (
            "DeviceSerialNumber",
            string_reg(bs::SERIAL_NUMBER, 16, "RO"),
        ),
        ("DeviceUserID", string_reg(bs::USER_DEFINED_NAME, 16, "RW")),
        ("GevFirstURL", string_reg(bs::FIRST_URL, 512, "RO")),
        ("GevSecondURL", string_reg(bs::SECOND_URL, 512, "RO")),
        ("Width", reg("IntReg", dev::WIDTH, "RW")),
        ("Height", reg("IntReg", dev::HEIGHT, "RW")),
        ("OffsetX", reg("IntReg", dev::OFFSET_X, "RW")),
        ("OffsetY", reg("IntReg", dev::OFFSET_Y, "RW")),
        ("WidthMax", reg("IntReg", dev::WIDTH_MAX, "RO")),
        ("HeightMax", reg("IntReg", dev::HEIGHT_MAX, "RO")),
        ("PixelFormat", reg("IntReg", dev::PIXEL_FORMAT, "RW")),
        ("PayloadSize", reg("IntReg", dev::PAYLOAD_SIZE, "RO")),
        (
            "AcquisitionMode",
            reg("IntReg", dev::ACQUISITION_MODE, "RW"),
        ),
        (
            "AcquisitionStart",
            reg("IntReg", dev::ACQUISITION_START, "WO"),
        ),
        (
            "AcquisitionStop",
            reg("IntReg", dev::ACQUISITION_STOP, "WO"),
        ),
        (
            "AcquisitionStatus",
            reg("IntReg", dev::ACQUISITION_STATUS, "RO"),
        ),
        (
            "AcquisitionFrameRate",
            reg("FloatReg", dev::ACQUISITION_FRAME_RATE, "RW"),
        ),
        (
            "AcquisitionFrameCount",
            reg("IntReg", dev::ACQUISITION_FRAME_COUNT, "RW"),
        ),
        ("TriggerMode", reg("IntReg", dev::TRIGGER_MODE, "RW")),
        ("TriggerSource", reg("IntReg", dev::TRIGGER_SOURCE, "RW")),
        (
            "TriggerSoftware",
            reg("IntReg", dev::TRIGGER_SOFTWARE, "WO"),
        ),
        ("ExposureTime", reg("FloatReg", dev::EXPOSURE_TIME, "RW")),
        ("Gain", reg("FloatReg", dev::GAIN, "RW")),
        ("TestPattern", reg("IntReg", dev::TEST_PATTERN, "RW")),
        (
            "LinerateTransport",
            reg("IntReg", dev::TRANSPORT_SELECTOR, "RW"),
        ),
        (
            "LinerateTransferSize",
            reg("IntReg", dev::LINERATE_TRANSFER_SIZE, "RW"),
        ),
        ("LinerateFramesSent", reg("IntReg", dev::FRAMES_SENT, "RO")),
        (
            "LinerateFramesSkipped",
            reg("IntReg", dev::FRAMES_SKIPPED, "RO"),
        ),
        (
            "LineratePacketsResent",
            reg("IntReg", dev::PACKETS_RESENT, "RO"),
        ),
        (
            "LinerateResendUnavailable",
            reg("IntReg", dev::RESEND_UNAVAILABLE, "RO"),
        ),
        (
            "LinerateTriggerLatency",
            reg("IntReg", dev::TRIGGER_LATENCY_US, "RO"),
        ),
        ("GevVersionMajor", masked(bs::VERSION, "RO", 15, 0)),
        ("GevVersionMinor", masked(bs::VERSION, "RO", 31, 16)),
        (
            "GevDeviceModeIsBigEndian",
            masked(bs::DEVICE_MODE, "RO", 0, 0),
        ),
        (
            "GevDeviceModeCharacterSet",
            masked(bs::DEVICE_MODE, "RO", 31, 24),
        ),
        (
            "GevCurrentIPConfigurationLLA",
            masked(bs::IP_CONFIG_CURRENT, "RO", 29, 29),
        ),
        (
            "GevCurrentIPConfigurationDHCP",
            masked(bs::IP_CONFIG_CURRENT, "RO", 30, 30),
        ),
        (
            "GevCurrentIPConfigurationPersistentIP",
            masked(bs::IP_CONFIG_CURRENT, "RO", 31, 31),
        ),
        ("GevCurrentIPAddress", reg("IntReg", bs::CURRENT_IP, "RO")),
        (
            "GevCurrentSubnetMask",
            reg("IntReg", bs::CURRENT_SUBNET, "RO"),
        ),
        (
            "GevCurrentDefaultGateway",
            reg("IntReg", bs::CURRENT_GATEWAY, "RO"),
        ),
        (
            "GevNumberOfInterfaces",
            reg("IntReg", bs::NUM_NETWORK_INTERFACES, "RO"),
        ),
        (
            "GevMessageChannelCount",
            reg("IntReg", bs::NUM_MESSAGE_CHANNELS, "RO"),
        ),
        (
            "GevStreamChannelCount",
            reg("IntReg", bs::NUM_STREAM_CHANNELS, "RO"),
        ),
        (
            "GevHeartbeatTimeout",
            reg("IntReg", bs::HEARTBEAT_TIMEOUT, "RW"),
        ),
        (
            "GevTimestampControlLatch",
            reg("IntReg", bs::TIMESTAMP_CONTROL, "WO"),
        ),
        (
            "GevTimestampControlReset",
            reg("IntReg", bs::TIMESTAMP_CONTROL, "WO"),
        ),
        (
            "GevGVCPPendingAck",
            masked(bs::GVCP_CONFIGURATION, "RW", 30, 30),
        ),
        (
            "GevGVCPHeartbeatDisable",
            masked(bs::GVCP_CONFIGURATION, "RW", 31, 31),
        ),
        (
            "GevGVCPExtendedStatusCodes",
            masked(bs::GVCP_CONFIGURATION, "RW", 13, 13),
        ),
        (
            "GevActiveLinkCount",
            reg("IntReg", bs::NUM_ACTIVE_LINKS, "RO"),
        ),
        (
            "GevGVCPPendingTimeout",
            reg("IntReg", bs::PENDING_TIMEOUT, "RO"),
        ),
        (
            "GevGVSPExtendedIDMode",
            masked(bs::GVSP_CONFIGURATION, "RW", 1, 1),
        ),
        (
            "GevCCP",
            masked(bs::CONTROL_CHANNEL_PRIVILEGE, "RW", 31, 30),
        ),
        ("GevSCPInterfaceIndex", masked(sc0(bs::SCP), "RO", 15, 12)),
        ("GevSCPHostPort", masked(sc0(bs::SCP), "RW", 31, 16)),
        ("GevSCPSFireTestPacket", masked(sc0(bs::SCPS), "RW", 0, 0)),
        ("GevSCPSDoNotFragment", masked(sc0(bs::SCPS), "RW", 1, 1)),
        ("GevSCPSPacketSize", masked(sc0(bs::SCPS), "RW", 31, 16)),
        ("GevSCPD", reg("IntReg", sc0(bs::SCPD), "RW")),
        ("GevSCDA", reg("IntReg", sc0(bs::SCDA), "RW")),
        ("GevSCSP", masked(sc0(bs::SCSP), "RO", 31, 16)),
    ]
}

/// Features computed from two 32-bit registers (high word, low word).
const SPLIT_64: &[(&str, u32, u32)] = &[
    (
        "GevTimestampTickFrequency",
        bs::TIMESTAMP_TICK_FREQUENCY_HIGH,
        bs::TIMESTAMP_TICK_FREQUENCY_LOW,
    ),
    (
        "GevTimestampValue",
        bs::TIMESTAMP_VALUE_HIGH,
        bs::TIMESTAMP_VALUE_LOW,
    ),
    ("GevMACAddress", bs::MAC_HIGH, bs::MAC_LOW),
];

/// Every address `registers.rs` names that the XML may map.
fn known_addresses() -> BTreeSet<u32> {
    [
        bs::VERSION,
        bs::DEVICE_MODE,
        bs::MAC_HIGH,
        bs::MAC_LOW,
        bs::IP_CONFIG_OPTIONS,
        bs::IP_CONFIG_CURRENT,
        bs::CURRENT_IP,
        bs::CURRENT_SUBNET,
        bs::CURRENT_GATEWAY,
        bs::MANUFACTURER_NAME,
        bs::MODEL_NAME,
        bs::DEVICE_VERSION,
        bs::MANUFACTURER_INFO,
        bs::SERIAL_NUMBER,
        bs::USER_DEFINED_NAME,
        bs::FIRST_URL,
        bs::SECOND_URL,
        bs::NUM_NETWORK_INTERFACES,
        bs::NUM_MESSAGE_CHANNELS,
        bs::NUM_STREAM_CHANNELS,
        bs::GVCP_CAPABILITY,
        bs::HEARTBEAT_TIMEOUT,
        bs::TIMESTAMP_TICK_FREQUENCY_HIGH,
        bs::TIMESTAMP_TICK_FREQUENCY_LOW,
        bs::TIMESTAMP_CONTROL,
        bs::TIMESTAMP_VALUE_HIGH,
        bs::TIMESTAMP_VALUE_LOW,
        bs::GVCP_CONFIGURATION,
        bs::PENDING_TIMEOUT,
        bs::GVSP_CAPABILITY,
        bs::GVSP_CONFIGURATION,
        bs::NUM_ACTIVE_LINKS,
        bs::CONTROL_CHANNEL_PRIVILEGE,
        sc0(bs::SCP),
        sc0(bs::SCPS),
        sc0(bs::SCPD),
        sc0(bs::SCDA),
        sc0(bs::SCSP),
        sc0(bs::SCC),
        sc0(bs::SCCFG),
        dev::WIDTH,
        dev::HEIGHT,
        dev::OFFSET_X,
        dev::OFFSET_Y,
        dev::PIXEL_FORMAT,
        dev::PAYLOAD_SIZE,
        dev::ACQUISITION_MODE,
        dev::ACQUISITION_START,
        dev::ACQUISITION_STOP,
        dev::ACQUISITION_STATUS,
        dev::ACQUISITION_FRAME_RATE,
        dev::ACQUISITION_FRAME_COUNT,
        dev::TRIGGER_MODE,
        dev::TRIGGER_SOURCE,
        dev::TRIGGER_SOFTWARE,
        dev::EXPOSURE_TIME,
        dev::GAIN,
        dev::TEST_PATTERN,
        dev::TRANSPORT_SELECTOR,
        dev::LINERATE_TRANSFER_SIZE,
        dev::WIDTH_MAX,
        dev::HEIGHT_MAX,
        dev::FRAMES_SENT,
        dev::FRAMES_SKIPPED,
        dev::PACKETS_RESENT,
        dev::RESEND_UNAVAILABLE,
        dev::TRIGGER_LATENCY_US,
    ]
    .into_iter()
    .collect()
}

/// Names of the features reachable from Root through categories.
fn reachable_features(l: &Loaded) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![l.id("Root")];
    while let Some(id) = todo.pop() {
        let name = l.store.name_by_id(id).expect("named").to_string();
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(NodeData::Category(c)) = l.store.node_opt(id) {
            todo.extend(c.p_features().iter().copied());
        } else {
            assert!(
                l.store.node_opt(id).is_some(),
                "category lists {name}, which is not defined"
            );
        }
    }
    seen
}

// ---------------------------------------------------------------------------
// structure

#[test]
fn header_declares_a_gev_schema_1_1_description() {
    assert!(XML.contains(r#"xmlns="http://www.genicam.org/GenApi/Version_1_1""#));
    let (desc, _) = load();
    assert_eq!(desc.schema_major_version(), 1);
    assert_eq!(desc.schema_minor_version(), 1);
    assert_eq!(desc.standard_name_space(), StandardNameSpace::GEV);
    assert_eq!(desc.vendor_name(), "linerate");
    assert_eq!(desc.model_name(), "LinerateEmulatedCamera");
}

#[test]
fn fits_the_memory_the_register_map_reserves() {
    assert!(
        XML.len() <= dev::XML_MAX_LEN as usize,
        "{} bytes",
        XML.len()
    );
    assert!(
        XML.is_ascii(),
        "keep the XML ASCII: hosts differ on encodings"
    );
}

#[test]
fn every_feature_exists_with_its_interface_type() {
    let (_, l) = load();
    for &(name, kind) in FEATURES {
        assert_eq!(kind_of(l.node(name)), kind, "node type of {name}");
    }
}

#[test]
fn every_feature_is_reachable_from_root_and_documented() {
    let (_, l) = load();
    let reachable = reachable_features(&l);
    for &(name, _) in FEATURES {
        assert!(reachable.contains(name), "{name} is in no category");
    }
    for name in &reachable {
        let base = l.node(name).node_base();
        let tooltip = base.tooltip().unwrap_or_default();
        let description = base.description().unwrap_or_default();
        assert!(!tooltip.trim().is_empty(), "{name} has no ToolTip");
        assert!(!description.trim().is_empty(), "{name} has no Description");
    }
    // The categories hold nothing undocumented beyond the list above.
    let listed: BTreeSet<&str> = FEATURES.iter().map(|&(n, _)| n).collect();
    let extra: Vec<&String> = reachable
        .iter()
        .filter(|n| !listed.contains(n.as_str()))
        .collect();
    assert!(
        extra.is_empty(),
        "features not covered by this test: {extra:?}"
    );
}

#[test]
fn every_feature_maps_onto_its_register() {
    let (_, l) = load();
    for (feature, expected) in feature_registers() {
        let target = match l.node(feature) {
            NodeData::StringReg(_) => feature.to_string(),
            _ => l.p_value(feature),
        };
        let got = describe_register(l.node(&target))
            .unwrap_or_else(|| panic!("{feature} -> {target} is not a register"));
        assert_eq!(got, expected, "register of {feature} ({target})");
    }
    for &(feature, high, low) in SPLIT_64 {
        let calc = l.p_value(feature);
        let NodeData::IntSwissKnife(knife) = l.node(&calc) else {
            panic!("{feature} is not computed by an IntSwissKnife");
        };
        let vars: BTreeMap<&str, u32> = knife
            .p_variables()
            .iter()
            .map(|v| {
                let name = l.store.name_by_id(v.value()).expect("named");
                let r = describe_register(l.node(name)).expect("a register");
                assert!(r.big_endian && r.length == 4 && r.access == "RO");
                (v.name(), r.address)
            })
            .collect();
        assert_eq!(vars.get("HIGH"), Some(&high), "{feature} high word");
        assert_eq!(vars.get("LOW"), Some(&low), "{feature} low word");
    }
}

#[test]
fn every_register_node_is_in_the_register_map() {
    let (_, l) = load();
    let known = known_addresses();
    let mut count = 0;
    let mut problems = Vec::new();
    l.store.visit_nodes(|node| {
        let Some(r) = describe_register(node) else {
            return;
        };
        count += 1;
        let name = l.store.name_by_id(node.node_base().id()).unwrap_or("?");
        if !known.contains(&r.address) {
            problems.push(format!("{name} at {:#x} is not in registers.rs", r.address));
        }
        if !r.big_endian {
            problems.push(format!("{name} is not big-endian"));
        }
        if r.kind != "StringReg" && r.length != 4 {
            problems.push(format!("{name} is {} bytes, not 4", r.length));
        }
        let port = match node {
            NodeData::IntReg(n) => n.register_base().p_port(),
            NodeData::MaskedIntReg(n) => n.register_base().p_port(),
            NodeData::FloatReg(n) => n.register_base().p_port(),
            NodeData::StringReg(n) => n.register_base().p_port(),
            _ => unreachable!(),
        };
        if l.store.name_by_id(port) != Some("Device") {
            problems.push(format!("{name} is not on the Device port"));
        }
    });
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(count > 60, "only {count} register nodes found");
    assert!(matches!(l.node("Device"), NodeData::Port(_)));
}

#[test]
fn commands_write_their_command_values() {
    let (_, l) = load();
    for (name, value) in [
        ("AcquisitionStart", 1),
        ("AcquisitionStop", 1),
        ("TriggerSoftware", 1),
        ("GevTimestampControlLatch", 2),
        ("GevTimestampControlReset", 1),
    ] {
        let NodeData::Command(c) = l.node(name) else {
            panic!("{name} is not a Command");
        };
        let ImmOrPNode::Imm(id) = c.command_value_elem() else {
            panic!("{name} has no immediate CommandValue");
        };
        assert_eq!(l.cx.value_store().integer_value(id), Some(value), "{name}");
    }
}

#[test]
fn enumerations_have_the_documented_entries() {
    let (_, l) = load();
    let expect: &[(&str, &[(&str, i64)])] = &[
        (
            "PixelFormat",
            &[
                ("Mono8", 0x0108_0001),
                ("Mono10", 0x0110_0003),
                ("Mono12", 0x0110_0005),
                ("Mono16", 0x0110_0007),
                ("BayerGR8", 0x0108_0008),
                ("BayerRG8", 0x0108_0009),
                ("RGB8", 0x0218_0014),
            ],
        ),
        (
            "AcquisitionMode",
            &[("Continuous", 0), ("SingleFrame", 1), ("MultiFrame", 2)],
        ),
        ("TriggerSelector", &[("FrameStart", 0)]),
        ("TriggerMode", &[("Off", 0), ("On", 1)]),
        ("TriggerSource", &[("Software", 0)]),
        (
            "TestPattern",
            &[("LinerateStamp", 0), ("MovingGradient", 1)],
        ),
        ("LinerateTransport", &[("GvspUdp", 0), ("GvspTcp", 1)]),
        ("GevGVSPExtendedIDMode", &[("Off", 0), ("On", 1)]),
        (
            "GevCCP",
            &[
                ("OpenAccess", 0),
                ("ExclusiveAccess", 1),
                ("ControlAccess", 2),
            ],
        ),
    ];
    for &(name, entries) in expect {
        let NodeData::Enumeration(e) = l.node(name) else {
            panic!("{name} is not an Enumeration");
        };
        let got: Vec<(String, i64)> = e
            .entries(&l.store)
            .iter()
            .map(|&id| {
                let entry = id.expect_enum_entry(&l.store).expect("an entry");
                (entry.symbolic().to_string(), entry.value())
            })
            .collect();
        let want: Vec<(String, i64)> = entries.iter().map(|&(s, v)| (s.into(), v)).collect();
        assert_eq!(got, want, "entries of {name}");
    }
}

// ---------------------------------------------------------------------------
// values through a register map

/// Registers as a freshly started camera might hold them.
fn camera_registers() -> Registers {
    let mut r = Registers::default();
    r.set(bs::VERSION, 0x0002_0000);
    r.set(bs::DEVICE_MODE, 0x8000_0001);
    r.set(bs::MAC_HIGH, 0x0000_02ab);
    r.set(bs::MAC_LOW, 0xcdef_0042);
    r.set(bs::IP_CONFIG_OPTIONS, 0x4);
    r.set(bs::IP_CONFIG_CURRENT, 0x4);
    r.set(bs::CURRENT_IP, 0xa9fe_0a01); // 169.254.10.1
    r.set(bs::CURRENT_SUBNET, 0xffff_0000);
    r.set_string(bs::MANUFACTURER_NAME, "linerate");
    r.set_string(bs::SERIAL_NUMBER, "LR0001");
    r.set_string(bs::FIRST_URL, "Local:linerate-camera.xml;20000;4a3c");
    r.set(bs::NUM_NETWORK_INTERFACES, 1);
    r.set(bs::NUM_STREAM_CHANNELS, 1);
    {
        use bs::gvcp_capability as c;
        r.set(
            bs::GVCP_CAPABILITY,
            c::USER_DEFINED_NAME
                | c::SERIAL_NUMBER
                | c::HEARTBEAT_DISABLE
                | c::EXTENDED_STATUS_CODES_V2
                | c::PENDING_ACK
                | c::PACKET_RESEND
                | c::WRITEMEM
                | c::CONCATENATION,
        );
    }
    r.set(bs::GVSP_CAPABILITY, 0x8000_0000); // SCSP present
    r.set(bs::NUM_ACTIVE_LINKS, 1);
    r.set(bs::HEARTBEAT_TIMEOUT, 3000);
    // 5 GHz: needs the high word, so a wrong combination shows.
    r.set(bs::TIMESTAMP_TICK_FREQUENCY_HIGH, 0x1);
    r.set(bs::TIMESTAMP_TICK_FREQUENCY_LOW, 0x2a05_f200);
    r.set(sc0(bs::SCPS), 1500);
    r.set(sc0(bs::SCSP), 0xc350); // 50000
    r.set(dev::WIDTH, 640);
    r.set(dev::HEIGHT, 480);
    r.set(dev::WIDTH_MAX, 4096);
    r.set(dev::HEIGHT_MAX, 3072);
    r.set(dev::PIXEL_FORMAT, 0x0108_0001);
    r.set(dev::PAYLOAD_SIZE, 640 * 480);
    r.set(dev::ACQUISITION_FRAME_RATE, 30.0f32.to_bits());
    r.set(dev::EXPOSURE_TIME, 1000.0f32.to_bits());
    r.set(dev::TRANSPORT_SELECTOR, 1);
    r.set(dev::LINERATE_TRANSFER_SIZE, 1 << 20);
    r.set(dev::FRAMES_SENT, 12345);
    r.set(dev::TRIGGER_LATENCY_US, 87);
    r
}

#[test]
fn reads_come_from_the_right_registers() {
    let (_, mut l) = load();
    let mut r = camera_registers();

    assert_eq!(l.int("Width", &mut r), 640);
    assert_eq!(l.int("Height", &mut r), 480);
    assert_eq!(l.int("PayloadSize", &mut r), 640 * 480);
    assert_eq!(l.symbolic("PixelFormat", &mut r), "Mono8");
    assert_eq!(l.symbolic("LinerateTransport", &mut r), "GvspTcp");
    assert_eq!(l.int("LinerateTransferSize", &mut r), 1 << 20);
    assert_eq!(l.float("AcquisitionFrameRate", &mut r), 30.0);
    assert_eq!(l.float("ExposureTime", &mut r), 1000.0);
    assert_eq!(l.int("GevTimestampTickFrequency", &mut r), 5_000_000_000);
    assert_eq!(l.int("GevMACAddress", &mut r), 0x02ab_cdef_0042);
    assert_eq!(l.int("GevVersionMajor", &mut r), 2);
    assert_eq!(l.int("GevVersionMinor", &mut r), 0);
    assert_eq!(l.int("GevActiveLinkCount", &mut r), 1);
    assert!(l.boolean("GevDeviceModeIsBigEndian", &mut r));
    assert_eq!(l.int("GevDeviceModeCharacterSet", &mut r), 1);
    assert!(l.boolean("GevCurrentIPConfigurationLLA", &mut r));
    assert!(!l.boolean("GevCurrentIPConfigurationDHCP", &mut r));
    assert_eq!(l.int("GevCurrentIPAddress", &mut r), 0xa9fe_0a01);
    assert_eq!(l.int("GevSCPSPacketSize", &mut r), 1500);
    assert!(!l.boolean("GevSCPSDoNotFragment", &mut r));
    assert_eq!(l.int("GevSCSP", &mut r), 50000);
    assert_eq!(l.int("LinerateFramesSent", &mut r), 12345);
    assert_eq!(l.int("LinerateTriggerLatency", &mut r), 87);
    assert_eq!(l.string("DeviceVendorName", &mut r), "linerate");
    assert_eq!(l.string("DeviceSerialNumber", &mut r), "LR0001");
    assert_eq!(
        l.string("GevFirstURL", &mut r),
        "Local:linerate-camera.xml;20000;4a3c"
    );
    assert!(r.writes.is_empty(), "reading wrote: {:?}", r.writes);
}

#[test]
fn limits_follow_the_max_registers() {
    let (_, mut l) = load();
    let mut r = camera_registers();
    let width = l.id("Width").expect_iinteger_kind(&l.store).expect("int");
    assert_eq!(width.max(&mut r, &l.store, &mut l.cx).expect("max"), 4096);
    assert_eq!(width.min(&mut r, &l.store, &mut l.cx).expect("min"), 16);
    assert_eq!(
        width.inc(&mut r, &l.store, &mut l.cx).expect("inc"),
        Some(4)
    );
    let height = l.id("Height").expect_iinteger_kind(&l.store).expect("int");
    assert_eq!(height.max(&mut r, &l.store, &mut l.cx).expect("max"), 3072);
    let offset_x = l.id("OffsetX").expect_iinteger_kind(&l.store).expect("int");
    assert_eq!(
        offset_x.max(&mut r, &l.store, &mut l.cx).expect("max"),
        4096 - 640
    );
    let rate = l
        .id("AcquisitionFrameRate")
        .expect_ifloat_kind(&l.store)
        .expect("float");
    assert!(rate.max(&mut r, &l.store, &mut l.cx).expect("max") >= 1000.0);
    let transfer = l
        .id("LinerateTransferSize")
        .expect_iinteger_kind(&l.store)
        .expect("int");
    assert_eq!(
        transfer.max(&mut r, &l.store, &mut l.cx).expect("max"),
        i64::from(linerate_gev::device::TRANSFER_SIZE_MAX),
        "the XML's Max must be the device's limit"
    );
    assert_eq!(transfer.min(&mut r, &l.store, &mut l.cx).expect("min"), 0);
    assert!(rate.min(&mut r, &l.store, &mut l.cx).expect("min") > 0.0);
}

#[test]
fn writes_land_in_the_right_registers() {
    let (_, mut l) = load();
    let mut r = camera_registers();

    l.set_int("Width", 1024, &mut r);
    assert_eq!(r.get(dev::WIDTH), 1024);
    l.set_symbolic("PixelFormat", "RGB8", &mut r);
    assert_eq!(r.get(dev::PIXEL_FORMAT), 0x0218_0014);
    l.set_symbolic("LinerateTransport", "GvspUdp", &mut r);
    assert_eq!(r.get(dev::TRANSPORT_SELECTOR), 0);
    l.set_int("LinerateTransferSize", 65_536, &mut r);
    assert_eq!(r.get(dev::LINERATE_TRANSFER_SIZE), 65_536);
    l.set_symbolic("TestPattern", "MovingGradient", &mut r);
    assert_eq!(r.get(dev::TEST_PATTERN), 1);

    // The packet size is the low half of SCPS: the flag bits survive, also
    // when another field of the register was just written through the XML
    // (fields sharing a register must not read-modify-write a stale copy).
    r.set(sc0(bs::SCPS), 1500);
    l.set_int("GevSCPSPacketSize", 1400, &mut r);
    let id = l.id("GevSCPSDoNotFragment");
    let dnf = id.expect_iboolean_kind(&l.store).expect("a boolean");
    dnf.set_value(true, &mut r, &l.store, &mut l.cx)
        .expect("set GevSCPSDoNotFragment");
    assert_eq!(r.get(sc0(bs::SCPS)), 0x4000_0000 | 1400);
    l.set_int("GevSCPSPacketSize", 8192, &mut r);
    assert_eq!(r.get(sc0(bs::SCPS)), 0x4000_0000 | 8192);
    l.set_int("GevSCPHostPort", 0xabcd, &mut r);
    assert_eq!(r.get(sc0(bs::SCP)) & 0xffff, 0xabcd);
    l.set_int("GevSCPD", 1000, &mut r);
    assert_eq!(r.get(sc0(bs::SCPD)), 1000);
    l.set_int("GevSCDA", 0xa9fe_0a02, &mut r);
    assert_eq!(r.get(sc0(bs::SCDA)), 0xa9fe_0a02);

    r.writes.clear();
    for (command, address, value) in [
        ("AcquisitionStart", dev::ACQUISITION_START, 1u32),
        ("AcquisitionStop", dev::ACQUISITION_STOP, 1),
        ("TriggerSoftware", dev::TRIGGER_SOFTWARE, 1),
        ("GevTimestampControlLatch", bs::TIMESTAMP_CONTROL, 2),
    ] {
        l.execute(command, &mut r);
        assert_eq!(
            r.writes.pop(),
            Some((i64::from(address), value.to_be_bytes().to_vec())),
            "{command}"
        );
    }
}

#[test]
fn bit_features_agree_with_the_register_constants() {
    let (_, mut l) = load();
    let mut r = camera_registers();

    // GVCP configuration bits, as registers.rs defines them. These fields
    // share a register and are not cached, so no reload is needed.
    {
        use bs::gvcp_configuration as g;
        r.set(bs::GVCP_CONFIGURATION, g::PENDING_ACK_ENABLE);
        assert!(l.boolean("GevGVCPPendingAck", &mut r));
        assert!(!l.boolean("GevGVCPHeartbeatDisable", &mut r));
        assert!(!l.boolean("GevGVCPExtendedStatusCodes", &mut r));
        r.set(
            bs::GVCP_CONFIGURATION,
            g::HEARTBEAT_DISABLE | g::EXTENDED_STATUS_CODES_V2,
        );
        assert!(!l.boolean("GevGVCPPendingAck", &mut r));
        assert!(l.boolean("GevGVCPHeartbeatDisable", &mut r));
        assert!(l.boolean("GevGVCPExtendedStatusCodes", &mut r));
        let id = l.id("GevGVCPPendingAck");
        let pending = id.expect_iboolean_kind(&l.store).expect("a boolean");
        pending
            .set_value(true, &mut r, &l.store, &mut l.cx)
            .expect("set GevGVCPPendingAck");
        assert_eq!(
            r.get(bs::GVCP_CONFIGURATION),
            g::HEARTBEAT_DISABLE | g::EXTENDED_STATUS_CODES_V2 | g::PENDING_ACK_ENABLE
        );
    }

    // Extended IDs live in the GVSP configuration register.
    {
        use bs::gvsp_configuration as g;
        assert_eq!(l.symbolic("GevGVSPExtendedIDMode", &mut r), "Off");
        l.set_symbolic("GevGVSPExtendedIDMode", "On", &mut r);
        assert_eq!(r.get(bs::GVSP_CONFIGURATION), g::EXTENDED_IDS);
        r.set(bs::GVSP_CONFIGURATION, g::EXTENDED_IDS);
        let (_, mut fresh) = load();
        assert_eq!(fresh.symbolic("GevGVSPExtendedIDMode", &mut r), "On");
    }

    // Control channel privilege (not cached: another host may change it).
    r.set(bs::CONTROL_CHANNEL_PRIVILEGE, bs::ccp::EXCLUSIVE_ACCESS);
    assert_eq!(l.symbolic("GevCCP", &mut r), "ExclusiveAccess");
    r.set(bs::CONTROL_CHANNEL_PRIVILEGE, bs::ccp::CONTROL_ACCESS);
    assert_eq!(l.symbolic("GevCCP", &mut r), "ControlAccess");

    // Capabilities through the option selector.
    for (option, supported) in [
        ("UserDefinedName", true),
        ("SerialNumber", true),
        ("HeartbeatDisable", true),
        ("LinkSpeed", false),
        ("ExtendedStatusCodesVersion2_0", true),
        ("Action", false),
        ("PendingAck", true),
        ("Event", false),
        ("PacketResend", true),
        ("WriteMem", true),
        ("CommandsConcatenation", true),
        ("IPConfigurationLLA", true),
        ("IPConfigurationDHCP", false),
        ("IPConfigurationPersistentIP", false),
        ("StreamChannelSourceSocket", true),
    ] {
        l.set_symbolic("GevSupportedOptionSelector", option, &mut r);
        assert_eq!(
            l.boolean("GevSupportedOption", &mut r),
            supported,
            "{option}"
        );
    }

    // SCPS flags.
    r.set(sc0(bs::SCPS), 0x4000_0000 | 1500);
    let (_, mut l) = load();
    assert!(l.boolean("GevSCPSDoNotFragment", &mut r));
    assert!(!l.boolean("GevSCPSFireTestPacket", &mut r));
    assert_eq!(l.int("GevSCPSPacketSize", &mut r), 1500);
}
