//! Forwarding to Apache Kafka from the command line: the `--to
//! kafka://...` options `grab` takes and `linerate consume`. The forwarder,
//! the frame mapping and the consumer are `linerate_kafka`; this module
//! parses and presents.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use linerate_kafka::consumer::{self, ConsumeConfig, ConsumeReport};
use linerate_kafka::forwarder::{self, BackPressure, ForwarderConfig, ForwarderHandle};
use linerate_kafka::{ForwarderReport, KafkaTarget};

/// Where and how a receiver forwards to Kafka.
#[derive(Debug, Args, Clone)]
pub struct ToKafkaArgs {
    /// Forward every frame to Kafka as an ESS ad00 message:
    /// kafka://HOST:PORT[,HOST:PORT...]/TOPIC. Receiver counters go to
    /// TOPIC_status as f144 once a second. Exit status non-zero if any
    /// message was not delivered.
    #[arg(long, value_name = "kafka://HOST:PORT/TOPIC")]
    pub to: Option<KafkaTarget>,
    /// When the broker falls behind: wait (the receiver waits; its own
    /// accounting shows the cost) or drop (whole messages dropped and
    /// counted in kafka_dropped).
    #[arg(long, default_value = "wait", value_parser = ["wait", "drop"])]
    pub kafka_on_full: String,
    /// Messages queued between the receiver and the producer thread, 1..=4096.
    #[arg(long, default_value_t = 16, value_parser = crate::arg_range::usize_in(1..=4096))]
    pub kafka_queue: usize,
    /// librdkafka linger.ms: how long a batch waits for more messages, 0..=10000.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub kafka_linger_ms: u32,
    /// Seconds librdkafka keeps retrying a message before reporting it
    /// undelivered (message.timeout.ms), 1..=3600.
    #[arg(long, default_value_t = 30.0, value_parser = crate::arg_range::secs_in(1.0..=3600.0))]
    pub kafka_timeout: f64,
    /// Acknowledgements the producer waits for: all, 1 or 0.
    #[arg(long, default_value = "all", value_parser = ["all", "1", "0"])]
    pub kafka_acks: String,
    /// With --kafka-acks all: the idempotent producer (no duplicates when a
    /// request is retried after a broker fault), at some throughput:
    /// librdkafka then sends one request of whole frames at a time.
    #[arg(long)]
    pub kafka_idempotence: bool,
}

impl ToKafkaArgs {
    /// Starts the forwarder when `--to` was given; `receive_cpu` (the
    /// receiver's `--cpu`) keeps the forwarder's threads off that core.
    pub fn spawn(
        &self,
        source_name: &str,
        receive_cpu: Option<usize>,
    ) -> Result<Option<ForwarderHandle>> {
        let Some(target) = &self.to else {
            return Ok(None);
        };
        let mut config = ForwarderConfig::new(target.clone(), source_name);
        config.back_pressure = if self.kafka_on_full == "drop" {
            BackPressure::Drop
        } else {
            BackPressure::Wait
        };
        config.queue_messages = self.kafka_queue;
        config.linger_ms = self.kafka_linger_ms;
        config.message_timeout = Duration::try_from_secs_f64(self.kafka_timeout)
            .with_context(|| format!("--kafka-timeout {}", self.kafka_timeout))?;
        config.acks = self.kafka_acks.clone();
        config.receive_cpu = receive_cpu;
        config.idempotence = self.kafka_idempotence;
        Ok(Some(forwarder::spawn(config)?))
    }
}

/// One line on stderr about what reached Kafka.
pub fn say_forwarded(r: &ForwarderReport) {
    crate::console::say(format_args!(
        "kafka: {} of {} messages delivered to {} ({:.1} MB/s), {} failed, {} dropped; \
         delivery latency p50 {:.0} us, p99 {:.0} us{}",
        r.kafka_messages,
        r.submitted,
        r.target,
        r.throughput_mb_s,
        r.kafka_errors,
        r.kafka_dropped,
        r.delivery_latency.p50_us,
        r.delivery_latency.p99_us,
        r.first_error
            .as_ref()
            .map(|e| format!("; first error: {e}"))
            .unwrap_or_default(),
    ));
}

