//! Forwarding what Python reads to Apache Kafka (`to=` on `Camera.stream`
//! and `linerate.fade.Readout`): the same forwarder and ad00 mappings as
//! `linerate grab --to` and `linerate fade recv --to`, so a script that
//! reads frames or board data can also feed Kafka consumers.

use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use linerate_grab::stream::Buffer;
use linerate_kafka::chunks::Chunker;
use linerate_kafka::forwarder::{self, BackPressure, Forward, ForwarderConfig, ForwarderHandle};
use linerate_kafka::report::ForwardedFields;
use linerate_kafka::{ForwarderReport, KafkaTarget};

use crate::errors;

/// A stream's forwarder: running until the stream closes, then its report.
pub struct Forwarding {
    forward: Forward,
    source: String,
    state: Mutex<ForwardingState>,
}

enum ForwardingState {
    Running(ForwarderHandle),
    Finished(Box<Result<ForwarderReport, String>>),
}

/// What `Camera.stream(to=...)` asks for, checked before the camera is
/// touched.
pub struct ForwardingConfig {
    config: ForwarderConfig,
}

impl ForwardingConfig {
    /// Parses `to` (kafka://HOST:PORT[,HOST:PORT...]/TOPIC), `on_full`
    /// ("wait" or "drop") and extra librdkafka `settings`.
    pub fn parse(
        to: &str,
        source: &str,
        on_full: &str,
        settings: Option<Vec<(String, String)>>,
    ) -> PyResult<ForwardingConfig> {
        let target: KafkaTarget = to.parse().map_err(|e: linerate_kafka::TargetError| {
            PyValueError::new_err(format!("to={to:?}: {e}"))
        })?;
        let mut config = ForwarderConfig::new(target, source);
        config.back_pressure = match on_full {
            "wait" => BackPressure::Wait,
            "drop" => BackPressure::Drop,
            other => {
                return Err(PyValueError::new_err(format!(
                    "kafka_on_full {other:?} is not \"wait\" or \"drop\""
                )))
            }
        };
        config.settings = settings.unwrap_or_default();
        Ok(ForwardingConfig { config })
    }

    /// Starts the producer thread.
    pub fn spawn(self) -> PyResult<Forwarding> {
        let source = self.config.source_name.clone();
        let handle = forwarder::spawn(self.config)
            .map_err(|e| errors::Error::new_err(format!("kafka: {}", errors::chain(&e))))?;
        Ok(Forwarding {
            forward: handle.forward(),
            source,
            state: Mutex::new(ForwardingState::Running(handle)),
        })
    }
}

impl Forwarding {
    /// A chunker for one board's stream (chunks of `chunk` bytes, source
    /// name `source`), as `linerate fade recv --to` forwards board data.
    pub fn chunker(&self, source: &str, chunk: usize) -> Chunker {
        Chunker::new(self.forward.clone(), source, chunk)
    }

    /// Hands one frame to the forwarder (a copy into its message). A
    /// message it could not take is counted in its report, which `close()`
    /// checks.
    pub fn frame(&self, buffer: &Buffer) {
        let _ = linerate_kafka::frames::forward_frame(&self.forward, &self.source, buffer);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ForwardingState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for the last deliveries and keeps the report; later calls
    /// return the same. Needs no GIL.
    pub fn finish(&self) -> Result<ForwarderReport, String> {
        let mut state = self.lock();
        if let ForwardingState::Running(_) = &*state {
            let running = std::mem::replace(
                &mut *state,
                ForwardingState::Finished(Box::new(Err("finishing".into()))),
            );
            if let ForwardingState::Running(handle) = running {
                *state = ForwardingState::Finished(Box::new(
                    handle.finish().map_err(|e| errors::chain(&e)),
                ));
            }
        }
        match &*state {
            ForwardingState::Finished(r) => (**r).clone(),
            ForwardingState::Running(_) => Err("the forwarder is still running".into()),
        }
    }

    /// Adds the forwarder's figures to a stream's report dict, as `linerate
    /// grab --to --json` does: kafka_messages, kafka_bytes, kafka_errors,
    /// kafka_dropped and the delivery latency at the top level (live
    /// counters while the stream runs), the whole report under "kafka"
    /// once it has closed.
    pub fn add_to(&self, dict: &Bound<'_, PyAny>) -> PyResult<()> {
        let Ok(dict) = dict.downcast::<PyDict>() else {
            return Ok(());
        };
        let state = self.lock();
        match &*state {
            ForwardingState::Running(handle) => {
                let p = handle.progress();
                dict.set_item("kafka_submitted", p.submitted)?;
                dict.set_item("kafka_messages", p.delivered)?;
                dict.set_item("kafka_bytes", p.delivered_bytes)?;
                dict.set_item("kafka_errors", p.errors)?;
                dict.set_item("kafka_dropped", p.dropped)?;
            }
            ForwardingState::Finished(finished) => match &**finished {
                Ok(r) => {
                    // The same fields, typed, as `linerate grab --to --json`.
                    let fields = errors::to_dict(dict.py(), &ForwardedFields::of(r))?;
                    dict.update(fields.downcast::<pyo3::types::PyMapping>()?)?;
                    dict.set_item("kafka_submitted", r.submitted)?;
                }
                Err(e) => {
                    dict.set_item("kafka_error", e)?;
                }
            },
        }
        Ok(())
    }
}

/// The error `close()` raises when not every message (`what`: frames,
/// chunks) reached the topic.
pub fn undelivered(report: &Result<ForwarderReport, String>, what: &str) -> Option<String> {
    match report {
        Ok(r) => r.undelivered(what).map(|why| format!("kafka: {why}")),
        Err(e) => Some(format!("kafka: {e}")),
    }
}
