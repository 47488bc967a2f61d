//! `linerate.fade.Readout`: a FADE readout of front-end boards (the
//! `linerate_readout` receiver, as `linerate fade recv` runs it), whose
//! rings Python reads in place, chunk by chunk, with the GIL released
//! while waiting.

use std::net::Ipv4Addr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use linerate_fade::fair::FairConfig;
use linerate_fade::host::HostConfig;
use linerate_kafka::chunks::Chunker;
use linerate_readout::link::parse_backend;
use linerate_readout::receiver::WireVersion;
use linerate_readout::{BoardRing, LinkConfig, ReadoutReport, ReceiverConfig, ReceiverHandle};
use linerate_wire::ethernet::MacAddr;

use crate::chunk::Chunk;
use crate::discovery::seconds;
use crate::errors;
use crate::forwarding::{self, Forwarding, ForwardingConfig};
use crate::interrupt::SIGNAL_POLL;
use crate::shared::lock;

/// A board's ring as the readout holds it: being read, or finished (the
/// stream's end, or its error), and its chunker when the readout forwards
/// to Kafka.
struct RingSlot {
    ring: Option<BoardRing>,
    ended: Option<Option<String>>,
    chunker: Option<Chunker>,
}

/// The receiver, running until it has ended and its report is kept.
enum Run {
    Running(ReceiverHandle),
    Ended(Box<ReadoutReport>),
    Failed(String),
}

/// A FADE readout: reads `bytes` (or for `duration` seconds) from each
/// board in `boards` (MAC addresses) over raw Ethernet on `interface`,
/// acknowledging every packet on a receive thread of its own, into one
/// ring per board. Iterate over `chunks(board)` to read a board's stream
/// in place (no copy). It starts when created; use it as a context
/// manager: `close()` ends it and returns the report, with the same
/// fields as `linerate fade recv --json`.
#[pyclass(module = "linerate.fade", frozen)]
pub struct Readout {
    run: Mutex<Run>,
    rings: Vec<Mutex<RingSlot>>,
    spans: Vec<(usize, usize)>,
    boards: Vec<String>,
    interface: String,
    chunk_bytes: usize,
    counters: linerate_readout::receiver::ReadCounters,
    /// Forwarding to Kafka (`to=`).
    kafka: Option<Forwarding>,
}

/// What one look at a ring found.
enum Step {
    Lease(linerate_io::byte_ring::ByteRingLease),
    Ended(Option<String>),
    Waiting,
}

