//! The 248-byte discovery ack payload, which mirrors bootstrap registers 0x0000..0x00f8.

use core::net::Ipv4Addr;

use crate::bytes::{be_u16, be_u32, put_u16, put_u32};
use crate::error::{ensure_len, Error, Result};
use crate::ethernet::MacAddr;

/// Byte offsets inside the discovery ack payload (equal to the bootstrap register addresses).
mod field {
    use crate::Field;
    pub const SPEC_MAJOR: usize = 0x00;
    pub const SPEC_MINOR: usize = 0x02;
    pub const DEVICE_MODE: usize = 0x04;
    pub const MAC_HIGH: Field = 0x0a..0x0c;
    pub const MAC_LOW: Field = 0x0c..0x10;
    pub const IP_CONFIG_OPTIONS: usize = 0x10;
    pub const IP_CONFIG_CURRENT: usize = 0x14;
    pub const CURRENT_IP: usize = 0x24;
    pub const SUBNET_MASK: usize = 0x34;
    pub const GATEWAY: usize = 0x44;
    pub const MANUFACTURER: Field = 0x48..0x68;
    pub const MODEL: Field = 0x68..0x88;
    pub const DEVICE_VERSION: Field = 0x88..0xa8;
    pub const MANUFACTURER_INFO: Field = 0xa8..0xd8;
    pub const SERIAL: Field = 0xd8..0xe8;
    pub const USER_NAME: Field = 0xe8..0xf8;
    pub const END: usize = 0xf8;
}

/// Length of a discovery ack payload.
pub const DISCOVERY_ACK_LEN: usize = field::END;

/// A fixed-size, NUL-padded text field as GigE Vision stores identity strings.
///
/// The raw bytes are kept so that a parse/emit round trip is exact even when
/// a device leaves garbage after the terminating NUL.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FixedString<const N: usize>(pub [u8; N]);

impl<const N: usize> FixedString<N> {
    /// Builds the field from text, leaving room for a terminating NUL.
    pub fn new(text: &str) -> Result<Self> {
        let bytes = text.as_bytes();
        if bytes.len() >= N {
            return Err(Error::Overflow {
                field: "GigE Vision string field",
                value: bytes.len() as u64,
                max: (N - 1) as u64,
            });
        }
        let mut out = [0u8; N];
        out[..bytes.len()].copy_from_slice(bytes);
        Ok(FixedString(out))
    }

    /// The text up to the first NUL, with invalid UTF-8 replaced.
    pub fn to_string_lossy(&self) -> String {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(N);
        String::from_utf8_lossy(&self.0[..end]).into_owned()
    }

    fn from_slice(bytes: &[u8]) -> Self {
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        FixedString(out)
    }
}

impl<const N: usize> Default for FixedString<N> {
    fn default() -> Self {
        FixedString([0; N])
    }
}

impl<const N: usize> core::fmt::Debug for FixedString<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}", self.to_string_lossy())
    }
}

/// Identity and network configuration a device announces in its discovery ack.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DiscoveryAck {
    /// GigE Vision specification version, major part.
    pub spec_major: u16,
    /// GigE Vision specification version, minor part.
    pub spec_minor: u16,
    /// Device mode register (endianness, device class, character set).
    pub device_mode: u32,
    /// MAC address of the interface that answered.
    pub mac: MacAddr,
    /// Supported IP configuration schemes (bit 0 LLA, 1 DHCP, 2 persistent IP).
    pub ip_config_options: u32,
    /// IP configuration schemes currently enabled.
    pub ip_config_current: u32,
    /// Current IPv4 address.
    pub current_ip: Ipv4Addr,
    /// Current subnet mask.
    pub subnet_mask: Ipv4Addr,
    /// Default gateway.
    pub gateway: Ipv4Addr,
    /// Manufacturer name.
    pub manufacturer: FixedString<32>,
    /// Model name.
    pub model: FixedString<32>,
    /// Device version string.
    pub device_version: FixedString<32>,
    /// Manufacturer-specific information.
    pub manufacturer_info: FixedString<48>,
    /// Serial number.
    pub serial: FixedString<16>,
    /// User-assigned device name.
    pub user_name: FixedString<16>,
}

impl Default for DiscoveryAck {
    fn default() -> Self {
        DiscoveryAck {
            spec_major: 0,
            spec_minor: 0,
            device_mode: 0,
            mac: MacAddr::default(),
            ip_config_options: 0,
            ip_config_current: 0,
            current_ip: Ipv4Addr::UNSPECIFIED,
            subnet_mask: Ipv4Addr::UNSPECIFIED,
            gateway: Ipv4Addr::UNSPECIFIED,
            manufacturer: FixedString::default(),
            model: FixedString::default(),
            device_version: FixedString::default(),
            manufacturer_info: FixedString::default(),
            serial: FixedString::default(),
            user_name: FixedString::default(),
        }
    }
}

fn ipv4(buf: &[u8], at: usize) -> Ipv4Addr {
    Ipv4Addr::from(be_u32(buf, at))
}

