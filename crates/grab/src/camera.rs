//! A GigE Vision camera as a host uses it: control connection, GenICam
//! features by name, and streams pointed at this host.

use std::net::Ipv4Addr;
use std::time::Duration;

use linerate_genicam::{FeatureValue, Features, PortError, RegisterPort};
use linerate_gev::assembler::Config as AssemblerConfig;
use linerate_gev::device::registers::bootstrap::{self, gvsp_configuration};
use linerate_wire::gvsp::{EXTENDED_HEADER_LEN, IP_UDP_OVERHEAD, STANDARD_HEADER_LEN};

use crate::control::{Control, ControlConfig};
use crate::discovery;
use crate::error::{Error, Interference, RegisterChange, Result, Shown};
use crate::receive::{Backend, ReceiveConfig, Transport};
use crate::stream::{Stream, StreamConfig};

/// Identity strings read from the bootstrap registers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Camera address.
    pub ip: Option<Ipv4Addr>,
    /// Manufacturer name.
    pub vendor: String,
    /// Model name.
    pub model: String,
    /// Serial number.
    pub serial: String,
    /// Device version.
    pub version: String,
}

/// How to receive a stream from the camera.
#[derive(Debug, Clone)]
pub struct StreamOptions {
    /// GVSP over UDP (any camera) or linerate's GVSP over TCP (a camera
    /// with the `LinerateTransport` feature).
    pub transport: Transport,
    /// TCP: image bytes per record (the `LinerateTransferSize` feature);
    /// `None` keeps the camera's setting (0 there follows the packet size).
    pub transfer_size: Option<u32>,
    /// Receive backend (UDP).
    pub backend: Backend,
    /// Buffers the application will lend at once.
    pub max_buffers: usize,
    /// Pin the receive thread to this CPU.
    pub cpu: Option<usize>,
    /// SO_BUSY_POLL microseconds.
    pub busy_poll_us: Option<u32>,
    /// Receive moderation in microseconds (see [`ReceiveConfig::coalesce_us`]);
    /// `None` keeps the default.
    pub coalesce_us: Option<u32>,
    /// Receive buffer bytes (default from the payload size).
    pub recv_buffer: Option<usize>,
    /// Assembler tweaks: resend planning and retention. Payload and packet
    /// sizes are filled in from the camera.
    pub assembler: Option<AssemblerConfig>,
    /// Local UDP port (0: any).
    pub port: u16,
    /// Connect the stream socket to the camera's stream source port when
    /// the camera reports it (SCSP): the kernel then filters other senders
    /// and skips the route lookup per packet.
    pub connect: bool,
    /// `mmsg`: turn UDP GRO on and take coalesced trains whole.
    pub gro: bool,
}

impl DeviceInfo {
    /// Reads the identity strings over `control` (empty where a read fails).
    pub(crate) fn read(control: &Control, ip: Ipv4Addr) -> DeviceInfo {
        let read = |addr, len| control.read_string(addr, len).unwrap_or_default();
        DeviceInfo {
            ip: Some(ip),
            vendor: read(bootstrap::MANUFACTURER_NAME, 32),
            model: read(bootstrap::MODEL_NAME, 32),
            serial: read(bootstrap::SERIAL_NUMBER, 16),
            version: read(bootstrap::DEVICE_VERSION, 32),
        }
    }
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            transport: Transport::Udp,
            transfer_size: None,
            backend: Backend::default(),
            max_buffers: 16,
            cpu: None,
            busy_poll_us: None,
            coalesce_us: None,
            recv_buffer: None,
            assembler: None,
            port: 0,
            connect: true,
            gro: true,
        }
    }
}

/// An open camera.
#[derive(Debug)]
pub struct Camera {
    control: Control,
    features: Option<Features>,
    info: DeviceInfo,
    /// We started a continuous acquisition and have not stopped it: the
    /// camera's `AcquisitionStatus` (if it has one) must read true.
    acquiring: bool,
}

/// Adapts the control connection to the GenICam crate's register port.
pub(crate) struct Port<'a>(pub(crate) &'a Control);

