//! The floor scenario's run: one paced camera stream into the PC, taken by
//! a receiver, or dropped before any receiver by an nftables rule at the
//! ingress hook or by an XDP program in the driver.

use std::path::Path;
use std::time::Duration;

use linerate_io::xdp::bpf::{Link, Program};
use linerate_io::xdp::{program, AttachMode};
use linerate_testbed::Testbed;

use crate::bed::{pin_napi_threads, PairBed, RECEIVER, SENDER};
use crate::config::{BenchConfig, HostSetup};
use crate::error::{Error, Result};
use crate::peers::{self, FloorSink, GvspReceiver, Stream};
use crate::process::Running;
use crate::report::Run;
use crate::steps::{put_window, receiver_duration, start_camera, GRACE};
use crate::window;

/// The stream's UDP port on the PC, fixed so that a drop can select it.
const STREAM_PORT: u16 = 20202;

/// The nftables table the ingress drop lives in.
const DROP_TABLE: &str = "linerate_floor";

/// Streams `stream` into `sink` and records what CPU 1 paid per GB the
/// camera sent.
pub fn run(
    pair: &PairBed,
    config: &BenchConfig,
    host_setup: Option<HostSetup>,
    sink: FloorSink,
    stream: &Stream,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let t = &config.timing;
    let camera = start_camera(pair, config, dir)?;
    let duration = receiver_duration(config) + Duration::from_secs(1);
    let receiver = match sink {
        FloorSink::Aravis => GvspReceiver::Aravis,
        _ => GvspReceiver::Grab {
            backend: "mmsg".to_owned(),
        },
    };
    let mut cmd = peers::gvsp_receiver(
        &pair.bed,
        RECEIVER,
        &config.linerate,
        pair.sender_ip,
        &receiver,
        stream,
        duration,
    )?;
    let drops = matches!(sink, FloorSink::IngressDrop | FloorSink::XdpDrop);
    if drops {
        // grab keeps the camera streaming while nothing reaches it.
        cmd.args(["--stream-port", &STREAM_PORT.to_string()])
            .args(["--frame-timeout", "3600"]);
    }
    let receiver_run = Running::spawn(cmd, dir, "receiver")?;
    crate::stop::pause(t.settle)?;
    let drop = match sink {
        FloorSink::IngressDrop => Some(StreamDrop::at_ingress_hook(
            &pair.bed,
            &pair.receiver_iface,
        )?),
        FloorSink::XdpDrop => Some(StreamDrop::by_xdp(&pair.bed, &pair.receiver_iface)?),
        _ => None,
    };
    if host_setup == Some(HostSetup::Napi) {
        // Attaching XDP to a veth may start a NAPI thread of its own.
        pin_napi_threads(&pair.receiver_iface)?;
    }
    crate::stop::pause(Duration::from_millis(500))?;
    let w = window::measure_pair(
        &pair.bed,
        (SENDER, &pair.sender_iface),
        (RECEIVER, &pair.receiver_iface),
        t.window,
    )?;
    let dropped = drop.map(|d| d.finish(&pair.bed)).transpose()?;
    let finished = receiver_run.wait(duration + GRACE)?;
    let _ = camera.stop(Duration::from_secs(5));
    put_window(run, &w);
    run.cpu_s_per_gb = w.cpu_s_per_gb_sent();
    run.gbit_per_s = w
        .tx_bytes
        .map(|b| b as f64 * 8.0 / w.seconds.max(f64::MIN_POSITIVE) / 1e9);
    match dropped {
        Some(packets) => {
            run.detail.insert("packets_dropped".into(), packets.into());
        }
        None => {
            let outcome = match sink {
                FloorSink::Aravis => peers::parse_aravis(&finished)?,
                _ => peers::parse_grab(&finished)?,
            };
            run.frames_completed = Some(outcome.frames_completed);
            run.frames_lost = Some(outcome.frames_lost());
        }
    }
    run.detail
        .insert("window".into(), serde_json::to_value(w).unwrap_or_default());
    Ok(())
}

/// A drop of the stream in the PC, removed by [`StreamDrop::finish`].
enum StreamDrop {
    /// An nftables rule at the interface's ingress hook (netdev family).
    IngressHook,
    /// An XDP program in the driver, detached when the link drops.
    Xdp {
        link: Link,
        iface: String,
        drops_before: u64,
    },
}

