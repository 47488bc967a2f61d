//! The programs a bench run starts, and how their reports are read:
//! linerate's camera, grab and FADE tools, Aravis's `arv-camera-test-0.8`
//! and iperf3.

use std::net::Ipv4Addr;
use std::path::Path;
use std::time::Duration;

use linerate_device::camera::CameraReport;
use linerate_grab::session::GrabReport;
use linerate_testbed::{HostCommand, Testbed};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::process::{last_json_object, Finished};
use crate::window::{RECEIVER_CPU, SENDER_CPU};

/// Aravis's host test tool (Debian `aravis-tools-cli`).
pub const ARAVIS_HOST: &str = "arv-camera-test-0.8";

/// Aravis's emulated GigE Vision camera (Debian `aravis-tools-cli`).
pub const ARAVIS_FAKE_CAMERA: &str = "arv-fake-gv-camera-0.8";

/// Debian's Chromium, the browser the view scenario opens the page in
/// (never downloaded by the bench).
pub const CHROMIUM: &str = "chromium";

/// Which emulated camera sends, in the camera scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SenderCamera {
    /// `linerate camera`.
    Linerate,
    /// Aravis's `arv-fake-gv-camera-0.8`.
    AravisFake,
}

/// Where a stream ends in the floor scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FloorSink {
    /// `linerate grab`, default backend.
    Grab,
    /// Aravis's host.
    Aravis,
    /// `linerate grab` running (so the camera streams), every stream
    /// packet dropped by an nftables rule at the PC's ingress hook: the
    /// driver's receive path (and GRO) with no protocol work and no copy.
    IngressDrop,
    /// The same with an XDP program dropping the stream in the driver: the
    /// cheapest any receiver, AF_XDP included, could be.
    XdpDrop,
}

/// A GigE Vision stream the camera is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Stream {
    /// Pixels per line (Mono8).
    pub width: u32,
    /// Lines per frame.
    pub height: u32,
    /// Frames per second requested.
    pub fps: f64,
    /// GVSP packet size (SCPS: IP + UDP + GVSP headers + payload).
    pub packet_size: u32,
    /// Gap between packets (SCPD) in ns; `None` leaves the camera unpaced.
    pub packet_delay_ns: Option<u64>,
}

impl Stream {
    /// A stream paced like a 10 GigE camera: one packet per wire time of
    /// `packet_size` bytes at 10 Gbit/s (6400 ns for 8000 bytes). Unpaced,
    /// the emulated camera hands veth whole frames at memory speed, and
    /// bursts longer than the host's receive ring are lost for every
    /// receiver alike, which no real link does.
    pub fn paced_10g(width: u32, height: u32, fps: f64, packet_size: u32) -> Stream {
        Stream {
            width,
            height,
            fps,
            packet_size,
            packet_delay_ns: Some(u64::from(packet_size) * 8 / 10),
        }
    }

    /// Bytes of one frame.
    pub fn frame_bytes(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// Payload rate requested, Gbit/s.
    pub fn gbit_per_s(&self) -> f64 {
        self.frame_bytes() as f64 * 8.0 * self.fps / 1e9
    }
}

/// Who receives a GigE Vision stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum GvspReceiver {
    /// `linerate grab` over UDP with this backend (copy, mmsg, ring).
    Grab {
        /// The receive backend.
        backend: String,
    },
    /// `linerate grab --transport tcp` with this many bytes per record.
    Tcp {
        /// LinerateTransferSize.
        transfer: u32,
    },
    /// Aravis 0.8's host (as root: its packet-ring receiver).
    Aravis,
    /// The linerate Python package, in the loop a user writes
    /// (`stream.next()` per frame), run by this interpreter.
    Python {
        /// The Python interpreter that imports `linerate`.
        python: std::path::PathBuf,
        /// Copy every frame out (`frame.array.copy()`, as a copying binding
        /// does) instead of touching one pixel of the zero-copy view.
        copy: bool,
    },
    /// Harvesters with linerate's GenTL producer, the way a Harvesters user
    /// grabs (`ia.fetch()` per frame), run by this interpreter.
    Harvesters {
        /// The Python interpreter that imports `harvesters`.
        python: std::path::PathBuf,
        /// The GenTL producer library (linerate.cti as cargo builds it).
        cti: std::path::PathBuf,
    },
}

