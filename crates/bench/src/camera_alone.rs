//! The camera scenario's run: one emulated camera streaming flat out into
//! Aravis's host, measured at both ends of the link.

use std::path::Path;
use std::time::Duration;

use crate::bed::{PairBed, RECEIVER, SENDER};
use crate::config::BenchConfig;
use crate::error::Result;
use crate::peers::{self, GvspReceiver, SenderCamera, Stream};
use crate::process::Running;
use crate::report::Run;
use crate::steps::{put_window, receiver_duration, GRACE};
use crate::window;

/// Asked of both cameras: more than either sends here, so the camera is
/// the limit and each sends back to back.
const FLAT_OUT_FPS: f64 = 3000.0;

/// Bytes of IP, UDP and GVSP headers in a GVSP packet: the packet size
/// (SCPS) less this is its payload.
const GVSP_PACKET_OVERHEAD: u64 = 36;

/// Bytes of Ethernet, IP, UDP and GVSP headers on the wire per packet, as
/// the receiving interface counts them.
const WIRE_HEADERS: u64 = 50;

/// Leader and trailer bodies of a GVSP image block.
const LEADER_AND_TRAILER: u64 = 36 + 8;

/// Streams from `camera` at `packet_size` into Aravis's host and records
/// the rate at the host's interface and the sending core's cost.
pub fn run(
    pair: &PairBed,
    config: &BenchConfig,
    camera: SenderCamera,
    packet_size: u32,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let t = &config.timing;
    let cmd = match camera {
        SenderCamera::Linerate => {
            peers::camera(&pair.bed, SENDER, &config.linerate, pair.sender_ip)?
        }
        SenderCamera::AravisFake => {
            peers::aravis_fake_camera(&pair.bed, SENDER, &pair.sender_iface)?
        }
    };
    let sender = Running::spawn(cmd, dir, "camera")?;
    // Aravis's fake camera loads its GenICam file before it answers.
    crate::stop::pause(Duration::from_millis(1000))?;
    let stream = Stream {
        width: 1024,
        height: 1024,
        fps: FLAT_OUT_FPS,
        packet_size,
        packet_delay_ns: None,
    };
    let duration = receiver_duration(config);
    let mut host = peers::gvsp_receiver(
        &pair.bed,
        RECEIVER,
        &config.linerate,
        pair.sender_ip,
        &GvspReceiver::Aravis,
        &stream,
        duration,
    )?;
    // No resend requests: a host that falls behind must not make the
    // camera send more than its stream.
    host.arg("--no-packet-resend");
    let host = Running::spawn(host, dir, "receiver")?;
    crate::stop::pause(t.settle)?;
    let w = window::measure_pair(
        &pair.bed,
        (SENDER, &pair.sender_iface),
        (RECEIVER, &pair.receiver_iface),
        t.window,
    )?;
    let host = host.wait(duration + GRACE)?;
    let _ = sender.stop(Duration::from_secs(5));
    let outcome = peers::parse_aravis(&host)?;
    put_window(run, &w);
    // The receiver is the same for both cameras; its cost is not compared.
    run.cpu_s_per_gb = None;
    run.frames_per_s = Some(
        w.rx_bytes as f64 / w.seconds.max(f64::MIN_POSITIVE) / wire_bytes_per_frame(&stream) as f64,
    );
    run.frames_completed = Some(outcome.frames_completed);
    run.frames_lost = Some(outcome.frames_lost());
    run.detail.insert("packet_size".into(), packet_size.into());
    run.detail
        .insert("window".into(), serde_json::to_value(w).unwrap_or_default());
    Ok(())
}

/// Bytes one frame of `stream` puts on the wire, headers included: what
/// the receiving interface counts per frame.
pub fn wire_bytes_per_frame(stream: &Stream) -> u64 {
    let payload = stream.frame_bytes();
    let per_packet = u64::from(stream.packet_size)
        .saturating_sub(GVSP_PACKET_OVERHEAD)
        .max(1);
    let payload_packets = payload.div_ceil(per_packet);
    payload + (payload_packets + 2) * WIRE_HEADERS + LEADER_AND_TRAILER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_on_the_wire_is_its_pixels_and_every_packets_headers() {
        let s = Stream {
            width: 1024,
            height: 1024,
            fps: 1.0,
            packet_size: 8000,
            packet_delay_ns: None,
        };
        // 1 MiB in 7964-byte payloads: 132 packets, plus leader and trailer.
        assert_eq!(wire_bytes_per_frame(&s), 1_048_576 + 134 * 50 + 44);
    }
}