#[pymethods]
impl Readout {
    /// Starts reading out `boards` (MAC addresses such as
    /// "02:00:00:00:00:01") through `interface` (a name, or one of its
    /// IPv4 addresses), in this thread's network namespace. Give `bytes`
    /// (per board) or `duration` (seconds). `version` is the FADE wire
    /// version ("1" or "10g"), `ring_mib` each board's ring in MiB,
    /// `chunk_bytes` the most a chunk holds (and how much gathers before a
    /// waiting reader wakes), `idle_timeout` how long a board may stay
    /// silent, `backend` how frames come in ("ring", "raw" or "xdp"),
    /// `link_rate` the link's bits/s the fair controller divides, `cpu`
    /// pins the receive thread. Defaults are those of `linerate fade
    /// recv`. `to` ("kafka://HOST:PORT[,HOST:PORT...]/TOPIC") forwards
    /// every chunk Python reads, cut into `kafka_chunk_bytes` ad00 arrays
    /// per board (source name = the board's MAC), as `linerate fade recv
    /// --to` does; `kafka_on_full` ("wait" or "drop", counted) and
    /// `kafka_settings` (librdkafka settings) as on `Camera.stream`. Bad
    /// arguments, an unknown interface or a socket that cannot open raise
    /// linerate.Error with the command line's message.
    #[new]
    #[pyo3(signature = (interface, boards, bytes = None, duration = None, version = "1", ring_mib = 64, chunk_bytes = 1_048_576, idle_timeout = 2.0, backend = "ring", link_rate = 1_000_000_000, cpu = None, to = None, kafka_chunk_bytes = 1_048_576, kafka_on_full = "wait", kafka_settings = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        interface: &str,
        boards: Vec<String>,
        bytes: Option<u64>,
        duration: Option<f64>,
        version: &str,
        ring_mib: usize,
        chunk_bytes: usize,
        idle_timeout: f64,
        backend: &str,
        link_rate: u64,
        cpu: Option<usize>,
        to: Option<&str>,
        kafka_chunk_bytes: usize,
        kafka_on_full: &str,
        kafka_settings: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<Readout> {
        let bad = |m: String| errors::Error::new_err(m);
        let macs = boards
            .iter()
            .map(|b| {
                b.parse::<MacAddr>()
                    .map(|m| m.0)
                    .map_err(|e| bad(format!("board {b:?}: {e}")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        if macs.is_empty() {
            return Err(bad("a readout needs at least one board".into()));
        }
        if bytes.is_none() && duration.is_none() {
            return Err(bad(
                "say how much to receive: bytes=N (per board) or duration=SECONDS".into(),
            ));
        }
        if bytes == Some(0) {
            return Err(bad("bytes = 0: give at least 1".into()));
        }
        let duration = duration.map(|d| seconds(d, "duration")).transpose()?;
        let idle = seconds(idle_timeout, "idle_timeout")?;
        let version = match version.to_ascii_lowercase().as_str() {
            "1" => WireVersion::V1,
            "10g" => WireVersion::TenG,
            other => {
                return Err(bad(format!(
                    "unknown FADE version {other:?}: expected 1 or 10g"
                )))
            }
        };
        if !(1..=65_536).contains(&ring_mib) {
            return Err(bad(format!("ring_mib = {ring_mib}: expected 1..=65536")));
        }
        if chunk_bytes == 0 {
            return Err(bad("chunk_bytes = 0: give at least 1".into()));
        }
        if kafka_chunk_bytes == 0 {
            return Err(bad("kafka_chunk_bytes = 0: give at least 1".into()));
        }
        let backend = parse_backend(backend).map_err(bad)?;
        let interface = interface_name(interface).map_err(bad)?;
        let kafka = to
            .map(|to| {
                ForwardingConfig::parse(
                    to,
                    &format!("fade-recv-{interface}"),
                    kafka_on_full,
                    kafka_settings.map(|s| s.into_iter().collect()),
                )
            })
            .transpose()?
            .map(|k| py.detach(|| k.spawn()))
            .transpose()?;
        let host = HostConfig {
            boards: macs.clone(),
            limit_bytes: bytes,
            duration_ns: duration.map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            idle_timeout_ns: u64::try_from(idle.as_nanos()).unwrap_or(u64::MAX),
            ring_bytes: ring_mib << 20,
            fair: Some(FairConfig {
                link_bits_per_sec: link_rate,
                ..FairConfig::default()
            }),
            first_seq: first_seq(),
            ..HostConfig::default()
        };
        let config = ReceiverConfig {
            version,
            receive_cpu: cpu,
            ..ReceiverConfig::new(
                LinkConfig {
                    backend,
                    ..LinkConfig::new(interface.clone())
                },
                host,
            )
        };
        let (handle, mut rings) = py
            .detach(|| linerate_readout::spawn_with_rings(config))
            .map_err(|e| bad(errors::chain(&e)))?;
        let wakeup = chunk_bytes as u64;
        let spans = rings
            .iter_mut()
            .map(|r| {
                let capacity = r.capacity();
                r.set_wakeup(wakeup.min(capacity as u64 / 4));
                (r.base_address(), capacity)
            })
            .collect();
        let counters = handle.counters();
        let boards: Vec<String> = macs.iter().map(|m| MacAddr(*m).to_string()).collect();
        Ok(Readout {
            run: Mutex::new(Run::Running(handle)),
            rings: rings
                .into_iter()
                .zip(&boards)
                .map(|(r, mac)| {
                    Mutex::new(RingSlot {
                        ring: Some(r),
                        ended: None,
                        chunker: kafka.as_ref().map(|k| k.chunker(mac, kafka_chunk_bytes)),
                    })
                })
                .collect(),
            spans,
            boards,
            interface,
            chunk_bytes,
            counters,
            kafka,
        })
    }

    /// Iterates over board `board`'s stream (an index into `boards`) as
    /// Chunks, in order, each at most `chunk_bytes` long, until the
    /// board's stream ends; waits up to `timeout` seconds for each: a
    /// longer silence raises linerate.TimeoutError, and the readout stays
    /// usable. A board that failed raises linerate.Error saying why. The
    /// GIL is released while waiting, and Ctrl-C interrupts a wait within
    /// 50 ms with KeyboardInterrupt (the readout stays usable).
    #[pyo3(signature = (board = 0, timeout = 1.0))]
    fn chunks(slf: Py<Readout>, board: usize, timeout: f64) -> PyResult<ChunkIter> {
        let boards = slf.get().boards.len();
        if board >= boards {
            return Err(errors::Error::new_err(format!(
                "board {board}: the readout has {boards} board(s), 0..{boards}"
            )));
        }
        Ok(ChunkIter {
            readout: slf,
            board,
            timeout: seconds(timeout, "timeout")?,
        })
    }

    /// The boards' MAC addresses, in order (`chunks(board=i)` reads the
    /// i-th).
    #[getter]
    fn boards(&self) -> Vec<String> {
        self.boards.clone()
    }

    /// The interface read from, by name.
    #[getter]
    fn interface(&self) -> &str {
        &self.interface
    }

    /// Bytes handed to Python so far, per board.
    #[getter]
    fn bytes_read(&self) -> Vec<u64> {
        self.counters.bytes_read()
    }

    /// Where board `board`'s ring lies in memory, as (address, size in
    /// bytes): every chunk of the board lies inside it.
    fn ring_span(&self, board: usize) -> PyResult<(usize, usize)> {
        self.spans.get(board).copied().ok_or_else(|| {
            errors::Error::new_err(format!(
                "board {board}: the readout has {} board(s)",
                self.boards.len()
            ))
        })
    }

    /// True once the readout has ended (every board's stream over, and
    /// each read to its end or closed).
    #[getter]
    fn finished(&self) -> bool {
        match &*lock(&self.run) {
            Run::Running(h) => h.is_finished(),
            _ => true,
        }
    }

    /// The report once the readout has ended, as a dict with the same
    /// fields as `linerate fade recv --json` (`complete` says whether
    /// every board delivered all it was asked for; each board's `error`
    /// says why not); None while it runs. A readout ends when every
    /// board's stream is over and has been read to its end (or
    /// `close()`).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if !self.finished() {
            return Ok(None);
        }
        let report = self.wait_report(py)?;
        if let Some(kafka) = &self.kafka {
            kafka.add_to(&report)?;
        }
        Ok(Some(report))
    }

    /// Ends the readout (unfinished boards end as interrupted and are
    /// sent STOP), lets go of the rings (chunks still held stay valid:
    /// the ring memory lives as long as they do) and returns the report
    /// (as `stats()`). Closing again returns the same report. The GIL is
    /// released while waiting for the receive thread.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if let Run::Running(h) = &*lock(&self.run) {
            h.stop();
        }
        py.detach(|| {
            for slot in &self.rings {
                let mut slot = lock(slot);
                if slot.ring.take().is_some() && slot.ended.is_none() {
                    slot.ended = Some(Some("the readout is closed".into()));
                }
                flush(&mut slot);
            }
        });
        let report = self.wait_report(py)?;
        if let Some(kafka) = &self.kafka {
            if let Some(message) = forwarding::undelivered(&py.detach(|| kafka.finish()), "chunks")
            {
                return Err(errors::Error::new_err(message));
            }
            kafka.add_to(&report)?;
        }
        Ok(report)
    }