/// The Python receiver the `python` scenario runs (see its docstring).
const PYTHON_RECEIVER: &str = include_str!("python_receiver.py");
/// The Harvesters receiver the `python` scenario runs (see its docstring).
const HARVESTERS_RECEIVER: &str = include_str!("harvesters_receiver.py");

/// linerate's emulated camera on the sender, pinned to the sender's CPU.
pub fn camera(bed: &Testbed, host: &str, linerate: &Path, bind: Ipv4Addr) -> Result<HostCommand> {
    let mut cmd = bed.command(host, linerate)?;
    cmd.cpu(SENDER_CPU).args(camera_args(bind));
    Ok(cmd)
}

/// The SCHED_FIFO priority of [`realtime_camera`]: any real-time priority
/// puts it ahead of every ordinary thread on its core.
pub const CAMERA_FIFO_PRIORITY: u32 = 10;

/// linerate's emulated camera as [`camera`] starts it, under `SCHED_FIFO`:
/// it keeps its frame schedule whatever else runs on the sender's CPU (a
/// browser, the view's threads, other work on the machine), as a real
/// camera does. Held off its core for more than a millisecond in the
/// middle of a frame, a camera at normal priority makes the receiver ask
/// for the frame's tail (it looks lost), skips frames it is late for, and
/// so measures the bench, not the receiver. The camera sleeps between its
/// paced sends, so it leaves its core free between them.
pub fn realtime_camera(
    bed: &Testbed,
    host: &str,
    linerate: &Path,
    bind: Ipv4Addr,
) -> Result<HostCommand> {
    let mut cmd = bed.command(host, "chrt")?;
    cmd.cpu(SENDER_CPU)
        .args([
            "--fifo".to_owned(),
            CAMERA_FIFO_PRIORITY.to_string(),
            linerate.display().to_string(),
        ])
        .args(camera_args(bind));
    Ok(cmd)
}

/// `linerate camera`'s arguments in the bench: bound to `bind`, one JSON
/// report at the end.
fn camera_args(bind: Ipv4Addr) -> [String; 6] {
    [
        "camera".to_owned(),
        "--bind".to_owned(),
        bind.to_string(),
        "--stats-interval".to_owned(),
        "0".to_owned(),
        "--json".to_owned(),
    ]
}

/// One headless Chromium on `host` showing `url`, with its own profile
/// directory `profile`, on the sender's CPU under `SCHED_IDLE`: off the
/// receiving core, as the user's browser is on a PC with cores to spare
/// (or on another machine), and below everything else on the emulated
/// camera's core, so that it takes only the time the camera leaves idle
/// (a waking camera thread preempts it at once, which nice 19 does not
/// promise), as a browser on the PC takes none from a real camera.
pub fn browser(bed: &Testbed, host: &str, url: &str, profile: &Path) -> Result<HostCommand> {
    let mut cmd = bed.command(host, "chrt")?;
    cmd.cpu(SENDER_CPU).args([
        "--idle".to_owned(),
        "0".to_owned(),
        CHROMIUM.to_owned(),
        "--headless=new".to_owned(),
        // Root in a namespace: Chromium's sandbox refuses to run as root.
        "--no-sandbox".to_owned(),
        "--no-first-run".to_owned(),
        "--no-default-browser-check".to_owned(),
        format!("--user-data-dir={}", profile.display()),
        url.to_owned(),
    ]);
    Ok(cmd)
}

