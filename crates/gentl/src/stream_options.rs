//! What a GenICam application sets and reads on the data stream's own
//! port: the stream options (transport, receive backend, resend, engine
//! buffers, verification) as features of our XML, the counters beside
//! them, and the grab configuration the options make.

use std::time::Duration;

use linerate_grab::receive::{Backend, Transport};
use linerate_grab::session::GrabConfig;

use crate::error::{GcError, GcResult};
use crate::local_port::{Field, FieldKind, Value};

/// The one data stream of a device.
pub const STREAM_ID: &str = "stream0";

/// `LinerateStreamTransport`'s entries.
static TRANSPORTS: [(&str, i64); 2] = [("UDP", 0), ("TCP", 1)];
/// `LinerateStreamBackend`'s entries.
static BACKENDS: [(&str, i64); 3] = [("mmsg", 0), ("copy", 1), ("ring", 2)];

/// The data stream module's features, in register order.
pub static STREAM_FIELDS: [Field; 12] = [
    Field {
        name: "StreamID",
        kind: FieldKind::Text(32),
        writable: false,
        tooltip: "The stream's ID.",
    },
    Field {
        name: "LinerateStreamTransport",
        kind: FieldKind::Enum(&TRANSPORTS),
        writable: true,
        tooltip:
            "GVSP over UDP (any camera) or linerate's GVSP records over TCP (linerate cameras).",
    },
    Field {
        name: "LinerateStreamBackend",
        kind: FieldKind::Enum(&BACKENDS),
        writable: true,
        tooltip:
            "How UDP packets are received: recvmmsg batches, one copy per packet, or a kernel ring.",
    },
    Field {
        name: "LinerateStreamResend",
        kind: FieldKind::Bool,
        writable: true,
        tooltip: "Ask the camera to resend lost packets.",
    },
    Field {
        name: "LinerateStreamEngineBuffers",
        kind: FieldKind::Int { min: 0, max: 1024 },
        writable: true,
        tooltip: "Frame buffers of the receive engine, frames then copied into yours (0: none \
                  with 8 or more buffers queued, frames received straight into them; else 16, \
                  or as many as fit 1 GiB).",
    },
    Field {
        name: "LinerateStreamVerify",
        kind: FieldKind::Bool,
        writable: true,
        tooltip: "Check every complete frame against the camera's test pattern.",
    },
    Field {
        name: "StreamDeliveredFrameCount",
        kind: FieldKind::Int {
            min: 0,
            max: i64::MAX,
        },
        writable: false,
        tooltip: "Buffers delivered since the stream was opened.",
    },
    Field {
        name: "StreamIncompleteFrameCount",
        kind: FieldKind::Int {
            min: 0,
            max: i64::MAX,
        },
        writable: false,
        tooltip: "Buffers delivered incomplete since the stream was opened.",
    },
    Field {
        name: "LinerateStreamVerifiedFrameCount",
        kind: FieldKind::Int {
            min: 0,
            max: i64::MAX,
        },
        writable: false,
        tooltip: "Frames of the current or last acquisition that matched the test pattern.",
    },
    Field {
        name: "LinerateStreamCorruptFrameCount",
        kind: FieldKind::Int {
            min: 0,
            max: i64::MAX,
        },
        writable: false,
        tooltip: "Frames of the current or last acquisition that did not match the test pattern.",
    },
    Field {
        name: "LinerateStreamResentPacketCount",
        kind: FieldKind::Int {
            min: 0,
            max: i64::MAX,
        },
        writable: false,
        tooltip: "Packets the camera resent on request in the last finished acquisition.",
    },
    Field {
        name: "LinerateStreamDirectFrameCount",
        kind: FieldKind::Int {
            min: 0,
            max: i64::MAX,
        },
        writable: false,
        tooltip: "Buffers delivered since the stream was opened that the engine received the \
                  frame straight into (no copy): all of them when at least 8 buffers are \
                  queued and LinerateStreamEngineBuffers is 0.",
    },
];

/// Options a consumer sets through the stream's port before starting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamOptions {
    /// GVSP over UDP, or linerate's GVSP over TCP.
    pub transport: Transport,
    /// How UDP packets are received.
    pub backend: Backend,
    /// Ask the camera to resend lost packets.
    pub resend: bool,
    /// The engine's own frame buffers (0: its default).
    pub engine_buffers: i64,
    /// Check complete frames against the camera's test pattern.
    pub verify: bool,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            transport: Transport::Udp,
            backend: Backend::default(),
            resend: true,
            engine_buffers: 0,
            verify: false,
        }
    }
}

