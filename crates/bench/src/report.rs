//! Results: one [`Run`] per measured run, [`Summary`] rows with medians and
//! ratios per scenario, case and implementation, and the Markdown tables.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::config::{BenchConfig, HostSetup};
use crate::machine::Machine;
use crate::scenario::Scenario;

/// One measured run of one implementation.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Run {
    /// The scenario.
    pub scenario: Option<Scenario>,
    /// What was measured: `linerate-mmsg`, `aravis`, `iperf3-tcp`, ...
    pub implementation: String,
    /// The configuration within the scenario: `8000 B`, `600 fps`, ...
    pub case: String,
    /// The case's sort key (packet size, frame rate...), for tables and charts.
    pub case_value: f64,
    /// The receiving host's setup (pair-bed runs).
    pub host: Option<HostSetup>,
    /// Repeat number, 1-based.
    pub repeat: u32,
    /// Throughput at the receiving interface (headers included).
    pub gbit_per_s: Option<f64>,
    /// Busy percent of the receiving host's core (CPU 1).
    pub receiver_core_pct: Option<f64>,
    /// Busy percent of the busiest core.
    pub busiest_core_pct: Option<f64>,
    /// Busy percent over all cores.
    pub cpu_avg_pct: Option<f64>,
    /// Receiving core's CPU-seconds per GB received.
    pub cpu_s_per_gb: Option<f64>,
    /// Busy percent of the sending host's core (CPU 0).
    pub sender_core_pct: Option<f64>,
    /// Sending core's CPU-seconds per GB sent.
    pub sender_cpu_s_per_gb: Option<f64>,
    /// CPU-seconds per GB the receiver's application threads (all but
    /// linerate's receive engine's) spent on the receiving core.
    pub application_cpu_s_per_gb: Option<f64>,
    /// The receiving core's CPU-seconds per GB less the application's:
    /// the receive path (kernel and engine) alone.
    pub receive_path_cpu_s_per_gb: Option<f64>,
    /// Frames (or boards' bytes, for FADE) that arrived complete.
    pub frames_completed: Option<u64>,
    /// Frames lost (incomplete, failed, underrun).
    pub frames_lost: Option<u64>,
    /// Frames the sender sent.
    pub frames_sent: Option<u64>,
    /// Complete frames per second over the receiver's whole run.
    pub frames_per_s: Option<f64>,
    /// Whether every frame sent arrived complete.
    pub lossless: Option<bool>,
    /// Latency median, µs (trigger-to-frame, ACK).
    pub latency_us_p50: Option<f64>,
    /// Latency 99th percentile, µs.
    pub latency_us_p99: Option<f64>,
    /// Jain's fairness index across boards (FADE).
    pub jain_fairness: Option<f64>,
    /// Retransmitted packets over packets sent (FADE).
    pub retransmit_ratio: Option<f64>,
    /// Percent of datagrams lost (iperf3 UDP).
    pub lost_percent: Option<f64>,
    /// Anything else the run reported, for the JSON.
    pub detail: serde_json::Map<String, serde_json::Value>,
    /// Why the run failed, if it did (a failed run has no figures).
    pub error: Option<String>,
}