impl StreamDrop {
    fn at_ingress_hook(bed: &Testbed, iface: &str) -> Result<StreamDrop> {
        let mut nft = bed.command(RECEIVER, "nft")?;
        nft.arg(format!(
            "add table netdev {DROP_TABLE}; \
             add chain netdev {DROP_TABLE} ingress {{ type filter hook ingress device {iface} \
             priority -500; policy accept; }}; \
             add rule netdev {DROP_TABLE} ingress udp dport {STREAM_PORT} counter drop"
        ));
        nft.run_ok()?;
        Ok(StreamDrop::IngressHook)
    }

    fn by_xdp(bed: &Testbed, iface: &str) -> Result<StreamDrop> {
        let drops_before = xdp_drops(bed, iface)?;
        let name = iface.to_owned();
        let link = bed.run_in(RECEIVER, None, move || {
            let insns = program::udp_port_drop(STREAM_PORT)
                .map_err(|e| Error::Argument(format!("the XDP drop program: {e}")))?;
            let prog = Program::load_xdp("linerate_floor", &insns)?;
            let ifindex = linerate_io::netdev::if_index(&name).map_err(|source| Error::File {
                path: format!("interface {name}").into(),
                source,
            })?;
            Ok::<Link, Error>(prog.attach(&name, ifindex, AttachMode::Native)?)
        })??;
        Ok(StreamDrop::Xdp {
            link,
            iface: iface.to_owned(),
            drops_before,
        })
    }

    /// Removes the drop and returns how many packets it dropped; a drop
    /// that dropped nothing measured nothing, which is an error.
    fn finish(self, bed: &Testbed) -> Result<u64> {
        let dropped = match self {
            StreamDrop::IngressHook => {
                let mut list = bed.command(RECEIVER, "nft")?;
                list.args(["list", "table", "netdev", DROP_TABLE]);
                let text = list.run_ok()?;
                let mut delete = bed.command(RECEIVER, "nft")?;
                delete.args(["delete", "table", "netdev", DROP_TABLE]);
                delete.run_ok()?;
                counter_packets(&text).unwrap_or(0)
            }
            StreamDrop::Xdp {
                link,
                iface,
                drops_before,
            } => {
                let after = xdp_drops(bed, &iface)?;
                drop(link);
                after.saturating_sub(drops_before)
            }
        };
        if dropped == 0 {
            return Err(Error::Argument(
                "the drop dropped no stream packet, so this run measured nothing".to_owned(),
            ));
        }
        Ok(dropped)
    }
}

/// The packet count of the first `counter` in `nft list` output.
fn counter_packets(text: &str) -> Option<u64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .find(|w| w[0] == "packets")
        .and_then(|w| w[1].parse().ok())
}

/// The packets XDP dropped on `iface` so far, summed over the driver's
/// `*xdp_drops` statistics (`ethtool -S`).
fn xdp_drops(bed: &Testbed, iface: &str) -> Result<u64> {
    let mut cmd = bed.command(RECEIVER, "ethtool")?;
    cmd.args(["-S", iface]);
    let text = cmd.run_ok()?;
    Ok(sum_xdp_drops(&text))
}

fn sum_xdp_drops(text: &str) -> u64 {
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .filter(|(k, _)| k.trim().ends_with("xdp_drops"))
        .filter_map(|(_, v)| v.trim().parse::<u64>().ok())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nft_counter_is_read() {
        let text = "table netdev linerate_floor {\n\tchain ingress {\n\t\ttype filter hook ingress device \"eth0\" priority -500; policy accept;\n\t\tudp dport 20202 counter packets 12345 bytes 98765 drop\n\t}\n}\n";
        assert_eq!(counter_packets(text), Some(12345));
        assert_eq!(counter_packets("table netdev x {}"), None);
    }

    #[test]
    fn xdp_drops_are_summed_over_queues() {
        let text = "NIC statistics:\n     peer_ifindex: 5\n     rx_queue_0_xdp_drops: 10\n     rx_queue_1_xdp_drops: 5\n     rx_queue_0_xdp_packets: 99\n";
        assert_eq!(sum_xdp_drops(text), 15);
    }
}
