//! The camera's address space: bootstrap registers, stream channel 0, the
//! device-specific registers and the GenICam XML, with their access rules.
//!
//! Everything is read and written one 32-bit big-endian word at a time;
//! readmem and writemem are loops over words, so a register behaves the same
//! whichever command reaches it. The control channel privilege register and
//! timestamp control need the sender and the time, so the server handles them
//! before it gets here.
//!
//! Rules, in the order they are checked:
//! * an address outside every implemented block is `INVALID_ADDRESS`. The
//!   implemented bootstrap blocks are 0x0000..0x0100 (identity), 0x0200..0x0600
//!   (URLs), 0x0600..0x0680 (network interface 0), 0x0900..0x0980 (global
//!   registers), 0x0a00..0x0a20 (control channel) and 0x0d00..0x0d40 (stream
//!   channel 0). Reserved and unsupported optional words inside those blocks
//!   read as 0, so a readmem spanning a block succeeds; holes between blocks
//!   stay errors so a host (or an XML) naming a wrong address hears about it.
//! * a write to a word that is not writable is `WRITE_PROTECT`.
//! * a value out of range is `INVALID_PARAMETER`.
//! * an image-format register changed while acquiring is `WRITE_PROTECT`
//!   (the GenICam convention: those features are locked while acquiring).
//!   Writing the value it already has is accepted.
//! * reserved bits of a register are ignored on write and read back as 0.

use core::ops::Range;

use linerate_wire::{PixelFormat, Status};

use super::config::{DeviceConfig, HEARTBEAT_TIMEOUT_MIN_MS};
use super::registers::bootstrap::{self as bs, gvcp_capability as cap, gvcp_configuration as gcfg};
use super::registers::device as dev;

/// Standard bootstrap registers the shared map does not name (yet).
mod extra {
    /// Number of action signals (0: no ACTION_CMD).
    pub const NUM_ACTION_SIGNALS: u32 = 0x0908;
    /// Number of active physical links.
    pub const NUM_ACTIVE_LINKS: u32 = super::bs::NUM_ACTIVE_LINKS;
    /// GVSP capability: which optional stream features exist.
    pub const GVSP_CAPABILITY: u32 = super::bs::GVSP_CAPABILITY;
    /// GVSP capability bit [0]: SCSPx registers are implemented.
    pub const GVSP_CAP_SCSP: u32 = 0x8000_0000;
    /// GVSP capability bit [1]: 16-bit block ids are supported (besides 64-bit).
    pub const GVSP_CAP_LEGACY_BLOCK_ID: u32 = 0x4000_0000;
    /// GVSP configuration: optional stream features the host enabled.
    pub const GVSP_CONFIGURATION: u32 = super::bs::GVSP_CONFIGURATION;
    /// GVSP configuration bit \[1\]: 64-bit block ids and 32-bit packet ids.
    pub const GVSP_CFG_BLOCK_ID_64: u32 = super::bs::gvsp_configuration::EXTENDED_IDS;
    /// SCPx bits [12..15]: network interface index.
    pub const SCP_INTERFACE_MASK: u32 = 0x000f_0000;
    /// SCPSx bit [0]: fire one test packet.
    pub const SCPS_FIRE_TEST: u32 = 0x8000_0000;
    /// SCPSx bit [1]: set the IP do-not-fragment flag.
    pub const SCPS_DO_NOT_FRAGMENT: u32 = 0x4000_0000;
    /// SCPSx bits [16..31]: packet size.
    pub const SCPS_SIZE_MASK: u32 = 0x0000_ffff;
}

const IDENTITY: Range<u32> = 0x0000..0x0100;
const URLS: Range<u32> = bs::FIRST_URL..0x0600;
const INTERFACE: Range<u32> = bs::NUM_NETWORK_INTERFACES..0x0680;
const GLOBAL: Range<u32> = bs::NUM_MESSAGE_CHANNELS..0x0980;
const CONTROL: Range<u32> = bs::CONTROL_CHANNEL_PRIVILEGE..0x0a20;
const STREAM0: Range<u32> =
    bs::STREAM_CHANNEL_BASE..bs::STREAM_CHANNEL_BASE + bs::STREAM_CHANNEL_STRIDE;

/// Smallest non-zero transfer size (`LinerateTransferSize`): below it the
/// per-record headers would cost more than a UDP packet's.
pub const TRANSFER_SIZE_MIN: u32 = 512;
/// Largest transfer size: 16 MiB keeps every record far below the framing's
/// 64 MiB body limit, so a receiver never has to refuse one.
pub const TRANSFER_SIZE_MAX: u32 = 16 * 1024 * 1024;

