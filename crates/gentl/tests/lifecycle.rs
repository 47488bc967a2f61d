//! A GenTL consumer's whole session through the producer's safe API (what
//! the C functions call), against linerate's emulated camera on a
//! two-namespace bench: discovery on the bench's interface, the camera's
//! registers and XML URL through the remote port, buffers the producer
//! allocates filled with complete frames, EventGetData timing out when
//! idle; then every handle made from the closed device is stale
//! (`GC_ERR_INVALID_HANDLE`), the camera can be opened again (control was
//! given back), and `GCCloseLib` leaves no producer thread running.

use std::time::{Duration, Instant};

mod common;

use linerate_gentl::abi::{access_flags, buffer_info, event_type, stream_info, url_info, INFINITE};
use linerate_gentl::error::GcError;
use linerate_gentl::info::Info;
use linerate_gentl::producer;

fn stale<T: std::fmt::Debug>(what: &str, r: Result<T, GcError>) {
    assert!(
        matches!(r, Err(GcError::InvalidHandle { .. })),
        "{what} after closing gave {r:?}"
    );
}

fn thread_names() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .map(|n| n.trim().to_string())
        .collect()
}

#[test]
fn a_consumer_session_then_stale_handles_and_no_thread_left() {
    let (width, height) = (256u32, 64u32);
    let (bed, _camera) = common::bench_with_camera("gentl", width, height);
    let cam_ip = bed.addr("cam").expect("camera address");
    let pc_ip = bed.addr("pc").expect("host address");

    bed.run_in("pc", None, move || {
        let common::Opened {
            tl,
            iface,
            iface_id,
            dev,
            device_id,
        } = common::open_camera(pc_ip, cam_ip);
        assert!(matches!(
            producer::open_interface(tl, &iface_id),
            Err(GcError::ResourceInUse(_))
        ));
        let port = producer::remote_port(dev).expect("DevGetPort");
        // The manufacturer name register (bootstrap 0x48), read unaligned.
        let vendor = producer::port_read(port, 0x48, 8).expect("GCReadPort");
        assert_eq!(vendor, b"linerate");
        let odd = producer::port_read(port, 0x49, 3).expect("an unaligned read");
        assert_eq!(odd, b"ine");
        let Info::Str(url) = producer::port_url_info(port, 0, url_info::URL).expect("a URL") else {
            panic!("the URL is a string");
        };
        assert!(url.to_ascii_lowercase().starts_with("local:"), "{url}");

        let ds = producer::open_stream(dev, "stream0").expect("DevOpenDataStream");
        let stream = producer::stream(ds).expect("the stream");
        let payload = match stream
            .info(stream_info::PAYLOAD_SIZE)
            .expect("payload size")
        {
            Info::Size(n) => n,
            other => panic!("PAYLOAD_SIZE is {other:?}"),
        };
        assert_eq!(payload, (width * height) as usize);
        let buffers: Vec<u64> = (0..4)
            .map(|i| producer::alloc_and_announce(ds, payload, 100 + i).expect("announce"))
            .collect();
        for &b in &buffers {
            producer::queue(ds, b).expect("DSQueueBuffer");
        }
        let event = producer::register_event(ds, event_type::NEW_BUFFER).expect("GCRegisterEvent");
        stream.start(INFINITE).expect("DSStartAcquisition");
        // As a consumer does after DSStartAcquisition: AcquisitionStart
        // through the camera's own features.
        producer::device(dev)
            .expect("the device")
            .connection()
            .camera()
            .expect("the camera")
            .execute("AcquisitionStart")
            .expect("AcquisitionStart");
        for _ in 0..50 {
            let (b, private) = producer::event_wait(event, 2000).expect("EventGetData");
            let index = buffers.iter().position(|&x| x == b).expect("one of ours");
            assert_eq!(private, 100 + index);
            assert_eq!(
                producer::buffer_info(ds, b, buffer_info::IS_INCOMPLETE).expect("info"),
                Info::Bool(false)
            );
            assert_eq!(
                producer::buffer_info(ds, b, buffer_info::SIZE_FILLED).expect("info"),
                Info::Size(payload)
            );
            assert_eq!(
                producer::buffer_info(ds, b, buffer_info::WIDTH).expect("info"),
                Info::Size(width as usize)
            );
            let Info::U64(ns) =
                producer::buffer_info(ds, b, buffer_info::TIMESTAMP_NS).expect("a timestamp")
            else {
                panic!("TIMESTAMP_NS is a uint64");
            };
            assert!(ns > 0);
            producer::queue(ds, b).expect("DSQueueBuffer again");
        }
        stream.stop().expect("DSStopAcquisition");

        // The queues: every buffer is queued again; flushed to the output
        // queue they come back through EventGetData without new data.
        use linerate_gentl::abi::flush;
        assert_eq!(
            stream.info(stream_info::NUM_QUEUED).expect("info"),
            Info::Size(4)
        );
        stream
            .flush(flush::INPUT_TO_OUTPUT)
            .expect("INPUT_TO_OUTPUT");
        assert_eq!(
            stream.info(stream_info::NUM_AWAIT_DELIVERY).expect("info"),
            Info::Size(4)
        );
        let (b, _) = producer::event_wait(event, 0).expect("a flushed buffer");
        assert_eq!(
            producer::buffer_info(ds, b, buffer_info::NEW_DATA).expect("info"),
            Info::Bool(false)
        );
        producer::event_flush(event).expect("EventFlush");
        assert_eq!(
            stream.info(stream_info::NUM_AWAIT_DELIVERY).expect("info"),
            Info::Size(0)
        );
        stream.flush(flush::ALL_TO_INPUT).expect("ALL_TO_INPUT");
        assert_eq!(
            stream.info(stream_info::NUM_QUEUED).expect("info"),
            Info::Size(4)
        );
        stream.flush(flush::ALL_DISCARD).expect("ALL_DISCARD");
        assert_eq!(
            stream.info(stream_info::NUM_QUEUED).expect("info"),
            Info::Size(0)
        );
        let began = Instant::now();
        assert!(matches!(
            producer::event_wait(event, 1),
            Err(GcError::Timeout(1))
        ));
        assert!(began.elapsed() < Duration::from_millis(200));
        assert!(thread_names().iter().any(|n| n == "gvcp-heartbeat"));

        producer::dev_close(dev).expect("DevClose");
        stale("DevGetPort", producer::remote_port(dev));
        stale(
            "GCReadPort on the remote port",
            producer::port_read(port, 0x48, 4),
        );
        stale("DSGetInfo", producer::stream(ds));
        stale("EventGetData", producer::event_wait(event, 1));
        stale("DSQueueBuffer", producer::queue(ds, buffers[0]));
        stale("DevClose", producer::dev_close(dev));

        // Control was given back: the camera opens again.
        let again = producer::open_device(iface, &device_id, access_flags::EXCLUSIVE)
            .expect("IFOpenDevice again");
        producer::remote_port(again).expect("a port on the new device");
        producer::close_lib().expect("GCCloseLib");
        stale(
            "DevGetPort after GCCloseLib",
            producer::remote_port(again).map_err(|e| match e {
                GcError::NotInitialized => GcError::InvalidHandle {
                    handle: again,
                    expected: "",
                },
                other => other,
            }),
        );
        let left: Vec<String> = thread_names()
            .into_iter()
            .filter(|n| n == "gvcp-heartbeat" || n == "gvsp-receive")
            .collect();
        assert!(left.is_empty(), "threads left after GCCloseLib: {left:?}");
    })
    .expect("enter the host's namespace");
}
