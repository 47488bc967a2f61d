//! The forwarder: frames and chunks handed over by a receiver, serialised
//! as `ad00` and produced to Kafka on a thread of its own, with every
//! message accounted for (delivered, failed or dropped) and the counters
//! published as `f144` on `TOPIC_status` once a second.
//!
//! The receiver's thread calls [`Forward::array`]: the message is encoded
//! into a recycled FlatBuffers builder (the one copy of the data on our
//! side) and the builder moves through a bounded queue to the producer
//! thread. librdkafka then copies the encoded message into its own buffer
//! (the `rdkafka` crate always produces with `RD_KAFKA_MSG_F_COPY`), so the
//! builder goes back to the pool as soon as `produce` returns. A full queue
//! either makes the receiver wait ([`BackPressure::Wait`]) or drops the
//! whole message and counts it ([`BackPressure::Drop`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use linerate_metrics::latency::{LatencyHistogram, LatencySummary};
use rdkafka::config::ClientConfig;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::DeliveryResult;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer, ProducerContext, PurgeConfig};
use rdkafka::ClientContext;
use serde::{Deserialize, Serialize};

use crate::messages::{encode_array, encode_counter, ArrayMessage, MessageBuilder as Builder};
use crate::target::KafkaTarget;

/// What the forwarder does when the producer falls behind and its queue is
/// full.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BackPressure {
    /// The receiver waits for room: nothing is dropped here, and the
    /// receiver's own accounting shows the cost (frames the camera skipped,
    /// a board throttled by its window).
    #[default]
    Wait,
    /// The whole message is dropped and counted in `kafka_dropped`.
    Drop,
}

/// Most ids of undelivered messages a report lists.
pub const MAX_LISTED_IDS: usize = 10_000;

/// Everything the forwarder needs.
#[derive(Debug, Clone)]
pub struct ForwarderConfig {
    /// Brokers and topic.
    pub target: KafkaTarget,
    /// Prefix of the status counters' source names (`SOURCE:kafka_messages`).
    pub source_name: String,
    /// Messages between the receiver and the producer thread.
    pub queue_messages: usize,
    /// What a full queue does.
    pub back_pressure: BackPressure,
    /// librdkafka `linger.ms`: how long a batch waits for more messages.
    pub linger_ms: u32,
    /// librdkafka `batch.size`, bytes.
    pub batch_bytes: usize,
    /// librdkafka `queue.buffering.max.kbytes` × 1024: memory librdkafka
    /// may hold in messages not yet delivered.
    pub buffer_bytes: usize,
    /// librdkafka `message.max.bytes`: the largest message (a whole frame
    /// plus its header); the broker's own limit must be as large.
    pub max_message_bytes: usize,
    /// librdkafka `acks` (`all`, `1`, `0`).
    pub acks: String,
    /// How long librdkafka keeps trying to deliver a message before it is
    /// reported failed (`message.timeout.ms`).
    pub message_timeout: Duration,
    /// How often counters go to the status topic (none when zero).
    pub status_interval: Duration,
    /// More librdkafka settings, applied last.
    pub settings: Vec<(String, String)>,
    /// The core the receiver's thread is pinned to (grab's `--cpu`): the
    /// producer thread and librdkafka's own threads (which inherit its
    /// placement) then run on the other cores, so that encoding and
    /// sending never take time from the receive thread. None: no placement.
    pub receive_cpu: Option<usize>,
    /// librdkafka `enable.idempotence` (with acks=all only): no
    /// duplicates when a request is retried. Off by default: librdkafka
    /// (2.12) caps an idempotent producer at 5 *messages* in flight per
    /// partition (its limit is meant for requests), so with whole frames
    /// one request at a time travels, and while a ready batch waits for
    /// that, its broker thread polls without sleeping. Without it, up to
    /// 5 requests of whole batches are in flight (`max.in.flight`).
    pub idempotence: bool,
}

