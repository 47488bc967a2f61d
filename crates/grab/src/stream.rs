//! The grab API: a receive thread runs a backend, the frame assembler and
//! resend requests; the application lends it buffers and gets them back
//! filled, the pattern of pylon, Aravis and the GenTL standard.
//!
//! ```text
//! app:     queue(buf) ──► [receive thread: backend → assembler → resends] ──► wait() → buf
//!             ▲                                                                  │
//!             └──────────────────────── requeue after use ◄─────────────────────┘
//! ```
//!
//! The caller owns every buffer: [`Buffer::new`] allocates one (or
//! [`Buffer::from_vec`] adopts the caller's memory), and nothing is
//! allocated per frame afterwards: buffers and their missing-range lists
//! travel through bounded, preallocated channels and come back with
//! [`Stream::queue`]. With no buffer queued, new frames are dropped and
//! counted as underruns — the application decides how much memory to spend.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc::{
    sync_channel, Receiver as ChannelReceiver, RecvTimeoutError, SyncSender, TrySendError,
};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use linerate_gev::assembler::{
    Assembler, Config as AssemblerConfig, Counters, DeliveredFrame, FrameStatus,
};
use linerate_metrics::{LatencyHistogram, LatencySummary, ThreadCpu};
use linerate_wire::PixelFormat;

pub use linerate_gev::assembler::{FrameMemory, LentMemory};

use crate::clock::now_ns;
use crate::control::{ControlWatch, ResendSender};
use crate::error::{Error, Result};
use crate::receive::{ReceiveConfig, ReceiveStats, Receiver};

/// What is known about the frame in a returned buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameInfo {
    /// Complete, or why not.
    pub status: FrameStatus,
    /// GVSP block id (the camera's frame id).
    pub block_id: u64,
    /// Camera timestamp from the leader, in the camera's ticks (0 if the leader was lost).
    pub timestamp: u64,
    /// Host time the frame was handed over, ns on [`crate::clock::now_ns`]'s clock.
    pub delivered_ns: u64,
    /// Host time the receive thread read the frame's last packet, same clock.
    pub last_packet_ns: u64,
    /// Bytes of frame data in the buffer.
    pub size: usize,
    /// Payload bytes that actually arrived.
    pub received_bytes: usize,
    /// Pixel format from the leader, when it arrived and was an image.
    pub pixel_format: Option<PixelFormat>,
    /// Width in pixels (0 if unknown).
    pub width: u32,
    /// Height in lines (0 if unknown).
    pub height: u32,
    /// The leader never arrived (for an incomplete frame).
    pub leader_missing: bool,
    /// The trailer never arrived (for an incomplete frame).
    pub trailer_missing: bool,
}

impl Default for FrameInfo {
    fn default() -> Self {
        FrameInfo {
            status: FrameStatus::Flushed,
            block_id: 0,
            timestamp: 0,
            delivered_ns: 0,
            last_packet_ns: 0,
            size: 0,
            received_bytes: 0,
            pixel_format: None,
            width: 0,
            height: 0,
            leader_missing: false,
            trailer_missing: false,
        }
    }
}

/// A frame buffer lent to the stream and returned filled.
#[derive(Debug, Default)]
pub struct Buffer {
    data: FrameMemory,
    missing: Vec<Range<usize>>,
    info: FrameInfo,
}

impl Buffer {
    /// A zeroed buffer of `len` bytes (the camera's payload size).
    pub fn new(len: usize) -> Buffer {
        Buffer::from_vec(vec![0; len])
    }

    /// Adopts memory the caller already has.
    pub fn from_vec(data: Vec<u8>) -> Buffer {
        Buffer::from_memory(data.into())
    }

    /// Lends memory someone else owns (see [`LentMemory`]): frames are
    /// received straight into it, and it comes back with the frame
    /// ([`Buffer::into_memory`]).
    pub fn lent(memory: Box<dyn LentMemory>) -> Buffer {
        Buffer::from_memory(memory.into())
    }

    fn from_memory(data: FrameMemory) -> Buffer {
        Buffer {
            data,
            missing: Vec::with_capacity(16),
            info: FrameInfo::default(),
        }
    }

    /// The frame: exact when complete; for incomplete frames the bytes in
    /// [`Buffer::missing`] are whatever the buffer held before.
    pub fn data(&self) -> &[u8] {
        self.data.get(..self.info.size).unwrap_or(&self.data)
    }

    /// Metadata of the frame.
    pub fn info(&self) -> &FrameInfo {
        &self.info
    }

    /// True when every byte of the frame arrived.
    pub fn is_complete(&self) -> bool {
        self.info.status == FrameStatus::Complete
    }

