//! A short `EventGetData` wait (1 ms, as Harvesters polls) that would
//! time out while a frame is arriving waits on for that frame instead:
//! with frames that take about 5 ms each to arrive, back to back, nearly
//! every 1 ms wait returns a frame, where without the grace about four in
//! five would time out. A poll (timeout 0) is never held, nor a wait
//! while nothing arrives.

mod common;

use std::time::{Duration, Instant};

use linerate_gentl::error::GcError;
use linerate_gentl::producer;

#[test]
fn a_one_millisecond_wait_returns_the_frame_that_is_arriving() {
    // 512x512 Mono8 in 1500-byte packets: about 180 packets a frame, 30 us
    // apart, so each frame takes about 5.4 ms and the camera (asked for
    // 200 frames/s) sends them back to back.
    let (bed, _camera) = common::bench_with_camera("gentlgrace", 512, 512);
    let cam_ip = bed.addr("cam").expect("camera address");
    let pc_ip = bed.addr("pc").expect("host address");
    bed.run_in("pc", None, move || {
        let opened = common::open_camera(pc_ip, cam_ip);
        let common::Started { ds, event } = common::start_stream(opened.dev, 8);
        let stream = producer::stream(ds).expect("the stream");
        {
            let device = producer::device(opened.dev).expect("the device");
            let mut conn = device.connection();
            let camera = conn.camera().expect("the camera");
            camera.set_packet_delay_ns(30_000).expect("GevSCPD");
            camera
                .execute("AcquisitionStart")
                .expect("AcquisitionStart");
        }
        // The first frame, whenever the stream gets going.
        let (b, _) = producer::event_wait(event, 2000).expect("a first frame");
        producer::queue(ds, b).expect("queue again");

        // A poll is answered at once, frame or not.
        let began = Instant::now();
        if let Ok((b, _)) = producer::event_wait(event, 0) {
            producer::queue(ds, b).expect("queue again");
        }
        assert!(
            began.elapsed() < Duration::from_millis(5),
            "a poll was held"
        );

        let (mut frames, mut timeouts) = (0u32, 0u32);
        let mut longest = Duration::ZERO;
        while frames < 30 {
            let began = Instant::now();
            match producer::event_wait(event, 1) {
                Ok((b, _)) => {
                    frames += 1;
                    producer::queue(ds, b).expect("queue again");
                }
                Err(GcError::Timeout(_)) => timeouts += 1,
                Err(e) => panic!("EventGetData: {e}"),
            }
            longest = longest.max(began.elapsed());
            assert!(timeouts < 60, "{timeouts} timeouts for {frames} frames");
        }
        // With the camera stopped nothing is arriving: 1 ms waits end on
        // time (held for the grace, 20 of them would take over 200 ms).
        producer::device(opened.dev)
            .expect("the device")
            .connection()
            .camera()
            .expect("the camera")
            .execute("AcquisitionStop")
            .expect("AcquisitionStop");
        while producer::event_wait(event, 50).is_ok() {}
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
        // Back to back, a frame is nearly always arriving: a wait times out
        // only across the odd gap (a 1 ms poll would time out ~4 times a frame).
        assert!(timeouts <= 10, "{timeouts} timeouts for {frames} frames");
        // The grace is bounded: 1 ms + 10 ms, with room for a busy machine.
        assert!(
            longest < Duration::from_millis(200),
            "a wait took {longest:?}"
        );
    })
    .expect("enter the host's namespace");
}
