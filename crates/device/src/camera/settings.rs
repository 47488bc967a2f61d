//! From register values to a stream: what the stream thread is told when
//! a host starts acquisition, read off the GVCP register model's
//! [`StreamConfig`] (SCDA/SCP destination, SCPS packet size, SCPD delay,
//! the image registers, acquisition and trigger modes, and linerate's
//! transport and transfer-size registers).

use linerate_gev::device::{AcquisitionMode, StreamConfig};

use super::streamer::{StreamSettings, Transport};

/// The stream to start for `cfg`, or `None` when no destination is set
/// (a host that set no SCDA/SCP gets no stream). `timestamp_offset_ns`
/// is the device timestamp minus stream-thread time at the start.
pub fn stream_settings(cfg: &StreamConfig, timestamp_offset_ns: i128) -> Option<StreamSettings> {
    let destination = cfg.destination?;
    Some(StreamSettings {
        destination,
        transport: transport(cfg),
        packet_size: cfg.packet_size as usize,
        packet_delay_ns: u64::from(cfg.packet_delay_ticks),
        extended_ids: cfg.extended_ids,
        width: cfg.width,
        height: cfg.height,
        offset_x: cfg.offset_x,
        offset_y: cfg.offset_y,
        pixel_format: cfg.pixel_format,
        frame_rate: cfg.frame_rate,
        frame_limit: frame_limit(cfg),
        triggered: cfg.trigger_mode_on,
        gradient: cfg.test_pattern == 1,
        timestamp_offset_ns,
    })
}

/// UDP datagrams (transport register 0) or TCP records; on TCP a transfer
/// size of 0 follows SCPS, giving exactly the UDP packetisation.
pub fn transport(cfg: &StreamConfig) -> Transport {
    if cfg.transport == 0 {
        return Transport::Udp;
    }
    let data_per_packet = match cfg.transfer_size {
        0 => linerate_wire::gvsp::payload_per_packet(cfg.packet_size as usize, cfg.extended_ids),
        n => n as usize,
    };
    Transport::Tcp { data_per_packet }
}

/// Frames an acquisition sends before it ends by itself: none for
/// continuous, one for single frame, AcquisitionFrameCount (at least one)
/// for multi frame.
pub fn frame_limit(cfg: &StreamConfig) -> Option<u64> {
    match cfg.acquisition_mode {
        AcquisitionMode::Continuous => None,
        AcquisitionMode::SingleFrame => Some(1),
        AcquisitionMode::MultiFrame => Some(u64::from(cfg.frame_count.max(1))),
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddrV4};

    use linerate_wire::PixelFormat;

    use super::*;

    fn registers() -> StreamConfig {
        StreamConfig {
            destination: Some(SocketAddrV4::new(Ipv4Addr::new(169, 254, 0, 2), 50000)),
            packet_size: 1500,
            do_not_fragment: true,
            packet_delay_ticks: 0,
            extended_ids: false,
            width: 64,
            height: 8,
            offset_x: 0,
            offset_y: 0,
            pixel_format: PixelFormat::MONO8,
            payload_size: 512,
            frame_rate: 25.0,
            acquisition_mode: AcquisitionMode::Continuous,
            frame_count: 0,
            trigger_mode_on: false,
            test_pattern: 0,
            transport: 0,
            transfer_size: 0,
        }
    }

    #[test]
    fn no_destination_means_no_stream() {
        let cfg = StreamConfig {
            destination: None,
            ..registers()
        };
        assert!(stream_settings(&cfg, 0).is_none());
    }

    #[test]
    fn tcp_follows_the_packet_size_unless_a_transfer_size_is_set() {
        let tcp = StreamConfig {
            transport: 1,
            ..registers()
        };
        let udp_payload = linerate_wire::gvsp::payload_per_packet(1500, false);
        assert_eq!(
            transport(&tcp),
            Transport::Tcp {
                data_per_packet: udp_payload
            }
        );
        let sized = StreamConfig {
            transfer_size: 65536,
            ..tcp
        };
        assert_eq!(
            transport(&sized),
            Transport::Tcp {
                data_per_packet: 65536
            }
        );
        assert_eq!(transport(&registers()), Transport::Udp);
    }

    #[test]
    fn acquisition_modes_set_the_frame_limit() {
        let multi = |frame_count| StreamConfig {
            acquisition_mode: AcquisitionMode::MultiFrame,
            frame_count,
            ..registers()
        };
        assert_eq!(frame_limit(&registers()), None);
        assert_eq!(frame_limit(&multi(5)), Some(5));
        assert_eq!(frame_limit(&multi(0)), Some(1));
        let single = StreamConfig {
            acquisition_mode: AcquisitionMode::SingleFrame,
            ..registers()
        };
        assert_eq!(frame_limit(&single), Some(1));
    }

    #[test]
    fn registers_reach_the_stream_settings() {
        let cfg = StreamConfig {
            packet_delay_ticks: 700,
            trigger_mode_on: true,
            test_pattern: 1,
            ..registers()
        };
        let s = stream_settings(&cfg, -5).expect("destination set");
        assert_eq!(s.destination, cfg.destination.expect("set"));
        assert_eq!((s.packet_size, s.packet_delay_ns), (1500, 700));
        assert_eq!((s.width, s.height), (64, 8));
        assert!(s.triggered && s.gradient);
        assert_eq!(s.timestamp_offset_ns, -5);
    }
}
