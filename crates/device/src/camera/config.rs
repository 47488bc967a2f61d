//! What a camera is started with, and how that becomes the GVCP register
//! model's settings.

use std::net::Ipv4Addr;

use linerate_gev::device::DeviceConfig;
use linerate_wire::PixelFormat;

use super::{CameraError, EventSink};

/// How to start an emulated camera: where it answers, the image it
/// streams at first (a host changes it through registers), and how the
/// stream is sent. `CameraConfig::default()` is what `linerate camera`
/// uses without options, on 127.0.0.1.
#[derive(Debug, Clone)]
pub struct CameraConfig {
    /// IPv4 address the camera answers on; an interface of the network
    /// namespace of the thread that calls [`super::spawn`] must have it.
    pub bind: Ipv4Addr,
    /// GVCP port (3956 is the standard's).
    pub port: u16,
    /// Serial number reported in discovery (`None`: derived from the address).
    pub serial: Option<String>,
    /// Initial image width in pixels.
    pub width: u32,
    /// Initial image height in lines.
    pub height: u32,
    /// Initial pixel format (one of [`supported_pixel_formats`]).
    pub pixel_format: PixelFormat,
    /// Initial frame rate in frames per second.
    pub frame_rate: f32,
    /// Initial GVSP packet size (SCPS: IP + UDP + GVSP headers + data).
    pub packet_size: u32,
    /// Most frames kept for packet resend requests (at least one).
    pub resend_frames: usize,
    /// Most bytes the resend buffer may hold (one frame is always kept).
    pub resend_memory: usize,
    /// UDP source port of the stream (0: the kernel chooses). A fixed port
    /// lets firewalls and loss rules select the stream.
    pub stream_port: u16,
    /// Use UDP GSO super-datagrams where the egress interface segments
    /// them before the wire; false sends one datagram per packet always.
    pub gso: bool,
    /// On the TCP transport, send frame data with MSG_ZEROCOPY.
    pub tcp_zerocopy: bool,
    /// TCP send buffer (SO_SNDBUF) in bytes; `None` (the default) leaves it
    /// to the kernel's autotuning, which measured faster than a fixed 4 MiB.
    pub tcp_send_buffer: Option<usize>,
    /// Where the camera's [`super::CameraEvent`]s go (default: nowhere).
    pub events: EventSink,
}

impl Default for CameraConfig {
    fn default() -> CameraConfig {
        CameraConfig {
            bind: Ipv4Addr::LOCALHOST,
            port: linerate_wire::gvcp::PORT,
            serial: None,
            width: 1024,
            height: 768,
            pixel_format: PixelFormat::MONO8,
            frame_rate: 25.0,
            packet_size: 1500,
            resend_frames: 16,
            resend_memory: 256 << 20,
            stream_port: 0,
            gso: true,
            tcp_zerocopy: false,
            tcp_send_buffer: None,
            events: EventSink::default(),
        }
    }
}

/// The pixel formats the camera offers (those its GenICam XML lists).
pub fn supported_pixel_formats() -> Vec<PixelFormat> {
    DeviceConfig::default().pixel_formats
}

impl CameraConfig {
    /// The register model's settings for this configuration, checked.
    pub(crate) fn device_config(&self) -> Result<DeviceConfig, CameraError> {
        let defaults = DeviceConfig::default();
        if !defaults.pixel_formats.contains(&self.pixel_format) {
            return Err(CameraError::UnsupportedPixelFormat {
                format: self.pixel_format,
            });
        }
        let config = DeviceConfig {
            width: self.width,
            height: self.height,
            pixel_format: self.pixel_format,
            frame_rate: self.frame_rate,
            packet_size: self.packet_size,
            ..defaults
        };
        config
            .validate()
            .map_err(|source| CameraError::Settings { source })?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid_and_match_the_register_model() {
        let config = CameraConfig::default()
            .device_config()
            .expect("valid defaults");
        assert_eq!((config.width, config.height), (1024, 768));
        assert_eq!(config.packet_size, 1500);
    }

    #[test]
    fn out_of_range_settings_are_refused_with_the_value() {
        let config = CameraConfig {
            width: 3,
            ..CameraConfig::default()
        };
        let err = config.device_config().expect_err("too narrow");
        assert!(matches!(err, CameraError::Settings { .. }), "{err}");
        let source = std::error::Error::source(&err).map(ToString::to_string);
        assert!(source.is_some_and(|s| s.contains('3')), "{err:?}");
    }
}
