//! A consumer that checks: reads a topic (and its `_status` topic), decodes
//! every `ad00` and `f144` message, verifies each frame's test pattern or
//! each board chunk's counter stream, and reports per source what arrived,
//! what is missing between the first and last id, what came twice, and the
//! throughput. Several consumers in one group split the partitions.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::Message;
use serde::{Deserialize, Serialize};

use crate::messages::{decode, Decoded, DecodedArray};
use crate::target::KafkaTarget;

/// What and how long to consume.
#[derive(Debug, Clone)]
pub struct ConsumeConfig {
    /// Brokers and topic.
    pub target: KafkaTarget,
    /// Consumer group; a fresh one per run when `None` (every consumer then
    /// reads every partition).
    pub group: Option<String>,
    /// Also read `TOPIC_status` for the f144 counters.
    pub status: bool,
    /// Verify test patterns and counter streams.
    pub verify: bool,
    /// Stop after this many arrays.
    pub expect: Option<u64>,
    /// Stop when nothing arrived for this long after the first message.
    pub idle: Duration,
    /// Stop if nothing at all arrived for this long.
    pub first_timeout: Duration,
    /// List every id seen per source in the report.
    pub list_ids: bool,
    /// Set it to end early.
    pub stop: Arc<AtomicBool>,
}