/// Length of the user-defined name register.
const USER_NAME_LEN: u32 = 16;

/// GVCP capabilities this device advertises (register 0x0934).
pub(crate) const GVCP_CAPABILITY: u32 = cap::USER_DEFINED_NAME
    | cap::SERIAL_NUMBER
    | cap::HEARTBEAT_DISABLE
    | cap::EXTENDED_STATUS_CODES_V2
    | cap::PENDING_ACK
    | cap::PACKET_RESEND
    | cap::WRITEMEM
    | cap::CONCATENATION;

/// GVCP configuration bits a host may set: one per advertised optional feature.
const GVCP_CONFIGURATION_WRITABLE: u32 =
    gcfg::HEARTBEAT_DISABLE | gcfg::PENDING_ACK_ENABLE | gcfg::EXTENDED_STATUS_CODES_V2;

/// Timestamp ticks per second: the timestamp counts nanoseconds.
pub(crate) const TICK_FREQUENCY: u64 = 1_000_000_000;

/// Byte offset of the stream channel register `reg` of channel 0.
const fn sc(reg: u32) -> u32 {
    bs::STREAM_CHANNEL_BASE + reg
}

/// Acquisition modes of the AcquisitionMode register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AcquisitionMode {
    /// Frames until AcquisitionStop (register value 0).
    Continuous,
    /// One frame, then the acquisition ends by itself (1).
    SingleFrame,
    /// `frame_count` frames, then the acquisition ends by itself (2).
    MultiFrame,
}

impl AcquisitionMode {
    /// The register value for this mode.
    pub const fn to_register(self) -> u32 {
        match self {
            AcquisitionMode::Continuous => 0,
            AcquisitionMode::SingleFrame => 1,
            AcquisitionMode::MultiFrame => 2,
        }
    }

    /// The mode a register value names, if any.
    pub const fn from_register(value: u32) -> Option<AcquisitionMode> {
        match value {
            0 => Some(AcquisitionMode::Continuous),
            1 => Some(AcquisitionMode::SingleFrame),
            2 => Some(AcquisitionMode::MultiFrame),
            _ => None,
        }
    }
}

/// What a successful write asks the server to do besides storing the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct WriteEffect {
    /// A register that [`super::StreamConfig`] reflects changed.
    pub stream_changed: bool,
    /// A command register was written.
    pub command: Option<CommandRegister>,
}

/// The self-clearing command registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommandRegister {
    AcquisitionStart,
    AcquisitionStop,
    TriggerSoftware,
    FireTestPacket,
}

/// Device-specific image and acquisition registers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ImageRegisters {
    pub width: u32,
    pub height: u32,
    pub offset_x: u32,
    pub offset_y: u32,
    pub pixel_format: PixelFormat,
    pub acquisition_mode: AcquisitionMode,
    pub frame_rate: f32,
    pub frame_count: u32,
    pub trigger_mode_on: bool,
    pub trigger_source: u32,
    pub exposure_time_us: f32,
    pub gain_db: f32,
    pub test_pattern: u32,
    pub transport: u32,
    /// `LinerateTransferSize`: data bytes per TCP payload record, 0 = follow SCPS.
    pub transfer_size: u32,
}

impl ImageRegisters {
    /// Bytes per frame; the configuration check guarantees it fits.
    pub fn payload_size(&self) -> u32 {
        self.pixel_format
            .image_bytes(self.width, self.height)
            .and_then(|b| u32::try_from(b).ok())
            .unwrap_or(u32::MAX)
    }
}

/// Stream channel 0 registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StreamChannel {
    /// SCP host port (0 closes the channel).
    pub port: u16,
    /// SCPS packet size.
    pub packet_size: u16,
    /// SCPS do-not-fragment bit.
    pub do_not_fragment: bool,
    /// SCPD inter-packet delay in timestamp ticks.
    pub delay: u32,
    /// SCDA destination address.
    pub destination: u32,
    /// SCSP source port, set by the I/O layer.
    pub source_port: u16,
}

