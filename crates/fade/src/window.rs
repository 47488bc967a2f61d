//! The host's side of FADE for one board: the receive window, as a
//! sans-IO state machine, for both wire versions ([`Window`] speaks v1,
//! [`TenGWindow`] FADE-10G; see [`crate::version`]).
//!
//! A board has at most a window of packets in flight (v1: 32, 10G: 16),
//! starting at its oldest unconfirmed one, and the host has received
//! everything before its own `low` (the first packet it is missing). Hence
//! every DATA packet a working board can send falls in one of two ranges,
//! counted in stream packets, with `W` the window:
//!
//! * `low .. low + W`: new, or a repeat of one received out of order;
//! * `low - W .. low`: a retransmission whose ACK was lost (the host
//!   tolerates `low - 2W .. low`, for copies overtaken on the way).
//!
//! v1 names a packet by its set number (16 bits) and packet number (5 of
//! its 6 bits), which locates it modulo 2^21 stream packets; FADE-10G by a
//! 32-bit packet number, modulo 2^32. Both are plenty to tell the two
//! ranges apart. Anything else (a v1 packet number of 32 or more, a set or
//! packet number the board cannot be sending) means the board and host
//! disagree about the stream, for example because the board restarted:
//! that is fatal, and the caller must send STOP and report the error to the
//! application, as the published kernel driver does.
//!
//! The host ACKs a packet as soon as it is accepted and re-ACKs every
//! duplicate. A new packet that does not fit the caller's ring buffer (the
//! application has not consumed enough) is dropped without an ACK, so the
//! board sends it again later: the ring is the flow control.
//!
//! FADE-10G DATA packets also carry the answer to the host's last command;
//! the window hands each new answer to the caller ([`FadeWindow::take_response`]).

use std::marker::PhantomData;

use linerate_wire::fade::ten_g::CommandResponse;
use linerate_wire::fade::v1::{self, ControlRepr, Tag};
use linerate_wire::fade::CONTROL_LEN;

use crate::version::{TenG, Version, V1};

pub use crate::error::StreamError;

/// What the caller must do with one received DATA payload.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict<'a> {
    /// A new packet: copy `data` to stream offset `offset` in the board's
    /// ring, then send `ack`. Publish [`FadeWindow::delivered_bytes`] only
    /// after the copy.
    New {
        /// Stream packet index.
        index: u64,
        /// Stream byte offset of its data.
        offset: u64,
        /// Its data bytes (1024 or 8192), in the received frame.
        data: &'a [u8],
        /// The ACK payload to send.
        ack: [u8; CONTROL_LEN],
    },
    /// A packet received before: send `ack` again, store nothing. Its
    /// bytes should equal those stored at `offset` when that packet was
    /// new; if they differ, one of the two copies is forged or corrupt,
    /// which the caller reports with [`FadeWindow::record_conflict`].
    Duplicate {
        /// The ACK payload to send.
        ack: [u8; CONTROL_LEN],
        /// Stream byte offset of its data.
        offset: u64,
        /// Its data bytes, in the received frame.
        data: &'a [u8],
    },
    /// A packet that fits no place in a stream of which nothing has
    /// arrived yet: left over from an earlier stream of the board (or
    /// forged). Ignored, no ACK; once data has arrived, such a packet is
    /// [`Verdict::Fatal`].
    Stale,
    /// A new packet beyond the ring's free space: dropped, no ACK.
    NoRoom,
    /// Not a DATA packet of this version: ignored.
    Rejected(linerate_wire::Error),
    /// The stream is broken: send STOP to the board and report the error.
    /// Once fatal, a window stays fatal.
    Fatal(StreamError),
}

