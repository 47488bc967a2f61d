//! A receiver's report with the forwarder's figures beside its own, as
//! `linerate grab --json` and `linerate fade recv --json` print it when
//! they forward: typed, so `linerate schema` describes every field and
//! scripts and the benchmark read them back through these types.

use serde::{Deserialize, Serialize};

use crate::forwarder::ForwarderReport;

/// The forwarder's figures at the top level of a receiver's report: the
/// counters and delivery latency a script checks first, and the whole
/// forwarder report under `kafka` (`kafka.ok`: every message delivered; a
/// receiver whose report has an `ok` of its own clears it too when not).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ForwardedFields {
    /// Messages the broker acknowledged (frames or chunks delivered).
    pub kafka_messages: u64,
    /// Bytes of those messages, encoded as stored in the topic.
    pub kafka_bytes: u64,
    /// Messages that were never delivered (refused, or failed after
    /// librdkafka's retries).
    pub kafka_errors: u64,
    /// Messages dropped whole on a full queue (`--kafka-on-full drop`).
    pub kafka_dropped: u64,
    /// Median hand-over to broker acknowledgement, µs.
    pub kafka_latency_p50_us: f64,
    /// 99th percentile of hand-over to acknowledgement, µs.
    pub kafka_latency_p99_us: f64,
    /// The forwarder's whole report.
    pub kafka: ForwarderReport,
}

impl ForwardedFields {
    /// The fields of `report`.
    pub fn of(report: &ForwarderReport) -> ForwardedFields {
        ForwardedFields {
            kafka_messages: report.kafka_messages,
            kafka_bytes: report.kafka_bytes,
            kafka_errors: report.kafka_errors,
            kafka_dropped: report.kafka_dropped,
            kafka_latency_p50_us: report.delivery_latency.p50_us,
            kafka_latency_p99_us: report.delivery_latency.p99_us,
            kafka: report.clone(),
        }
    }
}

/// A receiver's report `R` and, when it forwarded (`--to kafka://...`),
/// the forwarder's fields beside R's own in one JSON object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "{R}")]
pub struct Forwarded<R> {
    /// The receiver's own report.
    #[serde(flatten)]
    pub report: R,
    /// The forwarder's figures; absent when nothing was forwarded.
    #[serde(flatten)]
    pub forwarded: Option<ForwardedFields>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    struct Receiver {
        frames: u64,
    }

    #[test]
    fn fields_sit_beside_the_receivers_own_and_read_back() {
        let k = ForwarderReport {
            kafka_messages: 9,
            kafka_errors: 1,
            ok: false,
            ..ForwarderReport::default()
        };
        let with = Forwarded {
            report: Receiver { frames: 10 },
            forwarded: Some(ForwardedFields::of(&k)),
        };
        let v = serde_json::to_value(&with).expect("json");
        assert_eq!(v["frames"], 10);
        assert_eq!(v["kafka_messages"], 9);
        assert_eq!(v["kafka_errors"], 1);
        assert_eq!(v["kafka"]["kafka_messages"], 9);
        assert_eq!(v["kafka"]["ok"], false);
        let back: Forwarded<Receiver> = serde_json::from_value(v).expect("read back");
        assert_eq!(back, with);
        // Without forwarding, the receiver's report alone.
        let plain = serde_json::to_value(Forwarded {
            report: Receiver { frames: 3 },
            forwarded: None,
        })
        .expect("json");
        assert_eq!(plain, serde_json::json!({ "frames": 3 }));
        let back: Forwarded<Receiver> = serde_json::from_value(plain).expect("read back");
        assert_eq!(back.forwarded, None);
    }

    #[test]
    fn the_schema_names_the_kafka_fields_as_optional() {
        let schema =
            serde_json::to_value(schemars::schema_for!(Forwarded<Receiver>)).expect("schema");
        let props = &schema["properties"];
        for key in [
            "frames",
            "kafka_messages",
            "kafka_dropped",
            "kafka_latency_p99_us",
            "kafka",
        ] {
            assert!(props.get(key).is_some(), "{key} missing from {schema}");
        }
        let required = schema["required"].as_array().cloned().unwrap_or_default();
        assert!(required.iter().any(|r| r == "frames"), "{schema}");
        assert!(!required.iter().any(|r| r == "kafka_messages"), "{schema}");
        assert_eq!(schema["title"], "Receiver");
    }
}