/// The whole address space's state, minus the control channel privilege.
#[derive(Clone)]
pub(crate) struct Memory {
    /// 0x0000..0x0100, laid out as the discovery ack payload.
    identity: [u8; 0x100],
    /// 0x0200..0x0600: first and second URL.
    urls: [u8; 0x400],
    xml: &'static [u8],
    /// XML length rounded up to a multiple of 4: the readable XML region.
    xml_padded_len: u32,
    limits: DeviceConfig,
    pub heartbeat_timeout_ms: u32,
    pub gvcp_configuration: u32,
    pub gvsp_configuration: u32,
    pub latched_timestamp: u64,
    pub stream: StreamChannel,
    pub image: ImageRegisters,
    /// FramesSent, FramesSkipped, PacketsResent, ResendUnavailable, TriggerLatencyUs.
    pub counters: [u32; 5],
}

impl core::fmt::Debug for Memory {
    // The identity block, URLs and XML are large and fixed: show the state that changes.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Memory")
            .field("xml_len", &self.xml.len())
            .field("heartbeat_timeout_ms", &self.heartbeat_timeout_ms)
            .field("gvcp_configuration", &self.gvcp_configuration)
            .field("gvsp_configuration", &self.gvsp_configuration)
            .field("latched_timestamp", &self.latched_timestamp)
            .field("stream", &self.stream)
            .field("image", &self.image)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

/// A big-endian word of `bytes` at `offset`, or `None` past the end.
fn word(bytes: &[u8], offset: u32) -> Option<u32> {
    let start = usize::try_from(offset).ok()?;
    let chunk: [u8; 4] = bytes.get(start..start.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_be_bytes(chunk))
}

/// Copies a NUL-padded string into the identity block. The caller has checked the length.
fn put_str(block: &mut [u8], at: u32, text: &str) {
    let start = at as usize;
    if let Some(dst) = block.get_mut(start..start + text.len()) {
        dst.copy_from_slice(text.as_bytes());
    }
}

fn put_word(block: &mut [u8], at: u32, value: u32) {
    let start = at as usize;
    if let Some(dst) = block.get_mut(start..start + 4) {
        dst.copy_from_slice(&value.to_be_bytes());
    }
}

/// The standard first URL pointing hosts at the embedded XML.
pub(crate) fn first_url(file_name: &str, xml_len: usize) -> String {
    format!("Local:{file_name};{:x};{xml_len:x}", dev::XML_BASE)
}

/// Identity fields ready to be laid out: name, register address, value, capacity.
pub(crate) struct IdentityLayout<'a> {
    pub strings: [(&'static str, u32, &'a str, usize); 6],
    pub mac: [u8; 6],
    pub ip: u32,
    pub subnet: u32,
    pub gateway: u32,
}

impl Memory {
    /// Builds the address space. `identity` must already be length-checked;
    /// `url` must fit 511 bytes; `config` must be validated.
    pub fn new(
        identity: &IdentityLayout<'_>,
        config: &DeviceConfig,
        xml: &'static [u8],
        url: &str,
    ) -> Memory {
        let mut id = [0u8; 0x100];
        put_word(&mut id, bs::VERSION, 0x0002_0000);
        // Big-endian registers, device class transmitter, UTF-8 strings.
        put_word(&mut id, bs::DEVICE_MODE, 0x8000_0001);
        let m = identity.mac;
        put_word(
            &mut id,
            bs::MAC_HIGH,
            u32::from(u16::from_be_bytes([m[0], m[1]])),
        );
        put_word(
            &mut id,
            bs::MAC_LOW,
            u32::from_be_bytes([m[2], m[3], m[4], m[5]]),
        );
        // Supported: LLA (0x4) and DHCP (0x2); current: LLA.
        put_word(&mut id, bs::IP_CONFIG_OPTIONS, 0x6);
        put_word(&mut id, bs::IP_CONFIG_CURRENT, 0x4);
        put_word(&mut id, bs::CURRENT_IP, identity.ip);
        put_word(&mut id, bs::CURRENT_SUBNET, identity.subnet);
        put_word(&mut id, bs::CURRENT_GATEWAY, identity.gateway);
        for (_, at, text, _) in identity.strings {
            put_str(&mut id, at, text);
        }
        let mut urls = [0u8; 0x400];
        put_str(&mut urls, 0, url);
        let xml_padded_len = u32::try_from(xml.len().div_ceil(4) * 4).unwrap_or(u32::MAX);
        Memory {
            identity: id,
            urls,
            xml,
            xml_padded_len,
            limits: config.clone(),
            heartbeat_timeout_ms: config.heartbeat_timeout_ms,
            gvcp_configuration: 0,
            gvsp_configuration: 0,
            latched_timestamp: 0,
            stream: StreamChannel {
                port: 0,
                packet_size: u16::try_from(config.packet_size).unwrap_or(u16::MAX),
                do_not_fragment: false,
                delay: 0,
                destination: 0,
                source_port: 0,
            },
            image: ImageRegisters {
                width: config.width,
                height: config.height,
                offset_x: 0,
                offset_y: 0,
                pixel_format: config.pixel_format,
                acquisition_mode: AcquisitionMode::Continuous,
                frame_rate: config.frame_rate,
                frame_count: 1,
                trigger_mode_on: false,
                trigger_source: 0,
                exposure_time_us: 10_000.0,
                gain_db: 0.0,
                test_pattern: 0,
                transport: 0,
                transfer_size: 0,
            },
            counters: [0; 5],
        }
    }

