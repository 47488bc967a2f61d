//! Why a grab session could not start, or could not go on: each case
//! carries the value or the underlying error that explains it.

use crate::error::Error;
use crate::save::SaveError;

/// What stopped a grab session from starting (or, for a few cases, from
/// going on: a buffer the stream refused back). Errors while frames flow
/// (a lost camera, a stalled stream) end the run with a report instead,
/// its `error` saying why.
#[derive(Debug, thiserror::Error)]
pub enum GrabError {
    /// The camera could not be found or taken control of.
    #[error("opening camera {camera}")]
    Open {
        /// The camera as the configuration names it.
        camera: String,
        /// What went wrong.
        #[source]
        source: Error,
    },
    /// A stop was requested before acquisition started.
    #[error("stopped on request before acquisition started")]
    Stopped,
    /// The camera refused a setting.
    #[error("setting {feature} to {value}")]
    Setting {
        /// The feature (or register) being set.
        feature: &'static str,
        /// The value asked for.
        value: String,
        /// The camera's or the feature layer's answer.
        #[source]
        source: Error,
    },
    /// The camera's PayloadSize could not be read.
    #[error("reading PayloadSize")]
    PayloadSize(#[source] Error),
    /// The frame buffers asked for do not fit the memory budget.
    #[error(
        "{buffers} buffers × {payload}-byte frames need {} bytes, more than the buffer \
         memory budget of {budget} bytes (at most {fit} such frames fit)",
        (*.buffers as u64).saturating_mul((*.payload as u64).max(1))
    )]
    BufferMemory {
        /// Buffers asked for (or the least that would do).
        buffers: usize,
        /// The camera's payload size, bytes per buffer.
        payload: usize,
        /// The memory budget, bytes.
        budget: u64,
        /// How many buffers fit the budget.
        fit: usize,
    },
    /// The software trigger rate is not a usable number of frames per second.
    #[error("a software trigger rate of {fps} frames per second is not a positive, finite rate")]
    TriggerRate {
        /// The rate asked for.
        fps: f64,
    },
    /// The stream could not be opened.
    #[error("opening the stream")]
    Stream(#[source] Error),
    /// The stream refused a frame buffer.
    #[error(transparent)]
    Queue(Error),
    /// The directory to save frames into cannot be used.
    #[error(transparent)]
    SaveDirectory(#[from] SaveError),
    /// The camera did not start acquisition.
    #[error("starting acquisition")]
    Start(#[source] Error),
    /// The thread of a spawned session could not be started.
    #[error("starting the grab thread")]
    Thread(#[source] std::io::Error),
    /// The thread of a spawned session panicked.
    #[error("the grab thread panicked")]
    Panicked,
}

/// Why a run ended early, as its report's `error` says it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    /// A software trigger could not be sent.
    #[error("sending TriggerSoftware")]
    Trigger(#[source] Error),
    /// The camera closed the TCP stream connection.
    #[error("the camera closed the TCP stream connection")]
    TcpClosed,
    /// No frame came, or the stream or control failed.
    #[error(transparent)]
    Stream(#[from] Error),
}

/// `e` and its causes, joined by ": " (as `anyhow` prints `{:#}`), for a
/// report's `error` string, or a front end that shows an error as the
/// command line does.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_names_every_cause() {
        let e = RunError::Trigger(Error::Timeout(std::time::Duration::from_secs(1)));
        assert_eq!(chain(&e), "sending TriggerSoftware: no frame within 1s");
        let e = RunError::Stream(Error::StreamClosed("gone".into()));
        assert_eq!(chain(&e), "stream closed: gone");
        assert_eq!(
            chain(&RunError::TcpClosed),
            "the camera closed the TCP stream connection"
        );
    }
}
