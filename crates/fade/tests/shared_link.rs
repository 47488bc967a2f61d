//! Three boards sharing one link, simulated: the real board and receiver
//! state machines (`Board`, `Window`, `FairShare`) joined by a model of a
//! switch whose port to the host is a drop-tail queue drained at 1 Gbit/s,
//! like the tbf-shaped bridge port of `scripts/bench-fade`. Deterministic,
//! so it checks the controllers themselves, whatever the machine's load.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use linerate_fade::board::{Board, BoardConfig, Controller, Transmit};
use linerate_fade::fair::{FairConfig, FairShare};
use linerate_fade::window::{Verdict, Window};
use linerate_wire::fade::pacing;

/// Time one 1048-byte DATA frame takes at 1 Gbit/s as tbf counts it.
const SERVICE_NS: u64 = 1048 * 8;
/// A board's own 1 GbE line: the frame plus preamble, FCS and gap.
const LINE_GAP_NS: u64 = 1072 * 8;
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

struct Sim {
    now: u64,
    events: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    boards: Vec<Board>,
    wake_at: Vec<Option<u64>>,
    windows: Vec<Window>,
    fair: Option<FairShare>,
    queue: VecDeque<(usize, Vec<u8>)>,
    queue_limit: usize,
    busy: bool,
    drops: u64,
}

impl Sim {
    fn new(controller: Controller, queue_limit: usize, fixed_timeout: bool) -> Sim {
        let config = BoardConfig {
            min_gap_ns: LINE_GAP_NS,
            controller,
            adaptive_timeout: !fixed_timeout,
            fast_retransmit: !fixed_timeout,
            ..BoardConfig::default()
        };
        let boards: Vec<Board> = (0..3)
            .map(|_| Board::new(config).expect("board config"))
            .collect();
        let fair = (controller == Controller::Fair)
            .then(|| FairShare::new(FairConfig::default(), 3).expect("fair config"));
        let mut s = Sim {
            now: 0,
            events: BinaryHeap::new(),
            seq: 0,
            wake_at: vec![None; 3],
            windows: (0..3).map(|_| Window::new()).collect(),
            boards,
            fair,
            queue: VecDeque::new(),
            queue_limit,
            busy: false,
            drops: 0,
        };
        let start = linerate_fade::window::control(linerate_wire::fade::v1::ControlRepr::Start);
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
        let mut buf = vec![0u8; 1034];
        loop {
            match self.boards[i].poll_transmit(self.now, &mut buf) {
                Transmit::Send(len) => {
                    // Serialised on the board's own line, then one hop.
                    let t = self.now + LINE_GAP_NS + HOP_NS;
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
            self.at(self.now + SERVICE_NS, Ev::Drained);
        }
    }

    fn run(&mut self, until: u64) {
        while let Some(Reverse((t, _, e))) = self.events.pop() {
            if t > until {
                break;
            }
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
        let before = self.windows[i].counters().retransmitted;
        let verdict = self.windows[i].on_data(frame, u64::MAX);
        let retx = self.windows[i].counters().retransmitted > before;
        let mut ack = match verdict {
            Verdict::New { ack, .. } | Verdict::Duplicate { ack } => ack,
            v => panic!("board {i}: {v:?}"),
        };
        if let Some(f) = self.fair.as_mut() {
            f.on_packet(i, retx, self.now);
            pacing::write_hint(&mut ack, f.gap_ns(i));
        }
        self.at(self.now + HOP_NS + ACK_NS, Ev::Ack(i, ack.to_vec()));
    }

    fn delivered(&self) -> Vec<u64> {
        self.windows.iter().map(Window::delivered_bytes).collect()
    }
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Per-board Mbit/s over the last `window_ns` of `total_ns` simulated.
fn rates(controller: Controller, queue: usize, fixed: bool) -> (Vec<f64>, u64) {
    let (warm, total) = (50_000_000, 250_000_000);
    let mut sim = Sim::new(controller, queue, fixed);
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
