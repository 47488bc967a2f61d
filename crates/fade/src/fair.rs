//! The receiver's side of linerate's fair-sharing controller: how much of
//! the shared link each board may use, as a pacing gap to put in its ACKs
//! (`linerate_wire::fade::pacing`).
//!
//! The published FADE boards each adapt their own inter-packet delay to their own
//! retransmissions. Nothing ties the boards together, so when several share
//! one link the one that happens to back off first keeps losing (the FADE
//! paper measured 385/416/87 Mbit/s). Here the host, which sees every board,
//! divides the link instead, and each board only has to obey a number:
//!
//! * Every round (default 2 ms) the host counts each board's DATA packets.
//!   A board that sent nothing for a few rounds is idle and holds no share.
//! * The link's capacity is split max-min fairly (water-filling): a board
//!   that used less than 7/8 of what it was given is limited by something
//!   else (its source, its window) and is given 5/4 of what it used (at
//!   least 1/64 of the link), room to grow; the others split the rest
//!   equally.
//! * A share becomes a gap between packet starts: the bits of one DATA
//!   frame on the wire divided by the share's bits per second.
//! * The capacity divided is the configured rate of the host's link plus
//!   a small overbooking (12 % by default, see
//!   [`FairConfig::overbook_percent`]). It does not follow retransmissions: on a shared host most of them come
//!   from a late receiver or board (a preempted thread misses a timeout),
//!   not from the link, and a first version that cut the capacity by 1/8
//!   whenever more than 1/8 of a round's packets were resends spiralled
//!   down to a tenth of the link on a loaded machine (see docs/fade.md).
//!
//! * The host guards its own queue. Its receive thread reports how long
//!   each frame waited between its receive stamp and the thread holding
//!   it ([`FairShare::on_queue_delay`]), and each time it looked for
//!   frames and found none ([`FairShare::on_queue_empty`]). A queue
//!   stands in the host when even the shortest wait of a round exceeds
//!   [`FairConfig::queue_target_ns`] *and* the thread never found the
//!   queue empty that round: the host, not the link, is the bottleneck,
//!   and every frame's ACK is late by that queue. The capacity is then
//!   cut by 1/16 (at most once per [`QUEUE_HOLD_ROUNDS`] rounds, the time
//!   the cut takes to drain the queue), and otherwise raised again by
//!   1/64 of the link per round, up to the link plus overbooking. Like
//!   CoDel, the minimum tells a standing queue from a passing burst. The
//!   empty queue tells it from a preempted thread: a thread that was off
//!   its core (other work on a busy host) finds every frame late when it
//!   comes back, but then catches up and finds the queue empty, and a
//!   lower rate would not have brought it back sooner. Judged by the
//!   waits alone, such rounds cut the capacity of an unpinned host to a
//!   fraction of the link (docs/fade.md); they are counted as late
//!   rounds instead ([`FairShare::late_rounds`]).
//!
//! The board's part is a register: the gap from the last hinted ACK,
//! which it keeps between its packet starts (see [`crate::board`]). All
//! the arithmetic here is integer; a host does it once per round.

/// Wire bits of one FADE v1 DATA frame: 14-byte header, 1034-byte payload,
/// and 24 bytes of preamble, start delimiter, FCS and inter-frame gap.
pub const V1_FRAME_BITS: u64 = (14 + 1034 + 24) * 8;

/// Why a fair-share configuration is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FairConfigError {
    /// A zero link rate, frame size or round length.
    #[error("fair sharing needs a link rate, frame size and round above 0 (link {link_bits_per_sec} bit/s, frame {frame_bits} bits, round {round_ns} ns)")]
    Zero {
        /// Link rate given.
        link_bits_per_sec: u64,
        /// Frame size given.
        frame_bits: u64,
        /// Round length given.
        round_ns: u64,
    },
}

