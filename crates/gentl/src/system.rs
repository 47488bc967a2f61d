//! The system module (the transport layer: one per producer) and its
//! interface modules (one per network interface that can broadcast), with
//! device discovery through linerate's GVCP client.

use std::sync::Mutex;
use std::time::Duration;

use linerate_grab::discovery::{self, Found, Scope};
use linerate_io::interfaces::{self, Ipv4Interface};

use crate::abi::{access_status, device_info, interface_info, tl_info, INFINITE};
use crate::error::{GcError, GcResult};
use crate::info::Info;
use crate::local_port::{Field, FieldKind, Fields, LocalPort, Value};

/// The producer's name for its vendor, model and transport.
pub const VENDOR: &str = "linerate";
/// Model name of the producer.
pub const MODEL: &str = "linerate GenTL producer";
/// Transport layer type: GigE Vision.
pub const TL_TYPE: &str = "GEV";
/// The producer's ID.
pub const TL_ID: &str = "linerate.cti";
/// Discovery waits at least this long, whatever timeout the consumer gives.
const MIN_DISCOVERY: Duration = Duration::from_millis(100);
/// ... and at most this long.
const MAX_DISCOVERY: Duration = Duration::from_secs(5);

/// Answers `GCGetInfo` / `TLGetInfo`.
pub fn tl_info(command: i32) -> GcResult<Info> {
    Ok(match command {
        tl_info::ID => Info::Str(TL_ID.into()),
        tl_info::VENDOR => Info::Str(VENDOR.into()),
        tl_info::MODEL => Info::Str(MODEL.into()),
        tl_info::VERSION => Info::Str(env!("CARGO_PKG_VERSION").into()),
        tl_info::TLTYPE => Info::Str(TL_TYPE.into()),
        tl_info::NAME => Info::Str(
            own_path()
                .and_then(|p| p.rsplit('/').next().map(str::to_string))
                .unwrap_or_else(|| "linerate.cti".into()),
        ),
        tl_info::PATHNAME => Info::Str(own_path().unwrap_or_else(|| "linerate.cti".into())),
        tl_info::DISPLAYNAME => Info::Str("linerate GigE Vision producer".into()),
        tl_info::CHAR_ENCODING => Info::I32(0),
        tl_info::GENTL_VER_MAJOR => Info::U32(1),
        tl_info::GENTL_VER_MINOR => Info::U32(6),
        other => return Err(GcError::unknown_command("TL_INFO_CMD", other)),
    })
}

/// The file this code was loaded from (the `.cti` as the consumer named
/// it): the mapping of the process that holds this function's address.
fn own_path() -> Option<String> {
    let here = (tl_info as fn(i32) -> GcResult<Info>) as usize;
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (start, end) = fields.next()?.split_once('-')?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        let path = fields.nth(4)?;
        ((start..end).contains(&here) && path.starts_with('/')).then(|| path.to_string())
    })
}

static SYSTEM_FIELDS: [Field; 4] = [
    Field {
        name: "TLVendorName",
        kind: FieldKind::Text(64),
        writable: false,
        tooltip: "Vendor of the producer.",
    },
    Field {
        name: "TLModelName",
        kind: FieldKind::Text(64),
        writable: false,
        tooltip: "Model of the producer.",
    },
    Field {
        name: "TLVersion",
        kind: FieldKind::Text(64),
        writable: false,
        tooltip: "Version of the producer.",
    },
    Field {
        name: "TLType",
        kind: FieldKind::Text(16),
        writable: false,
        tooltip: "Transport layer type (GEV: GigE Vision).",
    },
];

/// The opened system module.
#[derive(Debug)]
pub struct System {
    interfaces: Mutex<Vec<Ipv4Interface>>,
    /// The module's own port.
    pub port: LocalPort,
}

impl Default for System {
    fn default() -> Self {
        System {
            interfaces: Mutex::new(Vec::new()),
            port: LocalPort::new("TLSystem", "TLPort", "linerate_system.xml", &SYSTEM_FIELDS),
        }
    }
}

impl Fields for System {
    fn value(&self, field: &Field) -> Value {
        Value::Text(
            match field.name {
                "TLVendorName" => VENDOR,
                "TLModelName" => MODEL,
                "TLVersion" => env!("CARGO_PKG_VERSION"),
                _ => TL_TYPE,
            }
            .into(),
        )
    }

