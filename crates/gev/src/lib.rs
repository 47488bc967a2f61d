//! GigE Vision protocol cores, sans-IO.
//!
//! Everything here is a plain state machine or planner: it takes bytes and a
//! timestamp and returns what to send and when to wake up. Nothing here opens
//! a socket or reads a clock, so every behaviour is deterministic and tested
//! without a network. The I/O lives in `linerate-io`; the byte layouts live
//! in `linerate-wire`.
//!
//! Camera side:
//! * [`device`]: the emulated camera's GVCP logic (register map, privilege,
//!   heartbeat, GenICam XML), driven by datagrams and time;
//! * [`block_plan`]: one block (frame) as leader, payload packets and
//!   trailer, with each packet's data range in the frame, so a sender can
//!   scatter-gather headers and frame memory without copying;
//! * [`frame_clock`]: when the next frame is due, and how many were skipped;
//! * [`frame_ring`]: the resend buffer of recent frames;
//! * [`test_pattern`]: self-verifying frames (frame number and CRC stamp).
//!
//! Host side:
//! * [`client`]: one GVCP command in flight (ids, retries, pending ack) and
//!   the heartbeat that keeps control;
//! * [`assembler`]: GVSP packets into frames, with the resend planner.

pub mod assembler;
pub mod block_plan;
pub mod client;
pub mod device;
pub mod frame_clock;
pub mod frame_ring;
pub mod test_pattern;
