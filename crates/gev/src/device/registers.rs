//! The emulated camera's register map: GigE Vision bootstrap registers and
//! linerate's device-specific registers, addresses named in one place.
//!
//! Bit values are given as they appear in the 32-bit register (LSB = bit 0).
//! The GigE Vision standard numbers bits from the MSB (its "bit 31" is our
//! bit 0), which is a classic source of off-by-31 bugs; the comments give
//! both where it matters.

/// Standard bootstrap registers (GigE Vision 2.0).
pub mod bootstrap {
    /// Version: major in the high 16 bits, minor in the low 16.
    pub const VERSION: u32 = 0x0000;
    /// Device mode: bit 31 big-endian registers, bits 0..7 character set (1 = UTF-8).
    pub const DEVICE_MODE: u32 = 0x0004;
    /// MAC address, high 16 bits (in the low half of the register).
    pub const MAC_HIGH: u32 = 0x0008;
    /// MAC address, low 32 bits.
    pub const MAC_LOW: u32 = 0x000c;
    /// Supported IP configurations: 0x4 LLA, 0x2 DHCP, 0x1 persistent IP.
    pub const IP_CONFIG_OPTIONS: u32 = 0x0010;
    /// IP configurations in use, same bits.
    pub const IP_CONFIG_CURRENT: u32 = 0x0014;
    /// Current IPv4 address.
    pub const CURRENT_IP: u32 = 0x0024;
    /// Current subnet mask.
    pub const CURRENT_SUBNET: u32 = 0x0034;
    /// Current default gateway.
    pub const CURRENT_GATEWAY: u32 = 0x0044;
    /// Manufacturer name, 32 bytes.
    pub const MANUFACTURER_NAME: u32 = 0x0048;
    /// Model name, 32 bytes.
    pub const MODEL_NAME: u32 = 0x0068;
    /// Device version, 32 bytes.
    pub const DEVICE_VERSION: u32 = 0x0088;
    /// Manufacturer-specific information, 48 bytes.
    pub const MANUFACTURER_INFO: u32 = 0x00a8;
    /// Serial number, 16 bytes.
    pub const SERIAL_NUMBER: u32 = 0x00d8;
    /// User-defined name, 16 bytes, writable.
    pub const USER_DEFINED_NAME: u32 = 0x00e8;
    /// First GenICam XML URL, 512 bytes, e.g. `Local:linerate.xml;20000;4a3c`.
    pub const FIRST_URL: u32 = 0x0200;
    /// Second GenICam XML URL, 512 bytes.
    pub const SECOND_URL: u32 = 0x0400;
    /// Number of network interfaces.
    pub const NUM_NETWORK_INTERFACES: u32 = 0x0600;
    /// Number of message channels.
    pub const NUM_MESSAGE_CHANNELS: u32 = 0x0900;
    /// Number of stream channels.
    pub const NUM_STREAM_CHANNELS: u32 = 0x0904;
    /// GVCP capability bits, see [`gvcp_capability`].
    pub const GVCP_CAPABILITY: u32 = 0x0934;
    /// Heartbeat timeout in milliseconds.
    pub const HEARTBEAT_TIMEOUT: u32 = 0x0938;
    /// Timestamp tick frequency, high 32 bits.
    pub const TIMESTAMP_TICK_FREQUENCY_HIGH: u32 = 0x093c;
    /// Timestamp tick frequency, low 32 bits.
    pub const TIMESTAMP_TICK_FREQUENCY_LOW: u32 = 0x0940;
    /// Timestamp control: write 0x2 to latch, 0x1 to reset.
    pub const TIMESTAMP_CONTROL: u32 = 0x0944;
    /// Latched timestamp value, high 32 bits.
    pub const TIMESTAMP_VALUE_HIGH: u32 = 0x0948;
    /// Latched timestamp value, low 32 bits.
    pub const TIMESTAMP_VALUE_LOW: u32 = 0x094c;
    /// GVCP configuration, see [`gvcp_configuration`].
    pub const GVCP_CONFIGURATION: u32 = 0x0954;
    /// Pending-ack timeout in milliseconds.
    pub const PENDING_TIMEOUT: u32 = 0x0958;
    /// GVSP capability: 0x8000_0000 SCSP register present, 0x4000_0000 16-bit block ids supported.
    pub const GVSP_CAPABILITY: u32 = 0x092c;
    /// GVSP configuration, see [`gvsp_configuration`].
    pub const GVSP_CONFIGURATION: u32 = 0x0960;
    /// Number of active links.
    pub const NUM_ACTIVE_LINKS: u32 = 0x0910;
    /// Control channel privilege, see [`ccp`].
    pub const CONTROL_CHANNEL_PRIVILEGE: u32 = 0x0a00;

