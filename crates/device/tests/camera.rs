//! The emulated camera as a library, in-process, over a real veth link:
//! `linerate_device::camera::spawn` from a thread inside the camera's
//! network namespace, frames grabbed with the `linerate_grab` library from
//! a thread inside the host's, no child process. Needs root (namespaces).

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use linerate_device::camera::{self, CameraConfig, CameraError, CameraReport, EventSink};
use linerate_grab::stream::Buffer;
use linerate_grab::verify::{Pattern, Verifier};
use linerate_grab::{Camera, ControlConfig, StreamOptions};
use linerate_testbed::Testbed;

/// Hosts "cam" and "pc" on one veth pair at MTU 9000.
fn bed(name: &str) -> Testbed {
    assert!(
        linerate_io::privilege::is_root(),
        "these tests build network namespaces and must run as root"
    );
    Testbed::builder(name)
        .hosts(["cam", "pc"])
        .link("cam", "pc")
        .mtu(9000)
        .build()
        .expect("test bench")
}

/// What a grab of `frames` frames saw: complete and verified frames, and
/// the first failure, if any.
#[derive(Debug, Default)]
struct Grabbed {
    complete: usize,
    verified: usize,
    failure: Option<String>,
}

/// Grabs `frames` frames from the camera at `ip` with 8000-byte packets
/// and checks each against linerate's test pattern.
fn grab(ip: Ipv4Addr, frames: usize) -> Grabbed {
    let mut out = Grabbed::default();
    let mut camera = match Camera::open(&ip.to_string(), &ControlConfig::default()) {
        Ok(c) => c,
        Err(e) => {
            out.failure = Some(format!("open: {e}"));
            return out;
        }
    };
    let result = (|| -> Result<(), String> {
        camera.set_packet_size(8000).map_err(|e| e.to_string())?;
        let payload = camera.payload_size().map_err(|e| e.to_string())?;
        let stream = camera
            .stream(&StreamOptions::default())
            .map_err(|e| e.to_string())?;
        for _ in 0..8 {
            stream
                .queue(Buffer::new(payload))
                .map_err(|e| e.to_string())?;
        }
        let mut verifier = Verifier::new(Pattern::Linerate);
        camera.start().map_err(|e| e.to_string())?;
        while out.complete < frames {
            let buffer = stream
                .wait(Duration::from_secs(5))
                .map_err(|e| format!("after {} frames: {e}", out.complete))?;
            if !buffer.is_complete() {
                return Err(format!(
                    "block {} incomplete: {:?} missing",
                    buffer.info().block_id,
                    buffer.missing()
                ));
            }
            out.complete += 1;
            verifier.check(&buffer).map_err(|e| e.to_string())?;
            out.verified += 1;
            stream.queue(buffer).map_err(|e| e.to_string())?;
        }
        camera.stop().map_err(|e| e.to_string())
    })();
    out.failure = result.err();
    out
}

#[test]
fn an_in_process_camera_streams_verified_frames_and_reports_them() {
    let bed = bed("devcam");
    let ip = bed.addr("cam").expect("camera address");
    let events = Arc::new(Mutex::new(Vec::new()));
    let config = CameraConfig {
        bind: ip,
        width: 640,
        height: 480,
        frame_rate: 200.0,
        events: EventSink::new({
            let events = Arc::clone(&events);
            move |e| events.lock().expect("events").push(e.to_string())
        }),
        ..CameraConfig::default()
    };
    let camera = bed
        .run_in("cam", None, {
            let config = config.clone();
            move || camera::spawn(config)
        })
        .expect("enter the camera's namespace")
        .expect("camera starts");
    assert_eq!(camera.local_addr(), SocketAddrV4::new(ip, 3956));
    assert_eq!(camera.info().serial, {
        let o = ip.octets();
        format!("LR{:03}{:03}", o[2], o[3])
    });

    // The address is the camera's alone: a second one there is refused,
    // naming it.
    let second = bed
        .run_in("cam", None, move || camera::spawn(config).map(|_| ()))
        .expect("enter the camera's namespace");
    match second {
        Err(CameraError::ControlPortInUse { addr }) => {
            assert_eq!(addr, SocketAddrV4::new(ip, 3956));
        }
        other => panic!("a second camera on {ip}:3956 gave {other:?}"),
    }

    let grabbed = bed
        .run_in("pc", None, move || grab(ip, 40))
        .expect("enter the host's namespace");
    let running = camera.counters();
    let report = camera.stop().expect("camera report");

    assert_eq!(grabbed.failure, None, "{grabbed:?}; events {events:?}");
    assert_eq!((grabbed.complete, grabbed.verified), (40, 40));
    assert!(running.frames_sent >= 40, "{running:?}");
    assert!(!running.tcp, "{running:?}");
    assert!(report.frames_sent >= 40, "{report:?}");
    assert!(report.packets_sent > report.frames_sent, "{report:?}");
    assert!(
        report.bytes_sent >= report.frames_sent * 640 * 480,
        "{report:?}"
    );
    assert_eq!(report.send_errors, 0, "{report:?}");
    assert_eq!(report.udp_send.decided_for, "stream destination");
    let cam_iface = bed.iface("cam").expect("iface").name.clone();
    assert_eq!(report.udp_send.interface, Some(cam_iface), "{report:?}");
    assert!(report.seconds > 0.0, "{report:?}");
    let said = events.lock().expect("events").join("\n");
    assert!(said.contains("took control"), "{said}");

    // The typed report is the CLI's JSON object, and reads back.
    let json = serde_json::to_value(&report).expect("JSON");
    assert_eq!(json["frames_sent"], report.frames_sent);
    assert_eq!(json["udp_send"]["decided_for"], "stream destination");
    assert_eq!(json["gvcp_access_denied"]["other_hosts"], 0);
    let back: CameraReport = serde_json::from_value(json).expect("reads back");
    assert_eq!(back, report);
}
