//! `linerate features`, `get`, `set` and `xml` on a test bench: against
//! linerate's emulated camera (list, typed set and read-back, refused
//! values that change nothing, XML dump, access by serial) and against
//! Aravis's fake camera (another vendor's XML and registers).

use std::net::SocketAddrV4;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use linerate_gev::device::registers::bootstrap as bs;
use linerate_testbed::Testbed;
use linerate_wire::Status;
use serde_json::Value;

mod common;

use common::stop_camera;

/// The emulated camera, stopped when the test ends, also when it fails (a
/// camera left running would confuse later tests).
struct Camera(Option<Child>);

impl Drop for Camera {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Waits until broadcast discovery from "pc" finds `serial`: a link's
/// carrier (IFF_RUNNING) is reported up to a second after the bench is
/// built, and discovery skips interfaces that are not running yet.
fn wait_for_discovery(bed: &Testbed, serial: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let out = linerate(bed, &["discover", "--json", "--wait-ms", "200"]);
        if String::from_utf8_lossy(&out.stdout).contains(serial) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "discovery never found {serial}: {}",
            stderr(&out)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs `linerate ARGS` on the bench's "pc" host.
fn linerate(bed: &Testbed, args: &[&str]) -> Output {
    bed.command("pc", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .args(args)
        .output()
        .expect("run linerate")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The command succeeded; its stdout as one JSON object.
fn ok_json(out: &Output) -> Value {
    assert!(out.status.success(), "failed: {}", stderr(out));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// `get --json` values by name.
fn get(bed: &Testbed, camera: &str, names: &[&str]) -> Vec<Value> {
    let mut args = vec!["get", camera, "--json"];
    args.extend_from_slice(names);
    let report = ok_json(&linerate(bed, &args));
    report["features"]
        .as_array()
        .expect("features list")
        .iter()
        .map(|f| f["value"].clone())
        .collect()
}

fn feature<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["features"]
        .as_array()
        .expect("features list")
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in the listing"))
}

#[test]
fn list_set_get_and_dump_the_emulated_cameras_features() {
    let bed = common::two_host_bed("feat");
    let mut camera = Camera(Some(common::start_camera(
        &bed,
        &["--width", "256", "--height", "64"],
    )));
    let cam = bed.addr("cam").expect("addr").to_string();
    std::thread::sleep(Duration::from_millis(300));

    // The listing: Width with its type, access and range, in its category.
    let list = ok_json(&linerate(&bed, &["features", &cam, "--json"]));
    assert_eq!(list["ok"], true);
    assert_eq!(list["device"]["vendor"], "linerate");
    assert!(
        list["xml_url"]
            .as_str()
            .is_some_and(|u| u.starts_with("Local:")),
        "{}",
        list["xml_url"]
    );
    let width = feature(&list, "Width");
    assert_eq!(width["type"], "Integer");
    assert_eq!(width["access"], "RW");
    assert_eq!(width["value"], 256);
    assert_eq!(
        (width["min"].as_i64(), width["inc"].as_i64()),
        (Some(16), Some(4))
    );
    let max_width = width["max"].as_i64().expect("max");
    assert!(max_width >= 256, "{width}");
    assert_eq!(width["category"], "ImageFormatControl");
    assert_eq!(feature(&list, "PayloadSize")["access"], "RO");
    assert_eq!(feature(&list, "AcquisitionStart")["access"], "WO");
    let entries = feature(&list, "PixelFormat")["entries"].clone();
    assert!(
        entries
            .as_array()
            .expect("entries")
            .iter()
            .any(|e| e["name"] == "Mono16" && e["available"] == true),
        "{entries}"
    );
    // Text output is a category tree.
    let text = linerate(&bed, &["features", &cam]);
    assert!(text.status.success(), "{}", stderr(&text));
    let text = String::from_utf8_lossy(&text.stdout);
    let category = text
        .lines()
        .position(|l| l.trim() == "ImageFormatControl")
        .expect("ImageFormatControl heading");
    let width_line = text
        .lines()
        .position(|l| l.trim_start().starts_with("Width "))
        .expect("Width line");
    assert!(width_line > category, "{text}");

    // Named features in full.
    let out = linerate(&bed, &["features", &cam, "Width", "PixelFormat"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "range        16..=",
        "step 4",
        "entry        Mono8 = 17301505 (0x1080001)",
        "description",
    ] {
        assert!(text.contains(needle), "{needle:?} not in {text}");
    }
    assert!(!text.contains("PayloadSize"), "{text}");

    // Set, then read back.
    let set = ok_json(&linerate(
        &bed,
        &["set", &cam, "Width=128", "PixelFormat=Mono16", "--json"],
    ));
    assert_eq!(set["applied"][0]["value"], 128);
    assert_eq!(set["applied"][1]["value"], "Mono16");
    assert_eq!(
        get(&bed, &cam, &["Width", "PixelFormat"]),
        ["128", "\"Mono16\""].map(|v| serde_json::from_str::<Value>(v).expect("json"))
    );

    // Refused values name the feature, the value and what is allowed, and
    // change nothing, also when an earlier setting in the batch was fine.
    let too_wide = (max_width + 4).to_string();
    let out = linerate(
        &bed,
        &["set", &cam, "Height=32", &format!("Width={too_wide}")],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    for needle in [
        "Width",
        too_wide.as_str(),
        "16",
        &max_width.to_string(),
        "already applied: Height",
    ] {
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }
    let out = linerate(&bed, &["set", &cam, "Width=130"]);
    assert!(
        stderr(&out).contains("nearest 128 or 132"),
        "{}",
        stderr(&out)
    );
    let out = linerate(&bed, &["set", &cam, "PixelFormat=Mono9"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("Mono9") && err.contains("Mono8"), "{err}");
    let out = linerate(&bed, &["set", &cam, "Width", "--json"]);
    assert!(!out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON error object");
    assert_eq!(report["ok"], false);
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.contains("not a Command")),
        "{report}"
    );
    assert_eq!(
        get(&bed, &cam, &["Width", "Height", "PixelFormat"]),
        [Value::from(128), Value::from(32), Value::from("Mono16")]
    );

    // A command executes by name alone; control is given back after a set.
    let out = linerate(&bed, &["set", &cam, "GevTimestampControlLatch"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "GevTimestampControlLatch executed"
    );
    let out = linerate(&bed, &["set", &cam, "GevTimestampControlLatch=1"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "GevTimestampControlLatch executed"
    );
    let out = linerate(&bed, &["get", &cam, "GevTimestampControlLatch"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is a Command"), "{}", stderr(&out));
    assert_eq!(get(&bed, &cam, &["GevCCP"]), [Value::from("OpenAccess")]);

    // While another host holds control, reading works (as a monitor) and
    // set is refused, naming the reason, and changes nothing.
    let cam_addr = SocketAddrV4::new(bed.addr("cam").expect("addr"), 3956);
    let mut other = bed
        .run_in("pc", None, move || common::Client::new(cam_addr))
        .expect("namespace");
    let ccp = bs::CONTROL_CHANNEL_PRIVILEGE;
    assert_eq!(
        other.write(&[(ccp, bs::ccp::CONTROL_ACCESS)]),
        Status::SUCCESS
    );
    assert_eq!(get(&bed, &cam, &["Width"]), [Value::from(128)]);
    let out = linerate(&bed, &["set", &cam, "Width=64"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("controlled by another host"),
        "{}",
        stderr(&out)
    );
    assert_eq!(other.write(&[(ccp, 0)]), Status::SUCCESS);
    assert_eq!(get(&bed, &cam, &["Width"]), [Value::from(128)]);

    // By serial number, through discovery.
    let serial = list["device"]["serial"]
        .as_str()
        .expect("serial")
        .to_string();
    wait_for_discovery(&bed, &serial);
    assert_eq!(get(&bed, &serial, &["Width"]), [Value::from(128)]);

    // The XML: saved unzipped, builds a feature tree, never overwrites.
    let dir = std::env::temp_dir().join(format!("linerate-xml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("camera.xml");
    let path = file.to_str().expect("utf-8 path");
    let out = linerate(&bed, &["xml", &cam, "--out", path]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("Local:"), "{}", stderr(&out));
    let xml = std::fs::read_to_string(&file).expect("saved XML");
    let features = linerate_grab::genicam::Features::from_xml(&xml).expect("the dump parses");
    assert!(features.contains("Width"));
    let again = linerate(&bed, &["xml", &cam, "--out", path]);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("exists"), "{}", stderr(&again));
    let _ = std::fs::remove_dir_all(&dir);

    stop_camera(camera.0.take().expect("camera"));
}

#[test]
fn aravis_fake_camera_features_list_set_and_get() {
    let bed = common::two_host_bed("featarv");
    let mut fake = bed
        .command("cam", "arv-fake-gv-camera-0.8")
        .expect("command")
        .into_command()
        .expect("command")
        .args(["-i", "eth0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("arv-fake-gv-camera-0.8 (scripts/test installs aravis-tools)");
    std::thread::sleep(Duration::from_millis(500));
    let cam = bed.addr("cam").expect("addr").to_string();
    let list = linerate(&bed, &["features", &cam, "--json"]);
    let set = linerate(&bed, &["set", &cam, "Width=320"]);
    let values = linerate(&bed, &["get", &cam, "Width", "--json"]);
    let xml = linerate(&bed, &["xml", &cam, "--json"]);
    let _ = fake.kill();
    let _ = fake.wait();

    let list = ok_json(&list);
    assert!(
        list["device"]["vendor"]
            .as_str()
            .is_some_and(|v| v.eq_ignore_ascii_case("aravis")),
        "{}",
        list["device"]
    );
    let width = feature(&list, "Width");
    assert_eq!(width["type"], "Integer");
    assert!(width["min"].is_i64() && width["max"].is_i64(), "{width}");
    assert!(set.status.success(), "{}", stderr(&set));
    assert_eq!(ok_json(&values)["features"][0]["value"], 320);
    let xml = ok_json(&xml);
    assert!(xml["xml"].as_str().is_some_and(|x| x.contains("Width")));
}
