//! The `tcp` transport: GVSP records on a TCP connection the camera opens
//! to us (`docs/gvsp-over-tcp.md`), read with one copy.
//!
//! TCP is ordered, so the next bytes of the stream are predictable: the
//! assembler's slot guesses say which payload packets come next and where
//! their data belongs. Each read is one `recvmsg` (with `MSG_WAITALL`)
//! whose pieces alternate between a small side buffer for a record's
//! headers and the frame buffer for its data, through the frame's trailer;
//! leaders and trailers of the sizes seen before go to side buffers too.
//! After the read, every header is checked against its prediction. Bytes
//! from the first wrong prediction on are copied out into the `carry`
//! buffer and parsed record by record, reading exactly what each record
//! still needs, so nothing is lost and only the unexpected costs a copy.
//!
//! A read that ends inside a record's data leaves that record *partial*:
//! the next read continues straight into the same slot, and every read
//! that brings more of it keeps its frame alive. A frame given up while
//! one of its records is partial (nothing arrived for its retention) has
//! the rest of that record read and thrown away, so the stream stays in
//! record sync and the next frames arrive whole. The connection
//! ending, or resetting, delivers every frame in flight as incomplete and
//! waits for the camera to connect again (a restarted acquisition or
//! camera); block ids may then start over. A record that breaks the framing
//! (bad magic, version, kind or length) is a protocol error: the stream
//! cannot be resynchronised, so the receive thread ends with that error.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Duration;

use linerate_gev::assembler::{Assembler, SlotGuess};
use linerate_io::memory::Region;
use linerate_io::tcp::recv::{StreamConnection, StreamListener, MAX_PARTS};
use linerate_wire::gvsp::{Packet, PacketFormat, EXTENDED_HEADER_LEN, STANDARD_HEADER_LEN};
use linerate_wire::gvsp_tcp::{RecordHeader, RecordKind, HEADER_LEN};

use super::guess::gvsp_header_len;
use super::{ReceiveConfig, ReceiveStats};
use crate::clock::now_ns;
use crate::error::{Error, Result};

/// Record header plus the longest GVSP header.
const MAX_HEAD: usize = HEADER_LEN + EXTENDED_HEADER_LEN;
/// Leader and trailer records up to this size are predicted into side buffers.
const SIDE_MAX: usize = 256;
/// Payload records predicted per read.
const MAX_RECORDS: usize = 256;
/// Bytes asked for per read, so a frame of huge transfers is still split.
const MAX_READ_BYTES: usize = 64 << 20;
/// Records smaller than this are always taken whole into `carry`.
const CARRY_MIN: usize = 64 << 10;

/// What one piece of a predicted read is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// The rest of the partial record's data.
    Partial,
    /// Record + GVSP header of guess `i`, into `heads[i]`.
    Head(usize),
    /// Data of the guess whose head came just before, into its slot.
    Data,
    /// A whole leader (or trailer) record of the size seen before, into `sides[k]`.
    Side { k: usize, format: PacketFormat },
}

/// A payload record whose headers were checked and whose data is partly in
/// its slot.
#[derive(Debug, Clone, Copy)]
struct Partial {
    guess: SlotGuess,
    /// The whole slot, as lent by the assembler.
    slot: Region,
    head: [u8; EXTENDED_HEADER_LEN],
    done: usize,
}

impl Partial {
    fn head_len(&self) -> usize {
        gvsp_header_len(self.guess.extended)
    }
}

/// Counters of the TCP transport beyond [`ReceiveStats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Connections accepted from the camera.
    pub connections: u64,
    /// Connections that ended (closed or reset by the camera) while we were receiving.
    pub connections_lost: u64,
    /// Connection attempts from other addresses, closed unread.
    pub refused: u64,
    /// Records whose bytes were skipped: no buffer or slot to hold them.
    pub records_skipped: u64,
    /// Bytes read into side or carry buffers and copied again: the cost of
    /// what was not predicted.
    pub bytes_copied: u64,
}

