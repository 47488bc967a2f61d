//! `linerate.Stream`: a camera's running acquisition, pulled frame by
//! frame from Python with the GIL released while waiting, and its report.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use linerate_grab::session::{Acquisition, GrabReport, Pulled};
use linerate_grab::stream::Requeue;

use crate::discovery::seconds;
use crate::errors;
use crate::forwarding::{self, Forwarding};
use crate::frame::Frame;
use crate::interrupt::SIGNAL_POLL;
use crate::shared::{self, lock_state, Slot, State};

/// A camera's stream, acquiring from the moment `Camera.stream()` returns
/// until `close()` (or the end of its `with` block). Iterate over
/// `frames()`; read the counters with `stats()`.
#[pyclass(module = "linerate", frozen)]
pub struct Stream {
    state: Arc<Mutex<State>>,
    home: Requeue,
    out: Arc<AtomicUsize>,
    camera: Slot,
    tick_hz: Option<u64>,
    buffers: usize,
    payload_size: usize,
    addresses: Vec<usize>,
    /// Forwarding to Kafka (`Camera.stream(to=...)`).
    kafka: Option<Forwarding>,
}

/// What one wait brought, as the stream's state allows.
enum Waited {
    Pulled(Pulled),
    Closed,
}

impl Stream {
    /// Wraps a started acquisition; `camera` gets the control connection
    /// back when the stream closes; every frame pulled goes to `kafka`
    /// first when given.
    pub fn new(
        acquisition: Acquisition,
        camera: Slot,
        tick_hz: Option<u64>,
        kafka: Option<Forwarding>,
    ) -> Stream {
        let home = acquisition.requeue_handle();
        let info = acquisition.info().clone();
        let addresses = acquisition.buffer_addresses().to_vec();
        let state = Arc::new(Mutex::new(State::Running(Box::new(acquisition))));
        // While the stream runs, the camera's features go through it.
        shared::lock(&camera).streaming = Arc::downgrade(&state);
        Stream {
            state,
            home,
            out: Arc::new(AtomicUsize::new(0)),
            camera,
            tick_hz,
            buffers: info.buffers,
            payload_size: info.payload_size,
            addresses,
            kafka,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock_state(&self.state)
    }

    /// Waits up to `wait` for a frame and forwards it to Kafka when the
    /// stream does. Called without the GIL.
    fn wait_once(&self, wait: Duration) -> Waited {
        let waited = match &mut *self.lock() {
            State::Running(acquisition) => Waited::Pulled(acquisition.pull(wait)),
            State::Closed(_) => Waited::Closed,
        };
        if let (Waited::Pulled(Pulled::Frame(buffer)), Some(kafka)) = (&waited, &self.kafka) {
            kafka.frame(buffer);
        }
        waited
    }

    /// The next frame within `timeout`; None when the run has ended
    /// without an error. Looks for signals every 50 ms.
    fn next_frame(&self, py: Python<'_>, timeout: Duration) -> PyResult<Option<Frame>> {
        let deadline = Instant::now() + timeout;
        loop {
            let slice = deadline
                .saturating_duration_since(Instant::now())
                .min(SIGNAL_POLL);
            match py.detach(|| self.wait_once(slice)) {
                Waited::Pulled(Pulled::Frame(buffer)) => {
                    return Ok(Some(Frame::new(
                        buffer,
                        self.home.clone(),
                        Arc::clone(&self.out),
                        self.tick_hz,
                    )))
                }
                Waited::Pulled(Pulled::Waiting) => {
                    py.check_signals()?;
                    if Instant::now() >= deadline {
                        return Err(errors::TimeoutError::new_err(format!(
                            "no frame within {timeout:?}"
                        )));
                    }
                }
                Waited::Pulled(Pulled::Ended) => {
                    let state = self.lock();
                    if let State::Running(acquisition) = &*state {
                        if let Some(message) = acquisition.error() {
                            return Err(if acquisition.control_lost() {
                                errors::ControlLost::new_err(message)
                            } else {
                                errors::Error::new_err(message)
                            });
                        }
                    }
                    return Ok(None);
                }
                Waited::Closed => return Err(errors::Error::new_err("the stream is closed")),
            }
        }
    }

    /// Stops the acquisition (if it runs), hands the camera connection
    /// back, waits for the forwarder's last deliveries and returns the
    /// final report. Needs no GIL.
    fn shutdown(&self) -> GrabReport {
        let report = self.stop_acquisition();
        if let Some(kafka) = &self.kafka {
            let _ = kafka.finish();
        }
        report
    }

    /// The report with the forwarder's figures added, as a dict.
    fn report_dict<'py>(
        &self,
        py: Python<'py>,
        report: &GrabReport,
    ) -> PyResult<Bound<'py, PyAny>> {
        let dict = errors::to_dict(py, report)?;
        if let Some(kafka) = &self.kafka {
            kafka.add_to(&dict)?;
        }
        Ok(dict)
    }

    /// Stops the acquisition (if it runs) and hands the camera connection
    /// back.
    fn stop_acquisition(&self) -> GrabReport {
        let mut state = self.lock();
        match &*state {
            State::Closed(report) => (**report).clone(),
            State::Running(_) => {
                let running = std::mem::replace(&mut *state, State::Closed(Box::default()));
                let State::Running(acquisition) = running else {
                    return GrabReport::default();
                };
                let (report, connection) = acquisition.finish();
                let mut slot = shared::lock(&self.camera);
                slot.streaming = Weak::new();
                if !slot.closed && slot.camera.is_none() {
                    slot.camera = Some(connection);
                }
                *state = State::Closed(Box::new(report.clone()));
                report
            }
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[pymethods]
impl Stream {
    /// Iterates over the next `count` frames (None: until the stream is
    /// closed or fails), waiting up to `timeout` seconds for each: a
    /// longer silence raises linerate.TimeoutError, and the stream stays
    /// usable. The GIL is released while waiting, and Ctrl-C interrupts a
    /// wait within 50 ms with KeyboardInterrupt.
    #[pyo3(signature = (count = None, timeout = 1.0))]
    fn frames(slf: Py<Stream>, count: Option<u64>, timeout: f64) -> PyResult<FrameIter> {
        Ok(FrameIter {
            stream: slf,
            remaining: AtomicU64::new(count.unwrap_or(u64::MAX)),
            timeout: seconds(timeout, "timeout")?,
        })
    }

    /// The next frame, waiting up to `timeout` seconds (see `frames`);
    /// None when the stream has ended.
    #[pyo3(signature = (timeout = 1.0))]
    fn next(&self, py: Python<'_>, timeout: f64) -> PyResult<Option<Frame>> {
        self.next_frame(py, seconds(timeout, "timeout")?)
    }

    /// Waits up to `timeout` seconds for the next frame (as `next`), copies
    /// it into `out` (a writable C-contiguous array of exactly the frame's
    /// size in bytes, any dtype, e.g. `np.empty((h, w), np.uint8)`), gives
    /// the buffer straight back to the stream and returns the frame's
    /// metadata as a dict (block_id, complete, missing, timestamp,
    /// timestamp_ns, width, height, pixel_format, size); None when the
    /// stream has ended. For keeping frames in memory you own.
    #[pyo3(signature = (out, timeout = 1.0))]
    fn grab_into<'py>(
        &self,
        out: &Bound<'py, PyAny>,
        timeout: f64,
    ) -> PyResult<Option<Bound<'py, pyo3::types::PyDict>>> {
        let frame = self.next_frame(out.py(), seconds(timeout, "timeout")?)?;
        frame.map(|f| f.fill(out)).transpose()
    }

    /// The counters so far (or the final ones once closed) as a dict with
    /// the same fields as `linerate grab --json`.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let report = py.detach(|| match &*self.lock() {
            State::Running(acquisition) => acquisition.report(),
            State::Closed(report) => (**report).clone(),
        });
        self.report_dict(py, &report)
    }

    /// Stops acquisition, gives the camera back its control connection
    /// and returns the final report (as `stats()`). Frames still held stay
    /// valid; their buffers are freed with them. With `to=`, waits for the
    /// broker's last acknowledgements first and raises linerate.Error if
    /// any frame was not delivered (the report stays in `stats()`).
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let report = py.detach(|| self.shutdown());
        if let Some(message) = self
            .kafka
            .as_ref()
            .and_then(|k| forwarding::undelivered(&py.detach(|| k.finish()), "frames"))
        {
            return Err(errors::Error::new_err(message));
        }
        self.report_dict(py, &report)
    }

    /// Frame buffers lent to the stream (the pool's size; it never changes).
    #[getter]
    fn buffers(&self) -> usize {
        self.buffers
    }

    /// Frames Python holds now (each keeps one buffer out of the pool).
    #[getter]
    fn frames_held(&self) -> usize {
        self.out.load(Ordering::Relaxed)
    }

    /// Bytes per frame buffer (the camera's PayloadSize).
    #[getter]
    fn payload_size(&self) -> usize {
        self.payload_size
    }

    /// Where each of the pool's buffers starts in memory: every frame's
    /// `address` is one of these (frames are the pool's buffers, not copies).
    #[getter]
    fn buffer_addresses(&self) -> Vec<usize> {
        self.addresses.clone()
    }

    fn __enter__(slf: Py<Stream>) -> Py<Stream> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _exc_type: &Bound<'_, PyAny>,
        _exc: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> bool {
        py.detach(|| self.shutdown());
        false
    }
}

/// The iterator `Stream.frames()` returns.
#[pyclass(module = "linerate", frozen)]
pub struct FrameIter {
    stream: Py<Stream>,
    remaining: AtomicU64,
    timeout: Duration,
}

#[pymethods]
impl FrameIter {
    fn __iter__(slf: Py<FrameIter>) -> Py<FrameIter> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Frame>> {
        let left = self.remaining.load(Ordering::Relaxed);
        if left == 0 {
            return Ok(None);
        }
        let frame = self.stream.get().next_frame(py, self.timeout)?;
        if frame.is_some() && left != u64::MAX {
            self.remaining.store(left - 1, Ordering::Relaxed);
        }
        Ok(frame)
    }
}
