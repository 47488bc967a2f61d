//! The frame server's client runtime: K clients in one process, each
//! verifying every frame (docs/serve.md).
//!
//! Each client is a thread with its own connection (TCP), subscription
//! (UDP) or group membership (multicast). It checks each frame's payload
//! CRC-32 and that the sequence continues from the frame before, and times
//! the frame from its capture stamp. The run passes only when every client
//! got every frame sent while it was connected, intact.
//!
//! [`spawn`] starts the clients and returns at once; the [`WatchHandle`]
//! gives a counters snapshot for progress, and [`WatchHandle::wait`] or
//! [`WatchHandle::stop`] the typed [`WatchReport`].

mod client;

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use client::End;

/// How each client receives the server's frames.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Transport {
    /// A TCP connection per client.
    #[default]
    Tcp,
    /// A UDP subscription per client (the server needs `udp`): a cookie
    /// handshake, a Join renewed every second, frames put together from
    /// their datagrams.
    Udp,
    /// A member of the server's multicast group: a UDP socket bound to the
    /// group at the server's port, joined on the interface that reaches
    /// the server; no subscription is sent.
    Multicast(Ipv4Addr),
}

/// The settings of one watch run. Every field has the default
/// `linerate watch` uses.
#[derive(Debug, Clone)]
pub struct WatchConfig {
    /// The server.
    pub server: SocketAddrV4,
    /// Clients to run, 1 to 4096.
    pub clients: usize,
    /// How long to watch.
    pub duration: Duration,
    /// Set TCP_QUICKACK after every read (acknowledge at once instead of
    /// delaying ACKs), to measure what ACKs cost the server.
    pub quickack: bool,
    /// How the clients receive.
    pub transport: Transport,
    /// Receive buffer per client in bytes (0: the kernel autotunes for TCP,
    /// 16 MiB for UDP).
    pub recv_buffer: usize,
}

impl Default for WatchConfig {
    fn default() -> Self {
        WatchConfig {
            server: SocketAddrV4::new(Ipv4Addr::LOCALHOST, 5600),
            clients: 1,
            duration: Duration::from_secs(10),
            quickack: false,
            transport: Transport::Tcp,
            recv_buffer: 0,
        }
    }
}

/// Why a watch could not start.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// A setting of [`WatchConfig`] is out of range.
    #[error("{setting} {value} must be {rule}")]
    Config {
        /// The setting at fault.
        setting: &'static str,
        /// The value given.
        value: String,
        /// What it must be.
        rule: &'static str,
    },
    /// A client thread could not be started.
    #[error("starting client thread {client}: {source}")]
    Thread {
        /// The client's index.
        client: usize,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// What one client saw.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClientResult {
    /// Index of the client (0..K).
    pub client: usize,
    /// Frames received intact.
    pub frames_ok: u64,
    /// Frames missing between the first and last received.
    pub frames_missing: u64,
    /// Frames whose payload failed the checksum.
    pub frames_corrupt: u64,
    /// Frames out of order or repeated.
    pub frames_out_of_order: u64,
    /// First sequence received.
    pub first_seq: Option<u64>,
    /// Last sequence received.
    pub last_seq: Option<u64>,
    /// Payload Mbit/s over the client's time connected.
    pub mbit_per_s: f64,
    /// Capture-to-receive latency percentiles in microseconds (null when
    /// no frame was timed).
    pub latency_us_p50: Option<u64>,
    /// 99th percentile.
    pub latency_us_p99: Option<u64>,
    /// Largest.
    pub latency_us_max: Option<u64>,
    /// Why the client failed before the end, if it did.
    pub error: Option<String>,
    /// Every frame received, intact and in sequence, and no error.
    pub complete: bool,
}

impl ClientResult {
    /// Client `client` before it received anything.
    fn empty(client: usize) -> ClientResult {
        ClientResult {
            client,
            frames_ok: 0,
            frames_missing: 0,
            frames_corrupt: 0,
            frames_out_of_order: 0,
            first_seq: None,
            last_seq: None,
            mbit_per_s: 0.0,
            latency_us_p50: None,
            latency_us_p99: None,
            latency_us_max: None,
            error: None,
            complete: false,
        }
    }
}

