//! FADE protocol cores, sans-IO.
//!
//! FADE (seed 004) carries data from FPGA front-end boards over raw Ethernet
//! (ethertype 0xfade) with a per-packet ACK and a sliding window small enough
//! for a cheap FPGA. The cores here are plain state machines: they take
//! packets and timestamps and return what to send and when to wake up, so the
//! board emulator and the host receiver share tested logic and only the I/O
//! differs. The packet layouts live in `linerate_wire::fade`.
//!
//! Present now:
//! * [`adaptive_delay`]: the board's inter-packet delay controller from seed
//!   004 (retransmit ratio above `T_high` slows down, below `T_low` speeds up).
//!
//! The board's descriptor manager and the receiver window follow with the
//! FADE work.

pub mod adaptive_delay;
pub mod board;
pub mod stream;
pub mod window;
