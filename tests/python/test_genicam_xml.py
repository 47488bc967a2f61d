"""linerate's GenICam XML, loaded with the EMVA GenApi reference implementation.

The `genicam` package on PyPI is the GenICam committee's own binding of the
reference GenApi. Loading checks the file's structure as strictly as the
standard does (wrong element order, unknown elements and dangling node
references are errors). The tests then check that every feature exists with
the expected interface, that the key ones sit at the addresses
crates/gev/src/device/registers.rs names (parsed from that file, so the two
cannot drift apart), and, through a port object backed by a dict of
registers, that reads and writes move the bytes the camera expects.

The same file is checked with cameleon-genapi (crates/gev/tests/genicam_xml.rs)
and Aravis (scripts/check-genicam-aravis); see docs/genicam.md.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from genicam import genapi

ROOT = Path(__file__).resolve().parents[2]
XML_PATH = ROOT / "crates/gev/src/device/linerate-camera.xml"
REGISTERS_RS = ROOT / "crates/gev/src/device/registers.rs"


# ---------------------------------------------------------------------------
# registers.rs, parsed


def parse_registers(path: Path = REGISTERS_RS) -> dict[str, int]:
    """Constants of registers.rs as {"bootstrap::VERSION": 0, ...}, with
    nested modules joined by "::"."""
    modules: list[str] = []
    consts: dict[str, int] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if m := re.match(r"pub mod (\w+) \{", line):
            modules.append(m.group(1))
        elif m := re.match(r"pub const (\w+): u32 = (0x[0-9a-fA-F_]+|\d+);", line):
            consts["::".join([*modules, m.group(1)])] = int(m.group(2).replace("_", ""), 0)
        elif line == "}" and modules:
            modules.pop()
    return consts


REGS = parse_registers()
BS = {k.removeprefix("bootstrap::"): v for k, v in REGS.items() if k.startswith("bootstrap::")}
DEV = {k.removeprefix("device::"): v for k, v in REGS.items() if k.startswith("device::")}


def sc0(name: str) -> int:
    """Address of a stream channel 0 register."""
    return BS["STREAM_CHANNEL_BASE"] + BS[name]


def test_registers_rs_was_parsed():
    assert BS["VERSION"] == 0x0000
    assert BS["STREAM_CHANNEL_BASE"] == 0x0D00
    assert DEV["WIDTH"] == 0x0001_0000
    assert BS["gvcp_capability::PENDING_ACK"] == 0x20
    assert len(DEV) >= 27


# ---------------------------------------------------------------------------
# a register map standing in for the camera


class DictPort(genapi.AbstractPort):
    """Big-endian 32-bit registers in a dict, with a log of every access."""

    def __init__(self, words: dict[int, int]):
        super().__init__()
        self.words = dict(words)
        self.log: list[tuple[str, int, bytes | int]] = []

    def get_access_mode(self):
        return genapi.EAccessMode.RW

    def read(self, address, length):
        assert address % 4 == 0 and length % 4 == 0, (address, length)
        self.log.append(("r", address, length))
        return b"".join(
            struct.pack(">I", self.words.get(a, 0)) for a in range(address, address + length, 4)
        )

    def write(self, address, value):
        data = bytes(value)
        assert address % 4 == 0 and len(data) % 4 == 0, (address, data)
        self.log.append(("w", address, data))
        for i in range(0, len(data), 4):
            self.words[address + i] = struct.unpack(">I", data[i : i + 4])[0]

    def set_string(self, address: int, text: str):
        raw = text.encode().ljust((len(text) + 4) // 4 * 4, b"\0")
        for i in range(0, len(raw), 4):
            self.words[address + i] = struct.unpack(">I", raw[i : i + 4])[0]


def camera_words() -> dict[int, int]:
    """Registers as a freshly started camera might hold them."""
    cap = BS["gvcp_capability::USER_DEFINED_NAME"] | BS["gvcp_capability::SERIAL_NUMBER"]
    cap |= BS["gvcp_capability::PENDING_ACK"] | BS["gvcp_capability::PACKET_RESEND"]
    return {
        BS["VERSION"]: 0x0002_0000,
        BS["DEVICE_MODE"]: 0x8000_0001,
        BS["MAC_HIGH"]: 0x0000_02AB,
        BS["MAC_LOW"]: 0xCDEF_0042,
        BS["IP_CONFIG_OPTIONS"]: 0x4,
        BS["IP_CONFIG_CURRENT"]: 0x4,
        BS["CURRENT_IP"]: 0xA9FE_0A01,
        BS["GVCP_CAPABILITY"]: cap,
        # 5 GHz: needs the high word, so a wrong combination shows.
        BS["TIMESTAMP_TICK_FREQUENCY_HIGH"]: 0x1,
        BS["TIMESTAMP_TICK_FREQUENCY_LOW"]: 0x2A05_F200,
        BS["CONTROL_CHANNEL_PRIVILEGE"]: BS["ccp::CONTROL_ACCESS"],
        BS["GVSP_CAPABILITY"]: 0x8000_0000,  # SCSP present
        BS["NUM_ACTIVE_LINKS"]: 1,
        sc0("SCPS"): 0x4000_0000 | 1500,
        DEV["WIDTH"]: 640,
        DEV["HEIGHT"]: 480,
        DEV["WIDTH_MAX"]: 4096,
        DEV["HEIGHT_MAX"]: 3072,
        DEV["PIXEL_FORMAT"]: 0x0108_0009,
        DEV["PAYLOAD_SIZE"]: 640 * 480,
        DEV["ACQUISITION_FRAME_RATE"]: struct.unpack(">I", struct.pack(">f", 59.94))[0],
        DEV["TRANSPORT_SELECTOR"]: 1,
        DEV["FRAMES_SENT"]: 12345,
    }


# ---------------------------------------------------------------------------
# fixtures


@pytest.fixture()
def nodemap():
    nm = genapi.NodeMap()
    nm.load_xml_from_file(str(XML_PATH))
    return nm


@pytest.fixture()
def connected(nodemap):
    port = DictPort(camera_words())
    port.set_string(BS["MANUFACTURER_NAME"], "linerate")
    port.set_string(BS["FIRST_URL"], "Local:linerate-camera.xml;20000;4a3c")
    nodemap.connect(port, "Device")
    return nodemap, port


# ---------------------------------------------------------------------------
# the feature list

I = genapi.EInterfaceType
FEATURES = {
    # categories
    "Root": I.intfICategory,
    "DeviceControl": I.intfICategory,
    "ImageFormatControl": I.intfICategory,
    "AcquisitionControl": I.intfICategory,
    "AnalogControl": I.intfICategory,
    "TransportLayerControl": I.intfICategory,
    "TestControl": I.intfICategory,
    "LinerateStatistics": I.intfICategory,
    # DeviceControl
    "DeviceVendorName": I.intfIString,
    "DeviceModelName": I.intfIString,
    "DeviceVersion": I.intfIString,
    "DeviceManufacturerInfo": I.intfIString,
    "DeviceSerialNumber": I.intfIString,
    "DeviceUserID": I.intfIString,
    # ImageFormatControl
    "Width": I.intfIInteger,
    "Height": I.intfIInteger,
    "OffsetX": I.intfIInteger,
    "OffsetY": I.intfIInteger,
    "WidthMax": I.intfIInteger,
    "HeightMax": I.intfIInteger,
    "PixelFormat": I.intfIEnumeration,
    # AcquisitionControl, AnalogControl, TestControl
    "AcquisitionMode": I.intfIEnumeration,
    "AcquisitionStart": I.intfICommand,
    "AcquisitionStop": I.intfICommand,
    "AcquisitionStatus": I.intfIBoolean,
    "AcquisitionFrameCount": I.intfIInteger,
    "AcquisitionFrameRate": I.intfIFloat,
    "TriggerSelector": I.intfIEnumeration,
    "TriggerMode": I.intfIEnumeration,
    "TriggerSource": I.intfIEnumeration,
    "TriggerSoftware": I.intfICommand,
    "ExposureTime": I.intfIFloat,
    "Gain": I.intfIFloat,
    "TestPattern": I.intfIEnumeration,
    # TransportLayerControl
    "PayloadSize": I.intfIInteger,
    "LinerateTransport": I.intfIEnumeration,
    "LinerateTransferSize": I.intfIInteger,
    "TLParamsLocked": I.intfIInteger,
    "GevVersionMajor": I.intfIInteger,
    "GevVersionMinor": I.intfIInteger,
    "GevDeviceModeIsBigEndian": I.intfIBoolean,
    "GevDeviceModeCharacterSet": I.intfIInteger,
    "GevSupportedOptionSelector": I.intfIEnumeration,
    "GevSupportedOption": I.intfIBoolean,
    "GevInterfaceSelector": I.intfIInteger,
    "GevMACAddress": I.intfIInteger,
    "GevCurrentIPConfigurationLLA": I.intfIBoolean,
    "GevCurrentIPConfigurationDHCP": I.intfIBoolean,
    "GevCurrentIPConfigurationPersistentIP": I.intfIBoolean,
    "GevCurrentIPAddress": I.intfIInteger,
    "GevCurrentSubnetMask": I.intfIInteger,
    "GevCurrentDefaultGateway": I.intfIInteger,
    "GevFirstURL": I.intfIString,
    "GevSecondURL": I.intfIString,
    "GevNumberOfInterfaces": I.intfIInteger,
    "GevMessageChannelCount": I.intfIInteger,
    "GevStreamChannelCount": I.intfIInteger,
    "GevActiveLinkCount": I.intfIInteger,
    "GevHeartbeatTimeout": I.intfIInteger,
    "GevTimestampTickFrequency": I.intfIInteger,
    "GevTimestampControlLatch": I.intfICommand,
    "GevTimestampControlReset": I.intfICommand,
    "GevTimestampValue": I.intfIInteger,
    "GevGVCPExtendedStatusCodesSelector": I.intfIEnumeration,
    "GevGVCPExtendedStatusCodes": I.intfIBoolean,
    "GevGVCPPendingAck": I.intfIBoolean,
    "GevGVCPHeartbeatDisable": I.intfIBoolean,
    "GevGVCPPendingTimeout": I.intfIInteger,
    "GevGVSPExtendedIDMode": I.intfIEnumeration,
    "GevCCP": I.intfIEnumeration,
    "GevStreamChannelSelector": I.intfIInteger,
    "GevSCPInterfaceIndex": I.intfIInteger,
    "GevSCPHostPort": I.intfIInteger,
    "GevSCPSFireTestPacket": I.intfIBoolean,
    "GevSCPSDoNotFragment": I.intfIBoolean,
    "GevSCPSPacketSize": I.intfIInteger,
    "GevSCPD": I.intfIInteger,
    "GevSCDA": I.intfIInteger,
    "GevSCSP": I.intfIInteger,
    # LinerateStatistics
    "LinerateFramesSent": I.intfIInteger,
    "LinerateFramesSkipped": I.intfIInteger,
    "LineratePacketsResent": I.intfIInteger,
    "LinerateResendUnavailable": I.intfIInteger,
    "LinerateTriggerLatency": I.intfIInteger,
}

# Key features: (node type of the feature, node type of the register,
# address, access of the register, (LSB, MSB) for masked registers).
KEY_FEATURES = {
    "Width": ("Integer", "IntReg", DEV["WIDTH"], "RW", None),
    "Height": ("Integer", "IntReg", DEV["HEIGHT"], "RW", None),
    "PixelFormat": ("Enumeration", "IntReg", DEV["PIXEL_FORMAT"], "RW", None),
    "PayloadSize": ("Integer", "IntReg", DEV["PAYLOAD_SIZE"], "RO", None),
    "AcquisitionStart": ("Command", "IntReg", DEV["ACQUISITION_START"], "WO", None),
    "AcquisitionFrameRate": ("Float", "FloatReg", DEV["ACQUISITION_FRAME_RATE"], "RW", None),
    "TriggerSoftware": ("Command", "IntReg", DEV["TRIGGER_SOFTWARE"], "WO", None),
    "LinerateTransport": ("Enumeration", "IntReg", DEV["TRANSPORT_SELECTOR"], "RW", None),
    "LinerateTransferSize": ("Integer", "IntReg", DEV["LINERATE_TRANSFER_SIZE"], "RW", None),
    "GevSCPSPacketSize": ("Integer", "MaskedIntReg", sc0("SCPS"), "RW", (31, 16)),
    "GevSCPD": ("Integer", "IntReg", sc0("SCPD"), "RW", None),
}


def prop(node, name: str) -> str:
    value, _attribute = node.node.get_property(name)
    return value


def reachable(nodemap) -> dict[str, object]:
    """Every node reachable from Root through categories, by name."""
    seen: dict[str, object] = {}
    todo = [nodemap.get_node("Root")]
    while todo:
        node = todo.pop()
        name = node.node.name
        if name in seen:
            continue
        seen[name] = node
        if node.node.principal_interface_type == I.intfICategory:
            todo.extend(node.features)
    return seen


# ---------------------------------------------------------------------------
# structure


def test_loads_without_errors(nodemap):
    # load_xml_from_file raises on any structural error; the swiss knives'
    # formulas are parsed on demand, so parse them all now.
    result = nodemap.parse_swiss_knives()
    assert result.is_valid, list(result.messages)
    assert not result.messages
    assert nodemap.device_info.vendor_name == "linerate"
    assert nodemap.device_info.model_name == "LinerateEmulatedCamera"


def test_loads_from_string_too():
    nm = genapi.NodeMap()
    nm.load_xml_from_string(XML_PATH.read_text())
    assert nm.has_node("Width")


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_feature_exists_with_interface(nodemap, name):
    node = nodemap.get_node(name)
    assert node.node.principal_interface_type == FEATURES[name]
    assert node.node.is_feature()


def test_every_feature_is_in_a_category_and_documented(nodemap):
    nodes = reachable(nodemap)
    assert set(FEATURES) <= set(nodes), set(FEATURES) - set(nodes)
    assert set(nodes) <= set(FEATURES), f"features not covered here: {set(nodes) - set(FEATURES)}"
    for name, node in nodes.items():
        assert node.node.tooltip.strip(), f"{name} has no ToolTip"
        assert node.node.description.strip(), f"{name} has no Description"


@pytest.mark.parametrize("name", sorted(KEY_FEATURES))
def test_key_feature_register(nodemap, name):
    kind, reg_kind, address, access, bits = KEY_FEATURES[name]
    feature = nodemap.get_node(name)
    assert prop(feature, "NodeType") == kind
    reg = nodemap.get_node(prop(feature, "pValue"))
    assert prop(reg, "NodeType") == reg_kind
    assert int(prop(reg, "Address")) == address
    assert int(prop(reg, "Length")) == 4
    assert prop(reg, "AccessMode") == access
    assert prop(reg, "pPort") == "Device"
    assert prop(reg, "Endianess") == "BigEndian"
    if bits is not None:
        assert (int(prop(reg, "LSB")), int(prop(reg, "MSB"))) == bits
    if kind == "Command":
        assert int(prop(feature, "CommandValue")) == 1


def test_tick_frequency_combines_its_two_registers(nodemap):
    feature = nodemap.get_node("GevTimestampTickFrequency")
    knife = nodemap.get_node(prop(feature, "pValue"))
    assert prop(knife, "NodeType") == "IntSwissKnife"
    nodes, names = knife.node.get_property("pVariable")
    variables = {
        var: int(prop(nodemap.get_node(node), "Address"))
        for var, node in zip(names.split("\t"), nodes.split("\t"))
    }
    assert variables == {
        "HIGH": BS["TIMESTAMP_TICK_FREQUENCY_HIGH"],
        "LOW": BS["TIMESTAMP_TICK_FREQUENCY_LOW"],
    }
    assert prop(knife, "Formula").replace(" ", "") == "(HIGH<<32)|LOW"


SC_OFFSETS = ["SCP", "SCPS", "SCPD", "SCDA", "SCSP", "SCC", "SCCFG"]


def known_addresses() -> set[int]:
    """Every register address registers.rs names (not bit values, offsets or
    the XML area)."""
    bootstrap = {
        v
        for k, v in BS.items()
        if "::" not in k and k not in SC_OFFSETS and k != "STREAM_CHANNEL_STRIDE"
    }
    channel0 = {sc0(name) for name in SC_OFFSETS}
    device = {v for k, v in DEV.items() if not k.startswith("XML_")}
    return bootstrap | channel0 | device


def test_every_register_node_is_in_registers_rs(nodemap):
    known = known_addresses()
    registers = [
        n
        for n in nodemap.nodes
        if n.node.principal_interface_type == I.intfIRegister
        or "Address" in n.node.property_names
    ]
    assert len(registers) > 60
    for reg in registers:
        name = reg.node.name
        address = int(prop(reg, "Address"))
        assert address in known, f"{name} at {address:#x} is not in registers.rs"
        assert prop(reg, "pPort") == "Device", name
        if prop(reg, "NodeType") != "StringReg":
            assert int(prop(reg, "Length")) == 4, name
            assert prop(reg, "Endianess") == "BigEndian", name


# ---------------------------------------------------------------------------
# values through the dict port


def test_reads_come_from_the_right_registers(connected):
    nm, port = connected
    assert nm.Width.value == 640
    assert nm.Height.value == 480
    assert nm.Width.max == 4096
    assert nm.Width.min == 16
    assert nm.Width.inc == 4
    assert nm.OffsetX.max == 4096 - 640
    assert nm.PixelFormat.value == "BayerRG8"
    assert set(nm.PixelFormat.symbolics) == {
        "Mono8", "Mono10", "Mono12", "Mono16", "BayerGR8", "BayerRG8", "RGB8"
    }
    assert nm.PayloadSize.value == 640 * 480
    assert nm.LinerateTransport.value == "GvspTcp"
    assert nm.AcquisitionFrameRate.value == pytest.approx(59.94, rel=1e-6)
    assert nm.AcquisitionFrameRate.max >= 1000
    assert nm.GevTimestampTickFrequency.value == 5_000_000_000
    port.words[BS["TIMESTAMP_VALUE_HIGH"]] = 0x12
    port.words[BS["TIMESTAMP_VALUE_LOW"]] = 0x3456_7890
    assert nm.GevTimestampValue.value == 0x12_3456_7890
    assert nm.GevMACAddress.value == 0x02AB_CDEF_0042
    assert nm.GevVersionMajor.value == 2 and nm.GevVersionMinor.value == 0
    assert nm.GevDeviceModeIsBigEndian.value is True
    assert nm.GevCurrentIPConfigurationLLA.value is True
    assert nm.GevCurrentIPAddress.value == 0xA9FE_0A01
    assert nm.GevCCP.value == "ControlAccess"
    assert nm.GevSCPSPacketSize.value == 1500
    assert nm.GevSCPSDoNotFragment.value is True
    assert nm.LinerateFramesSent.value == 12345
    assert nm.DeviceVendorName.value == "linerate"
    assert nm.GevFirstURL.value == "Local:linerate-camera.xml;20000;4a3c"
    assert not [entry for entry in port.log if entry[0] == "w"]


def test_access_modes(connected):
    nm, _ = connected
    RO, RW, WO = genapi.EAccessMode.RO, genapi.EAccessMode.RW, genapi.EAccessMode.WO
    for name, mode in {
        "Width": RW,
        "PixelFormat": RW,
        "PayloadSize": RO,
        "WidthMax": RO,
        "AcquisitionStart": WO,
        "TriggerSoftware": WO,
        "AcquisitionFrameRate": RW,
        "LinerateTransport": RW,
        "LinerateFramesSent": RO,
        "GevTimestampTickFrequency": RO,
        "GevSCPSPacketSize": RW,
        "GevSCSP": RO,
        "DeviceVendorName": RO,
        "DeviceUserID": RW,
    }.items():
        assert nm.get_node(name).node.get_access_mode() == mode, name


def test_writes_land_in_the_right_registers(connected):
    nm, port = connected
    nm.Width.value = 1024
    assert port.words[DEV["WIDTH"]] == 1024
    nm.PixelFormat.value = "RGB8"
    assert port.words[DEV["PIXEL_FORMAT"]] == 0x0218_0014
    nm.LinerateTransport.value = "GvspUdp"
    assert port.words[DEV["TRANSPORT_SELECTOR"]] == 0
    nm.TestPattern.value = "MovingGradient"
    assert port.words[DEV["TEST_PATTERN"]] == 1
    nm.AcquisitionFrameRate.value = 250.0
    assert port.words[DEV["ACQUISITION_FRAME_RATE"]] == struct.unpack(">I", struct.pack(">f", 250.0))[0]
    # The packet size is the low half of SCPS: the flag bits survive, also
    # after another field of the register was written through the XML.
    nm.GevSCPSPacketSize.value = 8192
    assert port.words[sc0("SCPS")] == 0x4000_0000 | 8192
    nm.GevSCPSDoNotFragment.value = False
    nm.GevSCPSPacketSize.value = 1400
    assert port.words[sc0("SCPS")] == 1400
    assert nm.GevSCPSPacketSize.max == 16000 and nm.GevSCPSPacketSize.min == 576
    assert nm.LinerateTransferSize.min == 0
    assert nm.LinerateTransferSize.max == 16 * 1024 * 1024
    nm.GevSCPD.value = 1000
    assert port.words[sc0("SCPD")] == 1000
    nm.GevSCPHostPort.value = 0xABCD
    assert port.words[sc0("SCP")] & 0xFFFF == 0xABCD
    for command, address, value in [
        ("AcquisitionStart", DEV["ACQUISITION_START"], 1),
        ("AcquisitionStop", DEV["ACQUISITION_STOP"], 1),
        ("TriggerSoftware", DEV["TRIGGER_SOFTWARE"], 1),
        ("GevTimestampControlLatch", BS["TIMESTAMP_CONTROL"], 2),
    ]:
        nm.get_node(command).execute()
        assert port.log[-1] == ("w", address, struct.pack(">I", value)), command


def test_bits_agree_with_registers_rs(connected):
    nm, port = connected
    gvcp = {k.removeprefix("gvcp_configuration::"): v for k, v in BS.items()}
    port.words[BS["GVCP_CONFIGURATION"]] = gvcp["PENDING_ACK_ENABLE"]
    assert nm.GevGVCPPendingAck.value is True
    assert nm.GevGVCPHeartbeatDisable.value is False
    assert nm.GevGVCPExtendedStatusCodes.value is False
    nm.GevGVCPHeartbeatDisable.value = True
    nm.GevGVCPExtendedStatusCodes.value = True
    assert port.words[BS["GVCP_CONFIGURATION"]] == (
        gvcp["PENDING_ACK_ENABLE"] | gvcp["HEARTBEAT_DISABLE"] | gvcp["EXTENDED_STATUS_CODES_V2"]
    )

    assert nm.GevGVSPExtendedIDMode.value == "Off"
    nm.GevGVSPExtendedIDMode.value = "On"
    assert port.words[BS["GVSP_CONFIGURATION"]] == BS["gvsp_configuration::EXTENDED_IDS"]

    expected = {
        "UserDefinedName": True,
        "SerialNumber": True,
        "HeartbeatDisable": False,
        "PendingAck": True,
        "PacketResend": True,
        "WriteMem": False,
        "Action": False,
        "IPConfigurationLLA": True,
        "IPConfigurationDHCP": False,
        "StreamChannelSourceSocket": True,
    }
    for option, supported in expected.items():
        nm.GevSupportedOptionSelector.value = option
        assert nm.GevSupportedOption.value is supported, option
