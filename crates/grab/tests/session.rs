//! The grab session as a library, in-process, against Aravis's fake
//! camera (a peer nobody here wrote) on a two-namespace test bench: every
//! frame arrives complete and verified through the per-frame hook and the
//! typed report; a stop request ends a run with a report; failures to
//! start are typed errors naming the offending value.

use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use linerate_grab::session::{self, GrabConfig, GrabError, GrabReport, Session};
use linerate_testbed::Testbed;

/// One streaming test at a time: two at once on 2 cores measure the scheduler.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn bed(name: &str) -> Testbed {
    assert!(
        linerate_io::privilege::is_root(),
        "session tests build namespaces and must run as root"
    );
    Testbed::builder(name)
        .hosts(["cam", "pc"])
        .link("cam", "pc")
        .mtu(9000)
        .build()
        .expect("test bench")
}

/// Aravis's fake camera in the "cam" namespace, killed when dropped.
struct FakeCamera(Child);

impl Drop for FakeCamera {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the fake camera and waits until it answers discovery from "pc".
fn fake_camera(bed: &Testbed) -> FakeCamera {
    let ip = bed.addr("cam").expect("cam address");
    let child = bed
        .command("cam", "arv-fake-gv-camera-0.8")
        .expect("command")
        .into_command()
        .expect("command")
        .args(["-i", &ip.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("arv-fake-gv-camera-0.8 (scripts/test installs aravis-tools)");
    let camera = FakeCamera(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found = bed
            .run_in("pc", None, || {
                linerate_grab::discovery::discover(None, Some(ip), Duration::from_millis(200))
                    .unwrap_or_default()
            })
            .expect("namespace");
        if found.contains_key(&ip) {
            return camera;
        }
        assert!(
            Instant::now() < deadline,
            "the fake camera at {ip} never answered discovery"
        );
    }
}

/// A small verified stream from the bench's camera.
fn config(bed: &Testbed, frames: u64) -> GrabConfig {
    GrabConfig {
        frames,
        width: Some(512),
        height: Some(256),
        fps: Some(100.0),
        packet_size: Some(8000),
        verify: true,
        ..GrabConfig::new(bed.addr("cam").expect("cam address").to_string())
    }
}

#[test]
fn every_frame_arrives_complete_and_verified_through_the_hook_and_the_report() {
    let _s = serial();
    let bed = bed("gsessok");
    let _camera = fake_camera(&bed);
    let config = config(&bed, 60);
    let frames_seen = Arc::new(AtomicU64::new(0));
    let complete_seen = Arc::new(AtomicU64::new(0));
    let (seen, complete) = (Arc::clone(&frames_seen), Arc::clone(&complete_seen));
    let report = bed
        .run_in("pc", None, move || {
            let handle = session::spawn_with(config, move |buffer, progress| {
                let n = seen.fetch_add(1, Ordering::Relaxed) + 1;
                assert_eq!(progress.frames_delivered(), n, "{progress:?}");
                if buffer.is_complete() && buffer.data().len() == 512 * 256 {
                    complete.fetch_add(1, Ordering::Relaxed);
                }
            })?;
            assert_eq!(handle.info().vendor, "Aravis");
            assert_eq!(handle.info().payload_size, 512 * 256);
            handle.join()
        })
        .expect("namespace")
        .expect("grab");
    assert_eq!(frames_seen.load(Ordering::Relaxed), 60, "{report:?}");
    assert_eq!(complete_seen.load(Ordering::Relaxed), 60, "{report:?}");
    assert!(report.ok, "{report:?}");
    assert_eq!(report.vendor, "Aravis");
    assert_eq!(report.frames_requested, 60);
    assert_eq!(report.frames_completed, 60, "{report:?}");
    assert_eq!(report.frames_verified, 60, "{report:?}");
    assert_eq!(report.frames_incomplete, 0, "{report:?}");
    assert_eq!(report.frames_corrupt, 0, "{report:?}");
    assert_eq!(report.underruns, 0, "{report:?}");
    assert_eq!(report.error, None);
    assert!(!report.stopped);
    assert!(report.bytes >= 60 * 512 * 256, "{report:?}");
    assert_eq!(report.frame_delivery_latency_us.count, 60, "{report:?}");
    // The JSON front ends print reads back into the same report (floats
    // compared as JSON reads them, to the last bit serde_json parses).
    let json = serde_json::to_string(&report).expect("JSON");
    let back: GrabReport = serde_json::from_str(&json).expect("typed report");
    assert_eq!(
        serde_json::to_value(&back).expect("JSON"),
        serde_json::from_str::<serde_json::Value>(&json).expect("JSON")
    );
    assert_eq!(back.frames_verified, 60);
}

#[test]
fn a_stop_request_ends_the_run_with_a_report_and_bad_settings_are_typed_errors() {
    let _s = serial();
    let bed = bed("gsesstop");
    let _camera = fake_camera(&bed);
    let ip = bed.addr("cam").expect("cam address");
    let unlimited = config(&bed, 0);
    let report = bed
        .run_in("pc", None, move || {
            let handle = session::spawn(unlimited)?;
            let deadline = Instant::now() + Duration::from_secs(10);
            while handle.progress().frames_completed < 5 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            handle.stop();
            handle.join()
        })
        .expect("namespace")
        .expect("grab");
    assert!(report.stopped, "{report:?}");
    assert!(!report.ok, "{report:?}");
    assert_eq!(report.error.as_deref(), Some("stopped on request"));
    assert!(report.frames_completed >= 5, "{report:?}");
    assert_eq!(
        report.frames_verified, report.frames_completed,
        "{report:?}"
    );
    assert_eq!(report.frames_corrupt, 0, "{report:?}");

    // A stop requested before acquisition: no run, the camera released.
    let stop = Arc::new(AtomicBool::new(true));
    let early = config(&bed, 10);
    let r = bed
        .run_in("pc", None, move || {
            Session::open_with_stop(early, stop).map(|_| ())
        })
        .expect("namespace");
    assert!(matches!(r, Err(GrabError::Stopped)), "{r:?}");

    // Failures to start name the value at fault.
    let too_wide = GrabConfig {
        width: Some(65_535),
        ..config(&bed, 10)
    };
    let r = bed
        .run_in("pc", None, move || session::spawn(too_wide).map(|_| ()))
        .expect("namespace");
    match r {
        Err(GrabError::Setting { feature, value, .. }) => {
            assert_eq!((feature, value.as_str()), ("Width", "65535"));
        }
        other => panic!("expected a refused Width, got {other:?}"),
    }
    let tiny_budget = GrabConfig {
        buffers: Some(3),
        buffer_memory: 256 * 1024,
        ..config(&bed, 10)
    };
    let r = bed
        .run_in("pc", None, move || session::spawn(tiny_budget).map(|_| ()))
        .expect("namespace");
    assert!(
        matches!(
            r,
            Err(GrabError::BufferMemory {
                buffers: 3,
                payload: 131_072,
                fit: 2,
                ..
            })
        ),
        "{r:?}"
    );
    let nobody = GrabConfig::new(format!("{ip}:3999"));
    let r = bed
        .run_in("pc", None, move || session::spawn(nobody).map(|_| ()))
        .expect("namespace");
    match r {
        Err(GrabError::Open { camera, .. }) => assert_eq!(camera, format!("{ip}:3999")),
        other => panic!("expected a camera that cannot be opened, got {other:?}"),
    }
}

#[test]
fn a_pulled_acquisition_lends_the_pool_buffers_and_takes_them_back_from_anywhere() {
    let _s = serial();
    let bed = bed("gsesspull");
    let _camera = fake_camera(&bed);
    let config = config(&bed, 40);
    let (report, held_max, foreign) = bed
        .run_in("pc", None, move || -> Result<_, GrabError> {
            let mut acquisition = Session::open(config)?.start()?;
            let pool: Vec<usize> = acquisition.buffer_addresses().to_vec();
            assert_eq!(pool.len(), acquisition.info().buffers);
            let requeue = acquisition.requeue_handle();
            let mut held = std::collections::VecDeque::new();
            let (mut held_max, mut foreign) = (0, 0);
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                assert!(Instant::now() < deadline, "the acquisition never ended");
                match acquisition.pull(Duration::from_millis(50)) {
                    session::Pulled::Frame(buffer) => {
                        // Each frame is one of the pool's buffers, not a copy.
                        if !pool.contains(&(buffer.data().as_ptr() as usize)) {
                            foreign += 1;
                        }
                        held.push_back(buffer);
                        held_max = held_max.max(held.len());
                        // Keep three frames out; give the oldest back from
                        // another thread, as a destructor elsewhere would.
                        if held.len() > 3 {
                            let oldest = held.pop_front().expect("held");
                            let requeue = requeue.clone();
                            std::thread::spawn(move || requeue.queue(oldest))
                                .join()
                                .expect("thread")
                                .expect("requeued");
                        }
                    }
                    session::Pulled::Waiting => {}
                    session::Pulled::Ended => break,
                }
            }
            assert!(acquisition.is_ended() && acquisition.error().is_none());
            let (report, _camera) = acquisition.finish();
            // After the stream stops, a buffer is refused and freed.
            let late = held.pop_front().expect("held");
            assert!(requeue.queue(late).is_err());
            Ok((report, held_max, foreign))
        })
        .expect("namespace")
        .expect("pulled grab");
    assert_eq!(foreign, 0);
    assert_eq!(held_max, 4);
    assert_eq!(report.frames_completed, 40, "{report:?}");
    assert_eq!(report.frames_verified, 40, "{report:?}");
    assert!(report.ok, "{report:?}");
}