    /// Sets the current IP configuration registers (FORCEIP).
    pub fn set_current_ip(&mut self, ip: u32, subnet: u32, gateway: u32) {
        put_word(&mut self.identity, bs::CURRENT_IP, ip);
        put_word(&mut self.identity, bs::CURRENT_SUBNET, subnet);
        put_word(&mut self.identity, bs::CURRENT_GATEWAY, gateway);
    }

    /// The 248 bytes the discovery ack mirrors (bootstrap 0x0000..0x00f8).
    pub fn discovery_bytes(&self) -> &[u8] {
        &self.identity[..0xf8]
    }

    /// The stream uses 64-bit block ids and 32-bit packet ids: bit \[1\]
    /// of the GVSP configuration register (0x0960), as the standard places it.
    pub fn extended_ids(&self) -> bool {
        self.gvsp_configuration & extra::GVSP_CFG_BLOCK_ID_64 != 0
    }

    /// The heartbeat is disabled through the GVCP configuration register.
    pub fn heartbeat_disabled(&self) -> bool {
        self.gvcp_configuration & gcfg::HEARTBEAT_DISABLE != 0
    }

    /// Reads one aligned word.
    pub fn read(&self, addr: u32) -> Result<u32, Status> {
        if addr % 4 != 0 {
            return Err(Status::BAD_ALIGNMENT);
        }
        if IDENTITY.contains(&addr) {
            return word(&self.identity, addr).ok_or(Status::INVALID_ADDRESS);
        }
        if URLS.contains(&addr) {
            return word(&self.urls, addr - URLS.start).ok_or(Status::INVALID_ADDRESS);
        }
        if INTERFACE.contains(&addr) {
            return Ok(u32::from(addr == bs::NUM_NETWORK_INTERFACES));
        }
        if GLOBAL.contains(&addr) {
            return Ok(self.read_global(addr));
        }
        if CONTROL.contains(&addr) {
            // CCP itself is answered by the server; the optional CCP
            // application port/IP registers are not implemented.
            return Ok(0);
        }
        if STREAM0.contains(&addr) {
            return Ok(self.read_stream(addr));
        }
        if let Some(v) = self.read_device(addr) {
            return Ok(v);
        }
        if addr >= dev::XML_BASE && addr - dev::XML_BASE < self.xml_padded_len {
            let offset = addr - dev::XML_BASE;
            let mut w = [0u8; 4];
            for (i, b) in w.iter_mut().enumerate() {
                *b = self
                    .xml
                    .get(offset as usize + i)
                    .copied()
                    .unwrap_or_default();
            }
            return Ok(u32::from_be_bytes(w));
        }
        Err(Status::INVALID_ADDRESS)
    }

    fn read_global(&self, addr: u32) -> u32 {
        match addr {
            bs::NUM_MESSAGE_CHANNELS => 0,
            bs::NUM_STREAM_CHANNELS => 1,
            extra::NUM_ACTION_SIGNALS => 0,
            extra::NUM_ACTIVE_LINKS => 1,
            extra::GVSP_CAPABILITY => extra::GVSP_CAP_SCSP | extra::GVSP_CAP_LEGACY_BLOCK_ID,
            bs::GVCP_CAPABILITY => GVCP_CAPABILITY,
            bs::HEARTBEAT_TIMEOUT => self.heartbeat_timeout_ms,
            bs::TIMESTAMP_TICK_FREQUENCY_HIGH => (TICK_FREQUENCY >> 32) as u32,
            bs::TIMESTAMP_TICK_FREQUENCY_LOW => TICK_FREQUENCY as u32,
            bs::TIMESTAMP_VALUE_HIGH => (self.latched_timestamp >> 32) as u32,
            bs::TIMESTAMP_VALUE_LOW => self.latched_timestamp as u32,
            bs::GVCP_CONFIGURATION => self.gvcp_configuration,
            bs::PENDING_TIMEOUT => self.limits.pending_timeout_ms,
            extra::GVSP_CONFIGURATION => self.gvsp_configuration,
            // Write-only (timestamp control, switchover key), reserved and
            // unsupported optional registers read as 0.
            _ => 0,
        }
    }