/// Aravis's fake camera on `host`'s interface `iface`, pinned to the
/// sender's CPU.
pub fn aravis_fake_camera(bed: &Testbed, host: &str, iface: &str) -> Result<HostCommand> {
    let mut cmd = bed.command(host, ARAVIS_FAKE_CAMERA)?;
    cmd.cpu(SENDER_CPU).args(["-i", iface]);
    Ok(cmd)
}

/// The receiver of a GigE Vision stream, on the PC, pinned to its CPU, for
/// `duration`.
pub fn gvsp_receiver(
    bed: &Testbed,
    host: &str,
    linerate: &Path,
    camera_ip: Ipv4Addr,
    receiver: &GvspReceiver,
    stream: &Stream,
    duration: Duration,
) -> Result<HostCommand> {
    let secs = format!("{:.1}", duration.as_secs_f64());
    let fps = format!("{}", stream.fps);
    // Over TCP, grab's --packet-size is the transfer size (bytes per record).
    let packet_size = match receiver {
        GvspReceiver::Tcp { transfer } => *transfer,
        _ => stream.packet_size,
    };
    let (w, h, ps) = (
        stream.width.to_string(),
        stream.height.to_string(),
        packet_size.to_string(),
    );
    match receiver {
        GvspReceiver::Python { python, copy } => {
            let mut cmd = bed.command(host, python)?;
            cmd.cpu(RECEIVER_CPU).args([
                "-c".to_owned(),
                PYTHON_RECEIVER.to_owned(),
                if *copy { "copy" } else { "view" }.to_owned(),
                camera_ip.to_string(),
                secs,
                fps,
                w,
                h,
                ps,
                stream.packet_delay_ns.unwrap_or(0).to_string(),
                RECEIVER_CPU.to_string(),
            ]);
            Ok(cmd)
        }
        GvspReceiver::Harvesters { python, cti } => {
            let mut cmd = bed.command(host, python)?;
            cmd.cpu(RECEIVER_CPU).args([
                "-c".to_owned(),
                HARVESTERS_RECEIVER.to_owned(),
                cti.display().to_string(),
                secs,
                fps,
                w,
                h,
                ps,
                stream.packet_delay_ns.unwrap_or(0).to_string(),
            ]);
            Ok(cmd)
        }
        GvspReceiver::Aravis => {
            let mut cmd = bed.command(host, ARAVIS_HOST)?;
            cmd.cpu(RECEIVER_CPU).args([
                "-n".to_owned(),
                camera_ip.to_string(),
                "-f".to_owned(),
                fps,
                "-w".to_owned(),
                w,
                "-h".to_owned(),
                h,
                "-i".to_owned(),
                ps,
                "--duration".to_owned(),
                format!("{}", duration.as_secs_f64().ceil()),
            ]);
            if let Some(ns) = stream.packet_delay_ns {
                cmd.arg("-y").arg(ns.to_string());
            }
            Ok(cmd)
        }
        GvspReceiver::Grab { .. } | GvspReceiver::Tcp { .. } => {
            let mut cmd = bed.command(host, linerate)?;
            cmd.cpu(RECEIVER_CPU).args([
                "grab".to_owned(),
                camera_ip.to_string(),
                "--duration".to_owned(),
                secs,
                "--fps".to_owned(),
                fps,
                "--width".to_owned(),
                w,
                "--height".to_owned(),
                h,
                "--packet-size".to_owned(),
                ps,
                "--cpu".to_owned(),
                RECEIVER_CPU.to_string(),
                "--json".to_owned(),
            ]);
            match receiver {
                GvspReceiver::Grab { backend } => {
                    cmd.args(["--backend", backend.as_str()]);
                    if let Some(ns) = stream.packet_delay_ns {
                        cmd.arg("--packet-delay").arg(ns.to_string());
                    }
                }
                GvspReceiver::Tcp { .. } => {
                    cmd.args(["--transport", "tcp"]);
                }
                GvspReceiver::Aravis
                | GvspReceiver::Python { .. }
                | GvspReceiver::Harvesters { .. } => {}
            }
            Ok(cmd)
        }
    }
}