/// The report of a watch run.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WatchReport {
    /// The server.
    pub server: String,
    /// Seconds watched.
    pub seconds: f64,
    /// Clients that passed.
    pub clients_complete: usize,
    /// All clients.
    pub clients: Vec<ClientResult>,
    /// Frames received intact, all clients.
    pub frames_ok: u64,
    /// Frames missing, all clients.
    pub frames_missing: u64,
    /// Aggregate payload Mbit/s.
    pub mbit_per_s: f64,
    /// Whether every client received and verified every frame (and the
    /// run was not cut short, see `error`).
    pub ok: bool,
    /// Why the run ended early, when something outside it ended it (the
    /// CLI puts "interrupted by SIGINT" here); the library leaves it empty.
    pub error: Option<String>,
}

/// A snapshot of a running watch, for a progress line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WatchCounters {
    /// Frames verified so far, all clients.
    pub frames_verified: u64,
    /// Clients still running.
    pub clients_running: usize,
}

/// A running watch. Dropping it stops the clients (the report is lost).
#[derive(Debug)]
pub struct WatchHandle {
    server: SocketAddrV4,
    start: Instant,
    stop: Arc<AtomicBool>,
    verified: Arc<AtomicU64>,
    threads: Vec<JoinHandle<ClientResult>>,
}

impl WatchHandle {
    /// What the clients have done so far.
    pub fn counters(&self) -> WatchCounters {
        WatchCounters {
            frames_verified: self.verified.load(Ordering::Relaxed),
            clients_running: self.threads.iter().filter(|t| !t.is_finished()).count(),
        }
    }

    /// Whether every client has ended (the duration passed, or each failed).
    pub fn is_finished(&self) -> bool {
        self.threads.iter().all(|t| t.is_finished())
    }

    /// Waits for the clients to end (at the configured duration, or
    /// earlier if they fail) and returns the report.
    pub fn wait(mut self) -> WatchReport {
        self.join()
    }

    /// Ends every client now and returns the report of what they saw.
    pub fn stop(mut self) -> WatchReport {
        self.stop.store(true, Ordering::Relaxed);
        self.join()
    }

    fn join(&mut self) -> WatchReport {
        let clients: Vec<ClientResult> = std::mem::take(&mut self.threads)
            .into_iter()
            .enumerate()
            .map(|(i, h)| {
                h.join().unwrap_or_else(|_| ClientResult {
                    error: Some("client thread panicked".into()),
                    ..ClientResult::empty(i)
                })
            })
            .collect();
        let complete = clients.iter().filter(|c| c.complete).count();
        WatchReport {
            server: self.server.to_string(),
            seconds: self.start.elapsed().as_secs_f64(),
            clients_complete: complete,
            frames_ok: clients.iter().map(|c| c.frames_ok).sum(),
            frames_missing: clients.iter().map(|c| c.frames_missing).sum(),
            mbit_per_s: clients.iter().map(|c| c.mbit_per_s).sum(),
            ok: complete == clients.len(),
            error: None,
            clients,
        }
    }
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in std::mem::take(&mut self.threads) {
            let _ = t.join();
        }
    }
}

/// Starts `config.clients` clients, each on its own thread (created by the
/// calling thread, so in its network namespace), and returns at once.
pub fn spawn(config: WatchConfig) -> Result<WatchHandle, WatchError> {
    if config.duration.is_zero() {
        return Err(WatchError::Config {
            setting: "duration",
            value: "0".into(),
            rule: "a positive time",
        });
    }
    if !(1..=4096).contains(&config.clients) {
        return Err(WatchError::Config {
            setting: "clients",
            value: config.clients.to_string(),
            rule: "1 to 4096",
        });
    }
    let start = Instant::now();
    let mut handle = WatchHandle {
        server: config.server,
        start,
        stop: Arc::new(AtomicBool::new(false)),
        verified: Arc::new(AtomicU64::new(0)),
        threads: Vec::with_capacity(config.clients),
    };
    let deadline = start + config.duration;
    for i in 0..config.clients {
        let end = End {
            deadline,
            stop: Arc::clone(&handle.stop),
            verified: Arc::clone(&handle.verified),
        };
        let config = config.clone();
        let thread = std::thread::Builder::new()
            .name(format!("linerate-watch-{i}"))
            .spawn(move || match config.transport {
                Transport::Tcp => client::tcp(i, &config, &end),
                Transport::Udp => client::udp(i, &config, None, &end),
                Transport::Multicast(group) => client::udp(i, &config, Some(group), &end),
            })
            .map_err(|source| WatchError::Thread { client: i, source })?;
        handle.threads.push(thread);
    }
    Ok(handle)
}