impl RegisterPort for Port<'_> {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> std::result::Result<(), PortError> {
        let a = u32::try_from(address)
            .map_err(|_| PortError::read(address, buf.len(), "address beyond 32 bits"))?;
        self.0
            .read_mem(a, buf)
            .map_err(|e| PortError::read(address, buf.len(), e))
    }

    fn write(&mut self, address: u64, data: &[u8]) -> std::result::Result<(), PortError> {
        let a = u32::try_from(address)
            .map_err(|_| PortError::write(address, data.len(), "address beyond 32 bits"))?;
        self.0
            .write_mem(a, data)
            .map_err(|e| PortError::write(address, data.len(), e))
    }
}

impl Camera {
    /// Opens `target` (an IPv4 address, `IP:PORT` for a device on another
    /// GVCP port, or a serial number or user name found by discovery) and
    /// takes control of it.
    pub fn open(target: &str, config: &ControlConfig) -> Result<Camera> {
        let addr = discovery::resolve_addr(target, config.local, Duration::from_millis(500))?;
        let ip = *addr.ip();
        let control = Control::open_port(addr, config)?;
        let info = DeviceInfo::read(&control, ip);
        Ok(Camera {
            control,
            features: None,
            info,
            acquiring: false,
        })
    }

    /// Identity of the camera.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The control connection (registers, memory, control-loss check).
    pub fn control(&self) -> &Control {
        &self.control
    }

    /// Runs `f` on the feature tree, fetching and parsing the camera's
    /// XML the first time, with a register port onto the control connection.
    fn with_features<T>(
        &mut self,
        f: impl FnOnce(&mut Features, &mut Port<'_>) -> std::result::Result<T, linerate_genicam::Error>,
    ) -> Result<T> {
        let mut port = Port(&self.control);
        let features = match self.features.as_mut() {
            Some(features) => features,
            None => {
                let xml = linerate_genicam::fetch_xml(&mut port).map_err(genicam_err)?;
                self.features
                    .insert(Features::from_xml(&xml).map_err(genicam_err)?)
            }
        };
        f(features, &mut port).map_err(genicam_err)
    }

    /// Reads a feature by name.
    pub fn get(&mut self, name: &str) -> Result<FeatureValue> {
        self.with_features(|f, port| f.get(port, name))
    }

    /// Sets a feature from text ("1024", "Mono8", "true", "30.0"), checked
    /// against the feature's Min/Max/Inc or enumeration entries first.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        self.with_features(|f, port| f.set(port, name, value))
    }

    /// Executes a command feature (AcquisitionStart, TriggerSoftware, ...).
    pub fn execute(&mut self, name: &str) -> Result<()> {
        self.with_features(|f, port| f.execute(port, name))
    }

    /// Bytes per frame (the PayloadSize feature).
    pub fn payload_size(&mut self) -> Result<usize> {
        match self.get("PayloadSize")? {
            FeatureValue::Integer(n) => usize::try_from(n).map_err(|_| Error::BadSetting {
                what: "PayloadSize",
                value: n.to_string(),
                why: "the camera reports a negative payload size".into(),
            }),
            other => Err(Error::BadSetting {
                what: "PayloadSize",
                value: format!("{other:?}"),
                why: "not an integer".into(),
            }),
        }
    }

    /// Sets the stream packet size (SCPS0: IP + UDP + GVSP headers + data).
    pub fn set_packet_size(&mut self, bytes: u32) -> Result<()> {
        if !(576..=16_000).contains(&bytes) {
            return Err(Error::BadSetting {
                what: "packet size",
                value: bytes.to_string(),
                why: "must be within 576..=16000 bytes".into(),
            });
        }
        self.control.write_reg(scps_address(), bytes)
    }