impl ForwarderConfig {
    /// A forwarder to `target` with the defaults: wait on a full queue of
    /// 16 messages, linger 5 ms, 32 MiB messages, acks=all, not
    /// idempotent, 5 requests in flight,
    /// 30 s delivery timeout, counters every second.
    pub fn new(target: KafkaTarget, source_name: impl Into<String>) -> ForwarderConfig {
        ForwarderConfig {
            target,
            source_name: source_name.into(),
            queue_messages: 16,
            back_pressure: BackPressure::Wait,
            linger_ms: 5,
            batch_bytes: 32 << 20,
            buffer_bytes: 512 << 20,
            max_message_bytes: 32 << 20,
            acks: "all".into(),
            message_timeout: Duration::from_secs(30),
            status_interval: Duration::from_secs(1),
            settings: Vec::new(),
            receive_cpu: None,
            idempotence: false,
        }
    }

    /// The librdkafka producer configuration these settings make.
    pub fn client_config(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", self.target.bootstrap())
            .set("client.id", format!("linerate-{}", self.source_name))
            .set("linger.ms", self.linger_ms.to_string())
            .set("batch.size", self.batch_bytes.to_string())
            .set("message.max.bytes", self.max_message_bytes.to_string())
            .set(
                "queue.buffering.max.kbytes",
                (self.buffer_bytes / 1024).max(1).to_string(),
            )
            .set("queue.buffering.max.messages", "100000")
            .set("acks", self.acks.as_str())
            .set(
                "enable.idempotence",
                (self.idempotence && self.acks == "all").to_string(),
            )
            .set("max.in.flight", MAX_IN_FLIGHT.to_string())
            .set(
                "message.timeout.ms",
                self.message_timeout.as_millis().max(1).to_string(),
            )
            .set("socket.send.buffer.bytes", (4 << 20).to_string());
        for (k, v) in &self.settings {
            c.set(k, v);
        }
        c
    }
}

/// Requests in flight per broker connection: as many as the Java
/// producer's default and an idempotent producer's limit, so that a retry
/// reorders at most that many.
pub const MAX_IN_FLIGHT: u32 = 5;

/// Why the forwarder could not start or take a message.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    /// librdkafka refused the configuration.
    #[error("creating the Kafka producer for {target}: {source}")]
    Producer {
        /// Where to.
        target: String,
        /// librdkafka's error.
        #[source]
        source: KafkaError,
    },
    /// The producer thread could not be started.
    #[error("starting the Kafka producer thread: {0}")]
    Thread(#[source] std::io::Error),
    /// The producer thread has ended (it panicked, or the forwarder was
    /// finished): the message was not taken.
    #[error("the Kafka forwarder has stopped")]
    Stopped,
    /// The producer thread panicked.
    #[error("the Kafka producer thread panicked")]
    Panicked,
    /// A setting is out of range.
    #[error("{0}")]
    Setting(String),
}

/// What the forwarder did, for `--json` and for scripts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ForwarderReport {
    /// `kafka://brokers/topic`.
    pub target: String,
    /// The status topic.
    pub status_topic: String,
    /// What a full queue did.
    pub back_pressure: BackPressure,
    /// Messages handed to the forwarder.
    pub submitted: u64,
    /// Messages the broker acknowledged.
    pub kafka_messages: u64,
    /// Bytes of those messages (encoded ad00, as stored in the topic).
    pub kafka_bytes: u64,
    /// Messages that failed: produce refused or delivery reported failed
    /// (after librdkafka's retries, or purged at the end). Never delivered.
    pub kafka_errors: u64,
    /// Messages dropped on a full queue ([`BackPressure::Drop`]).
    pub kafka_dropped: u64,
    /// Ids (block id, chunk sequence) of the failed messages, at most
    /// [`MAX_LISTED_IDS`].
    pub undelivered_ids: Vec<u64>,
    /// Ids of the dropped messages, at most [`MAX_LISTED_IDS`].
    pub dropped_ids: Vec<u64>,
    /// The first delivery error, as librdkafka put it.
    pub first_error: Option<String>,
    /// Hand-over to broker acknowledgement, per delivered message.
    pub delivery_latency: LatencySummary,
    /// Seconds the receiver spent waiting for room in the queue.
    pub wait_seconds: f64,
    /// f144 counter messages delivered to the status topic.
    pub status_messages: u64,
    /// f144 counter messages that failed.
    pub status_errors: u64,
    /// From the forwarder's start to its last delivery report.
    pub seconds: f64,
    /// Delivered bytes per second, in MB/s (10^6).
    pub throughput_mb_s: f64,
    /// Every message submitted was delivered: no error, no drop.
    pub ok: bool,
}