/// See the module docs.
#[derive(Debug)]
pub struct TcpReceiver {
    listener: StreamListener,
    connection: Option<StreamConnection>,
    source: Ipv4Addr,
    recv_buffer: usize,
    /// Stream bytes read but not yet consumed; starts at a record boundary.
    carry: Vec<u8>,
    /// Largest record taken whole into `carry`; larger unplaceable records are skipped.
    carry_limit: usize,
    /// Bytes of the stream still to throw away (the rest of a skipped record).
    skip: usize,
    scratch: Box<[u8]>,
    /// A refused placement's packet, made contiguous for the assembler;
    /// kept so the rare fallback allocates only while it grows.
    staging: Vec<u8>,
    heads: Box<[[u8; MAX_HEAD]]>,
    sides: [[u8; SIDE_MAX]; 2],
    guesses: Vec<Option<SlotGuess>>,
    pieces: Vec<(Piece, usize)>,
    /// The regions of the planned read, one per piece.
    parts: Vec<Region>,
    partial: Option<Partial>,
    /// Total bytes of the last leader and trailer records seen.
    leader_len: Option<usize>,
    trailer_len: Option<usize>,
    /// The last whole record taken was a trailer: a leader comes next.
    after_trailer: bool,
    stats: ReceiveStats,
    tcp: TcpStats,
}

impl TcpReceiver {
    /// Listens on the configured address (port 0: the kernel chooses).
    pub fn open(config: &ReceiveConfig) -> Result<TcpReceiver> {
        let listener = StreamListener::bind(
            SocketAddrV4::new(config.local_ip, config.port),
            Some(config.recv_buffer),
        )?;
        Ok(TcpReceiver {
            listener,
            connection: None,
            source: config.source_ip,
            recv_buffer: 0,
            carry: Vec::new(),
            carry_limit: config.max_record.max(CARRY_MIN),
            skip: 0,
            scratch: vec![0u8; 64 << 10].into_boxed_slice(),
            staging: Vec::new(),
            heads: vec![[0u8; MAX_HEAD]; MAX_RECORDS].into_boxed_slice(),
            sides: [[0u8; SIDE_MAX]; 2],
            guesses: Vec::with_capacity(MAX_RECORDS),
            pieces: Vec::with_capacity(MAX_PARTS),
            parts: Vec::with_capacity(MAX_PARTS),
            partial: None,
            leader_len: None,
            trailer_len: None,
            after_trailer: false,
            stats: ReceiveStats::default(),
            tcp: TcpStats::default(),
        })
    }

    /// The local TCP port the camera must connect to.
    pub fn port(&self) -> u16 {
        self.listener.local_addr().port()
    }

    /// Counters so far.
    pub fn stats(&mut self) -> ReceiveStats {
        self.stats.recv_buffer = self.recv_buffer;
        self.stats.tcp = self.tcp;
        self.stats
    }

    /// One read (or, with no connection, one wait for the camera to
    /// connect), then everything it completed goes to the assembler.
    /// Returns the records taken.
    pub fn receive(
        &mut self,
        assembler: &mut Assembler,
        timeout: Duration,
        refill: &mut dyn FnMut(&mut Assembler),
    ) -> Result<usize> {
        let Some(connection) = self.connection.as_mut() else {
            if let Some(c) =
                self.listener
                    .accept_from(self.source, timeout, &mut self.tcp.refused)?
            {
                self.recv_buffer = c.recv_buffer();
                self.connection = Some(c);
                self.tcp.connections += 1;
                // A new connection is a new stream: ids may start over.
                assembler.restart();
                self.reset_stream();
            }
            return Ok(0);
        };
        connection.set_timeout(timeout)?;
        if self.skip > 0 {
            return self.skip_bytes(assembler);
        }
        if !self.carry.is_empty() {
            return self.read_carry(assembler, refill);
        }
        self.read_predicted(assembler, refill)
    }