/// What a GigE Vision receiver reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GvspOutcome {
    /// Frames that arrived complete.
    pub frames_completed: u64,
    /// Frames that arrived incomplete or were given up (failures, timeouts).
    pub frames_failed: u64,
    /// Frames dropped for want of a buffer.
    pub frames_underrun: u64,
    /// Packet resend requests sent.
    pub resend_requests: u64,
}

impl GvspOutcome {
    /// Frames lost one way or another.
    pub fn frames_lost(&self) -> u64 {
        self.frames_failed + self.frames_underrun
    }
}

/// Reads `linerate grab --json`'s report into its type: a run that could
/// not start prints only `{"error": ..., "ok": false}`, which is refused
/// with that error.
pub fn grab_report(finished: &Finished) -> Result<GrabReport> {
    let v = last_json_object(finished)?;
    let detail = |e: serde_json::Error| match v.get("error").and_then(Value::as_str) {
        Some(error) => format!("{e}; the grab says: {error}"),
        None => format!("{e} in {}", crate::process::tail(&v.to_string(), 200)),
    };
    GrabReport::deserialize(&v).map_err(|e| Error::Output {
        program: finished.cmdline.clone(),
        what: "linerate grab's report".to_owned(),
        detail: detail(e),
    })
}

/// The frame counts of `linerate grab --json`'s report.
pub fn parse_grab(finished: &Finished) -> Result<GvspOutcome> {
    grab_report(finished).map(|r| GvspOutcome::of_grab(&r))
}

impl GvspOutcome {
    /// The counts of a grab report.
    pub fn of_grab(r: &GrabReport) -> GvspOutcome {
        GvspOutcome {
            frames_completed: r.frames_completed,
            frames_failed: r.frames_incomplete,
            frames_underrun: r.underruns,
            resend_requests: r.resend_requests,
        }
    }
}

/// Reads the counters `arv-camera-test-0.8` prints at its end.
pub fn parse_aravis(finished: &Finished) -> Result<GvspOutcome> {
    let text = format!("{}\n{}", finished.stdout, finished.stderr);
    let find = |key: &str| -> Option<u64> {
        text.lines().rev().find_map(|line| {
            let (k, v) = line.split_once('=')?;
            (k.trim() == key).then(|| v.trim().parse().ok())?
        })
    };
    let completed = find("n_completed_buffers").ok_or_else(|| Error::Output {
        program: finished.cmdline.clone(),
        what: "n_completed_buffers".to_owned(),
        detail: crate::process::tail(&text, 300),
    })?;
    Ok(GvspOutcome {
        frames_completed: completed,
        frames_failed: find("n_failures").unwrap_or(0),
        frames_underrun: find("n_underruns").unwrap_or(0),
        resend_requests: find("n_resend_requests").unwrap_or(0),
    })
}

/// What the Harvesters receiver printed: frames handed to the loop, and
/// the producer's count of incomplete ones (which Harvesters requeues
/// without handing them out, so they show as skipped frame ids too).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct HarvestersReport {
    /// Complete frames `fetch()` returned.
    pub frames_delivered: u64,
    /// Frames the producer delivered incomplete (StreamIncompleteFrameCount).
    pub frames_incomplete: u64,
    /// Frame ids never fetched between the first and the last.
    pub frames_skipped: u64,
    /// Frames dropped for want of a buffer (STREAM_INFO_NUM_UNDERRUN),
    /// among the skipped ones.
    #[serde(default)]
    pub frames_underrun: u64,
    /// Packets the camera resent at the producer's request.
    #[serde(default)]
    pub packets_resent: u64,
    /// Payload bytes fetched.
    pub bytes: u64,
}

