//! The host's side of FADE v1 for one board: the receive window, as a
//! sans-IO state machine.
//!
//! A board has at most [`WINDOW`] packets in flight, starting at its oldest
//! unconfirmed one, and the host has received everything before its own
//! `low` (the first packet it is missing). Hence every DATA packet a
//! working board can send falls in one of two ranges, counted in stream
//! packets:
//!
//! * `low .. low + 32`: new, or a repeat of one received out of order;
//! * `low - 32 .. low`: a retransmission whose ACK was lost (the host
//!   tolerates `low - 64 .. low`, for copies overtaken on the way).
//!
//! The set number (16 bits) and packet number (5 of its 6 bits) locate a
//! packet modulo 2^21 stream packets, which is plenty to tell the two
//! ranges apart. Anything else (a packet number of 32 or more, a set the
//! board cannot be sending) means the board and host disagree about the
//! stream, for example because the board restarted: that is fatal, and the
//! caller must send STOP and report the error to the application, as seed
//! 004's driver does.
//!
//! The host ACKs a packet as soon as it is accepted and re-ACKs every
//! duplicate. A new packet that does not fit the caller's ring buffer (the
//! application has not consumed enough) is dropped without an ACK, so the
//! board sends it again later: the ring is the flow control.

use linerate_wire::fade::v1::{self, ControlRepr, DataPacket, DataRepr, Tag, DATA_LEN};

use crate::board::{PACKET_BYTES, WINDOW};

/// How far behind `low` a packet may be and still count as a late
/// duplicate: a copy overtaken on the way by the copy that was ACKed can
/// arrive a little after the board moved on, so, like seed 004's driver,
/// the host tolerates the whole set before the window.
const LATE_WINDOW: u64 = 2 * WINDOW;

/// Stream packets the 21 bits of (set, packet) can tell apart.
const INDEX_MODULUS: u64 = 1 << 21;

/// A packet that proves the board and host disagree about the stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// A packet from a set the board cannot be sending now.
    #[error("packet {packet} of set {set} is impossible: expected set {expected_set} (or the one before or after); did the board restart?")]
    ImpossibleSet {
        /// Its set number.
        set: u16,
        /// Its packet number.
        packet: u8,
        /// The set of the first missing packet.
        expected_set: u16,
    },
    /// A packet number beyond the 32 packets of a set.
    #[error("packet number {packet} of set {set} is beyond the 32 packets of a set")]
    PacketNumber {
        /// Its set number.
        set: u16,
        /// Its packet number.
        packet: u8,
    },
}

/// What the caller must do with one received DATA payload.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict<'a> {
    /// A new packet: copy `data` to stream offset `offset` in the board's
    /// ring, then send `ack`. Publish [`Window::delivered_bytes`] only after
    /// the copy.
    New {
        /// Stream packet index.
        index: u64,
        /// Stream byte offset of its data.
        offset: u64,
        /// Its 1024 data bytes, in the received frame.
        data: &'a [u8; DATA_LEN],
        /// The ACK payload to send.
        ack: [u8; 64],
    },
    /// A packet received before: send `ack` again, store nothing.
    Duplicate {
        /// The ACK payload to send.
        ack: [u8; 64],
    },
    /// A new packet beyond the ring's free space: dropped, no ACK.
    NoRoom,
    /// Not a FADE v1 DATA packet: ignored.
    Rejected(linerate_wire::Error),
    /// The stream is broken: send STOP to the board and report the error.
    /// Once fatal, a window stays fatal.
    Fatal(StreamError),
}

/// Counters of one board's stream on the host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowCounters {
    /// DATA packets seen, valid ones of every kind.
    pub received: u64,
    /// New packets accepted (stored and ACKed).
    pub packets: u64,
    /// Data bytes accepted (`packets * 1024`).
    pub bytes: u64,
    /// Packets received again after they had been accepted.
    pub duplicates: u64,
    /// ACKs sent again for duplicates.
    pub reacks: u64,
    /// DATA packets whose retry field says the board sent them before.
    pub retransmitted: u64,
    /// New packets dropped without ACK because the ring was full.
    pub no_room: u64,
    /// Payloads that were not valid FADE v1 DATA packets.
    pub rejected: u64,
}

/// The receive window of one FADE v1 board.
#[derive(Debug, Clone, Default)]
pub struct Window {
    low: u64,
    /// Bit i: packet `low + i` has been received.
    have: u32,
    counters: WindowCounters,
    fatal: Option<StreamError>,
}

impl Window {
    /// A window expecting packet 0 of set 0.
    pub fn new() -> Window {
        Window::default()
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
        self.low * PACKET_BYTES
    }

