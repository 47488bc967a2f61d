//! Topic administration the tests and the benchmark need: a topic with a
//! chosen number of partitions, made before anything is produced to it,
//! and which broker leads a partition (the one a fault run stops).

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::error::KafkaError;

use crate::target::KafkaTarget;

/// Why a topic could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// The client could not be created or the request failed.
    #[error("creating topic {topic} on {brokers}: {source}")]
    Kafka {
        /// The topic.
        topic: String,
        /// The brokers.
        brokers: String,
        /// librdkafka's error.
        #[source]
        source: Box<KafkaError>,
    },
    /// The cluster's metadata could not be read.
    #[error("reading the metadata of {topic} from {brokers}: {source}")]
    Metadata {
        /// The topic.
        topic: String,
        /// The brokers.
        brokers: String,
        /// librdkafka's error.
        #[source]
        source: Box<KafkaError>,
    },
    /// The metadata names no leader for the partition.
    #[error("topic {topic} has no leader for partition {partition}")]
    NoLeader {
        /// The topic.
        topic: String,
        /// The partition.
        partition: i32,
    },
    /// The broker refused the topic.
    #[error("creating topic {topic}: the broker said {reason}")]
    Refused {
        /// The topic.
        topic: String,
        /// The broker's error.
        reason: String,
    },
}

/// An admin client of `target`'s brokers.
fn client(target: &KafkaTarget) -> Result<AdminClient<DefaultClientContext>, KafkaError> {
    ClientConfig::new()
        .set("bootstrap.servers", target.bootstrap())
        .create()
}

/// Creates `target.topic` with `partitions` partitions and `replication`
/// replicas (an existing topic is an error the broker names).
pub fn create_topic(
    target: &KafkaTarget,
    partitions: i32,
    replication: i32,
) -> Result<(), AdminError> {
    let err = |source| AdminError::Kafka {
        topic: target.topic.clone(),
        brokers: target.bootstrap(),
        source: Box::new(source),
    };
    let admin = client(target).map_err(err)?;
    let topic = NewTopic::new(
        &target.topic,
        partitions,
        TopicReplication::Fixed(replication),
    )
    .set("max.message.bytes", "33554432");
    let options = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    let results =
        futures_executor::block_on(admin.create_topics([&topic], &options)).map_err(err)?;
    for r in results {
        if let Err((name, code)) = r {
            return Err(AdminError::Refused {
                topic: name,
                reason: code.to_string(),
            });
        }
    }
    Ok(())
}

/// The node id of the broker leading `partition` of `target.topic`.
pub fn partition_leader(target: &KafkaTarget, partition: i32) -> Result<i32, AdminError> {
    let err = |source| AdminError::Metadata {
        topic: target.topic.clone(),
        brokers: target.bootstrap(),
        source: Box::new(source),
    };
    let admin = client(target).map_err(err)?;
    let metadata = admin
        .inner()
        .fetch_metadata(Some(&target.topic), Duration::from_secs(10))
        .map_err(err)?;
    metadata
        .topics()
        .iter()
        .filter(|t| t.name() == target.topic)
        .flat_map(|t| t.partitions())
        .find(|p| p.id() == partition && p.leader() >= 0)
        .map(|p| p.leader())
        .ok_or_else(|| AdminError::NoLeader {
            topic: target.topic.clone(),
            partition,
        })
}
