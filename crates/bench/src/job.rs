//! A planned run: which scenario, implementation and case, and what to
//! start. Scenarios plan jobs; the runner executes them in order.

use serde::Serialize;

use crate::config::HostSetup;
use crate::peers::{FloorSink, GvspReceiver, SenderCamera, Stream};
use crate::scenario::Scenario;

/// What a job starts and measures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Work {
    /// linerate's camera streaming to a GigE Vision receiver.
    Gvsp {
        /// Who receives.
        receiver: GvspReceiver,
        /// The stream asked for.
        stream: Stream,
    },
    /// iperf3 from the sender to the PC.
    Iperf {
        /// UDP at this offered rate (Gbit/s, 0 = unpaced) and datagram size;
        /// TCP when absent.
        udp: Option<(f64, u32)>,
    },
    /// Software triggers at `rate_hz`, each answered by one frame; latency
    /// from the trigger command to the frame handed to the application.
    Trigger {
        /// The grab backend.
        backend: String,
        /// Triggers per second.
        rate_hz: f64,
        /// The frames' geometry and packet size (fps unused).
        stream: Stream,
    },
    /// A camera alone, streaming as fast as it can into Aravis's host
    /// (resend off, so a slow host cannot make the camera resend): the
    /// sender's pace and cost.
    CameraAlone {
        /// Which camera sends.
        camera: SenderCamera,
        /// GVSP packet size.
        packet_size: u32,
    },
    /// linerate's camera streaming into a receiver, or into a drop before
    /// any receiver: what the stream alone costs the receiving core.
    Floor {
        /// Where the stream ends.
        sink: FloorSink,
        /// The stream asked for.
        stream: Stream,
    },
    /// `linerate serve` on the PC's side sending to `linerate watch`'s
    /// clients on the other.
    Serve {
        /// The send method.
        method: String,
        /// Connections watch opens.
        clients: u32,
        /// Frames per second served.
        fps: f64,
    },
    /// One FADE board of wire `version` (`1` or `10g`) behind a bridge,
    /// sending to one receiver over a link shaped to `rate_mbit` (0:
    /// unshaped), at MTU 9000.
    FadeVersion {
        /// The FADE wire version.
        version: String,
        /// The link's rate, Mbit/s; 0 leaves it unshaped and the board
        /// unpaced.
        rate_mbit: u32,
    },
    /// FADE boards behind a bridge sending to one receiver over a
    /// rate-limited link.
    Fade {
        /// Number of boards.
        boards: usize,
        /// The boards' rate controller (`seed`: the published adaptive delay, or
        /// `fair`: linerate's).
        controller: String,
        /// The receiver's receive backend (`raw`, `ring` or `xdp`).
        backend: String,
        /// The shared link's rate, Mbit/s.
        rate_mbit: u32,
        /// Boards on the sender's CPU and the receiver on its own
        /// (`fade recv --cpu`); otherwise nothing is pinned and the
        /// scheduler places boards and receiver on any core.
        pinned: bool,
    },
    /// `records` stamped records of `record_bytes` produced as fast as
    /// `producer` goes to a fresh topic of the Kafka broker on the PC's
    /// loopback.
    KafkaProduce {
        /// linerate's forwarder or Kafka's ProducerPerformance.
        producer: KafkaProducer,
        /// Bytes per record (frame).
        record_bytes: u64,
        /// Records produced.
        records: u64,
    },
    /// linerate's camera streaming into `linerate grab`, which forwards
    /// every frame to the PC's broker when `forward`.
    KafkaGrab {
        /// `--to kafka://...` given.
        forward: bool,
        /// The stream asked for.
        stream: Stream,
    },
    /// `linerate grab --to` a cluster of `brokers` on the PC (replication
    /// `brokers`, acks=all) for `seconds`, the partition's leader killed a
    /// third of the way in; the topic read back afterwards.
    KafkaFault {
        /// Brokers in the cluster.
        brokers: u32,
        /// The stream's length.
        seconds: u64,
        /// The stream asked for.
        stream: Stream,
    },
    /// `linerate grab` (default backend) of a stream from linerate's
    /// camera, with or without its live view, and with or without one
    /// headless Chromium showing the page.
    View {
        /// The stream asked for.
        stream: Stream,
        /// What of the view runs beside the grab.
        page: Page,
    },
}