    fn read_stream(&self, addr: u32) -> u32 {
        let s = &self.stream;
        match addr {
            a if a == sc(bs::SCP) => u32::from(s.port),
            a if a == sc(bs::SCPS) => {
                let dnf = if s.do_not_fragment {
                    extra::SCPS_DO_NOT_FRAGMENT
                } else {
                    0
                };
                dnf | u32::from(s.packet_size)
            }
            a if a == sc(bs::SCPD) => s.delay,
            a if a == sc(bs::SCDA) => s.destination,
            a if a == sc(bs::SCSP) => u32::from(s.source_port),
            // SCC (no optional stream features), SCCFG (none enabled), reserved.
            _ => 0,
        }
    }

    fn read_device(&self, addr: u32) -> Option<u32> {
        let i = &self.image;
        Some(match addr {
            dev::WIDTH => i.width,
            dev::HEIGHT => i.height,
            dev::OFFSET_X => i.offset_x,
            dev::OFFSET_Y => i.offset_y,
            dev::PIXEL_FORMAT => i.pixel_format.0,
            dev::PAYLOAD_SIZE => i.payload_size(),
            dev::ACQUISITION_MODE => i.acquisition_mode.to_register(),
            // Command registers read 0: GenICam reads "done" there.
            dev::ACQUISITION_START | dev::ACQUISITION_STOP | dev::TRIGGER_SOFTWARE => 0,
            dev::ACQUISITION_FRAME_RATE => i.frame_rate.to_bits(),
            dev::ACQUISITION_FRAME_COUNT => i.frame_count,
            dev::TRIGGER_MODE => u32::from(i.trigger_mode_on),
            dev::TRIGGER_SOURCE => i.trigger_source,
            dev::EXPOSURE_TIME => i.exposure_time_us.to_bits(),
            dev::GAIN => i.gain_db.to_bits(),
            dev::TEST_PATTERN => i.test_pattern,
            dev::TRANSPORT_SELECTOR => i.transport,
            dev::LINERATE_TRANSFER_SIZE => i.transfer_size,
            dev::WIDTH_MAX => self.limits.width_max,
            dev::HEIGHT_MAX => self.limits.height_max,
            dev::FRAMES_SENT => self.counters[0],
            dev::FRAMES_SKIPPED => self.counters[1],
            dev::PACKETS_RESENT => self.counters[2],
            dev::RESEND_UNAVAILABLE => self.counters[3],
            dev::TRIGGER_LATENCY_US => self.counters[4],
            _ => return None,
        })
    }

    /// Writes one aligned word; the caller has checked the privilege.
    pub fn write(&mut self, addr: u32, value: u32, acquiring: bool) -> Result<WriteEffect, Status> {
        if addr % 4 != 0 {
            return Err(Status::BAD_ALIGNMENT);
        }
        let user_name = bs::USER_DEFINED_NAME..bs::USER_DEFINED_NAME + USER_NAME_LEN;
        if user_name.contains(&addr) {
            put_word(&mut self.identity, addr, value);
            return Ok(WriteEffect::default());
        }
        if IDENTITY.contains(&addr)
            || URLS.contains(&addr)
            || INTERFACE.contains(&addr)
            || CONTROL.contains(&addr)
        {
            return Err(Status::WRITE_PROTECT);
        }
        if GLOBAL.contains(&addr) {
            return self.write_global(addr, value);
        }
        if STREAM0.contains(&addr) {
            return self.write_stream(addr, value);
        }
        if self.read_device(addr).is_some() {
            return self.write_device(addr, value, acquiring);
        }
        if addr >= dev::XML_BASE && addr - dev::XML_BASE < self.xml_padded_len {
            return Err(Status::WRITE_PROTECT);
        }
        Err(Status::INVALID_ADDRESS)
    }

