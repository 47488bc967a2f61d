//! A short `EventGetData` wait (1 ms, as Harvesters polls) that would
//! time out while a frame is arriving waits on for that frame instead, for
//! at most the grace. A poll (timeout 0) is never held, nor a wait while
//! nothing arrives.
//!
//! The camera is triggered one frame at a time, and each wait starts only
//! once the engine has packets of that frame (a frame that arrived before
//! that could be seen is taken and triggered again): no wait starts in a
//! gap between frames, however the camera or a busy CPU spaces them. A
//! frame takes about 2.5 ms to arrive, so every 1 ms wait must either
//! return it (through the grace) or, if the frame is slower than the
//! grace on a busy machine, time out no sooner than 1 ms + the grace.
//! Without the grace every one would time out after about 1 ms. A poll
//! before each wait must time out: held for the frame, it would get it.

mod common;

use std::time::{Duration, Instant};

use linerate_gentl::device::Device;
use linerate_gentl::error::GcError;
use linerate_gentl::producer;
use linerate_gentl::stream::ARRIVING_GRACE;
use linerate_grab::Camera;

/// Frames polled and then waited for with a 1 ms wait while they arrive.
const FRAMES: u32 = 10;

#[test]
fn a_one_millisecond_wait_returns_the_frame_that_is_arriving() {
    // 256x256 Mono8 in 1500-byte packets: 45 packets a frame, 55 us apart,
    // so each frame takes about 2.5 ms to arrive.
    let (bed, camera) = common::bench_with_camera("gentlgrace", 256, 256);
    let cam_ip = bed.addr("cam").expect("camera address");
    let pc_ip = bed.addr("pc").expect("host address");
    let camera = &camera;
    bed.run_in("pc", None, move || {
        let opened = common::open_camera(pc_ip, cam_ip);
        let common::Started { ds, event } = common::start_stream(opened.dev, 8);
        let stream = producer::stream(ds).expect("the stream");
        let device = producer::device(opened.dev).expect("the device");
        with_camera(&device, |camera| {
            camera.set_packet_delay_ns(55_000).expect("GevSCPD");
            camera.set("TriggerMode", "On").expect("TriggerMode");
            camera
                .execute("AcquisitionStart")
                .expect("AcquisitionStart");
        });
        let take_frame = || {
            let (b, _) = producer::event_wait(event, 2000).expect("the triggered frame");
            producer::queue(ds, b).expect("queue again");
        };
        // Triggers frames until one is seen arriving: once the camera is
        // done sending the last (it ignores a trigger while it sends) and
        // the engine is done receiving it, triggers the next and returns
        // once packets of it came. A frame that came in one receive
        // (the receive thread delayed, all its packets waiting) is taken.
        let mut triggered = 0;
        let mut attempts = 0;
        let mut next_arriving = || loop {
            attempts += 1;
            assert!(attempts <= 5 * FRAMES, "frames never seen arriving");
            until(
                || camera.counters().frames_sent == triggered,
                "the camera sending",
            );
            until(|| !stream.frame_in_flight(), "a frame staying in flight");
            with_camera(&device, |camera| {
                camera.execute("TriggerSoftware").expect("TriggerSoftware");
            });
            triggered += 1;
            let sent = || camera.counters().frames_sent == triggered;
            until(
                || stream.frame_in_flight() || sent(),
                "no frame after the trigger",
            );
            if stream.frame_in_flight() {
                return;
            }
            take_frame();
        };

        // Started while a frame arrives, a poll is answered at once
        // without it, and a 1 ms wait returns it, or gives up no sooner
        // than the grace allows.
        let (mut checked, mut held, mut polled) = (0u32, 0u32, 0u32);
        let mut longest = Duration::ZERO;
        while checked < FRAMES {
            next_arriving();
            match producer::event_wait(event, 0) {
                Err(GcError::Timeout(0)) => {}
                Ok((b, _)) => {
                    // Done just now; held polls would always get it.
                    polled += 1;
                    assert!(
                        polled <= FRAMES / 2,
                        "{polled} polls returned the frame that was arriving: polls are held"
                    );
                    producer::queue(ds, b).expect("queue again");
                    continue;
                }
                Err(e) => panic!("EventGetData (poll): {e}"),
            }
            checked += 1;
            let began = Instant::now();
            match producer::event_wait(event, 1) {
                Ok((b, _)) => {
                    held += 1;
                    longest = longest.max(began.elapsed());
                    producer::queue(ds, b).expect("queue again");
                }
                Err(GcError::Timeout(1)) => {
                    let waited = began.elapsed();
                    assert!(
                        waited >= Duration::from_millis(1) + ARRIVING_GRACE,
                        "a 1 ms wait gave up after {waited:?} while a frame was arriving"
                    );
                    take_frame();
                }
                Err(e) => panic!("EventGetData: {e}"),
            }
        }

        // Nothing arriving: 1 ms waits end on time (held for the grace,
        // 20 of them would take over 200 ms).
        let began = Instant::now();
        for _ in 0..20 {
            assert!(matches!(
                producer::event_wait(event, 1),
                Err(GcError::Timeout(1))
            ));
        }
        let idle = began.elapsed();
        stream.stop().expect("DSStopAcquisition");
        producer::close_lib().expect("GCCloseLib");
        assert!(
            idle < Duration::from_millis(150),
            "20 idle 1 ms waits took {idle:?}"
        );
        // The grace returns frames: most take a fraction of it to arrive.
        assert!(
            held >= FRAMES / 2,
            "{held} of {FRAMES} 1 ms waits returned the frame arriving"
        );
        // A held wait ends when its frame is done: 1 ms + the grace at
        // most, with room for a busy machine.
        assert!(
            longest < Duration::from_millis(200),
            "a wait took {longest:?}"
        );
    })
    .expect("enter the host's namespace");
}

/// Runs `f` on the camera, through the device's control connection.
fn with_camera(device: &Device, f: impl FnOnce(&mut Camera)) {
    let mut conn = device.connection();
    f(conn.camera().expect("the camera"));
}

/// Waits until `done` (checked every 50 us), at most 2 s.
fn until(done: impl Fn() -> bool, failure: &str) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while !done() {
        assert!(Instant::now() < deadline, "{failure} (2 s)");
        std::thread::sleep(Duration::from_micros(50));
    }
}