    fn reset_stream(&mut self) {
        self.carry.clear();
        self.skip = 0;
        self.partial = None;
        self.after_trailer = false;
    }

    /// The camera closed or reset the connection: what was in flight is
    /// delivered incomplete, and the next call waits for a new connection.
    fn lose_connection(&mut self, assembler: &mut Assembler) {
        self.connection = None;
        self.tcp.connections_lost += 1;
        self.reset_stream();
        assembler.flush();
    }

    /// Maps a read's result: `Ok(None)` when the connection ended (already
    /// handled) or nothing came before the timeout.
    fn check_read(
        &mut self,
        r: std::io::Result<usize>,
        assembler: &mut Assembler,
    ) -> Result<Option<usize>> {
        match r {
            Ok(0) => {
                self.lose_connection(assembler);
                Ok(None)
            }
            Ok(n) => {
                self.stats.syscalls += 1;
                Ok(Some(n))
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Ok(None)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::BrokenPipe
                ) =>
            {
                self.lose_connection(assembler);
                Ok(None)
            }
            Err(source) => Err(Error::Socket {
                op: "recvmsg on the TCP stream",
                addr: self
                    .connection
                    .as_ref()
                    .map_or(SocketAddrV4::new(self.source, 0), |c| c.peer()),
                source,
            }),
        }
    }

    /// Throws away the rest of a record nothing can hold.
    fn skip_bytes(&mut self, assembler: &mut Assembler) -> Result<usize> {
        let n = self.skip.min(self.scratch.len());
        let Some(c) = self.connection.as_mut() else {
            return Ok(0);
        };
        let r = c.recv(&mut self.scratch[..n]);
        if let Some(got) = self.check_read(r, assembler)? {
            self.skip -= got.min(self.skip);
        }
        Ok(0)
    }

    /// Reads what the record at the start of `carry` still needs, then
    /// takes every record that is complete.
    fn read_carry(
        &mut self,
        assembler: &mut Assembler,
        refill: &mut dyn FnMut(&mut Assembler),
    ) -> Result<usize> {
        let need = if self.carry.is_empty() {
            // A fresh record: its header and a standard GVSP header, which
            // any valid record's body holds, so this never reads past it.
            HEADER_LEN + STANDARD_HEADER_LEN
        } else {
            match self.drain_carry(assembler)? {
                (_, Some(need)) => need,
                (taken, None) => return Ok(taken),
            }
        };
        let start = self.carry.len();
        self.carry.resize(start + need, 0);
        let Some(c) = self.connection.as_mut() else {
            self.carry.truncate(start);
            return Ok(0);
        };
        let r = c.recv(&mut self.carry[start..]);
        let got = *r.as_ref().unwrap_or(&0);
        self.carry.truncate(start + got);
        if self.check_read(r, assembler)?.is_none() {
            return Ok(0);
        }
        refill(assembler);
        self.tcp.bytes_copied += got as u64;
        Ok(self.drain_carry(assembler)?.0)
    }