    fn write_global(&mut self, addr: u32, value: u32) -> Result<WriteEffect, Status> {
        match addr {
            bs::HEARTBEAT_TIMEOUT => {
                if value < HEARTBEAT_TIMEOUT_MIN_MS {
                    return Err(Status::INVALID_PARAMETER);
                }
                self.heartbeat_timeout_ms = value;
                Ok(WriteEffect::default())
            }
            bs::GVCP_CONFIGURATION => {
                let before = self.extended_ids();
                self.gvcp_configuration = value & GVCP_CONFIGURATION_WRITABLE;
                Ok(WriteEffect {
                    stream_changed: self.extended_ids() != before,
                    command: None,
                })
            }
            extra::GVSP_CONFIGURATION => {
                let before = self.extended_ids();
                self.gvsp_configuration = value & extra::GVSP_CFG_BLOCK_ID_64;
                Ok(WriteEffect {
                    stream_changed: self.extended_ids() != before,
                    command: None,
                })
            }
            _ => Err(Status::WRITE_PROTECT),
        }
    }

    fn write_stream(&mut self, addr: u32, value: u32) -> Result<WriteEffect, Status> {
        let before = self.stream;
        let mut command = None;
        match addr {
            a if a == sc(bs::SCP) => {
                // Only one network interface; the direction bit is read-only.
                if value & extra::SCP_INTERFACE_MASK != 0 {
                    return Err(Status::INVALID_PARAMETER);
                }
                self.stream.port = value as u16;
            }
            a if a == sc(bs::SCPS) => {
                let size = value & extra::SCPS_SIZE_MASK;
                if size < self.limits.packet_size_min || size > self.limits.packet_size_max {
                    return Err(Status::INVALID_PARAMETER);
                }
                self.stream.packet_size = size as u16;
                self.stream.do_not_fragment = value & extra::SCPS_DO_NOT_FRAGMENT != 0;
                if value & extra::SCPS_FIRE_TEST != 0 {
                    command = Some(CommandRegister::FireTestPacket);
                }
            }
            a if a == sc(bs::SCPD) => self.stream.delay = value,
            a if a == sc(bs::SCDA) => self.stream.destination = value,
            // No optional stream features: every SCCFG bit is reserved here,
            // so the write is accepted and reads back 0 (Aravis sets the
            // multipart bit unconditionally and ignores the outcome).
            a if a == sc(bs::SCCFG) => {}
            _ => return Err(Status::WRITE_PROTECT),
        }
        Ok(WriteEffect {
            stream_changed: self.stream != before,
            command,
        })
    }