    /// Byte ranges of the frame that never arrived (empty when complete).
    pub fn missing(&self) -> &[Range<usize>] {
        &self.missing
    }

    /// Gives the memory back to the caller: the vector it owns, or the
    /// memory it lent.
    pub fn into_memory(self) -> FrameMemory {
        self.data
    }

    /// A complete Mono8 frame holding `data`, for verifier tests.
    #[cfg(test)]
    pub(crate) fn test_frame(data: Vec<u8>, width: u32, height: u32) -> Buffer {
        let info = FrameInfo {
            status: FrameStatus::Complete,
            size: data.len(),
            width,
            height,
            pixel_format: Some(PixelFormat::MONO8),
            ..FrameInfo::default()
        };
        Buffer {
            data: data.into(),
            missing: Vec::new(),
            info,
        }
    }

    /// A complete frame of `format` holding `data`, block id 7, for tests
    /// of what consumes frames.
    #[cfg(test)]
    pub(crate) fn test_frame_as(
        data: Vec<u8>,
        width: u32,
        height: u32,
        format: PixelFormat,
    ) -> Buffer {
        let mut b = Buffer::test_frame(data, width, height);
        b.info.pixel_format = Some(format);
        b.info.block_id = 7;
        b
    }

    fn fill_from(frame: &mut DeliveredFrame) -> Buffer {
        let image = frame.image_info();
        let info = FrameInfo {
            status: frame.status,
            block_id: frame.block_id,
            timestamp: frame.timestamp().unwrap_or(0),
            delivered_ns: now_ns(),
            last_packet_ns: frame.last_packet_ns,
            size: frame.size(),
            received_bytes: frame.received_bytes,
            pixel_format: image.map(|i| i.pixel_format),
            width: image.map_or(0, |i| i.width),
            height: image.map_or(0, |i| i.height),
            leader_missing: frame.leader.is_none(),
            trailer_missing: frame.trailer.is_none(),
        };
        let (data, missing) = frame.take_buffers();
        Buffer {
            data,
            missing,
            info,
        }
    }
}

/// Counters of a running stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// The frame assembler's counters.
    pub assembler: Counters,
    /// The receive backend's counters.
    pub receive: ReceiveStats,
    /// Resend requests that could not be sent.
    pub resend_send_errors: u64,
}

/// Everything a stream needs besides the camera connection.
#[derive(Debug, Clone)]
pub struct StreamConfig {
    /// Receive backend and socket settings.
    pub receive: ReceiveConfig,
    /// Assembler settings (payload size, packet size, resend, retention).
    /// Its `buffer_count` is forced to 0: only queued buffers are used.
    pub assembler: AssemblerConfig,
    /// Most buffers the application will lend at once.
    pub max_buffers: usize,
    /// Pin the receive thread to this CPU.
    pub cpu: Option<usize>,
}

#[derive(Debug)]
struct Shared {
    stop: AtomicBool,
    stats: Mutex<StreamStats>,
    error: Mutex<Option<String>>,
    /// Last packet read → frame returned by [`Stream::wait`], complete frames only.
    delivery: Mutex<LatencyHistogram>,
    /// Kernel thread id of the receive thread (0 until it runs).
    receive_tid: AtomicI32,
    /// The receive thread's CPU time, stored as it exits.
    receive_cpu: Mutex<Option<ThreadCpu>>,
    /// Set by the receive thread while a frame is in flight (packets of
    /// it came, it is not finished yet), after every receive.
    frame_in_flight: AtomicBool,
}

/// A receiving stream. Dropping it stops the receive thread.
#[derive(Debug)]
pub struct Stream {
    shared: Arc<Shared>,
    to_thread: SyncSender<Buffer>,
    from_thread: ChannelReceiver<Buffer>,
    thread: Option<JoinHandle<()>>,
    port: u16,
    payload_size: usize,
    watch: Option<ControlWatch>,
}

