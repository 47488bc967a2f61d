//! Forwarder throughput with no receiver in front of it: N stamped frames
//! of S bytes handed over as fast as the forwarder takes them, the
//! forwarder's report printed as JSON. `linerate bench kafka` runs the same
//! beside Apache Kafka's own producer benchmark; by hand:
//!
//! ```sh
//! B=$(scripts/kafka up)
//! cargo run --release -p linerate-kafka --example forward_rate -- kafka://$B/rate1m 300 1048576
//! java -cp 'target/kafka/libs/*' org.apache.kafka.tools.ProducerPerformance \
//!   --topic pp1m --num-records 300 --record-size 1048576 --throughput -1 \
//!   --producer-props bootstrap.servers=$B acks=all linger.ms=5 \
//!   batch.size=33554432 max.request.size=33554432 buffer.memory=536870912
//! ```

use linerate_kafka::forwarder::ForwarderConfig;
use linerate_kafka::rate::forward_pattern_frames;
use linerate_kafka::KafkaTarget;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(target), Some(frames), Some(size)) = (args.get(1), args.get(2), args.get(3)) else {
        return Err(
            "usage: forward_rate kafka://HOST:PORT/TOPIC FRAMES BYTES [KEY=VALUE...]".into(),
        );
    };
    let target: KafkaTarget = target.parse()?;
    let mut config = ForwarderConfig::new(target, "forward_rate");
    // Further arguments are librdkafka settings, KEY=VALUE.
    for setting in args.iter().skip(4) {
        let (k, v) = setting
            .split_once('=')
            .ok_or_else(|| format!("{setting:?} is not a librdkafka KEY=VALUE setting"))?;
        config.settings.push((k.to_owned(), v.to_owned()));
    }
    let report = forward_pattern_frames(config, frames.parse()?, size.parse()?)?;
    println!("{}", serde_json::to_string(&report)?);
    if report.ok {
        Ok(())
    } else {
        Err("not every frame was delivered".into())
    }
}
