//! GigE Vision protocol cores, sans-IO.
//!
//! Everything here is a plain state machine or planner: it takes bytes and a
//! timestamp and returns what to send and when to wake up. Nothing here opens
//! a socket or reads a clock, so every behaviour is deterministic and tested
//! without a network. The I/O lives in `linerate-io`; the byte layouts live
//! in `linerate-wire`.
//!
//! Present now:
//! * [`block_plan`]: how one block (frame) becomes a leader, payload packets
//!   and a trailer for a given packet size, with each payload packet's data
//!   range in the frame, so a sender can scatter-gather headers and frame
//!   memory without copying.
//!
//! * [`test_pattern`]: self-verifying frames (frame number and CRC stamp).
//!
//! The device logic (GVCP server, resend buffer), the client logic and the
//! frame assembler with its resend planner follow with the camera and host
//! work.

pub mod assembler;
pub mod block_plan;
pub mod client;
pub mod device;
pub mod frame_clock;
pub mod frame_ring;
pub mod test_pattern;
