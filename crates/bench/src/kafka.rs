//! The `kafka` scenario's runs: a real Apache Kafka broker (scripts/kafka)
//! on the PC's loopback, linerate's forwarder and Kafka's own producer
//! benchmark taking turns at it, `linerate grab` with and without
//! forwarding, and a cluster losing its partition leader under a stream.
//!
//! The broker's JVM runs on the sender's core, so the receiving core's
//! cost is the receiver's and its forwarder's only; both producers run
//! pinned to the receiving core.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use linerate_grab::session::GrabReport;
use linerate_kafka::consumer::{self, ConsumeConfig};
use linerate_kafka::forwarder::ForwarderConfig;
use linerate_kafka::rate::forward_pattern_frames;
use linerate_kafka::report::Forwarded;
use linerate_kafka::{admin, KafkaTarget};
use linerate_testbed::Testbed;
use serde::Deserialize;

use crate::bed::{PairBed, RECEIVER};
use crate::config::BenchConfig;
use crate::error::{Error, Result};
use crate::job::KafkaProducer;
use crate::peers::{self, GvspReceiver, Stream};
use crate::process::{last_json_object, Finished, Running};
use crate::report::Run;
use crate::steps::{start_camera, GRACE};
use crate::window::{RECEIVER_CPU, SENDER_CPU};

/// Producer settings both producers run with: the forwarder's defaults
/// (acks=all without idempotence, 5 requests in flight, linger 5 ms,
/// 32 MiB batches and requests, 512 MiB of buffer, 4 MiB socket send
/// buffer) in the Java client's names.
pub const PRODUCER_PERFORMANCE_PROPS: [&str; 8] = [
    "acks=all",
    "enable.idempotence=false",
    "max.in.flight.requests.per.connection=5",
    "linger.ms=5",
    "batch.size=33554432",
    "max.request.size=33554432",
    "buffer.memory=536870912",
    "send.buffer.bytes=4194304",
];

/// Brokers of scripts/kafka in the PC's namespace, with a state directory
/// of their own; stopped and their data removed when dropped.
pub struct Broker {
    script: PathBuf,
    dir: PathBuf,
    /// `HOST:PORT[,HOST:PORT...]`.
    pub bootstrap: String,
    /// Where the Kafka jars are (for ProducerPerformance).
    pub libs: PathBuf,
}

fn output(cmd: &mut Command, what: &str) -> Result<Output> {
    let program = format!("{cmd:?}");
    let out = cmd.output().map_err(|source| Error::Spawn {
        program: program.clone(),
        source,
    })?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(Error::Output {
            program,
            what: what.to_owned(),
            detail: crate::process::tail(&String::from_utf8_lossy(&out.stderr), 600),
        })
    }
}

fn last_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

