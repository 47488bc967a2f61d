//! Who the emulated camera is and how it starts: identity strings, network
//! identity and the image/stream defaults, checked once in `Device::new` so
//! the register logic can rely on them.

use core::net::Ipv4Addr;

use linerate_wire::ethernet::MacAddr;
use linerate_wire::PixelFormat;

/// Why a [`super::Device`] cannot be built from the identity and configuration given.
///
/// Every variant names the field and carries the offending value, so the
/// message alone says what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// An identity string does not fit its bootstrap register (which also
    /// needs room for a terminating NUL).
    #[error("identity {field} {value:?} is {len} bytes; the register holds at most {max}")]
    StringTooLong {
        /// The identity field, e.g. "serial".
        field: &'static str,
        /// The string given.
        value: String,
        /// Its length in bytes.
        len: usize,
        /// The most bytes the register can hold.
        max: usize,
    },
    /// A configuration value breaks a rule the register logic depends on.
    #[error("config {field} = {value}: {rule}")]
    InvalidConfig {
        /// The configuration field at fault.
        field: &'static str,
        /// The value given, formatted.
        value: String,
        /// The rule it breaks, in words, with the numbers it sets.
        rule: String,
    },
    /// The GenICam XML does not fit the memory region the register map reserves.
    #[error("GenICam XML of {len} bytes does not fit the {max}-byte region at {base:#x}")]
    XmlTooLarge {
        /// XML length in bytes.
        len: usize,
        /// Size of the region.
        max: u32,
        /// Start address of the region.
        base: u32,
    },
}

/// What the camera announces about itself in discovery and the bootstrap registers.
///
/// Kept apart from [`DeviceConfig`] because it identifies one instance (serial,
/// MAC, IP) while the configuration describes the camera model's behaviour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceIdentity {
    /// Manufacturer name (at most 31 bytes).
    pub manufacturer: String,
    /// Model name (at most 31 bytes).
    pub model: String,
    /// Device version (at most 31 bytes).
    pub version: String,
    /// Manufacturer-specific information (at most 47 bytes).
    pub info: String,
    /// Serial number (at most 15 bytes).
    pub serial: String,
    /// Initial user-defined name (at most 15 bytes); hosts may rewrite it.
    pub user_name: String,
    /// MAC address of the interface the camera answers on.
    pub mac: MacAddr,
    /// Current IPv4 address, as the I/O layer bound it.
    pub ip: Ipv4Addr,
    /// Subnet mask, used to decide whether a discovery ack may be unicast.
    pub subnet: Ipv4Addr,
    /// Default gateway.
    pub gateway: Ipv4Addr,
}

impl Default for DeviceIdentity {
    /// A link-local identity (169.254.10.1/16, locally administered MAC),
    /// handy for tests and the loopback demo.
    fn default() -> Self {
        DeviceIdentity {
            manufacturer: "linerate".into(),
            model: "linerate emulated camera".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            info: "https://github.com/linerate/linerate".into(),
            serial: "LR000001".into(),
            user_name: String::new(),
            mac: MacAddr([0x02, 0x4c, 0x52, 0x00, 0x00, 0x01]),
            ip: Ipv4Addr::new(169, 254, 10, 1),
            subnet: Ipv4Addr::new(255, 255, 0, 0),
            gateway: Ipv4Addr::UNSPECIFIED,
        }
    }
}