impl Stream {
    /// Opens the receive backend and starts the receive thread. Resend
    /// requests go through `resend` when given; `watch` makes [`Stream::wait`]
    /// report a lost camera connection.
    pub fn start(
        config: StreamConfig,
        resend: Option<ResendSender>,
        watch: Option<ControlWatch>,
    ) -> Result<Stream> {
        let mut asm_config = config.assembler.clone();
        asm_config.buffer_count = 0;
        let payload_size = asm_config.max_payload_size;
        let assembler = Assembler::new(asm_config)?;
        let receiver = Receiver::open(&config.receive)?;
        let port = receiver.port();
        let cap = config.max_buffers.max(1);
        let (to_thread, thread_rx) = sync_channel::<Buffer>(cap);
        let (thread_tx, from_thread) = sync_channel::<Buffer>(cap);
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            stats: Mutex::new(StreamStats::default()),
            error: Mutex::new(None),
            delivery: Mutex::new(LatencyHistogram::new()),
            receive_tid: AtomicI32::new(0),
            receive_cpu: Mutex::new(None),
            frame_in_flight: AtomicBool::new(false),
        });
        let worker = Worker {
            shared: Arc::clone(&shared),
            assembler,
            receiver,
            resend,
            incoming: thread_rx,
            outgoing: thread_tx,
            cpu: config.cpu,
            resend_errors: 0,
            moderation: Moderation::of(&config.receive),
        };
        let thread = std::thread::Builder::new()
            .name("gvsp-receive".into())
            .spawn(move || worker.run())
            .map_err(|e| Error::StreamClosed(format!("cannot spawn the receive thread: {e}")))?;
        Ok(Stream {
            shared,
            to_thread,
            from_thread,
            thread: Some(thread),
            port,
            payload_size,
            watch,
        })
    }

    /// The local UDP port the camera must stream to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Payload size each buffer must hold.
    pub fn payload_size(&self) -> usize {
        self.payload_size
    }

    /// Lends a buffer to the stream. It must hold [`Stream::payload_size`]
    /// bytes; more than `max_buffers` lent at once is refused.
    pub fn queue(&self, buffer: Buffer) -> Result<()> {
        self.requeue_handle().queue(buffer).map_err(|e| match e {
            Error::StreamClosed(_) => self.closed(),
            e => e,
        })
    }

    /// A handle that lends buffers to this stream from anywhere (another
    /// thread, the destructor of an object that owns a frame) without
    /// access to the stream itself, so a frame handed out can go back the
    /// moment its owner lets go of it.
    pub fn requeue_handle(&self) -> Requeue {
        Requeue {
            to_thread: self.to_thread.clone(),
            payload_size: self.payload_size,
        }
    }

    /// Waits up to `timeout` for the next frame, complete or not. Frames
    /// come out in the order they finish.
    pub fn wait(&self, timeout: Duration) -> Result<Buffer> {
        if let Some(w) = &self.watch {
            w.check()?;
        }
        match self.from_thread.recv_timeout(timeout) {
            Ok(b) => {
                if b.is_complete() && b.info.last_packet_ns > 0 {
                    self.shared
                        .delivery
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .record_between_ns(b.info.last_packet_ns, now_ns());
                }
                Ok(b)
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Some(w) = &self.watch {
                    w.check()?;
                }
                match self.error() {
                    Some(e) => Err(Error::StreamClosed(e)),
                    None => Err(Error::Timeout(timeout)),
                }
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.closed()),
        }
    }

    /// Iterates over frames, waiting up to `timeout` for each; every item
    /// is requeued when the next one is asked for, so the loop body only
    /// borrows the frame.
    pub fn frames(&mut self, timeout: Duration) -> Frames<'_> {
        Frames {
            stream: self,
            timeout,
            previous: None,
        }
    }

    /// Whether a frame is arriving: packets of it came and it is neither
    /// complete nor given up yet, as of the receive thread's last receive.
    /// A consumer polling with short waits can wait on for such a frame
    /// instead of giving up a wait that its completion would end soon.
    pub fn frame_in_flight(&self) -> bool {
        self.shared.frame_in_flight.load(Ordering::Relaxed)
    }

    /// Counters so far (updated by the receive thread every few milliseconds).
    pub fn stats(&self) -> StreamStats {
        *self.shared.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How long complete frames took from the receive thread reading their
    /// last packet to [`Stream::wait`] returning them: the assembler, the
    /// hand-over channel and the application's wake-up. Incomplete frames
    /// are left out (their wait is the retention timeout, not delivery).
    pub fn delivery_latency(&self) -> LatencySummary {
        self.shared
            .delivery
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .summary()
    }

    /// The receive thread's user and system CPU time since it started: read
    /// live while it runs, or as it was when it exited after
    /// [`Stream::stop`]. `None` when it could not be read.
    pub fn receive_thread_cpu(&self) -> Option<ThreadCpu> {
        if let Some(t) = *self
            .shared
            .receive_cpu
            .lock()
            .unwrap_or_else(|e| e.into_inner())
        {
            return Some(t);
        }
        match self.shared.receive_tid.load(Ordering::Relaxed) {
            0 => None,
            tid => ThreadCpu::read(tid).ok(),
        }
    }

    /// Stops the receive thread, delivering frames still in flight as
    /// incomplete (collect them with [`Stream::drain`]), and returns the final counters.
    pub fn stop(&mut self) -> StreamStats {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.stats()
    }

    /// Frames delivered but not yet taken, without waiting.
    pub fn drain(&self) -> impl Iterator<Item = Buffer> + '_ {
        self.from_thread.try_iter()
    }

    fn error(&self) -> Option<String> {
        self.shared
            .error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn closed(&self) -> Error {
        Error::StreamClosed(
            self.error()
                .unwrap_or_else(|| "receive thread stopped".into()),
        )
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Gives buffers back to a stream; see [`Stream::requeue_handle`].
#[derive(Debug, Clone)]
pub struct Requeue {
    to_thread: SyncSender<Buffer>,
    payload_size: usize,
}

impl Requeue {
    /// Lends a buffer to the stream, as [`Stream::queue`] does. Once the
    /// stream has stopped, the buffer is refused ([`Error::StreamClosed`])
    /// and freed.
    pub fn queue(&self, buffer: Buffer) -> Result<()> {
        if buffer.data.len() < self.payload_size {
            return Err(Error::BufferTooSmall {
                len: buffer.data.len(),
                payload: self.payload_size,
            });
        }
        match self.to_thread.try_send(buffer) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => Err(Error::BadSetting {
                what: "queued buffers",
                value: "one more".into(),
                why: "more buffers queued than max_buffers allows".into(),
            }),
            Err(TrySendError::Disconnected(_)) => {
                Err(Error::StreamClosed("receive thread stopped".into()))
            }
        }
    }
}

/// Iterator returned by [`Stream::frames`].
#[derive(Debug)]
pub struct Frames<'a> {
    stream: &'a mut Stream,
    timeout: Duration,
    previous: Option<Buffer>,
}