    /// Sets the gap between the stream's packets (SCPD0), converted from
    /// nanoseconds to the camera's timestamp ticks. A camera that sends
    /// faster than the host's link or NIC ring drains loses packets in
    /// bursts; a delay paces it (e.g. 6400 ns for 8000-byte packets at
    /// 10 Gbit/s).
    pub fn set_packet_delay_ns(&mut self, ns: u64) -> Result<()> {
        let high = u64::from(
            self.control
                .read_reg(bootstrap::TIMESTAMP_TICK_FREQUENCY_HIGH)?,
        );
        let low = u64::from(
            self.control
                .read_reg(bootstrap::TIMESTAMP_TICK_FREQUENCY_LOW)?,
        );
        let hz = (high << 32) | low;
        // A camera without a timestamp clock reports 0: take ticks as ns.
        let ticks = if hz == 0 {
            ns
        } else {
            (u128::from(ns) * u128::from(hz) / 1_000_000_000) as u64
        };
        let ticks = u32::try_from(ticks).map_err(|_| Error::BadSetting {
            what: "packet delay",
            value: format!("{ns} ns"),
            why: format!("{ticks} timestamp ticks do not fit the 32-bit SCPD register"),
        })?;
        self.control
            .write_reg(bootstrap::STREAM_CHANNEL_BASE + bootstrap::SCPD, ticks)
    }

    /// The stream packet size in force.
    pub fn packet_size(&self) -> Result<u32> {
        Ok(self.control.read_reg(scps_address())? & 0xffff)
    }

    /// Opens a receive stream and points the camera's channel 0 at it.
    pub fn stream(&mut self, options: &StreamOptions) -> Result<Stream> {
        let payload = self.payload_size()?;
        let packet = self.packet_size()? as usize;
        let extended = self
            .control
            .read_reg(bootstrap::GVSP_CONFIGURATION)
            .map(|v| v & gvsp_configuration::EXTENDED_IDS != 0)
            .unwrap_or(false);
        let header = if extended {
            EXTENDED_HEADER_LEN
        } else {
            STANDARD_HEADER_LEN
        };
        let udp_data = packet.checked_sub(IP_UDP_OVERHEAD + header);
        let data_per_packet = match options.transport {
            Transport::Udp => {
                self.select_transport(Transport::Udp)?;
                udp_data
            }
            Transport::Tcp => {
                self.select_transport(Transport::Tcp)?;
                if let Some(n) = options.transfer_size {
                    self.set("LinerateTransferSize", &n.to_string())?;
                }
                match self.get("LinerateTransferSize")? {
                    FeatureValue::Integer(n) if n > 0 => usize::try_from(n).ok(),
                    _ => udp_data,
                }
            }
        };
        let device_ip = *self.control.device().ip();
        let local_ip = self.control.local_ip();
        let mut receive = ReceiveConfig::new(local_ip, device_ip, payload);
        receive.transport = options.transport;
        receive.backend = options.backend;
        receive.busy_poll_us = options.busy_poll_us;
        if let Some(us) = options.coalesce_us {
            receive.coalesce_us = us;
        }
        receive.port = options.port;
        receive.gro = options.gro;
        receive.max_record = data_per_packet.map_or(0, |d| d + 64);
        if options.connect && options.transport == Transport::Udp {
            // SCSP (GigE Vision 2.0): where the stream comes from; 0 or
            // unreadable on devices that do not say.
            receive.source_port = self
                .control
                .read_reg(bootstrap::STREAM_CHANNEL_BASE + bootstrap::SCSP)
                .ok()
                .and_then(|v| u16::try_from(v & 0xffff).ok())
                .filter(|&p| p != 0);
        }
        if let Some(b) = options.recv_buffer {
            receive.recv_buffer = b;
        }
        let mut assembler = options
            .assembler
            .clone()
            .unwrap_or_else(|| AssemblerConfig::new(payload));
        assembler.max_payload_size = payload;
        // Frames waiting for resends stay assembled while newer ones
        // arrive: half the pool, so the other half serves the application.
        assembler.max_frames_in_flight = (options.max_buffers / 2).clamp(1, 32);
        assembler.data_per_packet = data_per_packet.filter(|&d| d > 0);
        // Packets of the other id form are not this stream's: ignored.
        assembler.extended_ids = Some(extended);
        let resend = match options.transport {
            Transport::Udp => Some(self.control.resend_sender()?),
            Transport::Tcp => {
                // TCP is reliable: nothing to ask again, and frames complete in order.
                assembler.resend.enabled = false;
                None
            }
        };
        let stream = Stream::start(
            StreamConfig {
                receive,
                assembler,
                max_buffers: options.max_buffers,
                cpu: options.cpu,
            },
            resend,
            Some(self.control.watch()),
        )?;
        let base = bootstrap::STREAM_CHANNEL_BASE;
        self.control
            .write_reg(base + bootstrap::SCDA, u32::from(local_ip))?;
        self.control
            .write_reg(base + bootstrap::SCP, u32::from(stream.port()))?;
        // Someone else rewriting these steals or ends the stream: the
        // heartbeat reads them back and names the change.
        self.control.expect_register(
            base + bootstrap::SCDA,
            u32::from(local_ip),
            u32::MAX,
            "SCDA0 (stream destination address)",
            "the stream is sent elsewhere",
            Shown::Ipv4,
        );
        self.control.expect_register(
            base + bootstrap::SCP,
            u32::from(stream.port()),
            // The port; the camera may report its interface and direction above it.
            0xffff,
            "SCP0 (stream destination port)",
            "the stream is sent elsewhere, or closed if 0",
            Shown::Decimal,
        );
        Ok(stream)
    }