impl ForwarderReport {
    /// Why not every message (`what`: "messages", "frames", "chunks")
    /// reached the topic, for the error a front end reports; None when
    /// every one did.
    pub fn undelivered(&self, what: &str) -> Option<String> {
        if self.ok {
            return None;
        }
        Some(format!(
            "{} of {} {what} not delivered to {} ({} failed, {} dropped){}",
            self.submitted.saturating_sub(self.kafka_messages),
            self.submitted,
            self.target,
            self.kafka_errors,
            self.kafka_dropped,
            self.first_error
                .as_ref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        ))
    }
}

/// A live snapshot of the forwarder's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ForwarderProgress {
    /// Messages handed over.
    pub submitted: u64,
    /// Messages acknowledged.
    pub delivered: u64,
    /// Bytes acknowledged.
    pub delivered_bytes: u64,
    /// Messages failed.
    pub errors: u64,
    /// Messages dropped.
    pub dropped: u64,
}

#[derive(Debug, Default)]
struct Shared {
    submitted: AtomicU64,
    delivered: AtomicU64,
    delivered_bytes: AtomicU64,
    errors: AtomicU64,
    dropped: AtomicU64,
    wait_ns: AtomicU64,
    status_delivered: AtomicU64,
    status_errors: AtomicU64,
    last_delivery_ns: AtomicU64,
    latency: Mutex<LatencyHistogram>,
    undelivered_ids: Mutex<Vec<u64>>,
    dropped_ids: Mutex<Vec<u64>>,
    first_error: Mutex<Option<String>>,
    receiver_counters: Mutex<BTreeMap<String, u64>>,
}

fn push_capped(list: &Mutex<Vec<u64>>, id: u64) {
    if let Ok(mut l) = list.lock() {
        if l.len() < MAX_LISTED_IDS {
            l.push(id);
        }
    }
}

impl Shared {
    fn fail(&self, id: u64, error: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        push_capped(&self.undelivered_ids, id);
        if let Ok(mut e) = self.first_error.lock() {
            e.get_or_insert(error);
        }
    }

    fn progress(&self) -> ForwarderProgress {
        ForwarderProgress {
            submitted: self.submitted.load(Ordering::Relaxed),
            delivered: self.delivered.load(Ordering::Relaxed),
            delivered_bytes: self.delivered_bytes.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
        }
    }
}

/// What rides with each message to its delivery report.
#[derive(Debug)]
struct Pending {
    id: u64,
    bytes: usize,
    handed_over: Instant,
    status: bool,
}

struct Context {
    shared: Arc<Shared>,
    started: Instant,
}

impl ClientContext for Context {}

impl ProducerContext for Context {
    type DeliveryOpaque = Box<Pending>;

    fn delivery(&self, result: &DeliveryResult<'_>, pending: Box<Pending>) {
        let s = &self.shared;
        match (result, pending.status) {
            (Ok(_), true) => {
                s.status_delivered.fetch_add(1, Ordering::Relaxed);
            }
            (Err(_), true) => {
                s.status_errors.fetch_add(1, Ordering::Relaxed);
            }
            (Ok(_), false) => {
                s.delivered.fetch_add(1, Ordering::Relaxed);
                s.delivered_bytes
                    .fetch_add(pending.bytes as u64, Ordering::Relaxed);
                if let Ok(mut h) = s.latency.lock() {
                    h.record(pending.handed_over.elapsed());
                }
                let now = u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX);
                s.last_delivery_ns.fetch_max(now, Ordering::Relaxed);
            }
            (Err((e, _)), false) => s.fail(pending.id, e.to_string()),
        }
    }
}

/// One encoded message on its way to the producer thread.
struct Job {
    builder: Builder,
    id: u64,
    timestamp_ms: i64,
    handed_over: Instant,
}