impl ConsumeConfig {
    /// Reads `target` from the beginning in a group of its own, verifying,
    /// until 5 s without a message (30 s before the first).
    pub fn new(target: KafkaTarget) -> ConsumeConfig {
        ConsumeConfig {
            target,
            group: None,
            status: true,
            verify: true,
            expect: None,
            idle: Duration::from_secs(5),
            first_timeout: Duration::from_secs(30),
            list_ids: false,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// Why consuming failed.
#[derive(Debug, thiserror::Error)]
pub enum ConsumeError {
    /// librdkafka refused the configuration or the subscription.
    #[error("consuming {target}: {source}")]
    Kafka {
        /// Where from.
        target: String,
        /// librdkafka's error.
        #[source]
        source: KafkaError,
    },
}

/// What one source's arrays came to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SourceReport {
    /// The source name (camera, board MAC).
    pub source: String,
    /// `frame` (GigE Vision test pattern) or `chunk` (board stream).
    pub kind: String,
    /// Arrays received (duplicates included).
    pub messages: u64,
    /// Array bytes received.
    pub bytes: u64,
    /// Smallest and largest id seen (block id or chunk sequence).
    pub first_id: Option<u64>,
    /// Largest id seen.
    pub last_id: Option<u64>,
    /// Ids between the first and the last that never arrived.
    pub gaps: u64,
    /// The first missing ids (at most 100).
    pub missing_ids: Vec<u64>,
    /// Arrays whose id had already arrived.
    pub duplicates: u64,
    /// Arrays that passed verification.
    pub verified: u64,
    /// Arrays that failed it (pattern, counter stream or dimensions).
    pub verify_failures: u64,
    /// The first failure.
    pub first_failure: Option<String>,
    /// Arrays the receiver marked incomplete (attribute `complete` = 0).
    pub incomplete: u64,
    /// Every id seen, when asked for.
    pub ids: Vec<u64>,
    /// Dimensions of the last array.
    pub dimensions: Vec<i64>,
}

/// What a consumer saw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConsumeReport {
    /// `kafka://brokers/topic`.
    pub target: String,
    /// The consumer group.
    pub group: String,
    /// ad00 arrays received.
    pub messages: u64,
    /// Bytes of those messages as stored (encoded).
    pub bytes: u64,
    /// Messages that did not decode.
    pub undecodable: u64,
    /// Per source.
    pub sources: Vec<SourceReport>,
    /// The last value of each f144 counter, by source name.
    pub counters: BTreeMap<String, u64>,
    /// Arrays per partition of the topic.
    pub partitions: BTreeMap<i32, u64>,
    /// From the first message to the last.
    pub seconds: f64,
    /// Encoded bytes per second over that time, MB/s (10^6).
    pub throughput_mb_s: f64,
    /// Every array verified, no duplicate, nothing undecodable, and no gap
    /// (gaps are allowed in a named group, whose other members read the
    /// other partitions).
    pub ok: bool,
}

#[derive(Default)]
struct SourceState {
    report: SourceReport,
    seen: BTreeSet<u64>,
    /// `block_id - frame_number` of the first frame: the camera numbers
    /// both in step, so a frame carrying another's data shows as a change.
    frame_skew: Option<u64>,
}

/// Consumes until the configured end and returns the report.
pub fn run(config: &ConsumeConfig) -> Result<ConsumeReport, ConsumeError> {
    run_with(config, |_| {})
}

/// Like [`run`], calling `on_assigned` with the topic's partitions this
/// consumer holds whenever that set changes (a group rebalanced), so a
/// caller can wait until every member of a group has its share.
pub fn run_with<F>(
    config: &ConsumeConfig,
    mut on_assigned: F,
) -> Result<ConsumeReport, ConsumeError>
where
    F: FnMut(&[i32]),
{
    let target = config.target.to_string();
    let kafka = |source| ConsumeError::Kafka {
        target: target.clone(),
        source,
    };
    let group = config.group.clone().unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("linerate-consume-{}-{nanos}", std::process::id())
    });
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", config.target.bootstrap())
        .set("group.id", &group)
        .set("auto.offset.reset", "earliest")
        // A consumer started before the producer creates the topic (with
        // the broker's default partitions) instead of waiting unassigned.
        .set("allow.auto.create.topics", "true")
        .set("enable.auto.commit", "true")
        .set("auto.commit.interval.ms", "200")
        .set("fetch.max.bytes", (64 << 20).to_string())
        .set("max.partition.fetch.bytes", (32 << 20).to_string())
        .set("receive.message.max.bytes", (128 << 20).to_string())
        .create()
        .map_err(kafka)?;
    let status_topic = config.target.status_topic();
    let mut topics = vec![config.target.topic.as_str()];
    if config.status {
        topics.push(&status_topic);
    }
    consumer.subscribe(&topics).map_err(kafka)?;

    let mut report = ConsumeReport {
        target: target.clone(),
        group,
        ..ConsumeReport::default()
    };
    let mut sources: BTreeMap<String, SourceState> = BTreeMap::new();
    let started = Instant::now();
    let mut first: Option<Instant> = None;
    let mut last = started;
    let mut arrays = 0u64;
    let mut assigned: Option<Vec<i32>> = None;
    let mut next_assignment_check = started;
    loop {
        if Instant::now() >= next_assignment_check {
            next_assignment_check += Duration::from_millis(200);
            if let Ok(list) = consumer.assignment() {
                let mut mine: Vec<i32> = list
                    .elements()
                    .iter()
                    .filter(|e| e.topic() == config.target.topic)
                    .map(|e| e.partition())
                    .collect();
                mine.sort_unstable();
                if assigned.as_ref() != Some(&mine) {
                    on_assigned(&mine);
                    assigned = Some(mine);
                }
            }
        }
        if config.stop.load(Ordering::Relaxed) || config.expect.is_some_and(|e| arrays >= e) {
            break;
        }
        let quiet = match first {
            None => started.elapsed() >= config.first_timeout,
            Some(_) => last.elapsed() >= config.idle,
        };
        if quiet {
            break;
        }
        let Some(result) = consumer.poll(Duration::from_millis(100)) else {
            continue;
        };
        let message = match result {
            Ok(m) => m,
            // Transient: a broker restarting, a rebalance. librdkafka retries.
            Err(_) => continue,
        };
        let now = Instant::now();
        first.get_or_insert(now);
        last = now;
        let payload = message.payload().unwrap_or_default();
        match decode(payload) {
            Ok(Decoded::Array(a)) => {
                arrays += 1;
                report.messages += 1;
                report.bytes += payload.len() as u64;
                *report.partitions.entry(message.partition()).or_default() += 1;
                let state = sources.entry(a.source_name.to_string()).or_default();
                account(state, &a, config.verify);
            }
            Ok(Decoded::Counter(c)) => {
                report.counters.insert(c.source_name, c.value);
            }
            Err(_) => report.undecodable += 1,
        }
    }
    if let Some(f) = first {
        report.seconds = last.duration_since(f).as_secs_f64();
        if report.seconds > 0.0 {
            report.throughput_mb_s = report.bytes as f64 / report.seconds / 1e6;
        }
    }
    let mut ok = report.undecodable == 0 && report.messages > 0;
    for (_, mut s) in sources {
        if let (Some(lo), Some(hi)) = (s.seen.first().copied(), s.seen.last().copied()) {
            s.report.first_id = Some(lo);
            s.report.last_id = Some(hi);
            let span = hi - lo + 1;
            s.report.gaps = span - s.seen.len() as u64;
            if s.report.gaps > 0 {
                let mut expected = lo;
                for &id in &s.seen {
                    while expected < id && s.report.missing_ids.len() < 100 {
                        s.report.missing_ids.push(expected);
                        expected += 1;
                    }
                    expected = id + 1;
                }
            }
        }
        if config.list_ids {
            s.report.ids = s.seen.iter().copied().collect();
        }
        // In a named group the other members hold the other partitions, so
        // ids missing here are expected; they are still listed.
        ok &= (s.report.gaps == 0 || config.group.is_some())
            && s.report.duplicates == 0
            && s.report.verify_failures == 0
            && (!config.verify || s.report.verified == s.report.messages);
        report.sources.push(s.report);
    }
    report.ok = ok;
    Ok(report)
}

