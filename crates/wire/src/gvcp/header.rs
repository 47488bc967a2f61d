//! The 8-byte GVCP header views for commands and acks.

use crate::bytes::{be_u16, put_u16};
use crate::error::{ensure_len, Error, Result};
use crate::Status;

/// Byte offsets shared by the command and ack headers.
mod field {
    pub const KEY: usize = 0;
    pub const FLAGS: usize = 1;
    pub const STATUS: usize = 0;
    pub const CODE: usize = 2;
    pub const LENGTH: usize = 4;
    pub const ID: usize = 6;
    pub const PAYLOAD: usize = 8;
}

/// Length of the GVCP header.
pub const HEADER_LEN: usize = field::PAYLOAD;

/// Checks the header is present and the stated payload length fits the buffer.
fn check_lengths(what: &'static str, buf: &[u8]) -> Result<()> {
    ensure_len(what, buf, HEADER_LEN)?;
    let stated = usize::from(be_u16(buf, field::LENGTH));
    let available = buf.len() - HEADER_LEN;
    if stated > available {
        return Err(Error::BadLength {
            what,
            len: stated,
            rule: "length field exceeds the bytes received",
        });
    }
    Ok(())
}

/// A zero-copy view of a GVCP command datagram.
#[derive(Debug, Clone)]
pub struct CommandPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> CommandPacket<T> {
    /// Wraps `buffer`, checking the key byte and the length field.
    ///
    /// A device uses this view, before parsing the payload, to learn the
    /// request id it must echo in an error ack.
    pub fn new_checked(buffer: T) -> Result<Self> {
        check_lengths("GVCP command", buffer.as_ref())?;
        let key = buffer.as_ref()[field::KEY];
        if key != super::KEY {
            return Err(Error::BadValue {
                field: "GVCP key",
                value: key.into(),
            });
        }
        Ok(CommandPacket { buffer })
    }

    /// Wraps a buffer of at least [`HEADER_LEN`] bytes for writing.
    pub fn new_for_emit(buffer: T) -> Result<Self> {
        ensure_len("GVCP command buffer", buffer.as_ref(), HEADER_LEN)?;
        Ok(CommandPacket { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Flag bits, see [`super::flags`].
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }

    /// The command code, see [`super::code`].
    pub fn command(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::CODE)
    }

    /// Payload length stated in the header.
    pub fn length(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::LENGTH)
    }

    /// The request id the ack must echo.
    pub fn request_id(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::ID)
    }

    /// Exactly the payload bytes the header announces (trailing bytes ignored).
    pub fn payload(&self) -> &[u8] {
        let end = HEADER_LEN + usize::from(self.length());
        &self.buffer.as_ref()[HEADER_LEN..end]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> CommandPacket<T> {
    /// Writes the whole header; `length` must already be validated by the caller.
    pub fn set_header(&mut self, flags: u8, command: u16, length: u16, request_id: u16) {
        let b = self.buffer.as_mut();
        b[field::KEY] = super::KEY;
        b[field::FLAGS] = flags;
        put_u16(b, field::CODE, command);
        put_u16(b, field::LENGTH, length);
        put_u16(b, field::ID, request_id);
    }
}

/// A zero-copy view of a GVCP ack datagram.
#[derive(Debug, Clone)]
pub struct AckPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> AckPacket<T> {
    /// Wraps `buffer`, checking the length field.
    pub fn new_checked(buffer: T) -> Result<Self> {
        check_lengths("GVCP ack", buffer.as_ref())?;
        Ok(AckPacket { buffer })
    }

    /// Wraps a buffer of at least [`HEADER_LEN`] bytes for writing.
    pub fn new_for_emit(buffer: T) -> Result<Self> {
        ensure_len("GVCP ack buffer", buffer.as_ref(), HEADER_LEN)?;
        Ok(AckPacket { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Outcome of the command.
    pub fn status(&self) -> Status {
        Status(be_u16(self.buffer.as_ref(), field::STATUS))
    }

    /// The ack code, see [`super::code`].
    pub fn answer(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::CODE)
    }

    /// Payload length stated in the header.
    pub fn length(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::LENGTH)
    }

    /// The request id being answered.
    pub fn ack_id(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::ID)
    }

    /// Exactly the payload bytes the header announces (trailing bytes ignored).
    pub fn payload(&self) -> &[u8] {
        let end = HEADER_LEN + usize::from(self.length());
        &self.buffer.as_ref()[HEADER_LEN..end]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AckPacket<T> {
    /// Writes the whole header; `length` must already be validated by the caller.
    pub fn set_header(&mut self, status: Status, answer: u16, length: u16, ack_id: u16) {
        let b = self.buffer.as_mut();
        put_u16(b, field::STATUS, status.0);
        put_u16(b, field::CODE, answer);
        put_u16(b, field::LENGTH, length);
        put_u16(b, field::ID, ack_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_view_reads_fields() {
        let b = [0x42, 0x11, 0x00, 0x02, 0x00, 0x00, 0x12, 0x34];
        let p = CommandPacket::new_checked(&b[..]).expect("valid");
        assert_eq!(p.flags(), 0x11);
        assert_eq!(p.command(), 2);
        assert_eq!(p.request_id(), 0x1234);
        assert!(p.payload().is_empty());
    }

    #[test]
    fn bad_key_and_lengths_are_errors() {
        let b = [0x43, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01];
        assert!(matches!(
            CommandPacket::new_checked(&b[..]),
            Err(Error::BadValue { value: 0x43, .. })
        ));
        let b = [0x42, 0x01, 0x00, 0x80, 0x00, 0x04, 0x00, 0x01];
        assert!(matches!(
            CommandPacket::new_checked(&b[..]),
            Err(Error::BadLength { len: 4, .. })
        ));
        assert!(AckPacket::new_checked(&b[..7]).is_err());
    }

    #[test]
    fn payload_ignores_trailing_bytes() {
        let b = [0, 0, 0, 0x81, 0, 4, 0, 9, 1, 2, 3, 4, 0xee, 0xee];
        let p = AckPacket::new_checked(&b[..]).expect("valid");
        assert_eq!(p.payload(), &[1, 2, 3, 4]);
        assert_eq!(p.ack_id(), 9);
        assert_eq!(p.status(), Status::SUCCESS);
    }
}
