//! `linerate.Frame`: one delivered frame, owning its grab buffer until
//! Python lets go of the frame and of every array viewing it; then the
//! buffer goes back to its stream to be filled again.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use numpy::ndarray::{ArrayView1, ArrayView2, ArrayView3};
use numpy::{PyArray1, PyArray2, PyArray3};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use linerate_grab::stream::{Buffer, Requeue};
use linerate_wire::PixelFormat;

/// One frame from a stream, complete or not. `array` is a read-only numpy
/// view of the grab buffer itself (no copy); the buffer returns to the
/// stream only when this frame and every array made from it are gone, so
/// the data never changes under you. Keep frames briefly (each one held
/// keeps one of the stream's buffers), or `copy()` what you keep.
#[pyclass(module = "linerate", frozen)]
pub struct Frame {
    buffer: Buffer,
    home: Requeue,
    out: Arc<AtomicUsize>,
    tick_hz: Option<u64>,
}

impl Frame {
    /// A frame lent out by a stream: `home` takes the buffer back when the
    /// frame is dropped, `out`
    /// counts the frames Python holds.
    pub fn new(
        buffer: Buffer,
        home: Requeue,
        out: Arc<AtomicUsize>,
        tick_hz: Option<u64>,
    ) -> Frame {
        out.fetch_add(1, Ordering::Relaxed);
        Frame {
            buffer,
            home,
            out,
            tick_hz,
        }
    }
}

impl Frame {
    /// Copies the frame's bytes into `out` (any writable C-contiguous
    /// array, or other writable buffer, of exactly the frame's size in
    /// bytes) and returns the frame's metadata as a dict.
    pub fn fill<'py>(&self, out: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let py = out.py();
        let data = self.buffer.data();
        // Any dtype: the copy is of bytes, through a uint8 view of `out`.
        let bytes = match out.call_method1("view", ("uint8",)) {
            Ok(view) => view,
            Err(_) => out.clone(),
        };
        let target = PyBuffer::<u8>::get(&bytes).map_err(|e| {
            PyValueError::new_err(format!("out must be a writable, contiguous array: {e}"))
        })?;
        if target.readonly() || !target.is_c_contiguous() {
            return Err(PyValueError::new_err(
                "out must be a writable, C-contiguous array",
            ));
        }
        if target.len_bytes() != data.len() {
            return Err(PyValueError::new_err(format!(
                "out holds {} bytes; the frame has {} ({}x{} {})",
                target.len_bytes(),
                data.len(),
                self.width(),
                self.height(),
                self.pixel_format().unwrap_or_else(|| "?".into())
            )));
        }
        target.copy_from_slice(py, data)?;
        let info = PyDict::new(py);
        info.set_item("block_id", self.block_id())?;
        info.set_item("complete", self.complete())?;
        info.set_item("missing", self.missing())?;
        info.set_item("timestamp", self.timestamp())?;
        info.set_item("timestamp_ns", self.timestamp_ns())?;
        info.set_item("width", self.width())?;
        info.set_item("height", self.height())?;
        info.set_item("pixel_format", self.pixel_format())?;
        info.set_item("size", data.len())?;
        Ok(info)
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        // Straight back to the receive thread, without the stream's lock.
        // A closed stream no longer takes buffers: the memory is freed.
        let _ = self.home.queue(std::mem::take(&mut self.buffer));
        self.out.fetch_sub(1, Ordering::Relaxed);
    }
}