/// Counters of one board's stream on the host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowCounters {
    /// DATA packets seen that fit the stream: new, duplicate or no room
    /// (not the stale or impossible ones).
    pub received: u64,
    /// New packets accepted (stored and ACKed).
    pub packets: u64,
    /// Data bytes accepted (`packets` times the packet size, but only the
    /// valid words of a FADE-10G flushed packet).
    pub bytes: u64,
    /// Packets received again after they had been accepted.
    pub duplicates: u64,
    /// ACKs sent again for duplicates.
    pub reacks: u64,
    /// DATA packets the board sent before: v1's retry field says so; in
    /// FADE-10G, whose DATA has no retry field, a packet older than the
    /// newest one seen (boards send new packets in order, so an older one
    /// is a resend, or reordered on the way).
    pub retransmitted: u64,
    /// New packets dropped without ACK because the ring was full.
    pub no_room: u64,
    /// Payloads that were not valid DATA packets of this version.
    pub rejected: u64,
    /// Command responses seen in DATA packets (FADE-10G), each new answer
    /// counted once.
    pub responses: u64,
    /// Duplicates whose bytes differ from the copy received first: one of
    /// them is forged or corrupt. The first copy stays in the ring.
    pub conflicts: u64,
    /// Packets that fit no place before the stream's first packet
    /// arrived (an earlier stream's, or forged), ignored.
    pub stale: u64,
}

/// The receive window of one board speaking wire version `W`.
#[derive(Debug, Clone, Default)]
pub struct FadeWindow<W: Version> {
    low: u64,
    /// Bit i: packet `low + i` has been received.
    have: u32,
    /// One past the newest stream index seen.
    newest: u64,
    counters: WindowCounters,
    fatal: Option<StreamError>,
    last_response: CommandResponse,
    response: Option<CommandResponse>,
    /// Where the stream ends, once a FADE-10G flushed packet said so.
    end: Option<u64>,
    version: PhantomData<W>,
}

/// The receive window of one FADE v1 board.
pub type Window = FadeWindow<V1>;

/// The receive window of one FADE-10G board.
pub type TenGWindow = FadeWindow<TenG>;

// The received-packet bitmap holds one window.
const _: () = assert!(V1::WINDOW <= 32 && TenG::WINDOW <= 32);

impl<W: Version> FadeWindow<W> {
    /// A window expecting stream packet 0.
    pub fn new() -> Self {
        FadeWindow {
            low: 0,
            have: 0,
            newest: 0,
            counters: WindowCounters::default(),
            fatal: None,
            last_response: CommandResponse::NONE,
            response: None,
            end: None,
            version: PhantomData,
        }
    }

    /// A window whose first missing packet is `low`, as if everything
    /// before had arrived: lets tests reach the 32-bit wrap.
    #[cfg(test)]
    fn starting_at(low: u64) -> Self {
        FadeWindow {
            low,
            newest: low,
            ..Self::new()
        }
    }

    /// Counters so far.
    pub fn counters(&self) -> WindowCounters {
        self.counters
    }

    /// The fatal error, if the stream broke.
    pub fn error(&self) -> Option<&StreamError> {
        self.fatal.as_ref()
    }

    /// Packets received in order (everything before the first missing one).
    pub fn delivered_packets(&self) -> u64 {
        self.low
    }

    /// Stream bytes received in order: what may be published to the reader.
    pub fn delivered_bytes(&self) -> u64 {
        let whole = self.low * W::PACKET_BYTES;
        self.end.map_or(whole, |e| whole.min(e))
    }

    /// The stream's length, once its flushed last packet (FADE-10G) has
    /// arrived: no data follows. `None` while the stream may go on.
    pub fn end_bytes(&self) -> Option<u64> {
        self.end
    }

    /// Whether the stream ended and every byte of it was delivered.
    pub fn is_ended(&self) -> bool {
        self.end.is_some_and(|e| self.delivered_bytes() >= e)
    }

    /// The command response the last DATA packets brought, once per new
    /// answer (FADE-10G; always `None` in v1).
    pub fn take_response(&mut self) -> Option<CommandResponse> {
        self.response.take()
    }

