//! The camera's GVSP-over-TCP link (`docs/gvsp-over-tcp.md`): one
//! connection per acquisition to SCDA:SCP, blocks sent as records whose
//! heads sit in a small per-slot buffer and whose data is the frame itself.
//!
//! The stream thread ([`super::streamer`]) decides when frames are due; this
//! module owns the connection's life (connect, retry every 500 ms, count a
//! lost host, close cleanly at a record boundary) and, with MSG_ZEROCOPY,
//! keeps a slot (its heads, and a frame-ring frame) from being rewritten
//! while the kernel may still send from it.
//!
//! A test-pattern frame is never drawn for TCP: its data is gathered from
//! one cached [`PatternStrip`] and a per-frame 16-byte stamp kept with the
//! slot's heads, so the sender touches as little memory per byte as
//! iperf3 does (see `docs/test-pattern.md`).

use std::net::{Ipv4Addr, SocketAddrV4};
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use linerate_gev::block_plan::BlockPlan;
use linerate_gev::test_pattern::{PatternStrip, STAMP_LEN};
use linerate_io::tcp::send::{Records, TcpSendOptions, TcpSender, Waiting, ZerocopyStats};
use linerate_wire::gvsp_tcp::{RecordHeader, RecordKind, HEADER_LEN};
use linerate_wire::Status;

use super::counters::StreamCounters;
use super::events::{CameraEvent, EventSink};

/// Least time between two connection attempts while acquiring.
pub const RETRY_INTERVAL: Duration = Duration::from_millis(500);
/// Room per record for the record header, an extended GVSP header and a leader.
const HEAD_ROOM: usize = HEADER_LEN + 64;
/// How long a clean close waits for the kernel to release zerocopy buffers.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// A frame's bytes as the link sends them.
#[derive(Debug, Clone, Copy)]
pub enum FrameBytes<'a> {
    /// The frame as drawn in memory (a frame-ring slot).
    Memory(&'a [u8]),
    /// Test-pattern frame `frame_number`: the stamp, then pixels gathered
    /// from the strip.
    Pattern {
        /// The pattern of this acquisition's frame length.
        strip: &'a PatternStrip,
        /// Frame number the pixels and stamp belong to.
        frame_number: u64,
        /// The frame's first 16 bytes ([`PatternStrip::stamp`]).
        stamp: [u8; STAMP_LEN],
    },
}

/// How sending one block ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockOutcome {
    /// Every record went out.
    Sent {
        /// Records (GVSP packets) sent.
        records: u32,
        /// Bytes sent, record headers included.
        bytes: u64,
    },
    /// A stop came; the stream ended at a record boundary inside the block.
    Stopped,
    /// No connection, or it broke: the block did not (fully) go out.
    Lost,
}

/// One acquisition's TCP link to the host.
pub struct TcpLink {
    local: Ipv4Addr,
    destination: SocketAddrV4,
    options: TcpSendOptions,
    sender: Option<TcpSender>,
    last_attempt: Option<Instant>,
    failure_logged: bool,
    /// Per slot: the frame's stamp (pattern frames), then the heads of its records.
    heads: Vec<Vec<u8>>,
    /// Per slot: zerocopy ids below this must complete before the slot is reused.
    release: Vec<u32>,
    /// Zerocopy counters of the current sender already added to the totals.
    reported: ZerocopyStats,
    records: Vec<(Range<usize>, Range<usize>)>,
    /// Where connects, failures and losses are reported.
    events: EventSink,
}

impl TcpLink {
    /// A link from `local` to `destination` for a ring of `slots` frames,
    /// reporting to `events`; not connected until
    /// [`TcpLink::ensure_connected`].
    pub fn new(
        local: Ipv4Addr,
        destination: SocketAddrV4,
        options: TcpSendOptions,
        slots: usize,
        events: EventSink,
    ) -> TcpLink {
        TcpLink {
            local,
            destination,
            options,
            sender: None,
            last_attempt: None,
            failure_logged: false,
            heads: vec![Vec::new(); slots],
            release: vec![0; slots],
            reported: ZerocopyStats::default(),
            records: Vec::new(),
            events,
        }
    }

    /// A connection is up.
    pub fn is_connected(&self) -> bool {
        self.sender.is_some()
    }