impl DiscoveryAck {
    /// Parses a discovery ack payload. Extra trailing bytes are ignored, as
    /// some devices pad the ack.
    pub fn parse(payload: &[u8]) -> Result<DiscoveryAck> {
        ensure_len("GVCP discovery ack", payload, DISCOVERY_ACK_LEN)?;
        let b = payload;
        let mut mac = [0u8; 6];
        mac[..2].copy_from_slice(&b[field::MAC_HIGH]);
        mac[2..].copy_from_slice(&b[field::MAC_LOW]);
        Ok(DiscoveryAck {
            spec_major: be_u16(b, field::SPEC_MAJOR),
            spec_minor: be_u16(b, field::SPEC_MINOR),
            device_mode: be_u32(b, field::DEVICE_MODE),
            mac: MacAddr(mac),
            ip_config_options: be_u32(b, field::IP_CONFIG_OPTIONS),
            ip_config_current: be_u32(b, field::IP_CONFIG_CURRENT),
            current_ip: ipv4(b, field::CURRENT_IP),
            subnet_mask: ipv4(b, field::SUBNET_MASK),
            gateway: ipv4(b, field::GATEWAY),
            manufacturer: FixedString::from_slice(&b[field::MANUFACTURER]),
            model: FixedString::from_slice(&b[field::MODEL]),
            device_version: FixedString::from_slice(&b[field::DEVICE_VERSION]),
            manufacturer_info: FixedString::from_slice(&b[field::MANUFACTURER_INFO]),
            serial: FixedString::from_slice(&b[field::SERIAL]),
            user_name: FixedString::from_slice(&b[field::USER_NAME]),
        })
    }

    /// Writes the 248-byte payload into `buf`; reserved bytes are zeroed.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        ensure_len("GVCP discovery ack buffer", buf, DISCOVERY_ACK_LEN)?;
        let b = &mut buf[..DISCOVERY_ACK_LEN];
        b.fill(0);
        put_u16(b, field::SPEC_MAJOR, self.spec_major);
        put_u16(b, field::SPEC_MINOR, self.spec_minor);
        put_u32(b, field::DEVICE_MODE, self.device_mode);
        b[field::MAC_HIGH].copy_from_slice(&self.mac.0[..2]);
        b[field::MAC_LOW].copy_from_slice(&self.mac.0[2..]);
        put_u32(b, field::IP_CONFIG_OPTIONS, self.ip_config_options);
        put_u32(b, field::IP_CONFIG_CURRENT, self.ip_config_current);
        put_u32(b, field::CURRENT_IP, self.current_ip.into());
        put_u32(b, field::SUBNET_MASK, self.subnet_mask.into());
        put_u32(b, field::GATEWAY, self.gateway.into());
        b[field::MANUFACTURER].copy_from_slice(&self.manufacturer.0);
        b[field::MODEL].copy_from_slice(&self.model.0);
        b[field::DEVICE_VERSION].copy_from_slice(&self.device_version.0);
        b[field::MANUFACTURER_INFO].copy_from_slice(&self.manufacturer_info.0);
        b[field::SERIAL].copy_from_slice(&self.serial.0);
        b[field::USER_NAME].copy_from_slice(&self.user_name.0);
        Ok(DISCOVERY_ACK_LEN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> DiscoveryAck {
        DiscoveryAck {
            spec_major: 2,
            spec_minor: 0,
            device_mode: 0x8000_0000,
            mac: MacAddr([0x02, 0, 0, 0, 0x10, 0x01]),
            ip_config_options: 0x7,
            ip_config_current: 0x4,
            current_ip: Ipv4Addr::new(169, 254, 10, 1),
            subnet_mask: Ipv4Addr::new(255, 255, 0, 0),
            gateway: Ipv4Addr::UNSPECIFIED,
            manufacturer: FixedString::new("linerate").expect("fits"),
            model: FixedString::new("emulated camera").expect("fits"),
            device_version: FixedString::new("0.1.0").expect("fits"),
            manufacturer_info: FixedString::default(),
            serial: FixedString::new("LR0001").expect("fits"),
            user_name: FixedString::default(),
        }
    }

    #[test]
    fn round_trip_at_register_offsets() {
        let ack = sample();
        let mut buf = [0xffu8; DISCOVERY_ACK_LEN];
        assert_eq!(ack.emit(&mut buf), Ok(248));
        assert_eq!(&buf[0x24..0x28], &[169, 254, 10, 1]);
        assert_eq!(&buf[0x0a..0x10], &[0x02, 0, 0, 0, 0x10, 0x01]);
        assert_eq!(&buf[0x48..0x50], b"linerate");
        assert_eq!(DiscoveryAck::parse(&buf), Ok(ack));
    }

    #[test]
    fn short_payload_and_long_strings_are_errors() {
        assert!(DiscoveryAck::parse(&[0u8; 247]).is_err());
        assert!(FixedString::<16>::new("0123456789abcdef").is_err());
        assert_eq!(
            FixedString::<16>::new("0123456789abcde").map(|s| s.to_string_lossy()),
            Ok("0123456789abcde".to_string())
        );
    }
}
