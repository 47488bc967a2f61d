//! Scale-out through Apache Kafka: what linerate's receivers get, published
//! in the ESS streaming-data-types schemas so that any ESS consumer (file
//! writers, live reduction, Python) reads it.
//!
//! * [`messages`]: the mapping — frames and board chunks as `ad00` arrays,
//!   counters as `f144` values — with encoders and a decoder;
//! * [`forwarder`]: [`spawn`] a producer thread that takes messages off the
//!   receiver through a bounded queue and accounts for every one;
//! * [`chunks`]: board streams cut into chunks for the forwarder;
//! * [`consumer`]: read a topic back and verify every frame or chunk;
//! * [`target`]: `kafka://HOST:PORT[,HOST:PORT]/TOPIC` addresses;
//! * [`admin`]: topics with a chosen number of partitions, and who leads them;
//! * [`rate`]: the forwarder's own pace, for benchmarks;
//! * [`report`]: a receiver's report with the forwarder's figures beside its own.
//!
//! ```no_run
//! use linerate_kafka::{forwarder, messages::{ArrayMessage, ElementType}};
//!
//! let target = "kafka://127.0.0.1:9092/frames".parse()?;
//! let handle = forwarder::spawn(forwarder::ForwarderConfig::new(target, "cam0"))?;
//! let forward = handle.forward(); // for the receiver's thread
//! let frame = vec![0u8; 64 * 64];
//! forward.array(1, &ArrayMessage {
//!     source_name: "cam0",
//!     id: 1,
//!     timestamp_ns: 0,
//!     dimensions: &[64, 64],
//!     element: ElementType::Uint8,
//!     data: &frame,
//!     attributes: &[],
//! })?;
//! let report = handle.finish()?;
//! assert!(report.ok, "{} undelivered", report.kafka_errors);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod admin;
pub mod chunks;
pub mod consumer;
mod ess;
pub mod forwarder;
pub mod frames;
pub mod messages;
pub mod rate;
pub mod report;
pub mod target;

pub use forwarder::{
    spawn, BackPressure, Forward, ForwardError, ForwarderConfig, ForwarderHandle, ForwarderReport,
};
pub use target::{KafkaTarget, TargetError};
