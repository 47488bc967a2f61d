//! `linerate.discover()`: which GigE Vision devices answer, with the GIL
//! released while waiting for them.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use linerate_grab::discovery::{self, Found, Scope};

use crate::{errors, interrupt};

/// A device that answered discovery.
#[pyclass(module = "linerate", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// The device's IPv4 address, as a string.
    pub ip: String,
    /// Its MAC address, as `aa:bb:cc:dd:ee:ff`.
    pub mac: String,
    /// Manufacturer name.
    pub vendor: String,
    /// Model name.
    pub model: String,
    /// Serial number (what `Camera.open` accepts besides the address).
    pub serial: String,
    /// User-defined name, if the device has one.
    pub user_name: String,
    /// Device version.
    pub version: String,
    /// False when the device is on another subnet than the interface it
    /// answered on (it needs a new address before it can be controlled).
    pub reachable: bool,
}

#[pymethods]
impl DeviceInfo {
    fn __repr__(&self) -> String {
        format!(
            "DeviceInfo(ip={:?}, mac={:?}, vendor={:?}, model={:?}, serial={:?})",
            self.ip, self.mac, self.vendor, self.model, self.serial
        )
    }
}

impl DeviceInfo {
    fn from_found(found: &Found) -> DeviceInfo {
        let ack = &found.ack;
        DeviceInfo {
            ip: ack.current_ip.to_string(),
            mac: ack.mac.to_string(),
            vendor: ack.manufacturer.to_string_lossy(),
            model: ack.model.to_string_lossy(),
            serial: ack.serial.to_string_lossy(),
            user_name: ack.user_name.to_string_lossy(),
            version: ack.device_version.to_string_lossy(),
            reachable: found.reachable(),
        }
    }
}

/// Finds GigE Vision devices: broadcasts a discovery on every interface
/// (or on `interface`, a name or one of its addresses), or asks `target`
/// (an address, or `IP:PORT` for a device on another port) directly, and returns those that answered within `timeout` seconds,
/// ordered by address. The GIL is released while waiting, and Ctrl-C
/// interrupts the wait within 50 ms with KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (timeout = 0.5, interface = None, target = None))]
pub fn discover(
    py: Python<'_>,
    timeout: f64,
    interface: Option<String>,
    target: Option<String>,
) -> PyResult<Vec<DeviceInfo>> {
    let wait = seconds(timeout, "timeout")?;
    // "IP:PORT" asks one device on another port than 3956 directly.
    if let Some(t) = target.as_deref().filter(|t| t.contains(':')) {
        let to: SocketAddrV4 = t.parse().map_err(|_| {
            PyValueError::new_err(format!("target {t:?} is not an IPv4 address or IP:PORT"))
        })?;
        let found = interrupt::run(py, "discovery", move || discovery::probe(to, wait))?;
        let found = found.map_err(|e| errors::grab(&e))?;
        return Ok(found.iter().map(DeviceInfo::from_found).collect());
    }
    let target = target
        .map(|t| {
            t.parse::<Ipv4Addr>().map_err(|_| {
                PyValueError::new_err(format!("target {t:?} is not an IPv4 address or IP:PORT"))
            })
        })
        .transpose()?;
    // On a thread of its own, so that Ctrl-C ends the wait at once (the
    // discovery itself ends with its timeout).
    let found = interrupt::run(py, "discovery", move || {
        let scope = Scope::from_args(interface.as_deref(), target)?;
        discovery::discover_in(&scope, wait)
    })?;
    let found = found.map_err(|e| errors::grab(&e))?;
    Ok(found.values().map(DeviceInfo::from_found).collect())
}

/// `value` seconds as a duration; refused unless finite and not negative.
pub fn seconds(value: f64, what: &str) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{what} = {value} is not a usable number of seconds (finite, not negative)"
        ))
    })
}
