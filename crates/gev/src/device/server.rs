//! GVCP command dispatch: the emulated camera as a sans-IO state machine.
//!
//! The I/O layer hands every datagram received on the GVCP port to
//! [`Device::handle_datagram`] with the sender and the current time, sends
//! the [`Reply`] if there is one, acts on the [`DeviceEvent`]s (start or stop
//! the stream, resend packets, ...), and calls [`Device::handle_timeout`] at
//! [`Device::poll_timeout`] so the heartbeat can expire without traffic.
//! Times are nanoseconds on the caller's monotonic clock. The device never
//! reads a clock and never touches a socket, which keeps every behaviour
//! reproducible in a test.

use core::net::{Ipv4Addr, SocketAddrV4};

use linerate_wire::gvcp::{
    self, code, flags, Ack, AckRepr, Command, CommandPacket, CommandRepr, DiscoveryAck,
    PacketResend,
};
use linerate_wire::{PixelFormat, Status};

use super::config::{DeviceConfig, DeviceError, DeviceIdentity};
use super::memory::{
    first_url, AcquisitionMode, CommandRegister, IdentityLayout, Memory, TICK_FREQUENCY,
};
use super::privilege::{CcpOutcome, ControlChannel, ControlLossReason, Privilege};
use super::registers::{bootstrap as bs, device as dev};
use super::{GENICAM_XML, XML_FILE_NAME};

/// A datagram the I/O layer must send from the GVCP socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// Where to send it: the sender of the command, or 255.255.255.255 at the
    /// sender's port for a discovery ack that cannot be unicast (see
    /// [`Device::handle_datagram`]). The socket then needs `SO_BROADCAST`.
    pub to: SocketAddrV4,
    /// The encoded GVCP ack.
    pub datagram: Vec<u8>,
}

impl Reply {
    /// The reply goes to the limited broadcast address.
    pub fn is_broadcast(&self) -> bool {
        self.to.ip().is_broadcast()
    }
}

/// Something the I/O layer (stream sender, resend buffer) must act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceEvent {
    /// A host became the primary application, or the primary application
    /// switched between control and exclusive access.
    ControlGranted {
        /// The primary application's address and port.
        controller: SocketAddrV4,
        /// It holds exclusive access (other hosts may not read).
        exclusive: bool,
    },
    /// The primary application lost control. The device has already stopped
    /// acquisition (an [`DeviceEvent::AcquisitionStop`] follows if it was
    /// running) and closed stream channel 0, so nothing streams to a host
    /// that is gone or no longer in charge.
    ControlLost {
        /// Who held control.
        controller: SocketAddrV4,
        /// Why it was lost.
        reason: ControlLossReason,
    },
    /// Acquisition started: begin sending frames per [`Device::stream_config`].
    AcquisitionStart,
    /// Acquisition stopped: finish or drop the frame in flight and stop.
    AcquisitionStop,
    /// The host fired a software trigger (the sender decides whether it is armed).
    TriggerSoftware,
    /// The host asked for one test packet of the SCPS size, with the
    /// do-not-fragment flag, to the stream destination.
    FireTestPacket,
    /// A register reflected in [`Device::stream_config`] changed; emitted at
    /// most once per command.
    StreamConfigChanged,
    /// Resend these stream packets (no ack is sent for a resend request).
    PacketResend(PacketResend),
    /// A FORCEIP addressed to this device's MAC changed its IP
    /// configuration: the bootstrap registers and discovery now report it,
    /// and the I/O layer should answer on the new address. The ack (if
    /// asked for) is in the same [`HandleResult`] and must leave from the
    /// new address when the I/O layer can.
    AddressForced {
        /// The new address.
        ip: Ipv4Addr,
        /// The new subnet mask.
        subnet_mask: Ipv4Addr,
        /// The new default gateway.
        gateway: Ipv4Addr,
    },
}

/// What [`Device::handle_datagram`] produced for one datagram.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandleResult {
    /// The ack to send, if the command asked for one.
    pub reply: Option<Reply>,
    /// Events, in the order they happened (a heartbeat expiry noticed on
    /// arrival comes first).
    pub events: Vec<DeviceEvent>,
}

