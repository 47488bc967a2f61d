//! `linerate.Camera`: a GigE Vision camera under this process's control,
//! its GenICam features read and written by name, and the stream opened
//! from it.

use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex, Weak};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

use linerate_grab::genicam::FeatureValue;
use linerate_grab::receive::{Backend, Transport};
use linerate_grab::session::{GrabConfig, Session};
use linerate_grab::{Camera as GrabCamera, ControlConfig};

use crate::errors;
use crate::forwarding::ForwardingConfig;
use crate::shared::{lock, lock_state, Connection, Slot, State};
use crate::stream::Stream;

/// A GigE Vision camera under control (its heartbeat kept by a thread of
/// its own). Open it with `Camera.open(...)`, ideally in a `with` block;
/// read and write GenICam features as `cam["Width"]`, and stream with
/// `cam.stream()`. While a stream is open, features go through the
/// stream's control connection (waiting at most for its current 50 ms wait).
#[pyclass(module = "linerate", frozen)]
pub struct Camera {
    target: String,
    interface: Option<Ipv4Addr>,
    slot: Slot,
    vendor: String,
    model: String,
    serial: String,
    ip: String,
}

#[pymethods]
impl Camera {
    /// Takes control of the camera at `target`: an IPv4 address,
    /// `IP:PORT` (a device on another GVCP port than 3956), or a serial
    /// number or user name (found by discovery). `interface` is the local
    /// address facing it (default: from the routing table). The GIL is
    /// released while connecting, and Ctrl-C interrupts the wait within
    /// 50 ms with KeyboardInterrupt.
    #[staticmethod]
    #[pyo3(signature = (target, interface = None))]
    fn open(py: Python<'_>, target: String, interface: Option<String>) -> PyResult<Camera> {
        let interface = interface
            .map(|i| {
                i.parse::<Ipv4Addr>().map_err(|_| {
                    PyValueError::new_err(format!("interface {i:?} is not an IPv4 address"))
                })
            })
            .transpose()?;
        // On a thread of its own, so that Ctrl-C ends the wait at once; a
        // connection that still succeeds after it is dropped (control
        // released).
        let to = target.clone();
        let camera = crate::interrupt::run(py, "camera-open", move || open(&to, interface))??;
        let info = camera.info().clone();
        Ok(Camera {
            target,
            interface,
            slot: Arc::new(Mutex::new(Connection {
                camera: Some(camera),
                streaming: Weak::new(),
                closed: false,
            })),
            vendor: info.vendor,
            model: info.model,
            serial: info.serial,
            ip: info.ip.map(|ip| ip.to_string()).unwrap_or_default(),
        })
    }

    /// Manufacturer name.
    #[getter]
    fn vendor(&self) -> &str {
        &self.vendor
    }

    /// Model name.
    #[getter]
    fn model(&self) -> &str {
        &self.model
    }

    /// Serial number.
    #[getter]
    fn serial(&self) -> &str {
        &self.serial
    }

    /// The camera's IPv4 address.
    #[getter]
    fn ip(&self) -> &str {
        &self.ip
    }

    /// Reads a GenICam feature: an int, float, str (enumeration entries
    /// and strings), bool, or None for a command. Raises FeatureError for
    /// a feature the camera does not have.
    fn __getitem__(&self, py: Python<'_>, name: String) -> PyResult<Py<PyAny>> {
        let value = py.detach(|| self.with_camera(|c| c.get(&name)))?;
        Ok(match value {
            FeatureValue::Integer(v) => v.into_pyobject(py)?.into_any().unbind(),
            FeatureValue::Float(v) => v.into_pyobject(py)?.into_any().unbind(),
            FeatureValue::Enum(v) | FeatureValue::String(v) => {
                v.into_pyobject(py)?.into_any().unbind()
            }
            FeatureValue::Bool(v) => PyBool::new(py, v).to_owned().into_any().unbind(),
            FeatureValue::Command => py.None(),
        })
    }

    /// Writes a GenICam feature from an int, float, str or bool, checked
    /// against the feature's bounds, increment or entries first: a value
    /// out of range raises FeatureError saying what is allowed.
    fn __setitem__(&self, py: Python<'_>, name: String, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let text = feature_text(value)?;
        py.detach(|| self.with_camera(|c| c.set(&name, &text)))
    }

    /// Executes a command feature (e.g. "TriggerSoftware").
    fn execute(&self, py: Python<'_>, name: String) -> PyResult<()> {
        py.detach(|| self.with_camera(|c| c.execute(&name)))
    }