impl Broker {
    /// Fetches the jars (once, cached under the checkout's target/kafka;
    /// from this namespace, which reaches Maven Central) and starts
    /// `brokers` KRaft brokers on `bed`'s PC loopback, keeping their state
    /// in `dir`; `cpu` pins their JVMs.
    pub fn start(
        bed: &Testbed,
        script: &Path,
        dir: &Path,
        brokers: u32,
        cpu: Option<usize>,
    ) -> Result<Broker> {
        let jars = output(
            Command::new(script).arg("jars"),
            "the Kafka jars (scripts/install-deps installs Java and Maven)",
        )?;
        let libs = PathBuf::from(last_line(&jars));
        let mut up = bed.command(RECEIVER, script)?;
        if let Some(cpu) = cpu {
            up.cpu(cpu);
        }
        up.args(["up", "--brokers", &brokers.to_string()]);
        let mut up = up.into_command()?;
        up.env("LINERATE_KAFKA_DIR", dir);
        // The script gives each broker 120 s to come up, then fails.
        let out = output(&mut up, "a started broker")?;
        let bootstrap = last_line(&out);
        if bootstrap.is_empty() {
            return Err(Error::Output {
                program: script.display().to_string(),
                what: "the brokers' bootstrap address".to_owned(),
                detail: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        Ok(Broker {
            script: script.to_owned(),
            dir: dir.to_owned(),
            bootstrap,
            libs,
        })
    }

    /// `kafka://BOOTSTRAP/topic`.
    pub fn target(&self, topic: &str) -> Result<KafkaTarget> {
        format!("kafka://{}/{topic}", self.bootstrap)
            .parse()
            .map_err(|e| Error::Argument(format!("internal: a bench topic address: {e}")))
    }

    /// Kills broker `node` (1-based, as the script numbers them) at once,
    /// as a crash would.
    pub fn kill(&self, node: i32) -> Result<()> {
        let state = self.dir.join("state");
        let text = std::fs::read_to_string(&state).map_err(|source| Error::File {
            path: state.clone(),
            source,
        })?;
        let pid = text
            .lines()
            .filter_map(|l| l.strip_prefix("pid="))
            .nth(usize::try_from(node - 1).unwrap_or(usize::MAX))
            .ok_or_else(|| Error::Argument(format!("no broker {node} in {}", state.display())))?;
        output(
            Command::new("kill").args(["-KILL", pid]),
            "killing a broker",
        )
        .map(|_| ())
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = Command::new(&self.script)
            .env("LINERATE_KAFKA_DIR", &self.dir)
            .arg("down")
            .output();
    }
}

/// The one broker a pair bed's kafka runs share, started by the first run
/// that needs it and stopped with the bed (the runner keeps it beside the
/// bed and drops it first).
#[derive(Default)]
pub struct SharedBroker(Mutex<Option<Broker>>);

impl SharedBroker {
    /// The bootstrap address and jar directory of the bed's broker,
    /// starting it (pinned to the sender's core) on first use.
    fn get(&self, bed: &Testbed, config: &BenchConfig, dir: &Path) -> Result<(String, PathBuf)> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            let script = script(config)?;
            let broker =
                Broker::start(bed, &script, &dir.join("kafka-broker"), 1, Some(SENDER_CPU))?;
            // A new broker makes idempotent producers wait while its
            // coordinator loads: one small message takes that wait here,
            // not in the first measured run.
            forwarder_rate(bed, broker.target(&fresh_topic("ready"))?, 1024, 1)?;
            *slot = Some(broker);
        }
        slot.as_ref()
            .map(|b| (b.bootstrap.clone(), b.libs.clone()))
            .ok_or_else(|| Error::Argument("internal: no broker".into()))
    }

    /// Stops the broker if one runs, so that an idle JVM on the sender's
    /// core does not run under the next scenario's measurements.
    pub fn stop(&self) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *slot = None;
    }
}

fn script(config: &BenchConfig) -> Result<PathBuf> {
    config
        .kafka_script
        .clone()
        .ok_or_else(|| Error::MissingTool {
            program: "scripts/kafka".to_owned(),
            hint: crate::scenarios::KAFKA_MISSING_SCRIPT.to_owned(),
        })
}

/// A topic name no earlier run of this bench used.
fn fresh_topic(what: &str) -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "bench-{what}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Creates `target`'s topic on the PC (one partition, `replication`
/// replicas, 32 MiB messages), so both producers meet the same settings.
fn create_topic(bed: &Testbed, target: &KafkaTarget, replication: i32) -> Result<()> {
    bed.run_in(RECEIVER, None, || {
        admin::create_topic(target, 1, replication)
    })?
    .map_err(|e| Error::Output {
        program: "kafka admin".to_owned(),
        what: format!("topic {}", target.topic),
        detail: e.to_string(),
    })
}

/// What one throughput run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Produced {
    /// Record (frame) bytes per second, 10^6.
    pub mb_per_s: f64,
    /// Median send-to-acknowledgement latency, µs.
    pub latency_us_p50: f64,
    /// 99th percentile of the same, µs.
    pub latency_us_p99: f64,
    /// Records the broker acknowledged.
    pub records: u64,
}

/// `records` records of `record_bytes` from `producer` to a fresh topic of
/// the PC's broker, as fast as it goes.
#[allow(clippy::too_many_arguments)]
pub fn produce(
    pair: &PairBed,
    broker: &SharedBroker,
    config: &BenchConfig,
    producer: KafkaProducer,
    record_bytes: u64,
    records: u64,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let (bootstrap, libs) = broker.get(&pair.bed, config, dir)?;
    let topic = fresh_topic(&format!("{record_bytes}"));
    let target: KafkaTarget = format!("kafka://{bootstrap}/{topic}")
        .parse()
        .map_err(|e| Error::Argument(format!("internal: {e}")))?;
    create_topic(&pair.bed, &target, 1)?;
    let p = match producer {
        KafkaProducer::Forwarder => forwarder_rate(&pair.bed, target, record_bytes, records)?,
        KafkaProducer::ProducerPerformance => producer_performance(
            &pair.bed,
            &libs,
            &bootstrap,
            &topic,
            record_bytes,
            records,
            dir,
        )?,
    };
    run.gbit_per_s = Some(p.mb_per_s * 8.0 / 1000.0);
    run.latency_us_p50 = Some(p.latency_us_p50);
    run.latency_us_p99 = Some(p.latency_us_p99);
    run.frames_completed = Some(p.records);
    run.frames_lost = Some(records.saturating_sub(p.records));
    run.lossless = Some(p.records == records);
    run.detail.insert("mb_per_s".into(), p.mb_per_s.into());
    run.detail
        .insert("record_bytes".into(), record_bytes.into());
    run.detail.insert("records".into(), records.into());
    Ok(())
}

