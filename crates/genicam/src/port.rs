//! Register access: the [`RegisterPort`] trait a transport implements, the
//! chunking and alignment this crate does for it, and the adapter that lets
//! cameleon-genapi evaluate features through it.

use core::cell::Cell;

use crate::error::{Error, PortError};

/// The most bytes this crate asks a [`RegisterPort`] for in one call.
///
/// GVCP READMEM carries at most 536 data bytes and the count must be a
/// multiple of 4; 512 is the largest power of two under that, as Aravis and
/// most hosts use.
pub const MAX_CHUNK: usize = 512;

/// Register access over whatever transport the device uses; implemented by
/// the GVCP control connection (READMEM/WRITEMEM), or by a test double.
///
/// Keeping the transport behind this trait is what lets this crate stay
/// sans-IO: it never opens a socket, and everything in it is tested against
/// in-memory devices.
///
/// What this crate promises callers of the trait:
/// * every `read` has an address and a length that are multiples of 4 and a
///   length of at most [`MAX_CHUNK`] bytes (unaligned requests from the XML
///   are widened to whole words and trimmed here);
/// * every `write` has at most [`MAX_CHUNK`] bytes; writes are never widened
///   (that would need a read-modify-write with side effects), so an
///   unaligned register in an XML reaches the transport as it is, and the
///   device answers it (GVCP `BAD_ALIGNMENT`).
pub trait RegisterPort {
    /// Reads `buf.len()` bytes at `address` (GVCP READMEM).
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), PortError>;
    /// Writes `data` at `address` (GVCP WRITEMEM).
    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), PortError>;
}

impl<P: RegisterPort + ?Sized> RegisterPort for &mut P {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), PortError> {
        (**self).read(address, buf)
    }

    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), PortError> {
        (**self).write(address, data)
    }
}

fn overflow(address: u64, length: usize) -> PortError {
    PortError::read(
        address,
        length,
        "address range runs past the end of the 64-bit address space",
    )
}

/// Reads `buf.len()` bytes at `address` in aligned chunks of at most
/// [`MAX_CHUNK`] bytes, widening the range to whole 4-byte words.
///
/// Public so a host can read other memory (e.g. a manifest table) with the
/// same rules the XML fetch uses.
pub fn read_memory(port: &mut dyn RegisterPort, address: u64, buf: &mut [u8]) -> Result<(), Error> {
    if buf.is_empty() {
        return Ok(());
    }
    let len = buf.len();
    let len64 = u64::try_from(len).map_err(|_| overflow(address, len))?;
    let end = address
        .checked_add(len64)
        .ok_or_else(|| overflow(address, len))?;
    let start = address & !3;
    let aligned_end = end
        .checked_add(3)
        .map(|e| e & !3)
        .ok_or_else(|| overflow(address, len))?;
    if start == address && aligned_end == end {
        let mut at = address;
        for chunk in buf.chunks_mut(MAX_CHUNK) {
            port.read(at, chunk)?;
            at += chunk.len() as u64;
        }
        return Ok(());
    }
    // Widened: read whole words into a scratch buffer, copy out the middle.
    let wide_len = usize::try_from(aligned_end - start).map_err(|_| overflow(address, len))?;
    let mut wide = vec![0u8; wide_len];
    let mut at = start;
    for chunk in wide.chunks_mut(MAX_CHUNK) {
        port.read(at, chunk)?;
        at += chunk.len() as u64;
    }
    let skip = usize::try_from(address - start).map_err(|_| overflow(address, len))?;
    let part = wide
        .get(skip..skip + len)
        .ok_or_else(|| overflow(address, len))?;
    buf.copy_from_slice(part);
    Ok(())
}

/// Writes `data` at `address` in chunks of at most [`MAX_CHUNK`] bytes.
pub fn write_memory(port: &mut dyn RegisterPort, address: u64, data: &[u8]) -> Result<(), Error> {
    let mut at = address;
    for chunk in data.chunks(MAX_CHUNK) {
        port.write(at, chunk)?;
        at = at.checked_add(chunk.len() as u64).ok_or_else(|| {
            PortError::write(
                address,
                data.len(),
                "address range runs past the end of the 64-bit address space",
            )
        })?;
    }
    Ok(())
}

