//! Does TCP_ZEROCOPY_RECEIVE (mmap receive) work on this kernel and on a
//! veth link between namespaces? Streams 64 MiB between two namespaces
//! at two MTUs (jumbo 9000, and 4148 whose MSS is exactly one 4 KiB page)
//! and receives it through `receive_mapped`. Asserts the kernel accepts
//! the call and that every byte arrives exact, mapped or copied; prints how
//! much was mapped, which is the finding recorded in docs/grab.md.

use std::io::Write;
use std::net::{SocketAddrV4, TcpListener, TcpStream};

use linerate_io::tcp::zerocopy::receive_mapped;
use linerate_testbed::Testbed;

const TOTAL: u64 = 64 << 20;

fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(2_654_435_761) >> 13) as u8
}

fn run(mtu: u32) -> (u64, u64) {
    // SAFETY: geteuid has no preconditions.
    assert!(
        unsafe { libc::geteuid() } == 0,
        "this test builds network namespaces: run it as root"
    );
    let name = format!("iozc{mtu}");
    // Ctrl-C or SIGTERM to the test run removes this bed too.
    linerate_testbed::tear_down_on_signal().expect("signal handler");
    let bed = Testbed::builder(&name)
        .hosts(["cam", "pc"])
        .link("cam", "pc")
        .mtu(mtu)
        .build()
        .expect("test bench");
    let pc = bed.addr("pc").expect("pc address");
    let listener = bed
        .run_in("pc", None, move || {
            TcpListener::bind(SocketAddrV4::new(pc, 0)).expect("listen")
        })
        .expect("listener in pc");
    let to = match listener.local_addr().expect("addr") {
        std::net::SocketAddr::V4(a) => a,
        other => panic!("not IPv4: {other}"),
    };
    let sender = bed
        .spawn_in("cam", None, move || {
            let mut s = TcpStream::connect(to).expect("connect");
            // Page-aligned chunks of a page multiple, like frame buffers.
            let mut chunk = vec![0u8; 1 << 20];
            let mut at = 0u64;
            while at < TOTAL {
                for (k, b) in chunk.iter_mut().enumerate() {
                    *b = byte_at(at + k as u64);
                }
                s.write_all(&chunk).expect("send");
                at += chunk.len() as u64;
            }
        })
        .expect("sender in cam");
    let (mut stream, _) = listener.accept().expect("accept");
    let mut at = 0u64;
    let mut wrong = 0u64;
    let report = receive_mapped(&mut stream, TOTAL, |piece| {
        for &b in piece {
            if b != byte_at(at) {
                wrong += 1;
            }
            at += 1;
        }
    })
    .expect("the kernel accepts TCP_ZEROCOPY_RECEIVE on a TCP socket");
    sender.join().expect("sender");
    assert_eq!(at, TOTAL, "every byte handed over");
    assert_eq!(wrong, 0, "mapped or copied, the bytes are exact");
    assert_eq!(report.mapped + report.copied, TOTAL);
    eprintln!(
        "MTU {mtu}: {} of {TOTAL} bytes mapped ({:.1}%), {} copied, {} calls",
        report.mapped,
        report.mapped as f64 * 100.0 / TOTAL as f64,
        report.copied,
        report.calls
    );
    (report.mapped, report.copied)
}

#[test]
fn mmap_receive_is_exact_on_veth_at_jumbo_and_page_sized_mss() {
    run(9000);
    run(4148);
}
