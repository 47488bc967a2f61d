//! The `linerate` Python package's native module, `linerate._linerate`:
//! GigE Vision discovery, cameras with their GenICam features, streams
//! whose frames are numpy views of the grab buffers (no copy), and the
//! in-process emulated camera; FADE readouts whose chunks are numpy views
//! of the boards' rings, and the emulated FADE board (`linerate.fade`).
//! Every blocking call releases the GIL and looks for Ctrl-C at least
//! every 50 ms.
//!
//! It binds the library runtimes (`linerate_grab::session`,
//! `linerate_device::camera`, `linerate_readout`, `linerate_device::board`),
//! never the command line.

mod board;
mod camera;
mod chunk;
mod discovery;
mod emulator;
mod errors;
mod forwarding;
mod frame;
mod interrupt;
mod readout;
mod shared;
mod stream;

use pyo3::prelude::*;

/// The native half of the `linerate` package (import `linerate`, not this).
#[pymodule]
fn _linerate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // numpy's C API loads on its first use, importing numpy (100-350 ms
    // measured). Left to the first frame's `array`, that pause came while
    // the stream ran, and a 100 fps stream ran out of its 16 buffers:
    // load it with the module instead.
    let _ = numpy::PyArray1::<u8>::zeros(py, 0, false);
    m.add("Error", py.get_type::<errors::Error>())?;
    m.add("TimeoutError", py.get_type::<errors::TimeoutError>())?;
    m.add("ControlLost", py.get_type::<errors::ControlLost>())?;
    m.add("FeatureError", py.get_type::<errors::FeatureError>())?;
    m.add_class::<discovery::DeviceInfo>()?;
    m.add_function(wrap_pyfunction!(discovery::discover, m)?)?;
    m.add_class::<camera::Camera>()?;
    m.add_class::<stream::Stream>()?;
    m.add_class::<stream::FrameIter>()?;
    m.add_class::<frame::Frame>()?;
    m.add_class::<emulator::CameraEmulator>()?;
    // linerate.fade (re-exported by the package's fade module).
    m.add_class::<readout::Readout>()?;
    m.add_class::<readout::ChunkIter>()?;
    m.add_class::<chunk::Chunk>()?;
    m.add_class::<board::BoardEmulator>()?;
    Ok(())
}