/// Reads the Harvesters receiver's JSON line.
pub fn harvesters_report(finished: &Finished) -> Result<HarvestersReport> {
    let v = last_json_object(finished)?;
    HarvestersReport::deserialize(&v).map_err(|e| Error::Output {
        program: finished.cmdline.clone(),
        what: "the Harvesters receiver's report".to_owned(),
        detail: format!("{e}: {}", crate::process::tail(&finished.stderr, 300)),
    })
}

impl GvspOutcome {
    /// The counts of the Harvesters receiver's report.
    pub fn of_harvesters(r: &HarvestersReport) -> GvspOutcome {
        GvspOutcome {
            frames_completed: r.frames_delivered,
            frames_failed: r
                .frames_skipped
                .saturating_sub(r.frames_underrun)
                .max(r.frames_incomplete),
            frames_underrun: r.frames_underrun,
            resend_requests: 0,
        }
    }
}

/// Frames the camera says it sent, from `linerate camera --json` read
/// through the camera's report type.
pub fn parse_camera_frames_sent(finished: &Finished) -> Result<u64> {
    let v = last_json_object(finished)?;
    CameraReport::deserialize(&v)
        .map(|r| r.frames_sent)
        .map_err(|e| Error::Output {
            program: finished.cmdline.clone(),
            what: "a camera report".to_owned(),
            detail: format!("{e}: {}", crate::process::tail(&v.to_string(), 200)),
        })
}

/// iperf3's server on the PC, answering one test, pinned to the PC's CPU.
pub fn iperf3_server(bed: &Testbed, host: &str) -> Result<HostCommand> {
    let mut cmd = bed.command(host, "iperf3")?;
    cmd.cpu(RECEIVER_CPU).args(["-s", "-1", "-J"]);
    Ok(cmd)
}

/// iperf3's client on the sender: TCP, or UDP at `udp_gbit` with
/// `datagram`-byte datagrams.
pub fn iperf3_client(
    bed: &Testbed,
    host: &str,
    server: Ipv4Addr,
    duration: Duration,
    udp: Option<(f64, u32)>,
) -> Result<HostCommand> {
    let mut cmd = bed.command(host, "iperf3")?;
    cmd.cpu(SENDER_CPU)
        .args(["-c", &server.to_string(), "-J", "-t"])
        .arg(format!("{}", duration.as_secs_f64().ceil()));
    if let Some((gbit, datagram)) = udp {
        cmd.args(["-u", "-b"])
            .arg(format!("{:.0}M", gbit * 1000.0))
            .arg("-l")
            .arg(datagram.to_string());
    }
    Ok(cmd)
}

/// What iperf3's server measured: goodput and, for UDP, datagram loss.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct IperfOutcome {
    /// Bits per second received (payload).
    pub gbit_per_s: f64,
    /// Percent of UDP datagrams lost (0 for TCP).
    pub lost_percent: f64,
}

