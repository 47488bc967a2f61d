//! Where messages go: `kafka://HOST:PORT[,HOST:PORT...]/TOPIC`, the form
//! the command line's `--to` and `linerate consume` take.

use std::fmt;
use std::str::FromStr;

/// Why a `kafka://` address was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// Not a `kafka://` address.
    #[error("{0:?} is not a kafka://HOST:PORT/TOPIC address")]
    Scheme(String),
    /// No topic after the brokers.
    #[error("{0:?} names no topic (kafka://HOST:PORT/TOPIC)")]
    NoTopic(String),
    /// A broker is not `HOST:PORT` with a port number.
    #[error("broker {broker:?} in {address:?} is not HOST:PORT")]
    Broker {
        /// The broker as written.
        broker: String,
        /// The whole address.
        address: String,
    },
    /// The topic has characters Kafka does not allow in topic names.
    #[error("topic {0:?}: Kafka topics are 1 to 249 of [a-zA-Z0-9._-]")]
    Topic(String),
}

/// A topic on a Kafka cluster, reached through one or more bootstrap
/// brokers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KafkaTarget {
    /// Bootstrap brokers, `HOST:PORT` each.
    pub brokers: Vec<String>,
    /// The topic frames or chunks go to; counters go to `TOPIC_status`.
    pub topic: String,
}

impl KafkaTarget {
    /// The brokers as librdkafka's `bootstrap.servers` wants them.
    pub fn bootstrap(&self) -> String {
        self.brokers.join(",")
    }

    /// The topic the receiver's counters go to (`TOPIC_status`).
    pub fn status_topic(&self) -> String {
        format!("{}_status", self.topic)
    }
}

impl FromStr for KafkaTarget {
    type Err = TargetError;

    fn from_str(s: &str) -> Result<KafkaTarget, TargetError> {
        let rest = s
            .strip_prefix("kafka://")
            .ok_or_else(|| TargetError::Scheme(s.to_string()))?;
        let (brokers, topic) = rest
            .split_once('/')
            .filter(|(_, t)| !t.is_empty())
            .ok_or_else(|| TargetError::NoTopic(s.to_string()))?;
        let brokers = brokers
            .split(',')
            .map(|b| {
                let port_ok = b
                    .rsplit_once(':')
                    .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0));
                if port_ok {
                    Ok(b.to_string())
                } else {
                    Err(TargetError::Broker {
                        broker: b.to_string(),
                        address: s.to_string(),
                    })
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let valid = topic.len() < 250
            && topic
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'));
        if !valid {
            return Err(TargetError::Topic(topic.to_string()));
        }
        Ok(KafkaTarget {
            brokers,
            topic: topic.to_string(),
        })
    }
}

impl fmt::Display for KafkaTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kafka://{}/{}", self.bootstrap(), self.topic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_one_and_several_brokers() {
        let t: KafkaTarget = "kafka://127.0.0.1:9092/frames".parse().expect("valid");
        assert_eq!(t.brokers, ["127.0.0.1:9092"]);
        assert_eq!(t.topic, "frames");
        assert_eq!(t.status_topic(), "frames_status");
        let t: KafkaTarget = "kafka://a:1,b:2/x.y-z".parse().expect("valid");
        assert_eq!(t.bootstrap(), "a:1,b:2");
        assert_eq!(t.to_string(), "kafka://a:1,b:2/x.y-z");
    }

    #[test]
    fn refuses_what_is_not_an_address() {
        for bad in [
            "http://a:1/t",
            "kafka://a:1",
            "kafka://a:1/",
            "kafka://a/t",
            "kafka://a:0/t",
            "kafka://:9/t",
            "kafka://a:1,/t",
            "kafka://a:1/t/u",
            "kafka://a:1/t u",
        ] {
            assert!(bad.parse::<KafkaTarget>().is_err(), "{bad} was accepted");
        }
    }
}