    /// Chooses the stream transport on a camera that offers linerate's
    /// `LinerateTransport` feature. UDP is every camera's only transport,
    /// so a camera without the feature is fine for UDP and an error for TCP.
    fn select_transport(&mut self, transport: Transport) -> Result<()> {
        let entry = match transport {
            Transport::Udp => "GvspUdp",
            Transport::Tcp => "GvspTcp",
        };
        match self.set("LinerateTransport", entry) {
            Ok(()) => Ok(()),
            Err(_) if transport == Transport::Udp => Ok(()),
            Err(e) => Err(Error::BadSetting {
                what: "transport",
                value: "tcp".into(),
                why: format!(
                    "camera {} {} does not offer linerate's GVSP over TCP (LinerateTransport = GvspTcp failed: {e})",
                    self.info.vendor, self.info.model
                ),
            }),
        }
    }

    /// The local address facing the camera (where streams are received).
    pub fn local_ip(&self) -> Ipv4Addr {
        self.control.local_ip()
    }

    /// Starts acquisition (the AcquisitionStart command).
    pub fn start(&mut self) -> Result<()> {
        self.execute("AcquisitionStart")?;
        // A continuous acquisition runs until we stop it, so a camera whose
        // AcquisitionStatus then reads false was stopped by someone else.
        let continuous =
            matches!(self.get("AcquisitionMode"), Ok(FeatureValue::Enum(m)) if m == "Continuous");
        self.acquiring =
            continuous && matches!(self.get("AcquisitionStatus"), Ok(FeatureValue::Bool(true)));
        Ok(())
    }

    /// Stops acquisition (the AcquisitionStop command).
    pub fn stop(&mut self) -> Result<()> {
        self.acquiring = false;
        self.execute("AcquisitionStop")
    }

    /// Tells a stalled or stopped stream apart from interference: reads back
    /// what this host set (stream destination, control privilege and, on a
    /// camera with `AcquisitionStatus`, that the continuous acquisition we
    /// started still runs). `Err(ControlInterference)` names every change,
    /// `Err(ControlLost)` says control is gone, `Ok` means nothing we set
    /// was changed (the camera or the network is at fault).
    pub fn check_interference(&mut self) -> Result<()> {
        let mut changes = Vec::new();
        if self.acquiring && matches!(self.get("AcquisitionStatus"), Ok(FeatureValue::Bool(false)))
        {
            changes.push(Interference::Register(RegisterChange {
                name: "AcquisitionStatus",
                meaning: "the acquisition we started was stopped",
                expected: 1,
                found: 0,
                shown_as: Shown::Decimal,
            }));
        }
        match self.control.check_interference() {
            Ok(()) => {}
            Err(Error::ControlInterference { changes: c, .. }) => {
                for i in c {
                    if !changes.contains(&i) {
                        changes.push(i);
                    }
                }
            }
            Err(e) => return Err(e),
        }
        if changes.is_empty() {
            Ok(())
        } else {
            Err(Error::ControlInterference {
                device: self.control.device(),
                changes,
            })
        }
    }
}

fn scps_address() -> u32 {
    bootstrap::STREAM_CHANNEL_BASE + bootstrap::SCPS
}

fn genicam_err(e: linerate_genicam::Error) -> Error {
    Error::GenICam(Box::new(e))
}
