//! The view scenario's run: `linerate grab` of one stream, plain, with its
//! live view served, or with the view served and one headless Chromium
//! showing the page.
//!
//! With the page open, the measuring window starts only once the browser
//! is fetching pictures, and the view's own counters (`/api/stats`, read
//! inside the receiving host's namespace) say how many pictures the page
//! fetched during the window: a browser that never loaded the page, or
//! stopped following the stream, fails the run instead of passing as
//! "no cost". Both kinds of run end the grab the same way (SIGTERM right
//! after the window), so they differ only in the view.
//!
//! On a 2-core bench the browser cannot have a core of its own: it runs
//! beside the emulated camera, off the receiving core, under SCHED_IDLE,
//! and the camera runs under SCHED_FIFO in every variant, so that what the
//! browser takes shows on the receiver alone, as with a camera that is a
//! machine of its own.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::bed::{PairBed, RECEIVER, SENDER};
use crate::config::BenchConfig;
use crate::error::{Error, Result};
use crate::job::Page;
use crate::peers::{self, GvspOutcome, GvspReceiver, Stream};
use crate::process::{tail, Running};
use crate::report::Run;
use crate::steps::{launch_camera, lossless, put_window, GRACE};
use crate::window;

/// The port the view listens on, on the receiving host's loopback.
pub const VIEW_PORT: u16 = 8090;

/// The page's default display rate (`linerate_view::ViewConfig`'s), which
/// the browser is expected to follow.
const DISPLAY_FPS: f64 = 15.0;

/// Longest wait for the browser to start and fetch its first pictures.
const BROWSER_START_LIMIT: Duration = Duration::from_secs(30);

/// Pictures the page must have fetched before the window opens.
const PICTURES_BEFORE_WINDOW: u64 = 3;

/// The share of the display rate the page must follow over the window:
/// below it the browser was not really watching, and the run fails.
const MIN_DISPLAY_SHARE: f64 = 0.5;

/// The longest a grab may run: the bench stops it after the window.
const GRAB_LIMIT: Duration = Duration::from_secs(300);

