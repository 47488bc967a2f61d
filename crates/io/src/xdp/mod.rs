//! AF_XDP: frames straight from the driver into memory shared with the
//! receiver, sorted by an XDP program, read without syscalls.
//!
//! A PF_PACKET socket ([`crate::raw`]) sees a frame only after the kernel
//! has built a socket buffer for it and walked the protocol taps, and hands
//! it over one `recvmmsg` at a time. An AF_XDP socket gets the frame from
//! the driver's XDP hook: the kernel copies it into the socket's memory
//! (or a NIC with zero-copy support writes it there by DMA) and publishes
//! a descriptor on a ring that the receiver polls in user space. For FADE,
//! whose every data frame wants an ACK within microseconds, that removes
//! the socket buffer, the taps, the wakeup and the syscall from the path.
//!
//! * [`insn`]: a small eBPF assembler, so no BPF compiler is needed to build.
//! * [`program`]: the program: one ethertype to the socket, time-stamped.
//! * [`bpf`]: maps, program load (with the verifier's log on refusal),
//!   attach as a link that detaches when dropped.
//! * [`receiver`]: [`XdpReceiver`], the socket with its UMEM and rings.
//!
//! Needs root (CAP_NET_ADMIN, CAP_BPF, CAP_NET_RAW) and an interface with
//! XDP; veth has native XDP (copy mode only), any driver has generic XDP.
//! Frames the program redirects skip the kernel's taps and netfilter
//! ingress hooks: tcpdump on the interface no longer sees them.

pub mod bpf;
pub mod insn;
pub mod program;
pub mod receiver;
mod ring;

pub use bpf::AttachMode;
pub use receiver::{XdpConfig, XdpFrame, XdpReceiver, XdpStats};
