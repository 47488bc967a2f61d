//! The device module: a camera this producer controls (its GVCP control
//! connection and heartbeat), its remote device port (the camera's own
//! registers and GenICam XML, zipped or plain as the camera publishes it)
//! and the device module's own small port.

use std::sync::{Mutex, MutexGuard};

use linerate_grab::discovery::Found;
use linerate_grab::genicam::{
    parse_url, read_memory, read_url, write_memory, FeatureValue, PortError, RegisterPort,
    XmlLocation,
};
use linerate_grab::session::Acquisition;
use linerate_grab::{Camera, Control, ControlConfig};

use crate::abi::{access_flags, port_info, url_info, url_scheme};
use crate::error::{GcError, GcResult};
use crate::info::Info;
use crate::local_port::{Field, FieldKind, Fields, LocalPort, Value};
use crate::system::{device_id, lock, TL_TYPE};

/// Bootstrap registers holding the first and second XML URL.
const URL_REGISTERS: [u64; 2] = [0x200, 0x400];

/// Who holds the control connection: the device while idle, the running
/// acquisition while the stream acquires.
#[derive(Debug)]
pub enum Connection {
    /// No acquisition: the device holds the camera.
    Idle(Box<Camera>),
    /// The data stream acquires; the camera is inside the acquisition.
    Acquiring(Box<Acquisition>),
    /// The connection was lost when an acquisition could not start.
    Lost(String),
}

impl Connection {
    /// The camera, wherever it is now.
    pub fn camera(&mut self) -> GcResult<&mut Camera> {
        match self {
            Connection::Idle(c) => Ok(c),
            Connection::Acquiring(a) => Ok(a.camera_mut()),
            Connection::Lost(why) => Err(GcError::Io(format!("the device is lost: {why}"))),
        }
    }
}

/// GenICam's view of the control connection.
struct ControlPort<'a>(&'a Control);

impl RegisterPort for ControlPort<'_> {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), PortError> {
        let a = u32::try_from(address)
            .map_err(|_| PortError::read(address, buf.len(), "address beyond 32 bits"))?;
        self.0
            .read_mem(a, buf)
            .map_err(|e| PortError::read(address, buf.len(), e))
    }

    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), PortError> {
        let a = u32::try_from(address)
            .map_err(|_| PortError::write(address, data.len(), "address beyond 32 bits"))?;
        self.0
            .write_mem(a, data)
            .map_err(|e| PortError::write(address, data.len(), e))
    }
}

static DEVICE_FIELDS: [Field; 5] = [
    Field {
        name: "DeviceID",
        kind: FieldKind::Text(64),
        writable: false,
        tooltip: "The device's ID in this producer (its address).",
    },
    Field {
        name: "DeviceVendorName",
        kind: FieldKind::Text(64),
        writable: false,
        tooltip: "Vendor of the device.",
    },
    Field {
        name: "DeviceModelName",
        kind: FieldKind::Text(64),
        writable: false,
        tooltip: "Model of the device.",
    },
    Field {
        name: "DeviceSerialNumber",
        kind: FieldKind::Text(64),
        writable: false,
        tooltip: "Serial number of the device.",
    },
    Field {
        name: "GevDeviceIPAddress",
        kind: FieldKind::Int {
            min: 0,
            max: u32::MAX as i64,
        },
        writable: false,
        tooltip: "IPv4 address of the device.",
    },
];

/// An opened device.
#[derive(Debug)]
pub struct Device {
    /// What discovery said about it.
    pub found: Found,
    /// The control connection, wherever it is.
    connection: Mutex<Connection>,
    /// The XML URLs the camera publishes (first and second register).
    urls: Vec<String>,
    /// The device module's own port.
    pub port: LocalPort,
    /// The local address facing the camera.
    pub interface: std::net::Ipv4Addr,
    /// The camera's timestamp ticks per second, read once at open (it
    /// never changes): consumers ask for it with every frame.
    tick_hz: Option<u64>,
}

