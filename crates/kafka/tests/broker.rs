//! The forwarder and the consumer against a real Apache Kafka broker
//! (`scripts/kafka up`: started if not running, left running for the next
//! test; `scripts/kafka down` stops it).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use linerate_kafka::consumer::{self, ConsumeConfig};
use linerate_kafka::forwarder::{self, BackPressure, ForwarderConfig, Handed};
use linerate_kafka::messages::{ArrayMessage, AttributeValue, ElementType};
use linerate_kafka::KafkaTarget;

/// The bootstrap address of the project's broker, started if need be.
fn broker() -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka");
    let out = Command::new(&script)
        .arg("up")
        .output()
        .expect("scripts/kafka runs (install Java and Maven with scripts/install-deps)");
    assert!(
        out.status.success(),
        "scripts/kafka up failed (run scripts/install-deps for Java and Maven): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn unique_topic(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{name}-{}-{nanos}", std::process::id())
}

fn frame(number: u64, len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len];
    linerate_gev::test_pattern::fill(number, &mut f).expect("long enough for a stamp");
    f
}

#[test]
fn stamped_frames_are_delivered_once_and_verified() {
    let target: KafkaTarget = format!("kafka://{}/{}", broker(), unique_topic("frames"))
        .parse()
        .expect("valid address");
    let handle = forwarder::spawn(ForwarderConfig::new(target.clone(), "cam")).expect("producer");
    let forward = handle.forward();
    let (w, h) = (256usize, 128usize);
    for id in 1..=40u64 {
        let data = frame(id, w * h);
        let handed = forward
            .array(
                id,
                &ArrayMessage {
                    source_name: "cam",
                    id: id as i32,
                    timestamp_ns: 1_000 * id as i64,
                    dimensions: &[h as i64, w as i64],
                    element: ElementType::Uint8,
                    data: &data,
                    attributes: &[
                        ("block_id", AttributeValue::U64(id)),
                        ("complete", AttributeValue::U64(1)),
                    ],
                },
            )
            .expect("forwarder running");
        assert_eq!(handed, Handed::Queued);
    }
    let report = handle.finish().expect("report");
    assert!(report.ok, "{report:?}");
    assert_eq!(report.kafka_messages, 40);
    assert_eq!(report.kafka_errors, 0);
    assert!(report.delivery_latency.count == 40 && report.delivery_latency.p99_us > 0.0);
    assert!(
        report.status_messages >= 4,
        "the final counters went out: {report:?}"
    );

    let mut c = ConsumeConfig::new(target);
    c.expect = Some(40);
    c.idle = Duration::from_secs(3);
    let seen = consumer::run(&c).expect("consumed");
    assert!(seen.ok, "{seen:?}");
    assert_eq!(seen.messages, 40);
    let s = &seen.sources[0];
    assert_eq!(
        (s.first_id, s.last_id, s.gaps, s.duplicates),
        (Some(1), Some(40), 0, 0)
    );
    assert_eq!(s.verified, 40);
    assert_eq!(s.dimensions, [h as i64, w as i64]);
}

#[test]
fn a_corrupted_frame_and_a_gap_are_reported() {
    let target: KafkaTarget = format!("kafka://{}/{}", broker(), unique_topic("bad"))
        .parse()
        .expect("valid address");
    let handle = forwarder::spawn(ForwarderConfig::new(target.clone(), "cam")).expect("producer");
    let forward = handle.forward();
    // 2 is corrupted, 3 never sent, 5 carries frame 6's data.
    for id in [1u64, 2, 4, 5] {
        let mut data = frame(if id == 5 { 6 } else { id }, 4096);
        if id == 2 {
            data[100] ^= 1;
        }
        forward
            .array(
                id,
                &ArrayMessage {
                    source_name: "cam",
                    id: id as i32,
                    timestamp_ns: 0,
                    dimensions: &[64, 64],
                    element: ElementType::Uint8,
                    data: &data,
                    attributes: &[],
                },
            )
            .expect("forwarder running");
    }
    assert!(handle.finish().expect("report").ok);
    let mut c = ConsumeConfig::new(target);
    c.expect = Some(3);
    let seen = consumer::run(&c).expect("consumed");
    assert!(!seen.ok);
    let s = &seen.sources[0];
    assert_eq!((s.gaps, s.missing_ids.as_slice()), (1, &[3u64][..]));
    assert_eq!((s.verified, s.verify_failures), (2, 1));
    assert!(
        s.first_failure
            .as_deref()
            .is_some_and(|f| f.starts_with("id 2")),
        "{s:?}"
    );
}

#[test]
fn an_unreachable_broker_is_counted_not_swallowed() {
    // Nothing listens on port 9 of loopback: every message fails after
    // the message timeout and is listed.
    let target: KafkaTarget = "kafka://127.0.0.1:9/nowhere".parse().expect("valid");
    let mut config = ForwarderConfig::new(target, "cam");
    config.message_timeout = Duration::from_secs(2);
    config.back_pressure = BackPressure::Drop;
    config.queue_messages = 1;
    let handle = forwarder::spawn(config).expect("producer");
    let forward = handle.forward();
    let data = frame(1, 1024);
    let mut dropped = 0;
    for id in 1..=5u64 {
        let m = ArrayMessage {
            source_name: "cam",
            id: id as i32,
            timestamp_ns: 0,
            dimensions: &[1024],
            element: ElementType::Uint8,
            data: &data,
            attributes: &[],
        };
        if forward.array(id, &m).expect("forwarder running") == Handed::Dropped {
            dropped += 1;
        }
    }
    let report = handle.finish().expect("report");
    assert!(!report.ok);
    assert_eq!(report.kafka_messages, 0);
    assert_eq!(report.kafka_dropped, dropped);
    assert_eq!(report.kafka_errors + report.kafka_dropped, 5, "{report:?}");
    assert_eq!(report.undelivered_ids.len() as u64, report.kafka_errors);
    assert!(report.first_error.is_some());
}
