//! Forwarding to Apache Kafka (issue: scale-out through Kafka), side by
//! side in one run on the broker the scenario starts on the PC's
//! loopback:
//!
//! - throughput: linerate's forwarder and Kafka's own
//!   `ProducerPerformance` taking turns, 1 MiB and 4 MiB records (= frame
//!   size), same broker, same topic settings, same producer settings;
//! - cost: the receiving core's CPU per GB of `linerate grab` on the same
//!   stream with and without `--to kafka://`;
//! - full runs only: a 3-broker cluster (replication 3, acks=all) whose
//!   partition leader is killed during a 60 s stream; every frame must be
//!   in the topic once, and the pause in delivery is reported.

use super::repeated;
use crate::config::BenchConfig;
use crate::job::KafkaProducer;
use crate::job::{Job, Work};
use crate::peers::Stream;
use crate::scenario::Scenario;

/// The implementation the producer rows' ratios are taken against.
pub const PRODUCER_REFERENCE: &str = "kafka-producer-perf";
/// The implementation the grab rows' ratios are taken against.
pub const GRAB_REFERENCE: &str = "linerate-grab";

const MIB: u64 = 1 << 20;

/// Whether `case` is a producer-throughput case (`1 MiB records`).
pub fn is_producer_case(case: &str) -> bool {
    case.ends_with(" records")
}

pub(super) fn plan(config: &BenchConfig) -> Vec<Job> {
    // Quick: 128 MiB per producer run, one grab rate. Full: 1 GiB per
    // producer run, two rates (4 MiB frames at 25 and 50 fps: 0.84 and
    // 1.7 Gbit/s, both lossless for grab without forwarding).
    let (bytes_per_run, rates): (u64, &[f64]) = if config.quick {
        (128 * MIB, &[25.0])
    } else {
        (1024 * MIB, &[25.0, 50.0])
    };
    let mut jobs = repeated(config, || {
        let mut jobs = Vec::new();
        for record_bytes in [MIB, 4 * MIB] {
            for (name, producer) in [
                ("linerate-forwarder", KafkaProducer::Forwarder),
                (PRODUCER_REFERENCE, KafkaProducer::ProducerPerformance),
            ] {
                jobs.push(Job::new(
                    Scenario::Kafka,
                    name,
                    format!("{} MiB records", record_bytes / MIB),
                    record_bytes as f64,
                    Work::KafkaProduce {
                        producer,
                        record_bytes,
                        records: bytes_per_run / record_bytes,
                    },
                ));
            }
        }
        for &fps in rates {
            for (name, forward) in [(GRAB_REFERENCE, false), ("linerate-grab-to-kafka", true)] {
                jobs.push(Job::new(
                    Scenario::Kafka,
                    name,
                    format!("2048x2048 at {fps} fps"),
                    fps,
                    Work::KafkaGrab {
                        forward,
                        stream: Stream::paced_10g(2048, 2048, fps, 8000),
                    },
                ));
            }
        }
        jobs
    });
    if !config.quick {
        // Once per run: 60 s of 1024x1024 at 25 fps (26 MB/s, 1.6 GB
        // stored three times over).
        jobs.push(Job::new(
            Scenario::Kafka,
            "linerate-grab-to-kafka",
            "3 brokers, leader killed".to_owned(),
            3.0,
            Work::KafkaFault {
                brokers: 3,
                seconds: 60,
                stream: Stream::paced_10g(1024, 1024, 25.0, 8000),
            },
        ));
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn producers_alternate_and_only_full_runs_kill_a_broker() {
        let quick = plan(&BenchConfig::new(vec![], true, PathBuf::from("linerate")));
        let imps: Vec<&str> = quick.iter().map(|j| j.implementation.as_str()).collect();
        assert_eq!(
            imps,
            [
                "linerate-forwarder",
                PRODUCER_REFERENCE,
                "linerate-forwarder",
                PRODUCER_REFERENCE,
                GRAB_REFERENCE,
                "linerate-grab-to-kafka"
            ]
        );
        assert!(quick
            .iter()
            .all(|j| !matches!(j.work, Work::KafkaFault { .. })));
        assert!(quick.iter().filter(|j| is_producer_case(&j.case)).all(
            |j| matches!(j.work, Work::KafkaProduce { record_bytes, records, .. }
                if record_bytes * records == 128 * MIB)
        ));
        let full = plan(&BenchConfig::new(vec![], false, PathBuf::from("linerate")));
        let faults: Vec<&Job> = full
            .iter()
            .filter(|j| {
                matches!(
                    j.work,
                    Work::KafkaFault {
                        brokers: 3,
                        seconds: 60,
                        ..
                    }
                )
            })
            .collect();
        assert_eq!(faults.len(), 1);
        assert!(!is_producer_case(&faults[0].case));
    }
}
