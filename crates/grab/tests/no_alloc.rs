//! The grab API allocates nothing per frame once running: a counting global
//! allocator watches a stream on loopback, buffers lent and returned, for
//! every receive backend that needs no privileges.

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::{Ipv4Addr, UdpSocket};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use linerate_gev::assembler::Config;
use linerate_grab::receive::{Backend, ReceiveConfig};
use linerate_grab::stream::{Buffer, Stream, StreamConfig};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator and only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

mod common;

use common::{frame_packets, FRAME, PACKET_SIZE};

/// Every datagram of frames `first..first + count`, built before measuring.
fn frames(first: u64, count: u64) -> Vec<Vec<Vec<u8>>> {
    (first..first + count).map(frame_packets).collect()
}

/// Allocations (anywhere in the process) while 100 frames stream, after a warm-up.
fn allocations_per_frame(backend: Backend) -> u64 {
    let camera = UdpSocket::bind("127.0.0.2:0").expect("camera socket");
    let mut receive = ReceiveConfig::new(Ipv4Addr::LOCALHOST, Ipv4Addr::new(127, 0, 0, 2), FRAME);
    receive.backend = backend;
    receive.recv_buffer = 4 << 20;
    let mut assembler = Config::new(FRAME);
    assembler.data_per_packet = Some(PACKET_SIZE - 28 - 8);
    assembler.max_frames_in_flight = 2;
    let stream = Stream::start(
        StreamConfig {
            receive,
            assembler,
            max_buffers: 4,
            cpu: None,
        },
        None,
        None,
    )
    .expect("stream");
    for _ in 0..4 {
        stream.queue(Buffer::new(FRAME)).expect("queue");
    }
    let to = (Ipv4Addr::LOCALHOST, stream.port());
    let warm = frames(1, 30);
    let measured = frames(31, 100);
    let run = |frames: &[Vec<Vec<u8>>]| {
        for frame in frames {
            for packet in frame {
                camera.send_to(packet, to).expect("send");
            }
            let b = stream.wait(Duration::from_secs(2)).expect("frame");
            // Paced so the window spans the receive thread's periodic work
            // (counters every 5 ms, the kernel drop count every 250 ms).
            std::thread::sleep(Duration::from_millis(8));
            assert!(b.is_complete(), "block {} incomplete", b.info().block_id);
            stream.queue(b).expect("requeue");
        }
    };
    run(&warm);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    run(&measured);
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    after - before
}

#[test]
fn steady_streaming_allocates_nothing_per_frame() {
    for backend in [Backend::Copy, Backend::Mmsg] {
        let total = allocations_per_frame(backend);
        assert_eq!(total, 0, "{backend}: {total} allocations over 100 frames");
    }
}
