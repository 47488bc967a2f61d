//! Helpers the camera and host tests share: a two-host bench, the camera
//! process, and a minimal GVCP client built on linerate's own codec.

#![allow(dead_code)] // each test binary uses its own subset

pub mod schema;
pub mod spoof;

use std::net::{SocketAddrV4, UdpSocket};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use linerate_testbed::Testbed;
use linerate_wire::gvcp::{Ack, AckPacket, AckRepr, Command, CommandRepr, RegisterWrite};
use linerate_wire::Status;

/// Network tests need namespaces; a silently skipped one would look like a pass.
pub fn require_root() {
    assert!(
        linerate_io::privilege::is_root(),
        "these tests build network namespaces and must run as root"
    );
}

/// Hosts "cam" and "pc" on one veth pair at MTU 9000.
pub fn two_host_bed(name: &str) -> Testbed {
    require_root();
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    Testbed::builder(name)
        .hosts(["cam", "pc"])
        .link("cam", "pc")
        .mtu(9000)
        .build()
        .expect("test bench")
}

/// Starts `linerate camera` on the "cam" host with JSON counters on exit
/// and no status lines, plus `extra` arguments.
pub fn start_camera(bed: &Testbed, extra: &[&str]) -> Child {
    let ip = bed.addr("cam").expect("addr").to_string();
    let mut cmd = bed
        .command("cam", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command");
    cmd.args(["camera", "--bind", &ip, "--stats-interval", "0", "--json"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("start camera")
}

/// Starts `linerate camera --bind ip` on the "cam" host, as [`start_camera`].
pub fn start_camera_at(bed: &Testbed, ip: &str, extra: &[&str]) -> Child {
    let mut cmd = bed
        .command("cam", env!("CARGO_BIN_EXE_linerate"))
        .expect("command")
        .into_command()
        .expect("command");
    cmd.args(["camera", "--bind", ip, "--stats-interval", "0", "--json"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("start camera")
}

/// A child process killed when dropped, so a failing test leaves nothing
/// running; [`KillOnDrop::take`] hands it back for a clean stop.
pub struct KillOnDrop(Option<Child>);

impl KillOnDrop {
    pub fn new(child: Child) -> KillOnDrop {
        KillOnDrop(Some(child))
    }

    pub fn id(&self) -> u32 {
        self.0.as_ref().map_or(0, Child::id)
    }

    pub fn take(mut self) -> Child {
        self.0.take().expect("child taken once")
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Stops the camera with SIGTERM and returns its JSON counters.
pub fn stop_camera(mut child: Child) -> serde_json::Value {
    let _ = linerate_io::process::send_signal(child.id(), linerate_io::process::Signal::Terminate);
    let deadline = Instant::now() + Duration::from_secs(5);
    while child.try_wait().ok().flatten().is_none() {
        assert!(Instant::now() < deadline, "camera did not exit on SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    assert!(
        out.status.success(),
        "camera failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = serde_json::from_slice(&out.stdout).expect("camera JSON");
    schema::assert_matches_schema("camera", &report);
    report
}

/// A minimal GVCP client on one UDP socket.
pub struct Client {
    sock: UdpSocket,
    camera: SocketAddrV4,
    next_id: u16,
}

impl Client {
    pub fn new(camera: SocketAddrV4) -> Client {
        let sock = UdpSocket::bind("0.0.0.0:0").expect("bind");
        sock.set_read_timeout(Some(Duration::from_millis(500)))
            .expect("timeout");
        Client {
            sock,
            camera,
            next_id: 1,
        }
    }

    pub fn call(&mut self, command: Command) -> AckRepr {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        let bytes = CommandRepr::new(command, id).to_vec().expect("encode");
        let mut buf = [0u8; 1024];
        for _ in 0..5 {
            self.sock.send_to(&bytes, self.camera).expect("send");
            while let Ok(n) = self.sock.recv(&mut buf) {
                let ack = AckRepr::parse(&AckPacket::new_checked(&buf[..n]).expect("ack"))
                    .expect("ack parses");
                if ack.ack_id == id {
                    return ack;
                }
            }
        }
        panic!("no ack from the camera");
    }

    pub fn write(&mut self, writes: &[(u32, u32)]) -> Status {
        let writes = writes
            .iter()
            .map(|&(address, value)| RegisterWrite { address, value })
            .collect();
        self.call(Command::WriteReg { writes }).status
    }

    pub fn read(&mut self, address: u32) -> u32 {
        match self.call(Command::ReadReg {
            addresses: vec![address],
        }) {
            AckRepr {
                status: Status::SUCCESS,
                ack: Ack::ReadReg { values },
                ..
            } => values[0],
            other => panic!("read {address:#x} failed: {other:?}"),
        }
    }
}