    /// Connects unless connected or the last attempt was less than
    /// [`RETRY_INTERVAL`] ago; returns whether a connection is up.
    pub fn ensure_connected(&mut self, counters: &StreamCounters) -> bool {
        if self.sender.is_some() {
            return true;
        }
        if self
            .last_attempt
            .is_some_and(|t| t.elapsed() < RETRY_INTERVAL)
        {
            return false;
        }
        self.last_attempt = Some(Instant::now());
        match TcpSender::connect(self.local, self.destination, &self.options) {
            Ok(s) => {
                self.events.emit(CameraEvent::TcpConnected {
                    local: s.local_addr(),
                    destination: self.destination,
                    zerocopy: s.zerocopy(),
                });
                self.sender = Some(s);
                self.failure_logged = false;
                self.release.fill(0);
                self.reported = ZerocopyStats::default();
                counters.tcp_connections.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(e) => {
                if !self.failure_logged {
                    self.events.emit(CameraEvent::TcpConnectFailed {
                        error: e.to_string(),
                        retry: RETRY_INTERVAL,
                    });
                    self.failure_logged = true;
                }
                counters
                    .tcp_connect_failures
                    .fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// Before the frame in `slot` is rewritten: waits until the kernel sent
    /// every zerocopy byte it took from that slot. A host that does not read
    /// for a second loses its connection, which frees the memory.
    pub fn release_slot(&mut self, slot: usize, counters: &StreamCounters) {
        let Some(sender) = self.sender.as_mut() else {
            return;
        };
        let Some(&id) = self.release.get(slot) else {
            return;
        };
        if !sender.zerocopy() || sender.is_completed(id) {
            return;
        }
        let freed = sender.wait_completed(id, CLOSE_WAIT);
        self.publish(counters);
        if !matches!(freed, Ok(true)) {
            self.events.emit(CameraEvent::TcpZerocopyStalled);
            self.drop_connection(counters);
        }
    }

    /// Sends block `plan` of `frame` as records, its heads (and stamp) kept
    /// in slot `slot` (the frame-ring slot for a frame held there) until
    /// [`TcpLink::release_slot`]. `on_hold` is asked whether to go on while
    /// the host holds the send up.
    pub fn send_block(
        &mut self,
        slot: usize,
        plan: &BlockPlan,
        frame: FrameBytes<'_>,
        counters: &StreamCounters,
        on_hold: &mut dyn FnMut() -> Waiting,
    ) -> BlockOutcome {
        let Some(sender) = self.sender.as_mut() else {
            return BlockOutcome::Lost;
        };
        let Some(heads) = self.heads.get_mut(slot) else {
            return BlockOutcome::Lost;
        };
        let count = plan.packet_count();
        heads.resize(STAMP_LEN + count as usize * HEAD_ROOM, 0);
        if let FrameBytes::Pattern { stamp, .. } = &frame {
            heads[..STAMP_LEN].copy_from_slice(stamp);
        }
        self.records.clear();
        for id in 0..count {
            let at = STAMP_LEN + id as usize * HEAD_ROOM;
            let Some(buf) = heads.get_mut(at..at + HEAD_ROOM) else {
                return BlockOutcome::Lost;
            };
            let Ok((n, range)) = plan.write_head(id, Status::SUCCESS, &mut buf[HEADER_LEN..])
            else {
                return BlockOutcome::Lost;
            };
            let record = RecordHeader {
                kind: RecordKind::Gvsp,
                body_len: (n + range.len()) as u32,
            };
            if record.emit(buf).is_err() {
                return BlockOutcome::Lost;
            }
            self.records.push((at..at + HEADER_LEN + n, range));
        }
        let heads = &heads[..];
        let mut records = Records::new();
        for (h, d) in &self.records {
            let head = &heads[h.clone()];
            match frame {
                FrameBytes::Memory(data) => {
                    let Some(data) = data.get(d.clone()) else {
                        return BlockOutcome::Lost;
                    };
                    records.push([head, data]);
                }
                FrameBytes::Pattern {
                    strip,
                    frame_number,
                    ..
                } => {
                    if d.end > strip.len() {
                        return BlockOutcome::Lost;
                    }
                    let stamp = &heads[d.start.min(STAMP_LEN)..d.end.min(STAMP_LEN)];
                    let pixels = strip.pixels(frame_number, d.clone());
                    records.push([head, stamp].into_iter().chain(pixels));
                }
            }
        }
        let result = sender.send_records(&records, on_hold);
        if let Some(r) = self.release.get_mut(slot) {
            *r = sender.zerocopy_issued();
        }
        let outcome = match result {
            Ok(sent) if sent.stopped => BlockOutcome::Stopped,
            Ok(sent) => BlockOutcome::Sent {
                records: sent.records as u32,
                bytes: sent.bytes,
            },
            Err(e) => {
                self.events.emit(CameraEvent::TcpLost {
                    error: e.to_string(),
                });
                self.drop_connection(counters);
                // Reconnect no sooner than the retry interval.
                self.last_attempt = Some(Instant::now());
                return BlockOutcome::Lost;
            }
        };
        if let Some(s) = self.sender.as_mut() {
            let _ = s.poll_completions();
        }
        self.publish(counters);
        outcome
    }

    /// Ends the acquisition's connection with a FIN (after the kernel let go
    /// of zerocopy buffers, or with a reset if it does not within a second).
    pub fn close(&mut self, counters: &StreamCounters) {
        if let Some(s) = self.sender.take() {
            let closed = s.close(CLOSE_WAIT);
            self.add_zerocopy(closed.zerocopy, counters);
        }
    }

    /// Resets the connection (the kernel drops what it still holds) and
    /// counts it as lost.
    fn drop_connection(&mut self, counters: &StreamCounters) {
        if let Some(s) = self.sender.take() {
            self.publish_from(&s, counters);
            s.abort();
            counters
                .tcp_connections_lost
                .fetch_add(1, Ordering::Relaxed);
        }
        self.release.fill(0);
    }

    fn publish(&mut self, counters: &StreamCounters) {
        if let Some(s) = self.sender.take() {
            self.publish_from(&s, counters);
            self.sender = Some(s);
        }
    }

    /// Adds the sender's zerocopy counters not yet reported to the totals.
    fn publish_from(&mut self, s: &TcpSender, counters: &StreamCounters) {
        self.add_zerocopy(s.zerocopy_stats(), counters);
    }

    fn add_zerocopy(&mut self, now: ZerocopyStats, counters: &StreamCounters) {
        counters
            .zerocopy_sends
            .fetch_add(now.sends - self.reported.sends, Ordering::Relaxed);
        counters.zerocopy_completions.fetch_add(
            now.completions - self.reported.completions,
            Ordering::Relaxed,
        );
        counters
            .zerocopy_copied
            .fetch_add(now.copied - self.reported.copied, Ordering::Relaxed);
        self.reported = now;
    }
}