    /// Takes the complete records at the start of `carry`. A payload record
    /// whose headers are in and whose slot is predicted moves its data
    /// there and continues as partial. Returns the records taken and, when
    /// more bytes are needed, how many to read next.
    fn drain_carry(&mut self, assembler: &mut Assembler) -> Result<(usize, Option<usize>)> {
        let mut taken = 0;
        loop {
            let have = self.carry.len();
            if have == 0 {
                return Ok((taken, None));
            }
            if have < HEADER_LEN {
                // Record header and a standard GVSP header: never past the
                // end of a valid record, whose body holds at least that.
                return Ok((taken, Some(HEADER_LEN + STANDARD_HEADER_LEN - have)));
            }
            let record = RecordHeader::parse(&self.carry[..HEADER_LEN]).map_err(|e| {
                Error::StreamProtocol(format!(
                    "bad record header {:02x?}: {e}",
                    &self.carry[..HEADER_LEN]
                ))
            })?;
            let total = HEADER_LEN + record.body_len as usize;
            let head_len = match self.carry.get(HEADER_LEN..) {
                Some(b) if b.len() >= STANDARD_HEADER_LEN => gvsp_header_len(is_extended_header(b)),
                _ => STANDARD_HEADER_LEN,
            };
            let head_end = (HEADER_LEN + head_len).min(total);
            if have < head_end {
                return Ok((taken, Some(head_end - have)));
            }
            if have < total && self.place_from_carry(assembler, total)? {
                return Ok((taken, None));
            }
            if have >= total {
                self.take_record(assembler, 0, total);
                self.carry.drain(..total);
                taken += 1;
                continue;
            }
            if total > self.carry_limit {
                // Nothing can hold it: skip the rest, unread.
                self.skip = total - have;
                self.carry.clear();
                self.tcp.records_skipped += 1;
                return Ok((taken, None));
            }
            return Ok((taken, Some(total - have)));
        }
    }

    /// For a payload record at the start of `carry` of `total` bytes, of
    /// which only the start is in: when its slot is predicted, moves the
    /// data read so far there and makes the record partial.
    fn place_from_carry(&mut self, assembler: &mut Assembler, total: usize) -> Result<bool> {
        let end = total.min(self.carry.len());
        let body = &self.carry[HEADER_LEN..end];
        let Ok(packet) = Packet::new_checked(body) else {
            return Ok(false);
        };
        if PacketFormat::from_code(packet.format_code()) != Ok(PacketFormat::Payload) {
            return Ok(false);
        }
        let head_len = packet.header_len();
        // A body too short for its own GVSP header is handled whole, as malformed.
        let Some(data_len) = total.checked_sub(HEADER_LEN + head_len) else {
            return Ok(false);
        };
        let (block_id, packet_id, extended) =
            (packet.block_id(), packet.packet_id(), packet.is_extended());
        assembler.guess_slots(&mut self.guesses, 8);
        let Some(guess) = self.guesses.iter().flatten().copied().find(|g| {
            g.block_id == block_id
                && g.packet_id == packet_id
                && g.extended == extended
                && g.len == data_len
        }) else {
            return Ok(false);
        };
        let in_carry = &self.carry[HEADER_LEN + head_len..];
        // The guess is fresh (no assembler call since guess_slots) and
        // `in_carry` is shorter than the record's data, which fits the slot.
        let Some(slot) = assembler.slot_mut(&guess) else {
            return Ok(false);
        };
        let Some(dst) = slot.get_mut(..in_carry.len()) else {
            return Ok(false);
        };
        dst.copy_from_slice(in_carry);
        let slot = Region::of(slot);
        let mut head = [0u8; EXTENDED_HEADER_LEN];
        head[..head_len].copy_from_slice(&self.carry[HEADER_LEN..HEADER_LEN + head_len]);
        self.tcp.bytes_copied += in_carry.len() as u64;
        self.partial = Some(Partial {
            guess,
            slot,
            head,
            done: in_carry.len(),
        });
        self.carry.clear();
        self.note_progress(assembler);
        Ok(true)
    }

    /// Hands the whole record in `carry[start..start + total]` to the assembler.
    fn take_record(&mut self, assembler: &mut Assembler, start: usize, total: usize) {
        let Some(body) = self.carry.get(start + HEADER_LEN..start + total) else {
            return;
        };
        let format = Packet::new_checked(body)
            .ok()
            .and_then(|p| PacketFormat::from_code(p.format_code()).ok());
        match format {
            Some(PacketFormat::Leader) => self.leader_len = Some(total),
            Some(PacketFormat::Trailer) => self.trailer_len = Some(total),
            _ => {}
        }
        self.after_trailer = format == Some(PacketFormat::Trailer);
        self.stats.datagrams += 1;
        self.stats.copied += 1;
        assembler.handle_packet(body, now_ns());
    }