/// The sending side: cheap to clone, `Send`, for the receiver's thread.
#[derive(Clone)]
pub struct Forward {
    queue: SyncSender<Job>,
    pool: Arc<Mutex<Vec<Builder>>>,
    shared: Arc<Shared>,
    back_pressure: BackPressure,
}

impl std::fmt::Debug for Forward {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Forward")
            .field("back_pressure", &self.back_pressure)
            .finish_non_exhaustive()
    }
}

/// What became of a message handed to [`Forward::array`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handed {
    /// Queued for the producer; its delivery is reported later.
    Queued,
    /// Dropped on a full queue and counted.
    Dropped,
}

impl Forward {
    /// Serialises `message` as ad00 and hands it to the producer thread,
    /// waiting for room or dropping it as the back-pressure policy says.
    /// `id` is what reports list it by (the full block id or chunk
    /// sequence number).
    pub fn array(&self, id: u64, message: &ArrayMessage<'_>) -> Result<Handed, ForwardError> {
        let mut builder = self
            .pool
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_default();
        encode_array(&mut builder, message);
        self.shared.submitted.fetch_add(1, Ordering::Relaxed);
        let job = Job {
            builder,
            id,
            timestamp_ms: message.timestamp_ns / 1_000_000,
            handed_over: Instant::now(),
        };
        match self.back_pressure {
            BackPressure::Wait => match self.queue.try_send(job) {
                Ok(()) => Ok(Handed::Queued),
                Err(TrySendError::Full(job)) => {
                    let t = Instant::now();
                    let r = self.queue.send(job);
                    let waited = u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    self.shared.wait_ns.fetch_add(waited, Ordering::Relaxed);
                    r.map(|()| Handed::Queued).map_err(|_| self.lost(id))
                }
                Err(TrySendError::Disconnected(_)) => Err(self.lost(id)),
            },
            BackPressure::Drop => match self.queue.try_send(job) {
                Ok(()) => Ok(Handed::Queued),
                Err(TrySendError::Full(job)) => {
                    self.shared.dropped.fetch_add(1, Ordering::Relaxed);
                    push_capped(&self.shared.dropped_ids, id);
                    self.recycle(job.builder);
                    Ok(Handed::Dropped)
                }
                Err(TrySendError::Disconnected(_)) => Err(self.lost(id)),
            },
        }
    }

    /// Sets a receiver counter published with the forwarder's own on the
    /// status topic (`SOURCE:name`), e.g. frames received or lost.
    pub fn set_counter(&self, name: &str, value: u64) {
        if let Ok(mut c) = self.shared.receiver_counters.lock() {
            c.insert(name.to_string(), value);
        }
    }

    /// The counters so far.
    pub fn progress(&self) -> ForwarderProgress {
        self.shared.progress()
    }

    fn lost(&self, id: u64) -> ForwardError {
        self.shared.fail(
            id,
            "the forwarder stopped before the message was produced".into(),
        );
        ForwardError::Stopped
    }

    fn recycle(&self, mut builder: Builder) {
        builder.reset();
        if let Ok(mut p) = self.pool.lock() {
            if p.len() < POOL {
                p.push(builder);
            }
        }
    }
}

/// Builders kept for reuse (each holds a message's worth of memory).
const POOL: usize = 4;

/// A running forwarder: hand out [`Forward`]s, watch it, finish it for the
/// report.
pub struct ForwarderHandle {
    forward: Forward,
    closing: Arc<AtomicBool>,
    thread: Option<JoinHandle<Option<ForwarderReport>>>,
}

impl std::fmt::Debug for ForwarderHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForwarderHandle").finish_non_exhaustive()
    }
}

