//! The forwarder's threads stay off the receive thread's core: with
//! `receive_cpu` set, the producer thread and every thread librdkafka
//! starts (they inherit the producer thread's placement) may run on the
//! other cores only. No broker is needed: librdkafka starts its threads
//! when the producer is created.

use std::path::Path;

use linerate_kafka::forwarder::{self, ForwarderConfig};

/// `(thread name, CPUs it may run on)` for every thread of this process.
fn threads() -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").expect("/proc/self/task") {
        let dir = task.expect("a task").path();
        let name = read(&dir.join("comm"));
        let status = read(&dir.join("status"));
        let allowed = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .map(|l| cpu_list(l.trim()))
            .unwrap_or_default();
        out.push((name.trim().to_owned(), allowed));
    }
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// `0-1,3` as `[0, 1, 3]`.
fn cpu_list(text: &str) -> Vec<usize> {
    text.split(',')
        .filter(|p| !p.is_empty())
        .flat_map(|part| {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            let (a, b): (usize, usize) = (a.parse().expect("cpu"), b.parse().expect("cpu"));
            a..=b
        })
        .collect()
}

#[test]
fn producer_and_librdkafka_threads_stay_off_the_receive_core() {
    assert!(
        linerate_io::sched::online_cpus() >= 2,
        "this test needs two CPUs online (CI has two)"
    );
    let receive = 0;
    let mut config = ForwarderConfig::new(
        "kafka://127.0.0.1:1/placement".parse().expect("target"),
        "placement",
    );
    config.receive_cpu = Some(receive);
    config.status_interval = std::time::Duration::ZERO;
    config.message_timeout = std::time::Duration::from_secs(1);
    let handle = forwarder::spawn(config).expect("a forwarder");
    let seen = threads();
    let ours: Vec<&(String, Vec<usize>)> = seen
        .iter()
        .filter(|(name, _)| name.starts_with("rdk:") || name == "kafka-produce")
        .collect();
    assert!(
        ours.iter().any(|(n, _)| n == "kafka-produce")
            && ours.iter().any(|(n, _)| n.starts_with("rdk:")),
        "the producer thread and librdkafka's threads: {seen:?}"
    );
    for (name, cpus) in &ours {
        assert!(
            !cpus.is_empty() && !cpus.contains(&receive),
            "{name} may run on CPUs {cpus:?}, the receive core {receive} among them"
        );
    }
    // This test's own thread was left where it was.
    let report = handle.finish().expect("a report");
    assert_eq!(report.submitted, 0);
}