/// Stream statistics the I/O layer publishes in read-only registers, so a
/// host can read them over GVCP like any camera counter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Frames sent since start (register keeps the low 32 bits).
    pub frames_sent: u64,
    /// Frames skipped because the link was saturated (low 32 bits).
    pub frames_skipped: u64,
    /// Packets resent on request (low 32 bits).
    pub packets_resent: u64,
    /// Resend requests refused because the data was gone (low 32 bits).
    pub resend_unavailable: u64,
    /// Last software-trigger-to-first-packet latency in µs (saturates at u32::MAX).
    pub trigger_latency_us: u64,
}

/// Everything the stream sender needs, decoded from the registers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamConfig {
    /// SCDA:SCP, or `None` while either is 0 (channel closed).
    pub destination: Option<SocketAddrV4>,
    /// SCPS packet size in bytes, IP and UDP headers included.
    pub packet_size: u32,
    /// SCPS do-not-fragment bit.
    pub do_not_fragment: bool,
    /// SCPD delay between packets, in timestamp ticks (ns).
    pub packet_delay_ticks: u32,
    /// 64-bit block ids and 32-bit packet ids: bit \[1\] of the GVSP
    /// configuration register 0x0960.
    pub extended_ids: bool,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in lines.
    pub height: u32,
    /// Horizontal offset of the region of interest.
    pub offset_x: u32,
    /// Vertical offset of the region of interest.
    pub offset_y: u32,
    /// Pixel format.
    pub pixel_format: PixelFormat,
    /// Bytes per frame.
    pub payload_size: u32,
    /// Frames per second.
    pub frame_rate: f64,
    /// Continuous, single frame or multi frame.
    pub acquisition_mode: AcquisitionMode,
    /// Frames per multi-frame acquisition.
    pub frame_count: u32,
    /// Frames are sent on software triggers only.
    pub trigger_mode_on: bool,
    /// Test pattern register value (0 stamp + CRC, 1 moving gradient).
    pub test_pattern: u32,
    /// Transport register value (0 GVSP over UDP, 1 GVSP over TCP).
    pub transport: u32,
    /// `LinerateTransferSize`: image data bytes per payload record on TCP;
    /// 0 means the UDP packetisation (SCPS minus IP, UDP and GVSP headers).
    pub transfer_size: u32,
}

/// Commands refused with `ACCESS_DENIED`, by who sent them. GVCP has no
/// authentication: a command that claims the controlling application's IP
/// address but comes from another UDP port is either a second program on
/// that host or a forgery (a sweep of source ports looking for the
/// controller's), so it is counted apart from other hosts' attempts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AccessDenied {
    /// From the controlling application's IP address, another UDP port.
    pub controller_ip_other_port: u64,
    /// From any other address.
    pub other_hosts: u64,
}

/// The emulated camera's GVCP side: register map, privilege and heartbeat.
#[derive(Debug, Clone)]
pub struct Device {
    identity: DeviceIdentity,
    /// The address configuration the device started with, restored by a
    /// FORCEIP to 0.0.0.0 (the standard's "restart IP configuration").
    boot_address: (Ipv4Addr, Ipv4Addr, Ipv4Addr),
    memory: Memory,
    control: ControlChannel,
    acquiring: bool,
    denied: AccessDenied,
    /// Caller time (ns) at which the timestamp counter was last reset.
    timestamp_epoch: u64,
}

/// The status for a command whose header is sound but whose payload does not parse.
fn parse_error_status(command: u16, payload: &[u8], err: &linerate_wire::Error) -> Status {
    if matches!(err, linerate_wire::Error::Unsupported { .. }) {
        return Status::NOT_IMPLEMENTED;
    }
    let misaligned_length = match command {
        code::READMEM_CMD => payload
            .get(6..8)
            .is_some_and(|c| u16::from_be_bytes([c[0], c[1]]) % 4 != 0),
        code::WRITEMEM_CMD => payload.len() > 4 && (payload.len() - 4) % 4 != 0,
        _ => false,
    };
    if misaligned_length {
        Status::BAD_ALIGNMENT
    } else {
        Status::INVALID_PARAMETER
    }
}

impl Device {
    /// Builds the camera with the embedded [`GENICAM_XML`](super::GENICAM_XML).
    pub fn new(identity: DeviceIdentity, config: DeviceConfig) -> Result<Device, DeviceError> {
        Device::with_xml(identity, config, GENICAM_XML)
    }