    fn __enter__(slf: Py<Readout>) -> Py<Readout> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _exc_type: &Bound<'_, PyAny>,
        _exc: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!(
            "Readout(interface={:?}, boards={:?})",
            self.interface, self.boards
        )
    }
}

impl Readout {
    /// Waits (GIL released, Ctrl-C looked for every 50 ms) for the
    /// receive thread to end, keeps its report and returns it as a dict.
    fn wait_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loop {
            let done = py.detach(|| {
                let mut run = lock(&self.run);
                let finished = match &*run {
                    Run::Running(h) => h.is_finished(),
                    _ => true,
                };
                if !finished {
                    drop(run);
                    std::thread::sleep(Duration::from_millis(5));
                    return false;
                }
                let ended = std::mem::replace(&mut *run, Run::Failed(String::new()));
                *run = match ended {
                    Run::Running(h) => match h.join() {
                        Ok(report) => Run::Ended(Box::new(report)),
                        Err(e) => Run::Failed(errors::chain(&e)),
                    },
                    other => other,
                };
                true
            });
            if done {
                break;
            }
            py.check_signals()?;
        }
        match &*lock(&self.run) {
            Run::Ended(report) => errors::to_dict(py, report),
            Run::Failed(why) => Err(errors::Error::new_err(why.clone())),
            Run::Running(_) => Err(errors::Error::new_err("the readout is still running")),
        }
    }

    /// One look at board `board`'s ring: a chunk if bytes are there,
    /// the stream's end, or a wait of up to `wait` for more. No GIL.
    fn step(&self, board: usize, wait: Duration) -> Step {
        let mut slot = lock(&self.rings[board]);
        let slot = &mut *slot;
        let Some(ring) = slot.ring.as_mut() else {
            return Step::Ended(slot.ended.clone().flatten());
        };
        if let Some(lease) = ring.lend(self.chunk_bytes) {
            if let Some(c) = slot.chunker.as_mut() {
                // A chunk the forwarder could not take is counted in its
                // report, which close() checks.
                let _ = c.push(lease.offset(), &lease);
            }
            return Step::Lease(lease);
        }
        let p = ring.pointers();
        if p.head == ring.lent() && (p.eof || p.error.is_some()) {
            // Read to its end: the board's bytes received are now known.
            slot.ring = None;
            slot.ended = Some(p.error.clone());
            flush(slot);
            return Step::Ended(p.error);
        }
        if !wait.is_zero() {
            ring.wait(wait);
        }
        Step::Waiting
    }

    /// Board `board`'s next chunk within `timeout`; None at the end of its
    /// stream.
    fn next_chunk(
        &self,
        py: Python<'_>,
        board: usize,
        timeout: Duration,
    ) -> PyResult<Option<Chunk>> {
        let deadline = Instant::now() + timeout;
        loop {
            let slice = deadline
                .saturating_duration_since(Instant::now())
                .min(SIGNAL_POLL);
            match py.detach(|| self.step(board, slice)) {
                Step::Lease(lease) => return Ok(Some(Chunk::new(lease, board))),
                Step::Ended(None) => return Ok(None),
                Step::Ended(Some(why)) => {
                    // A board failure names its board already.
                    let mac = &self.boards[board];
                    return Err(errors::Error::new_err(if why.contains(mac.as_str()) {
                        why
                    } else {
                        format!("board {mac}: {why}")
                    }));
                }
                Step::Waiting => {
                    py.check_signals()?;
                    if Instant::now() >= deadline {
                        return Err(errors::TimeoutError::new_err(format!(
                            "no data from board {} within {timeout:?}",
                            self.boards[board]
                        )));
                    }
                }
            }
        }
    }
}