/// What a browser's start-up usually takes on a busy 2-core machine, for
/// `--dry-run`'s estimate of a job with the page open.
const BROWSER_START_ESTIMATE: std::time::Duration = std::time::Duration::from_secs(4);

/// What of the live view runs beside a grab, in the view scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Page {
    /// Plain `linerate grab`, no `--view`.
    None,
    /// `--view` serves the page, no browser has it open (the view's
    /// display thread still decimates and encodes at the display rate).
    Served,
    /// `--view` serves the page and one headless Chromium shows it at the
    /// default display rate, off the receiving core (on CPU 0 under
    /// SCHED_IDLE, taking only the time the emulated camera leaves idle),
    /// as on a PC with cores to spare or with the browser on another one.
    Open,
}

impl Page {
    /// Whether a browser has the page open.
    pub fn open(self) -> bool {
        self == Page::Open
    }
}

/// The bed a job needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BedKind {
    /// A sender and the PC on one veth pair at MTU 9000.
    Pair,
    /// Boards and the PC behind a bridge, links limited by tbf.
    Switch {
        /// Number of boards.
        boards: usize,
        /// Link rate, Mbit/s (0: unshaped).
        rate_mbit: u32,
        /// MTU 9000 instead of the standard 1500.
        jumbo: bool,
    },
}

impl Work {
    /// The bed this work runs on.
    pub fn bed(&self) -> BedKind {
        match self {
            Work::Fade {
                boards, rate_mbit, ..
            } => BedKind::Switch {
                boards: *boards,
                rate_mbit: *rate_mbit,
                jumbo: false,
            },
            Work::FadeVersion { rate_mbit, .. } => BedKind::Switch {
                boards: 1,
                rate_mbit: *rate_mbit,
                jumbo: true,
            },
            _ => BedKind::Pair,
        }
    }
}

/// One planned run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Job {
    /// The scenario it belongs to.
    pub scenario: Scenario,
    /// What is measured (`linerate-mmsg`, `aravis`, ...).
    pub implementation: String,
    /// The configuration within the scenario (`8000 B`, `600 fps`).
    pub case: String,
    /// The case's sort key.
    pub case_value: f64,
    /// Repeat number (1-based); 0 for a discarded warm-up run.
    pub repeat: u32,
    /// Part of a rising sweep: once this implementation loses frames, its
    /// later sweep jobs are skipped.
    pub sweep: bool,
    /// The receiving host's setup on a pair bed; `None` for work on the
    /// switch bed, which has its own placement.
    pub host: Option<HostSetup>,
    /// What to start.
    pub work: Work,
}

impl Job {
    /// A job of `scenario`.
    pub fn new(
        scenario: Scenario,
        implementation: &str,
        case: String,
        case_value: f64,
        work: Work,
    ) -> Job {
        Job {
            scenario,
            implementation: implementation.to_owned(),
            case,
            case_value,
            repeat: 1,
            sweep: false,
            host: None,
            work,
        }
    }

    /// Whether this is a warm-up run whose figures are discarded.
    pub fn is_warmup(&self) -> bool {
        self.repeat == 0
    }

    /// About how long the job takes, for `--dry-run`'s estimate: settling,
    /// the window, starting and stopping the programs, and, with a page
    /// open, the browser's start-up.
    pub fn estimated_duration(&self, timing: &crate::config::Timing) -> std::time::Duration {
        let base = timing.settle + timing.window + std::time::Duration::from_secs(3);
        match self.work {
            Work::View { page, .. } if page.open() => base + BROWSER_START_ESTIMATE,
            _ => base,
        }
    }

    /// A short label for progress lines.
    pub fn label(&self) -> String {
        format!(
            "{} {} {}{}{}",
            self.scenario,
            self.implementation,
            self.case,
            self.host.map(|h| format!(" [{h}]")).unwrap_or_default(),
            if self.is_warmup() {
                " (warm-up)".to_owned()
            } else {
                format!(" #{}", self.repeat)
            }
        )
    }
}

/// Who produces in a throughput run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KafkaProducer {
    /// linerate's forwarder (linerate-kafka), as `grab --to` runs it.
    Forwarder,
    /// Apache Kafka's `org.apache.kafka.tools.ProducerPerformance`.
    ProducerPerformance,
}