#[pymethods]
impl Frame {
    /// The frame as a read-only numpy array viewing the grab buffer (no
    /// copy; its `base` is this frame): shape (height, width) for 8-bit
    /// formats, uint16 (height, width) for 10/12/16-bit mono, (height,
    /// width, 3) for RGB8, and the raw bytes (1-D uint8) when the leader
    /// was lost or the format is not one of these.
    #[getter]
    fn array<'py>(slf: &Bound<'py, Frame>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.get();
        let data = this.buffer.data();
        let info = this.buffer.info();
        let (h, w) = (info.height as usize, info.width as usize);
        let pixels = h.checked_mul(w).unwrap_or(0);
        let container = slf.clone().into_any();
        let bits = info.pixel_format.map(PixelFormat::bits_per_pixel);
        let array = match bits {
            Some(8) if pixels > 0 && data.len() >= pixels => {
                let view = ArrayView2::from_shape((h, w), &data[..pixels])
                    .map_err(|e| crate::errors::Error::new_err(e.to_string()))?;
                // SAFETY: the array's base is this frame, which owns the
                // buffer and never changes or frees it while it lives.
                unsafe { PyArray2::borrow_from_array(&view, container) }.into_any()
            }
            Some(24) if pixels > 0 && data.len() >= pixels * 3 => {
                let view = ArrayView3::from_shape((h, w, 3), &data[..pixels * 3])
                    .map_err(|e| crate::errors::Error::new_err(e.to_string()))?;
                // SAFETY: as above.
                unsafe { PyArray3::borrow_from_array(&view, container) }.into_any()
            }
            Some(16)
                if pixels > 0
                    && data.len() >= pixels * 2
                    && (data.as_ptr() as usize) % std::mem::align_of::<u16>() == 0 =>
            {
                // SAFETY: the pointer is aligned for u16 (checked above),
                // the buffer holds `pixels` u16 values, and the frame
                // keeps it alive and unchanged while the array lives.
                let view =
                    unsafe { ArrayView2::from_shape_ptr((h, w), data.as_ptr().cast::<u16>()) };
                // SAFETY: as above.
                unsafe { PyArray2::borrow_from_array(&view, container) }.into_any()
            }
            _ => {
                let view = ArrayView1::from(data);
                // SAFETY: as above.
                unsafe { PyArray1::borrow_from_array(&view, container) }.into_any()
            }
        };
        let kwargs = PyDict::new(py);
        kwargs.set_item("write", false)?;
        array.call_method("setflags", (), Some(&kwargs))?;
        Ok(array)
    }

    /// A copy of `array` that you own (for frames you keep); the frame's
    /// buffer can then go back to the stream.
    fn copy<'py>(slf: &Bound<'py, Frame>) -> PyResult<Bound<'py, PyAny>> {
        Frame::array(slf)?.call_method0("copy")
    }

    /// True when every byte of the frame arrived.
    #[getter]
    fn complete(&self) -> bool {
        self.buffer.is_complete()
    }

    /// The camera's frame id (GVSP block id).
    #[getter]
    fn block_id(&self) -> u64 {
        self.buffer.info().block_id
    }

    /// The camera's timestamp from the frame leader, in camera ticks (0
    /// when the leader was lost).
    #[getter]
    fn timestamp(&self) -> u64 {
        self.buffer.info().timestamp
    }

    /// The camera's timestamp in nanoseconds, from its ticks and its
    /// GevTimestampTickFrequency; None when the camera does not say.
    #[getter]
    fn timestamp_ns(&self) -> Option<u64> {
        let hz = self.tick_hz?;
        let ns = u128::from(self.buffer.info().timestamp) * 1_000_000_000 / u128::from(hz);
        u64::try_from(ns).ok()
    }

    /// Host time the frame was handed over, in nanoseconds (CLOCK_MONOTONIC).
    #[getter]
    fn delivered_ns(&self) -> u64 {
        self.buffer.info().delivered_ns
    }

    /// Byte ranges of the frame that never arrived, as (start, end) pairs
    /// (empty when complete); their bytes in `array` are stale.
    #[getter]
    fn missing(&self) -> Vec<(usize, usize)> {
        self.buffer
            .missing()
            .iter()
            .map(|r| (r.start, r.end))
            .collect()
    }

    /// Width in pixels (0 when the leader was lost).
    #[getter]
    fn width(&self) -> u32 {
        self.buffer.info().width
    }

    /// Height in lines (0 when the leader was lost).
    #[getter]
    fn height(&self) -> u32 {
        self.buffer.info().height
    }

    /// The pixel format's GenICam name (e.g. "Mono8"), or its code in hex;
    /// None when the leader was lost.
    #[getter]
    fn pixel_format(&self) -> Option<String> {
        self.buffer.info().pixel_format.map(|f| f.to_string())
    }

    /// Bytes of frame data.
    #[getter]
    fn size(&self) -> usize {
        self.buffer.data().len()
    }

    /// Where the frame's bytes start in memory: one of the stream's
    /// `buffer_addresses`, which shows the frame is a grab buffer, not a copy.
    #[getter]
    fn address(&self) -> usize {
        self.buffer.data().as_ptr() as usize
    }

    fn __repr__(&self) -> String {
        let info = self.buffer.info();
        format!(
            "Frame(block_id={}, complete={}, {}x{} {}, {} bytes)",
            info.block_id,
            self.buffer.is_complete(),
            info.width,
            info.height,
            info.pixel_format
                .map_or_else(|| "?".to_string(), |f| f.to_string()),
            self.buffer.data().len()
        )
    }
}
