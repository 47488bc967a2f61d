//! Three boards sharing one link, simulated: the real board and receiver
//! state machines (`FadeBoard`, `FadeWindow`, `FairShare`, for FADE v1 and
//! FADE-10G) joined by a model of a switch whose port to the host is a
//! drop-tail queue drained at 1 Gbit/s, like the tbf-shaped bridge port of
//! `scripts/bench-fade`. Deterministic, so it checks the controllers
//! themselves, whatever the machine's load.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::marker::PhantomData;

use linerate_fade::board::{BoardConfig, Controller, FadeBoard, Transmit};
use linerate_fade::fair::{FairConfig, FairShare};
use linerate_fade::version::{TenG, Version, V1};
use linerate_fade::window::{FadeWindow, Verdict};
use linerate_wire::fade::ten_g::Command;

/// Time one DATA frame (header and payload: 1048 bytes in v1) takes at
/// 1 Gbit/s as tbf counts it.
fn service_ns<W: Version>() -> u64 {
    (14 + W::DATA_PACKET_LEN as u64) * 8
}
/// A board's own 1 GbE line: the frame plus preamble, FCS and gap.
fn line_gap_ns<W: Version>() -> u64 {
    service_ns::<W>() + 24 * 8
}
/// One-way delay of a cable and switch hop.
const HOP_NS: u64 = 2_000;
/// Host: receive to ACK sent.
const ACK_NS: u64 = 5_000;

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// A board may send.
    Wake(usize),
    /// A frame from board i reaches the switch.
    AtSwitch(usize, Vec<u8>),
    /// The switch port finished sending its head frame to the host.
    Drained,
    /// An ACK reaches board i.
    Ack(usize, Vec<u8>),
}

struct Sim<W: Version> {
    now: u64,
    events: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    boards: Vec<FadeBoard<W>>,
    wake_at: Vec<Option<u64>>,
    windows: Vec<FadeWindow<W>>,
    fair: Option<FairShare>,
    queue: VecDeque<(usize, Vec<u8>)>,
    queue_limit: usize,
    busy: bool,
    drops: u64,
    version: PhantomData<W>,
}

impl<W: Version> Sim<W> {
    fn new(controller: Controller, queue_limit: usize, fixed_timeout: bool) -> Sim<W> {
        let config = BoardConfig {
            min_gap_ns: line_gap_ns::<W>(),
            controller,
            adaptive_timeout: !fixed_timeout,
            fast_retransmit: !fixed_timeout,
            ..BoardConfig::default()
        };
        let boards: Vec<FadeBoard<W>> = (0..3)
            .map(|_| FadeBoard::new(config).expect("board config"))
            .collect();
        let fair_config = FairConfig {
            frame_bits: line_gap_ns::<W>(),
            ..FairConfig::default()
        };
        let fair = (controller == Controller::Fair)
            .then(|| FairShare::new(fair_config, 3).expect("fair config"));
        let mut s = Sim {
            now: 0,
            events: BinaryHeap::new(),
            seq: 0,
            wake_at: vec![None; 3],
            windows: (0..3).map(|_| FadeWindow::new()).collect(),
            boards,
            fair,
            queue: VecDeque::new(),
            queue_limit,
            busy: false,
            drops: 0,
            version: PhantomData,
        };
        let start = W::command(Command::Start, 1, 0).expect("START");
        for i in 0..3 {
            // Boards start 1 ms apart, so the controller has to rebalance.
            let t = i as u64 * 1_000_000;
            s.at(t, Ev::Ack(i, start.to_vec()));
        }
        s
    }

    fn at(&mut self, t: u64, e: Ev) {
        self.seq += 1;
        self.events.push(Reverse((t, self.seq, e)));
    }

    fn poll_board(&mut self, i: usize) {
        let mut buf = vec![0u8; W::DATA_PACKET_LEN];
        loop {
            match self.boards[i].poll_transmit(self.now, &mut buf) {
                Transmit::Send(len) => {
                    // Serialised on the board's own line, then one hop.
                    let t = self.now + line_gap_ns::<W>() + HOP_NS;
                    self.at(t, Ev::AtSwitch(i, buf[..len].to_vec()));
                }
                Transmit::WakeAt(t) => {
                    if self.wake_at[i].map_or(true, |w| w > t || w <= self.now) {
                        self.wake_at[i] = Some(t);
                        self.at(t, Ev::Wake(i));
                    }
                    return;
                }
                Transmit::Idle => return,
            }
        }
    }

    fn start_drain(&mut self) {
        if !self.busy && !self.queue.is_empty() {
            self.busy = true;
            self.at(self.now + service_ns::<W>(), Ev::Drained);
        }
    }