/// Creates the producer and starts its thread. Fails at once if librdkafka
/// refuses the configuration; an unreachable broker is not an error here
/// (librdkafka keeps trying) but shows as undelivered messages.
pub fn spawn(config: ForwarderConfig) -> Result<ForwarderHandle, ForwardError> {
    if config.queue_messages == 0 {
        return Err(ForwardError::Setting(
            "the forwarder's queue needs room for at least one message".into(),
        ));
    }
    let shared = Arc::new(Shared {
        latency: Mutex::new(LatencyHistogram::new()),
        ..Shared::default()
    });
    let started = Instant::now();
    let (tx, rx) = mpsc::sync_channel(config.queue_messages);
    let pool = Arc::new(Mutex::new(Vec::new()));
    let forward = Forward {
        queue: tx,
        pool: pool.clone(),
        shared: shared.clone(),
        back_pressure: config.back_pressure,
    };
    let closing = Arc::new(AtomicBool::new(false));
    let (created_tx, created_rx) = mpsc::sync_channel(1);
    let thread_closing = closing.clone();
    let thread = std::thread::Builder::new()
        .name("kafka-produce".into())
        .spawn(move || {
            // Step off the receive core before librdkafka starts its
            // threads: they inherit this thread's placement.
            if let Some(cpu) = config.receive_cpu {
                linerate_io::sched::keep_current_thread_off(cpu);
            }
            let created: Result<BaseProducer<Context>, ForwardError> = config
                .client_config()
                .create_with_context(Context {
                    shared: shared.clone(),
                    started,
                })
                .map_err(|source| ForwardError::Producer {
                    target: config.target.to_string(),
                    source,
                });
            let producer = match created {
                Ok(p) => {
                    let _ = created_tx.send(Ok(()));
                    p
                }
                Err(e) => {
                    let _ = created_tx.send(Err(e));
                    return None;
                }
            };
            let run = Run {
                producer,
                config,
                shared,
                pool,
                closing: thread_closing,
                started,
                status_builder: Builder::new(),
            };
            Some(run.run(rx))
        })
        .map_err(ForwardError::Thread)?;
    match created_rx.recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            let _ = thread.join();
            return Err(e);
        }
        Err(_) => {
            let _ = thread.join();
            return Err(ForwardError::Panicked);
        }
    }
    Ok(ForwarderHandle {
        forward,
        closing,
        thread: Some(thread),
    })
}

impl ForwarderHandle {
    /// A sender for the receiver's thread.
    pub fn forward(&self) -> Forward {
        self.forward.clone()
    }

    /// The counters so far.
    pub fn progress(&self) -> ForwarderProgress {
        self.forward.progress()
    }

    /// Produces what is queued, waits for every delivery report (up to the
    /// message timeout; what is still outstanding then is purged and
    /// counted as failed), publishes the last counters and returns the
    /// report. Senders still held elsewhere can no longer hand over.
    pub fn finish(mut self) -> Result<ForwarderReport, ForwardError> {
        self.closing.store(true, Ordering::Relaxed);
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(Some(report))) => Ok(report),
            _ => Err(ForwardError::Panicked),
        }
    }
}

impl Drop for ForwarderHandle {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.closing.store(true, Ordering::Relaxed);
            let _ = t.join();
        }
    }
}

/// The producer thread's state.
struct Run {
    producer: BaseProducer<Context>,
    config: ForwarderConfig,
    shared: Arc<Shared>,
    pool: Arc<Mutex<Vec<Builder>>>,
    closing: Arc<AtomicBool>,
    started: Instant,
    status_builder: Builder,
}

/// How often the producer thread serves delivery reports while idle.
const POLL: Duration = Duration::from_millis(10);

