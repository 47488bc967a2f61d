//! The server and watcher runtimes in-process: `server::spawn` on one host
//! of a test bed and `watcher::spawn` on the other (each spawned from a
//! thread inside its host's network namespace, so their threads and
//! sockets live there), no child process. Every frame must arrive
//! verified, and the two typed reports must agree on what was served and
//! what was watched.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::time::Duration;

use linerate_io::fanout::Method;
use linerate_serve::server::{self, ServeReport, ServerConfig};
use linerate_serve::watcher::{self, Transport, WatchConfig, WatchReport};
use linerate_testbed::Testbed;

fn bed(name: &str) -> Testbed {
    Testbed::builder(name)
        .hosts(["srv", "cli"])
        .link("srv", "cli")
        .mtu(9000)
        .build()
        .expect("test bench (needs root)")
}

/// Every client of `w` complete: frames in sequence, none missing or
/// corrupt, at least `min_frames` of them.
fn assert_all_complete(w: &WatchReport, clients: usize, min_frames: u64) {
    assert!(w.ok, "{w:?}");
    assert_eq!(w.clients.len(), clients, "{w:?}");
    assert_eq!(w.clients_complete, clients, "{w:?}");
    for c in &w.clients {
        assert!(c.complete && c.error.is_none(), "{c:?}");
        assert_eq!((c.frames_missing, c.frames_corrupt), (0, 0), "{c:?}");
        assert!(c.frames_ok >= min_frames, "{c:?}");
        let (first, last) = (c.first_seq.expect("first"), c.last_seq.expect("last"));
        assert_eq!(last - first + 1, c.frames_ok, "a gap in {c:?}");
    }
}

/// The report survives a JSON round trip through its own type: what the
/// CLI prints is what a reader of it gets back.
fn assert_round_trips(s: &ServeReport, w: &WatchReport) {
    let json = serde_json::to_value(s).expect("serve JSON");
    let back: ServeReport = serde_json::from_value(json.clone()).expect("serve report back");
    assert_eq!(serde_json::to_value(&back).expect("again"), json);
    let json = serde_json::to_value(w).expect("watch JSON");
    let back: WatchReport = serde_json::from_value(json.clone()).expect("watch report back");
    assert_eq!(serde_json::to_value(&back).expect("again"), json);
}

/// Three TCP watchers verify every frame for two seconds, from a server
/// that sends through its sockets (zerocopy) and from one that sends
/// through io_uring; the server counts each of them accepted, nothing
/// dropped or cut, and has handed their sockets every frame they verified
/// (and at most the few in flight when they stopped).
#[test]
fn tcp_watchers_verify_every_frame_the_server_sends_them() {
    let bed = bed("srvrun_tcp");
    let ip = bed.addr("srv").expect("addr");
    for method in [Method::Zerocopy, Method::Uring] {
        let server = bed
            .run_in("srv", None, move || {
                server::spawn(ServerConfig {
                    bind: SocketAddrV4::new(ip, 0),
                    fps: 100.0,
                    frame_size: 64 * 1024,
                    method,
                    ..ServerConfig::default()
                })
            })
            .expect("enter srv")
            .expect("server starts");
        let address = server.address();
        assert_ne!(address.port(), 0, "the kernel's port is named");
        let watch = bed
            .run_in("cli", None, move || {
                watcher::spawn(WatchConfig {
                    server: address,
                    clients: 3,
                    duration: Duration::from_secs(2),
                    ..WatchConfig::default()
                })
            })
            .expect("enter cli")
            .expect("watchers start");
        let w = watch.wait();
        let s = server.stop().expect("server report");

        assert_all_complete(&w, 3, 100);
        assert_eq!(w.server, address.to_string());
        assert_eq!(s.address, address.to_string());
        assert_eq!(s.method, method.name());
        assert_eq!((s.clients_accepted, s.clients_refused), (3, 0), "{s:?}");
        assert_eq!((s.clients_cut, s.frames_dropped), (0, 0), "{s:?}");
        let sent: u64 = s.clients.iter().map(|c| c.frames_sent).sum();
        assert!(
            w.frames_ok <= sent && sent <= w.frames_ok + 3 * 4,
            "{method:?}: served {sent}, watched {}: {s:?}",
            w.frames_ok
        );
        assert!(s.frames_published >= w.frames_ok / 3, "{s:?}");
        assert_eq!(s.uring_fixed_buffers.is_some(), method == Method::Uring);
        assert_round_trips(&s, &w);
    }
}