    /// Plans one read through the predicted records, reads, checks every
    /// header, and hands the records to the assembler.
    fn read_predicted(
        &mut self,
        assembler: &mut Assembler,
        refill: &mut dyn FnMut(&mut Assembler),
    ) -> Result<usize> {
        if !self.plan(assembler) {
            if self.skip > 0 {
                // The partial record's frame was given up: its remaining
                // bytes come first and are thrown away, so the next read
                // starts at a record boundary again.
                return self.skip_bytes(assembler);
            }
            // Nothing predictable (stream start, or a buffer shortage):
            // read the next record's headers and decide from them.
            self.carry.clear();
            return self.read_carry(assembler, refill);
        }
        let Some(c) = self.connection.as_mut() else {
            return Ok(0);
        };
        // Every part is a side buffer of ours or a slot the assembler just
        // lent (in place until its next call other than guess_slots,
        // slot_mut or supply; none happens before the read completes).
        let r = c.recv_into(&self.parts, true);
        let Some(n) = self.check_read(r, assembler)? else {
            return Ok(0);
        };
        // Adding free buffers moves no frame buffer: the guesses stay valid.
        refill(assembler);
        let good = self.check_pieces(n);
        Ok(self.feed(assembler, good, n))
    }

    /// Fills `pieces` and `parts` for the next read; false when nothing is predicted.
    fn plan(&mut self, assembler: &mut Assembler) -> bool {
        self.pieces.clear();
        self.parts.clear();
        let guessed = assembler.guess_slots(&mut self.guesses, MAX_RECORDS);
        let mut first = 0;
        if let Some(mut p) = self.partial {
            let slot = match self.guesses.first() {
                Some(Some(g)) if *g == p.guess => assembler.slot_mut(g).map(Region::of),
                _ => None,
            };
            let rest = slot.and_then(|s| Some((s, s.sub(p.done, s.len().checked_sub(p.done)?)?)));
            match rest {
                Some((slot, rest)) => {
                    p.slot = slot;
                    self.partial = Some(p);
                    self.push(Piece::Partial, rest);
                    first = 1;
                }
                None => {
                    // The slot went away (frame given up): skip the rest.
                    self.skip = p.guess.len - p.done;
                    self.partial = None;
                    self.tcp.records_skipped += 1;
                    return false;
                }
            }
        }
        let mut bytes = 0usize;
        let mut nones = 0;
        let mut side = 0;
        for i in first..guessed {
            if self.parts.len() + 2 > MAX_PARTS || bytes >= MAX_READ_BYTES {
                break;
            }
            match self.guesses.get(i).copied().flatten() {
                Some(g) => {
                    let head = HEADER_LEN + gvsp_header_len(g.extended);
                    let Some(h) = self.heads.get_mut(i).and_then(|h| h.get_mut(..head)) else {
                        break;
                    };
                    let h = Region::of(h);
                    let Some(slot) = assembler.slot_mut(&g) else {
                        break;
                    };
                    let slot = Region::of(slot);
                    self.push(Piece::Head(i), h);
                    self.push(Piece::Data, slot);
                    bytes += head + g.len;
                }
                None => {
                    // Nones are the newest frame's trailer (unless it came
                    // already), then the next block's leader.
                    let format = if nones == 0 && !self.after_trailer {
                        PacketFormat::Trailer
                    } else {
                        PacketFormat::Leader
                    };
                    nones += 1;
                    let len = match format {
                        PacketFormat::Trailer => self.trailer_len,
                        _ => self.leader_len,
                    };
                    let Some(len) = len.filter(|&l| l <= SIDE_MAX) else {
                        break;
                    };
                    let Some(buf) = self.sides.get_mut(side).and_then(|b| b.get_mut(..len)) else {
                        break;
                    };
                    let r = Region::of(buf);
                    self.push(Piece::Side { k: side, format }, r);
                    side += 1;
                    // Deliver the frame as soon as its trailer is in.
                    if format == PacketFormat::Trailer {
                        break;
                    }
                }
            }
        }
        !self.parts.is_empty()
    }