/// Runs one view job on `pair`: the grab (with the page open in Chromium
/// when `page_open`), a measuring window, and the figures into `run`.
pub fn run(
    pair: &PairBed,
    config: &BenchConfig,
    stream: &Stream,
    page: Page,
    dir: &Path,
    run: &mut Run,
) -> Result<()> {
    let t = &config.timing;
    // The camera keeps its schedule whatever shares its core (the browser,
    // the view's threads): the run measures the receiver, not the bench.
    let camera = launch_camera(
        peers::realtime_camera(&pair.bed, SENDER, &config.linerate, pair.sender_ip)?,
        dir,
    )?;
    let receiver = GvspReceiver::Grab {
        backend: "mmsg".to_owned(),
    };
    let mut cmd = peers::gvsp_receiver(
        &pair.bed,
        RECEIVER,
        &config.linerate,
        pair.sender_ip,
        &receiver,
        stream,
        GRAB_LIMIT,
    )?;
    let listen = SocketAddr::from((Ipv4Addr::LOCALHOST, VIEW_PORT));
    if page != Page::None {
        cmd.arg("--view").arg(listen.to_string());
    }
    let grab = Running::spawn(cmd, dir, "receiver")?;
    // The browser loads the page once: it starts only when the view
    // answers (the grab opens the camera first).
    if page != Page::None {
        if let Err(e) = wait_for_view(pair) {
            let said = grab.stop(Duration::from_secs(5))?;
            return Err(Error::Output {
                program: said.cmdline,
                what: "the live view's answer".to_owned(),
                detail: format!("{e}; the grab said: {}", tail(&said.stderr, 300)),
            });
        }
    }
    let page_open = page.open();
    let browser = if page_open {
        let profile = dir.join("chromium-profile");
        let url = format!("http://{listen}/");
        let browser = Running::spawn(
            peers::browser(&pair.bed, RECEIVER, &url, &profile)?,
            dir,
            "chromium",
        )?;
        match wait_for_pictures(pair, PICTURES_BEFORE_WINDOW) {
            Ok(()) => Some(browser),
            Err(e) => {
                let said = browser.stop(Duration::from_secs(5))?;
                return Err(Error::Output {
                    program: said.cmdline,
                    what: "pictures fetched by the page".to_owned(),
                    detail: format!("{e}; the browser said: {}", browser_said(&said.stderr)),
                });
            }
        }
    } else {
        None
    };
    crate::stop::pause(t.settle)?;
    let served = page != Page::None;
    let before = served.then(|| view_stats(pair)).transpose()?;
    let w = window::measure(&pair.bed, RECEIVER, &pair.receiver_iface, t.window)?;
    let after = served.then(|| view_stats(pair)).transpose()?;
    let grab = grab.stop(GRACE)?;
    let browser = browser
        .map(|b| b.stop(Duration::from_secs(5)))
        .transpose()?;
    let camera = camera.stop(Duration::from_secs(5))?;
    let report = peers::grab_report(&grab)?;
    let outcome = GvspOutcome::of_grab(&report);
    let sent = peers::parse_camera_frames_sent(&camera).ok();
    put_window(run, &w);
    run.frames_completed = Some(outcome.frames_completed);
    run.frames_lost = Some(outcome.frames_lost());
    run.frames_sent = sent;
    run.frames_per_s =
        (report.seconds > 0.0).then(|| outcome.frames_completed as f64 / report.seconds);
    run.lossless = Some(lossless(&outcome, sent, stream));
    crate::steps::put_grab_counters(run, &report);
    let detail = [
        ("fps_requested", stream.fps.into()),
        ("packet_size", stream.packet_size.into()),
        (
            "receive_thread_cpu_s_per_gb",
            receive_thread_cpu_per_gb(&report).into(),
        ),
        ("page", serde_json::to_value(page).unwrap_or_default()),
        // Frames the camera skipped for falling behind its rate (it shares
        // CPU 0 with the browser, at a higher priority): none expected.
        (
            "camera_frames_skipped",
            crate::process::last_json_object(&camera)
                .ok()
                .and_then(|v| v.get("frames_skipped").cloned())
                .unwrap_or_default(),
        ),
        (
            "kernel_drop_counters",
            serde_json::to_value(report.kernel_drop_counters).unwrap_or_default(),
        ),
        ("window", serde_json::to_value(w).unwrap_or_default()),
    ];
    for (key, value) in detail {
        run.detail.insert(key.into(), value);
    }
    if let (Some(before), Some(after)) = (before, after) {
        let seen = PageSeen::between(&before, &after, w.seconds);
        run.detail.insert(
            "view".into(),
            serde_json::to_value(seen).unwrap_or_default(),
        );
        if page_open && seen.pictures_per_s < MIN_DISPLAY_SHARE * DISPLAY_FPS {
            let said = browser.map(|b| browser_said(&b.stderr)).unwrap_or_default();
            return Err(Error::Output {
                program: peers::CHROMIUM.to_owned(),
                what: "pictures fetched by the page during the window".to_owned(),
                detail: format!(
                    "{} pictures in {:.1} s ({:.1}/s), under {:.0}% of the display rate of {DISPLAY_FPS} \
                     fps: the page was not really open; the browser said: {said}",
                    seen.pictures_served,
                    w.seconds,
                    seen.pictures_per_s,
                    MIN_DISPLAY_SHARE * 100.0
                ),
            });
        }
    }
    Ok(())
}

/// What the view saw of the page over the measuring window, from its own
/// counters.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PageSeen {
    /// Times the page itself had been fetched by the window's end.
    pub page_loads: u64,
    /// Pictures (JPEGs) the page fetched during the window.
    pub pictures_served: u64,
    /// Pictures the view's display thread encoded during the window.
    pub pictures_encoded: u64,
    /// Pictures fetched per second of window.
    pub pictures_per_s: f64,
}

impl PageSeen {
    /// The difference between two `/api/stats` answers `seconds` apart.
    fn between(before: &Value, after: &Value, seconds: f64) -> PageSeen {
        let count = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64).unwrap_or(0);
        let delta = |key: &str| count(after, key).saturating_sub(count(before, key));
        let served = delta("pictures_served");
        PageSeen {
            page_loads: count(after, "page_loads"),
            pictures_served: served,
            pictures_encoded: delta("frames_displayed"),
            pictures_per_s: if seconds > 0.0 {
                served as f64 / seconds
            } else {
                0.0
            },
        }
    }
}

/// The receive thread's CPU-seconds per GB of payload over the grab's
/// whole run, when the grab measured its thread.
fn receive_thread_cpu_per_gb(report: &linerate_grab::session::GrabReport) -> Option<f64> {
    let cpu = report.receive_thread_cpu.as_ref()?;
    (report.bytes > 0).then(|| cpu.total_s / (report.bytes as f64 / 1e9))
}