/// The error for a forwarder report that is not `ok`.
pub fn undelivered(r: &ForwarderReport) -> Result<()> {
    match r.undelivered("messages") {
        Some(why) => bail!("{why}"),
        None => Ok(()),
    }
}

/// Arguments of `linerate consume`.
#[derive(Debug, Args, Clone)]
pub struct ConsumeArgs {
    /// The topic to read: kafka://HOST:PORT[,HOST:PORT...]/TOPIC (its
    /// TOPIC_status counters are read too).
    pub from: KafkaTarget,
    /// Consumer group: consumers in one group split the topic's partitions.
    /// Default: a new group per run (this consumer reads every partition
    /// from the beginning).
    #[arg(long)]
    pub group: Option<String>,
    /// Stop after this many frames or chunks, 1..=4294967295.
    #[arg(long, value_parser = crate::arg_range::u64_in(1..=u64::from(u32::MAX)))]
    pub expect: Option<u64>,
    /// Stop when nothing arrived for this many seconds, 0.1..=3600.
    #[arg(long, default_value_t = 5.0, value_parser = crate::arg_range::secs_in(0.1..=3600.0))]
    pub idle: f64,
    /// Give up if nothing at all arrives within this many seconds, 0.1..=3600.
    #[arg(long, default_value_t = 30.0, value_parser = crate::arg_range::secs_in(0.1..=3600.0))]
    pub timeout: f64,
    /// Do not verify test patterns and counter streams.
    #[arg(long)]
    pub no_verify: bool,
    /// List every id received per source in the JSON report.
    #[arg(long)]
    pub ids: bool,
    /// Print one JSON object with the results instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `linerate consume`: exit status non-zero unless every frame or
/// chunk verified, with no duplicate and (outside a named group) no gap.
pub fn consume(args: ConsumeArgs) -> Result<()> {
    let interrupt = crate::stop_signal::Interrupt::install()?;
    let mut config = ConsumeConfig::new(args.from.clone());
    config.group = args.group.clone();
    config.expect = args.expect;
    config.verify = !args.no_verify;
    config.list_ids = args.ids;
    config.idle = Duration::try_from_secs_f64(args.idle).context("--idle")?;
    config.first_timeout = Duration::try_from_secs_f64(args.timeout).context("--timeout")?;
    config.stop = interrupt.flag();
    let topic = args.from.topic.clone();
    let report = consumer::run_with(&config, |partitions| {
        crate::console::say(format_args!(
            "consume: partitions {partitions:?} of {topic} assigned"
        ));
    })?;
    if args.json {
        crate::json_println!("{}", serde_json::to_string(&report)?);
    } else {
        print_consumed(&report);
    }
    if report.messages == 0 {
        bail!(
            "nothing arrived from {} within {} s",
            args.from,
            args.timeout
        );
    }
    if !report.ok {
        bail!("not every message arrived once and verified (see the report)");
    }
    Ok(())
}

fn print_consumed(r: &ConsumeReport) {
    println!(
        "{}: {} messages, {} bytes in {:.2} s ({:.1} MB/s), group {}, partitions {:?}",
        r.target, r.messages, r.bytes, r.seconds, r.throughput_mb_s, r.group, r.partitions
    );
    for s in &r.sources {
        println!(
            "  {} ({}s): {} received, ids {}..{}, {} missing {:?}, {} duplicates, {} verified, {} failed{}",
            s.source,
            s.kind,
            s.messages,
            s.first_id.unwrap_or(0),
            s.last_id.unwrap_or(0),
            s.gaps,
            s.missing_ids,
            s.duplicates,
            s.verified,
            s.verify_failures,
            s.first_failure
                .as_ref()
                .map(|f| format!(" (first: {f})"))
                .unwrap_or_default()
        );
    }
    if r.undecodable > 0 {
        println!("  {} messages were not ad00 or f144", r.undecodable);
    }
    for (name, value) in &r.counters {
        println!("  counter {name} = {value}");
    }
}