    /// Builds the camera serving `xml` at the first URL, for tests and for
    /// cameras whose XML is generated.
    pub fn with_xml(
        identity: DeviceIdentity,
        config: DeviceConfig,
        xml: &'static [u8],
    ) -> Result<Device, DeviceError> {
        config.validate()?;
        let layout = IdentityLayout {
            strings: [
                (
                    "manufacturer",
                    bs::MANUFACTURER_NAME,
                    identity.manufacturer.as_str(),
                    32,
                ),
                ("model", bs::MODEL_NAME, identity.model.as_str(), 32),
                ("version", bs::DEVICE_VERSION, identity.version.as_str(), 32),
                ("info", bs::MANUFACTURER_INFO, identity.info.as_str(), 48),
                ("serial", bs::SERIAL_NUMBER, identity.serial.as_str(), 16),
                (
                    "user_name",
                    bs::USER_DEFINED_NAME,
                    identity.user_name.as_str(),
                    16,
                ),
            ],
            mac: identity.mac.0,
            ip: identity.ip.into(),
            subnet: identity.subnet.into(),
            gateway: identity.gateway.into(),
        };
        for (field, _, value, capacity) in layout.strings {
            // Leave room for the terminating NUL, as hosts expect C strings.
            if value.len() >= capacity {
                return Err(DeviceError::StringTooLong {
                    field,
                    value: value.to_string(),
                    len: value.len(),
                    max: capacity - 1,
                });
            }
        }
        if xml.len() > dev::XML_MAX_LEN as usize {
            return Err(DeviceError::XmlTooLarge {
                len: xml.len(),
                max: dev::XML_MAX_LEN,
                base: dev::XML_BASE,
            });
        }
        let url = first_url(XML_FILE_NAME, xml.len());
        let memory = Memory::new(&layout, &config, xml, &url);
        Ok(Device {
            boot_address: (identity.ip, identity.subnet, identity.gateway),
            identity,
            memory,
            control: ControlChannel::default(),
            acquiring: false,
            denied: AccessDenied::default(),
            timestamp_epoch: 0,
        })
    }

    /// Handles one datagram received on the GVCP port from `from` at `now` (ns).
    ///
    /// Only GVCP commands (key byte 0x42, 8-byte header) are considered;
    /// anything else is dropped silently so two devices cannot answer each
    /// other forever. An ack is produced only when the command sets
    /// ACK_REQUIRED, and never for a packet resend. Commands that cannot be
    /// parsed get an error ack echoing the header's request id:
    /// `NOT_IMPLEMENTED` for unknown codes, `INVALID_HEADER` for a length
    /// field beyond the datagram or a request id of 0, `BAD_ALIGNMENT` for a
    /// readmem/writemem byte count that is not a multiple of 4 and
    /// `INVALID_PARAMETER` for other malformed payloads.
    ///
    /// The reply goes back to `from`, except a discovery ack: it goes to
    /// 255.255.255.255 (at the sender's port) when the sender allowed a
    /// broadcast ack and is not on the device's subnet (so a unicast could
    /// not be routed back), or when the sender has no address yet.
    ///
    /// A heartbeat expiry due by `now` is processed first, so a late command
    /// from a host that already lost control is treated as a stranger's.
    pub fn handle_datagram(
        &mut self,
        datagram: &[u8],
        from: SocketAddrV4,
        now: u64,
    ) -> HandleResult {
        let mut events = Vec::new();
        self.expire(now, &mut events);
        let reply = self.dispatch(datagram, from, now, &mut events);
        HandleResult { reply, events }
    }

    /// Advances time to `now` (ns) without traffic: releases control when the
    /// heartbeat timeout has passed since the primary application was last
    /// heard (unless the heartbeat is disabled), stopping acquisition.
    pub fn handle_timeout(&mut self, now: u64) -> Vec<DeviceEvent> {
        let mut events = Vec::new();
        self.expire(now, &mut events);
        events
    }

