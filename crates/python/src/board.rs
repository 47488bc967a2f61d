//! `linerate.fade.BoardEmulator`: linerate's emulated FADE front-end
//! board (`linerate_device::board`, as `linerate fade feb` runs it) in
//! this process, so that Python can run both ends of a readout.

use std::sync::Mutex;
use std::time::Instant;

use pyo3::prelude::*;

use linerate_device::board::{self as device, BoardConfig, BoardHandle, BoardReport, WireVersion};

use crate::discovery::seconds;
use crate::errors;
use crate::interrupt::SIGNAL_POLL;
use crate::shared::lock;

/// The board, running until it has stopped and its report is kept.
enum Run {
    Running(BoardHandle),
    Stopped(Box<BoardReport>),
    Failed(String),
}

/// An emulated FADE board streaming its verifiable counter stream (byte
/// `n` of the stream is byte `n % 8` of the little-endian u64 `n // 8`)
/// over raw Ethernet on `interface`, from threads of its own (no GIL
/// needed). It starts when created and waits for a host's START; `mac`
/// is what a `Readout` names it by. `stop()` (or the end of its `with`
/// block) stops it and returns its report.
#[pyclass(module = "linerate.fade", frozen)]
pub struct BoardEmulator {
    run: Mutex<Run>,
    mac: String,
    interface: String,
    version: &'static str,
}

#[pymethods]
impl BoardEmulator {
    /// Starts a board on `interface` (by name, in this thread's network
    /// namespace) speaking FADE `version` ("1" or "10g"). It streams
    /// `bytes` in all (None: until stopped or `duration` seconds), paced
    /// to `rate` bits/s if given. Defaults are those of `linerate fade
    /// feb`. An unknown interface raises linerate.Error with the command
    /// line's message.
    #[new]
    #[pyo3(signature = (interface, bytes = None, duration = None, rate = None, version = "1"))]
    fn new(
        py: Python<'_>,
        interface: String,
        bytes: Option<u64>,
        duration: Option<f64>,
        rate: Option<u64>,
        version: &str,
    ) -> PyResult<BoardEmulator> {
        let version = match version.to_ascii_lowercase().as_str() {
            "1" => WireVersion::V1,
            "10g" => WireVersion::TenG,
            other => {
                return Err(errors::Error::new_err(format!(
                    "unknown FADE version {other:?}: expected 1 or 10g"
                )))
            }
        };
        if rate == Some(0) {
            return Err(errors::Error::new_err("rate = 0: give at least 1 bit/s"));
        }
        let config = BoardConfig {
            version,
            limit_bytes: bytes,
            duration: duration.map(|d| seconds(d, "duration")).transpose()?,
            rate_bits_per_sec: rate,
            ..BoardConfig::new(interface.clone())
        };
        let handle = py
            .detach(|| device::spawn(config))
            .map_err(|e| errors::Error::new_err(errors::chain(&e)))?;
        Ok(BoardEmulator {
            mac: handle.mac().to_string(),
            version: handle.version().name(),
            interface,
            run: Mutex::new(Run::Running(handle)),
        })
    }

    /// The board's MAC address (its interface's): what `Readout` takes.
    #[getter]
    fn mac(&self) -> &str {
        &self.mac
    }

    /// The interface it runs on.
    #[getter]
    fn interface(&self) -> &str {
        &self.interface
    }

    /// The FADE wire version it speaks ("1" or "10g").
    #[getter]
    fn version(&self) -> &str {
        self.version
    }

    /// Its counters now, as a dict: bytes_confirmed, sent, resent, acks,
    /// streaming.
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let snapshot = match &*lock(&self.run) {
            Run::Running(h) => h.snapshot(),
            _ => return Err(errors::Error::new_err("the emulated board has stopped")),
        };
        let d = pyo3::types::PyDict::new(py);
        d.set_item("bytes_confirmed", snapshot.bytes_confirmed)?;
        d.set_item("sent", snapshot.sent)?;
        d.set_item("resent", snapshot.resent)?;
        d.set_item("acks", snapshot.acks)?;
        d.set_item("streaming", snapshot.streaming)?;
        Ok(d.into_any())
    }

    /// Waits up to `timeout` seconds (None: for ever) for the board to
    /// end on its own (its stream over); True if it has. The GIL is
    /// released and Ctrl-C interrupts the wait within 50 ms.
    #[pyo3(signature = (timeout = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        let timeout = timeout.map(|t| seconds(t, "timeout")).transpose()?;
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let slice = deadline.map_or(SIGNAL_POLL, |d| {
                d.saturating_duration_since(Instant::now()).min(SIGNAL_POLL)
            });
            let ended = py.detach(|| match &*lock(&self.run) {
                Run::Running(h) => h.wait_timeout(slice),
                _ => true,
            });
            if ended {
                return Ok(true);
            }
            py.check_signals()?;
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(false);
            }
        }
    }

    /// Stops the board (if it still runs) and returns its report as a
    /// dict (the same fields as `linerate fade feb --json`). Stopping
    /// again returns the same report.
    fn stop<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.detach(|| {
            let mut run = lock(&self.run);
            if matches!(&*run, Run::Running(_)) {
                let Run::Running(h) = std::mem::replace(&mut *run, Run::Failed(String::new()))
                else {
                    return;
                };
                *run = match h.stop() {
                    Ok(r) => Run::Stopped(Box::new(r)),
                    Err(e) => Run::Failed(errors::chain(&e)),
                };
            }
        });
        match &*lock(&self.run) {
            Run::Stopped(r) => errors::to_dict(py, r),
            Run::Failed(why) => Err(errors::Error::new_err(why.clone())),
            Run::Running(_) => Err(errors::Error::new_err("the emulated board still runs")),
        }
    }

    fn __enter__(slf: Py<BoardEmulator>) -> Py<BoardEmulator> {
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
            "BoardEmulator(interface={:?}, mac={:?}, version={:?})",
            self.interface, self.mac, self.version
        )
    }
}