/// cameleon-genapi's view of a [`RegisterPort`].
///
/// `in_port` is set while the transport runs, so a panic caught around a
/// GenApi call can be told apart: one from the transport is the caller's
/// bug and is re-raised, one from cameleon-genapi becomes an [`Error`].
pub(crate) struct PortDevice<'a> {
    port: &'a mut dyn RegisterPort,
    in_port: &'a Cell<bool>,
}

impl<'a> PortDevice<'a> {
    pub(crate) fn new(port: &'a mut dyn RegisterPort, in_port: &'a Cell<bool>) -> PortDevice<'a> {
        PortDevice { port, in_port }
    }
}

type DeviceResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// Turns our error back into the boxed form cameleon-genapi carries; a
/// [`PortError`] stays downcastable so it comes back out typed.
fn boxed(e: Error) -> Box<dyn std::error::Error + Send + Sync> {
    match e {
        Error::Port(p) => Box::new(p),
        other => other.to_string().into(),
    }
}

impl cameleon_genapi::Device for PortDevice<'_> {
    fn read_mem(&mut self, address: i64, buf: &mut [u8]) -> DeviceResult {
        let address =
            u64::try_from(address).map_err(|_| format!("negative register address {address}"))?;
        self.in_port.set(true);
        let result = read_memory(self.port, address, buf);
        self.in_port.set(false);
        result.map_err(boxed)
    }

    fn write_mem(&mut self, address: i64, data: &[u8]) -> DeviceResult {
        let address =
            u64::try_from(address).map_err(|_| format!("negative register address {address}"))?;
        self.in_port.set(true);
        let result = write_memory(self.port, address, data);
        self.in_port.set(false);
        result.map_err(boxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory of `size` bytes holding `i as u8` at address `i`, logging every read.
    struct Mem {
        bytes: Vec<u8>,
        reads: Vec<(u64, usize)>,
    }

    impl Mem {
        fn new(size: usize) -> Mem {
            Mem {
                bytes: (0..size).map(|i| i as u8).collect(),
                reads: Vec::new(),
            }
        }
    }

    impl RegisterPort for Mem {
        fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), PortError> {
            assert_eq!(address % 4, 0, "unaligned read address");
            assert_eq!(buf.len() % 4, 0, "unaligned read length");
            assert!(buf.len() <= MAX_CHUNK, "read of {} bytes", buf.len());
            self.reads.push((address, buf.len()));
            let start = address as usize;
            let src = self
                .bytes
                .get(start..start + buf.len())
                .ok_or_else(|| PortError::read(address, buf.len(), "out of range"))?;
            buf.copy_from_slice(src);
            Ok(())
        }

        fn write(&mut self, address: u64, data: &[u8]) -> Result<(), PortError> {
            let start = address as usize;
            self.bytes[start..start + data.len()].copy_from_slice(data);
            Ok(())
        }
    }

    #[test]
    fn reads_are_aligned_chunked_and_trimmed() {
        let mut mem = Mem::new(4096);
        let mut buf = vec![0u8; 1030];
        read_memory(&mut mem, 6, &mut buf).expect("read");
        let want: Vec<u8> = (6..1036).map(|i| i as u8).collect();
        assert_eq!(buf, want);
        assert_eq!(mem.reads, [(4, 512), (516, 512), (1028, 8)]);

        mem.reads.clear();
        let mut buf = vec![0u8; 1024];
        read_memory(&mut mem, 0, &mut buf).expect("read");
        assert_eq!(mem.reads, [(0, 512), (512, 512)]);

        mem.reads.clear();
        let mut buf = [0u8; 1];
        read_memory(&mut mem, 4095, &mut buf).expect("read");
        assert_eq!(buf, [4095u32 as u8]);
        assert_eq!(mem.reads, [(4092, 4)]);
    }

    #[test]
    fn reads_near_the_top_of_the_address_space_fail_cleanly() {
        let mut mem = Mem::new(16);
        let mut buf = [0u8; 8];
        let err = read_memory(&mut mem, u64::MAX - 2, &mut buf).expect_err("overflow");
        assert!(matches!(err, Error::Port(_)), "{err}");
    }
}
