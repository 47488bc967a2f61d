//! `linerate.fade.Chunk`: bytes of a board's receive ring lent to Python
//! in place. Its `array` is a numpy view of the ring itself, whose base is
//! the chunk; the bytes go back to the ring only when the chunk and every
//! view of it are gone, so they never change under a view.

use numpy::ndarray::ArrayView1;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use linerate_io::byte_ring::ByteRingLease;

/// A stretch of one board's stream, in place in the receive ring (no
/// copy). `array` is a read-only uint8 numpy view of it and `data` a
/// read-only memoryview; both keep the chunk, and so its place in the
/// ring, alive. The ring reuses the place only once the chunk and every
/// view of it are gone (a `for` loop lets go of the previous chunk when it
/// moves on): data never changes under a view, and a view kept for long
/// holds the ring back (the board then waits). `copy()` what you keep.
#[pyclass(module = "linerate.fade", frozen)]
pub struct Chunk {
    lease: ByteRingLease,
    board: usize,
}

impl Chunk {
    /// The chunk of `board`'s stream that `lease` lends.
    pub fn new(lease: ByteRingLease, board: usize) -> Chunk {
        Chunk { lease, board }
    }
}

#[pymethods]
impl Chunk {
    /// The bytes as a read-only 1-D uint8 numpy array viewing the ring
    /// (its `base` is this chunk).
    #[getter]
    fn array<'py>(slf: &Bound<'py, Chunk>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let view = ArrayView1::from(&slf.get().lease[..]);
        // SAFETY: the array's base is this chunk, whose lease keeps the
        // ring's memory alive and its bytes unchanged (the ring's tail
        // does not pass a lease still alive) for as long as it lives.
        let array = unsafe { PyArray1::borrow_from_array(&view, slf.clone().into_any()) };
        let kwargs = PyDict::new(py);
        kwargs.set_item("write", false)?;
        array.call_method("setflags", (), Some(&kwargs))?;
        Ok(array.into_any())
    }

    /// The bytes as a read-only memoryview (of `array`).
    #[getter]
    fn data<'py>(slf: &Bound<'py, Chunk>) -> PyResult<Bound<'py, PyAny>> {
        let array = Chunk::array(slf)?;
        slf.py()
            .import("builtins")?
            .getattr("memoryview")?
            .call1((array,))
    }

    /// A copy of the bytes that you own (a writable numpy array).
    fn copy<'py>(slf: &Bound<'py, Chunk>) -> PyResult<Bound<'py, PyAny>> {
        Chunk::array(slf)?.call_method0("copy")
    }

    /// Stream offset of the chunk's first byte (bytes of this board
    /// before it).
    #[getter]
    fn offset(&self) -> u64 {
        self.lease.offset()
    }

    /// The board's index in `Readout.boards`.
    #[getter]
    fn board(&self) -> usize {
        self.board
    }

    /// Where the bytes lie in memory: inside the board's ring
    /// (`Readout.ring_span(board)`), which shows the chunk is no copy.
    #[getter]
    fn address(&self) -> usize {
        self.lease.as_ptr() as usize
    }

    fn __len__(&self) -> usize {
        self.lease.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Chunk(board={}, offset={}, {} bytes)",
            self.board,
            self.lease.offset(),
            self.lease.len()
        )
    }
}