    /// Judges one FADE payload from the board. `room_bytes` is the stream
    /// offset the ring can hold data up to (the reader's tail plus the ring
    /// length); a new packet ending beyond it gets [`Verdict::NoRoom`].
    pub fn on_data<'a>(&mut self, payload: &'a [u8], room_bytes: u64) -> Verdict<'a> {
        let d = match W::parse_data(payload) {
            Ok(d) => d,
            Err(e) => {
                self.counters.rejected += 1;
                return Verdict::Rejected(e);
            }
        };
        if let Some(e) = &self.fatal {
            return Verdict::Fatal(e.clone());
        }
        let Some(wire) = d.wire_index else {
            return self.fail(W::impossible(d.label, self.low));
        };
        let ahead = wire.wrapping_sub(self.low) % W::INDEX_MODULUS;
        let behind = self.low.wrapping_sub(wire) % W::INDEX_MODULUS;
        let index = if ahead < W::WINDOW {
            self.low + ahead
        } else if (1..=2 * W::WINDOW).contains(&behind) && behind <= self.low {
            self.low - behind
        } else if self.counters.packets == 0 {
            self.counters.stale += 1;
            return Verdict::Stale;
        } else {
            return self.fail(W::impossible(d.label, self.low));
        };
        self.counters.received += 1;
        // Answers ride in placed packets only: a stale one's belongs to
        // an earlier stream.
        if let Some(r) = d.response {
            if r != self.last_response {
                self.last_response = r;
                self.response = Some(r);
                self.counters.responses += 1;
            }
        }
        let resent = d.retransmitted.unwrap_or(index + 1 < self.newest);
        self.newest = self.newest.max(index + 1);
        if resent {
            self.counters.retransmitted += 1;
        }
        let offset = index * W::PACKET_BYTES;
        if index < self.low {
            return self.duplicate(d.ack, offset, d.data);
        }
        let bit = 1u32 << ahead;
        if self.have & bit != 0 {
            return self.duplicate(d.ack, offset, d.data);
        }
        if offset + W::PACKET_BYTES > room_bytes {
            self.counters.no_room += 1;
            return Verdict::NoRoom;
        }
        if d.last {
            self.end = Some(offset + d.data.len() as u64);
        }
        self.have |= bit;
        while self.have & 1 != 0 {
            self.have >>= 1;
            self.low += 1;
        }
        self.counters.packets += 1;
        self.counters.bytes += d.data.len() as u64;
        Verdict::New {
            index,
            offset,
            data: d.data,
            ack: d.ack,
        }
    }

    fn duplicate<'a>(
        &mut self,
        ack: [u8; CONTROL_LEN],
        offset: u64,
        data: &'a [u8],
    ) -> Verdict<'a> {
        self.counters.duplicates += 1;
        self.counters.reacks += 1;
        Verdict::Duplicate { ack, offset, data }
    }

    /// Counts a duplicate whose bytes differ from the stored copy (the
    /// caller compares: it holds the stored bytes).
    pub fn record_conflict(&mut self) {
        self.counters.conflicts += 1;
    }

    fn fail(&mut self, e: StreamError) -> Verdict<'static> {
        self.fatal = Some(e.clone());
        Verdict::Fatal(e)
    }
}

/// The v1 ACK payload confirming `tag` (bytes 2..6 of the DATA, echoed).
pub fn ack(tag: Tag) -> [u8; 64] {
    control(ControlRepr::Ack(tag))
}

