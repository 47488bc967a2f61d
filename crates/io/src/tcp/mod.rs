//! TCP for GVSP over TCP (`docs/gvsp-over-tcp.md`): the camera's sending
//! side ([`send`]) and the host's receiving side ([`recv`]), each moving
//! whole records with vectored calls so frame data is copied at most once.

pub mod recv;
pub mod send;
pub mod zerocopy;
