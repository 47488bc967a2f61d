//! The bench the producer's namespace tests share: linerate's emulated
//! camera in "cam", and the producer opened in "pc" down to the device.

// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use linerate_device::camera::{self, CameraConfig, CameraHandle};
use linerate_gentl::abi::{access_flags, event_type, stream_info, INFINITE};
use linerate_gentl::info::Info;
use linerate_gentl::producer;
use linerate_testbed::Testbed;

/// A two-namespace bench named `name` with the emulated camera running in
/// "cam" (`width` x `height` Mono8 at 200 frames/s, not acquiring).
pub fn bench_with_camera(name: &str, width: u32, height: u32) -> (Testbed, CameraHandle) {
    assert!(
        linerate_io::privilege::is_root(),
        "the GenTL namespace tests build namespaces and must run as root"
    );
    let bed = Testbed::builder(name)
        .hosts(["cam", "pc"])
        .link("cam", "pc")
        .build()
        .expect("test bench");
    let config = CameraConfig {
        bind: bed.addr("cam").expect("camera address"),
        width,
        height,
        frame_rate: 200.0,
        ..CameraConfig::default()
    };
    let camera = bed
        .run_in("cam", None, move || camera::spawn(config))
        .expect("enter the camera's namespace")
        .expect("camera starts");
    (bed, camera)
}

/// The handles a consumer has once it opened the camera.
pub struct Opened {
    /// The system module.
    pub tl: u64,
    /// The interface facing the camera.
    pub iface: u64,
    /// The interface's ID.
    pub iface_id: String,
    /// The device.
    pub dev: u64,
    /// The device's ID.
    pub device_id: String,
}

/// Runs in "pc": initialises the producer, finds the bench's interface
/// (once its link runs: a new veth's carrier is reported up to a second
/// late) and the camera on it, and opens the camera.
pub fn open_camera(pc_ip: Ipv4Addr, cam_ip: Ipv4Addr) -> Opened {
    producer::init().expect("GCInitLib");
    let tl = producer::tl_open().expect("TLOpen");
    let system = producer::system(tl).expect("the system module");
    let deadline = Instant::now() + Duration::from_secs(5);
    let iface_id = loop {
        system.update().expect("TLUpdateInterfaceList");
        let found = (0..system.count())
            .filter_map(|i| system.interface_id(i).ok())
            .find(|id| system.interface(id).is_ok_and(|i| i.address == pc_ip));
        if let Some(id) = found {
            break id;
        }
        assert!(
            Instant::now() < deadline,
            "the bench's interface never came up"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let iface = producer::open_interface(tl, &iface_id).expect("TLOpenInterface");
    let interface = producer::interface(iface).expect("the interface module");
    let device_id = cam_ip.to_string();
    let deadline = Instant::now() + Duration::from_secs(5);
    while interface.device(&device_id).is_err() {
        interface.update(200).expect("IFUpdateDeviceList");
        assert!(
            Instant::now() < deadline,
            "discovery never found {device_id}"
        );
    }
    let dev =
        producer::open_device(iface, &device_id, access_flags::CONTROL).expect("IFOpenDevice");
    Opened {
        tl,
        iface,
        iface_id,
        dev,
        device_id,
    }
}

/// A started data stream and its new-buffer event, as a consumer has them
/// before it starts the camera.
pub struct Started {
    /// The data stream.
    pub ds: u64,
    /// Its NEW_BUFFER event.
    pub event: u64,
}

/// Runs in "pc": opens `dev`'s data stream, announces and queues
/// `buffers` buffers of its payload size (private pointers 0..buffers),
/// registers the new-buffer event and starts the stream (not the camera).
pub fn start_stream(dev: u64, buffers: usize) -> Started {
    let ds = producer::open_stream(dev, "stream0").expect("DevOpenDataStream");
    let stream = producer::stream(ds).expect("the stream");
    let Info::Size(payload) = stream.info(stream_info::PAYLOAD_SIZE).expect("payload") else {
        panic!("PAYLOAD_SIZE is a size_t");
    };
    for i in 0..buffers {
        let b = producer::alloc_and_announce(ds, payload, i).expect("announce");
        producer::queue(ds, b).expect("queue");
    }
    let event = producer::register_event(ds, event_type::NEW_BUFFER).expect("register");
    stream.start(INFINITE).expect("DSStartAcquisition");
    Started { ds, event }
}