    /// Opens the camera's stream and starts acquisition; use it as a
    /// context manager. `buffers` frame buffers are lent to the stream
    /// (each frame you hold keeps one); `transport` is "udp" (GVSP, any
    /// camera) or "tcp" (linerate's cameras); `backend` the UDP receive
    /// method ("mmsg", "copy" or "ring"); `verify` checks every complete
    /// frame against the camera's test pattern; `cpu` pins the receive
    /// thread; `packet_size` sets the stream packet size (UDP) or bytes
    /// per record (TCP); `packet_delay_ns` paces the camera's packets to
    /// its link (UDP, e.g. 6400 for 8000-byte packets at 10 Gbit/s).
    /// `to` ("kafka://HOST:PORT[,HOST:PORT...]/TOPIC") forwards every frame
    /// the stream hands out as an ESS ad00 message, as `linerate grab --to`
    /// does (counters as f144 on TOPIC_status); `kafka_on_full` says what a
    /// full forwarding queue does ("wait" or "drop", counted), and
    /// `kafka_settings` adds librdkafka settings. The GIL is released while
    /// starting.
    #[pyo3(signature = (buffers = 8, transport = "udp", backend = "mmsg", verify = false, cpu = None, packet_size = None, packet_delay_ns = None, to = None, kafka_on_full = "wait", kafka_settings = None))]
    #[allow(clippy::too_many_arguments)]
    fn stream(
        slf: &Bound<'_, Camera>,
        buffers: usize,
        transport: &str,
        backend: &str,
        verify: bool,
        cpu: Option<usize>,
        packet_size: Option<u32>,
        packet_delay_ns: Option<u64>,
        to: Option<&str>,
        kafka_on_full: &str,
        kafka_settings: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<Stream> {
        let py = slf.py();
        let this = slf.get();
        let kafka = to
            .map(|to| {
                ForwardingConfig::parse(
                    to,
                    &this.target.to_string(),
                    kafka_on_full,
                    kafka_settings.map(|s| s.into_iter().collect()),
                )
            })
            .transpose()?;
        if buffers < 2 {
            return Err(PyValueError::new_err(format!(
                "buffers = {buffers}: a stream needs at least 2 (one filling, one read)"
            )));
        }
        let transport = match transport {
            "udp" => Transport::Udp,
            "tcp" => Transport::Tcp,
            other => {
                return Err(PyValueError::new_err(format!(
                    "transport {other:?} is not \"udp\" or \"tcp\""
                )))
            }
        };
        let backend: Backend = backend
            .parse()
            .map_err(|e: linerate_grab::Error| PyValueError::new_err(e.to_string()))?;
        // The producer starts before the camera does, so a forwarder that
        // cannot start leaves the camera untouched.
        let kafka = kafka.map(|k| py.detach(|| k.spawn())).transpose()?;
        let camera = lock(&this.slot)
            .camera
            .take()
            .ok_or_else(|| errors::unavailable("the camera is closed or already streaming"))?;
        let config = GrabConfig {
            frames: 0,
            buffers: Some(buffers),
            transport,
            backend,
            verify,
            cpu,
            packet_size,
            packet_delay_ns,
            // Python callers time their own waits (frames(timeout=...)).
            frame_timeout: std::time::Duration::from_secs(365 * 24 * 3600),
            ..GrabConfig::new(this.target.clone())
        };
        let mut camera = camera;
        let tick_hz = py.detach(|| tick_frequency(&mut camera));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let opened =
            py.detach(|| Session::with_camera(camera, config, stop).and_then(Session::start));
        match opened {
            Ok(acquisition) => Ok(Stream::new(
                acquisition,
                Arc::clone(&this.slot),
                tick_hz,
                kafka,
            )),
            Err(e) => {
                // The session consumed the connection: take control again
                // so the camera stays usable for features.
                let reopened = py.detach(|| open(&this.target, this.interface));
                let mut slot = lock(&this.slot);
                if let (Ok(c), false) = (reopened, slot.closed) {
                    slot.camera = Some(c);
                }
                Err(errors::session(&e))
            }
        }
    }

    /// Releases control of the camera (also on leaving a `with` block); an
    /// open stream keeps it until the stream closes.
    fn close(&self) {
        let mut slot = lock(&self.slot);
        slot.closed = true;
        slot.camera = None;
        slot.streaming = Weak::new();
    }

    fn __enter__(slf: Py<Camera>) -> Py<Camera> {
        slf
    }

    fn __exit__(
        &self,
        _exc_type: &Bound<'_, PyAny>,
        _exc: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        format!(
            "Camera(ip={:?}, vendor={:?}, model={:?}, serial={:?})",
            self.ip, self.vendor, self.model, self.serial
        )
    }
}

impl Camera {
    /// Runs `f` on the camera connection, if it is here (not closed, not
    /// lent to a stream), turning its error into the package's exception.
    fn with_camera<T>(
        &self,
        f: impl FnOnce(&mut GrabCamera) -> linerate_grab::Result<T>,
    ) -> PyResult<T> {
        let closed = || errors::unavailable("the camera is closed");
        let streaming = {
            let mut slot = lock(&self.slot);
            if let Some(camera) = slot.camera.as_mut() {
                return f(camera).map_err(|e| errors::grab(&e));
            }
            if slot.closed {
                return Err(closed());
            }
            slot.streaming.upgrade()
        };
        // The slot's lock is let go first: a closing stream takes the
        // stream's lock, then the slot's.
        let state = streaming.ok_or_else(closed)?;
        let mut state = lock_state(&state);
        match &mut *state {
            State::Running(acquisition) => {
                f(acquisition.camera_mut()).map_err(|e| errors::grab(&e))
            }
            State::Closed(_) => Err(closed()),
        }
    }
}

/// Opens the camera connection.
fn open(target: &str, interface: Option<Ipv4Addr>) -> PyResult<GrabCamera> {
    let control = ControlConfig {
        local: interface,
        ..ControlConfig::default()
    };
    GrabCamera::open(target, &control).map_err(|e| {
        errors::Error::new_err(format!("opening camera {target}: {}", errors::chain(&e)))
    })
}

/// The camera's timestamp ticks per second, when it says.
fn tick_frequency(camera: &mut GrabCamera) -> Option<u64> {
    match camera.get("GevTimestampTickFrequency") {
        Ok(FeatureValue::Integer(n)) => u64::try_from(n).ok().filter(|&n| n > 0),
        _ => None,
    }
}

/// A Python value as the text a feature write takes.
fn feature_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if value.is_instance_of::<PyBool>() {
        return Ok(if value.is_truthy()? { "true" } else { "false" }.into());
    }
    if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
        return Ok(value.str()?.to_string());
    }
    if let Ok(s) = value.downcast::<PyString>() {
        return Ok(s.to_string());
    }
    Err(PyTypeError::new_err(format!(
        "a feature value must be an int, float, str or bool, not {}",
        value.get_type().name()?
    )))
}
