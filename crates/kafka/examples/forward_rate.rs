//! Forwarder throughput with no receiver in front of it: N stamped frames
//! of S bytes handed over as fast as the forwarder takes them, the
//! forwarder's report printed as JSON. Run beside Apache Kafka's own
//! producer benchmark with the same record size, broker and topic settings:
//!
//! ```sh
//! B=$(scripts/kafka up)
//! cargo run --release -p linerate-kafka --example forward_rate -- kafka://$B/rate1m 300 1048576
//! java -cp 'target/kafka/libs/*' org.apache.kafka.tools.ProducerPerformance \
//!   --topic pp1m --num-records 300 --record-size 1048576 --throughput -1 \
//!   --producer-props bootstrap.servers=$B acks=all linger.ms=5 \
//!   batch.size=33554432 max.request.size=33554432 buffer.memory=536870912
//! ```

use linerate_kafka::forwarder::{self, ForwarderConfig};
use linerate_kafka::messages::{ArrayMessage, AttributeValue, ElementType};
use linerate_kafka::KafkaTarget;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(target), Some(frames), Some(size)) = (args.get(1), args.get(2), args.get(3)) else {
        return Err("usage: forward_rate kafka://HOST:PORT/TOPIC FRAMES BYTES".into());
    };
    let target: KafkaTarget = target.parse()?;
    let frames: u64 = frames.parse()?;
    let size: usize = size.parse()?;
    let handle = forwarder::spawn(ForwarderConfig::new(target, "forward_rate"))?;
    let forward = handle.forward();
    // A few distinct stamped frames, reused: the forwarder's cost, not the
    // pattern generator's, is what is measured.
    let pool: Vec<Vec<u8>> = (0..4u64)
        .map(|n| {
            let mut f = vec![0u8; size];
            linerate_gev::test_pattern::fill(n, &mut f).map(|()| f)
        })
        .collect::<Result<_, _>>()?;
    for id in 0..frames {
        let data = &pool[(id % 4) as usize];
        forward.array(
            id,
            &ArrayMessage {
                source_name: "forward_rate",
                id: id as i32,
                timestamp_ns: 0,
                dimensions: &[size as i64],
                element: ElementType::Uint8,
                data,
                attributes: &[("block_id", AttributeValue::U64(id))],
            },
        )?;
    }
    let report = handle.finish()?;
    println!("{}", serde_json::to_string(&report)?);
    if report.ok {
        Ok(())
    } else {
        Err("not every frame was delivered".into())
    }
}