/// The camera model's defaults and limits, which the register logic enforces.
///
/// The defaults let an Aravis host acquire with no options: 1024×768 Mono8 at
/// 25 fps in 1500-byte packets. The GenICam XML must state the same limits,
/// or hosts will offer values the device then refuses.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceConfig {
    /// Initial image width in pixels.
    pub width: u32,
    /// Initial image height in lines.
    pub height: u32,
    /// Smallest width accepted (the test-pattern stamp needs 16 bytes per frame).
    pub width_min: u32,
    /// Smallest height accepted.
    pub height_min: u32,
    /// Sensor width: width + offset x may not exceed it.
    pub width_max: u32,
    /// Sensor height: height + offset y may not exceed it.
    pub height_max: u32,
    /// Width and offset x must be multiples of this.
    pub width_increment: u32,
    /// Height and offset y must be multiples of this.
    pub height_increment: u32,
    /// Initial pixel format; must be one of `pixel_formats`.
    pub pixel_format: PixelFormat,
    /// Pixel formats the PixelFormat register accepts.
    pub pixel_formats: Vec<PixelFormat>,
    /// Initial frame rate in frames per second.
    pub frame_rate: f32,
    /// Lowest frame rate accepted.
    pub frame_rate_min: f32,
    /// Highest frame rate accepted.
    pub frame_rate_max: f32,
    /// Initial heartbeat timeout in milliseconds (the standard's default is 3000, minimum 500).
    pub heartbeat_timeout_ms: u32,
    /// Initial SCPS packet size in bytes (IP + UDP + GVSP headers included).
    pub packet_size: u32,
    /// Smallest SCPS packet size accepted.
    pub packet_size_min: u32,
    /// Largest SCPS packet size accepted (at most 65535: the field has 16 bits).
    pub packet_size_max: u32,
    /// Worst-case command execution time the device reports, in milliseconds.
    pub pending_timeout_ms: u32,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        DeviceConfig {
            width: 1024,
            height: 768,
            width_min: 16,
            height_min: 1,
            width_max: 8192,
            height_max: 8192,
            width_increment: 4,
            height_increment: 1,
            pixel_format: PixelFormat::MONO8,
            pixel_formats: PixelFormat::KNOWN.to_vec(),
            frame_rate: 25.0,
            frame_rate_min: 0.1,
            frame_rate_max: 10_000.0,
            heartbeat_timeout_ms: 3000,
            packet_size: 1500,
            packet_size_min: 576,
            packet_size_max: 16_000,
            pending_timeout_ms: 200,
        }
    }
}

/// Smallest heartbeat timeout the standard allows, in milliseconds.
pub const HEARTBEAT_TIMEOUT_MIN_MS: u32 = 500;

/// Smallest packet size that still carries a GVSP leader with room to spare
/// (IP 20 + UDP 8 + extended GVSP header 20 + image leader 36).
const PACKET_SIZE_FLOOR: u32 = 84;

fn invalid(
    field: &'static str,
    value: impl core::fmt::Display,
    rule: impl Into<String>,
) -> DeviceError {
    DeviceError::InvalidConfig {
        field,
        value: value.to_string(),
        rule: rule.into(),
    }
}