/// Medians over the repeats of one scenario, case and implementation, with
/// the ratio to the scenario's reference implementation.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Summary {
    /// The scenario's name.
    pub scenario: String,
    /// The case.
    pub case: String,
    /// The case's sort key.
    pub case_value: f64,
    /// The receiving host's setup (pair-bed rows); ratios are taken
    /// within one setup.
    pub host: Option<HostSetup>,
    /// The implementation.
    pub implementation: String,
    /// Runs that produced figures.
    pub runs: usize,
    /// Runs that failed.
    pub failed_runs: usize,
    /// Median throughput.
    pub gbit_per_s: Option<f64>,
    /// Median receiving-core busy percent.
    pub receiver_core_pct: Option<f64>,
    /// Median busiest-core percent.
    pub busiest_core_pct: Option<f64>,
    /// Median all-core percent.
    pub cpu_avg_pct: Option<f64>,
    /// Median receiving-core CPU-seconds per GB.
    pub cpu_s_per_gb: Option<f64>,
    /// Median sending-core busy percent.
    pub sender_core_pct: Option<f64>,
    /// Median sending-core CPU-seconds per GB sent.
    pub sender_cpu_s_per_gb: Option<f64>,
    /// Median CPU-seconds per GB of the receiver's application threads.
    pub application_cpu_s_per_gb: Option<f64>,
    /// Median CPU-seconds per GB of the receive path alone (the core's
    /// less the application's).
    pub receive_path_cpu_s_per_gb: Option<f64>,
    /// This row's receive-path CPU-s/GB over the reference's.
    pub receive_path_ratio: Option<f64>,
    /// Median complete frames per second.
    pub frames_per_s: Option<f64>,
    /// Frames complete, summed over runs.
    pub frames_completed: Option<u64>,
    /// Frames lost, summed over runs.
    pub frames_lost: Option<u64>,
    /// Whether every run was lossless.
    pub lossless: Option<bool>,
    /// Median latency p50, µs.
    pub latency_us_p50: Option<f64>,
    /// Median latency p99, µs.
    pub latency_us_p99: Option<f64>,
    /// Median Jain fairness.
    pub jain_fairness: Option<f64>,
    /// Median retransmit ratio.
    pub retransmit_ratio: Option<f64>,
    /// Median datagram loss percent.
    pub lost_percent: Option<f64>,
    /// The implementation ratios are taken against, in this case.
    pub reference: Option<String>,
    /// This row's CPU-s/GB over the reference's.
    pub cpu_ratio: Option<f64>,
    /// This row's throughput over the reference's.
    pub throughput_ratio: Option<f64>,
}

/// The implementation a scenario's ratios are taken against.
pub fn reference_of(scenario: Scenario) -> Option<&'static str> {
    match scenario {
        Scenario::PacketSizes | Scenario::LosslessRate => Some("aravis"),
        Scenario::UdpTcp => Some("udp-8000"),
        Scenario::Ceilings => Some("iperf3-tcp"),
        Scenario::TriggerLatency => None,
        Scenario::Fade => Some("seed-controller"),
        Scenario::FadeVersions => Some("fade-v1"),
        Scenario::Serve => Some("write"),
        Scenario::Camera => Some("aravis-fake"),
        Scenario::Floor => Some("aravis"),
        Scenario::Python => Some("linerate-grab"),
        Scenario::Kafka => Some(crate::scenarios::KAFKA_PRODUCER_REFERENCE),
        Scenario::View => Some("grab"),
    }
}