    /// When (ns) [`Device::handle_timeout`] must next be called: the moment
    /// control expires, or `None` while nobody holds control or the
    /// heartbeat is disabled.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.control.deadline(self.heartbeat_timeout())
    }

    /// The heartbeat timeout in nanoseconds, or `None` when the primary
    /// application disabled it.
    pub fn heartbeat_timeout(&self) -> Option<u64> {
        (!self.memory.heartbeat_disabled())
            .then(|| u64::from(self.memory.heartbeat_timeout_ms) * 1_000_000)
    }

    /// The primary application's address, if a host holds control.
    pub fn controller(&self) -> Option<SocketAddrV4> {
        self.control.controller().map(|c| c.addr)
    }

    /// The privilege the primary application holds, if any.
    pub fn privilege(&self) -> Option<Privilege> {
        self.control.controller().map(|c| c.privilege)
    }

    /// Commands refused so far for want of privilege, by sender.
    pub fn access_denied(&self) -> AccessDenied {
        self.denied
    }

    /// Acquisition is running (started by the host, not yet stopped).
    pub fn acquiring(&self) -> bool {
        self.acquiring
    }

    /// Tells the device a single-frame or multi-frame acquisition finished
    /// by itself, which unlocks the image-format registers. Returns whether
    /// acquisition was running.
    pub fn acquisition_complete(&mut self) -> bool {
        core::mem::replace(&mut self.acquiring, false)
    }

    /// The stream sender's view of the registers.
    pub fn stream_config(&self) -> StreamConfig {
        let s = &self.memory.stream;
        let i = &self.memory.image;
        let destination = (s.port != 0 && s.destination != 0)
            .then(|| SocketAddrV4::new(Ipv4Addr::from(s.destination), s.port));
        StreamConfig {
            destination,
            packet_size: s.packet_size.into(),
            do_not_fragment: s.do_not_fragment,
            packet_delay_ticks: s.delay,
            extended_ids: self.memory.extended_ids(),
            width: i.width,
            height: i.height,
            offset_x: i.offset_x,
            offset_y: i.offset_y,
            pixel_format: i.pixel_format,
            payload_size: i.payload_size(),
            frame_rate: f64::from(i.frame_rate),
            acquisition_mode: i.acquisition_mode,
            frame_count: i.frame_count,
            trigger_mode_on: i.trigger_mode_on,
            test_pattern: i.test_pattern,
            transport: i.transport,
            transfer_size: i.transfer_size,
        }
    }

    /// Publishes the stream socket's local port in SCSP, which hosts read to
    /// filter (and Aravis to open its firewall path); call after binding.
    pub fn set_source_port(&mut self, port: u16) {
        self.memory.stream.source_port = port;
    }

    /// Publishes stream statistics in the read-only counter registers.
    pub fn set_counters(&mut self, counters: Counters) {
        self.memory.counters = [
            counters.frames_sent as u32,
            counters.frames_skipped as u32,
            counters.packets_resent as u32,
            counters.resend_unavailable as u32,
            u32::try_from(counters.trigger_latency_us).unwrap_or(u32::MAX),
        ];
    }

    /// The device timestamp at `now`: nanoseconds (ticks at 1 GHz) since the
    /// last timestamp reset, for GVSP leaders and the latch register.
    pub fn timestamp(&self, now: u64) -> u64 {
        now.saturating_sub(self.timestamp_epoch)
    }

    /// Timestamp ticks per second (the GVSP timestamp unit).
    pub fn tick_frequency(&self) -> u64 {
        TICK_FREQUENCY
    }

    /// The device's identity: as built, with the address configuration a
    /// FORCEIP may since have changed (the user-defined name may have been
    /// rewritten too; [`Device::discovery_ack`] has the live one).
    pub fn identity(&self) -> &DeviceIdentity {
        &self.identity
    }

    /// The discovery ack payload, built from the live bootstrap registers.
    pub fn discovery_ack(&self) -> DiscoveryAck {
        DiscoveryAck::parse(self.memory.discovery_bytes()).unwrap_or_default()
    }

    /// Reads a register as the device itself sees it, ignoring privileges:
    /// for tests, logging and the I/O layer.
    pub fn read_register(&self, address: u32) -> Result<u32, Status> {
        self.read_word(address)
    }

    fn expire(&mut self, now: u64, events: &mut Vec<DeviceEvent>) {
        if self.poll_timeout().is_some_and(|deadline| now >= deadline) {
            self.lose_control(ControlLossReason::HeartbeatExpired, events);
        }
    }

    fn lose_control(&mut self, reason: ControlLossReason, events: &mut Vec<DeviceEvent>) {
        if let Some(controller) = self.control.release() {
            self.after_control_lost(controller, reason, events);
        }
    }

    fn after_control_lost(
        &mut self,
        controller: SocketAddrV4,
        reason: ControlLossReason,
        events: &mut Vec<DeviceEvent>,
    ) {
        events.push(DeviceEvent::ControlLost { controller, reason });
        if core::mem::replace(&mut self.acquiring, false) {
            events.push(DeviceEvent::AcquisitionStop);
        }
        if self.memory.stream.port != 0 {
            self.memory.stream.port = 0;
            push_once(events, DeviceEvent::StreamConfigChanged);
        }
    }

    fn dispatch(
        &mut self,
        datagram: &[u8],
        from: SocketAddrV4,
        now: u64,
        events: &mut Vec<DeviceEvent>,
    ) -> Option<Reply> {
        let header = datagram.get(..gvcp::HEADER_LEN)?;
        if header.first() != Some(&gvcp::KEY) {
            return None;
        }
        let flag_bits = header.get(1).copied().unwrap_or_default();
        let command_code = u16::from_be_bytes([header[2], header[3]]);
        let request_id = u16::from_be_bytes([header[6], header[7]]);
        self.control.heard_from(from, now);

        let wants_ack =
            flag_bits & flags::ACK_REQUIRED != 0 && command_code != code::PACKET_RESEND_CMD;
        let error = |status: Status| {
            let ack = Ack::Bare {
                answer: command_code.wrapping_add(1),
            };
            (status, ack)
        };
        let (status, ack, to) = match CommandPacket::new_checked(datagram) {
            Err(_) => {
                let (s, a) = error(Status::INVALID_HEADER);
                (s, a, from)
            }
            Ok(_) if request_id == 0 => {
                let (s, a) = error(Status::INVALID_HEADER);
                (s, a, from)
            }
            Ok(packet) => match CommandRepr::parse(&packet) {
                Err(e) => {
                    let (s, a) = error(parse_error_status(command_code, packet.payload(), &e));
                    (s, a, from)
                }
                Ok(command) => {
                    let forced = matches!(command.command, Command::ForceIp(_));
                    let mut to = match command.command {
                        Command::Discovery => self.discovery_destination(from, command.flags),
                        _ => from,
                    };
                    let (s, a) = self.execute(command.command, from, now, events)?;
                    if forced {
                        // Answered like discovery, from the new address: by
                        // broadcast when the sender is not on its subnet.
                        to = self.discovery_destination(from, command.flags);
                    }
                    if s == Status::ACCESS_DENIED {
                        self.count_denied(from);
                    }
                    (s, a, to)
                }
            },
        };
        if !wants_ack {
            return None;
        }
        let repr = AckRepr {
            status,
            ack_id: request_id,
            ack,
        };
        let datagram = repr.to_vec().or_else(|_| {
            AckRepr {
                status: Status::ERROR,
                ack_id: request_id,
                ack: Ack::Bare {
                    answer: command_code.wrapping_add(1),
                },
            }
            .to_vec()
        });
        datagram.ok().map(|datagram| Reply { to, datagram })
    }

    /// Runs a parsed command; `None` means the device stays silent.
    fn execute(
        &mut self,
        command: Command,
        from: SocketAddrV4,
        now: u64,
        events: &mut Vec<DeviceEvent>,
    ) -> Option<(Status, Ack)> {
        Some(match command {
            Command::Discovery => (
                Status::SUCCESS,
                Ack::Discovery(Box::new(self.discovery_ack())),
            ),
            Command::Bye => {
                if self.control.is_controller(from) {
                    self.lose_control(ControlLossReason::Bye, events);
                }
                (Status::SUCCESS, Ack::Bye)
            }
            Command::ForceIp(force) => {
                if force.mac != self.identity.mac {
                    // Addressed to another device on the segment.
                    return None;
                }
                // Moving a camera from under the host that controls it
                // would end that host's session: refused while controlled.
                if self.control.controller().is_some() {
                    return Some((Status::ACCESS_DENIED, Ack::Bye));
                }
                let (ip, subnet_mask, gateway) = if force.ip.is_unspecified() {
                    self.boot_address
                } else {
                    (force.ip, force.subnet_mask, force.gateway)
                };
                let mask = u32::from(subnet_mask);
                let valid_mask = mask != 0 && mask.leading_ones() + mask.trailing_zeros() == 32;
                if ip.is_broadcast() || ip.is_multicast() || ip.is_loopback() || !valid_mask {
                    return Some((Status::INVALID_PARAMETER, Ack::Bye));
                }
                self.identity.ip = ip;
                self.identity.subnet = subnet_mask;
                self.identity.gateway = gateway;
                self.memory
                    .set_current_ip(ip.into(), subnet_mask.into(), gateway.into());
                events.push(DeviceEvent::AddressForced {
                    ip,
                    subnet_mask,
                    gateway,
                });
                (Status::SUCCESS, Ack::Bye)
            }
            Command::ReadReg { addresses } => {
                if !self.control.may_read(from) {
                    return Some((
                        Status::ACCESS_DENIED,
                        Ack::Bare {
                            answer: code::READREG_ACK,
                        },
                    ));
                }
                let mut values = Vec::with_capacity(addresses.len());
                for address in addresses {
                    match self.read_word(address) {
                        Ok(v) => values.push(v),
                        // The ack carries the values read before the failure.
                        Err(status) => return Some((status, Ack::ReadReg { values })),
                    }
                }
                (Status::SUCCESS, Ack::ReadReg { values })
            }
            Command::WriteReg { writes } => {
                for (index, w) in writes.iter().enumerate() {
                    if let Err(status) = self.write_word(w.address, w.value, from, now, events) {
                        let index = u16::try_from(index).unwrap_or(u16::MAX);
                        return Some((status, Ack::WriteReg { index }));
                    }
                }
                let index = u16::try_from(writes.len()).unwrap_or(u16::MAX);
                (Status::SUCCESS, Ack::WriteReg { index })
            }
            Command::ReadMem { address, count } => {
                let bare = |status| {
                    (
                        status,
                        Ack::Bare {
                            answer: code::READMEM_ACK,
                        },
                    )
                };
                if !self.control.may_read(from) {
                    return Some(bare(Status::ACCESS_DENIED));
                }
                if address % 4 != 0 {
                    return Some(bare(Status::BAD_ALIGNMENT));
                }
                let mut data = Vec::with_capacity(count.into());
                for offset in (0..u32::from(count)).step_by(4) {
                    let word = address
                        .checked_add(offset)
                        .ok_or(Status::INVALID_ADDRESS)
                        .and_then(|a| self.read_word(a));
                    match word {
                        Ok(v) => data.extend_from_slice(&v.to_be_bytes()),
                        Err(status) => return Some(bare(status)),
                    }
                }
                (Status::SUCCESS, Ack::ReadMem { address, data })
            }
            Command::WriteMem { address, data } => {
                if address % 4 != 0 {
                    return Some((Status::BAD_ALIGNMENT, Ack::WriteMem { index: 0 }));
                }
                for (i, chunk) in data.chunks_exact(4).enumerate() {
                    let offset = 4 * i;
                    let value = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                    let result = u32::try_from(offset)
                        .ok()
                        .and_then(|o| address.checked_add(o))
                        .ok_or(Status::INVALID_ADDRESS)
                        .and_then(|a| self.write_word(a, value, from, now, events));
                    if let Err(status) = result {
                        // The index is the number of bytes written before the failure.
                        let index = u16::try_from(offset).unwrap_or(u16::MAX);
                        return Some((status, Ack::WriteMem { index }));
                    }
                }
                let index = u16::try_from(data.len()).unwrap_or(u16::MAX);
                (Status::SUCCESS, Ack::WriteMem { index })
            }
            Command::PacketResend(request) => {
                if self.resend_allowed(&request, from) {
                    events.push(DeviceEvent::PacketResend(request));
                }
                return None;
            }
        })
    }

    fn count_denied(&mut self, from: SocketAddrV4) {
        let same_ip = self
            .control
            .controller()
            .is_some_and(|c| c.addr.ip() == from.ip());
        let counter = if same_ip {
            &mut self.denied.controller_ip_other_port
        } else {
            &mut self.denied.other_hosts
        };
        *counter = counter.saturating_add(1);
    }

    fn read_word(&self, address: u32) -> Result<u32, Status> {
        if address % 4 != 0 {
            return Err(Status::BAD_ALIGNMENT);
        }
        if address == bs::CONTROL_CHANNEL_PRIVILEGE {
            return Ok(self.control.ccp_value());
        }
        if address == dev::ACQUISITION_STATUS {
            return Ok(u32::from(self.acquiring));
        }
        self.memory.read(address)
    }

    fn write_word(
        &mut self,
        address: u32,
        value: u32,
        from: SocketAddrV4,
        now: u64,
        events: &mut Vec<DeviceEvent>,
    ) -> Result<(), Status> {
        if address % 4 != 0 {
            return Err(Status::BAD_ALIGNMENT);
        }
        if address == bs::CONTROL_CHANNEL_PRIVILEGE {
            return self.write_ccp(value, from, now, events);
        }
        // Every other write needs control (no switchover, no exceptions):
        // the controlling application's IP address *and* UDP port.
        if !self.control.is_controller(from) {
            return Err(Status::ACCESS_DENIED);
        }
        if address == dev::ACQUISITION_STATUS {
            return Err(Status::WRITE_PROTECT);
        }
        if address == bs::TIMESTAMP_CONTROL {
            // Reset (bit 0) happens before latch (bit 1) when both are set.
            if value & 0x1 != 0 {
                self.timestamp_epoch = now;
            }
            if value & 0x2 != 0 {
                self.memory.latched_timestamp = self.timestamp(now);
            }
            return Ok(());
        }
        let effect = self.memory.write(address, value, self.acquiring)?;
        if effect.stream_changed {
            push_once(events, DeviceEvent::StreamConfigChanged);
        }
        match effect.command {
            Some(CommandRegister::AcquisitionStart) if !self.acquiring => {
                self.acquiring = true;
                events.push(DeviceEvent::AcquisitionStart);
            }
            Some(CommandRegister::AcquisitionStop) if self.acquiring => {
                self.acquiring = false;
                events.push(DeviceEvent::AcquisitionStop);
            }
            Some(CommandRegister::TriggerSoftware) => events.push(DeviceEvent::TriggerSoftware),
            Some(CommandRegister::FireTestPacket) => events.push(DeviceEvent::FireTestPacket),
            _ => {}
        }
        Ok(())
    }

    fn write_ccp(
        &mut self,
        value: u32,
        from: SocketAddrV4,
        now: u64,
        events: &mut Vec<DeviceEvent>,
    ) -> Result<(), Status> {
        match self.control.write(value, from, now)? {
            CcpOutcome::Unchanged => {}
            CcpOutcome::Granted(p) | CcpOutcome::Changed(p) => {
                events.push(DeviceEvent::ControlGranted {
                    controller: from,
                    exclusive: p == Privilege::Exclusive,
                });
            }
            CcpOutcome::Released => {
                self.after_control_lost(from, ControlLossReason::Released, events);
            }
        }
        Ok(())
    }

    /// A resend is honoured for stream channel 0 only, while it has a
    /// destination, when asked by the stream's receiving host (Aravis asks
    /// from its stream socket, not its control socket), by the primary
    /// application's host, or by anyone for a multicast stream.
    fn resend_allowed(&self, request: &PacketResend, from: SocketAddrV4) -> bool {
        if request.channel != 0 {
            return false;
        }
        let Some(destination) = self.stream_config().destination else {
            return false;
        };
        destination.ip().is_multicast()
            || from.ip() == destination.ip()
            || self
                .control
                .controller()
                .is_some_and(|c| c.addr.ip() == from.ip())
    }

    fn discovery_destination(&self, from: SocketAddrV4, command_flags: u8) -> SocketAddrV4 {
        let mask = u32::from(self.identity.subnet);
        let own = u32::from(self.identity.ip);
        let on_subnet =
            !self.identity.ip.is_unspecified() && (u32::from(*from.ip()) & mask) == (own & mask);
        let may_broadcast = command_flags & flags::ALLOW_BROADCAST_ACK != 0;
        if from.ip().is_unspecified() || (may_broadcast && !on_subnet) {
            SocketAddrV4::new(Ipv4Addr::BROADCAST, from.port())
        } else {
            from
        }
    }
}

fn push_once(events: &mut Vec<DeviceEvent>, event: DeviceEvent) {
    if !events.contains(&event) {
        events.push(event);
    }
}