/// Reads iperf3's JSON report (server or client side).
pub fn parse_iperf3(finished: &Finished) -> Result<IperfOutcome> {
    let v: Value = serde_json::from_str(&finished.stdout).map_err(|e| Error::Output {
        program: finished.cmdline.clone(),
        what: "iperf3's JSON".to_owned(),
        detail: format!("{e}: {}", crate::process::tail(&finished.stdout, 200)),
    })?;
    let end = &v["end"];
    let bps = end["sum_received"]["bits_per_second"]
        .as_f64()
        .or_else(|| end["sum"]["bits_per_second"].as_f64())
        .ok_or_else(|| Error::Output {
            program: finished.cmdline.clone(),
            what: "end.sum_received.bits_per_second".to_owned(),
            detail: v["error"].as_str().unwrap_or("absent").to_owned(),
        })?;
    Ok(IperfOutcome {
        gbit_per_s: bps / 1e9,
        lost_percent: end["sum"]["lost_percent"].as_f64().unwrap_or(0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    fn finished(stdout: &str, stderr: &str) -> Finished {
        Finished {
            cmdline: "test".to_owned(),
            status: ExitStatus::from_raw(0),
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
        }
    }

    #[test]
    fn grab_report_is_the_last_json_line() {
        let report = GrabReport {
            frames_completed: 10,
            frames_incomplete: 2,
            underruns: 1,
            resend_requests: 4,
            ..GrabReport::default()
        };
        let json = serde_json::to_string(&report).expect("report JSON");
        let f = finished(&format!("progress\n{json}\n"), "");
        let o = parse_grab(&f).ok();
        assert_eq!(
            o,
            Some(GvspOutcome {
                frames_completed: 10,
                frames_failed: 2,
                frames_underrun: 1,
                resend_requests: 4
            })
        );
        assert_eq!(o.map(|o| o.frames_lost()), Some(3));
        assert!(parse_grab(&finished("no json", "boom")).is_err());
        // A report missing its counts is refused, not read as zeros.
        let partial = finished("{\"frames_completed\":10}\n", "");
        assert!(parse_grab(&partial).is_err());
        // A grab that could not start: its error is passed on.
        let failed = finished("{\"error\":\"opening camera 10.0.0.2\",\"ok\":false}\n", "");
        let e = parse_grab(&failed).expect_err("no report");
        assert!(e.to_string().contains("opening camera 10.0.0.2"), "{e}");
    }

    fn parse_harvesters(f: &Finished) -> Result<GvspOutcome> {
        harvesters_report(f).map(|r| GvspOutcome::of_harvesters(&r))
    }

    #[test]
    fn harvesters_report_counts_skipped_frames_as_lost() {
        let f = finished(
            "{\"frames_delivered\":98,\"frames_incomplete\":1,\"frames_skipped\":2,\"bytes\":1}\n",
            "",
        );
        let o = parse_harvesters(&f).ok();
        assert_eq!(
            o.map(|o| (o.frames_completed, o.frames_lost())),
            Some((98, 2))
        );
        // Underruns are among the skipped frames, counted apart.
        let f = finished(
            "{\"frames_delivered\":90,\"frames_incomplete\":1,\"frames_skipped\":5,\"frames_underrun\":3,\"bytes\":1}\n",
            "",
        );
        let o = parse_harvesters(&f).expect("a report");
        assert_eq!(
            (o.frames_failed, o.frames_underrun, o.frames_lost()),
            (2, 3, 5)
        );
        let e = parse_harvesters(&finished("", "ModuleNotFoundError: harvesters")).err();
        assert!(e.is_some());
    }

    #[test]
    fn aravis_counters_are_read() {
        let f = finished(
            "Frame rate = 100 Hz\nn_completed_buffers    = 998\nn_failures             = 2\nn_underruns            = 0\nn_resend_requests = 7\n",
            "",
        );
        assert_eq!(
            parse_aravis(&f).ok(),
            Some(GvspOutcome {
                frames_completed: 998,
                frames_failed: 2,
                frames_underrun: 0,
                resend_requests: 7
            })
        );
        assert!(parse_aravis(&finished("", "Connection failed")).is_err());
    }

    #[test]
    fn iperf3_tcp_and_udp_reports() {
        let tcp = finished(r#"{"end":{"sum_received":{"bits_per_second":9.5e9}}}"#, "");
        assert_eq!(parse_iperf3(&tcp).ok().map(|o| o.gbit_per_s), Some(9.5));
        let udp = finished(
            r#"{"end":{"sum":{"bits_per_second":4e9,"lost_percent":1.5}}}"#,
            "",
        );
        let o = parse_iperf3(&udp).ok();
        assert_eq!(o.map(|o| (o.gbit_per_s, o.lost_percent)), Some((4.0, 1.5)));
        assert!(parse_iperf3(&finished(r#"{"error":"busy"}"#, "")).is_err());
    }

    #[test]
    fn stream_rate() {
        let s = Stream::paced_10g(1024, 1024, 100.0, 8000);
        assert!((s.gbit_per_s() - 0.8388608).abs() < 1e-9);
        assert_eq!(s.packet_delay_ns, Some(6400));
    }
}