    fn set(&self, field: &Field, _value: i64) -> GcResult<()> {
        Err(GcError::AccessDenied(format!(
            "{} is read-only",
            field.name
        )))
    }
}

/// Locks `m`, whatever a panic elsewhere left in it.
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl System {
    /// Lists the network interfaces again; true when the list changed.
    pub fn update(&self) -> GcResult<bool> {
        let mut found = interfaces::ipv4_interfaces()
            .map_err(|e| GcError::Io(format!("listing network interfaces: {e}")))?;
        found.retain(|i| i.up && i.broadcasts());
        // One interface module per device, on its first address.
        let mut seen = std::collections::HashSet::new();
        found.retain(|i| seen.insert(i.name.clone()));
        let mut list = lock(&self.interfaces);
        let changed = *list != found;
        *list = found;
        Ok(changed)
    }

    /// The number of interfaces listed.
    pub fn count(&self) -> u32 {
        u32::try_from(lock(&self.interfaces).len()).unwrap_or(u32::MAX)
    }

    /// The ID of interface `index`.
    pub fn interface_id(&self, index: u32) -> GcResult<String> {
        let list = lock(&self.interfaces);
        list.get(index as usize)
            .map(|i| i.name.clone())
            .ok_or(GcError::InvalidIndex {
                index: u64::from(index),
                count: list.len() as u64,
            })
    }

    /// The interface called `id`.
    pub fn interface(&self, id: &str) -> GcResult<Ipv4Interface> {
        lock(&self.interfaces)
            .iter()
            .find(|i| i.name == id)
            .cloned()
            .ok_or_else(|| GcError::InvalidId {
                kind: "interface",
                id: id.into(),
            })
    }
}

/// Answers `TLGetInterfaceInfo` / `IFGetInfo` for `iface`.
pub fn interface_info(iface: &Ipv4Interface, command: i32) -> GcResult<Info> {
    Ok(match command {
        interface_info::ID => Info::Str(iface.name.clone()),
        interface_info::DISPLAYNAME => Info::Str(format!(
            "{} ({}/{})",
            iface.name,
            iface.address,
            iface.prefix_len()
        )),
        interface_info::TLTYPE => Info::Str(TL_TYPE.into()),
        other => return Err(GcError::unknown_command("INTERFACE_INFO_CMD", other)),
    })
}

static INTERFACE_FIELDS: [Field; 3] = [
    Field {
        name: "InterfaceID",
        kind: FieldKind::Text(64),
        writable: false,
        tooltip: "Name of the network interface.",
    },
    Field {
        name: "GevInterfaceSubnetIPAddress",
        kind: FieldKind::Int {
            min: 0,
            max: u32::MAX as i64,
        },
        writable: false,
        tooltip: "IPv4 address of the interface.",
    },
    Field {
        name: "GevInterfaceSubnetMask",
        kind: FieldKind::Int {
            min: 0,
            max: u32::MAX as i64,
        },
        writable: false,
        tooltip: "Subnet mask of the interface.",
    },
];

/// An opened interface module: one network interface and the devices
/// discovery found on it.
#[derive(Debug)]
pub struct Interface {
    /// The network interface.
    pub iface: Ipv4Interface,
    devices: Mutex<Vec<Found>>,
    /// The module's own port.
    pub port: LocalPort,
}

impl Fields for Interface {
    fn value(&self, field: &Field) -> Value {
        match field.name {
            "InterfaceID" => Value::Text(self.iface.name.clone()),
            "GevInterfaceSubnetIPAddress" => Value::Int(i64::from(u32::from(self.iface.address))),
            _ => Value::Int(i64::from(u32::from(self.iface.netmask))),
        }
    }

    fn set(&self, field: &Field, _value: i64) -> GcResult<()> {
        Err(GcError::AccessDenied(format!(
            "{} is read-only",
            field.name
        )))
    }
}

impl Interface {
    /// The interface module of `iface`, with no device listed yet.
    pub fn new(iface: Ipv4Interface) -> Interface {
        Interface {
            iface,
            devices: Mutex::new(Vec::new()),
            port: LocalPort::new(
                "TLInterface",
                "InterfacePort",
                "linerate_interface.xml",
                &INTERFACE_FIELDS,
            ),
        }
    }

