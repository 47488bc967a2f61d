//! The package's exceptions, and how the Rust errors become them with the
//! same messages as the command line (the error and its causes joined by
//! ": ").

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use linerate_grab::session::GrabError;

create_exception!(
    linerate,
    Error,
    PyException,
    "Base class of every error linerate raises."
);
create_exception!(
    linerate,
    TimeoutError,
    Error,
    "No frame (or answer) came within the time allowed; the stream stays usable."
);
create_exception!(
    linerate,
    ControlLost,
    Error,
    "The camera's control connection was lost or taken over; the stream has ended."
);
create_exception!(
    linerate,
    FeatureError,
    Error,
    "A GenICam feature does not exist, or refused the value (out of range, not an entry, read-only)."
);

/// `e` and its causes on one line, joined by ": ", each cause once, as
/// the command line prints them: a library error often repeats its
/// source's text in its own message, and that is said only once.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut out = String::new();
    let mut cause = Some(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !text.is_empty() && !out.contains(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

/// `value` as a Python object through its JSON form (a report as a dict,
/// with the same fields as the command line's `--json`).
pub fn to_dict<'py, T: serde::Serialize>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_string(value).map_err(|e| Error::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (json,))
}

/// The exception for an error of the camera, control or stream layer.
pub fn grab(e: &linerate_grab::Error) -> PyErr {
    use linerate_grab::Error as E;
    let message = chain(e);
    match e {
        E::Timeout(_) => TimeoutError::new_err(message),
        E::ControlLost { .. } | E::ControlInterference { .. } | E::ControlTaken { .. } => {
            ControlLost::new_err(message)
        }
        E::GenICam(_) if lost_control_inside(e) => ControlLost::new_err(message),
        E::GenICam(_) | E::BadSetting { .. } => FeatureError::new_err(message),
        _ => Error::new_err(message),
    }
}

/// Whether a cause of `e` (a feature read whose register access failed,
/// say) is the camera's control connection lost.
fn lost_control_inside(e: &dyn std::error::Error) -> bool {
    let mut cause = e.source();
    while let Some(c) = cause {
        if let Some(
            linerate_grab::Error::ControlLost { .. }
            | linerate_grab::Error::ControlInterference { .. },
        ) = c.downcast_ref::<linerate_grab::Error>()
        {
            return true;
        }
        cause = c.source();
    }
    false
}

/// The exception for a grab session that could not start.
pub fn session(e: &GrabError) -> PyErr {
    let message = chain(e);
    match e {
        GrabError::Setting { .. } => FeatureError::new_err(message),
        _ => Error::new_err(message),
    }
}

/// The exception for a camera that is closed, or already streaming.
pub fn unavailable(what: &str) -> PyErr {
    Error::new_err(what.to_string())
}
