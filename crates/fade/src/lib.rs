//! FADE protocol cores, sans-IO.
//!
//! FADE (Proc. SPIE 8903, 2013) carries data from FPGA front-end boards over raw Ethernet
//! (ethertype 0xfade) with a per-packet ACK and a sliding window small enough
//! for a cheap FPGA. The cores here are plain state machines: they take
//! packets and timestamps and return what to send and when to wake up, so the
//! board emulator and the host receiver share tested logic and only the I/O
//! differs. The packet layouts live in `linerate_wire::fade`.
//!
//! Both wire versions, FADE v1 and FADE-10G, run on the same state machines,
//! generic over [`version::Version`]:
//! * [`version`]: what differs (packet and window sizes, how packets and
//!   commands look on the wire), as [`version::V1`] and [`version::TenG`];
//! * [`board`]: the board's descriptor manager (a ring of 32 or 16 packet
//!   buffers with V/S/C flags and head/tail/retr pointers, retransmission
//!   after a timeout, START/STOP/RESET, FADE-10G's numbered commands
//!   answered in the DATA packets), which the board emulator runs;
//! * [`adaptive_delay`]: the published board's inter-packet delay
//!   controller (retransmit ratio above `T_high` slows down, below `T_low`
//!   speeds up);
//! * [`fair`]: linerate's fair sharing, the host's side: max-min shares of
//!   the link among the boards, sent to each board as a pacing gap in its
//!   ACKs (the board keeps the gap, see [`board::Controller`]);
//! * [`window`]: the host's receive window per board (ACK, re-ACK,
//!   in-order delivery, an impossible set or packet number is a fatal
//!   stream error);
//! * [`command`]: the host's FADE-10G command channel (START, STOP, RESET
//!   and user commands, resent with the same seq until answered, with a
//!   timeout);
//! * [`host`]: a readout of several boards around their windows (START
//!   and its retries, ACKs with the pacing hint, data into the rings,
//!   STOP on a broken stream, RESET when done, idle boards, user
//!   commands), the state machine `linerate fade recv` drives;
//! * [`buffer`]: where the host puts each board's data (the FADE host
//!   API's write-in-place, read-pointers and commit semantics as a trait,
//!   and a single-threaded ring for simulations; the threaded ring with a
//!   wakeup threshold is the readout runtime's);
//! * [`stream`]: the verifiable counter stream the emulator sends.

pub mod adaptive_delay;
pub mod board;
pub mod buffer;
pub mod command;
pub mod error;
pub mod fair;
pub mod host;
pub mod stream;
pub mod version;
pub mod window;