/// Settings of the share computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FairConfig {
    /// Rate of the link the boards share, in bits/s (the host's link).
    pub link_bits_per_sec: u64,
    /// Wire bits of one DATA frame ([`V1_FRAME_BITS`] for FADE v1).
    pub frame_bits: u64,
    /// How often shares are recomputed, in nanoseconds.
    pub round_ns: u64,
    /// Rounds without a packet after which a board holds no share.
    pub idle_rounds: u32,
    /// Percent by which the shares together may exceed the link. Boards
    /// never keep their pace exactly (an emulator wakes up late, a board
    /// pauses for a resend), and an exact split leaves the link idle each
    /// time one of them is late; a little more than the link keeps a short
    /// queue at the bottleneck instead, which the boards' windows bound and
    /// its FIFO shares evenly.
    pub overbook_percent: u64,
    /// The host's queue guard: the longest the shortest wait of a round
    /// (receive stamp to the receive thread) may be before the capacity
    /// is cut, nanoseconds; 0 turns the guard off.
    pub queue_target_ns: u64,
}

/// Rounds after a queue cut before the guard judges again.
pub const QUEUE_HOLD_ROUNDS: u32 = 4;

impl Default for FairConfig {
    fn default() -> Self {
        FairConfig {
            link_bits_per_sec: 1_000_000_000,
            frame_bits: V1_FRAME_BITS,
            round_ns: 2_000_000,
            idle_rounds: 5,
            overbook_percent: 12,
            queue_target_ns: 10_000,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// DATA packets this round.
    count: u64,
    /// Rounds in a row without a packet.
    idle: u32,
    /// Rounds with packets since the board became active.
    age: u32,
    active: bool,
    /// Share given at the last recomputation, bits/s.
    share_bps: u64,
}

/// The shares of a set of boards (indexed 0..n), recomputed every round.
#[derive(Debug, Clone)]
pub struct FairShare {
    config: FairConfig,
    slots: Vec<Slot>,
    round_start_ns: Option<u64>,
    capacity_bps: u64,
    round_packets: u64,
    round_retransmitted: u64,
    retransmitted: u64,
    rounds: u64,
    /// Link plus overbooking: what the guard raises the capacity back to.
    ceiling_bps: u64,
    /// Shortest queue delay reported this round.
    round_min_delay_ns: Option<u64>,
    /// Whether the receive thread found the queue empty this round.
    round_drained: bool,
    /// Rounds left before the guard may cut again.
    hold: u32,
    queue_cuts: u64,
    late_rounds: u64,
}

impl FairShare {
    /// Shares for `boards` boards, none active yet.
    pub fn new(config: FairConfig, boards: usize) -> Result<FairShare, FairConfigError> {
        if config.link_bits_per_sec == 0 || config.frame_bits == 0 || config.round_ns == 0 {
            return Err(FairConfigError::Zero {
                link_bits_per_sec: config.link_bits_per_sec,
                frame_bits: config.frame_bits,
                round_ns: config.round_ns,
            });
        }
        let ceiling = config
            .link_bits_per_sec
            .saturating_add(config.link_bits_per_sec / 100 * config.overbook_percent.min(100));
        Ok(FairShare {
            config,
            slots: vec![Slot::default(); boards],
            round_start_ns: None,
            capacity_bps: ceiling,
            round_packets: 0,
            round_retransmitted: 0,
            retransmitted: 0,
            rounds: 0,
            ceiling_bps: ceiling,
            round_min_delay_ns: None,
            round_drained: false,
            hold: 0,
            queue_cuts: 0,
            late_rounds: 0,
        })
    }

    /// Records one valid DATA packet from `board` at `now_ns`;
    /// `retransmitted` when its retry field is non-zero. An unknown index
    /// is ignored.
    pub fn on_packet(&mut self, board: usize, retransmitted: bool, now_ns: u64) {
        self.poll(now_ns);
        let n_active = self.active();
        let capacity = self.capacity_bps;
        let Some(s) = self.slots.get_mut(board) else {
            return;
        };
        s.count += 1;
        if !s.active {
            // A board joining gets an equal share at once; the next round
            // settles the rest.
            s.active = true;
            s.idle = 0;
            s.age = 0;
            s.share_bps = capacity / (n_active as u64 + 1);
        }
        self.round_packets += 1;
        self.round_retransmitted += u64::from(retransmitted);
    }

    /// Ends the round if `now_ns` is past it and recomputes the shares.
    /// Returns true when it did.
    pub fn poll(&mut self, now_ns: u64) -> bool {
        let start = *self.round_start_ns.get_or_insert(now_ns);
        if now_ns.saturating_sub(start) < self.config.round_ns {
            return false;
        }
        self.round_start_ns = Some(now_ns);
        self.end_round();
        true
    }

    /// Records how long one frame waited in the host between its receive
    /// stamp and the receive thread holding it, for the queue guard.
    pub fn on_queue_delay(&mut self, delay_ns: u64) {
        let m = self.round_min_delay_ns.get_or_insert(delay_ns);
        *m = (*m).min(delay_ns);
    }

    /// Records that the receive thread looked for frames and found none
    /// waiting: whatever queue there was in the host has drained, so the
    /// waits of this round, however long, come from a thread that was
    /// late (preempted, asleep), not from a queue standing in the host.
    pub fn on_queue_empty(&mut self) {
        self.round_drained = true;
    }

    /// The queue guard at the end of a round: cut the capacity when a
    /// queue stood all round, otherwise let it grow back.
    fn guard_queue(&mut self) {
        let drained = std::mem::take(&mut self.round_drained);
        let Some(min) = self.round_min_delay_ns.take() else {
            return;
        };
        let target = self.config.queue_target_ns;
        if target == 0 {
            return;
        }
        let late = min > target;
        if late && drained {
            self.late_rounds += 1;
        }
        let link = self.config.link_bits_per_sec;
        if self.hold > 0 {
            self.hold -= 1;
        } else if late && !drained {
            self.capacity_bps = (self.capacity_bps - self.capacity_bps / 16).max(link / 16);
            self.hold = QUEUE_HOLD_ROUNDS - 1;
            self.queue_cuts += 1;
        } else {
            self.capacity_bps = (self.capacity_bps + link / 64).min(self.ceiling_bps);
        }
    }

    fn end_round(&mut self) {
        self.rounds += 1;
        self.guard_queue();
        let link = self.config.link_bits_per_sec;
        self.retransmitted += self.round_retransmitted;
        self.round_packets = 0;
        self.round_retransmitted = 0;
        // Bits/s one packet per round stands for.
        let per_packet =
            u128::from(self.config.frame_bits) * 1_000_000_000 / u128::from(self.config.round_ns);
        let idle_rounds = self.config.idle_rounds;
        let mut demands = Vec::with_capacity(self.slots.len());
        for s in &mut self.slots {
            if s.count == 0 {
                s.idle = s.idle.saturating_add(1);
                if s.idle >= idle_rounds {
                    s.active = false;
                    s.share_bps = 0;
                }
            } else {
                s.idle = 0;
                s.age = s.age.saturating_add(1);
            }
            let used = u64::try_from(u128::from(s.count) * per_packet).unwrap_or(u64::MAX);
            s.count = 0;
            demands.push(if !s.active {
                Some(0)
            } else if s.age < 2 || used >= s.share_bps - s.share_bps / 8 {
                // New, or used (nearly) all it had: may want more.
                None
            } else {
                // A floor keeps a board that paused for a moment from
                // being paced to a standstill.
                Some((used + used / 4).max(link / 64).max(1))
            });
        }
        let shares = allocate(self.capacity_bps, &demands);
        for (s, share) in self.slots.iter_mut().zip(shares) {
            s.share_bps = share;
        }
    }

    /// The gap in nanoseconds `board` should keep between its packet
    /// starts: one frame's bits over its share (0 for an unknown board;
    /// `u32::MAX` ns for a share of nothing).
    pub fn gap_ns(&self, board: usize) -> u32 {
        let Some(s) = self.slots.get(board) else {
            return 0;
        };
        // Before its first packet a board has no share; the equal split is
        // the best guess.
        let share = if s.active {
            s.share_bps
        } else {
            self.capacity_bps / (self.active() as u64 + 1)
        };
        if share == 0 {
            return u32::MAX;
        }
        let gap = u128::from(self.config.frame_bits) * 1_000_000_000 / u128::from(share);
        u32::try_from(gap).unwrap_or(u32::MAX)
    }

    /// The share of `board` in bits/s (frame bits, not payload).
    pub fn share_bps(&self, board: usize) -> u64 {
        self.slots.get(board).map_or(0, |s| s.share_bps)
    }

    /// Boards currently holding a share.
    pub fn active(&self) -> usize {
        self.slots.iter().filter(|s| s.active).count()
    }

    /// The capacity now being divided, bits/s.
    pub fn capacity_bps(&self) -> u64 {
        self.capacity_bps
    }

    /// Packets seen with a non-zero retry field (for reports).
    pub fn retransmitted(&self) -> u64 {
        self.retransmitted + self.round_retransmitted
    }

    /// Capacity cuts by the queue guard so far.
    pub fn queue_cuts(&self) -> u64 {
        self.queue_cuts
    }

    /// Rounds in which every frame waited longer than the queue target
    /// but the receive thread still found the queue empty: a late thread
    /// (preempted by other work), which the guard does not cut for.
    pub fn late_rounds(&self) -> u64 {
        self.late_rounds
    }

    /// Rounds completed so far.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }
}

/// Max-min fair split of `capacity` among boards by demand: `None` wants as
/// much as it can get, `Some(d)` at most `d`, `Some(0)` is idle. Boards
/// are served from the smallest demand up; each gets its demand or an
/// equal part of what is left, whichever is less. What no board asked for
/// is then shared equally by the non-idle boards, so a board slowed down
/// for a moment (a preempted emulator, a busy host) is never held back by
/// its own last round when nobody else wants the link. The shares never
/// add up to more than `capacity`.
pub fn allocate(capacity: u64, demands: &[Option<u64>]) -> Vec<u64> {
    let mut order: Vec<usize> = (0..demands.len()).collect();
    order.sort_by_key(|&i| demands[i].unwrap_or(u64::MAX));
    let mut shares = vec![0; demands.len()];
    let mut left = capacity;
    let mut waiting = demands.iter().filter(|d| **d != Some(0)).count() as u64;
    for i in order {
        if demands[i] == Some(0) {
            continue;
        }
        let equal = left / waiting.max(1);
        let give = demands[i].map_or(equal, |d| d.min(equal));
        shares[i] = give;
        left -= give;
        waiting = waiting.saturating_sub(1);
    }
    let busy = demands.iter().filter(|d| **d != Some(0)).count() as u64;
    if let Some(extra) = left.checked_div(busy) {
        for (s, d) in shares.iter_mut().zip(demands) {
            if *d != Some(0) {
                *s += extra;
            }
        }
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUND: u64 = 2_000_000;

    /// Runs `rounds` rounds of boards that send as fast as their gap and
    /// their own limit (`max_bps`, 0 = stopped) allow; returns the packets
    /// each sent in the last round.
    fn run(fair: &mut FairShare, max_bps: &[u64], rounds: u64, t: &mut u64) -> Vec<u64> {
        let mut last = vec![0; max_bps.len()];
        for _ in 0..rounds {
            let mut sent = vec![0u64; max_bps.len()];
            for (i, &max) in max_bps.iter().enumerate() {
                let own = max * ROUND / V1_FRAME_BITS / 1_000_000_000;
                let gap = u64::from(fair.gap_ns(i)).max(1);
                let n = own.min(ROUND / gap);
                for k in 0..n {
                    fair.on_packet(i, false, *t + k * ROUND / n.max(1) / 2);
                }
                sent[i] = n;
            }
            *t += ROUND;
            fair.poll(*t);
            last = sent;
        }
        last
    }

    /// Three boards, exact split (no overbooking), to check the split.
    fn fair3() -> FairShare {
        FairShare::new(
            FairConfig {
                overbook_percent: 0,
                ..FairConfig::default()
            },
            3,
        )
        .expect("config")
    }

    /// One board for `rounds` rounds of 100 packets each, every packet
    /// having waited `delay(round)` in the host; returns the capacity after
    /// each round.
    fn guarded(fair: &mut FairShare, rounds: u64, delay: impl Fn(u64) -> u64) -> Vec<u64> {
        let mut t = 0;
        let mut caps = Vec::new();
        for r in 0..rounds {
            for k in 0..100 {
                fair.on_queue_delay(delay(r) + k);
                fair.on_packet(0, false, t);
                t += ROUND / 100;
            }
            caps.push(fair.capacity_bps());
        }
        caps
    }

    #[test]
    fn a_standing_host_queue_cuts_the_capacity_once_per_hold() {
        let mut f = FairShare::new(FairConfig::default(), 1).expect("config");
        let ceiling = f.capacity_bps();
        // Every frame of every round waited 50 us: a standing queue.
        let caps = guarded(&mut f, 41, |_| 50_000);
        // Round ends are seen at the first packet of the next round, so
        // the first cut shows after round 1; then one per hold.
        let cuts = f.queue_cuts();
        assert_eq!(cuts, 10, "{caps:?}");
        assert!(
            caps.windows(2).all(|w| w[1] <= w[0]),
            "never grows: {caps:?}"
        );
        let expected = (0..cuts).fold(ceiling, |c, _| c - c / 16);
        assert_eq!(f.capacity_bps(), expected);
        // And never below a sixteenth of the link, however long it stands.
        guarded(&mut f, 400, |_| 50_000);
        assert_eq!(f.capacity_bps(), 1_000_000_000 / 16);
    }

    #[test]
    fn a_late_thread_that_catches_up_is_not_a_host_queue() {
        let mut f = FairShare::new(FairConfig::default(), 1).expect("config");
        let ceiling = f.capacity_bps();
        let mut t = 0;
        // Rounds of 100 frames that all waited 500 us (the thread was off
        // its core); with `drained`, the thread then caught up and found
        // the queue empty.
        let mut rounds = |f: &mut FairShare, n: u64, drained: bool| {
            for _ in 0..n {
                for k in 0..100 {
                    f.on_queue_delay(500_000 + k);
                    f.on_packet(0, false, t);
                    t += ROUND / 100;
                }
                if drained {
                    f.on_queue_empty();
                }
            }
        };
        rounds(&mut f, 40, true);
        assert_eq!(f.queue_cuts(), 0);
        assert_eq!(f.capacity_bps(), ceiling);
        assert!(f.late_rounds() >= 38, "{}", f.late_rounds());
        // The same waits without a drain are a standing queue again: the
        // drain of one round does not excuse the next.
        rounds(&mut f, 9, false);
        assert_eq!(f.queue_cuts(), 2);
        assert!(f.capacity_bps() < ceiling);
    }

    #[test]
    fn bursts_do_not_cut_and_the_capacity_grows_back_to_the_ceiling() {
        let mut f = FairShare::new(FairConfig::default(), 1).expect("config");
        let ceiling = f.capacity_bps();
        // A burst: most frames waited long, but one per round did not.
        guarded(&mut f, 20, |_| 0);
        let mut t = 20 * ROUND;
        for _ in 0..20 {
            for k in 0..100u64 {
                f.on_queue_delay(if k == 50 { 2_000 } else { 200_000 });
                f.on_packet(0, false, t);
                t += ROUND / 100;
            }
        }
        assert_eq!(f.queue_cuts(), 0);
        assert_eq!(f.capacity_bps(), ceiling);
        // Cut by a standing queue, then the queue is gone: back up by
        // 1/64 of the link per round, to the ceiling and no further.
        let mut g = FairShare::new(FairConfig::default(), 1).expect("config");
        let caps = guarded(&mut g, 60, |r| if r < 20 { 50_000 } else { 1_000 });
        let low = *caps.iter().min().expect("rounds");
        assert!(low < ceiling - ceiling / 5, "{caps:?}");
        assert_eq!(*caps.last().expect("rounds"), ceiling, "{caps:?}");
        let rises: Vec<u64> = caps
            .windows(2)
            .filter(|w| w[1] > w[0])
            .map(|w| w[1] - w[0])
            .collect();
        assert!(rises.iter().all(|&d| d <= 1_000_000_000 / 64), "{rises:?}");
    }

    #[test]
    fn a_zero_queue_target_turns_the_guard_off() {
        let mut f = FairShare::new(
            FairConfig {
                queue_target_ns: 0,
                ..FairConfig::default()
            },
            1,
        )
        .expect("config");
        let ceiling = f.capacity_bps();
        guarded(&mut f, 40, |_| 1_000_000);
        assert_eq!((f.queue_cuts(), f.capacity_bps()), (0, ceiling));
    }

    #[test]
    fn the_default_overbooks_the_link_by_twelve_percent() {
        let mut f = FairShare::new(FairConfig::default(), 3).expect("config");
        let mut t = 0;
        run(&mut f, &[2_000_000_000; 3], 3, &mut t);
        assert_eq!(f.capacity_bps(), 1_120_000_000);
        // 25 728 ns for an exact third; 1/1.12 of that.
        assert!((0..3).all(|i| f.gap_ns(i).abs_diff(22_971) <= 3));
    }

    #[test]
    fn three_boards_converge_to_equal_shares_within_three_rounds() {
        let mut f = fair3();
        let mut t = 0;
        // Each board could send 1 Gbit/s on its own.
        let sent = run(&mut f, &[1_000_000_000; 3], 3, &mut t);
        let gaps: Vec<u32> = (0..3).map(|i| f.gap_ns(i)).collect();
        // A third of 1 Gbit/s: three frames' time, 3 x 8576 ns.
        assert!(gaps.iter().all(|&g| g.abs_diff(25_728) <= 3), "{gaps:?}");
        assert!(sent.iter().all(|&n| n.abs_diff(sent[0]) <= 1), "{sent:?}");
        assert_eq!(f.active(), 3);
        let total: u64 = (0..3).map(|i| f.share_bps(i)).sum();
        assert!(total <= 1_000_000_000 && total > 999_999_000, "{total}");
    }

    #[test]
    fn a_board_that_stops_frees_its_share() {
        let mut f = fair3();
        let mut t = 0;
        run(&mut f, &[1_000_000_000; 3], 5, &mut t);
        // Board 2 goes silent: after idle_rounds rounds it holds nothing
        // and the others split the link.
        run(&mut f, &[1_000_000_000, 1_000_000_000, 0], 6, &mut t);
        assert_eq!(f.active(), 2);
        assert_eq!(f.share_bps(2), 0);
        for i in 0..2 {
            assert!(f.gap_ns(i).abs_diff(17_152) <= 2, "{}", f.gap_ns(i));
        }
        // It comes back: an equal share again within a few rounds.
        run(&mut f, &[1_000_000_000; 3], 3, &mut t);
        assert_eq!(f.active(), 3);
        assert!((0..3).all(|i| f.gap_ns(i).abs_diff(25_728) <= 3));
    }

    #[test]
    fn a_board_that_needs_less_leaves_the_rest_to_the_others() {
        let mut f = fair3();
        let mut t = 0;
        // Board 0 only has 100 Mbit/s of data: max-min gives it that and
        // the other two about 450 each, instead of a third each.
        run(
            &mut f,
            &[100_000_000, 1_000_000_000, 1_000_000_000],
            10,
            &mut t,
        );
        let s: Vec<u64> = (0..3).map(|i| f.share_bps(i)).collect();
        assert!(s[0] >= 100_000_000 && s[0] <= 130_000_000, "{s:?}");
        assert!(s[1] > 430_000_000 && s[1].abs_diff(s[2]) <= 1, "{s:?}");
        assert!(s.iter().sum::<u64>() <= 1_000_000_000);
    }

    #[test]
    fn retransmissions_do_not_shrink_the_capacity() {
        let mut f = fair3();
        f.poll(0);
        for k in 0..100 {
            f.on_packet(0, k % 2 == 0, 1000 + k);
        }
        f.poll(ROUND);
        assert_eq!(f.capacity_bps(), 1_000_000_000);
        assert_eq!(f.retransmitted(), 50);
        assert_eq!(f.gap_ns(0), 8_576);
    }

    #[test]
    fn allocation_is_max_min_fair_and_never_oversubscribed() {
        assert_eq!(allocate(900, &[None, None, None]), vec![300, 300, 300]);
        assert_eq!(allocate(900, &[Some(100), None, None]), vec![100, 400, 400]);
        assert_eq!(allocate(900, &[Some(0), None, None]), vec![0, 450, 450]);
        assert_eq!(
            allocate(900, &[Some(500), Some(500), Some(500)]),
            vec![300, 300, 300]
        );
        // Nobody wants it all: the rest is shared, nothing is wasted.
        assert_eq!(
            allocate(900, &[Some(100), Some(200), Some(0)]),
            vec![400, 500, 0]
        );
        assert_eq!(allocate(900, &[]), Vec::<u64>::new());
        for caps in [[Some(7), None, Some(1000)], [None, Some(3), Some(3)]] {
            assert!(allocate(1000, &caps).iter().sum::<u64>() <= 1000);
        }
    }

    #[test]
    fn bad_configs_and_unknown_boards_are_handled() {
        assert!(FairShare::new(
            FairConfig {
                link_bits_per_sec: 0,
                ..FairConfig::default()
            },
            1
        )
        .is_err());
        let mut f = fair3();
        f.on_packet(9, true, 0);
        assert_eq!(f.gap_ns(9), 0);
        // No board active yet: the whole link is the first guess.
        assert_eq!(f.gap_ns(0), 8_576);
    }
}