impl Device {
    /// Takes control of the device `found` on the interface at `local`.
    pub fn open(found: Found, local: std::net::Ipv4Addr, flags: i32) -> GcResult<Device> {
        let exclusive = match flags {
            access_flags::EXCLUSIVE => true,
            access_flags::CONTROL => false,
            access_flags::READONLY => {
                return Err(GcError::AccessDenied(
                    "read-only access is not offered: open with DEVICE_ACCESS_CONTROL or DEVICE_ACCESS_EXCLUSIVE".into(),
                ))
            }
            other => {
                return Err(GcError::InvalidParameter(format!(
                    "DEVICE_ACCESS_FLAGS {other} is not a mode this producer opens devices in"
                )))
            }
        };
        let config = ControlConfig {
            local: Some(local),
            exclusive,
            ..ControlConfig::default()
        };
        let target = device_id(&found);
        let mut camera = Camera::open(&target, &config).map_err(|e| {
            let text = format!("opening {target}: {e}");
            if matches!(e, linerate_grab::Error::ControlTaken { .. }) {
                GcError::AccessDenied(text)
            } else {
                GcError::Io(text)
            }
        })?;
        let urls = {
            let mut port = ControlPort(camera.control());
            URL_REGISTERS
                .iter()
                .filter_map(|&a| read_url(&mut port, a).ok())
                .filter(|u| !u.trim_matches(char::from(0)).trim().is_empty())
                .collect()
        };
        let tick_hz = match camera.get("GevTimestampTickFrequency") {
            Ok(FeatureValue::Integer(n)) if n > 0 => Some(n.unsigned_abs()),
            _ => None,
        };
        Ok(Device {
            tick_hz,
            found,
            connection: Mutex::new(Connection::Idle(Box::new(camera))),
            urls,
            port: LocalPort::new(
                "TLDevice",
                "TLDevicePort",
                "linerate_device.xml",
                &DEVICE_FIELDS,
            ),
            interface: local,
        })
    }

