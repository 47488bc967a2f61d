//! The data stream module over linerate's grab engine: the consumer
//! announces buffers (its own memory, or memory we allocate) and queues
//! them. By default each queued buffer is lent to the engine, which
//! receives the frame straight into it (the kernel's copy is the only
//! one), and `EventGetData` hands it over when the frame is done. With an
//! engine pool of its own (`LinerateStreamEngineBuffers` > 0, or a buffer
//! smaller than the payload), each frame the engine delivers is copied
//! once into the oldest queued buffer instead. Incomplete frames are
//! handed over too, flagged, and come back like any other buffer when
//! queued again.
//!
//! Frames are pulled from the engine by the consumer's own wait (no thread
//! of ours between the engine and the consumer), so a 1 ms wait costs one
//! lock and one condition-variable wait.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use linerate_grab::session::{Pulled, Session};
use linerate_grab::stream::{Buffer, LentMemory, Requeue};

use crate::abi::{
    buffer_info, payload_type, pixel_endianness, pixel_namespace, stream_info, INFINITE,
};
use crate::device::{Connection, Device};
use crate::error::{GcError, GcResult};
use crate::info::Info;
use crate::local_port::{Field, Fields, LocalPort, Value};
pub use crate::stream_options::STREAM_ID;
use crate::stream_options::{Counters, StreamOptions, STREAM_FIELDS};
use crate::system::{lock, TL_TYPE};

/// The longest one wait holds the device's connection: port access from
/// another thread waits at most this long.
const SLICE: Duration = Duration::from_millis(10);

/// How long a wait goes on past its timeout for a frame that is arriving
/// (some of its packets came). Harvesters waits for each frame in 1 ms
/// `EventGetData` calls, and every one that times out costs it a C++ and
/// a Python exception and a wake-up: a 4 MiB frame takes 3.4 ms to arrive
/// at 10 Gbit/s, so without this most of its waits would end that way.
/// Waits with a timeout of 0 (a poll) are never extended.
pub const ARRIVING_GRACE: Duration = Duration::from_millis(10);

/// The fewest announced buffers the engine receives into directly: it
/// keeps half of its buffers' worth of frames in flight (waiting for
/// resent packets), and fewer than 4 would give up frames under loss that
/// its own pool of 16 completes. Fewer still work, through the engine's
/// pool.
const LEND_MIN_BUFFERS: usize = 8;

/// What `STREAM_INFO_BUF_ANNOUNCE_MIN` asks for with `payload`-byte
/// frames: as many buffers as `linerate grab`'s own pool (16, fewer when
/// 16 would pass 1 GiB), and never fewer than the engine receives into
/// directly. A consumer that announces what the producer asks for
/// (Harvesters: `max(3, BUF_ANNOUNCE_MIN)`) so gets frames with no copy of
/// ours and as many frames in flight, waiting for resent packets, as grab:
/// with 8, a loaded receiving core gave up frames under loss that 16
/// completed.
pub fn announce_min(payload: usize) -> usize {
    use linerate_grab::session::{DEFAULT_BUFFERS, DEFAULT_BUFFER_MEMORY};
    let fit =
        usize::try_from(DEFAULT_BUFFER_MEMORY / (payload as u64).max(1)).unwrap_or(usize::MAX);
    // Both bounds are constants, 8 <= 16: the clamp cannot panic.
    fit.clamp(LEND_MIN_BUFFERS, DEFAULT_BUFFERS)
}

/// Memory a frame is copied into: the consumer's (announced) or ours
/// (allocated and announced).
pub trait Memory: Send + std::fmt::Debug {
    /// Size in bytes.
    fn len(&self) -> usize;
    /// True for zero bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Where it starts, as the consumer sees it.
    fn base(&self) -> usize;
    /// Copies as much of `data` as fits; returns the bytes copied.
    fn fill(&mut self, data: &[u8]) -> usize;
    /// A view of its first `len` bytes (at most all of it) for the grab
    /// engine to receive a frame into, under buffer handle `id` (see
    /// `lend_view` in the C boundary module for the promise the data
    /// stream keeps while it is lent).
    fn lend(&mut self, id: u64, len: usize) -> Box<dyn LentMemory>;
}

