//! Sans-IO core of `linerate serve` and `linerate watch` (see `docs/serve.md`).
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

pub mod datagram;
pub mod error;
pub mod frame;
pub mod hub;
pub mod subscribe;
pub mod verify;

pub use error::{Error, Result};