impl Frames<'_> {
    /// The next frame; the one returned before goes back to the stream.
    /// (A lending iterator, which `Iterator` cannot express.)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Result<&Buffer>> {
        if let Some(b) = self.previous.take() {
            if let Err(e) = self.stream.queue(b) {
                return Some(Err(e));
            }
        }
        match self.stream.wait(self.timeout) {
            Ok(b) => {
                self.previous = Some(b);
                self.previous.as_ref().map(Ok)
            }
            Err(e) => Some(Err(e)),
        }
    }
}

struct Worker {
    shared: Arc<Shared>,
    assembler: Assembler,
    receiver: Receiver,
    resend: Option<ResendSender>,
    incoming: ChannelReceiver<Buffer>,
    outgoing: SyncSender<Buffer>,
    cpu: Option<usize>,
    resend_errors: u64,
    moderation: Option<Moderation>,
}

/// Receive moderation in the receive thread (see
/// [`ReceiveConfig::coalesce_us`](crate::receive::ReceiveConfig::coalesce_us)).
#[derive(Debug, Clone, Copy)]
struct Moderation {
    pause: Duration,
    /// A receive taking this many packets found a full batch: no pause.
    full_batch: usize,
}

impl Moderation {
    /// UDP only: the TCP receiver reads whole records and blocks in the kernel.
    fn of(receive: &crate::receive::ReceiveConfig) -> Option<Moderation> {
        (receive.transport == crate::receive::Transport::Udp && receive.coalesce_us > 0).then(
            || Moderation {
                pause: Duration::from_micros(u64::from(receive.coalesce_us)),
                full_batch: receive.batch.max(1),
            },
        )
    }

    /// How long to pause after a receive took `taken` packets: never after
    /// an empty or full one, and never past the assembler's next deadline.
    fn pause_after(&self, taken: usize, timeout: Option<u64>, now: u64) -> Option<Duration> {
        if taken == 0 || taken >= self.full_batch {
            return None;
        }
        let pause = timeout.map_or(self.pause, |t| {
            self.pause.min(Duration::from_nanos(t.saturating_sub(now)))
        });
        (!pause.is_zero()).then_some(pause)
    }
}