/// Counts one array against its source and verifies it.
fn account(state: &mut SourceState, a: &DecodedArray<'_>, verify: bool) {
    let r = &mut state.report;
    r.source = a.source_name.to_string();
    r.messages += 1;
    r.bytes += a.data.len() as u64;
    r.dimensions = a.dimensions.clone();
    let chunk_offset = a.u64_attribute("stream_offset");
    r.kind = if chunk_offset.is_some() {
        "chunk"
    } else {
        "frame"
    }
    .into();
    let id = a
        .u64_attribute("block_id")
        .unwrap_or_else(|| u64::try_from(a.id).unwrap_or(0));
    if !state.seen.insert(id) {
        r.duplicates += 1;
    }
    if a.u64_attribute("complete") == Some(0) {
        r.incomplete += 1;
    }
    if !verify {
        return;
    }
    let checked = check(a, chunk_offset).and_then(|frame_number| {
        let Some(n) = frame_number else { return Ok(()) };
        let skew = id.wrapping_sub(n);
        match state.frame_skew {
            None => {
                state.frame_skew = Some(skew);
                Ok(())
            }
            Some(s) if s == skew => Ok(()),
            Some(s) => Err(format!(
                "carries frame number {n}, but block ids and frame numbers differ by {s}"
            )),
        }
    });
    let r = &mut state.report;
    match checked {
        Ok(()) => r.verified += 1,
        Err(e) => {
            r.verify_failures += 1;
            r.first_failure.get_or_insert(format!("id {id}: {e}"));
        }
    }
}

/// Checks an array's dimensions against its size, then its content: the
/// board counter stream at its offset, or the camera's stamped pattern
/// (returning the frame number the stamp carries).
fn check(a: &DecodedArray<'_>, chunk_offset: Option<u64>) -> Result<Option<u64>, String> {
    let element = a.element.map_or(1, |e| e.size()) as i64;
    let elements = a
        .dimensions
        .iter()
        .try_fold(1i64, |acc, d| acc.checked_mul(*d));
    if elements.and_then(|n| n.checked_mul(element)) != i64::try_from(a.data.len()).ok() {
        return Err(format!(
            "dimensions {:?} do not fit {} bytes",
            a.dimensions,
            a.data.len()
        ));
    }
    match chunk_offset {
        Some(offset) => match linerate_fade::stream::mismatches(offset, a.data) {
            0 => Ok(None),
            n => Err(format!(
                "{n} bytes differ from the counter stream at offset {offset}"
            )),
        },
        None => linerate_gev::test_pattern::verify(a.data)
            .map(Some)
            .map_err(|e| e.to_string()),
    }
}