    fn push(&mut self, piece: Piece, region: Region) {
        self.pieces.push((piece, region.len()));
        self.parts.push(region);
    }

    /// Checks the headers the read filled against their predictions.
    /// Returns how many pieces are good; bytes from the first bad or
    /// unfinished header on are copied out to `carry`.
    fn check_pieces(&mut self, n: usize) -> usize {
        let mut at = 0;
        for k in 0..self.pieces.len() {
            let (piece, len) = self.pieces[k];
            if at >= n {
                return k;
            }
            let got = (n - at).min(len);
            let ok = match piece {
                Piece::Partial | Piece::Data => true,
                Piece::Head(i) => {
                    got == len
                        && match (self.guesses.get(i).copied().flatten(), self.heads.get(i)) {
                            (Some(g), Some(h)) => head_matches(&h[..len], &g),
                            _ => false,
                        }
                }
                Piece::Side { k: s, format } => {
                    got == len
                        && self
                            .sides
                            .get(s)
                            .is_some_and(|b| side_matches(&b[..len], format))
                }
            };
            if !ok {
                self.carry_out(k, n - at);
                return k;
            }
            at += len;
        }
        self.pieces.len()
    }

    /// Copies the `bytes` read into pieces `from..` into `carry`, in order.
    fn carry_out(&mut self, from: usize, mut bytes: usize) {
        self.carry.clear();
        for k in from..self.pieces.len() {
            if bytes == 0 {
                break;
            }
            let Some(region) = self.parts.get(k) else {
                break;
            };
            let n = region.len().min(bytes);
            // The read just wrote these `n` bytes there; the slot or side
            // buffer is still lent (no assembler call since the plan).
            let start = self.carry.len();
            self.carry.resize(start + n, 0);
            region.copy_to(&mut self.carry[start..]);
            bytes -= n;
        }
        self.tcp.bytes_copied += self.carry.len() as u64;
    }

    /// Hands the first `good` pieces to the assembler, then whatever
    /// complete records the carry holds. Returns the records taken.
    fn feed(&mut self, assembler: &mut Assembler, good: usize, n: usize) -> usize {
        let mut at = 0;
        let mut taken = 0;
        let mut k = 0;
        while k < good {
            let (piece, len) = self.pieces[k];
            let got = n.saturating_sub(at).min(len);
            at += len;
            match piece {
                Piece::Partial => {
                    if let Some(mut p) = self.partial.take() {
                        p.done += got;
                        if p.done >= p.guess.len {
                            let head = p.head;
                            taken +=
                                self.place(assembler, (&p.guess, p.slot), &head[..p.head_len()]);
                        } else {
                            self.partial = Some(p);
                        }
                    }
                }
                Piece::Head(i) => {
                    let Some(g) = self.guesses.get(i).copied().flatten() else {
                        break;
                    };
                    let data = self.pieces.get(k + 1).filter(|_| k + 1 < good);
                    // Planned with its head, always.
                    let Some(slot) = self.parts.get(k + 1).copied() else {
                        break;
                    };
                    let data_got = n.saturating_sub(at).min(g.len);
                    let head_len = gvsp_header_len(g.extended);
                    let mut head = [0u8; EXTENDED_HEADER_LEN];
                    if let Some(h) = self.heads.get(i) {
                        head[..head_len].copy_from_slice(&h[HEADER_LEN..HEADER_LEN + head_len]);
                    }
                    if data.is_some() {
                        at += g.len;
                        k += 1;
                    }
                    if data.is_some() && data_got == g.len {
                        taken += self.place(assembler, (&g, slot), &head[..head_len]);
                    } else {
                        self.partial = Some(Partial {
                            guess: g,
                            slot,
                            head,
                            done: if data.is_some() { data_got } else { 0 },
                        });
                    }
                }
                Piece::Data => {}
                Piece::Side { k: s, format } => {
                    if let Some(b) = self.sides.get(s) {
                        let body = &b[HEADER_LEN..len];
                        self.after_trailer = format == PacketFormat::Trailer;
                        self.stats.datagrams += 1;
                        self.tcp.bytes_copied += len as u64;
                        assembler.handle_packet(body, now_ns());
                        taken += 1;
                    }
                }
            }
            k += 1;
        }
        self.note_progress(assembler);
        // Whatever the predictions missed is in `carry` now.
        match self.drain_carry(assembler) {
            Ok((t, _)) => taken + t,
            Err(e) => {
                // Surfaces on the next call, which reads `carry` again.
                tracing::debug!(error = %e, "framing error after a predicted read");
                taken
            }
        }
    }