impl Worker {
    fn run(mut self) {
        self.shared
            .receive_tid
            .store(linerate_metrics::current_thread_id(), Ordering::Relaxed);
        if let Some(cpu) = self.cpu {
            if let Err(e) = pin_to_cpu(cpu) {
                tracing::warn!(cpu, error = %e, "cannot pin the receive thread");
            }
        }
        let mut last_publish = 0u64;
        while !self.shared.stop.load(Ordering::Relaxed) {
            self.take_buffers();
            let now = now_ns();
            // With no buffer to fill, look for newly queued ones often.
            let idle = if self.assembler.free_buffer_count() == 0 {
                Duration::from_millis(1)
            } else {
                Duration::from_millis(20)
            };
            let timeout = self.assembler.poll_timeout().map_or(idle, |t| {
                Duration::from_nanos(t.saturating_sub(now)).clamp(Duration::from_micros(50), idle)
            });
            // Buffers queued while the receive call slept are taken as soon
            // as it wakes, before the new packets need them.
            let incoming = &self.incoming;
            let mut refill = |asm: &mut Assembler| supply_queued(incoming, asm);
            let taken = match self
                .receiver
                .receive(&mut self.assembler, timeout, &mut refill)
            {
                Ok(taken) => taken,
                Err(e) => {
                    *self.shared.error.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some(e.to_string());
                    break;
                }
            };
            self.service(now_ns());
            // Any frame still active has a retention deadline.
            self.shared
                .frame_in_flight
                .store(self.assembler.poll_timeout().is_some(), Ordering::Relaxed);
            let now = now_ns();
            if now.saturating_sub(last_publish) > 5_000_000 {
                self.publish();
                last_publish = now;
            }
            let pause = self
                .moderation
                .and_then(|m| m.pause_after(taken, self.assembler.poll_timeout(), now));
            if let Some(pause) = pause {
                std::thread::sleep(pause);
            }
        }
        self.assembler.flush();
        self.service(now_ns());
        self.publish();
        // The thread's /proc entry goes when it exits: keep its final CPU time.
        *self
            .shared
            .receive_cpu
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = ThreadCpu::current().ok();
    }

    fn take_buffers(&mut self) {
        supply_queued(&self.incoming, &mut self.assembler);
    }

    fn service(&mut self, now: u64) {
        while let Some(r) = self.assembler.poll_transmit(now) {
            if let Some(s) = self.resend.as_mut() {
                if s.request(r.block_id, r.first_packet_id, r.last_packet_id, r.extended)
                    .is_err()
                {
                    self.resend_errors += 1;
                }
            }
        }
        while let Some(mut frame) = self.assembler.poll_frame() {
            let buffer = Buffer::fill_from(&mut frame);
            // The channel holds max_buffers, so this never blocks while
            // the application keeps to its pool size.
            if self.outgoing.send(buffer).is_err() {
                return;
            }
        }
    }

    fn publish(&mut self) {
        let stats = StreamStats {
            assembler: *self.assembler.counters(),
            receive: self.receiver.stats(),
            resend_send_errors: self.resend_errors,
        };
        *self.shared.stats.lock().unwrap_or_else(|e| e.into_inner()) = stats;
    }
}

/// Hands every buffer the application queued so far to the assembler.
fn supply_queued(incoming: &ChannelReceiver<Buffer>, assembler: &mut Assembler) {
    while let Ok(b) = incoming.try_recv() {
        assembler.supply(b.data, b.missing);
    }
}

/// Pins the calling thread to `cpu` (the one implementation, in
/// `linerate-metrics`, which its noise probe shares).
pub use linerate_metrics::pin_current_thread as pin_to_cpu;

#[cfg(test)]
mod moderation_tests {
    use super::*;
    use crate::receive::{ReceiveConfig, Transport};
    use std::net::Ipv4Addr;

    fn moderation(us: u32) -> Option<Moderation> {
        let mut c = ReceiveConfig::new(Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST, 1 << 20);
        c.coalesce_us = us;
        Moderation::of(&c)
    }

    #[test]
    fn pauses_only_after_a_partial_batch() {
        let m = moderation(100).expect("on when asked for");
        assert_eq!(m.pause_after(3, None, 0), Some(Duration::from_micros(100)));
        assert_eq!(
            m.pause_after(0, None, 0),
            None,
            "an empty receive already waited"
        );
        assert_eq!(
            m.pause_after(64, None, 0),
            None,
            "a full batch means more is queued"
        );
    }

    #[test]
    fn never_sleeps_past_the_assemblers_deadline() {
        let m = moderation(100).expect("on");
        assert_eq!(
            m.pause_after(1, Some(1_030_000), 1_000_000),
            Some(Duration::from_micros(30))
        );
        assert_eq!(m.pause_after(1, Some(900), 1_000), None, "deadline passed");
    }

    #[test]
    fn off_by_default_when_zero_and_over_tcp() {
        let c = ReceiveConfig::new(Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST, 1 << 20);
        assert!(Moderation::of(&c).is_none());
        assert!(moderation(0).is_none());
        let mut c = ReceiveConfig::new(Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST, 1 << 20);
        c.transport = Transport::Tcp;
        assert!(Moderation::of(&c).is_none());
    }
}