impl Run {
    fn run(mut self, rx: Receiver<Job>) -> ForwarderReport {
        let topic = self.config.target.topic.clone();
        let mut next_status = Instant::now() + self.config.status_interval;
        loop {
            match rx.recv_timeout(POLL) {
                Ok(job) => self.produce(&topic, job),
                Err(RecvTimeoutError::Timeout) => {
                    if self.closing.load(Ordering::Relaxed) {
                        // Take what is still queued, then stop.
                        while let Ok(job) = rx.try_recv() {
                            self.produce(&topic, job);
                        }
                        break;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
            self.producer.poll(Duration::ZERO);
            if !self.config.status_interval.is_zero() && Instant::now() >= next_status {
                self.publish_status();
                next_status += self.config.status_interval;
            }
        }
        drop(rx);
        // Every message gets its delivery report: delivered, or failed after
        // the message timeout, or purged here and reported failed.
        if self.producer.flush(self.config.message_timeout).is_err() {
            self.producer
                .purge(PurgeConfig::default().queue().inflight());
            let _ = self.producer.flush(Duration::from_secs(1));
        }
        if !self.config.status_interval.is_zero() {
            self.publish_status();
            let _ = self.producer.flush(Duration::from_secs(5));
            self.producer
                .purge(PurgeConfig::default().queue().inflight());
            self.producer.poll(Duration::ZERO);
        }
        self.report()
    }

    fn produce(&mut self, topic: &str, job: Job) {
        let pending = Box::new(Pending {
            id: job.id,
            bytes: job.builder.finished_data().len(),
            handed_over: job.handed_over,
            status: false,
        });
        let mut record = BaseRecord::<(), [u8], Box<Pending>>::with_opaque_to(topic, pending)
            .payload(job.builder.finished_data())
            .timestamp(job.timestamp_ms);
        loop {
            match self.producer.send(record) {
                Ok(()) => break,
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), r)) => {
                    // librdkafka's buffer is full: serve delivery reports
                    // until there is room (the broker sets the pace).
                    self.producer.poll(POLL);
                    record = r;
                }
                Err((e, r)) => {
                    self.shared.fail(r.delivery_opaque.id, e.to_string());
                    break;
                }
            }
        }
        let mut builder = job.builder;
        builder.reset();
        if let Ok(mut p) = self.pool.lock() {
            if p.len() < POOL {
                p.push(builder);
            }
        }
    }

    fn publish_status(&mut self) {
        let topic = self.config.target.status_topic();
        let now_ns = crate::messages::unix_now_ns();
        let p = self.shared.progress();
        let mut counters: Vec<(String, u64)> = vec![
            ("kafka_messages".into(), p.delivered),
            ("kafka_bytes".into(), p.delivered_bytes),
            ("kafka_errors".into(), p.errors),
            ("kafka_dropped".into(), p.dropped),
        ];
        if let Ok(c) = self.shared.receiver_counters.lock() {
            counters.extend(c.iter().map(|(k, v)| (k.clone(), *v)));
        }
        for (name, value) in counters {
            let source = format!("{}:{name}", self.config.source_name);
            let bytes = encode_counter(&mut self.status_builder, &source, now_ns, value);
            let pending = Box::new(Pending {
                id: 0,
                bytes: bytes.len(),
                handed_over: Instant::now(),
                status: true,
            });
            let record = BaseRecord::<(), [u8], Box<Pending>>::with_opaque_to(&topic, pending)
                .payload(bytes.as_slice());
            if self.producer.send(record).is_err() {
                self.shared.status_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn report(&self) -> ForwarderReport {
        let s = &self.shared;
        let p = s.progress();
        let last = s.last_delivery_ns.load(Ordering::Relaxed);
        let seconds = if last > 0 {
            last as f64 / 1e9
        } else {
            self.started.elapsed().as_secs_f64()
        };
        let list = |m: &Mutex<Vec<u64>>| m.lock().map(|l| l.clone()).unwrap_or_default();
        ForwarderReport {
            target: self.config.target.to_string(),
            status_topic: self.config.target.status_topic(),
            back_pressure: self.config.back_pressure,
            submitted: p.submitted,
            kafka_messages: p.delivered,
            kafka_bytes: p.delivered_bytes,
            kafka_errors: p.errors,
            kafka_dropped: p.dropped,
            undelivered_ids: list(&s.undelivered_ids),
            dropped_ids: list(&s.dropped_ids),
            first_error: s.first_error.lock().ok().and_then(|e| e.clone()),
            delivery_latency: s.latency.lock().map(|h| h.summary()).unwrap_or_default(),
            wait_seconds: s.wait_ns.load(Ordering::Relaxed) as f64 / 1e9,
            status_messages: s.status_delivered.load(Ordering::Relaxed),
            status_errors: s.status_errors.load(Ordering::Relaxed),
            seconds,
            throughput_mb_s: if seconds > 0.0 {
                p.delivered_bytes as f64 / seconds / 1e6
            } else {
                0.0
            },
            ok: p.errors == 0 && p.dropped == 0 && p.delivered == p.submitted,
        }
    }
}
