//! The host end of a FADE readout: one receive thread that reads out FPGA
//! front-end boards over raw Ethernet, in user space.
//!
//! The protocol is all in `linerate_fade` (sans-IO: the readout's state
//! machine [`linerate_fade::host::Host`], the per-board windows, the fair
//! controller). This crate gives it a wire, a clock and threads:
//!
//! * [`link`]: frames in through a PF_PACKET socket or AF_XDP
//!   ([`link::Backend`]), frames out through the raw socket;
//! * [`ack_clock`]: when each ACK left the host (the driver's transmit
//!   stamp, or the return of its send);
//! * [`ring`]: each board's ring, written by the receive thread and read
//!   in place by the application's thread, with FADE's wakeup threshold;
//! * [`timings`]: per board, the ACK latency and its parts;
//! * [`Readout`]: the loop that ties them together;
//! * [`receiver`]: a whole receiver on its own threads ([`spawn`]): the
//!   receive thread and one reader per board, with a typed
//!   [`ReadoutReport`] at the end; or, with [`spawn_with_rings`], the
//!   receive thread alone and the rings for the application to read.
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use linerate_fade::host::HostConfig;
//! use linerate_fade::version::V1;
//! use linerate_readout::{LinkConfig, Readout};
//!
//! let host = HostConfig {
//!     boards: vec![[0x02, 0, 0, 0, 0, 0x01]],
//!     limit_bytes: Some(1 << 30),
//!     ..HostConfig::default()
//! };
//! let (mut readout, mut rings) = Readout::<V1>::open(LinkConfig::new("eth0"), host)?;
//! let mut ring = rings.remove(0);
//! let reader = std::thread::spawn(move || loop {
//!     let p = ring.wait(std::time::Duration::from_millis(100));
//!     if p.available == 0 && (p.eof || p.error.is_some()) {
//!         return p.error;
//!     }
//!     let n = ring.data().len() as u64; // the data, in place
//!     ring.commit(n).expect("no more than was available");
//! });
//! readout.run(&AtomicBool::new(false))?;
//! assert!(readout.outcomes()[0].complete(Some(1 << 30)));
//! # let _ = reader.join();
//! # Ok::<(), linerate_readout::Error>(())
//! ```

pub mod ack_clock;
pub mod error;
pub mod link;
pub mod live;
pub mod probe;
mod readout;
pub mod receiver;
pub mod report;
pub mod ring;
pub mod timings;

pub use error::{Error, Result};
pub use live::{LiveBoard, LiveFigures};
pub use readout::{LinkConfig, Readout};
pub use receiver::{
    spawn, spawn_with_rings, BoardRing, DataSink, ReceiverConfig, ReceiverError, ReceiverHandle,
};
pub use report::ReadoutReport;