impl DeviceConfig {
    /// Checks the values against each other, so the register logic never
    /// starts from a state a host could not have written.
    pub fn validate(&self) -> Result<(), DeviceError> {
        if self.width_increment == 0 {
            return Err(invalid("width_increment", 0, "must be at least 1"));
        }
        if self.height_increment == 0 {
            return Err(invalid("height_increment", 0, "must be at least 1"));
        }
        if self.width_min == 0 || self.width_min > self.width_max {
            return Err(invalid(
                "width_min",
                self.width_min,
                format!(
                    "must be at least 1 and at most width_max ({})",
                    self.width_max
                ),
            ));
        }
        if self.height_min == 0 || self.height_min > self.height_max {
            return Err(invalid(
                "height_min",
                self.height_min,
                format!(
                    "must be at least 1 and at most height_max ({})",
                    self.height_max
                ),
            ));
        }
        if self.width < self.width_min
            || self.width > self.width_max
            || self.width % self.width_increment != 0
        {
            return Err(invalid(
                "width",
                self.width,
                format!(
                    "must lie in {}..={} and be a multiple of {}",
                    self.width_min, self.width_max, self.width_increment
                ),
            ));
        }
        if self.height < self.height_min
            || self.height > self.height_max
            || self.height % self.height_increment != 0
        {
            return Err(invalid(
                "height",
                self.height,
                format!(
                    "must lie in {}..={} and be a multiple of {}",
                    self.height_min, self.height_max, self.height_increment
                ),
            ));
        }
        if self.pixel_formats.is_empty() {
            return Err(invalid(
                "pixel_formats",
                "[]",
                "must list at least one format",
            ));
        }
        if let Some(f) = self.pixel_formats.iter().find(|f| f.bits_per_pixel() == 0) {
            return Err(invalid(
                "pixel_formats",
                f,
                "every format needs a non-zero bits-per-pixel field",
            ));
        }
        if !self.pixel_formats.contains(&self.pixel_format) {
            return Err(invalid(
                "pixel_format",
                self.pixel_format,
                "must be one of pixel_formats",
            ));
        }
        for f in &self.pixel_formats {
            let fits = f
                .image_bytes(self.width_max, self.height_max)
                .is_some_and(|b| u32::try_from(b).is_ok());
            if !fits {
                return Err(invalid(
                    "width_max/height_max",
                    format!("{}x{} {f}", self.width_max, self.height_max),
                    "the largest frame must fit the 32-bit PayloadSize register",
                ));
            }
        }
        let rates_ok = self.frame_rate_min.is_finite()
            && self.frame_rate_max.is_finite()
            && self.frame_rate_min > 0.0
            && self.frame_rate_min <= self.frame_rate_max;
        if !rates_ok {
            return Err(invalid(
                "frame_rate_min/frame_rate_max",
                format!("{}..={}", self.frame_rate_min, self.frame_rate_max),
                "must be finite, positive and ordered",
            ));
        }
        if !(self.frame_rate >= self.frame_rate_min && self.frame_rate <= self.frame_rate_max) {
            return Err(invalid(
                "frame_rate",
                self.frame_rate,
                "must lie in frame_rate_min..=frame_rate_max",
            ));
        }
        if self.heartbeat_timeout_ms < HEARTBEAT_TIMEOUT_MIN_MS {
            return Err(invalid(
                "heartbeat_timeout_ms",
                self.heartbeat_timeout_ms,
                "the standard's minimum is 500 ms",
            ));
        }
        if self.packet_size_min < PACKET_SIZE_FLOOR
            || self.packet_size_max > u32::from(u16::MAX)
            || self.packet_size_min > self.packet_size_max
        {
            return Err(invalid(
                "packet_size_min/packet_size_max",
                format!("{}..={}", self.packet_size_min, self.packet_size_max),
                "must be ordered, at least 84 (headers) and at most 65535 (16-bit field)",
            ));
        }
        if self.packet_size < self.packet_size_min || self.packet_size > self.packet_size_max {
            return Err(invalid(
                "packet_size",
                self.packet_size,
                "must lie in packet_size_min..=packet_size_max",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(DeviceConfig::default().validate(), Ok(()));
    }

    #[test]
    fn bad_values_name_the_field() {
        let c = DeviceConfig {
            width: 1022,
            ..DeviceConfig::default()
        };
        let e = c.validate().expect_err("1022 is not a multiple of 4");
        assert!(e.to_string().contains("width = 1022"), "{e}");
        assert!(
            e.to_string().contains("must lie in 16..=") && e.to_string().contains("multiple of 4"),
            "the rule's numbers: {e}"
        );

        let c = DeviceConfig {
            pixel_format: PixelFormat(0x0108_00ff),
            ..DeviceConfig::default()
        };
        assert!(matches!(
            c.validate(),
            Err(DeviceError::InvalidConfig {
                field: "pixel_format",
                ..
            })
        ));

        let c = DeviceConfig {
            heartbeat_timeout_ms: 100,
            ..DeviceConfig::default()
        };
        assert!(c.validate().is_err());

        let c = DeviceConfig {
            frame_rate: f32::NAN,
            ..DeviceConfig::default()
        };
        assert!(c.validate().is_err());

        let c = DeviceConfig {
            packet_size_max: 70_000,
            ..DeviceConfig::default()
        };
        assert!(c.validate().is_err());
    }
}