/// The stream's counters, as its read-only features show them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counters {
    /// Buffers delivered since the stream opened.
    pub delivered: u64,
    /// ... of which incomplete.
    pub incomplete: u64,
    /// Frames matching the test pattern (current or last acquisition).
    pub verified: u64,
    /// Frames not matching it.
    pub corrupt: u64,
    /// Packets resent in the last finished acquisition.
    pub resent: u64,
    /// Buffers delivered that the engine received straight into.
    pub direct: u64,
}

fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl StreamOptions {
    /// The value of feature `name`.
    pub fn value(&self, name: &str, counters: &Counters) -> Value {
        match name {
            "StreamID" => Value::Text(STREAM_ID.into()),
            "LinerateStreamTransport" => Value::Int(i64::from(self.transport == Transport::Tcp)),
            "LinerateStreamBackend" => Value::Int(match self.backend {
                Backend::Mmsg => 0,
                Backend::Copy => 1,
                Backend::Ring => 2,
            }),
            "LinerateStreamResend" => Value::Int(i64::from(self.resend)),
            "LinerateStreamEngineBuffers" => Value::Int(self.engine_buffers),
            "LinerateStreamVerify" => Value::Int(i64::from(self.verify)),
            "StreamDeliveredFrameCount" => Value::Int(count(counters.delivered)),
            "StreamIncompleteFrameCount" => Value::Int(count(counters.incomplete)),
            "LinerateStreamVerifiedFrameCount" => Value::Int(count(counters.verified)),
            "LinerateStreamResentPacketCount" => Value::Int(count(counters.resent)),
            "LinerateStreamDirectFrameCount" => Value::Int(count(counters.direct)),
            _ => Value::Int(count(counters.corrupt)),
        }
    }

    /// Takes a new (range-checked) value for option `name`.
    pub fn set(&mut self, name: &str, value: i64) -> GcResult<()> {
        match name {
            "LinerateStreamTransport" => {
                self.transport = if value == 1 {
                    Transport::Tcp
                } else {
                    Transport::Udp
                }
            }
            "LinerateStreamBackend" => {
                self.backend = match value {
                    1 => Backend::Copy,
                    2 => Backend::Ring,
                    _ => Backend::Mmsg,
                }
            }
            "LinerateStreamResend" => self.resend = value == 1,
            "LinerateStreamEngineBuffers" => self.engine_buffers = value,
            "LinerateStreamVerify" => self.verify = value == 1,
            other => return Err(GcError::AccessDenied(format!("{other} is read-only"))),
        }
        Ok(())
    }

    /// The grab of `camera` these options ask for: no frame limit, and no
    /// frame timeout of its own (the consumer times its waits).
    pub fn grab_config(&self, camera: String) -> GrabConfig {
        GrabConfig {
            frames: 0,
            buffers: (self.engine_buffers > 0)
                .then(|| usize::try_from(self.engine_buffers).unwrap_or(16)),
            transport: self.transport,
            backend: self.backend,
            resend: self.resend,
            verify: self.verify,
            frame_timeout: Duration::from_secs(365 * 24 * 3600),
            ..GrabConfig::new(camera)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_round_trip_through_their_features() {
        let mut o = StreamOptions::default();
        let c = Counters::default();
        o.set("LinerateStreamTransport", 1).expect("writable");
        o.set("LinerateStreamBackend", 2).expect("writable");
        o.set("LinerateStreamResend", 0).expect("writable");
        assert_eq!(o.value("LinerateStreamTransport", &c), Value::Int(1));
        assert_eq!(o.value("LinerateStreamBackend", &c), Value::Int(2));
        let g = o.grab_config("169.254.0.1".into());
        assert_eq!(g.transport, Transport::Tcp);
        assert_eq!(g.backend, Backend::Ring);
        assert!(!g.resend);
        assert_eq!(g.buffers, None);
        assert!(o.set("StreamDeliveredFrameCount", 1).is_err());
        // Every entry the XML offers is one `set` understands.
        for f in &STREAM_FIELDS {
            if let FieldKind::Enum(entries) = f.kind {
                for &(_, v) in entries {
                    o.set(f.name, v).expect("an entry of the XML");
                }
            }
        }
    }
}