fn forwarder_rate(
    bed: &Testbed,
    target: KafkaTarget,
    record_bytes: u64,
    records: u64,
) -> Result<Produced> {
    let program = format!("linerate's forwarder to {target}");
    let mut fc = ForwarderConfig::new(target, "bench");
    // ProducerPerformance sends no counters; neither does this run.
    fc.status_interval = Duration::ZERO;
    let size = usize::try_from(record_bytes).unwrap_or(usize::MAX);
    let report = bed
        .run_in(RECEIVER, Some(&[RECEIVER_CPU]), move || {
            forward_pattern_frames(fc, records, size)
        })?
        .map_err(|e| Error::Output {
            program: program.clone(),
            what: "a forwarder report".to_owned(),
            detail: e.to_string(),
        })?;
    if report.seconds <= 0.0 {
        return Err(Error::Output {
            program,
            what: "a delivery time".to_owned(),
            detail: format!("{report:?}"),
        });
    }
    Ok(Produced {
        mb_per_s: (report.kafka_messages * record_bytes) as f64 / report.seconds / 1e6,
        latency_us_p50: report.delivery_latency.p50_us,
        latency_us_p99: report.delivery_latency.p99_us,
        records: report.kafka_messages,
    })
}

fn producer_performance(
    bed: &Testbed,
    libs: &Path,
    bootstrap: &str,
    topic: &str,
    record_bytes: u64,
    records: u64,
    dir: &Path,
) -> Result<Produced> {
    let mut cmd = bed.command(RECEIVER, "java")?;
    cmd.cpu(RECEIVER_CPU)
        .args(["-Xms256m", "-Xmx1g", "-cp"])
        .arg(format!("{}/*", libs.display()))
        .args([
            "org.apache.kafka.tools.ProducerPerformance",
            "--topic",
            topic,
        ])
        .args(["--num-records", &records.to_string()])
        .args(["--record-size", &record_bytes.to_string()])
        .args(["--throughput", "-1", "--producer-props"])
        .arg(format!("bootstrap.servers={bootstrap}"))
        .args(PRODUCER_PERFORMANCE_PROPS);
    let limit = Duration::from_secs(60) + Duration::from_secs(records * record_bytes / 20_000_000);
    let finished = Running::spawn(cmd, dir, "producer-performance")?.wait(limit)?;
    parse_producer_performance(&finished, record_bytes)
}