    /// Stream channel 0 registers; channel n adds 0x40 × n.
    pub const STREAM_CHANNEL_BASE: u32 = 0x0d00;
    /// Address stride between stream channels.
    pub const STREAM_CHANNEL_STRIDE: u32 = 0x40;
    /// SCPx: host port in the low 16 bits.
    pub const SCP: u32 = 0x00;
    /// SCPSx: packet size (low 16 bits), 0x8000_0000 fire test packet, 0x4000_0000 do not fragment.
    pub const SCPS: u32 = 0x04;
    /// SCPDx: delay between packets, in timestamp ticks.
    pub const SCPD: u32 = 0x08;
    /// SCDAx: destination IPv4 address.
    pub const SCDA: u32 = 0x18;
    /// SCSPx: source UDP port of the stream (read-only).
    pub const SCSP: u32 = 0x1c;
    /// SCCx: stream channel capability.
    pub const SCC: u32 = 0x20;
    /// SCCFGx: stream channel configuration.
    pub const SCCFG: u32 = 0x24;

    /// Bits of [`GVCP_CAPABILITY`] (standard MSB-0 bit numbers in brackets).
    pub mod gvcp_capability {
        /// User-defined name register present \[0\].
        pub const USER_DEFINED_NAME: u32 = 0x8000_0000;
        /// Serial number register present \[1\].
        pub const SERIAL_NUMBER: u32 = 0x4000_0000;
        /// Heartbeat can be disabled \[2\].
        pub const HEARTBEAT_DISABLE: u32 = 0x2000_0000;
        /// GigE Vision 2.0 extended status codes \[13\].
        pub const EXTENDED_STATUS_CODES_V2: u32 = 0x0004_0000;
        /// Pending ack supported \[26\].
        pub const PENDING_ACK: u32 = 0x0000_0020;
        /// Packet resend supported \[29\].
        pub const PACKET_RESEND: u32 = 0x0000_0004;
        /// writemem supported \[30\].
        pub const WRITEMEM: u32 = 0x0000_0002;
        /// Several operations in one readreg/writereg \[31\].
        pub const CONCATENATION: u32 = 0x0000_0001;
    }

    /// Bits of [`GVCP_CONFIGURATION`].
    pub mod gvcp_configuration {
        /// GigE Vision 2.0 extended status codes enabled \[13\].
        pub const EXTENDED_STATUS_CODES_V2: u32 = 0x0004_0000;
        /// Pending ack enabled \[30\].
        pub const PENDING_ACK_ENABLE: u32 = 0x0000_0002;
        /// Heartbeat disabled \[31\].
        pub const HEARTBEAT_DISABLE: u32 = 0x0000_0001;
    }

    /// Bits of [`GVSP_CONFIGURATION`].
    pub mod gvsp_configuration {
        /// Use 64-bit block ids and 32-bit packet ids on the stream \[1\].
        pub const EXTENDED_IDS: u32 = 0x4000_0000;
    }

    /// Bits of [`CONTROL_CHANNEL_PRIVILEGE`].
    pub mod ccp {
        /// Exclusive access: no other host may even read.
        pub const EXCLUSIVE_ACCESS: u32 = 0x0000_0001;
        /// Control access: other hosts may read but not write.
        pub const CONTROL_ACCESS: u32 = 0x0000_0002;
        /// Control switchover enabled (not supported here).
        pub const SWITCHOVER_ENABLE: u32 = 0x0000_0004;
    }
}