    fn run(&mut self, until: u64) {
        // Peek first: an event popped past `until` would be lost to the
        // next call (a lost `Drained` left the port busy for ever).
        while self
            .events
            .peek()
            .is_some_and(|Reverse((t, _, _))| *t <= until)
        {
            let Some(Reverse((t, _, e))) = self.events.pop() else {
                break;
            };
            self.now = t;
            match e {
                Ev::Wake(i) => {
                    if self.wake_at[i] == Some(t) {
                        self.wake_at[i] = None;
                    }
                    self.poll_board(i);
                }
                Ev::AtSwitch(i, frame) => {
                    if self.queue.len() >= self.queue_limit {
                        self.drops += 1;
                    } else {
                        self.queue.push_back((i, frame));
                        self.start_drain();
                    }
                }
                Ev::Drained => {
                    self.busy = false;
                    if let Some((i, frame)) = self.queue.pop_front() {
                        self.host_receives(i, &frame);
                    }
                    self.start_drain();
                }
                Ev::Ack(i, payload) => {
                    let _ = self.boards[i].on_packet(&payload, t);
                    self.poll_board(i);
                }
            }
        }
    }

    fn host_receives(&mut self, i: usize, frame: &[u8]) {
        if W::parse_response(frame).is_some() {
            return; // A FADE-10G command answer, not data.
        }
        let before = self.windows[i].counters().retransmitted;
        let verdict = self.windows[i].on_data(frame, u64::MAX);
        let retx = self.windows[i].counters().retransmitted > before;
        let mut ack = match verdict {
            Verdict::New { ack, .. } | Verdict::Duplicate { ack } => ack,
            v => panic!("board {i}: {v:?}"),
        };
        if let Some(f) = self.fair.as_mut() {
            f.on_packet(i, retx, self.now);
            W::write_hint(&mut ack, f.gap_ns(i));
        }
        self.at(self.now + HOP_NS + ACK_NS, Ev::Ack(i, ack.to_vec()));
    }

    fn delivered(&self) -> Vec<u64> {
        self.windows
            .iter()
            .map(FadeWindow::delivered_bytes)
            .collect()
    }
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Per-board Mbit/s over the last `window_ns` of `total_ns` simulated.
fn rates(controller: Controller, queue: usize, fixed: bool) -> (Vec<f64>, u64) {
    rates_of::<V1>(controller, queue, fixed)
}

/// [`rates`] for wire version `W`.
fn rates_of<W: Version>(controller: Controller, queue: usize, fixed: bool) -> (Vec<f64>, u64) {
    let (warm, total) = (50_000_000, 250_000_000);
    let mut sim = Sim::<W>::new(controller, queue, fixed);
    sim.run(warm);
    let d0 = sim.delivered();
    sim.run(total);
    let d1 = sim.delivered();
    for (i, b) in sim.boards.iter().enumerate() {
        eprintln!("{controller:?} board {i}: {:?}", b.counters());
    }
    let secs = (total - warm) as f64 / 1e9;
    let r = d0
        .iter()
        .zip(&d1)
        .map(|(a, b)| (b - a) as f64 * 8.0 / secs / 1e6)
        .collect();
    (r, sim.drops)
}

#[test]
fn the_fair_controller_splits_the_link_evenly_and_fills_it() {
    // A shallow queue (64 frames) and a deep one (tbf's 10 ms at 1 Gbit/s).
    for queue in [64, 1192] {
        let (r, drops) = rates(Controller::Fair, queue, false);
        let total: f64 = r.iter().sum();
        let j = jain(&r);
        eprintln!("fair, queue {queue}: {r:?} total {total:.1} Jain {j:.4} drops {drops}");
        assert!(j >= 0.99, "{r:?}");
        // The payload ceiling on a wire is 1024/1072 Gbit/s = 955 Mbit/s.
        assert!(total >= 900.0, "{r:?}");
    }
}

#[test]
fn with_a_short_queue_the_seed_controller_loses_what_ours_keeps() {
    // A switch buffer smaller than the boards' windows: seed 004's boards
    // (fixed timeout, resend on timeout only) overflow it and lose link
    // time to drops and resends; ours paces below it.
    let (seed, seed_drops) = rates(Controller::Seed, 64, true);
    let (fair, fair_drops) = rates(Controller::Fair, 64, false);
    let (s, f): (f64, f64) = (seed.iter().sum(), fair.iter().sum());
    eprintln!(
        "seed {seed:?} ({s:.1}, {seed_drops} drops), fair {fair:?} ({f:.1}, {fair_drops} drops)"
    );
    assert!(seed.iter().all(|&x| x > 0.0), "{seed:?}");
    assert!(f > s * 1.5, "fair {f:.1} vs seed {s:.1}");
    assert!(fair_drops * 10 < seed_drops, "{fair_drops} vs {seed_drops}");
}

#[test]
fn ten_g_boards_share_the_link_evenly_with_the_fair_controller() {
    // FADE-10G frames are 8 times longer: a shallow queue of 32 frames (two
    // boards' windows) and tbf's 10 ms at 1 Gbit/s (151 frames).
    for queue in [32, 151] {
        let (r, drops) = rates_of::<TenG>(Controller::Fair, queue, false);
        let total: f64 = r.iter().sum();
        let j = jain(&r);
        eprintln!("10G fair, queue {queue}: {r:?} total {total:.1} Jain {j:.4} drops {drops}");
        assert!(j >= 0.99, "{r:?}");
        // The payload ceiling on a wire is 8192/8256 Gbit/s = 992 Mbit/s.
        assert!(total >= 900.0, "{r:?}");
    }
}