/// UDP subscribers and multicast receivers, started before the server,
/// get exactly the frames it sends them: a subscriber as many as the
/// server counts for it, a group member every frame published, from the
/// first, and every datagram the server counts.
#[test]
fn udp_and_multicast_watchers_get_exactly_the_frames_served() {
    let bed = bed("srvrun_udp");
    let ip = bed.addr("srv").expect("addr");
    let address = SocketAddrV4::new(ip, 5700);
    let group = Ipv4Addr::new(239, 255, 0, 7);
    let watch = |transport| {
        bed.run_in("cli", None, move || {
            watcher::spawn(WatchConfig {
                server: address,
                clients: 2,
                duration: Duration::from_secs(4),
                transport,
                ..WatchConfig::default()
            })
        })
        .expect("enter cli")
        .expect("watchers start")
    };
    let subscribers = watch(Transport::Udp);
    let members = watch(Transport::Multicast(group));
    let server = bed
        .run_in("srv", None, move || {
            server::spawn(ServerConfig {
                bind: address,
                fps: 100.0,
                frame_size: 32 * 1024,
                udp: true,
                datagram_size: 8972,
                multicast: Some(group),
                duration: Some(Duration::from_secs(2)),
                ..ServerConfig::default()
            })
        })
        .expect("enter srv")
        .expect("server starts");
    // The server ends first, so every frame it sent has arrived when the
    // watchers stop.
    let s = server.wait().expect("server report");
    let (wu, wm) = (subscribers.wait(), members.wait());

    assert!(s.frames_published >= 100, "{s:?}");
    let m = s.multicast.as_ref().expect("multicast report");
    assert_eq!(m.group, format!("{group}:5700"));
    assert_eq!((m.frames_sent, m.frames_failed), (s.frames_published, 0));
    assert_eq!(m.datagrams, m.frames_sent * 4, "32 KiB in 8932-byte pieces");
    assert_all_complete(&wm, 2, s.frames_published);
    for c in &wm.clients {
        assert_eq!(c.first_seq, Some(0), "{c:?}");
        assert_eq!(c.frames_ok, s.frames_published, "{c:?}");
    }

    assert_all_complete(&wu, 2, 100);
    assert_eq!(s.udp_subscribers.len(), 2, "{s:?}");
    let mut served: Vec<u64> = s.udp_subscribers.iter().map(|u| u.frames_sent).collect();
    let mut watched: Vec<u64> = wu.clients.iter().map(|c| c.frames_ok).collect();
    served.sort_unstable();
    watched.sort_unstable();
    assert_eq!(served, watched, "{s:?}");
    for u in &s.udp_subscribers {
        assert_eq!(
            (u.end.as_str(), u.frames_failed),
            ("subscribed", 0),
            "{u:?}"
        );
    }
    assert_eq!((s.udp_refused, s.udp_bad_cookies), (0, 0), "{s:?}");
    assert_round_trips(&s, &wu);
}

/// A setting out of range is refused by name before anything is opened.
#[test]
fn bad_settings_are_refused_by_name() {
    let e = server::spawn(ServerConfig {
        fps: 0.0,
        ..ServerConfig::default()
    })
    .expect_err("fps 0");
    assert!(e.to_string().starts_with("fps 0"), "{e}");
    let e = watcher::spawn(WatchConfig {
        clients: 0,
        ..WatchConfig::default()
    })
    .expect_err("no clients");
    assert!(e.to_string().starts_with("clients 0"), "{e}");
}
