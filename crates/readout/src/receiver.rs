//! A whole FADE receiver as a library: [`spawn`] starts one busy-polling
//! receive thread (it sleeps in the socket only after a moment of silence)
//! that receives every board's DATA and hands it to the readout's
//! protocol core (`linerate_fade::host`), which ACKs each packet at once
//! and copies new ones into the board's ring; and one reader thread per
//! board that consumes its ring in place (verifying it and writing it out
//! if asked). The [`ReceiverHandle`] gives the bytes read so far (for a
//! progress display), stops the readout early, and waits for its
//! [`ReadoutReport`]. Both wire versions run the same loop, generic over
//! `linerate_fade::version`. An application that reads the rings itself
//! (the Python package lends their bytes to numpy in place) starts the
//! receiver with [`spawn_with_rings`] and gets each board's [`BoardRing`]
//! instead of reader threads.
//!
//! Nothing here prints or exits: `linerate fade recv` is this plus
//! argument parsing and presentation.
//!
//! ```no_run
//! use linerate_fade::host::HostConfig;
//! use linerate_readout::{LinkConfig, ReceiverConfig};
//!
//! let host = HostConfig {
//!     boards: vec![[0x02, 0, 0, 0, 0, 0x01]],
//!     limit_bytes: Some(1 << 30),
//!     ..HostConfig::default()
//! };
//! let config = ReceiverConfig {
//!     verify: true,
//!     ..ReceiverConfig::new(LinkConfig::new("eth0"), host)
//! };
//! let receiver = linerate_readout::spawn(config)?;
//! let counters = receiver.counters(); // poll for progress
//! let report = receiver.join()?;
//! assert!(report.problems().is_empty(), "{:?}", report.problems());
//! println!("{}", serde_json::to_string(&report).unwrap_or_default());
//! # let _ = counters;
//! # Ok::<(), linerate_readout::ReceiverError>(())
//! ```

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use linerate_fade::host::{BoardFailure, HostConfig};
use linerate_fade::stream;
use linerate_fade::version::{self as fade_version, TenG, V1};

use crate::report::{BoardRun, CommandAnswer, CommandReport, ReadoutReport, RunFacts};
use crate::ring::RingReader;
use crate::{LinkConfig, Readout};

/// Nice value of the reader threads by default (the receive thread keeps
/// its own).
pub const READER_NICE: i32 = 10;

/// Bytes a reader lets gather before it is woken by default (FADE's
/// wakeup threshold): 1 MiB, about 9 ms of a 1 GbE board, so that a reader
/// keeping up is woken some hundred times a second rather than at every
/// 64 KiB. Each wake is a futex call in the receive thread and, with the
/// reader on another core, an interrupt there: at 64 KiB the wakes took 3 %
/// of the receive core on the bench. The end of the stream and errors
/// wake the reader whatever the threshold.
pub const READER_WAKEUP: u64 = 1 << 20;

/// The FADE wire version a receiver speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WireVersion {
    /// FADE v1: 1024-byte packets in sets of 32.
    #[default]
    V1,
    /// FADE-10G: 8192-byte packets in jumbo frames, a window of 16,
    /// numbered commands.
    TenG,
}

impl WireVersion {
    /// The version's name as reports give it (`1`, `10g`).
    pub fn name(self) -> &'static str {
        match self {
            WireVersion::V1 => <V1 as fade_version::Version>::NAME,
            WireVersion::TenG => <TenG as fade_version::Version>::NAME,
        }
    }
}

/// Everything a receiver needs: the link, the readout's protocol settings,
/// and what the application side does with the data.
#[derive(Debug, Clone)]
pub struct ReceiverConfig {
    /// How the readout meets the wire.
    pub link: LinkConfig,
    /// The readout's protocol settings (the boards, how much to receive,
    /// the controller); the host's MAC is filled in from the interface.
    pub host: HostConfig,
    /// The wire version the boards speak.
    pub version: WireVersion,
    /// Check every byte against the emulator's counter stream.
    pub verify: bool,
    /// Where to write each board's stream: empty for nowhere, otherwise
    /// one file per board, in the order of `host.boards`.
    pub outputs: Vec<PathBuf>,
    /// Pin the receive thread to this CPU and keep the reader threads off
    /// it, so that a reader waking up never preempts the thread whose
    /// every microsecond is ACK latency.
    pub receive_cpu: Option<usize>,
    /// Run the receive thread under SCHED_FIFO at this priority (1..=99;
    /// needs root or CAP_SYS_NICE).
    pub realtime: Option<i32>,
    /// Bytes a reader lets gather before it is woken (lowered to a quarter
    /// of the ring).
    pub reader_wakeup: u64,
    /// Nice value of the reader threads.
    pub reader_nice: i32,
    /// Set it to end the readout early: unfinished boards end as
    /// interrupted and are sent STOP. A signal handler may own it.
    pub stop: Arc<AtomicBool>,
    /// Called by each board's reader with the data it reads, in place in
    /// the ring (a forwarder, say); none by default.
    pub sink: Option<DataSink>,
}