impl Drop for Readout {
    /// A readout dropped without `close()` is ended all the same (its
    /// rings are no longer read).
    fn drop(&mut self) {
        if let Run::Running(h) = &*lock(&self.run) {
            h.stop();
        }
    }
}

/// The iterator `Readout.chunks()` returns. It holds no chunk itself: the
/// previous one goes back to the ring as soon as Python lets go of it.
#[pyclass(module = "linerate.fade", frozen)]
pub struct ChunkIter {
    readout: Py<Readout>,
    board: usize,
    timeout: Duration,
}

#[pymethods]
impl ChunkIter {
    fn __iter__(slf: Py<ChunkIter>) -> Py<ChunkIter> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Chunk>> {
        self.readout.get().next_chunk(py, self.board, self.timeout)
    }
}

/// Forwards what a board's chunker still gathers (its stream's last,
/// shorter chunk) and retires the chunker.
fn flush(slot: &mut RingSlot) {
    if let Some(mut c) = slot.chunker.take() {
        let _ = c.flush();
    }
}

/// An interface given by name, or by one of its IPv4 addresses, as its
/// name (FADE works at the Ethernet layer).
fn interface_name(spec: &str) -> Result<String, String> {
    let t = spec.trim();
    if t.parse::<Ipv4Addr>().is_err() {
        return Ok(t.to_owned());
    }
    linerate_io::interfaces::find_ipv4_interface(t)
        .map(|i| i.name)
        .map_err(|e| format!("{e}: no local interface has this address"))
}

/// Seq of the first START/STOP/RESET: from the clock, so a board that
/// still remembers an earlier readout's last seq does not take the new
/// START for a repeat (as `linerate fade recv` does).
fn first_seq() -> u16 {
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    micros as u16
}
