//! Measurement (ignored; run with `--ignored --nocapture` under
//! `linerate-testbed`'s rules): what one `EventGetData` with a 1 ms
//! timeout costs while the stream is started and no frame comes (the
//! camera is not started), as a consumer that polls, like Harvesters,
//! pays it about a thousand times a second. Prints the process CPU per
//! call, which also holds the receive and heartbeat threads' idle
//! wake-ups, so it is an upper bound.

mod common;

use std::time::Instant;

use linerate_gentl::producer;

#[test]
#[ignore = "a measurement: prints the CPU an idle 1 ms EventGetData costs"]
fn cpu_of_an_idle_one_millisecond_event_wait() {
    let (bed, _camera) = common::bench_with_camera("gentlwait", 256, 64);
    let cam_ip = bed.addr("cam").expect("camera address");
    let pc_ip = bed.addr("pc").expect("host address");
    bed.run_in("pc", None, move || {
        let opened = common::open_camera(pc_ip, cam_ip);
        let common::Started { ds, event } = common::start_stream(opened.dev, 4);
        let stream = producer::stream(ds).expect("the stream");
        let calls = 2000;
        let cpu_before = linerate_io::sched::process_cpu_seconds();
        let began = Instant::now();
        for _ in 0..calls {
            assert!(producer::event_wait(event, 1).is_err(), "no frame comes");
        }
        let cpu = linerate_io::sched::process_cpu_seconds() - cpu_before;
        let wall = began.elapsed();
        println!(
            "{calls} idle EventGetData(1 ms): {:.3} ms each, {:.1} us of process CPU each",
            wall.as_secs_f64() * 1e3 / f64::from(calls),
            cpu * 1e6 / f64::from(calls)
        );
        stream.stop().expect("DSStopAcquisition");
        producer::close_lib().expect("GCCloseLib");
    })
    .expect("enter the host's namespace");
}
