//! `linerate view`: show a camera live in a web page. The view itself (the
//! session, the display thread, the server and the page) is
//! `linerate_view::camera`; this command turns its arguments into a
//! configuration, says where the page is, and waits for Ctrl-C.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use linerate_grab::receive::Transport;
use linerate_grab::session::GrabConfig;
use linerate_view::camera::{self, CameraViewConfig};
use linerate_view::ViewConfig;

use crate::stop_signal::Interrupt;

/// What the help says about where the page listens.
pub const LISTEN_HELP: &str =
    "The page has no authentication: anyone who can reach the address can \
watch and change the camera. The default listens on loopback only; binding \
elsewhere (e.g. 0.0.0.0:8080) is your choice.";

/// Arguments of `linerate view`.
#[derive(Debug, Args, Clone)]
#[command(after_help = LISTEN_HELP)]
pub struct ViewArgs {
    /// Camera: IPv4 address, IP:PORT, or serial number / user name.
    pub camera: String,
    /// Where to serve the page (HOST:PORT). No authentication: binding
    /// beyond loopback is your explicit choice.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Pictures sent to the page per second at most, 0.1..=120; frames
    /// arriving in between are not decoded (the page always shows the
    /// latest frame, never a backlog).
    #[arg(long, default_value_t = 15.0, value_parser = crate::arg_range::float_in(0.1..=120.0))]
    pub display_fps: f64,
    /// The local interface facing the camera, by name or IPv4 address.
    #[arg(long, value_parser = crate::interface_arg::ipv4_address)]
    pub interface: Option<Ipv4Addr>,
    /// Stream transport to start with: udp or tcp (changeable on the page).
    #[arg(long, default_value = "udp")]
    pub transport: Transport,
    /// Set the PixelFormat feature before starting (e.g. Mono16).
    #[arg(long)]
    pub pixel_format: Option<String>,
    /// Set the Width feature before starting (1..=65535).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65_535))]
    pub width: Option<u32>,
    /// Set the Height feature before starting (1..=65535).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65_535))]
    pub height: Option<u32>,
    /// Set the AcquisitionFrameRate feature (0.001..=1000000).
    #[arg(long, value_parser = crate::arg_range::float_in(0.001..=1_000_000.0))]
    pub fps: Option<f64>,
    /// Stop after this many seconds (default: until Ctrl-C or SIGTERM).
    #[arg(long, value_parser = crate::arg_range::secs_in(0.001..=31_536_000.0))]
    pub duration: Option<f64>,
    /// At the end, print the last run's report as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs `linerate view` until Ctrl-C, SIGTERM or --duration: the normal
/// end of a command that runs until stopped (exit 0). A lost camera shows
/// on the page, where Start tries again.
pub fn run(args: ViewArgs) -> Result<()> {
    let interrupt = Interrupt::install()?;
    let grab = GrabConfig {
        interface: args.interface,
        transport: args.transport,
        pixel_format: args.pixel_format.clone(),
        width: args.width,
        height: args.height,
        fps: args.fps,
        ..GrabConfig::new(args.camera.clone())
    };
    let view = ViewConfig {
        listen: args.listen,
        display_fps: args.display_fps,
        ..ViewConfig::default()
    };
    let running = camera::spawn(CameraViewConfig { grab, view })
        .with_context(|| format!("live view of camera {}", args.camera))?;
    crate::console::say(format_args!(
        "view: camera {} live at http://{}/ (no authentication; Ctrl-C to stop)",
        args.camera,
        running.local_addr()
    ));
    let flag = interrupt.flag();
    let deadline = args
        .duration
        .and_then(|d| Duration::try_from_secs_f64(d).ok())
        .map(|d| std::time::Instant::now() + d);
    while !flag.load(std::sync::atomic::Ordering::Relaxed)
        && !running.is_finished()
        && deadline.map_or(true, |d| std::time::Instant::now() < d)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    let lost = running.is_finished();
    let report = running.stop();
    if args.json {
        crate::json_println!("{}", serde_json::to_string(&report)?);
    } else if let Some(r) = &report {
        crate::console::say(format_args!(
            "view: {} complete and {} incomplete frames in the last run",
            r.frames_completed, r.frames_incomplete
        ));
    }
    if lost {
        let why = report
            .as_ref()
            .and_then(|r| r.error.clone())
            .unwrap_or_else(|| "the session ended".into());
        anyhow::bail!("live view of camera {} ended: {why}", args.camera);
    }
    Ok(())
}