    /// Judges one FADE payload from the board. `room_bytes` is the stream
    /// offset the ring can hold data up to (the reader's tail plus the ring
    /// length); a new packet ending beyond it gets [`Verdict::NoRoom`].
    pub fn on_data<'a>(&mut self, payload: &'a [u8], room_bytes: u64) -> Verdict<'a> {
        let repr = match DataPacket::new_checked(payload).and_then(|p| DataRepr::parse(&p)) {
            Ok(r) => r,
            Err(e) => {
                self.counters.rejected += 1;
                return Verdict::Rejected(e);
            }
        };
        if let Some(e) = &self.fatal {
            return Verdict::Fatal(e.clone());
        }
        let tag = repr.tag;
        let packet = tag.packet_retry.packet();
        if u64::from(packet) >= WINDOW {
            return self.fail(StreamError::PacketNumber {
                set: tag.set,
                packet,
            });
        }
        self.counters.received += 1;
        if tag.packet_retry.retry() > 0 {
            self.counters.retransmitted += 1;
        }
        let wire = u64::from(tag.set) * WINDOW + u64::from(packet);
        let ahead = wire.wrapping_sub(self.low) % INDEX_MODULUS;
        let behind = self.low.wrapping_sub(wire) % INDEX_MODULUS;
        if ahead < WINDOW {
            let bit = 1u32 << ahead;
            if self.have & bit != 0 {
                return self.duplicate(tag);
            }
            let index = self.low + ahead;
            let offset = index * PACKET_BYTES;
            if offset + PACKET_BYTES > room_bytes {
                self.counters.no_room += 1;
                return Verdict::NoRoom;
            }
            self.have |= bit;
            while self.have & 1 != 0 {
                self.have >>= 1;
                self.low += 1;
            }
            self.counters.packets += 1;
            self.counters.bytes += PACKET_BYTES;
            return Verdict::New {
                index,
                offset,
                data: repr.data,
                ack: ack(tag),
            };
        }
        if (1..=LATE_WINDOW).contains(&behind) && behind <= self.low {
            return self.duplicate(tag);
        }
        self.fail(StreamError::ImpossibleSet {
            set: tag.set,
            packet,
            expected_set: crate::board::set_of(self.low),
        })
    }

    fn duplicate(&mut self, tag: Tag) -> Verdict<'static> {
        self.counters.duplicates += 1;
        self.counters.reacks += 1;
        Verdict::Duplicate { ack: ack(tag) }
    }

    fn fail(&mut self, e: StreamError) -> Verdict<'static> {
        self.fatal = Some(e.clone());
        Verdict::Fatal(e)
    }
}

/// The ACK payload confirming `tag` (bytes 2..6 of the DATA, echoed).
pub fn ack(tag: Tag) -> [u8; 64] {
    control(ControlRepr::Ack(tag))
}

/// A control payload (START, STOP, RESET...), 64 bytes as the driver sends.
pub fn control(c: ControlRepr) -> [u8; 64] {
    let mut out = [0u8; 64];
    // A 64-byte buffer always holds a control packet.
    let _ = v1::Repr::Control(c).emit(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, BoardConfig, Transmit};
    use crate::stream;
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
            Verdict::Duplicate { ack } => assert_eq!(&ack[..6], &[0, 3, 0, 0, 0, 3]),
            v => panic!("{v:?}"),
        }
        let c = w.counters();
        assert_eq!(
            (c.packets, c.duplicates, c.reacks, c.retransmitted),
            (2, 2, 2, 2)
        );
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
            board.on_packet(&control(ControlRepr::Start), 0).expect("start");
            let mut w = Window::new();
            let mut ring = vec![0u8; (packets * 1024) as usize];
            let mut now = 0;
            let mut buf = [0u8; 1034];
            let mut in_flight: Vec<(u64, Vec<u8>)> = Vec::new();
            let mut sent = 0u64;
            for _ in 0..500_000 {
                if board.is_done() { break; }
                match board.poll_transmit(now, &mut buf) {
                    Transmit::Send(n) => {
                        sent += 1;
                        if (next() % 100) as u32 >= loss { in_flight.push((sent, buf[..n].to_vec())); }
                    }
                    Transmit::WakeAt(t) => now = t,
                    Transmit::Idle => prop_assert!(false, "idle before done"),
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
                        Verdict::Duplicate { ack } => Some(ack),
                        v => { prop_assert!(false, "{:?}", v); None }
                    };
                    if let Some(a) = ack {
                        if (next() % 100) as u32 >= loss { board.on_packet(&a, now).expect("ack"); }
                    }
                    if !overdue { break; }
                }
            }
            prop_assert!(board.is_done());
            prop_assert_eq!(w.delivered_packets(), packets);
            prop_assert_eq!(stream::mismatches(0, &ring), 0);
        }
    }
}
