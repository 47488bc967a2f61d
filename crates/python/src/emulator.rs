//! `linerate.CameraEmulator`: linerate's emulated GigE Vision camera,
//! running in this process on threads of its own.

use std::net::Ipv4Addr;
use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use linerate_device::camera::{self as device, CameraConfig, CameraHandle, CameraReport};
use linerate_wire::PixelFormat;

use crate::errors;
use crate::shared::lock;

/// An emulated GigE Vision camera serving GVCP and streaming its test
/// pattern from this process (no GIL needed: it runs on its own
/// threads). It starts when created; `stop()` (or the end of its `with`
/// block) stops it and returns what it sent. `address` is what
/// `Camera.open` takes.
#[pyclass(module = "linerate", frozen)]
pub struct CameraEmulator {
    handle: Mutex<Option<CameraHandle>>,
    report: Mutex<Option<CameraReport>>,
    ip: String,
    port: u16,
    serial: String,
}

#[pymethods]
impl CameraEmulator {
    /// Starts a camera answering GVCP on `bind`:`port` (an address of
    /// this process's network namespace; port 0 picks a free one), with a
    /// `width` × `height` image of `pixel_format` at `fps` frames per
    /// second and `packet_size`-byte stream packets. A host may change
    /// these through the camera's features.
    #[new]
    #[pyo3(signature = (bind = "127.0.0.1", port = 3956, width = 1024, height = 768, fps = 25.0, pixel_format = "Mono8", packet_size = 1500, serial = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        bind: &str,
        port: u16,
        width: u32,
        height: u32,
        fps: f32,
        pixel_format: &str,
        packet_size: u32,
        serial: Option<String>,
    ) -> PyResult<CameraEmulator> {
        let bind: Ipv4Addr = bind
            .parse()
            .map_err(|_| PyValueError::new_err(format!("bind {bind:?} is not an IPv4 address")))?;
        let pixel_format = PixelFormat::from_name(pixel_format).ok_or_else(|| {
            PyValueError::new_err(format!(
                "pixel_format {pixel_format:?} is not a known format"
            ))
        })?;
        let config = CameraConfig {
            bind,
            port,
            serial,
            width,
            height,
            pixel_format,
            frame_rate: fps,
            packet_size,
            ..CameraConfig::default()
        };
        let handle = py
            .detach(|| device::spawn(config))
            .map_err(|e| errors::Error::new_err(errors::chain(&e)))?;
        let info = handle.info();
        Ok(CameraEmulator {
            ip: info.control.ip().to_string(),
            port: info.control.port(),
            serial: info.serial.clone(),
            handle: Mutex::new(Some(handle)),
            report: Mutex::new(None),
        })
    }

    /// The address it answers GVCP on.
    #[getter]
    fn ip(&self) -> &str {
        &self.ip
    }

    /// Its GVCP port.
    #[getter]
    fn port(&self) -> u16 {
        self.port
    }

    /// "IP:PORT", what `Camera.open` takes.
    #[getter]
    fn address(&self) -> String {
        format!("{}:{}", self.ip, self.port)
    }

    /// The serial number it reports in discovery.
    #[getter]
    fn serial(&self) -> &str {
        &self.serial
    }

    /// The stream's counters now (frames and packets sent, resends...).
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &*lock(&self.handle) {
            Some(h) => errors::to_dict(py, &h.counters()),
            None => Err(errors::Error::new_err("the emulated camera has stopped")),
        }
    }

    /// Stops the camera and returns its report as a dict (the same
    /// fields as `linerate camera --json`). Stopping again returns the
    /// same report.
    fn stop<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let handle = lock(&self.handle).take();
        if let Some(h) = handle {
            let report = py
                .detach(|| h.stop())
                .map_err(|e| errors::Error::new_err(errors::chain(&e)))?;
            *lock(&self.report) = Some(report);
        }
        match &*lock(&self.report) {
            Some(r) => errors::to_dict(py, r),
            None => Err(errors::Error::new_err("the emulated camera failed")),
        }
    }

    fn __enter__(slf: Py<CameraEmulator>) -> Py<CameraEmulator> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _exc_type: &Bound<'_, PyAny>,
        _exc: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        self.stop(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!(
            "CameraEmulator(address={:?}, serial={:?})",
            self.address(),
            self.serial
        )
    }
}