    /// The control connection, locked.
    pub fn connection(&self) -> MutexGuard<'_, Connection> {
        lock(&self.connection)
    }

    /// Gives the camera back (`DevClose`): the acquisition, if any, stops,
    /// the heartbeat thread is joined and control is released, even while
    /// a call on another thread still holds this module.
    pub fn release(&self) {
        let closed = std::mem::replace(
            &mut *self.connection(),
            Connection::Lost("the device is closed".into()),
        );
        drop(closed);
    }

    /// Reopens the camera after an acquisition that could not start took
    /// the connection with it.
    pub fn reopen(&self) -> GcResult<Camera> {
        let config = ControlConfig {
            local: Some(self.interface),
            ..ControlConfig::default()
        };
        Camera::open(&device_id(&self.found), &config).map_err(|e| GcError::Io(e.to_string()))
    }

    /// Reads the camera's memory (any address and length: the GVCP
    /// alignment is handled here).
    pub fn read_remote(&self, address: u64, len: usize) -> GcResult<Vec<u8>> {
        let mut conn = self.connection();
        let camera = conn.camera()?;
        let mut buf = vec![0u8; len];
        read_memory(&mut ControlPort(camera.control()), address, &mut buf)
            .map_err(|e| GcError::Io(e.to_string()))?;
        Ok(buf)
    }

    /// Writes the camera's memory.
    pub fn write_remote(&self, address: u64, data: &[u8]) -> GcResult<()> {
        if address % 4 != 0 || data.len() % 4 != 0 {
            return Err(GcError::InvalidAddress {
                address,
                len: data.len(),
            });
        }
        let mut conn = self.connection();
        let camera = conn.camera()?;
        write_memory(&mut ControlPort(camera.control()), address, data)
            .map_err(|e| GcError::Io(e.to_string()))
    }

    /// The camera's bytes per frame (its PayloadSize feature, read now).
    pub fn payload_size(&self) -> GcResult<usize> {
        let mut conn = self.connection();
        if let Connection::Acquiring(a) = &*conn {
            return Ok(a.info().payload_size);
        }
        conn.camera()?
            .payload_size()
            .map_err(|e| GcError::Io(format!("reading PayloadSize: {e}")))
    }

    /// The camera's timestamp ticks per second.
    pub fn tick_frequency(&self) -> GcResult<u64> {
        self.tick_hz.ok_or_else(|| {
            GcError::NotAvailable("the camera does not say its timestamp frequency".into())
        })
    }

    /// The number of XML URLs the camera publishes.
    pub fn url_count(&self) -> u32 {
        u32::try_from(self.urls.len()).unwrap_or(u32::MAX)
    }

    /// Answers `GCGetPortURLInfo` for the remote port's URL `index`.
    pub fn url_info(&self, index: u32, command: i32) -> GcResult<Info> {
        let url = self.urls.get(index as usize).ok_or(GcError::InvalidIndex {
            index: u64::from(index),
            count: self.urls.len() as u64,
        })?;
        let url = url.trim_matches(char::from(0)).trim().to_string();
        let location = parse_url(&url).ok();
        let local = match location {
            Some(XmlLocation::Local {
                file_name,
                address,
                length,
                ..
            }) => Some((file_name, address, length)),
            _ => None,
        };
        let unknown = || GcError::NotAvailable(format!("the URL {url:?} does not say"));
        Ok(match command {
            url_info::URL => Info::Str(url.clone()),
            url_info::SCHEME if local.is_some() => Info::I32(url_scheme::LOCAL),
            url_info::FILENAME => Info::Str(local.ok_or_else(unknown)?.0),
            url_info::FILE_REGISTER_ADDRESS => Info::U64(local.ok_or_else(unknown)?.1),
            url_info::FILE_SIZE => Info::U64(local.ok_or_else(unknown)?.2 as u64),
            url_info::SCHEMA_VER_MAJOR | url_info::SCHEMA_VER_MINOR => {
                let version = schema_version(&url).ok_or_else(unknown)?;
                Info::I32(if command == url_info::SCHEMA_VER_MAJOR {
                    version.0
                } else {
                    version.1
                })
            }
            url_info::SCHEME
            | url_info::FILE_VER_MAJOR
            | url_info::FILE_VER_MINOR
            | url_info::FILE_VER_SUBMINOR
            | url_info::FILE_SHA1_HASH => return Err(unknown()),
            other => return Err(GcError::unknown_command("URL_INFO_CMD", other)),
        })
    }

    /// Answers `GCGetPortInfo` for the remote port.
    pub fn remote_port_info(&self, command: i32) -> GcResult<Info> {
        let ack = &self.found.ack;
        Ok(match command {
            port_info::ID => Info::Str(format!("{}/remote", device_id(&self.found))),
            port_info::VENDOR => Info::Str(ack.manufacturer.to_string_lossy()),
            port_info::MODEL => Info::Str(ack.model.to_string_lossy()),
            port_info::TLTYPE => Info::Str(TL_TYPE.into()),
            port_info::MODULE => Info::Str("Device".into()),
            port_info::LITTLE_ENDIAN => Info::Bool(false),
            port_info::BIG_ENDIAN => Info::Bool(true),
            port_info::ACCESS_READ | port_info::ACCESS_WRITE => Info::Bool(true),
            port_info::ACCESS_NA | port_info::ACCESS_NI => Info::Bool(false),
            port_info::VERSION => Info::Str(ack.device_version.to_string_lossy()),
            port_info::PORTNAME => Info::Str("Device".into()),
            other => return Err(GcError::unknown_command("PORT_INFO_CMD", other)),
        })
    }
}

/// `?SchemaVersion=1.1.0` of a URL, as (major, minor).
fn schema_version(url: &str) -> Option<(i32, i32)> {
    let (_, query) = url.split_once("SchemaVersion=")?;
    let mut parts = query.split('.');
    let major = parts.next()?.trim().parse().ok()?;
    let minor = parts.next()?.trim().parse().ok()?;
    Some((major, minor))
}

impl Fields for Device {
    fn value(&self, field: &Field) -> Value {
        let ack = &self.found.ack;
        match field.name {
            "DeviceID" => Value::Text(device_id(&self.found)),
            "DeviceVendorName" => Value::Text(ack.manufacturer.to_string_lossy()),
            "DeviceModelName" => Value::Text(ack.model.to_string_lossy()),
            "DeviceSerialNumber" => Value::Text(ack.serial.to_string_lossy()),
            _ => Value::Int(i64::from(u32::from(ack.current_ip))),
        }
    }

    fn set(&self, field: &Field, _value: i64) -> GcResult<()> {
        Err(GcError::AccessDenied(format!(
            "{} is read-only",
            field.name
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_version_comes_from_the_query() {
        assert_eq!(
            schema_version("local:///a.zip;8001000;1a2b?SchemaVersion=1.1.0"),
            Some((1, 1))
        );
        assert_eq!(schema_version("local:a.xml;10000;200"), None);
    }
}