/// Memory the producer allocates for `DSAllocAndAnnounceBuffer`.
#[derive(Debug)]
pub struct OwnedMemory(Box<[u8]>);

impl OwnedMemory {
    /// `len` zeroed bytes.
    pub fn new(len: usize) -> OwnedMemory {
        OwnedMemory(vec![0u8; len].into_boxed_slice())
    }
}

impl Memory for OwnedMemory {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn base(&self) -> usize {
        self.0.as_ptr() as usize
    }
    fn fill(&mut self, data: &[u8]) -> usize {
        let n = data.len().min(self.0.len());
        if let (Some(dst), Some(src)) = (self.0.get_mut(..n), data.get(..n)) {
            dst.copy_from_slice(src);
        }
        n
    }
    fn lend(&mut self, id: u64, len: usize) -> Box<dyn LentMemory> {
        let len = len.min(self.0.len());
        crate::ffi::lent::lend_view(id, self.0.as_mut_ptr() as usize, len)
    }
}

/// What the last frame copied into a buffer was.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filled {
    /// Bytes copied.
    pub size: usize,
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// PFNC pixel format code (0 when the leader was lost).
    pub pixel_format: u32,
    /// GVSP block id.
    pub frame_id: u64,
    /// Camera timestamp in ticks.
    pub timestamp: u64,
    /// Not every byte arrived (or the frame did not fit).
    pub incomplete: bool,
    /// The frame was larger than the buffer.
    pub larger: bool,
}

/// One announced buffer.
#[derive(Debug)]
struct Announced {
    memory: Box<dyn Memory>,
    private: usize,
    queued: bool,
    /// The engine holds it (lent, not yet delivered back).
    lent: bool,
    filled: Option<Filled>,
}

#[derive(Debug, Default)]
struct State {
    buffers: BTreeMap<u64, Announced>,
    input: VecDeque<u64>,
    /// Buffers handed to the output queue without a frame (`DSFlushQueue`
    /// INPUT_TO_OUTPUT), delivered by the next waits before any frame.
    output: VecDeque<u64>,
    acquiring: bool,
    /// Frames still to deliver in this acquisition (`INFINITE`: no limit).
    remaining: u64,
    delivered: u64,
    underrun: u64,
    started: u64,
    incomplete: u64,
    /// Buffers delivered that the engine received straight into.
    direct: u64,
    killed: bool,
    options: StreamOptions,
    /// Frames the engine verified and found corrupt (last acquisition).
    verified: u64,
    corrupt: u64,
    /// Packets the camera resent (last acquisition).
    resent: u64,
    /// The NEW_BUFFER event's handle, while registered.
    event: Option<u64>,
    /// While an acquisition receives straight into queued buffers: how
    /// to lend them to the engine, and the payload size each must hold.
    lending: Option<(Requeue, usize)>,
}

impl State {
    /// Lends every queued buffer the engine does not hold yet, while an
    /// acquisition receives into them.
    fn lend_queued(&mut self) {
        let Some((requeue, payload)) = &self.lending else {
            return;
        };
        for h in &self.input {
            if let Some(b) = self.buffers.get_mut(h).filter(|b| !b.lent) {
                // The engine takes as many buffers as are announced, so
                // this fails only once its thread has stopped.
                b.lent = requeue
                    .queue(Buffer::lent(b.memory.lend(*h, *payload)))
                    .is_ok();
            }
        }
    }
}

/// An opened data stream.
#[derive(Debug)]
pub struct DataStream {
    /// The device it streams from.
    pub device: Arc<Device>,
    state: Mutex<State>,
    changed: Condvar,
    /// The stream module's own port.
    pub port: LocalPort,
}

