//! An emulated GigE Vision camera, started in-process.
//!
//! The GVCP logic is `linerate_gev::device::Device` (sans-IO); this module
//! binds the sockets, feeds it datagrams and time ([`control`]), and turns
//! its events into work for the stream thread ([`streamer`]), which sends
//! GVSP over UDP or, when the host selects it, over TCP ([`tcp_stream`]).
//!
//! [`spawn`] binds in the network namespace of the calling thread and
//! returns at once; the [`CameraHandle`] reads counters while it runs and
//! stops it, returning a [`CameraReport`]. What the camera has to say
//! meanwhile (who took control, a TCP link lost) goes to the
//! [`EventSink`] of its [`CameraConfig`]; it never prints.

mod config;
mod control;
mod control_socket;
mod counters;
mod error;
mod events;
mod interface;
mod report;
pub mod settings;
pub mod streamer;
pub mod tcp_stream;

use std::net::SocketAddrV4;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use linerate_wire::ethernet::MacAddr;

pub use config::{supported_pixel_formats, CameraConfig};
pub use counters::CameraCounters;
pub use error::CameraError;
pub use events::{CameraEvent, EventSink};
pub use report::{AccessDenied, CameraReport, UdpSend};
pub use streamer::describe_egress;

use control::{Address, Session, Shared};

/// Facts about a serving camera: what it reports in discovery and where
/// it answers, for a start-up line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CameraInfo {
    /// Serial number reported in discovery.
    pub serial: String,
    /// MAC address reported (its interface's).
    pub mac: MacAddr,
    /// The GVCP address and port it answers at.
    pub control: SocketAddrV4,
    /// The UDP source port of its stream.
    pub stream_source_port: u16,
    /// How UDP stream datagrams leave through the bound interface, in words.
    pub udp_send: String,
}

/// Starts a camera: binds its GVCP and stream sockets in the calling
/// thread's network namespace, starts its control and stream threads
/// (which stay in that namespace) and returns at once.
pub fn spawn(config: CameraConfig) -> Result<CameraHandle, CameraError> {
    let at = Address {
        ip: config.bind,
        serial: None,
        forced: None,
    };
    let session = Session::open(&config, at)?;
    let shared = Arc::new(Shared {
        stop: AtomicBool::new(false),
        current: Mutex::new((Arc::clone(&session.counters), session.info.clone())),
    });
    let thread = std::thread::Builder::new()
        .name("gvcp-control".into())
        .spawn({
            let shared = Arc::clone(&shared);
            move || control::run(config, session, &shared)
        })
        .map_err(|source| CameraError::Thread {
            thread: "control",
            source,
        })?;
    Ok(CameraHandle {
        shared,
        thread: Some(thread),
    })
}

/// A running camera. Dropping it stops the camera (and discards its report).
#[derive(Debug)]
pub struct CameraHandle {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<Result<CameraReport, CameraError>>>,
}

impl CameraHandle {
    /// Where the camera serves now (a FORCEIP may have moved it).
    pub fn info(&self) -> CameraInfo {
        self.current().1
    }

    /// The GVCP address and port it answers at now.
    pub fn local_addr(&self) -> SocketAddrV4 {
        self.current().1.control
    }

    /// The stream's counters now, for progress output.
    pub fn counters(&self) -> CameraCounters {
        self.current().0.snapshot()
    }

    /// The camera stopped by itself (an error; [`CameraHandle::join`] says which).
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().map_or(true, JoinHandle::is_finished)
    }

    /// Asks the camera to stop (within about 100 ms) without waiting.
    pub fn request_stop(&self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }

    /// Stops the camera and returns what it did.
    pub fn stop(mut self) -> Result<CameraReport, CameraError> {
        self.request_stop();
        self.wait()
    }

    /// Waits until the camera ends (after [`CameraHandle::request_stop`],
    /// or by an error) and returns what it did.
    pub fn join(mut self) -> Result<CameraReport, CameraError> {
        self.wait()
    }

    fn wait(&mut self) -> Result<CameraReport, CameraError> {
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) | None => Err(CameraError::ControlThreadPanicked),
        }
    }

    fn current(&self) -> (Arc<counters::StreamCounters>, CameraInfo) {
        let current = self
            .shared
            .current
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        (Arc::clone(&current.0), current.1.clone())
    }
}

impl Drop for CameraHandle {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.request_stop();
            let _ = self.wait();
        }
    }
}