/// The median of the values present, `None` if there are none.
pub fn median(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let mut v: Vec<f64> = values
        .into_iter()
        .flatten()
        .filter(|x| x.is_finite())
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Rows are grouped by scenario, host setup, case and implementation.
type GroupKey = (Scenario, Option<&'static str>, String, String);

/// Summaries of `runs`, grouped by scenario, host setup, case and
/// implementation in the order first seen; lossless-rate scenarios gain a
/// "highest lossless" row per host setup and implementation.
pub fn summarise(runs: &[Run]) -> Vec<Summary> {
    let mut order: Vec<GroupKey> = Vec::new();
    let mut groups: BTreeMap<GroupKey, Vec<&Run>> = BTreeMap::new();
    for r in runs {
        let Some(sc) = r.scenario else { continue };
        let key = (
            sc,
            r.host.map(HostSetup::name),
            r.case.clone(),
            r.implementation.clone(),
        );
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(r);
    }
    let mut out: Vec<Summary> = order
        .iter()
        .filter_map(|key| {
            let g = groups.get(key)?;
            Some(summarise_group(key.0, &key.2, &key.3, g))
        })
        .collect();
    add_highest_lossless(runs, &mut out);
    add_ratios(&mut out);
    out
}

fn summarise_group(sc: Scenario, case: &str, imp: &str, g: &[&Run]) -> Summary {
    let ok: Vec<&&Run> = g.iter().filter(|r| r.error.is_none()).collect();
    let med = |f: fn(&Run) -> Option<f64>| median(ok.iter().map(|r| f(r)));
    let sum = |f: fn(&Run) -> Option<u64>| {
        let v: Vec<u64> = ok.iter().filter_map(|r| f(r)).collect();
        (!v.is_empty()).then(|| v.iter().sum())
    };
    let lossless: Vec<bool> = ok.iter().filter_map(|r| r.lossless).collect();
    Summary {
        scenario: sc.name().to_owned(),
        case: case.to_owned(),
        case_value: g.first().map(|r| r.case_value).unwrap_or(0.0),
        host: g.first().and_then(|r| r.host),
        implementation: imp.to_owned(),
        runs: ok.len(),
        failed_runs: g.len() - ok.len(),
        gbit_per_s: med(|r| r.gbit_per_s),
        receiver_core_pct: med(|r| r.receiver_core_pct),
        busiest_core_pct: med(|r| r.busiest_core_pct),
        cpu_avg_pct: med(|r| r.cpu_avg_pct),
        cpu_s_per_gb: med(|r| r.cpu_s_per_gb),
        sender_core_pct: med(|r| r.sender_core_pct),
        sender_cpu_s_per_gb: med(|r| r.sender_cpu_s_per_gb),
        application_cpu_s_per_gb: med(|r| r.application_cpu_s_per_gb),
        receive_path_cpu_s_per_gb: med(|r| r.receive_path_cpu_s_per_gb),
        frames_per_s: med(|r| r.frames_per_s),
        frames_completed: sum(|r| r.frames_completed),
        frames_lost: sum(|r| r.frames_lost),
        lossless: (!lossless.is_empty()).then(|| lossless.iter().all(|x| *x)),
        latency_us_p50: med(|r| r.latency_us_p50),
        latency_us_p99: med(|r| r.latency_us_p99),
        jain_fairness: med(|r| r.jain_fairness),
        retransmit_ratio: med(|r| r.retransmit_ratio),
        lost_percent: med(|r| r.lost_percent),
        ..Summary::default()
    }
}

/// Case label of the per-implementation best row of the lossless sweep.
pub const HIGHEST_LOSSLESS: &str = "highest lossless";

/// Scenarios whose runs sweep rising rates, and so gain a "highest
/// lossless" row per implementation.
const SWEEPING: [Scenario; 2] = [Scenario::LosslessRate, Scenario::View];

fn add_highest_lossless(runs: &[Run], out: &mut Vec<Summary>) {
    let mut imps: Vec<(Scenario, Option<HostSetup>, String)> = Vec::new();
    for r in runs {
        let Some(sc) = r.scenario.filter(|sc| SWEEPING.contains(sc)) else {
            continue;
        };
        let key = (sc, r.host, r.implementation.clone());
        if !imps.contains(&key) {
            imps.push(key);
        }
    }
    for (sc, host, imp) in imps {
        let mine = |r: &&Run| r.scenario == Some(sc) && r.host == host && r.implementation == imp;
        // The view scenario measures one variant at its fixed rate only:
        // it has no sweep, so no highest lossless rate.
        let mut cases: Vec<&str> = runs.iter().filter(mine).map(|r| r.case.as_str()).collect();
        cases.sort_unstable();
        cases.dedup();
        if sc == Scenario::View && cases.len() < 2 {
            continue;
        }
        let best = runs
            .iter()
            .filter(|r| {
                r.scenario == Some(sc)
                    && r.host == host
                    && r.implementation == imp
                    && r.error.is_none()
                    && r.lossless == Some(true)
            })
            .max_by(|a, b| {
                a.frames_per_s
                    .unwrap_or(0.0)
                    .total_cmp(&b.frames_per_s.unwrap_or(0.0))
            });
        out.push(Summary {
            scenario: sc.name().to_owned(),
            case: HIGHEST_LOSSLESS.to_owned(),
            case_value: f64::MAX,
            host,
            implementation: imp.clone(),
            runs: usize::from(best.is_some()),
            frames_per_s: Some(best.and_then(|b| b.frames_per_s).unwrap_or(0.0)),
            gbit_per_s: best.and_then(|b| b.gbit_per_s),
            receiver_core_pct: best.and_then(|b| b.receiver_core_pct),
            cpu_s_per_gb: best.and_then(|b| b.cpu_s_per_gb),
            lossless: Some(best.is_some()),
            ..Summary::default()
        });
    }
}

fn add_ratios(rows: &mut [Summary]) {
    let snapshot: Vec<Summary> = rows.to_vec();
    for row in rows.iter_mut() {
        let Ok(sc) = row.scenario.parse::<Scenario>() else {
            continue;
        };
        let Some(mut reference) = reference_of(sc) else {
            continue;
        };
        // The kafka scenario's grab rows compare with the grab that does
        // not forward; its producer rows with Kafka's own producer.
        if sc == Scenario::Kafka && !crate::scenarios::is_kafka_producer_case(&row.case) {
            reference = crate::scenarios::KAFKA_GRAB_REFERENCE;
        }
        // Ceilings and FADE compare across cases; the others within one.
        let across_cases = matches!(sc, Scenario::Ceilings | Scenario::UdpTcp);
        let Some(r) = snapshot.iter().find(|s| {
            s.scenario == row.scenario
                && s.host == row.host
                && s.implementation == reference
                && (across_cases || s.case == row.case)
        }) else {
            continue;
        };
        row.reference = Some(reference.to_owned());
        // The camera scenario measures senders: its cost is the sender's.
        row.cpu_ratio = if sc == Scenario::Camera {
            ratio(row.sender_cpu_s_per_gb, r.sender_cpu_s_per_gb)
        } else {
            ratio(row.cpu_s_per_gb, r.cpu_s_per_gb)
        };
        row.receive_path_ratio = ratio(row.receive_path_cpu_s_per_gb, r.receive_path_cpu_s_per_gb);
        row.throughput_ratio = if row.case == HIGHEST_LOSSLESS {
            ratio(row.frames_per_s, r.frames_per_s)
        } else {
            ratio(row.gbit_per_s, r.gbit_per_s)
        };
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// Everything a bench run produced: what `--json` prints and `--out`
/// writes as `bench.json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// The machine it ran on.
    pub machine: Machine,
    /// How the run was configured.
    pub config: BenchConfig,
    /// The placement of sender and receiver, in words.
    pub setup: String,
    /// Wall time of the whole run, seconds.
    pub seconds: f64,
    /// One row per scenario, case and implementation (medians, ratios).
    pub rows: Vec<Summary>,
    /// Every measured run.
    pub runs: Vec<Run>,
    /// Scenarios that could not run at all, with the reason.
    pub skipped: Vec<(String, String)>,
    /// Whether the run was stopped early on request (SIGINT or SIGTERM):
    /// the report then holds the runs finished before the stop.
    pub interrupted: bool,
}

impl Report {
    /// Whether any run or scenario failed (losses are results, not failures).
    pub fn has_failures(&self) -> bool {
        !self.skipped.is_empty() || self.runs.iter().any(|r| r.error.is_some())
    }

    /// The report as Markdown: the machine, the setup, then one table per
    /// scenario.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "linerate bench{} on {}; {} s.",
            if self.config.quick { " --quick" } else { "" },
            self.machine.one_line(),
            self.seconds.round()
        );
        if self.interrupted {
            let _ = writeln!(
                s,
                "\nStopped early on request: the tables hold the {} runs finished before the stop.",
                self.runs.len()
            );
        }
        for h in &self.config.hosts {
            let _ = writeln!(s, "\nSetup ({h}): {}.", h.describe());
        }
        for sc in &self.config.scenarios {
            let rows: Vec<&Summary> = self
                .rows
                .iter()
                .filter(|r| r.scenario == sc.name())
                .collect();
            let _ = writeln!(s, "\n### {} — {}\n", sc.name(), sc.summary());
            if let Some((_, why)) = self.skipped.iter().find(|(n, _)| n == sc.name()) {
                let _ = writeln!(s, "Not run: {why}");
                continue;
            }
            s.push_str(&table(&rows));
            for r in self.runs.iter().filter(|r| r.scenario == Some(*sc)) {
                if let Some(e) = &r.error {
                    let _ = writeln!(
                        s,
                        "\nRun failed: {} {}{} repeat {}: {e}",
                        r.implementation,
                        r.case,
                        r.host.map(|h| format!(" [{h}]")).unwrap_or_default(),
                        r.repeat
                    );
                }
            }
        }
        s
    }
}

type Column = (&'static str, fn(&Summary) -> Option<String>);

fn f1(x: Option<f64>) -> Option<String> {
    x.map(|v| format!("{v:.1}"))
}

fn f2(x: Option<f64>) -> Option<String> {
    x.map(|v| format!("{v:.2}"))
}

fn f3(x: Option<f64>) -> Option<String> {
    x.map(|v| format!("{v:.3}"))
}

const COLUMNS: &[Column] = &[
    ("case", |r| Some(r.case.clone())),
    ("implementation", |r| Some(r.implementation.clone())),
    ("runs", |r| {
        Some(if r.failed_runs > 0 {
            format!("{} ({} failed)", r.runs, r.failed_runs)
        } else {
            r.runs.to_string()
        })
    }),
    ("Gbit/s", |r| f2(r.gbit_per_s)),
    ("frames/s", |r| f1(r.frames_per_s)),
    ("receiving core %", |r| f1(r.receiver_core_pct)),
    ("busiest core %", |r| f1(r.busiest_core_pct)),
    ("all cores %", |r| f1(r.cpu_avg_pct)),
    ("CPU-s/GB", |r| f3(r.cpu_s_per_gb)),
    ("sending core %", |r| f1(r.sender_core_pct)),
    ("sender CPU-s/GB", |r| f3(r.sender_cpu_s_per_gb)),
    ("CPU ratio", |r| {
        r.cpu_ratio
            .map(|x| format!("{x:.2}× {}", r.reference.as_deref().unwrap_or("")))
    }),
    ("app CPU-s/GB", |r| f3(r.application_cpu_s_per_gb)),
    ("receive path CPU-s/GB", |r| f3(r.receive_path_cpu_s_per_gb)),
    ("receive path ratio", |r| {
        r.receive_path_ratio
            .map(|x| format!("{x:.2}× {}", r.reference.as_deref().unwrap_or("")))
    }),
    ("rate ratio", |r| {
        r.throughput_ratio
            .map(|x| format!("{x:.2}× {}", r.reference.as_deref().unwrap_or("")))
    }),
    ("complete / lost frames", |r| {
        match (r.frames_completed, r.frames_lost) {
            (Some(c), Some(l)) => Some(format!("{c} / {l}")),
            (Some(c), None) => Some(c.to_string()),
            _ => None,
        }
    }),
    ("lossless", |r| {
        r.lossless.map(|b| if b { "yes" } else { "no" }.to_owned())
    }),
    ("datagrams lost %", |r| f2(r.lost_percent)),
    ("p50 µs", |r| f1(r.latency_us_p50)),
    ("p99 µs", |r| f1(r.latency_us_p99)),
    ("Jain", |r| f3(r.jain_fairness)),
    ("retransmit ratio", |r| f3(r.retransmit_ratio)),
];

/// The host column, shown when a table holds rows of several host setups.
const HOST_COLUMN: Column = ("host", |r| r.host.map(|h| h.name().to_owned()));

/// A Markdown table of `rows` with only the columns some row fills, and a
/// host column after the case when the rows come from several host setups.
pub fn table(rows: &[&Summary]) -> String {
    let mut cols: Vec<&Column> = COLUMNS
        .iter()
        .filter(|(_, f)| rows.iter().any(|r| f(r).is_some()))
        .collect();
    let first_host = rows.first().map(|r| r.host);
    if rows.iter().any(|r| Some(r.host) != first_host) {
        cols.insert(1, &HOST_COLUMN);
    }
    let mut s = String::new();
    if rows.is_empty() {
        s.push_str("No rows.\n");
        return s;
    }
    let _ = writeln!(
        s,
        "| {} |",
        cols.iter().map(|(h, _)| *h).collect::<Vec<_>>().join(" | ")
    );
    let _ = writeln!(
        s,
        "|{}",
        cols.iter()
            .map(
                |(h, _)| if matches!(*h, "case" | "host" | "implementation") {
                    "---|"
                } else {
                    "---:|"
                }
            )
            .collect::<String>()
    );
    for r in rows {
        let cells: Vec<String> = cols
            .iter()
            .map(|(_, f)| f(r).unwrap_or_else(|| "–".to_owned()))
            .collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(sc: Scenario, imp: &str, case: &str, cpu: f64, fps: f64, lossless: bool) -> Run {
        Run {
            scenario: Some(sc),
            implementation: imp.to_owned(),
            case: case.to_owned(),
            gbit_per_s: Some(2.0),
            cpu_s_per_gb: Some(cpu),
            frames_per_s: Some(fps),
            lossless: Some(lossless),
            ..Run::default()
        }
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median([Some(3.0), None, Some(1.0), Some(2.0)]), Some(2.0));
        assert_eq!(median([Some(1.0), Some(4.0)]), Some(2.5));
        assert_eq!(median([None, Some(f64::NAN)]), None);
    }

    #[test]
    fn ratios_are_against_the_reference_in_the_same_case() {
        let runs = vec![
            run(Scenario::PacketSizes, "aravis", "8000 B", 0.8, 100.0, true),
            run(
                Scenario::PacketSizes,
                "linerate-mmsg",
                "8000 B",
                0.4,
                100.0,
                true,
            ),
            run(
                Scenario::PacketSizes,
                "linerate-mmsg",
                "8000 B",
                0.6,
                100.0,
                true,
            ),
            run(Scenario::PacketSizes, "aravis", "1500 B", 2.0, 100.0, true),
            run(
                Scenario::PacketSizes,
                "linerate-mmsg",
                "1500 B",
                1.0,
                100.0,
                true,
            ),
        ];
        let rows = summarise(&runs);
        let mmsg8000 = rows
            .iter()
            .find(|r| r.implementation == "linerate-mmsg" && r.case == "8000 B");
        assert_eq!(mmsg8000.and_then(|r| r.cpu_ratio), Some(0.5 / 0.8));
        assert_eq!(mmsg8000.map(|r| r.runs), Some(2));
        let mmsg1500 = rows
            .iter()
            .find(|r| r.implementation == "linerate-mmsg" && r.case == "1500 B");
        assert_eq!(mmsg1500.and_then(|r| r.cpu_ratio), Some(0.5));
    }

    #[test]
    fn each_host_setup_has_its_own_rows_and_reference() {
        let at = |imp: &str, host, gbit| Run {
            host: Some(host),
            gbit_per_s: Some(gbit),
            ..run(Scenario::Ceilings, imp, "flat out", 1.0, 0.0, true)
        };
        let runs = vec![
            at("iperf3-tcp", HostSetup::Napi, 10.0),
            at("linerate-tcp-1MiB", HostSetup::Napi, 12.0),
            at("iperf3-tcp", HostSetup::Rps, 20.0),
            at("linerate-tcp-1MiB", HostSetup::Rps, 19.0),
        ];
        let rows = summarise(&runs);
        assert_eq!(rows.len(), 4);
        let ratio = |host| {
            rows.iter()
                .find(|r| r.implementation == "linerate-tcp-1MiB" && r.host == Some(host))
                .and_then(|r| r.throughput_ratio)
        };
        assert_eq!(ratio(HostSetup::Napi), Some(1.2));
        assert_eq!(ratio(HostSetup::Rps), Some(0.95));
        let t = table(&rows.iter().collect::<Vec<_>>());
        assert!(t.starts_with("| case | host | implementation |"), "{t}");
        assert!(t.contains("| flat out | rps | linerate-tcp-1MiB |"), "{t}");
        let one = table(&rows.iter().take(2).collect::<Vec<_>>());
        assert!(!one.contains("| host |"), "{one}");
    }

    #[test]
    fn highest_lossless_takes_only_lossless_runs() {
        let runs = vec![
            run(
                Scenario::LosslessRate,
                "aravis",
                "400 fps",
                1.0,
                400.0,
                true,
            ),
            run(
                Scenario::LosslessRate,
                "aravis",
                "800 fps",
                1.0,
                610.0,
                false,
            ),
            run(
                Scenario::LosslessRate,
                "linerate-mmsg",
                "400 fps",
                1.0,
                400.0,
                true,
            ),
            run(
                Scenario::LosslessRate,
                "linerate-mmsg",
                "800 fps",
                1.0,
                800.0,
                true,
            ),
        ];
        let rows = summarise(&runs);
        let best = |imp: &str| {
            rows.iter()
                .find(|r| r.case == HIGHEST_LOSSLESS && r.implementation == imp)
                .and_then(|r| r.frames_per_s)
        };
        assert_eq!(best("aravis"), Some(400.0));
        assert_eq!(best("linerate-mmsg"), Some(800.0));
        let ratio = rows
            .iter()
            .find(|r| r.case == HIGHEST_LOSSLESS && r.implementation == "linerate-mmsg")
            .and_then(|r| r.throughput_ratio);
        assert_eq!(ratio, Some(2.0));
    }

    #[test]
    fn view_gains_highest_lossless_rows_for_swept_variants_only() {
        let v = |imp: &str, fps: f64, lossless: bool| {
            run(
                Scenario::View,
                imp,
                &format!("{fps} fps"),
                1.0,
                fps,
                lossless,
            )
        };
        let runs = vec![
            v("grab", 80.0, true),
            v("grab-view-no-browser", 80.0, true),
            v("grab-page-open", 80.0, true),
            v("grab", 40.0, true),
            v("grab-page-open", 40.0, true),
            v("grab", 100.0, true),
            v("grab-page-open", 100.0, false),
        ];
        let rows = summarise(&runs);
        let best: Vec<(&str, Option<f64>, Option<f64>)> = rows
            .iter()
            .filter(|r| r.case == HIGHEST_LOSSLESS)
            .map(|r| {
                (
                    r.implementation.as_str(),
                    r.frames_per_s,
                    r.throughput_ratio,
                )
            })
            .collect();
        assert_eq!(
            best,
            [
                ("grab", Some(100.0), Some(1.0)),
                ("grab-page-open", Some(80.0), Some(0.8))
            ]
        );
    }

    #[test]
    fn failed_runs_are_counted_not_averaged() {
        let mut bad = run(Scenario::UdpTcp, "tcp-8000", "2048x2048", 9.0, 1.0, true);
        bad.error = Some("camera did not start".to_owned());
        let good = run(Scenario::UdpTcp, "tcp-8000", "2048x2048", 0.5, 1.0, true);
        let rows = summarise(&[bad, good]);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].runs, 1);
        assert_eq!(rows[0].failed_runs, 1);
        assert_eq!(rows[0].cpu_s_per_gb, Some(0.5));
        let t = table(&rows.iter().collect::<Vec<_>>());
        assert!(t.contains("1 (1 failed)"));
        assert!(!t.contains("Jain"));
    }
}