    /// A record still arriving keeps its frame alive (see
    /// [`Assembler::handle_progress`]): on a slow or retransmitting
    /// connection one record can take longer than the frame retention.
    fn note_progress(&self, assembler: &mut Assembler) {
        if let Some(p) = &self.partial {
            assembler.handle_progress(&p.guess, now_ns());
        }
    }

    /// Records a payload packet whose data is in its slot; copies it out
    /// and through the assembler's normal path if the layout moved.
    fn place(
        &mut self,
        assembler: &mut Assembler,
        (g, slot): (&SlotGuess, Region),
        head: &[u8],
    ) -> usize {
        self.stats.datagrams += 1;
        let now = now_ns();
        if assembler
            .handle_placed_payload(g, head, g.len, now)
            .is_some()
        {
            self.stats.placed_in_frame += 1;
            self.after_trailer = false;
            return 1;
        }
        // The slot holds the record's `len` data bytes just read and is
        // still lent: handle_placed_payload refused without changing anything.
        self.staging.clear();
        self.staging.extend_from_slice(head);
        self.staging.resize(head.len() + g.len, 0);
        slot.copy_to(&mut self.staging[head.len()..]);
        self.stats.copied += 1;
        assembler.handle_packet(&self.staging, now);
        1
    }
}

/// The EI bit of a GVSP header's packet-infos word (`b` holds at least 8 bytes).
fn is_extended_header(b: &[u8]) -> bool {
    b.get(4).is_some_and(|x| x & 0x80 != 0)
}

/// Whether `h` (record header + GVSP header) is the payload record `g` predicts.
fn head_matches(h: &[u8], g: &SlotGuess) -> bool {
    let Ok(record) = RecordHeader::parse(h) else {
        return false;
    };
    let head_len = gvsp_header_len(g.extended);
    let Ok(packet) = Packet::new_checked(&h[HEADER_LEN..]) else {
        return false;
    };
    record.kind == RecordKind::Gvsp
        && record.body_len as usize == head_len + g.len
        && packet.is_extended() == g.extended
        && packet.header_len() == head_len
        && PacketFormat::from_code(packet.format_code()) == Ok(PacketFormat::Payload)
        && packet.block_id() == g.block_id
        && packet.packet_id() == g.packet_id
        && !packet.status().is_error()
}

/// Whether `b` is a whole record of `b.len()` bytes carrying a `format` packet.
fn side_matches(b: &[u8], format: PacketFormat) -> bool {
    let Ok(record) = RecordHeader::parse(b) else {
        return false;
    };
    record.kind == RecordKind::Gvsp
        && HEADER_LEN + record.body_len as usize == b.len()
        && Packet::new_checked(&b[HEADER_LEN..])
            .is_ok_and(|p| PacketFormat::from_code(p.format_code()) == Ok(format))
}
