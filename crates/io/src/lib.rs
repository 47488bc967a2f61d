//! linerate's one I/O layer for Linux.
//!
//! Protocol cores never open sockets: they produce packets (often as a small
//! header plus a range of a frame buffer) and consume received bytes. This
//! crate moves those bytes with as few syscalls and copies as the kernel
//! allows. Present now: batched UDP with `sendmmsg`/`recvmmsg` and
//! scatter-gather, so a header and frame data leave in one datagram without
//! being copied together; and a PF_PACKET TPACKET_V3 receive ring behind a
//! BPF filter ([`packet_ring`]), the kernel-copies-into-shared-memory
//! baseline the host's receive backends are measured against; TCP streams
//! ([`tcp`]): record-aligned vectored sends with optional MSG_ZEROCOPY, a
//! listener and vectored `MSG_WAITALL` reads that put each piece of the byte
//! stream in its own place, and an mmap-receive probe; raw Ethernet frames of one ethertype
//! ([`raw`]: PF_PACKET with recvmmsg/sendmmsg and receive timestamps, for
//! FADE); the fan-out of one frame stream to many TCP clients from a shared
//! frame pool by write, sendfile, splice, MSG_ZEROCOPY or io_uring SEND_ZC
//! ([`fanout`], [`uring`], for
//! `linerate serve`); the settings of an interface that decide a
//! stream's cost ([`netdev`]); and AF_XDP ([`xdp`]: an XDP program sorts
//! frames of one ethertype into a socket whose ring is polled without
//! syscalls, for FADE's per-packet ACKs); and driver transmit stamps
//! ([`tx_stamp`]), which time when a frame really left; and a byte ring
//! shared by a writer and a reader thread, read in place ([`byte_ring`]),
//! the memory under a FADE board's receive ring.
//!
//! It is also the one place that holds `unsafe` code, libc, nix and
//! socket2 (tests/boundary.rs fails otherwise): the other crates call the
//! safe functions here for what they need from the kernel, such as CPU
//! affinity ([`sched`]), entering a network namespace ([`netns`]), socket
//! options ([`socket`]) and clocks ([`clock`]). Memory a receive path lends
//! to the kernel across calls of a protocol core (a frame buffer's slots)
//! is a [`memory::Region`], whose contract is written on the type.

pub mod byte_ring;
pub mod clock;
pub mod error;
pub mod fanout;
pub mod inject;
pub mod interfaces;
pub mod memory;
pub mod netdev;
pub mod netns;
pub mod packet_ring;
pub mod privilege;
pub mod process;
pub mod raw;
pub mod raw_ring;
pub mod scatter;
pub mod sched;
pub mod socket;
mod sockopt;
pub mod tcp;
pub mod tx_stamp;
pub mod udp;
pub mod uring;
pub mod xdp;

pub use error::{Error, Result};