    /// Discovers the devices on this interface, waiting `timeout_ms`
    /// (within 100 ms and 5 s); true when the list changed.
    pub fn update(&self, timeout_ms: u64) -> GcResult<bool> {
        let wait = if timeout_ms == INFINITE {
            MAX_DISCOVERY
        } else {
            Duration::from_millis(timeout_ms).clamp(MIN_DISCOVERY, MAX_DISCOVERY)
        };
        let found = discovery::discover_in(&Scope::Interface(self.iface.clone()), wait)
            .map_err(|e| GcError::Io(format!("discovery on {}: {e}", self.iface.name)))?;
        let found: Vec<Found> = found.into_values().collect();
        let mut list = lock(&self.devices);
        let ids = |l: &[Found]| l.iter().map(device_id).collect::<Vec<_>>();
        let changed = ids(&list) != ids(&found);
        *list = found;
        Ok(changed)
    }

    /// The number of devices listed.
    pub fn count(&self) -> u32 {
        u32::try_from(lock(&self.devices).len()).unwrap_or(u32::MAX)
    }

    /// The ID of device `index`.
    pub fn device_id(&self, index: u32) -> GcResult<String> {
        let list = lock(&self.devices);
        list.get(index as usize)
            .map(device_id)
            .ok_or(GcError::InvalidIndex {
                index: u64::from(index),
                count: list.len() as u64,
            })
    }

    /// The device called `id`, as discovery found it.
    pub fn device(&self, id: &str) -> GcResult<Found> {
        lock(&self.devices)
            .iter()
            .find(|d| device_id(d) == id)
            .cloned()
            .ok_or_else(|| GcError::InvalidId {
                kind: "device",
                id: id.into(),
            })
    }
}

/// A device's ID: its address, and its GVCP port when not the standard one.
pub fn device_id(found: &Found) -> String {
    if found.from.port() == linerate_wire::gvcp::PORT {
        found.ack.current_ip.to_string()
    } else {
        format!("{}:{}", found.ack.current_ip, found.from.port())
    }
}

/// Answers `IFGetDeviceInfo` / `DevGetInfo` for a device discovery found;
/// `open` says whether this producer has it open.
pub fn device_info(found: &Found, open: bool, command: i32) -> GcResult<Info> {
    let ack = &found.ack;
    Ok(match command {
        device_info::ID => Info::Str(device_id(found)),
        device_info::VENDOR => Info::Str(ack.manufacturer.to_string_lossy()),
        device_info::MODEL => Info::Str(ack.model.to_string_lossy()),
        device_info::TLTYPE => Info::Str(TL_TYPE.into()),
        device_info::DISPLAYNAME => Info::Str(format!(
            "{} {} ({})",
            ack.manufacturer.to_string_lossy(),
            ack.model.to_string_lossy(),
            ack.current_ip
        )),
        device_info::ACCESS_STATUS => Info::I32(if open {
            access_status::OPEN_READWRITE
        } else if found.reachable() {
            access_status::READWRITE
        } else {
            access_status::NOACCESS
        }),
        device_info::USER_DEFINED_NAME => Info::Str(ack.user_name.to_string_lossy()),
        device_info::SERIAL_NUMBER => Info::Str(ack.serial.to_string_lossy()),
        device_info::VERSION => Info::Str(ack.device_version.to_string_lossy()),
        device_info::TIMESTAMP_FREQUENCY => {
            return Err(GcError::NotAvailable(
                "the timestamp frequency is known once the device is open (its GevTimestampTickFrequency feature)".into(),
            ))
        }
        other => return Err(GcError::unknown_command("DEVICE_INFO_CMD", other)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_is_the_file_this_code_runs_from() {
        let Ok(Info::Str(path)) = tl_info(tl_info::PATHNAME) else {
            panic!("a string");
        };
        // In a unit test the code is the test binary itself.
        let exe = std::env::current_exe().expect("the test binary");
        assert_eq!(std::path::Path::new(&path), exe);
        assert_eq!(
            tl_info(tl_info::NAME).expect("a name"),
            Info::Str(
                exe.file_name()
                    .expect("a file")
                    .to_string_lossy()
                    .into_owned()
            )
        );
    }
}