/// Longest wait for the grab to open the camera and serve the view.
const VIEW_START_LIMIT: Duration = Duration::from_secs(20);

/// Waits until the view answers `/api/stats`.
fn wait_for_view(pair: &PairBed) -> Result<()> {
    let deadline = Instant::now() + VIEW_START_LIMIT;
    loop {
        crate::stop::pause(Duration::from_millis(200))?;
        match view_stats(pair) {
            Ok(_) => return Ok(()),
            Err(e) if Instant::now() >= deadline => {
                return Err(Error::Argument(format!(
                    "the view did not answer within {} s ({e})",
                    VIEW_START_LIMIT.as_secs()
                )))
            }
            Err(_) => {}
        }
    }
}

/// Waits until the page has fetched `pictures` pictures.
fn wait_for_pictures(pair: &PairBed, pictures: u64) -> Result<()> {
    let deadline = Instant::now() + BROWSER_START_LIMIT;
    let mut last = String::from("the view never answered");
    while Instant::now() < deadline {
        crate::stop::pause(Duration::from_millis(250))?;
        match view_stats(pair) {
            Ok(v) => {
                let served = v.get("pictures_served").and_then(Value::as_u64);
                if served.is_some_and(|n| n >= pictures) {
                    return Ok(());
                }
                last = format!(
                    "{} page loads and {} pictures fetched",
                    v.get("page_loads").and_then(Value::as_u64).unwrap_or(0),
                    served.unwrap_or(0)
                );
            }
            Err(e) => last = e.to_string(),
        }
    }
    Err(Error::Argument(format!(
        "the page had not fetched {pictures} pictures {} s after the browser started ({last})",
        BROWSER_START_LIMIT.as_secs()
    )))
}

/// The view's `/api/stats`, fetched inside the receiving host's namespace
/// (the view listens on its loopback).
fn view_stats(pair: &PairBed) -> Result<Value> {
    let body = pair
        .bed
        .run_in(RECEIVER, None, || http_get(VIEW_PORT, "/api/stats"))??;
    serde_json::from_str(&body).map_err(|e| Error::Output {
        program: format!("the view at 127.0.0.1:{VIEW_PORT}"),
        what: "/api/stats".to_owned(),
        detail: format!("{e}: {}", tail(&body, 200)),
    })
}

/// The body of a plain HTTP/1.0 GET of `path` on the loopback's `port`
/// (one request, the server closes the connection after its answer).
fn http_get(port: u16, path: &str) -> Result<String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let fail = |e: std::io::Error| Error::Output {
        program: format!("the view at {addr}"),
        what: path.to_owned(),
        detail: e.to_string(),
    };
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(fail)?;
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(fail)?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").map_err(fail)?;
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).map_err(fail)?;
    let answer = String::from_utf8_lossy(&answer);
    match answer.split_once("\r\n\r\n") {
        Some((head, body)) if head.starts_with("HTTP/1.") && head.contains(" 200 ") => {
            Ok(body.to_owned())
        }
        _ => Err(Error::Output {
            program: format!("the view at {addr}"),
            what: path.to_owned(),
            detail: tail(&answer, 200),
        }),
    }
}

/// The browser's stderr without the D-Bus complaints a headless browser
/// makes on a machine without a session bus.
fn browser_said(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.contains("dbus") && !l.trim().is_empty())
        .collect();
    tail(&lines.join("\n"), 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_seen_counts_the_window_only() {
        let before =
            serde_json::json!({"pictures_served": 10, "frames_displayed": 12, "page_loads": 1});
        let after =
            serde_json::json!({"pictures_served": 40, "frames_displayed": 44, "page_loads": 1});
        let seen = PageSeen::between(&before, &after, 2.0);
        assert_eq!(seen.pictures_served, 30);
        assert_eq!(seen.pictures_encoded, 32);
        assert_eq!(seen.page_loads, 1);
        assert!((seen.pictures_per_s - 15.0).abs() < 1e-9);
        // A view without the counters (or a browser that fetched nothing).
        let none = PageSeen::between(&serde_json::json!({}), &serde_json::json!({}), 2.0);
        assert_eq!(none.pictures_per_s, 0.0);
    }

    #[test]
    fn browser_noise_is_left_out() {
        let said =
            browser_said("[1:2:ERROR:dbus/bus.cc:405] Failed\n\nnet::ERR_CONNECTION_REFUSED\n");
        assert_eq!(said, "net::ERR_CONNECTION_REFUSED");
    }
}