/// linerate's device-specific registers, described by the GenICam XML.
/// All are 32-bit, big-endian, at 0x0001_0000 and up; integers unless the
/// comment says IEEE 754 float.
pub mod device {
    /// Image width in pixels.
    pub const WIDTH: u32 = 0x0001_0000;
    /// Image height in lines.
    pub const HEIGHT: u32 = 0x0001_0004;
    /// Horizontal offset of the region of interest.
    pub const OFFSET_X: u32 = 0x0001_0008;
    /// Vertical offset of the region of interest.
    pub const OFFSET_Y: u32 = 0x0001_000c;
    /// PFNC pixel format code.
    pub const PIXEL_FORMAT: u32 = 0x0001_0010;
    /// Bytes per frame (read-only, follows width, height and format).
    pub const PAYLOAD_SIZE: u32 = 0x0001_0014;
    /// Acquisition mode: 0 continuous, 1 single frame, 2 multi frame.
    pub const ACQUISITION_MODE: u32 = 0x0001_0018;
    /// Write 1 to start acquisition.
    pub const ACQUISITION_START: u32 = 0x0001_001c;
    /// Write 1 to stop acquisition.
    pub const ACQUISITION_STOP: u32 = 0x0001_0020;
    /// Frame rate in frames per second, IEEE 754 single precision.
    pub const ACQUISITION_FRAME_RATE: u32 = 0x0001_0024;
    /// Frames per multi-frame acquisition.
    pub const ACQUISITION_FRAME_COUNT: u32 = 0x0001_0028;
    /// Trigger mode: 0 off, 1 on.
    pub const TRIGGER_MODE: u32 = 0x0001_002c;
    /// Trigger source: 0 software.
    pub const TRIGGER_SOURCE: u32 = 0x0001_0030;
    /// Write 1 to fire a software trigger.
    pub const TRIGGER_SOFTWARE: u32 = 0x0001_0034;
    /// Exposure time in microseconds, IEEE 754 single precision
    /// (informative: the emulator has no sensor).
    pub const EXPOSURE_TIME: u32 = 0x0001_0038;
    /// Gain in dB, IEEE 754 single precision (informative).
    pub const GAIN: u32 = 0x0001_003c;
    /// Test pattern: 0 self-verifying stamp + CRC, 1 moving gradient (also stamped).
    pub const TEST_PATTERN: u32 = 0x0001_0040;
    /// Transport: 0 GVSP over UDP, 1 GVSP over TCP (linerate framing).
    pub const TRANSPORT_SELECTOR: u32 = 0x0001_0044;
    /// Width maximum (read-only).
    pub const WIDTH_MAX: u32 = 0x0001_0048;
    /// Height maximum (read-only).
    pub const HEIGHT_MAX: u32 = 0x0001_004c;
    /// Image data bytes per payload record on the TCP transport; 0 follows
    /// SCPS (the UDP packetisation), else 512..=16 MiB.
    pub const LINERATE_TRANSFER_SIZE: u32 = 0x0001_0050;
    /// 1 while an acquisition runs, else 0 (read-only): lets a host see
    /// that someone else stopped the acquisition it started.
    pub const ACQUISITION_STATUS: u32 = 0x0001_0054;
    /// Frames sent since start (read-only counter).
    pub const FRAMES_SENT: u32 = 0x0001_0080;
    /// Frames skipped because the link was saturated (read-only counter).
    pub const FRAMES_SKIPPED: u32 = 0x0001_0084;
    /// Packets resent on request (read-only counter).
    pub const PACKETS_RESENT: u32 = 0x0001_0088;
    /// Resend requests refused because the data was gone (read-only counter).
    pub const RESEND_UNAVAILABLE: u32 = 0x0001_008c;
    /// Software trigger to first packet, last value in microseconds (read-only).
    pub const TRIGGER_LATENCY_US: u32 = 0x0001_0090;

    /// Where the GenICam XML file is served (readmem), in the first URL.
    pub const XML_BASE: u32 = 0x0002_0000;
    /// Largest XML the map reserves room for.
    pub const XML_MAX_LEN: u32 = 0x0002_0000;
}
