//! The frame server and its clients (see `docs/serve.md`): a sans-IO core
//! and the runtimes over it.
//!
//! A video server makes each frame once and sends it to many clients. This
//! crate decides *what* goes to whom and when a frame's memory may be reused;
//! the bytes are moved by `linerate-io` (write, sendfile, splice,
//! MSG_ZEROCOPY), and the clock and sockets belong to the caller.
//!
//! * [`hub`]: a fixed pool of frame slots shared by every client, each slot
//!   reference-counted by the clients that still need it; per-client queues
//!   of slot references with a bounded depth (a slow client loses its oldest
//!   queued frames, counted); a client that pins the oldest slot when a new
//!   frame needs one is cut loose, and so is one that takes nothing for the
//!   stall time or falls a pool behind. Memory is the slot pool, fixed at start.
//! * [`subscribe`]: UDP subscribers, admitted only after a stateless cookie
//!   handshake (no reflection amplifier), capped, dropped on ICMP errors.
//! * [`frame`]: writes a frame (header and payload) into a slot.
//! * [`datagram`]: cuts a frame into UDP datagrams and puts it back together.
//! * [`verify`]: the client's check of each received frame (sequence gaps,
//!   checksum, latency).
//!
//! The runtimes put the core on sockets and threads from `linerate-io`:
//!
//! * [`server`]: `server::spawn(ServerConfig)` serves one frame stream to
//!   TCP clients, UDP subscribers and a multicast group; its handle stops
//!   it with a typed [`server::ServeReport`].
//! * [`watcher`]: `watcher::spawn(WatchConfig)` runs K verifying clients;
//!   its handle ends them with a typed [`watcher::WatchReport`].

pub mod datagram;
pub mod error;
pub mod frame;
pub mod hub;
pub mod server;
pub mod subscribe;
pub mod verify;
pub mod watcher;

pub use error::{Error, Result};
