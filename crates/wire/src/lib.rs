//! Wire codecs for the protocols linerate speaks.
//!
//! Every codec follows one pattern, borrowed from smoltcp's `wire` module:
//!
//! * a *view* type (`Packet<T: AsRef<[u8]>>`) that wraps a byte buffer without
//!   copying it. `new_checked` validates the length once, after which the
//!   field accessors cannot panic. Setters exist when `T: AsMut<[u8]>`.
//! * a `Repr` type, a plain Rust value that is parsed from a view and emitted
//!   back into a buffer. `Repr::parse` validates field values as well as
//!   lengths; `Repr::emit` writes exactly `Repr::buffer_len()` bytes.
//! * byte offsets named once, in a private `field` module per codec.
//!
//! Decoders never panic, on any input: malformed bytes produce a typed
//! [`Error`] naming the field and the offending value. The crate does no I/O
//! and allocates only where a `Repr` owns variable-length data.
//!
//! All multi-byte fields are big-endian (network order).

mod bytes;
pub mod error;
pub mod ethernet;
pub mod fade;
pub mod gvcp;
pub mod gvsp;
pub mod gvsp_tcp;
pub mod pixel_format;
#[cfg(feature = "serde")]
mod serde_support;
pub mod served;
pub mod status;

pub use error::{Error, Result};
pub use pixel_format::PixelFormat;
pub use status::Status;

/// A half-open byte range inside a packet, used to name field offsets.
pub(crate) type Field = core::ops::Range<usize>;

/// Start offset of a variable-length tail that runs to the end of the buffer.
pub(crate) type Rest = core::ops::RangeFrom<usize>;