impl Fields for DataStream {
    fn value(&self, field: &Field) -> Value {
        self.refresh_counters();
        let s = self.state();
        let counters = Counters {
            delivered: s.delivered,
            incomplete: s.incomplete,
            verified: s.verified,
            corrupt: s.corrupt,
            resent: s.resent,
            direct: s.direct,
        };
        s.options.value(field.name, &counters)
    }

    fn set(&self, field: &Field, value: i64) -> GcResult<()> {
        let mut s = self.state();
        if s.acquiring {
            return Err(GcError::AccessDenied(format!(
                "{} cannot change while the stream acquires",
                field.name
            )));
        }
        s.options.set(field.name, value)
    }
}

impl DataStream {
    /// The data stream of `device`.
    pub fn new(device: Arc<Device>) -> DataStream {
        DataStream {
            device,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            port: LocalPort::new(
                "TLDataStream",
                "TLDataStreamPort",
                "linerate_stream.xml",
                &STREAM_FIELDS,
            ),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Takes the engine's counters while it runs.
    fn refresh_counters(&self) {
        let conn = self.device.connection();
        if let Connection::Acquiring(a) = &*conn {
            let p = a.progress();
            let mut s = self.state();
            s.verified = p.frames_verified;
            s.corrupt = p.frames_corrupt;
        }
    }

    /// Adds a buffer under `handle`.
    pub fn announce(&self, handle: u64, memory: Box<dyn Memory>, private: usize) -> GcResult<()> {
        if memory.is_empty() {
            return Err(GcError::InvalidParameter(
                "a buffer of 0 bytes cannot hold a frame".into(),
            ));
        }
        self.state().buffers.insert(
            handle,
            Announced {
                memory,
                private,
                queued: false,
                lent: false,
                filled: None,
            },
        );
        Ok(())
    }

    /// Whether `handle` is one of this stream's buffers.
    pub fn has_buffer(&self, handle: u64) -> bool {
        self.state().buffers.contains_key(&handle)
    }

    /// Puts a buffer in the input queue.
    pub fn queue(&self, handle: u64) -> GcResult<()> {
        let mut guard = self.state();
        let s = &mut *guard;
        let b = s
            .buffers
            .get_mut(&handle)
            .ok_or_else(|| GcError::InvalidBuffer(format!("{handle:#x} is not announced")))?;
        if b.queued {
            return Err(GcError::ResourceInUse(format!(
                "buffer {handle:#x} is queued already"
            )));
        }
        if let (Some((requeue, payload)), false) = (&s.lending, b.lent) {
            if b.memory.len() < *payload {
                return Err(GcError::InvalidParameter(format!(
                    "buffer {handle:#x} holds {} bytes, the payload is {payload}",
                    b.memory.len()
                )));
            }
            requeue
                .queue(Buffer::lent(b.memory.lend(handle, *payload)))
                .map_err(|e| GcError::Io(format!("lending a buffer to the engine: {e}")))?;
            b.lent = true;
        }
        b.queued = true;
        s.input.push_back(handle);
        drop(guard);
        self.changed.notify_all();
        Ok(())
    }

    /// Takes a buffer out of the stream: its base address and private
    /// pointer. Refused while it is queued and the stream acquires.
    pub fn revoke(&self, handle: u64) -> GcResult<(usize, usize)> {
        let mut s = self.state();
        let b = s
            .buffers
            .get(&handle)
            .ok_or_else(|| GcError::InvalidBuffer(format!("{handle:#x} is not announced")))?;
        if b.queued && s.acquiring {
            return Err(GcError::ResourceInUse(format!(
                "buffer {handle:#x} is queued and the stream acquires: stop or flush first"
            )));
        }
        if b.lent {
            return Err(GcError::ResourceInUse(format!(
                "buffer {handle:#x} is still receiving a frame: stop acquisition first"
            )));
        }
        s.input.retain(|&h| h != handle);
        s.output.retain(|&h| h != handle);
        let b = s
            .buffers
            .remove(&handle)
            .ok_or_else(|| GcError::InvalidBuffer(format!("{handle:#x} is not announced")))?;
        Ok((b.memory.base(), b.private))
    }

    /// The handles of every announced buffer (for closing them).
    pub fn buffer_handles(&self) -> Vec<u64> {
        self.state().buffers.keys().copied().collect()
    }

    /// The handle of announced buffer `index`.
    pub fn buffer_at(&self, index: u32) -> GcResult<u64> {
        let s = self.state();
        s.buffers
            .keys()
            .nth(index as usize)
            .copied()
            .ok_or(GcError::InvalidIndex {
                index: u64::from(index),
                count: s.buffers.len() as u64,
            })
    }

    /// `DSFlushQueue`.
    pub fn flush(&self, operation: i32) -> GcResult<()> {
        use crate::abi::flush;
        let mut s = self.state();
        match operation {
            flush::OUTPUT_DISCARD => s.output.clear(),
            flush::ALL_DISCARD => {
                s.input.clear();
                s.output.clear();
                for b in s.buffers.values_mut() {
                    b.queued = false;
                }
            }
            flush::INPUT_TO_OUTPUT => {
                while let Some(h) = s.input.pop_front() {
                    if let Some(b) = s.buffers.get_mut(&h) {
                        b.queued = false;
                        b.filled = None;
                    }
                    s.output.push_back(h);
                }
            }
            flush::ALL_TO_INPUT | flush::UNQUEUED_TO_INPUT => {
                if operation == flush::ALL_TO_INPUT {
                    s.output.clear();
                }
                let waiting: Vec<u64> = s.output.iter().copied().collect();
                let unqueued: Vec<u64> = s
                    .buffers
                    .iter()
                    .filter(|(h, b)| !b.queued && !waiting.contains(h))
                    .map(|(&h, _)| h)
                    .collect();
                for h in unqueued {
                    if let Some(b) = s.buffers.get_mut(&h) {
                        b.queued = true;
                    }
                    s.input.push_back(h);
                }
                s.lend_queued();
            }
            other => {
                return Err(GcError::InvalidParameter(format!(
                    "ACQ_QUEUE_TYPE {other} is not a flush operation"
                )))
            }
        }
        drop(s);
        self.changed.notify_all();
        Ok(())
    }

    /// Starts the engine (the camera is started by the consumer, through
    /// its node map); `count` frames are delivered (`INFINITE`: until
    /// stopped).
    pub fn start(&self, count: u64) -> GcResult<()> {
        let mut conn = self.device.connection();
        let options = {
            let s = self.state();
            if s.acquiring {
                return Err(GcError::ResourceInUse("the stream acquires already".into()));
            }
            if s.buffers.is_empty() {
                return Err(GcError::NoData(
                    "no buffer is announced: announce and queue buffers before starting".into(),
                ));
            }
            s.options
        };
        let mut camera = match std::mem::replace(&mut *conn, Connection::Lost("starting".into())) {
            Connection::Idle(c) => *c,
            other => {
                *conn = other;
                return Err(GcError::ResourceInUse(
                    "the device's connection is busy or lost".into(),
                ));
            }
        };
        let mut config = options.grab_config(crate::system::device_id(&self.device.found));
        let stop = Arc::new(AtomicBool::new(false));
        // Frames go straight into the consumer's buffers unless an engine
        // pool was asked for or a buffer cannot hold a whole payload.
        let lend = match (options.engine_buffers, camera.payload_size()) {
            (0, Ok(payload)) => {
                let s = self.state();
                let enough = s.buffers.len() >= LEND_MIN_BUFFERS;
                (enough && s.buffers.values().all(|b| b.memory.len() >= payload))
                    .then(|| (s.buffers.len(), payload))
            }
            _ => None,
        };
        let session = match lend {
            Some((count, _)) => {
                // The engine allocates nothing: room for every buffer.
                config.buffers = Some(count.max(1));
                config.buffer_memory = u64::MAX;
                Session::with_camera_lending(camera, config, stop)
            }
            None => Session::with_camera(camera, config, stop),
        };
        // The consumer starts the camera itself (AcquisitionStart on the
        // remote device's node map), as the GenTL standard has it.
        match session.and_then(Session::start_stream_only) {
            Ok(acquisition) => {
                let requeue = acquisition.requeue_handle();
                *conn = Connection::Acquiring(Box::new(acquisition));
                let mut guard = self.state();
                let s = &mut *guard;
                if let Some((_, payload)) = lend {
                    s.lending = Some((requeue, payload));
                    s.lend_queued();
                }
                s.acquiring = true;
                s.killed = false;
                s.remaining = if count == 0 { INFINITE } else { count };
                s.verified = 0;
                s.corrupt = 0;
                Ok(())
            }
            Err(e) => {
                // The session consumed the connection: take control again.
                *conn = match self.device.reopen() {
                    Ok(c) => Connection::Idle(Box::new(c)),
                    Err(again) => Connection::Lost(again.to_string()),
                };
                Err(GcError::Io(format!("starting the stream: {e}")))
            }
        }
    }

    /// Stops the engine, and the camera (AcquisitionStop) in case the
    /// consumer has not: no camera keeps streaming at a closed port.
    pub fn stop(&self) -> GcResult<()> {
        let mut conn = self.device.connection();
        let running = std::mem::replace(&mut *conn, Connection::Lost("stopping".into()));
        match running {
            Connection::Acquiring(a) => {
                let (report, camera) = a.finish();
                *conn = Connection::Idle(Box::new(camera));
                let mut s = self.state();
                s.acquiring = false;
                // The receive thread is joined: nothing holds a buffer now.
                s.lending = None;
                for b in s.buffers.values_mut() {
                    b.lent = false;
                }
                s.verified = report.frames_verified;
                s.corrupt = report.frames_corrupt;
                s.resent = report.packets_resent;
                // Frames the engine dropped for want of a buffer (ours
                // lent, or its own pool's).
                s.underrun += report.underruns;
                drop(s);
                self.changed.notify_all();
                Ok(())
            }
            other => {
                *conn = other;
                Err(GcError::ResourceInUse("the stream is not acquiring".into()))
            }
        }
    }

    /// Waits up to `timeout_ms` for a filled buffer: its handle and
    /// private pointer. A wait that times out while a frame is arriving
    /// goes on until that frame is handed over, at most
    /// [`ARRIVING_GRACE`] longer (unless `timeout_ms` is 0).
    pub fn wait_buffer(&self, timeout_ms: u64) -> GcResult<(u64, usize)> {
        let mut deadline =
            (timeout_ms != INFINITE).then(|| Instant::now() + Duration::from_millis(timeout_ms));
        let mut in_grace = false;
        loop {
            {
                let mut s = self.state();
                if s.killed {
                    s.killed = false;
                    return Err(GcError::Abort("the wait was killed (EventKill)".into()));
                }
                if let Some(h) = s.output.pop_front() {
                    let private = s.buffers.get(&h).map_or(0, |b| b.private);
                    return Ok((h, private));
                }
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let slice = left.unwrap_or(SLICE).min(SLICE);
            if let Some(got) = self.pull_one(slice)? {
                return Ok(got);
            }
            let expired = left.is_some_and(|l| l.is_zero());
            if expired || in_grace {
                // A poll (timeout 0) has no grace, a wait one: it times out
                // when that is over too, or when no frame is on its way
                // (none started, or it finished without reaching us).
                let grace_over = expired && (in_grace || timeout_ms == 0);
                if grace_over || !self.frame_in_flight() {
                    // A frame completed after a blocking pull gave up and
                    // before the check above is waiting now: hand it over.
                    let last = if slice.is_zero() {
                        None
                    } else {
                        self.pull_one(Duration::ZERO)?
                    };
                    return last.ok_or(GcError::Timeout(timeout_ms));
                }
                if expired {
                    in_grace = true;
                    deadline = Some(Instant::now() + ARRIVING_GRACE);
                }
            }
        }
    }

    /// Whether the engine is receiving a frame now (packets of it came,
    /// it is neither complete nor given up): what a wait's grace waits
    /// for. Public so tests can start a wait while a frame is known to be
    /// on its way.
    pub fn frame_in_flight(&self) -> bool {
        match &*self.device.connection() {
            Connection::Acquiring(a) => a.frame_in_flight(),
            _ => false,
        }
    }

    /// One wait of at most `slice`: a frame copied into the oldest queued
    /// buffer, or None.
    fn pull_one(&self, slice: Duration) -> GcResult<Option<(u64, usize)>> {
        let mut conn = self.device.connection();
        let Connection::Acquiring(acquisition) = &mut *conn else {
            drop(conn);
            self.idle_wait(slice);
            return Ok(None);
        };
        {
            let s = self.state();
            // Lent buffers wait in the engine; copied frames need a queued one.
            let no_buffer = s.lending.is_none() && s.input.is_empty();
            if no_buffer || s.remaining == 0 {
                // The engine keeps frames in its own pool meanwhile.
                drop(conn);
                self.idle_wait_on(s, slice);
                return Ok(None);
            }
        }
        let frame = match acquisition.pull(slice) {
            Pulled::Frame(frame) => frame,
            Pulled::Waiting => return Ok(None),
            Pulled::Ended => {
                let why = acquisition
                    .error()
                    .unwrap_or_else(|| "the acquisition ended".into());
                return Err(GcError::Io(why));
            }
        };
        let lent = self.state().lending.is_some();
        if lent {
            return Ok(self.deliver_lent(frame));
        }
        let delivered = self.deliver(&frame);
        acquisition
            .requeue(frame)
            .map_err(|e| GcError::Io(format!("returning a buffer to the engine: {e}")))?;
        Ok(delivered)
    }

    /// Hands over the buffer the engine received `frame` into.
    fn deliver_lent(&self, frame: Buffer) -> Option<(u64, usize)> {
        let filled = Self::filled(&frame, frame.data().len(), false);
        let handle = frame.into_memory().into_lent()?.id();
        let mut guard = self.state();
        let s = &mut *guard;
        s.started += 1;
        let b = s.buffers.get_mut(&handle)?;
        b.lent = false;
        if !b.queued {
            // Flushed out of the input queue meanwhile: not delivered.
            return None;
        }
        b.queued = false;
        b.filled = Some(filled);
        let private = b.private;
        s.input.retain(|&h| h != handle);
        s.delivered += 1;
        s.direct += 1;
        if filled.incomplete {
            s.incomplete += 1;
        }
        if s.remaining != INFINITE {
            s.remaining = s.remaining.saturating_sub(1);
        }
        Some((handle, private))
    }

    /// What `frame` leaves in a buffer it filled `size` bytes of.
    fn filled(frame: &Buffer, size: usize, larger: bool) -> Filled {
        let info = frame.info();
        Filled {
            size,
            width: info.width,
            height: info.height,
            pixel_format: info.pixel_format.map_or(0, |p| p.0),
            frame_id: info.block_id,
            timestamp: info.timestamp,
            incomplete: !frame.is_complete() || larger,
            larger,
        }
    }

    /// Copies `frame` into the oldest queued buffer.
    fn deliver(&self, frame: &Buffer) -> Option<(u64, usize)> {
        let mut s = self.state();
        s.started += 1;
        let Some(handle) = s.input.pop_front() else {
            s.underrun += 1;
            return None;
        };
        let b = s.buffers.get_mut(&handle)?;
        b.queued = false;
        let data = frame.data();
        let size = b.memory.fill(data);
        let filled = Self::filled(frame, size, size < data.len());
        b.filled = Some(filled);
        let private = b.private;
        s.delivered += 1;
        if filled.incomplete {
            s.incomplete += 1;
        }
        if s.remaining != INFINITE {
            s.remaining = s.remaining.saturating_sub(1);
        }
        Some((handle, private))
    }

    fn idle_wait(&self, slice: Duration) {
        let s = self.state();
        self.idle_wait_on(s, slice);
    }

    fn idle_wait_on(&self, s: MutexGuard<'_, State>, slice: Duration) {
        if s.killed {
            return;
        }
        drop(
            self.changed
                .wait_timeout(s, slice)
                .unwrap_or_else(|p| p.into_inner()),
        );
    }

    /// Ends a wait in `EventGetData` (`EventKill`).
    pub fn kill_wait(&self) {
        self.state().killed = true;
        self.changed.notify_all();
    }

    /// Registers the NEW_BUFFER event under `handle`.
    pub fn register_event(&self, handle: u64) -> GcResult<()> {
        let mut s = self.state();
        if s.event.is_some() {
            return Err(GcError::ResourceInUse(
                "NEW_BUFFER is registered already".into(),
            ));
        }
        s.event = Some(handle);
        Ok(())
    }

    /// Unregisters the NEW_BUFFER event; its handle, if it was registered.
    pub fn unregister_event(&self) -> Option<u64> {
        self.state().event.take()
    }

    /// Buffers waiting in the output queue (`EVENT_INFO_NUM_IN_QUEUE`).
    pub fn waiting(&self) -> usize {
        self.state().output.len()
    }

    /// Discards the output queue (`EventFlush`).
    pub fn flush_output(&self) {
        self.state().output.clear();
    }

    /// Events delivered so far (`EVENT_INFO_NUM_FIRED`).
    pub fn delivered(&self) -> u64 {
        self.state().delivered
    }

    /// Answers `DSGetInfo`.
    pub fn info(&self, command: i32) -> GcResult<Info> {
        let s = self.state();
        Ok(match command {
            stream_info::ID => Info::Str(STREAM_ID.into()),
            stream_info::NUM_DELIVERED => Info::U64(s.delivered),
            stream_info::NUM_UNDERRUN => Info::U64(s.underrun),
            stream_info::NUM_ANNOUNCED => Info::Size(s.buffers.len()),
            stream_info::NUM_QUEUED => Info::Size(s.input.len()),
            stream_info::NUM_AWAIT_DELIVERY => Info::Size(s.output.len()),
            stream_info::NUM_STARTED => Info::U64(s.started),
            stream_info::PAYLOAD_SIZE => {
                drop(s);
                Info::Size(self.device.payload_size()?)
            }
            stream_info::IS_GRABBING => Info::Bool(s.acquiring),
            stream_info::DEFINES_PAYLOADSIZE => Info::Bool(true),
            stream_info::TLTYPE => Info::Str(TL_TYPE.into()),
            stream_info::NUM_CHUNKS_MAX => Info::Size(0),
            stream_info::BUF_ANNOUNCE_MIN => {
                drop(s);
                // A device whose payload cannot be read yet: the least
                // that still receives directly.
                Info::Size(
                    self.device
                        .payload_size()
                        .map_or(LEND_MIN_BUFFERS, announce_min),
                )
            }
            stream_info::BUF_ALIGNMENT => Info::Size(1),
            other => return Err(GcError::unknown_command("STREAM_INFO_CMD", other)),
        })
    }

    /// Answers `DSGetBufferInfo` for buffer `handle`.
    pub fn buffer_info(&self, handle: u64, command: i32) -> GcResult<Info> {
        let s = self.state();
        let b = s
            .buffers
            .get(&handle)
            .ok_or_else(|| GcError::InvalidBuffer(format!("{handle:#x} is not announced")))?;
        let filled = || {
            b.filled
                .ok_or_else(|| GcError::NotAvailable("the buffer has not been filled yet".into()))
        };
        Ok(match command {
            buffer_info::BASE => Info::Ptr(b.memory.base()),
            buffer_info::SIZE => Info::Size(b.memory.len()),
            buffer_info::USER_PTR => Info::Ptr(b.private),
            buffer_info::TIMESTAMP => Info::U64(filled()?.timestamp),
            buffer_info::NEW_DATA => Info::Bool(b.filled.is_some() && !b.queued),
            buffer_info::IS_QUEUED => Info::Bool(b.queued),
            buffer_info::IS_ACQUIRING => Info::Bool(false),
            buffer_info::IS_INCOMPLETE => Info::Bool(filled()?.incomplete),
            buffer_info::TLTYPE => Info::Str(TL_TYPE.into()),
            buffer_info::SIZE_FILLED | buffer_info::DATA_SIZE => Info::Size(filled()?.size),
            buffer_info::WIDTH => Info::Size(filled()?.width as usize),
            buffer_info::HEIGHT | buffer_info::DELIVERED_IMAGEHEIGHT => {
                Info::Size(filled()?.height as usize)
            }
            buffer_info::XOFFSET
            | buffer_info::YOFFSET
            | buffer_info::XPADDING
            | buffer_info::YPADDING
            | buffer_info::IMAGEOFFSET
            | buffer_info::DELIVERED_CHUNKPAYLOADSIZE => Info::Size(0),
            buffer_info::FRAMEID => Info::U64(filled()?.frame_id),
            buffer_info::IMAGEPRESENT => Info::Bool(b.filled.is_some()),
            buffer_info::PAYLOADTYPE => Info::Size(payload_type::IMAGE as usize),
            buffer_info::PIXELFORMAT => Info::U64(u64::from(filled()?.pixel_format)),
            buffer_info::PIXELFORMAT_NAMESPACE => Info::U64(pixel_namespace::PFNC_32BIT as u64),
            buffer_info::PIXEL_ENDIANNESS => Info::I32(pixel_endianness::LITTLE),
            buffer_info::DATA_LARGER_THAN_BUFFER => Info::Bool(filled()?.larger),
            buffer_info::CONTAINS_CHUNKDATA => Info::Bool(false),
            buffer_info::CHUNKLAYOUTID => Info::U64(0),
            buffer_info::TIMESTAMP_NS => {
                let hz = self.device.tick_frequency()?;
                Info::U64(ticks_to_ns(filled()?.timestamp, hz))
            }
            buffer_info::FILENAME => {
                return Err(GcError::NotAvailable(format!(
                    "BUFFER_INFO_CMD {command} is not known for GigE Vision frames here"
                )))
            }
            other => return Err(GcError::unknown_command("BUFFER_INFO_CMD", other)),
        })
    }

    /// Whether the stream acquires now.
    pub fn is_acquiring(&self) -> bool {
        self.state().acquiring
    }
}

/// A camera timestamp of `ticks` at `hz` ticks per second, in nanoseconds.
fn ticks_to_ns(ticks: u64, hz: u64) -> u64 {
    if hz == 0 {
        return 0;
    }
    u64::try_from(u128::from(ticks) * 1_000_000_000 / u128::from(hz)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_become_nanoseconds_without_overflow() {
        assert_eq!(ticks_to_ns(1_000, 1_000_000_000), 1_000);
        assert_eq!(ticks_to_ns(125_000_000, 125_000_000), 1_000_000_000);
        assert_eq!(ticks_to_ns(u64::MAX, 1_000_000_000), u64::MAX);
        assert_eq!(ticks_to_ns(u64::MAX, 1), u64::MAX);
        assert_eq!(ticks_to_ns(5, 0), 0);
    }

    #[test]
    fn the_announce_minimum_follows_grabs_own_pool() {
        // 2048x2048 Mono8: grab's 16 buffers.
        assert_eq!(announce_min(2048 * 2048), 16);
        // 100 MB frames: 10 fit 1 GiB.
        assert_eq!(announce_min(100_000_000), 10);
        // Huge or empty payloads: never below what is received directly.
        assert_eq!(announce_min(usize::MAX), LEND_MIN_BUFFERS);
        assert_eq!(announce_min(0), 16);
    }
}