/// Reads ProducerPerformance's closing line: `N records sent, R
/// records/sec (M MB/sec), A ms avg latency, X ms max latency, P ms
/// 50th, ... ms 95th, Q ms 99th, ... ms 99.9th.`
pub fn parse_producer_performance(finished: &Finished, record_bytes: u64) -> Result<Produced> {
    let bad = |what: &str| Error::Output {
        program: finished.cmdline.clone(),
        what: what.to_owned(),
        detail: crate::process::tail(&format!("{}\n{}", finished.stdout, finished.stderr), 400),
    };
    let line = finished
        .stdout
        .lines()
        .rev()
        .find(|l| l.contains("records sent,") && l.contains("99th"))
        .ok_or_else(|| bad("ProducerPerformance's summary line"))?;
    let parts: Vec<&str> = line.split(", ").map(str::trim).collect();
    let number_before = |suffix: &str| -> Option<f64> {
        parts
            .iter()
            .find(|p| p.ends_with(suffix) || p.contains(&format!(" {suffix} ")))
            .and_then(|p| p.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    };
    let records = number_before("records sent").ok_or_else(|| bad("records sent"))?;
    let per_s = parts
        .iter()
        .find(|p| p.contains("records/sec"))
        .and_then(|p| p.split_whitespace().next())
        .and_then(|n| n.parse::<f64>().ok())
        .ok_or_else(|| bad("records/sec"))?;
    let ms = |suffix: &str| number_before(suffix).ok_or_else(|| bad(suffix));
    Ok(Produced {
        mb_per_s: per_s * record_bytes as f64 / 1e6,
        latency_us_p50: ms("50th")? * 1000.0,
        latency_us_p99: ms("99th")? * 1000.0,
        records: records as u64,
    })
}

/// linerate's camera into `linerate grab`, forwarding every frame to the
/// PC's broker when `forward`: the receiving core's cost per GB, beside
/// the same grab without forwarding.
pub fn grab(
    pair: &PairBed,
    broker: &SharedBroker,
    config: &BenchConfig,
    forward: bool,
    stream: &Stream,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let receiver = GvspReceiver::Grab {
        backend: "mmsg".to_owned(),
    };
    let mut extra = Vec::new();
    if forward {
        let (bootstrap, _) = broker.get(&pair.bed, config, dir)?;
        let target: KafkaTarget = format!("kafka://{bootstrap}/{}", fresh_topic("grab"))
            .parse()
            .map_err(|e| Error::Argument(format!("internal: {e}")))?;
        create_topic(&pair.bed, &target, 1)?;
        extra = vec!["--to".to_owned(), target.to_string()];
    }
    let host = crate::gvsp_run::gvsp_with(pair, config, &receiver, stream, &extra, dir, run)?;
    if forward {
        let report = forwarded_grab(&host)?;
        let k = report.forwarded.ok_or_else(|| Error::Output {
            program: host.cmdline.clone(),
            what: "the kafka fields of grab's report".to_owned(),
            detail: crate::process::tail(&host.stdout, 300),
        })?;
        run.latency_us_p50 = Some(k.kafka_latency_p50_us);
        run.latency_us_p99 = Some(k.kafka_latency_p99_us);
        let all_delivered = k.kafka.ok && k.kafka_messages == report.report.frames_completed;
        run.lossless = run.lossless.map(|l| l && all_delivered);
        put_kafka_detail(run, &k.kafka);
    }
    Ok(())
}

fn forwarded_grab(host: &Finished) -> Result<Forwarded<GrabReport>> {
    let v = last_json_object(host)?;
    Forwarded::<GrabReport>::deserialize(&v).map_err(|e| Error::Output {
        program: host.cmdline.clone(),
        what: "linerate grab's report".to_owned(),
        detail: format!("{e}: {}", crate::process::tail(&v.to_string(), 300)),
    })
}

fn put_kafka_detail(run: &mut Run, k: &linerate_kafka::ForwarderReport) {
    let fields = [
        ("kafka_messages", k.kafka_messages.into()),
        ("kafka_errors", k.kafka_errors.into()),
        ("kafka_dropped", k.kafka_dropped.into()),
        ("kafka_wait_seconds", k.wait_seconds.into()),
        ("kafka_throughput_mb_s", k.throughput_mb_s.into()),
        ("kafka_delivery_max_us", k.delivery_latency.max_us.into()),
    ];
    for (key, value) in fields {
        run.detail.insert(key.into(), value);
    }
}

/// `linerate grab --to` a cluster of `brokers` on the PC (replication
/// `brokers`, acks=all) for `seconds`; a third of the way in, the
/// partition's leader is killed. Then every frame is read back: none may
/// be missing or doubled. The pause is the longest a frame waited for its
/// acknowledgement.
pub fn fault(
    pair: &PairBed,
    config: &BenchConfig,
    brokers: u32,
    seconds: u64,
    stream: &Stream,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let script = script(config)?;
    // The cluster's JVMs go where the scheduler puts them: this run
    // measures loss and the pause, not cost.
    let cluster = Broker::start(
        &pair.bed,
        &script,
        &dir.join("kafka-cluster"),
        brokers,
        None,
    )?;
    let target = cluster.target(&fresh_topic("fault"))?;
    create_topic(&pair.bed, &target, i32::try_from(brokers).unwrap_or(3))?;
    let camera = start_camera(pair, config, dir)?;
    let duration = Duration::from_secs(seconds);
    let mut cmd = peers::gvsp_receiver(
        &pair.bed,
        RECEIVER,
        &config.linerate,
        pair.sender_ip,
        &GvspReceiver::Grab {
            backend: "mmsg".to_owned(),
        },
        stream,
        duration,
    )?;
    cmd.args(["--to", &target.to_string()]);
    let host = Running::spawn(cmd, dir, "receiver-fault")?;
    crate::stop::pause(duration / 3)?;
    let leader = pair
        .bed
        .run_in(RECEIVER, None, || admin::partition_leader(&target, 0))?
        .map_err(|e| Error::Output {
            program: "kafka admin".to_owned(),
            what: "the partition's leader".to_owned(),
            detail: e.to_string(),
        })?;
    cluster.kill(leader)?;
    // Killed under a run that lasts its whole duration again at most, and
    // the forwarder's delivery timeout (30 s) beyond.
    let host = host.wait(duration + GRACE + Duration::from_secs(30))?;
    let _camera = camera.stop(Duration::from_secs(5))?;
    let report = forwarded_grab(&host)?;
    let k = report.forwarded.clone().ok_or_else(|| Error::Output {
        program: host.cmdline.clone(),
        what: "the kafka fields of grab's report".to_owned(),
        detail: crate::process::tail(&host.stdout, 300),
    })?;
    // Read the topic back from the surviving brokers.
    let mut cc = ConsumeConfig::new(target.clone());
    cc.status = false;
    cc.expect = Some(k.kafka_messages);
    cc.idle = Duration::from_secs(10);
    let consumed = pair
        .bed
        .run_in(RECEIVER, None, || consumer::run(&cc))?
        .map_err(|e| Error::Output {
            program: "linerate consume (library)".to_owned(),
            what: format!("the frames in {target}"),
            detail: e.to_string(),
        })?;
    let unique: u64 = consumed
        .sources
        .iter()
        .map(|s| s.messages - s.duplicates)
        .sum();
    let duplicates: u64 = consumed.sources.iter().map(|s| s.duplicates).sum();
    let grabbed = report.report.frames_completed;
    let lost = grabbed.saturating_sub(unique) + report.report.frames_incomplete;
    run.frames_completed = Some(grabbed);
    run.frames_sent = Some(grabbed + report.report.frames_incomplete);
    run.frames_lost = Some(lost);
    run.lossless = Some(
        lost == 0 && duplicates == 0 && consumed.ok && k.kafka.ok && report.report.underruns == 0,
    );
    run.frames_per_s = Some(grabbed as f64 / duration.as_secs_f64());
    run.gbit_per_s = Some(k.kafka_bytes as f64 * 8.0 / duration.as_secs_f64() / 1e9);
    run.latency_us_p50 = Some(k.kafka_latency_p50_us);
    run.latency_us_p99 = Some(k.kafka_latency_p99_us);
    put_kafka_detail(run, &k.kafka);
    let pause_s = k.kafka.delivery_latency.max_us / 1e6;
    let more = [
        ("delivery_pause_s", pause_s.into()),
        ("killed_broker", leader.into()),
        ("killed_after_s", (duration / 3).as_secs_f64().into()),
        ("frames_in_topic", unique.into()),
        ("duplicates_in_topic", duplicates.into()),
        ("consumer_ok", consumed.ok.into()),
    ];
    for (key, value) in more {
        run.detail.insert(key.into(), value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    #[test]
    fn producer_performance_summary_is_read() {
        let f = Finished {
            cmdline: "java".to_owned(),
            status: ExitStatus::from_raw(0),
            stdout: "12 records sent, 2.4 records/sec (2.40 MB/sec), 90.0 ms avg latency, \
                     150.0 ms max latency.\n\
                     300 records sent, 245.098039 records/sec (245.10 MB/sec), 61.32 ms avg \
                     latency, 179.00 ms max latency, 55 ms 50th, 120 ms 95th, 170 ms 99th, \
                     179 ms 99.9th.\n"
                .to_owned(),
            stderr: String::new(),
        };
        let p = parse_producer_performance(&f, 1 << 20).expect("summary");
        assert_eq!(p.records, 300);
        assert!((p.mb_per_s - 245.098039 * 1.048576).abs() < 1e-6, "{p:?}");
        assert_eq!((p.latency_us_p50, p.latency_us_p99), (55_000.0, 170_000.0));
        let none = Finished {
            stdout: "Exception in thread main".to_owned(),
            ..f
        };
        assert!(parse_producer_performance(&none, 1).is_err());
    }
}