/// What a reader hands each slice of a board's stream to: called as
/// `(board index, stream offset, bytes)` on that board's reader thread,
/// before the bytes leave the ring, and once more with no bytes when the
/// board's stream has ended. A slow sink slows the reader, and with it the
/// board (its window), never the receive thread.
#[derive(Clone)]
pub struct DataSink(pub Arc<SinkFn>);

/// The function a [`DataSink`] holds.
pub type SinkFn = dyn Fn(usize, u64, &[u8]) + Send + Sync;

impl std::fmt::Debug for DataSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DataSink")
    }
}

impl ReceiverConfig {
    /// A receiver of `host.boards` on `link` with the defaults: wire
    /// version 1, no verification, no output files, no pinning, readers
    /// woken at [`READER_WAKEUP`] and niced to [`READER_NICE`].
    pub fn new(link: LinkConfig, host: HostConfig) -> ReceiverConfig {
        ReceiverConfig {
            link,
            host,
            version: WireVersion::V1,
            verify: false,
            outputs: Vec::new(),
            receive_cpu: None,
            realtime: None,
            reader_wakeup: READER_WAKEUP,
            reader_nice: READER_NICE,
            stop: Arc::new(AtomicBool::new(false)),
            sink: None,
        }
    }
}

/// Why a receiver could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum ReceiverError {
    /// Neither a byte limit nor a duration: the readout would never end.
    #[error("a readout needs a byte limit or a duration")]
    Unbounded,
    /// Output files given, but not one per board.
    #[error("{outputs} output files for {boards} boards: give one per board or none")]
    Outputs {
        /// Files given.
        outputs: usize,
        /// Boards read.
        boards: usize,
    },
    /// An output file could not be created.
    #[error("creating {}: {source}", .path.display())]
    CreateOutput {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The link could not be opened, or failed during the readout.
    #[error(transparent)]
    Readout(#[from] crate::Error),
    /// The receive thread could not be pinned.
    #[error("pinning the receive thread to CPU {cpu}: {source}")]
    Pin {
        /// The CPU asked for.
        cpu: usize,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The receive thread could not run under SCHED_FIFO.
    #[error(
        "SCHED_FIFO priority {priority} for the receive thread: {source} (needs root or CAP_SYS_NICE)"
    )]
    Realtime {
        /// The priority asked for.
        priority: i32,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A thread could not be started.
    #[error("starting the {thread} thread: {source}")]
    Thread {
        /// Which thread.
        thread: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A thread of the receiver panicked.
    #[error("the {thread} thread panicked")]
    Panicked {
        /// Which thread.
        thread: String,
    },
}

/// The bytes each board's reader has consumed so far, shared with the
/// readers: poll it for a progress display. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ReadCounters(Arc<Vec<AtomicU64>>);

impl ReadCounters {
    fn new(boards: usize) -> ReadCounters {
        ReadCounters(Arc::new((0..boards).map(|_| AtomicU64::new(0)).collect()))
    }

    /// Bytes read so far, per board (in the order of the boards).
    pub fn bytes_read(&self) -> Vec<u64> {
        self.0.iter().map(|c| c.load(Ordering::Relaxed)).collect()
    }

    /// Bytes read so far, all boards.
    pub fn total_bytes_read(&self) -> u64 {
        self.0.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    /// Number of boards counted.
    pub fn boards(&self) -> usize {
        self.0.len()
    }

    fn set(&self, board: usize, bytes: u64) {
        if let Some(c) = self.0.get(board) {
            c.store(bytes, Ordering::Relaxed);
        }
    }
}

/// A running receiver. Dropping it leaves the readout running to its
/// end (its threads are detached); call [`ReceiverHandle::stop`] first to
/// end it early.
#[derive(Debug)]
pub struct ReceiverHandle {
    read: ReadCounters,
    live: crate::live::LiveFigures,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<ReadoutReport, ReceiverError>>,
}

impl ReceiverHandle {
    /// The readers' byte counters (a live view; see
    /// [`ReadCounters::bytes_read`] for a snapshot).
    pub fn counters(&self) -> ReadCounters {
        self.read.clone()
    }

    /// Each board's retransmissions and ACK latency so far, updated by the
    /// receive thread about four times a second (see [`crate::live`]).
    pub fn live(&self) -> crate::live::LiveFigures {
        self.live.clone()
    }

    /// Ends the readout early: the unfinished boards end as interrupted.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether the receiver has finished (its report is ready).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Waits for the readout to end and returns its report. An error is
    /// the link's or a thread's; boards that failed are in the report
    /// ([`ReadoutReport::problems`]).
    pub fn join(self) -> Result<ReadoutReport, ReceiverError> {
        self.thread.join().map_err(|_| ReceiverError::Panicked {
            thread: "receive".into(),
        })?
    }
}

/// Starts a receiver: opens the link, starts the reader threads and the
/// receive thread, and returns once the readout is under way (or could
/// not be set up: the link, the output files, pinning, priority). Runs in
/// the calling thread's network namespace.
pub fn spawn(config: ReceiverConfig) -> Result<ReceiverHandle, ReceiverError> {
    start(config, false).map(|(handle, _)| handle)
}

/// Starts a receiver whose boards' rings the application reads itself,
/// on its own threads (a Python program, say), instead of reader threads:
/// returns the handle and one [`BoardRing`] per board, in the order of
/// the boards. `verify` and `outputs` are the reader threads' work and
/// are not done here. A board's `bytes_received` in the report is what
/// its ring lent out or had committed when the application finished with
/// it (dropped its `BoardRing`); the report waits for that, so drop
/// every ring before joining the handle.
pub fn spawn_with_rings(
    mut config: ReceiverConfig,
) -> Result<(ReceiverHandle, Vec<BoardRing>), ReceiverError> {
    config.verify = false;
    config.outputs = Vec::new();
    start(config, true)
}

/// [`spawn`] or [`spawn_with_rings`]: with `app_rings`, the rings come
/// back to the caller instead of going to reader threads.
fn start(
    config: ReceiverConfig,
    app_rings: bool,
) -> Result<(ReceiverHandle, Vec<BoardRing>), ReceiverError> {
    if config.host.limit_bytes.is_none() && config.host.duration_ns.is_none() {
        return Err(ReceiverError::Unbounded);
    }
    let boards = config.host.boards.len();
    if !config.outputs.is_empty() && config.outputs.len() != boards {
        return Err(ReceiverError::Outputs {
            outputs: config.outputs.len(),
            boards,
        });
    }
    let files = config
        .outputs
        .iter()
        .map(|p| {
            File::create(p).map_err(|source| ReceiverError::CreateOutput {
                path: p.clone(),
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let read = ReadCounters::new(boards);
    let stop = config.stop.clone();
    let (ready_tx, ready_rx) = mpsc::sync_channel(1);
    let thread_read = read.clone();
    let live = crate::live::LiveFigures::default();
    let thread_live = live.clone();
    let thread = std::thread::Builder::new()
        .name("fade-recv".into())
        .spawn(move || match config.version {
            WireVersion::V1 => {
                receive::<V1>(config, files, thread_read, thread_live, ready_tx, app_rings)
            }
            WireVersion::TenG => {
                receive::<TenG>(config, files, thread_read, thread_live, ready_tx, app_rings)
            }
        })
        .map_err(|source| ReceiverError::Thread {
            thread: "receive".into(),
            source,
        })?;
    // Either the thread says it is under way, or it ended (an error, or
    // a panic) and dropped its sender.
    let Ok(rings) = ready_rx.recv() else {
        return Err(thread
            .join()
            .map_err(|_| ReceiverError::Panicked {
                thread: "receive".into(),
            })?
            .err()
            .unwrap_or(ReceiverError::Panicked {
                thread: "receive".into(),
            }));
    };
    Ok((
        ReceiverHandle {
            read,
            live,
            stop,
            thread,
        },
        rings,
    ))
}

/// One board's ring, read by the application (from
/// [`spawn_with_rings`]): the [`RingReader`] itself (through `Deref`),
/// with the progress counter kept up to date by [`BoardRing::lend`] and
/// [`BoardRing::commit`]. Dropping it tells the receive thread the
/// board's bytes received (what was lent or committed).
#[derive(Debug)]
pub struct BoardRing {
    ring: RingReader,
    board: usize,
    read: ReadCounters,
    done: mpsc::Sender<ReaderResult>,
}

impl BoardRing {
    /// The board's index, in the order of the boards.
    pub fn board(&self) -> usize {
        self.board
    }

    /// Lends the next bytes not lent yet (see [`RingReader::lend`]) and
    /// counts them as read.
    pub fn lend(&mut self, max: usize) -> Option<linerate_io::byte_ring::ByteRingLease> {
        let lease = self.ring.lend(max)?;
        self.read.set(self.board, self.ring.lent());
        Some(lease)
    }

    /// Commits consumed bytes (see [`RingReader::commit`]) and counts them
    /// as read.
    pub fn commit(&mut self, bytes: u64) -> Result<(), linerate_fade::buffer::BufferError> {
        self.ring.commit(bytes)?;
        self.read.set(self.board, self.ring.lent());
        Ok(())
    }
}

impl std::ops::Deref for BoardRing {
    type Target = RingReader;

    fn deref(&self) -> &RingReader {
        &self.ring
    }
}

impl std::ops::DerefMut for BoardRing {
    fn deref_mut(&mut self) -> &mut RingReader {
        &mut self.ring
    }
}

impl Drop for BoardRing {
    fn drop(&mut self) {
        let lent = self.ring.lent();
        self.read.set(self.board, lent);
        let _ = self.done.send((lent, 0, None));
    }
}

/// A board's reader: a thread of the receiver's, or the application
/// holding its [`BoardRing`].
enum Reader {
    Thread(JoinHandle<ReaderResult>),
    App(mpsc::Receiver<ReaderResult>),
}

impl Reader {
    /// Waits for the reader to finish and returns what it came to.
    fn join(self) -> Result<ReaderResult, ReceiverError> {
        match self {
            Reader::Thread(t) => t.join().map_err(|_| ReceiverError::Panicked {
                thread: "reader".into(),
            }),
            // A ring is always dropped with a send; a lost sender is
            // counted as nothing read.
            Reader::App(done) => Ok(done.recv().unwrap_or((0, 0, None))),
        }
    }
}

/// What a reader thread came to: bytes read, verify errors, an I/O error.
type ReaderResult = (u64, u64, Option<String>);

/// The receive thread for wire version `W`: sets up, says so on `ready`,
/// runs the readout, and builds the report.
fn receive<W: fade_version::Version>(
    config: ReceiverConfig,
    files: Vec<File>,
    read: ReadCounters,
    live: crate::live::LiveFigures,
    ready: mpsc::SyncSender<Vec<BoardRing>>,
    app_rings: bool,
) -> Result<ReadoutReport, ReceiverError> {
    let (mut readout, rings) = Readout::<W>::open(config.link.clone(), config.host.clone())?;
    readout.publish_live(live);
    let mut lent = Vec::new();
    let mut readers = Vec::new();
    if app_rings {
        for (board, ring) in rings.into_iter().enumerate() {
            let (done, finished) = mpsc::channel();
            lent.push(BoardRing {
                ring,
                board,
                read: read.clone(),
                done,
            });
            readers.push(Reader::App(finished));
        }
    } else {
        readers = start_readers(&config, rings, files, &read)?;
    }
    if let Some(cpu) = config.receive_cpu {
        linerate_io::sched::pin_current_thread(cpu)
            .map_err(|source| ReceiverError::Pin { cpu, source })?;
    }
    if let Some(priority) = config.realtime {
        linerate_io::sched::set_current_thread_fifo(priority)
            .map_err(|source| ReceiverError::Realtime { priority, source })?;
    }
    let _ = ready.send(lent);
    readout.run(&config.stop)?;
    report::<W>(&config, &mut readout, readers)
}

/// Starts one reader thread per ring, which verifies and writes out what
/// `config` asks.
fn start_readers(
    config: &ReceiverConfig,
    rings: Vec<RingReader>,
    files: Vec<File>,
    read: &ReadCounters,
) -> Result<Vec<Reader>, ReceiverError> {
    // Readers first: threads inherit the scheduling of the thread that
    // starts them, and they must not run pinned or real-time.
    let mut files = files.into_iter().map(Some).collect::<Vec<_>>();
    files.resize_with(rings.len(), || None);
    let mut readers = Vec::new();
    for (i, (ring, file)) in rings.into_iter().zip(files).enumerate() {
        let read = read.clone();
        let (verify, cpu) = (config.verify, config.receive_cpu);
        let (wakeup, nice) = (config.reader_wakeup, config.reader_nice);
        let sink = config.sink.clone();
        let reader = std::thread::Builder::new()
            .name(format!("fade-read-{i}"))
            .spawn(move || {
                if let Some(c) = cpu {
                    linerate_io::sched::keep_current_thread_off(c);
                }
                // Below the receive thread: when both share a core, a
                // reader waking up should not preempt the thread whose
                // every microsecond is ACK latency. A failure leaves the
                // default priority.
                let _ = linerate_io::sched::set_current_thread_nice(nice);
                consume(
                    ring,
                    wakeup,
                    verify,
                    file,
                    |n| read.set(i, n),
                    |offset, data| {
                        if let Some(s) = &sink {
                            (s.0)(i, offset, data);
                        }
                    },
                )
            })
            .map_err(|source| ReceiverError::Thread {
                thread: format!("fade-read-{i}"),
                source,
            })?;
        readers.push(Reader::Thread(reader));
    }
    Ok(readers)
}

/// The report of a readout that has run, once every reader has finished.
fn report<W: fade_version::Version>(
    config: &ReceiverConfig,
    readout: &mut Readout<W>,
    readers: Vec<Reader>,
) -> Result<ReadoutReport, ReceiverError> {
    let ended = readout.ended_ns().unwrap_or_else(|| readout.now_ns());
    let limit = config.host.limit_bytes;
    let timings = readout.timings().to_vec();
    let mut runs = Vec::new();
    for ((o, t), r) in readout.outcomes().into_iter().zip(timings).zip(readers) {
        let (bytes_received, verify_errors, io_error) = r.join()?;
        let end = o.done_ns.unwrap_or(ended);
        let seconds = o
            .first_data_ns
            .map_or(0.0, |f| end.saturating_sub(f) as f64 / 1e9);
        let complete = o.complete(limit) && (!config.verify || bytes_received >= o.delivered);
        let command = match (&config.host.command, o.command) {
            (None, _) => None,
            (Some(_), Some(Ok(c))) => Some(CommandReport::Answered(CommandAnswer::from(&c))),
            (Some(_), Some(Err(e))) => Some(CommandReport::Failed {
                error: e.to_string(),
            }),
            (Some(_), None) if o.command_sent => Some(CommandReport::Failed {
                error: "no answer before the stream ended".into(),
            }),
            (Some(_), None) => Some(CommandReport::Failed {
                error: "never sent: the board did not stream".into(),
            }),
        };
        runs.push(BoardRun {
            mac: o.mac.to_string(),
            bytes: o.delivered,
            seconds,
            counters: o.counters,
            timings: t,
            verify_errors,
            bytes_received,
            verified: config.verify,
            error: o
                .failure
                .as_ref()
                .map(|f| failure_text::<W>(f, &config.link.interface))
                .or(io_error),
            complete,
            command,
            foreign_answers: o.foreign_answers,
            last_foreign: o.last_foreign,
        });
    }
    let stamps = readout.ack_stamps();
    let facts = RunFacts {
        seconds: ended as f64 / 1e9,
        controller: if config.host.fair.is_some() {
            "fair"
        } else {
            "seed"
        },
        version: W::NAME,
        backend: (&readout.backend_report()).into(),
        receive_thread: readout.thread_work().into(),
        ack_stamps: (&stamps).into(),
        fair: readout.host().fair().map(|f| {
            [
                f.rounds(),
                f.capacity_bps(),
                f.queue_cuts(),
                f.late_rounds(),
            ]
        }),
    };
    Ok(ReadoutReport::new(&runs, facts))
}

/// The reader of one board: waits for data, checks and writes it in
/// place, commits it, and tells `progress` the bytes read so far.
/// Returns (bytes read, verify errors, I/O error).
fn consume(
    mut reader: RingReader,
    wakeup: u64,
    verify: bool,
    mut file: Option<File>,
    progress: impl Fn(u64),
    sink: impl Fn(u64, &[u8]),
) -> ReaderResult {
    reader.set_wakeup(wakeup.min(reader.capacity() as u64 / 4));
    let mut errors = 0u64;
    let mut io_error = None;
    loop {
        let p = reader.wait(Duration::from_millis(100));
        if p.available == 0 && (p.eof || p.error.is_some()) {
            sink(p.tail, &[]);
            return (p.tail, errors, io_error);
        }
        let data = reader.data();
        let len = data.len() as u64;
        sink(p.tail, data);
        if verify {
            errors += stream::mismatches(p.tail, data);
        }
        if let Some(f) = file.as_mut() {
            if let Err(e) = f.write_all(data) {
                io_error = Some(format!("writing the output file: {e}"));
                file = None;
            }
        }
        // `len` is at most what was available.
        if reader.commit(len).is_err() {
            return (p.tail, errors, Some("ring commit refused".into()));
        }
        progress(p.tail + len);
    }
}

/// What went wrong with a board, in words. A board that never answered
/// START is probed in the other wire version: a version mismatch looks
/// like silence from this side, so name it when it is one.
fn failure_text<W: fade_version::Version>(failure: &BoardFailure, interface: &str) -> String {
    let text = failure.to_string();
    let BoardFailure::Silent {
        mac,
        delivered: 0,
        foreign: None,
        ..
    } = failure
    else {
        return text;
    };
    match crate::probe::other_version_spoken(interface, mac.0, W::NAME, Duration::from_millis(300))
    {
        Ok(Some(other)) => format!(
            "{text}; but it answered a FADE {other} START: the board speaks FADE version \
             {other}, this receiver {} (give --version {other} on both ends)",
            W::NAME
        ),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring::ring;

    #[test]
    fn a_reader_verifies_writes_out_and_counts_until_the_end() {
        let (mut w, r) = ring(8192, 1024).expect("ring");
        let path = std::env::temp_dir().join(format!("linerate-consume-{}", std::process::id()));
        let file = File::create(&path).expect("file");
        let seen = Arc::new(AtomicU64::new(0));
        let progress = seen.clone();
        // The sink sees every byte in order, then one empty call at the end.
        let sunk = Arc::new(std::sync::Mutex::new((0u64, 0u32)));
        let sink = sunk.clone();
        let reader = std::thread::spawn(move || {
            consume(
                r,
                2048,
                true,
                Some(file),
                move |n| progress.store(n, Ordering::Relaxed),
                move |offset, data| {
                    let mut s = sink.lock().expect("sink");
                    assert_eq!(offset, s.0, "in order, no gap");
                    s.0 += data.len() as u64;
                    s.1 += u32::from(data.is_empty());
                },
            )
        });
        let mut p = [0u8; 1024];
        for i in 0..32u64 {
            stream::fill(i * 1024, &mut p);
            if i == 20 {
                p[0] ^= 1; // one word that does not verify
            }
            while w.room_until() < (i + 1) * 1024 {
                std::thread::yield_now();
            }
            w.write_at(i * 1024, &p).expect("write");
            w.publish((i + 1) * 1024).expect("publish");
        }
        w.finish();
        let (bytes, errors, io_error) = reader.join().expect("reader");
        assert_eq!((bytes, errors, io_error), (32 * 1024, 1, None));
        assert_eq!(seen.load(Ordering::Relaxed), 32 * 1024);
        assert_eq!(*sunk.lock().expect("sink"), (32 * 1024, 1));
        let written = std::fs::read(&path).expect("read back");
        let _ = std::fs::remove_file(&path);
        assert_eq!(written.len(), 32 * 1024);
        assert_eq!(stream::mismatches(0, &written), 1);
    }

    #[test]
    fn unbounded_readouts_and_mismatched_outputs_are_refused() {
        let host = HostConfig {
            boards: vec![[2, 0, 0, 0, 0, 1]],
            ..HostConfig::default()
        };
        let config = ReceiverConfig::new(LinkConfig::new("lo"), host.clone());
        assert!(matches!(spawn(config), Err(ReceiverError::Unbounded)));
        let mut config = ReceiverConfig::new(
            LinkConfig::new("lo"),
            HostConfig {
                limit_bytes: Some(1),
                ..host
            },
        );
        config.outputs = vec!["a".into(), "b".into()];
        let e = spawn(config).expect_err("two files for one board");
        assert_eq!(
            e.to_string(),
            "2 output files for 1 boards: give one per board or none"
        );
    }

    #[test]
    fn version_names_are_the_wire_names() {
        assert_eq!(WireVersion::V1.name(), "1");
        assert_eq!(WireVersion::TenG.name(), "10g");
    }
}