/// A v1 control payload (START, STOP, RESET...), 64 bytes as the driver
/// sends. For either version, see [`Version::command`].
pub fn control(c: ControlRepr) -> [u8; 64] {
    let mut out = [0u8; 64];
    // A 64-byte buffer always holds a control packet.
    let _ = v1::Repr::Control(c).emit(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, BoardConfig, BoardPoll};
    use crate::stream;
    use linerate_wire::fade::v1::{DataRepr, DATA_LEN};
    use proptest::prelude::*;

    fn pkt(set: u16, packet: u8, retry: u16) -> Vec<u8> {
        let d = [7u8; DATA_LEN];
        v1::Repr::Data(DataRepr {
            tag: Tag::new(set, packet, retry).expect("tag"),
            delay: 0,
            data: &d,
        })
        .to_vec()
    }

    fn kind(v: &Verdict<'_>) -> &'static str {
        match v {
            Verdict::New { .. } => "new",
            Verdict::Duplicate { .. } => "dup",
            Verdict::NoRoom => "noroom",
            Verdict::Rejected(_) => "rejected",
            Verdict::Fatal(_) => "fatal",
            Verdict::Stale => "stale",
        }
    }

    #[test]
    fn accepts_out_of_order_delivers_in_order_and_reacks_duplicates() {
        let mut w = Window::new();
        assert_eq!(kind(&w.on_data(&pkt(0, 1, 0), u64::MAX)), "new");
        assert_eq!(w.delivered_packets(), 0);
        assert_eq!(kind(&w.on_data(&pkt(0, 1, 1), u64::MAX)), "dup");
        match w.on_data(&pkt(0, 0, 0), u64::MAX) {
            Verdict::New {
                index, offset, ack, ..
            } => {
                assert_eq!((index, offset), (0, 0));
                assert_eq!(&ack[..6], &[0, 3, 0, 0, 0, 0]);
            }
            v => panic!("{v:?}"),
        }
        assert_eq!(w.delivered_bytes(), 2048);
        // A retransmission of packet 0 after its ACK was lost.
        match w.on_data(&pkt(0, 0, 3), u64::MAX) {
            Verdict::Duplicate { ack, .. } => assert_eq!(&ack[..6], &[0, 3, 0, 0, 0, 3]),
            v => panic!("{v:?}"),
        }
        let c = w.counters();
        assert_eq!(
            (c.packets, c.duplicates, c.reacks, c.retransmitted),
            (2, 2, 2, 2)
        );
    }

    #[test]
    fn a_duplicate_says_where_its_first_copy_lies() {
        let mut w = Window::new();
        for p in 0..40u16 {
            let _ = w.on_data(&pkt(p / 32, (p % 32) as u8, 0), u64::MAX);
        }
        // Packet 5 again (behind), then packet 39 again: each names the
        // offset of the stored copy and hands over its own bytes.
        for (set, p, index) in [(0u16, 5u8, 5u64), (1, 7, 39)] {
            match w.on_data(&pkt(set, p, 1), u64::MAX) {
                Verdict::Duplicate { offset, data, .. } => {
                    assert_eq!(offset, index * 1024);
                    assert_eq!(data, &[7u8; DATA_LEN][..]);
                }
                v => panic!("{v:?}"),
            }
        }
        assert_eq!(w.counters().conflicts, 0, "the caller compares");
        w.record_conflict();
        assert_eq!(w.counters().conflicts, 1);
    }

    #[test]
    fn a_full_ring_drops_without_ack() {
        let mut w = Window::new();
        assert_eq!(kind(&w.on_data(&pkt(0, 0, 0), 1024)), "new");
        assert_eq!(kind(&w.on_data(&pkt(0, 1, 0), 1024)), "noroom");
        assert_eq!(kind(&w.on_data(&pkt(0, 1, 0), 2048)), "new");
        assert_eq!(w.counters().no_room, 1);
    }

    #[test]
    fn a_restarted_board_is_fatal_and_stays_fatal() {
        let mut w = Window::new();
        for i in 0..(40 * 32) {
            let p = pkt((i / 32) as u16, (i % 32) as u8, 0);
            let v = w.on_data(&p, u64::MAX);
            assert_eq!(kind(&v), "new");
        }
        // The board restarted: set 0 again, far behind set 40.
        match w.on_data(&pkt(0, 0, 0), u64::MAX) {
            Verdict::Fatal(StreamError::ImpossibleSet {
                set: 0,
                expected_set: 40,
                ..
            }) => {}
            v => panic!("{v:?}"),
        }
        // Even a packet that would have been fine is refused now.
        let p = pkt(40, 0, 0);
        assert_eq!(kind(&w.on_data(&p, u64::MAX)), "fatal");
        let e = w.error().expect("error").to_string();
        assert!(e.contains("set 0") && e.contains("restart"), "{e}");
    }

    #[test]
    fn far_future_sets_and_big_packet_numbers_are_fatal() {
        let mut w = Window::new();
        // Before the first packet: an earlier stream's, ignored.
        assert_eq!(kind(&w.on_data(&pkt(2, 0, 0), u64::MAX)), "stale");
        assert_eq!(w.counters().stale, 1);
        assert_eq!(w.counters().received, 0);
        assert_eq!(kind(&w.on_data(&pkt(0, 0, 0), u64::MAX)), "new");
        assert_eq!(kind(&w.on_data(&pkt(2, 0, 0), u64::MAX)), "fatal");
        let mut w = Window::new();
        assert_eq!(kind(&w.on_data(&pkt(0, 33, 0), u64::MAX)), "fatal");
        let mut w = Window::new();
        assert_eq!(kind(&w.on_data(&[0xa5, 0xa5, 0, 0], u64::MAX)), "rejected");
        assert_eq!(w.error(), None);
    }

    #[test]
    fn set_numbers_wrap_at_65536() {
        let mut w = Window::new();
        let total = 65536u64 * 32 + 64;
        for i in 0..total {
            let p = pkt((i / 32) as u16, (i % 32) as u8, 0);
            let v = w.on_data(&p, u64::MAX);
            assert_eq!(kind(&v), "new", "packet {i}");
        }
        assert_eq!(w.delivered_packets(), total);
        // The last set before the wrap point is far behind now: fatal.
        let p = pkt(65535, 0, 0);
        assert_eq!(kind(&w.on_data(&p, u64::MAX)), "fatal");
    }

    proptest! {
        /// No payload, however malformed, panics the window; the counters
        /// account for it one way or another.
        #[test]
        fn any_bytes_are_judged(
            bytes in proptest::collection::vec(any::<u8>(), 0..1100),
            set in any::<u16>(), packet in 0u8..64, low in 0u64..5000,
        ) {
            let mut w = Window::new();
            for i in 0..low {
                let p = pkt((i / 32) as u16, (i % 32) as u8, 0);
                let _ = w.on_data(&p, u64::MAX);
            }
            let _ = w.on_data(&bytes, u64::MAX);
            let p = pkt(set, packet, 0);
            let _ = w.on_data(&p, u64::MAX);
            let c = w.counters();
            prop_assert!(c.packets + c.duplicates <= c.received);
            prop_assert_eq!(c.bytes, c.packets * 1024);
        }

        /// Board and window on a lossy, reordering link: every byte is
        /// delivered once, in order, and the stream verifies.
        #[test]
        fn board_and_window_agree_through_loss(seed in any::<u64>(), loss in 0u32..30) {
            let mut rng = seed | 1;
            let mut next = move || { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; rng };
            let packets = 300u64;
            let mut board = Board::new(BoardConfig { limit_bytes: Some(packets * 1024), ..BoardConfig::default() }).expect("board");
            board.handle_packet(&control(ControlRepr::Start), 0).expect("start");
            let mut w = Window::new();
            let mut ring = vec![0u8; (packets * 1024) as usize];
            let mut now = 0;
            let mut buf = [0u8; 1034];
            let mut in_flight: Vec<(u64, Vec<u8>)> = Vec::new();
            let mut sent = 0u64;
            for _ in 0..500_000 {
                if board.is_done() { break; }
                match board.poll_transmit(now, &mut buf) {
                    BoardPoll::Send(n) => {
                        sent += 1;
                        if (next() % 100) as u32 >= loss { in_flight.push((sent, buf[..n].to_vec())); }
                    }
                    BoardPoll::WaitUntil(t) => now = t,
                    BoardPoll::Idle => prop_assert!(false, "idle before done"),
                }
                // Deliver a random one of the few oldest in-flight packets,
                // so order varies by a few places, as on a real link
                // (Ethernet does not hold a packet back for a whole window).
                while !in_flight.is_empty() {
                    let overdue = in_flight.first().is_some_and(|(at, _)| at + 4 <= sent);
                    if !overdue && next() % 3 == 0 { break; }
                    let pick = if overdue { 0 } else { (next() % in_flight.len() as u64) as usize };
                    let (_, p) = in_flight.remove(pick);
                    let ack = match w.on_data(&p, u64::MAX) {
                        Verdict::New { offset, data, ack, .. } => {
                            ring[offset as usize..offset as usize + 1024].copy_from_slice(data);
                            Some(ack)
                        }
                        Verdict::Duplicate { ack, .. } => Some(ack),
                        v => { prop_assert!(false, "{:?}", v); None }
                    };
                    if let Some(a) = ack {
                        if (next() % 100) as u32 >= loss { board.handle_packet(&a, now).expect("ack"); }
                    }
                    if !overdue { break; }
                }
            }
            prop_assert!(board.is_done());
            prop_assert_eq!(w.delivered_packets(), packets);
            prop_assert_eq!(stream::mismatches(0, &ring), 0);
        }
    }

    mod ten_g {
        use super::super::*;
        use crate::board::{BoardConfig, BoardPoll, TenGBoard};
        use crate::stream;
        use linerate_wire::fade::ten_g::{self as wire, CommandResponse, DataRepr, Repr};
        use proptest::prelude::*;

        fn pkt(number: u32, seq: u16) -> Vec<u8> {
            pkt_with(number, seq, CommandResponse::NONE)
        }

        fn pkt_with(number: u32, seq: u16, response: CommandResponse) -> Vec<u8> {
            let d = [(number % 251) as u8; wire::DATA_LEN];
            Repr::Data(DataRepr {
                flushed: false,
                seq,
                packet_number: number,
                delay: 0,
                response,
                data: &d,
            })
            .to_vec()
        }

        fn kind(v: &Verdict<'_>) -> &'static str {
            match v {
                Verdict::New { .. } => "new",
                Verdict::Duplicate { .. } => "dup",
                Verdict::NoRoom => "noroom",
                Verdict::Rejected(_) => "rejected",
                Verdict::Fatal(_) => "fatal",
                Verdict::Stale => "stale",
            }
        }

        #[test]
        fn a_window_of_16_acks_by_packet_number_and_reacks_duplicates() {
            let mut w = TenGWindow::new();
            // Packets 1..=15 ahead of the missing 0: all inside the window.
            for n in 1..16 {
                assert_eq!(kind(&w.on_data(&pkt(n, n as u16), u64::MAX)), "new", "{n}");
            }
            assert_eq!(w.delivered_packets(), 0);
            // 16 ahead of the first missing packet: beyond the window.
            let mut w2 = w.clone();
            match w2.on_data(&pkt(16, 16), u64::MAX) {
                Verdict::Fatal(StreamError::OutOfWindow {
                    packet_number: 16,
                    expected: 0,
                }) => {}
                v => panic!("{v:?}"),
            }
            // A duplicate inside the window is ACKed again, echoing its seq.
            match w.on_data(&pkt(3, 99), u64::MAX) {
                Verdict::Duplicate { ack, .. } => {
                    assert_eq!(&ack[..14], &[1, 0, 0, 3, 0, 99, 0, 0, 0, 3, 0, 0, 0, 0]);
                }
                v => panic!("{v:?}"),
            }
            match w.on_data(&pkt(0, 16), u64::MAX) {
                Verdict::New {
                    index,
                    offset,
                    data,
                    ack,
                } => {
                    assert_eq!((index, offset, data.len()), (0, 0, 8192));
                    assert_eq!(&ack[4..10], &[0, 16, 0, 0, 0, 0]);
                }
                v => panic!("{v:?}"),
            }
            assert_eq!(w.delivered_bytes(), 16 * 8192);
            // Late copies of delivered packets are re-ACKed, up to 32 back.
            assert_eq!(kind(&w.on_data(&pkt(0, 17), u64::MAX)), "dup");
            assert_eq!(kind(&w.on_data(&pkt(15, 18), u64::MAX)), "dup");
            let c = w.counters();
            assert_eq!((c.packets, c.duplicates, c.reacks), (16, 3, 3));
            // Packets older than the newest seen count as resends: the
            // duplicate 3, packet 0 after 15, and its late copy.
            assert_eq!(c.retransmitted, 3);
        }

        #[test]
        fn packet_numbers_wrap_at_2_pow_32() {
            let start = (1u64 << 32) - 8;
            let mut w = TenGWindow::starting_at(start);
            for i in start..start + 40 {
                let p = pkt(i as u32, 0);
                match w.on_data(&p, u64::MAX) {
                    Verdict::New { index, offset, .. } => {
                        assert_eq!(index, i);
                        assert_eq!(offset, i * 8192);
                    }
                    v => panic!("packet {i}: {v:?}"),
                }
            }
            assert_eq!(w.delivered_packets(), start + 40);
            // Packet numbers 2 and 0 (after the wrap, 30 and 32 behind the
            // window): late duplicates.
            assert_eq!(kind(&w.on_data(&pkt(2, 1), u64::MAX)), "dup");
            assert_eq!(kind(&w.on_data(&pkt(0, 1), u64::MAX)), "dup");
            // 0xffff_ffff, before the wrap, is 33 behind: impossible.
            match w.on_data(&pkt(0xffff_ffff, 1), u64::MAX) {
                Verdict::Fatal(StreamError::OutOfWindow {
                    packet_number: 0xffff_ffff,
                    expected: 32,
                }) => {}
                v => panic!("{v:?}"),
            }
        }

        #[test]
        fn a_restarted_board_is_fatal_and_stays_fatal() {
            let mut w = TenGWindow::new();
            for n in 0..100 {
                assert_eq!(kind(&w.on_data(&pkt(n, n as u16), u64::MAX)), "new");
            }
            match w.on_data(&pkt(0, 0), u64::MAX) {
                Verdict::Fatal(e @ StreamError::OutOfWindow { .. }) => {
                    let text = e.to_string();
                    assert!(
                        text.contains("packet number 0") && text.contains("restart"),
                        "{text}"
                    );
                }
                v => panic!("{v:?}"),
            }
            assert_eq!(kind(&w.on_data(&pkt(100, 100), u64::MAX)), "fatal");
            // Version mismatch or garbage is rejected, not fatal.
            let mut w = TenGWindow::new();
            assert_eq!(kind(&w.on_data(&[0, 1, 0, 0], u64::MAX)), "rejected");
            assert_eq!(w.error(), None);
        }

        #[test]
        fn responses_are_handed_over_once_each() {
            let mut w = TenGWindow::new();
            let r = CommandResponse {
                code: 0x100,
                seq: 3,
                data: [1; 8],
            };
            assert_eq!(kind(&w.on_data(&pkt(0, 0), u64::MAX)), "new");
            assert_eq!(w.take_response(), None);
            assert_eq!(kind(&w.on_data(&pkt_with(1, 1, r), u64::MAX)), "new");
            // Carried by later packets (and duplicates) too: reported once.
            assert_eq!(kind(&w.on_data(&pkt_with(1, 2, r), u64::MAX)), "dup");
            assert_eq!(kind(&w.on_data(&pkt_with(2, 3, r), u64::MAX)), "new");
            assert_eq!(w.take_response(), Some(r));
            assert_eq!(w.take_response(), None);
            assert_eq!(w.counters().responses, 1);
        }

        #[test]
        fn a_flushed_packet_ends_the_stream_at_its_word_count() {
            let mut w = TenGWindow::new();
            assert_eq!(kind(&w.on_data(&pkt(0, 0), u64::MAX)), "new");
            // Packet 2 is flushed with 5 valid words; packet 1 still missing.
            let mut last = pkt(2, 2);
            last[3] = 0xa6;
            let n = last.len();
            last[n - 8..].copy_from_slice(&5u64.to_be_bytes());
            match w.on_data(&last, u64::MAX) {
                Verdict::New { offset, data, .. } => {
                    assert_eq!((offset, data.len()), (2 * 8192, 40));
                }
                v => panic!("{v:?}"),
            }
            assert_eq!(w.end_bytes(), Some(2 * 8192 + 40));
            assert!(!w.is_ended(), "packet 1 is missing");
            assert_eq!(w.delivered_bytes(), 8192);
            assert_eq!(kind(&w.on_data(&pkt(1, 3), u64::MAX)), "new");
            assert!(w.is_ended());
            assert_eq!(w.delivered_bytes(), 2 * 8192 + 40);
            assert_eq!(w.counters().bytes, 2 * 8192 + 40);
            // A count that leaves no room for itself is refused, not stored.
            let mut bad = pkt(3, 4);
            bad[3] = 0xa6;
            bad[n - 8..].copy_from_slice(&1024u64.to_be_bytes());
            let mut w = TenGWindow::new();
            assert_eq!(kind(&w.on_data(&bad, u64::MAX)), "rejected");
        }

        #[test]
        fn a_full_ring_drops_without_ack() {
            let mut w = TenGWindow::new();
            assert_eq!(kind(&w.on_data(&pkt(0, 0), 8192)), "new");
            assert_eq!(kind(&w.on_data(&pkt(1, 1), 8192)), "noroom");
            assert_eq!(kind(&w.on_data(&pkt(1, 2), 16384)), "new");
            assert_eq!(w.counters().no_room, 1);
        }

        proptest! {
            /// No payload panics a FADE-10G window; the counters add up.
            #[test]
            fn any_bytes_are_judged(
                bytes in proptest::collection::vec(any::<u8>(), 0..8300),
                number in any::<u32>(), low in 0u64..200,
            ) {
                let mut w = TenGWindow::new();
                for i in 0..low {
                    let p = pkt(i as u32, 0);
                    let _ = w.on_data(&p, u64::MAX);
                }
                let _ = w.on_data(&bytes, u64::MAX);
                let p = pkt(number, 0);
                let _ = w.on_data(&p, u64::MAX);
                let c = w.counters();
                prop_assert!(c.packets + c.duplicates <= c.received);
                prop_assert!(c.bytes <= c.packets * 8192);
            }

            /// A FADE-10G board and window on a lossy, reordering link,
            /// starting just before the 32-bit wrap: every byte is
            /// delivered once, in order, and the stream verifies.
            #[test]
            fn board_and_window_agree_through_loss_and_the_wrap(seed in any::<u64>(), loss in 0u32..30) {
                let mut rng = seed | 1;
                let mut next = move || { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; rng };
                let packets = 120u64;
                let first = (1u64 << 32) - 50;
                // The stream ends 1000 bytes short of a whole packet: its
                // last packet is flushed, with 899 valid words.
                let limit = (first + packets) * 8192 - 1000;
                let mut board = TenGBoard::new(BoardConfig { limit_bytes: Some(limit), ..BoardConfig::default() }).expect("board");
                board.start_at(first);
                let start = TenG::command(wire::Command::Start, 1, 0).expect("start");
                board.handle_packet(&start, 0).expect("start");
                let mut w = TenGWindow::starting_at(first);
                let mut ring = vec![0u8; (packets * 8192) as usize];
                let mut now = 0;
                let mut buf = vec![0u8; 9000];
                let mut in_flight: Vec<(u64, Vec<u8>)> = Vec::new();
                let mut sent = 0u64;
                for _ in 0..200_000 {
                    if board.is_done() { break; }
                    match board.poll_transmit(now, &mut buf) {
                        BoardPoll::Send(n) => {
                            sent += 1;
                            if (next() % 100) as u32 >= loss { in_flight.push((sent, buf[..n].to_vec())); }
                        }
                        BoardPoll::WaitUntil(t) => now = t,
                        BoardPoll::Idle => prop_assert!(false, "idle before done"),
                    }
                    while !in_flight.is_empty() {
                        let overdue = in_flight.first().is_some_and(|(at, _)| at + 4 <= sent);
                        if !overdue && next() % 3 == 0 { break; }
                        let pick = if overdue { 0 } else { (next() % in_flight.len() as u64) as usize };
                        let (_, p) = in_flight.remove(pick);
                        let ack = match w.on_data(&p, u64::MAX) {
                            Verdict::New { offset, data, ack, .. } => {
                                let at = (offset - first * 8192) as usize;
                                ring[at..at + data.len()].copy_from_slice(data);
                                Some(ack)
                            }
                            Verdict::Duplicate { ack, .. } => Some(ack),
                            Verdict::Rejected(_) => None, // the START answer, in a response packet
                            v => { prop_assert!(false, "{:?}", v); None }
                        };
                        if let Some(a) = ack {
                            if (next() % 100) as u32 >= loss { board.handle_packet(&a, now).expect("ack"); }
                        }
                        if !overdue { break; }
                    }
                }
                prop_assert!(board.is_done());
                prop_assert_eq!(w.delivered_packets(), first + packets);
                prop_assert!(w.is_ended());
                prop_assert_eq!(w.end_bytes(), Some(limit));
                prop_assert_eq!(w.delivered_bytes(), limit);
                let valid = (limit - first * 8192) as usize;
                prop_assert_eq!(stream::mismatches(first * 8192, &ring[..valid]), 0);
                prop_assert!(ring[valid..].iter().all(|&b| b == 0), "nothing stored past the end");
            }
        }
    }
}