    fn write_device(
        &mut self,
        addr: u32,
        value: u32,
        acquiring: bool,
    ) -> Result<WriteEffect, Status> {
        let l = &self.limits;
        let mut next = self.image.clone();
        let mut command = None;
        let mut locked = false;
        match addr {
            dev::WIDTH => {
                locked = true;
                let ok = value >= l.width_min
                    && value % l.width_increment == 0
                    && value
                        .checked_add(next.offset_x)
                        .is_some_and(|end| end <= l.width_max);
                if !ok {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.width = value;
            }
            dev::HEIGHT => {
                locked = true;
                let ok = value >= l.height_min
                    && value % l.height_increment == 0
                    && value
                        .checked_add(next.offset_y)
                        .is_some_and(|end| end <= l.height_max);
                if !ok {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.height = value;
            }
            dev::OFFSET_X => {
                locked = true;
                let ok = value % l.width_increment == 0
                    && value
                        .checked_add(next.width)
                        .is_some_and(|end| end <= l.width_max);
                if !ok {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.offset_x = value;
            }
            dev::OFFSET_Y => {
                locked = true;
                let ok = value % l.height_increment == 0
                    && value
                        .checked_add(next.height)
                        .is_some_and(|end| end <= l.height_max);
                if !ok {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.offset_y = value;
            }
            dev::PIXEL_FORMAT => {
                locked = true;
                let format = PixelFormat(value);
                if !l.pixel_formats.contains(&format) {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.pixel_format = format;
            }
            dev::ACQUISITION_MODE => {
                locked = true;
                next.acquisition_mode =
                    AcquisitionMode::from_register(value).ok_or(Status::INVALID_PARAMETER)?;
            }
            dev::ACQUISITION_FRAME_COUNT => {
                locked = true;
                if value == 0 {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.frame_count = value;
            }
            dev::TRANSPORT_SELECTOR => {
                locked = true;
                if value > 1 {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.transport = value;
            }
            dev::LINERATE_TRANSFER_SIZE => {
                locked = true;
                if value != 0 && !(TRANSFER_SIZE_MIN..=TRANSFER_SIZE_MAX).contains(&value) {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.transfer_size = value;
            }
            dev::ACQUISITION_FRAME_RATE => {
                let rate = f32::from_bits(value);
                if !(rate >= l.frame_rate_min && rate <= l.frame_rate_max) {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.frame_rate = rate;
            }
            dev::TRIGGER_MODE => {
                next.trigger_mode_on = match value {
                    0 => false,
                    1 => true,
                    _ => return Err(Status::INVALID_PARAMETER),
                };
            }
            dev::TRIGGER_SOURCE => {
                // Software is the only source.
                if value != 0 {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.trigger_source = value;
            }
            dev::EXPOSURE_TIME => {
                let t = f32::from_bits(value);
                if !(t.is_finite() && t >= 0.0) {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.exposure_time_us = t;
            }
            dev::GAIN => {
                let g = f32::from_bits(value);
                if !g.is_finite() {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.gain_db = g;
            }
            dev::TEST_PATTERN => {
                if value > 1 {
                    return Err(Status::INVALID_PARAMETER);
                }
                next.test_pattern = value;
            }
            dev::ACQUISITION_START => {
                command = (value != 0).then_some(CommandRegister::AcquisitionStart);
            }
            dev::ACQUISITION_STOP => {
                command = (value != 0).then_some(CommandRegister::AcquisitionStop);
            }
            dev::TRIGGER_SOFTWARE => {
                command = (value != 0).then_some(CommandRegister::TriggerSoftware);
            }
            _ => return Err(Status::WRITE_PROTECT),
        }
        let changed = next != self.image;
        if locked && acquiring && changed {
            return Err(Status::WRITE_PROTECT);
        }
        self.image = next;
        Ok(WriteEffect {
            stream_changed: changed,
            command,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> Memory {
        let layout = IdentityLayout {
            strings: [
                ("manufacturer", bs::MANUFACTURER_NAME, "linerate", 32),
                ("model", bs::MODEL_NAME, "cam", 32),
                ("version", bs::DEVICE_VERSION, "1", 32),
                ("info", bs::MANUFACTURER_INFO, "", 48),
                ("serial", bs::SERIAL_NUMBER, "S1", 16),
                ("user name", bs::USER_DEFINED_NAME, "", 16),
            ],
            mac: [2, 0, 0, 0, 0, 1],
            ip: 0xa9fe_0a01,
            subnet: 0xffff_0000,
            gateway: 0,
        };
        Memory::new(
            &layout,
            &DeviceConfig::default(),
            b"<x/>\n",
            "Local:x;20000;5",
        )
    }

    #[test]
    fn blocks_and_holes() {
        let m = memory();
        assert_eq!(m.read(bs::VERSION), Ok(0x0002_0000));
        assert_eq!(m.read(bs::MAC_LOW), Ok(1));
        assert_eq!(m.read(0x0018), Ok(0), "reserved word inside a block");
        assert_eq!(m.read(0x0100), Err(Status::INVALID_ADDRESS));
        assert_eq!(m.read(0x0b00), Err(Status::INVALID_ADDRESS));
        assert_eq!(m.read(0x0d40), Err(Status::INVALID_ADDRESS));
        assert_eq!(m.read(0x0002), Err(Status::BAD_ALIGNMENT));
        assert_eq!(m.read(bs::FIRST_URL), Ok(u32::from_be_bytes(*b"Loca")));
        assert_eq!(m.read(dev::XML_BASE), Ok(u32::from_be_bytes(*b"<x/>")));
        assert_eq!(
            m.read(dev::XML_BASE + 4),
            Ok(u32::from_be_bytes(*b"\n\0\0\0"))
        );
        assert_eq!(m.read(dev::XML_BASE + 8), Err(Status::INVALID_ADDRESS));
        assert_eq!(m.read(dev::PAYLOAD_SIZE), Ok(1024 * 768));
        assert_eq!(m.read(dev::LINERATE_TRANSFER_SIZE), Ok(0));
        assert_eq!(m.read(0x0001_0054), Err(Status::INVALID_ADDRESS));
    }

    #[test]
    fn write_rules() {
        let mut m = memory();
        assert_eq!(
            m.write(bs::MODEL_NAME, 1, false),
            Err(Status::WRITE_PROTECT)
        );
        assert_eq!(m.write(dev::XML_BASE, 1, false), Err(Status::WRITE_PROTECT));
        assert_eq!(m.write(0x0100, 1, false), Err(Status::INVALID_ADDRESS));
        assert_eq!(
            m.write(dev::PAYLOAD_SIZE, 1, false),
            Err(Status::WRITE_PROTECT)
        );
        assert_eq!(
            m.write(dev::WIDTH, 0, false),
            Err(Status::INVALID_PARAMETER)
        );
        assert_eq!(
            m.write(dev::WIDTH, 1022, false),
            Err(Status::INVALID_PARAMETER)
        );
        assert_eq!(
            m.write(dev::PIXEL_FORMAT, 0x1234, false),
            Err(Status::INVALID_PARAMETER)
        );
        let e = m.write(dev::WIDTH, 640, false).expect("valid width");
        assert!(e.stream_changed);
        assert_eq!(m.read(dev::PAYLOAD_SIZE), Ok(640 * 768));
        assert_eq!(m.write(dev::WIDTH, 320, true), Err(Status::WRITE_PROTECT));
        assert!(
            m.write(dev::WIDTH, 640, true).is_ok(),
            "same value while acquiring"
        );
        assert!(m
            .write(dev::ACQUISITION_FRAME_RATE, 30f32.to_bits(), true)
            .is_ok());
        assert_eq!(
            m.write(dev::ACQUISITION_FRAME_RATE, f32::NAN.to_bits(), false),
            Err(Status::INVALID_PARAMETER)
        );
        assert_eq!(
            m.write(bs::HEARTBEAT_TIMEOUT, 499, false),
            Err(Status::INVALID_PARAMETER)
        );
        assert_eq!(
            m.write(sc(bs::SCPS), 575, false),
            Err(Status::INVALID_PARAMETER)
        );
        assert_eq!(
            m.write(sc(bs::SCPS), 16_001, false),
            Err(Status::INVALID_PARAMETER)
        );
        let e = m
            .write(
                sc(bs::SCPS),
                extra::SCPS_FIRE_TEST | extra::SCPS_DO_NOT_FRAGMENT | 9000,
                false,
            )
            .expect("valid size");
        assert_eq!(e.command, Some(CommandRegister::FireTestPacket));
        assert_eq!(m.read(sc(bs::SCPS)), Ok(0x4000_0000 | 9000));
        assert_eq!(m.write(sc(bs::SCSP), 1, false), Err(Status::WRITE_PROTECT));
        assert!(m.write(sc(bs::SCCFG), 0x40, false).is_ok());
        assert_eq!(m.read(sc(bs::SCCFG)), Ok(0));
        assert!(m.write(bs::GVCP_CONFIGURATION, 0xffff_ffff, false).is_ok());
        assert_eq!(m.read(bs::GVCP_CONFIGURATION), Ok(0x0004_0003));
        // The GVCP configuration register does not switch extended ids.
        assert!(!m.extended_ids());
        m.write(bs::GVCP_CONFIGURATION, 0, false).expect("writable");
        let e = m
            .write(extra::GVSP_CONFIGURATION, u32::MAX, false)
            .expect("writable");
        assert!(e.stream_changed && m.extended_ids());
        assert_eq!(m.read(extra::GVSP_CONFIGURATION), Ok(0x4000_0000));
    }

    #[test]
    fn transfer_size_rules() {
        let mut m = memory();
        let ts = dev::LINERATE_TRANSFER_SIZE;
        assert_eq!(m.read(ts), Ok(0), "default follows SCPS");
        for bad in [1, 511, TRANSFER_SIZE_MAX + 1, u32::MAX] {
            assert_eq!(
                m.write(ts, bad, false),
                Err(Status::INVALID_PARAMETER),
                "{bad}"
            );
            assert_eq!(
                m.read(ts),
                Ok(0),
                "refused write {bad} changed the register"
            );
        }
        for good in [TRANSFER_SIZE_MIN, 8000, 1 << 20, TRANSFER_SIZE_MAX, 0] {
            m.write(ts, good, false).expect("in range");
            assert_eq!(m.read(ts), Ok(good));
        }
        let e = m.write(ts, 65_536, false).expect("in range");
        assert!(e.stream_changed);
        // Locked while streaming, like LinerateTransport; rewriting the same value is fine.
        assert_eq!(m.write(ts, 4096, true), Err(Status::WRITE_PROTECT));
        assert_eq!(m.read(ts), Ok(65_536));
        assert!(m.write(ts, 65_536, true).is_ok());
        assert_eq!(
            m.write(dev::TRANSPORT_SELECTOR, 1, true),
            Err(Status::WRITE_PROTECT)
        );
    }
}
