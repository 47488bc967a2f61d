//! The studies `linerate bench` can run, one per published measurement.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::error::Error;

/// One study. Each reproduces a published measurement on this
/// machine, with linerate and the anchors (Aravis, iperf3) side by side.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Scenario {
    /// Basler's CPU-load paper: receiving CPU per GB against packet size, per receive
    /// backend and for Aravis, on the same stream.
    PacketSizes,
    /// Allied Vision's TCP paper: UDP against TCP transports for one fast camera stream,
    /// with the busiest core against the average.
    UdpTcp,
    /// The APDCAM-10G study: iperf3's TCP and UDP ceilings on the same link, next to
    /// linerate's own.
    Ceilings,
    /// The highest frame rate each receiver takes without losing a frame.
    LosslessRate,
    /// Basler's CPU-load paper: software trigger to frame delivered, latency and jitter.
    TriggerLatency,
    /// The FADE paper: FADE boards, one alone and three sharing a 1 Gbit/s link.
    Fade,
    /// One FADE-10G board against one FADE v1 board, on a 1 Gbit/s link
    /// and on an unshaped one.
    FadeVersions,
    /// The Axis send-path study: `linerate serve`'s send methods at one aggregate rate to
    /// 1 to 32 clients, the server's core per GB sent.
    Serve,
    /// The emulated camera alone against Aravis's fake camera: how fast
    /// each sends, and what its core pays, into the same Aravis host.
    Camera,
    /// What a GigE Vision stream costs the receiving core before any
    /// receiver does anything (dropped at the ingress hook, or by XDP in
    /// the driver), next to linerate's grab and Aravis on the same stream.
    Floor,
    /// The linerate Python package's frame loop against `linerate grab`
    /// on the same stream, and the same loop copying every frame.
    Python,
    /// Forwarding to Apache Kafka: the forwarder against Kafka's own
    /// producer benchmark, grab's receiving core with and without
    /// forwarding, and (full runs) a broker killed under a stream.
    Kafka,
    /// `linerate grab` with its live view open in a headless Chromium
    /// against the same grab without: the highest lossless rate and the
    /// receiving core's CPU per GB, alternating.
    View,
}

impl Scenario {
    /// Every scenario, in the order a full run takes them.
    pub const ALL: [Scenario; 13] = [
        Scenario::PacketSizes,
        Scenario::UdpTcp,
        Scenario::Ceilings,
        Scenario::LosslessRate,
        Scenario::TriggerLatency,
        Scenario::Fade,
        Scenario::FadeVersions,
        Scenario::Serve,
        Scenario::Camera,
        Scenario::Floor,
        Scenario::Python,
        Scenario::Kafka,
        Scenario::View,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::PacketSizes => "packet-sizes",
            Scenario::UdpTcp => "udp-tcp",
            Scenario::Ceilings => "ceilings",
            Scenario::LosslessRate => "lossless-rate",
            Scenario::TriggerLatency => "trigger-latency",
            Scenario::Fade => "fade",
            Scenario::FadeVersions => "fade-versions",
            Scenario::Serve => "serve",
            Scenario::Camera => "camera",
            Scenario::Floor => "floor",
            Scenario::Python => "python",
            Scenario::Kafka => "kafka",
            Scenario::View => "view",
        }
    }

    /// One line saying what the scenario measures and which published study it redoes.
    pub fn summary(self) -> &'static str {
        match self {
            Scenario::PacketSizes => {
                "Basler: receiving CPU per GB against GVSP packet size, per backend and Aravis"
            }
            Scenario::UdpTcp => {
                "Allied Vision: one fast camera over UDP and over TCP, busiest core against average"
            }
            Scenario::Ceilings => "APDCAM-10G: iperf3 TCP and UDP ceilings next to linerate's own",
            Scenario::LosslessRate => "highest lossless frame rate per backend and for Aravis",
            Scenario::TriggerLatency => "Basler: software trigger to frame delivered, jitter",
            Scenario::Fade => "FADE paper: one board alone and three sharing 1 Gbit/s",
            Scenario::FadeVersions => "one FADE-10G board against one v1 board, shaped and unshaped",
            Scenario::Serve => "Axis: serve's send methods, server CPU per GB to 1-32 clients",
            Scenario::Camera => "the emulated camera alone against Aravis's fake camera",
            Scenario::Floor => {
                "receiving CPU per GB of a stream dropped before any receiver, beside grab and Aravis"
            }
            Scenario::Python => {
                "the Python package's frame loop (zero-copy, and copying) against linerate grab"
            }
            Scenario::Kafka => {
                "forwarding to Kafka: forwarder against Kafka's ProducerPerformance, grab's CPU/GB with and without"
            }
            Scenario::View => {
                "grab with its live view open in a headless Chromium against grab alone"
            }
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scenario {
    type Err = Error;

    fn from_str(s: &str) -> Result<Scenario, Error> {
        let wanted = s.trim().to_ascii_lowercase();
        // Also accept the numbering --help shows.
        if let Ok(n) = wanted.parse::<usize>() {
            return Scenario::ALL
                .get(n.wrapping_sub(1))
                .copied()
                .ok_or_else(|| {
                    Error::Argument(format!(
                        "no scenario number {n}: there are 1 to {}",
                        Scenario::ALL.len()
                    ))
                });
        }
        Scenario::ALL
            .into_iter()
            .find(|sc| sc.name() == wanted)
            .ok_or_else(|| {
                let names: Vec<_> = Scenario::ALL.iter().map(|s| s.name()).collect();
                Error::Argument(format!(
                    "unknown scenario {s:?}: choose from {}",
                    names.join(", ")
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_parse() {
        for (i, sc) in Scenario::ALL.into_iter().enumerate() {
            assert_eq!(sc.name().parse::<Scenario>().ok(), Some(sc));
            assert_eq!((i + 1).to_string().parse::<Scenario>().ok(), Some(sc));
        }
        assert!((Scenario::ALL.len() + 1)
            .to_string()
            .parse::<Scenario>()
            .is_err());
        assert!("0".parse::<Scenario>().is_err());
        let err = "packets".parse::<Scenario>().err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("\"packets\"") && e.contains("udp-tcp")));
    }
}
