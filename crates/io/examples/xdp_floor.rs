//! Attaches linerate's UDP-port drop program ([`program::udp_port_drop`])
//! to an interface for a while: the measuring tool behind
//! `scripts/bench-floor`, which asks what a stream costs the receiving core
//! when every packet is thrown away in the driver.
//!
//! ```sh
//! cargo run --release -p linerate-io --example xdp_floor -- IFACE PORT SECONDS
//! ```
//!
//! Run it inside the receiving namespace; it detaches when it exits.

use std::time::Duration;

use linerate_io::xdp::bpf::Program;
use linerate_io::xdp::{program, AttachMode};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, iface, port, secs] = args.as_slice() else {
        return Err("usage: xdp_floor IFACE UDP_PORT SECONDS".into());
    };
    let port: u16 = port
        .parse()
        .map_err(|e| format!("UDP port {port:?}: {e}"))?;
    let secs: f64 = secs.parse().map_err(|e| format!("seconds {secs:?}: {e}"))?;
    let name = std::ffi::CString::new(iface.as_str())?;
    // SAFETY: a valid NUL-terminated string.
    let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
    if ifindex == 0 {
        return Err(format!("no interface {iface}: {}", std::io::Error::last_os_error()).into());
    }
    let prog = Program::load_xdp("linerate_floor", &program::udp_port_drop(port)?)?;
    let _link = prog.attach(iface, ifindex, AttachMode::Native)?;
    eprintln!("xdp_floor: dropping UDP to port {port} on {iface} for {secs} s");
    std::thread::sleep(Duration::from_secs_f64(secs));
    Ok(())
}
