//! The camera controls the page offers, as a trait the running stream
//! implements (the camera view writes them through the GenICam feature
//! layer `grab` uses); the view itself knows nothing about cameras.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One control's current value, for the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ControlValue {
    /// Feature name (or the view's own name: PacketSize, PacketDelay,
    /// Transport, Acquisition).
    pub name: String,
    /// Current value as text; None when the camera has no such feature.
    pub value: Option<String>,
    /// Allowed values of an enumeration (empty otherwise).
    pub options: Vec<String>,
    /// Lowest allowed value of a number, if the camera says.
    pub min: Option<f64>,
    /// Highest allowed value of a number, if the camera says.
    pub max: Option<f64>,
}

/// A control the camera refused, with the camera's reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize, JsonSchema)]
#[error("{feature} = {value:?}: {message}")]
pub struct ControlError {
    /// The feature written.
    pub feature: String,
    /// The value refused.
    pub value: String,
    /// Why (a bounds error, a lost camera, an unknown feature).
    pub message: String,
}

/// What the page can read and write. Implementations apply writes on the
/// stream's own thread (the view calls these from a blocking worker).
pub trait Controls: Send + Sync {
    /// Every control's current value.
    fn read(&self) -> Result<Vec<ControlValue>, ControlError>;
    /// Writes one control: a feature value, a command (TriggerSoftware
    /// with any value), PacketSize/PacketDelay in bytes/ns, Transport
    /// udp/tcp, Acquisition start/stop.
    fn write(&self, feature: &str, value: &str) -> Result<(), ControlError>;
}
