//! GigE Vision status codes, shared by GVCP acks and GVSP packet headers.

/// A GigE Vision status code (16 bits).
///
/// Bit 15 set means an error. The newtype keeps unknown codes intact so a
/// peer's vendor-specific status survives a parse/emit round trip.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Status(pub u16);

impl Status {
    /// The command or packet succeeded.
    pub const SUCCESS: Status = Status(0x0000);
    /// GVSP: this packet is a retransmission answering a packet-resend request.
    pub const PACKET_RESEND: Status = Status(0x0100);
    /// The command is not supported by the device.
    pub const NOT_IMPLEMENTED: Status = Status(0x8001);
    /// A parameter of the command is invalid.
    pub const INVALID_PARAMETER: Status = Status(0x8002);
    /// The address does not exist or cannot be accessed this way.
    pub const INVALID_ADDRESS: Status = Status(0x8003);
    /// The address is read-only.
    pub const WRITE_PROTECT: Status = Status(0x8004);
    /// The address or length is not aligned as required.
    pub const BAD_ALIGNMENT: Status = Status(0x8005);
    /// The sender does not hold the privilege the command needs.
    pub const ACCESS_DENIED: Status = Status(0x8006);
    /// The device is busy and cannot process the command now.
    pub const BUSY: Status = Status(0x8007);
    /// The header or payload breaks the protocol.
    pub const INVALID_PROTOCOL: Status = Status(0x800a);
    /// No message is available.
    pub const NO_MSG: Status = Status(0x800b);
    /// GVSP: the requested packet is no longer (or never was) available.
    pub const PACKET_UNAVAILABLE: Status = Status(0x800c);
    /// The device's internal memory overflowed.
    pub const DATA_OVERRUN: Status = Status(0x800d);
    /// The message header is malformed.
    pub const INVALID_HEADER: Status = Status(0x800e);
    /// GVSP: the requested packet has not been produced yet.
    pub const PACKET_NOT_YET_AVAILABLE: Status = Status(0x8010);
    /// GVSP: the requested packet and earlier ones were dropped from the resend buffer.
    pub const PACKET_AND_PREV_REMOVED_FROM_MEMORY: Status = Status(0x8011);
    /// GVSP: the requested packet was dropped from the resend buffer.
    pub const PACKET_REMOVED_FROM_MEMORY: Status = Status(0x8012);
    /// No reference time is available for a scheduled action.
    pub const NO_REF_TIME: Status = Status(0x8013);
    /// GVSP: the packet cannot be resent now, but may be later.
    pub const PACKET_TEMPORARILY_UNAVAILABLE: Status = Status(0x8014);
    /// The device's buffers overflowed.
    pub const OVERFLOW: Status = Status(0x8015);
    /// A scheduled action arrived too late.
    pub const ACTION_LATE: Status = Status(0x8016);
    /// GVSP: leader or trailer did not fit the configured packet size.
    pub const LEADER_TRAILER_OVERFLOW: Status = Status(0x8017);
    /// Unspecified error.
    pub const ERROR: Status = Status(0x8fff);

    /// True when bit 15 is set, which the standard reserves for errors.
    pub const fn is_error(self) -> bool {
        self.0 & 0x8000 != 0
    }

    /// The standard's name for this code, when it has one.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Status::SUCCESS => "SUCCESS",
            Status::PACKET_RESEND => "PACKET_RESEND",
            Status::NOT_IMPLEMENTED => "NOT_IMPLEMENTED",
            Status::INVALID_PARAMETER => "INVALID_PARAMETER",
            Status::INVALID_ADDRESS => "INVALID_ADDRESS",
            Status::WRITE_PROTECT => "WRITE_PROTECT",
            Status::BAD_ALIGNMENT => "BAD_ALIGNMENT",
            Status::ACCESS_DENIED => "ACCESS_DENIED",
            Status::BUSY => "BUSY",
            Status::INVALID_PROTOCOL => "INVALID_PROTOCOL",
            Status::NO_MSG => "NO_MSG",
            Status::PACKET_UNAVAILABLE => "PACKET_UNAVAILABLE",
            Status::DATA_OVERRUN => "DATA_OVERRUN",
            Status::INVALID_HEADER => "INVALID_HEADER",
            Status::PACKET_NOT_YET_AVAILABLE => "PACKET_NOT_YET_AVAILABLE",
            Status::PACKET_AND_PREV_REMOVED_FROM_MEMORY => "PACKET_AND_PREV_REMOVED_FROM_MEMORY",
            Status::PACKET_REMOVED_FROM_MEMORY => "PACKET_REMOVED_FROM_MEMORY",
            Status::NO_REF_TIME => "NO_REF_TIME",
            Status::PACKET_TEMPORARILY_UNAVAILABLE => "PACKET_TEMPORARILY_UNAVAILABLE",
            Status::OVERFLOW => "OVERFLOW",
            Status::ACTION_LATE => "ACTION_LATE",
            Status::LEADER_TRAILER_OVERFLOW => "LEADER_TRAILER_OVERFLOW",
            Status::ERROR => "ERROR",
            _ => return None,
        })
    }
}

impl core::fmt::Display for Status {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n} ({:#06x})", self.0),
            None => write!(f, "status {:#06x}", self.0),
        }
    }
}

impl core::fmt::Debug for Status {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bit_and_names() {
        assert!(!Status::SUCCESS.is_error());
        assert!(!Status::PACKET_RESEND.is_error());
        assert!(Status::ACCESS_DENIED.is_error());
        assert_eq!(Status::ACCESS_DENIED.to_string(), "ACCESS_DENIED (0x8006)");
        assert_eq!(Status(0x8abc).to_string(), "status 0x8abc");
        assert!(Status(0x8abc).is_error());
    }
}
