//! Frame assembler and resend planner, fed with packets exactly as our camera sends them.

use linerate_gev::assembler::{
    Assembler, Config, FrameStatus, IgnoreReason, Placement, ResendRequest, SlotGuess,
    RESYNC_PACKETS,
};
use linerate_gev::block_plan::BlockPlan;
use linerate_wire::gvsp::{
    HeaderRepr, ImageInfo, LeaderInfo, LeaderRepr, PacketFormat, PayloadType, TrailerRepr,
};
use linerate_wire::{PixelFormat, Status};
use proptest::prelude::*;

const DPP: usize = 100;
const MS: u64 = 1_000_000;

fn plan(block_id: u64, extended: bool, len: usize) -> BlockPlan {
    let header = if extended { 20 } else { 8 };
    let leader = LeaderRepr {
        flags: 0,
        payload_type: PayloadType::IMAGE,
        timestamp: 99,
        info: LeaderInfo::Image(ImageInfo {
            pixel_format: PixelFormat::MONO8,
            width: len as u32,
            height: 1,
            ..ImageInfo::default()
        }),
    };
    BlockPlan::new(
        block_id,
        extended,
        28 + header + DPP,
        len,
        leader,
        TrailerRepr::image(1),
    )
    .expect("plans")
}

fn packet(p: &BlockPlan, data: &[u8], id: u32, status: Status) -> Vec<u8> {
    let mut head = [0u8; 128];
    let (n, range) = p.write_head(id, status, &mut head).expect("head");
    let mut v = head[..n].to_vec();
    v.extend_from_slice(&data[range]);
    v
}

fn block(block_id: u64, extended: bool, data: &[u8]) -> Vec<Vec<u8>> {
    let p = plan(block_id, extended, data.len());
    (0..p.packet_count())
        .map(|id| packet(&p, data, id, Status::SUCCESS))
        .collect()
}

fn source(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn config(len: usize) -> Config {
    let mut c = Config::new(len);
    c.min_data_per_packet = 16;
    c
}

fn assembler(len: usize) -> Assembler {
    Assembler::new(config(len)).expect("valid config")
}

fn error_packet(block_id: u64, packet_id: u32, status: Status) -> Vec<u8> {
    let h = HeaderRepr {
        status,
        block_id,
        packet_id,
        format: PacketFormat::Payload,
        extended: false,
        flags: 0,
    };
    let mut v = vec![0u8; 8];
    h.emit(&mut v).expect("emits");
    v
}

#[test]
fn in_order_block_completes_with_the_source_bytes() {
    let data = source(1050, 1);
    let mut a = assembler(4096);
    for (t, p) in block(5, false, &data).iter().enumerate() {
        a.handle_packet(p, t as u64);
    }
    let f = a.poll_frame().expect("delivered");
    assert_eq!(f.status, FrameStatus::Complete);
    assert_eq!(f.block_id, 5);
    assert_eq!(f.data(), &data[..]);
    assert_eq!(f.received_bytes, 1050);
    assert!(f.missing.is_empty());
    assert_eq!(f.timestamp(), Some(99));
    assert_eq!(f.image_info().map(|i| i.width), Some(1050));
    let c = *a.counters();
    assert_eq!(c.frames_completed, 1);
    assert_eq!(c.packets_received, 13);
    assert_eq!(c.bytes_received, 1050);
    assert_eq!(c.packets_ignored + c.packets_duplicate, 0);
    assert_eq!(a.poll_transmit(1_000 * MS), None);
    assert_eq!(a.poll_timeout(), None);
    a.recycle(f);
}

#[test]
fn leader_after_payload_and_trailer_before_the_last_payloads() {
    let data = source(1050, 2);
    let pk = block(9, false, &data);
    // Last (short) payload first, so packet size is learned wrong and fixed up.
    let order = [11usize, 12, 5, 6, 1, 2, 3, 4, 0, 7, 8, 9, 10];
    let mut a = assembler(4096);
    for i in order {
        a.handle_packet(&pk[i], 10);
    }
    let f = a.poll_frame().expect("delivered");
    assert!(f.is_complete());
    assert_eq!(f.data(), &data[..]);
}

#[test]
fn lost_packets_are_requested_merged_and_resends_complete_the_frame() {
    let data = source(1050, 3);
    let p = plan(20, false, data.len());
    let mut c = config(4096);
    c.resend.request_ratio = 1.0;
    let mut a = Assembler::new(c).expect("valid");
    let dropped = [0u32, 3, 4, 5, 8, 11];
    for id in 0..p.packet_count() {
        if !dropped.contains(&id) {
            a.handle_packet(&packet(&p, &data, id, Status::SUCCESS), MS);
        }
    }
    assert!(a.poll_frame().is_none());
    let due = a.poll_timeout().expect("a gap is pending");
    assert_eq!(due, MS + 300_000);
    assert_eq!(a.poll_transmit(due - 1), None);
    let mut reqs = Vec::new();
    while let Some(r) = a.poll_transmit(due) {
        reqs.push((r.first_packet_id, r.last_packet_id));
        assert_eq!(r.block_id, 20);
        assert!(!r.extended);
    }
    assert_eq!(reqs, [(0, 0), (3, 5), (8, 8), (11, 11)]);
    // Not repeated before the repeat timeout, repeated after it.
    assert_eq!(a.poll_transmit(due + 4 * MS), None);
    assert!(a.poll_transmit(due + 5 * MS).is_some());
    for id in dropped {
        a.handle_packet(&packet(&p, &data, id, Status::PACKET_RESEND), due + 6 * MS);
    }
    let f = a.poll_frame().expect("completed");
    assert!(f.is_complete());
    assert_eq!(f.data(), &data[..]);
    let c = a.counters();
    assert_eq!(c.packets_resent, 5); // the leader is not a payload packet
    assert_eq!(c.resend_requests, 5);
    assert!(c.resend_packets_requested >= 6);
}

#[test]
fn unanswered_gaps_deliver_an_incomplete_frame_with_exact_ranges() {
    let data = source(1050, 4);
    let p = plan(30, false, data.len());
    let mut a = assembler(4096);
    for id in 0..p.packet_count() {
        if ![3, 4, 11].contains(&id) {
            a.handle_packet(&packet(&p, &data, id, Status::SUCCESS), 0);
        }
    }
    while a.poll_transmit(MS).is_some() {}
    assert!(a.poll_frame().is_none());
    assert!(a.poll_timeout().is_some_and(|t| t <= 100 * MS));
    a.poll_transmit(100 * MS);
    let f = a.poll_frame().expect("timed out");
    assert_eq!(f.status, FrameStatus::TimedOut);
    assert_eq!(f.missing, vec![200..400, 1000..1050]);
    assert_eq!(f.received_bytes, 1050 - 250);
    assert_eq!(&f.data()[..200], &data[..200]);
    assert_eq!(a.counters().frames_timed_out, 1);
    assert_eq!(a.counters().packets_missing, 3);
    // Late packets for it are ignored.
    let late = packet(&p, &data, 3, Status::PACKET_RESEND);
    assert_eq!(
        a.handle_packet(&late, 101 * MS),
        Placement::Ignored(IgnoreReason::Late)
    );
    assert_eq!(a.counters().packets_late, 1);
}

#[test]
fn unavailable_packets_are_never_requested_again() {
    let data = source(500, 5);
    let p = plan(40, false, data.len());
    let mut a = assembler(4096);
    for id in 0..p.packet_count() {
        if id != 3 {
            a.handle_packet(&packet(&p, &data, id, Status::SUCCESS), 0);
        }
    }
    assert_eq!(
        a.poll_transmit(MS),
        Some(ResendRequest {
            block_id: 40,
            first_packet_id: 3,
            last_packet_id: 3,
            extended: false
        })
    );
    let e = error_packet(40, 3, Status::PACKET_UNAVAILABLE);
    assert!(matches!(
        a.handle_packet(&e, 2 * MS),
        Placement::Error { packet_id: 3, .. }
    ));
    assert_eq!(a.poll_transmit(50 * MS), None);
    assert_eq!(a.counters().packets_unavailable, 1);
    assert_eq!(a.counters().packets_error, 1);
    a.poll_transmit(102 * MS);
    let f = a.poll_frame().expect("timed out");
    assert_eq!(f.missing, vec![200..300]);
}

#[test]
fn standard_block_ids_wrap_from_65535_to_1() {
    let mut a = assembler(4096);
    for (n, id) in [65534u64, 65535, 1, 2].into_iter().enumerate() {
        let data = source(300, n as u8);
        for pk in block(id, false, &data) {
            a.handle_packet(&pk, 0);
        }
        let f = a.poll_frame().expect("delivered");
        assert!(f.is_complete());
        assert_eq!(f.block_id, id);
        assert_eq!(f.data(), &data[..]);
        a.recycle(f);
    }
    let stale = block(65535, false, &source(300, 0));
    assert_eq!(
        a.handle_packet(&stale[1], 0),
        Placement::Ignored(IgnoreReason::Late)
    );
    // Block id 0 is never valid.
    let zero = [0u8, 0, 0, 0, 3, 0, 0, 1, 0xaa];
    assert_eq!(
        a.handle_packet(&zero, 0),
        Placement::Ignored(IgnoreReason::Malformed)
    );
}

#[test]
fn extended_ids_complete_and_request_in_extended_form() {
    let data = source(777, 6);
    let id = (1u64 << 40) + 5;
    let p = plan(id, true, data.len());
    let mut a = assembler(4096);
    for pid in 0..p.packet_count() {
        if pid != 2 {
            a.handle_packet(&packet(&p, &data, pid, Status::SUCCESS), 0);
        }
    }
    let r = a.poll_transmit(MS).expect("request");
    assert_eq!((r.block_id, r.first_packet_id, r.extended), (id, 2, true));
    a.handle_packet(&packet(&p, &data, 2, Status::PACKET_RESEND), MS);
    let f = a.poll_frame().expect("complete");
    assert!(f.is_complete() && f.extended);
    assert_eq!(f.data(), &data[..]);
}

#[test]
fn out_of_bounds_payload_is_ignored_and_counted() {
    let data = source(1050, 7);
    let pk = block(3, false, &data);
    let mut a = assembler(4096);
    a.handle_packet(&pk[0], 0); // leader announces 1050 bytes
    let big = plan(3, false, 4000);
    let far = packet(&big, &source(4000, 0), 20, Status::SUCCESS);
    assert_eq!(
        a.handle_packet(&far, 0),
        Placement::Ignored(IgnoreReason::OutOfBounds)
    );
    // Past the buffer entirely, and past the packet id limit.
    let huge = plan(3, false, 1_000_000);
    let beyond = packet(&huge, &source(1_000_000, 0), 9000, Status::SUCCESS);
    assert_eq!(
        a.handle_packet(&beyond, 0),
        Placement::Ignored(IgnoreReason::OutOfBounds)
    );
    for p in &pk[1..] {
        a.handle_packet(p, 0);
    }
    // After the trailer, ids past it are out of bounds too.
    assert_eq!(a.counters().packets_out_of_bounds, 2);
    let f = a.poll_frame().expect("complete");
    assert!(f.is_complete());
    assert_eq!(f.data(), &data[..]);
}

#[test]
fn too_many_frames_evict_the_oldest_and_no_buffer_is_an_underrun() {
    let mut c = config(4096);
    c.max_frames_in_flight = 2;
    c.buffer_count = 3;
    let mut a = Assembler::new(c).expect("valid");
    let data = source(500, 8);
    // Blocks 1 and 2 lose their trailer; block 3 evicts block 1.
    for id in 1..=3u64 {
        let pk = block(id, false, &data);
        for p in &pk[..pk.len() - 1] {
            a.handle_packet(p, 0);
        }
    }
    let f = a.poll_frame().expect("evicted");
    assert_eq!((f.block_id, f.status), (1, FrameStatus::Evicted));
    assert!(f.missing.is_empty()); // all bytes in; only the trailer is missing
                                   // Never recycled: block 4 finds no buffer.
    let pk = block(4, false, &data);
    assert_eq!(
        a.handle_packet(&pk[0], 0),
        Placement::Ignored(IgnoreReason::NoBuffer)
    );
    assert_eq!(a.counters().underruns, 1);
    assert_eq!(
        a.handle_packet(&pk[1], 0),
        Placement::Ignored(IgnoreReason::Late)
    );
    a.recycle(f);
    let pk = block(5, false, &data);
    for p in &pk {
        a.handle_packet(p, 0);
    }
    a.flush();
    let statuses: Vec<_> = std::iter::from_fn(|| a.poll_frame())
        .map(|f| (f.block_id, f.status))
        .collect();
    assert_eq!(
        statuses,
        [
            (2, FrameStatus::Evicted),
            (5, FrameStatus::Complete),
            (3, FrameStatus::Flushed)
        ]
    );
}

#[test]
fn config_errors_are_typed() {
    let mut c = Config::new(100);
    c.max_frames_in_flight = 0;
    assert!(Assembler::new(c).is_err());
    let mut c = Config::new(100);
    c.resend.request_ratio = f64::NAN;
    assert!(Assembler::new(c).is_err());
    let mut c = Config::new(100);
    c.data_per_packet = Some(0);
    assert!(Assembler::new(c).is_err());
}

fn order_with_duplicates() -> impl Strategy<Value = (usize, Vec<usize>)> {
    (0usize..2500).prop_flat_map(|len| {
        let n = len.div_ceil(DPP) + 2;
        (
            Just(len),
            proptest::collection::vec(0..n, 0..8).prop_flat_map(move |dups| {
                let mut all: Vec<usize> = (0..n).collect();
                all.extend(dups);
                Just(all).prop_shuffle()
            }),
        )
    })
}

fn garbage() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        // Plausible headers with a random body, never for block 7.
        (
            any::<u16>().prop_filter("not block 7", |b| *b != 7),
            0u8..8,
            0u32..64,
            any::<bool>(),
            proptest::collection::vec(any::<u8>(), 0..150),
        )
            .prop_map(|(block, format, pid, resend, body)| {
                let mut v = vec![0u8; 8];
                v[0] = if resend { 1 } else { 0 };
                v[2..4].copy_from_slice(&block.to_be_bytes());
                v[4..8].copy_from_slice(&((u32::from(format) << 24) | pid).to_be_bytes());
                v.extend(body);
                v
            }),
    ]
}

proptest! {
    #[test]
    fn any_order_and_duplicates_complete_identically((len, order) in order_with_duplicates()) {
        let data = source(len, 9);
        let pk = block(7, false, &data);
        let mut a = assembler(4096);
        for i in &order {
            a.handle_packet(&pk[*i], 0);
        }
        let f = a.poll_frame().expect("delivered");
        prop_assert!(f.is_complete());
        prop_assert_eq!(f.data(), &data[..]);
        let c = a.counters();
        prop_assert_eq!(c.packets_duplicate + c.packets_late, (order.len() - pk.len()) as u64);
        prop_assert_eq!(c.bytes_received, len as u64);
    }

    #[test]
    fn complete_if_and_only_if_nothing_was_dropped(
        len in 1usize..2500,
        drops in proptest::collection::vec(any::<bool>(), 30),
        shuffle in any::<bool>(),
    ) {
        let data = source(len, 10);
        let pk = block(7, false, &data);
        let mut a = assembler(4096);
        let mut sent: Vec<usize> = (0..pk.len()).filter(|i| !drops[*i]).collect();
        if shuffle {
            sent.reverse();
        }
        for i in &sent {
            a.handle_packet(&pk[*i], 0);
        }
        a.poll_transmit(200 * MS);
        if sent.is_empty() {
            // Nothing arrived: there is no frame to deliver.
            prop_assert!(a.poll_frame().is_none());
            return Ok(());
        }
        let f = a.poll_frame().expect("delivered by now");
        let dropped_any = sent.len() < pk.len();
        prop_assert_eq!(f.is_complete(), !dropped_any);
        // Missing ranges are exactly the dropped payload packets' bytes, merged.
        let mut expect: Vec<std::ops::Range<usize>> = Vec::new();
        let payload_ids = 1..pk.len() - 1;
        for id in payload_ids.filter(|id| drops.get(*id) == Some(&true)) {
            let r = (id - 1) * DPP..(id * DPP).min(len);
            match expect.last_mut() {
                Some(last) if last.end == r.start => last.end = r.end,
                _ => expect.push(r),
            }
        }
        if !dropped_any {
            prop_assert!(f.missing.is_empty());
        } else {
            // Exact when the data per packet and the frame's extent are knowable.
            let (last, trailer) = (pk.len() - 2, pk.len() - 1);
            let full_seen = (1..last).any(|id| !drops[id]);
            let tail_seen = !drops[last] && !drops[trailer];
            let dpp_known = full_seen || last == 1 || (!drops[0] && tail_seen);
            if dpp_known && (!drops[0] || tail_seen) {
                prop_assert_eq!(&f.missing, &expect);
            }
        }
        // Without leader and last packet the size is known only to a packet.
        for r in f.missing.iter() {
            prop_assert!(r.end <= len.div_ceil(DPP) * DPP);
        }
    }

    #[test]
    fn garbage_never_panics_and_a_valid_block_still_completes(
        junk in proptest::collection::vec(garbage(), 0..40),
        at in any::<proptest::sample::Index>(),
    ) {
        let data = source(1234, 11);
        let pk = block(7, false, &data);
        let mut c = config(4096);
        c.max_frames_in_flight = 64;
        c.buffer_count = 64;
        // Junk may come first: let it start frames anywhere, in the
        // stream's id form, so block 7 is never outside the window.
        c.max_blocks_ahead = u64::MAX;
        c.extended_ids = Some(false);
        let mut a = Assembler::new(c).expect("valid");
        let split = at.index(junk.len() + 1);
        for j in &junk[..split] {
            a.handle_packet(j, 0);
            let _ = a.poll_transmit(0);
        }
        for (i, p) in pk.iter().enumerate() {
            a.handle_packet(p, 0);
            if let Some(j) = junk.get(split + i) {
                a.handle_packet(j, 0);
            }
        }
        for j in junk.iter().skip(split + pk.len()) {
            a.handle_packet(j, 0);
        }
        let _ = a.poll_timeout();
        a.flush();
        let mut found = false;
        while let Some(f) = a.poll_frame() {
            if f.block_id == 7 && !f.extended {
                prop_assert!(f.is_complete());
                prop_assert_eq!(f.data(), &data[..]);
                found = true;
            }
        }
        prop_assert!(found);
    }
}

#[test]
fn lost_trailer_is_requested_once_the_next_block_starts() {
    let mut c = Config::new(1000);
    c.data_per_packet = Some(DPP);
    // Only the next block may reveal the loss here.
    c.resend.tail_timeout_ns = 0;
    let mut a = Assembler::new(c).expect("config");
    let data = source(1000, 1);
    let first = block(1, false, &data);
    let trailer_id = first.len() as u32 - 1;
    for p in &first[..first.len() - 1] {
        a.handle_packet(p, 0);
    }
    // Nothing says the trailer is late until block 2 begins.
    assert_eq!(a.poll_transmit(MS), None);
    let second = block(2, false, &data);
    a.handle_packet(&second[0], MS);
    assert_eq!(
        a.poll_transmit(2 * MS),
        Some(ResendRequest {
            block_id: 1,
            first_packet_id: trailer_id,
            last_packet_id: trailer_id,
            extended: false,
        })
    );
    a.handle_packet(&first[first.len() - 1], 3 * MS);
    let f = a.poll_frame().expect("block 1 delivered");
    assert!(f.is_complete());
    assert_eq!(f.data(), &data[..]);
}

#[test]
fn lost_tail_is_requested_after_a_silence_without_a_next_block() {
    let mut c = Config::new(1000);
    c.data_per_packet = Some(DPP);
    let mut a = Assembler::new(c).expect("config");
    let data = source(1000, 3);
    let first = block(1, false, &data);
    let last_id = first.len() as u32 - 1;
    // Packets 0..=7 arrive 10 µs apart; 8, 9 and the trailer are lost.
    for (i, p) in first[..8].iter().enumerate() {
        a.handle_packet(p, i as u64 * 10_000);
    }
    let last_seen = 70_000;
    assert_eq!(a.poll_transmit(last_seen + MS / 2), None, "too early");
    assert_eq!(
        a.poll_timeout(),
        Some(last_seen + MS),
        "the tail timeout is the next deadline"
    );
    assert_eq!(
        a.poll_transmit(last_seen + MS),
        Some(ResendRequest {
            block_id: 1,
            first_packet_id: 8,
            last_packet_id: last_id,
            extended: false,
        })
    );
    for p in &first[8..] {
        a.handle_packet(p, 2 * MS);
    }
    let f = a.poll_frame().expect("block 1 delivered");
    assert!(f.is_complete());
    assert_eq!(f.data(), &data[..]);
}

#[test]
fn a_slow_sender_is_given_sixteen_packet_gaps_before_its_tail_is_requested() {
    let mut c = Config::new(1000);
    c.data_per_packet = Some(DPP);
    let mut a = Assembler::new(c).expect("config");
    let data = source(1000, 4);
    let first = block(1, false, &data);
    // A line-scan-like sender: one packet every 400 µs.
    let gap = 400_000;
    for (i, p) in first[..6].iter().enumerate() {
        a.handle_packet(p, i as u64 * gap);
    }
    let last_seen = 5 * gap;
    // 5 payload packets over 2 ms: a 400 µs mean gap, so 6.4 ms of silence.
    assert_eq!(a.poll_transmit(last_seen + 6 * MS), None);
    let due = a
        .poll_transmit(last_seen + 6_400_000)
        .expect("tail requested");
    assert_eq!(due.first_packet_id, 6);
}

#[test]
fn a_lost_resend_of_a_long_burst_is_asked_for_again() {
    // 131 packets like a 1 MiB frame of 8000-byte packets; a burst of 60
    // consecutive packets lost, and the first resend of it lost too.
    let len = 129 * DPP;
    let mut c = Config::new(len);
    c.data_per_packet = Some(DPP);
    let mut a = Assembler::new(c).expect("config");
    let data = source(len, 5);
    let first = block(1, false, &data);
    let lost = 40..100u32;
    for (i, p) in first.iter().enumerate() {
        if !lost.contains(&(i as u32)) {
            a.handle_packet(p, i as u64 * 1_000);
        }
    }
    let t0 = 200_000;
    let want = Some(ResendRequest {
        block_id: 1,
        first_packet_id: 40,
        last_packet_id: 99,
        extended: false,
    });
    assert_eq!(a.poll_transmit(t0 + MS), want);
    assert_eq!(a.poll_transmit(t0 + 2 * MS), None, "waits for the answer");
    assert_eq!(a.poll_transmit(t0 + 7 * MS), want, "asked again in full");
    for p in &first[40..100] {
        a.handle_packet(p, t0 + 8 * MS);
    }
    let f = a.poll_frame().expect("delivered");
    assert!(f.is_complete());
    assert_eq!(f.data(), &data[..]);
}

#[test]
fn an_unanswered_tail_request_is_made_again_in_full_and_answers_give_budget_back() {
    // A frame of 131 packets whose camera stopped after packet 35 (a failed
    // send): the tail, 36..=130 with the trailer, is 95 packets. The first
    // request for it is lost; the repeat asks for all of it again, not for
    // what is left of a one-frame budget.
    let len = 129 * DPP;
    let mut c = Config::new(len);
    c.data_per_packet = Some(DPP);
    let mut a = Assembler::new(c).expect("config");
    let data = source(len, 6);
    let first = block(1, false, &data);
    let trailer = first.len() as u32 - 1;
    for (i, p) in first[..36].iter().enumerate() {
        a.handle_packet(p, i as u64 * 1_000);
    }
    let t0 = 35_000;
    let tail = Some(ResendRequest {
        block_id: 1,
        first_packet_id: 36,
        last_packet_id: trailer,
        extended: false,
    });
    assert_eq!(a.poll_transmit(t0 + MS), tail);
    assert_eq!(a.poll_transmit(t0 + 3 * MS), None, "waits for the answer");
    assert_eq!(a.poll_transmit(t0 + 6 * MS), tail, "asked again in full");
    // The answer loses every other packet; the rest is asked for again.
    let p = plan(1, false, len);
    for id in (36..=trailer).step_by(2) {
        a.handle_packet(&packet(&p, &data, id, Status::PACKET_RESEND), t0 + 7 * MS);
    }
    let mut asked = Vec::new();
    while let Some(r) = a.poll_transmit(t0 + 12 * MS) {
        asked.extend(r.first_packet_id..=r.last_packet_id);
    }
    let missing: Vec<u32> = (37..=trailer).step_by(2).collect();
    assert_eq!(asked, missing);
    for &id in &missing {
        a.handle_packet(&packet(&p, &data, id, Status::PACKET_RESEND), t0 + 13 * MS);
    }
    let f = a.poll_frame().expect("delivered");
    assert!(f.is_complete());
    assert_eq!(f.data(), &data[..]);
}

/// `packets` of the block with every data byte flipped: what a forger
/// sending the same ids with other content produces.
fn forged(block_id: u64, data: &[u8]) -> Vec<Vec<u8>> {
    let other: Vec<u8> = data.iter().map(|b| b ^ 0x5a).collect();
    block(block_id, false, &other)
}

#[test]
fn a_forged_payload_placed_first_makes_the_frame_a_conflict_never_complete() {
    let data = source(1050, 2);
    let mut a = assembler(4096);
    let fake = forged(3, &data);
    assert!(matches!(
        a.handle_packet(&fake[2], 0),
        Placement::Payload { block_id: 3, .. }
    ));
    let pk = block(3, false, &data);
    a.handle_packet(&pk[0], 1);
    a.handle_packet(&pk[1], 2);
    assert_eq!(
        a.handle_packet(&pk[2], 3),
        Placement::Conflict {
            block_id: 3,
            packet_id: 2
        }
    );
    let f = a.poll_frame().expect("delivered at once");
    assert_eq!((f.block_id, f.status), (3, FrameStatus::Conflict));
    assert!(!f.is_complete());
    // The rest of the block is late: nothing completes it afterwards.
    for p in &pk[3..] {
        assert_eq!(
            a.handle_packet(p, 4),
            Placement::Ignored(IgnoreReason::Late)
        );
    }
    assert!(a.poll_frame().is_none());
    let c = a.counters();
    assert_eq!((c.frames_conflict, c.packets_conflict), (1, 1));
    assert_eq!((c.frames_completed, c.frames_incomplete), (0, 1));
    assert_eq!(a.poll_transmit(1_000 * MS), None);
}

#[test]
fn a_forged_duplicate_after_the_genuine_packet_is_a_conflict_too() {
    let data = source(1050, 3);
    let mut a = assembler(4096);
    let pk = block(4, false, &data);
    for p in &pk[..5] {
        a.handle_packet(p, 0);
    }
    assert!(matches!(
        a.handle_packet(&forged(4, &data)[3], 1),
        Placement::Conflict { block_id: 4, .. }
    ));
    assert_eq!(
        a.poll_frame().map(|f| f.status),
        Some(FrameStatus::Conflict)
    );
}

#[test]
fn an_identical_duplicate_is_only_a_duplicate() {
    let data = source(1050, 4);
    let mut a = assembler(4096);
    let pk = block(5, false, &data);
    for p in &pk[..4] {
        a.handle_packet(p, 0);
    }
    for p in &pk[..4] {
        assert!(matches!(a.handle_packet(p, 1), Placement::Duplicate { .. }));
    }
    for p in &pk[4..] {
        a.handle_packet(p, 2);
    }
    let f = a.poll_frame().expect("complete");
    assert!(f.is_complete());
    assert_eq!(f.data(), &data[..]);
    assert_eq!(a.counters().packets_duplicate, 4);
    assert_eq!(a.counters().packets_conflict, 0);
}

#[test]
fn a_different_leader_or_trailer_is_a_conflict() {
    let data = source(1050, 5);
    let pk = block(6, false, &data);
    let other = block(6, false, &source(2000, 5));
    // Leader: another image size.
    let mut a = assembler(4096);
    a.handle_packet(&pk[0], 0);
    assert!(matches!(
        a.handle_packet(&other[0], 1),
        Placement::Conflict { packet_id: 0, .. }
    ));
    // Trailer: another packet id.
    let mut a = assembler(4096);
    a.handle_packet(&pk[1], 0);
    a.handle_packet(&pk[pk.len() - 1], 0);
    assert!(matches!(
        a.handle_packet(&other[other.len() - 1], 1),
        Placement::Conflict { .. }
    ));
    assert_eq!(
        a.poll_frame().map(|f| f.status),
        Some(FrameStatus::Conflict)
    );
}

#[test]
fn far_block_ids_get_no_buffer_and_no_resend_request() {
    let data = source(1050, 6);
    let mut a = assembler(4096);
    for p in &block(10, false, &data) {
        a.handle_packet(p, 0);
    }
    let done = a.poll_frame().expect("complete");
    assert!(done.is_complete());
    a.recycle(done);
    let free = a.free_buffer_count();
    // 64 ahead is the default bound; 65 ahead, far ahead and far behind
    // (older than the frames that can be in flight) are outside.
    for far in [75u64, 1000, 40_000, 65_000, 5] {
        let pk = block(far, false, &data);
        for p in &pk[1..4] {
            assert_eq!(
                a.handle_packet(p, MS),
                Placement::Ignored(IgnoreReason::OutOfWindow),
                "block {far}"
            );
        }
    }
    assert_eq!(a.counters().packets_out_of_window, 15);
    assert_eq!(a.free_buffer_count(), free, "a far block took a buffer");
    assert_eq!(a.poll_transmit(50 * MS), None);
    assert!(a.poll_frame().is_none(), "a phantom frame was delivered");
    // Within the window, new blocks still start (74 is 64 ahead).
    for p in &block(74, false, &data) {
        a.handle_packet(p, 60 * MS);
    }
    assert!(a.poll_frame().expect("block 74").is_complete());
    assert_eq!(a.counters().block_id_resyncs, 0);
}

#[test]
fn packets_of_the_other_id_form_are_ignored_and_counted() {
    let data = source(1050, 7);
    // The form the stream negotiated.
    let mut c = config(4096);
    c.extended_ids = Some(false);
    let mut a = Assembler::new(c).expect("valid");
    for p in &block(9, true, &data) {
        assert_eq!(
            a.handle_packet(p, 0),
            Placement::Ignored(IgnoreReason::WrongIdForm)
        );
    }
    for p in &block(9, false, &data) {
        a.handle_packet(p, 0);
    }
    assert!(a.poll_frame().expect("standard block").is_complete());
    // Learned from the first block.
    let mut a = assembler(4096);
    for p in &block(1, true, &data) {
        a.handle_packet(p, 0);
    }
    assert!(a.poll_frame().expect("extended block").is_complete());
    assert_eq!(
        a.handle_packet(&block(2, false, &data)[1], 0),
        Placement::Ignored(IgnoreReason::WrongIdForm)
    );
    assert_eq!(a.counters().packets_wrong_id_form, 1);
    assert!(a.poll_frame().is_none());
}

#[test]
fn a_device_that_restarts_its_ids_is_followed_once_nothing_is_in_flight() {
    let data = source(3000, 8);
    let mut a = assembler(4096);
    for p in &block(500, false, &data) {
        a.handle_packet(p, 0);
    }
    let done = a.poll_frame().expect("block 500");
    a.recycle(done);
    // Block 1 is far behind 500: the first 15 packets are ignored, the
    // 16th moves the window, the rest fill the frame and the dropped ones
    // are requested again.
    let pk = block(1, false, &data);
    for (i, p) in pk.iter().enumerate() {
        let placed = a.handle_packet(p, MS);
        if i + 1 < RESYNC_PACKETS as usize {
            assert_eq!(placed, Placement::Ignored(IgnoreReason::OutOfWindow));
        } else {
            assert!(!matches!(placed, Placement::Ignored(_)), "{i}: {placed:?}");
        }
    }
    assert_eq!(a.counters().block_id_resyncs, 1);
    let r = a
        .poll_transmit(2 * MS)
        .expect("the dropped packets are requested");
    assert_eq!(
        (r.block_id, r.first_packet_id, r.last_packet_id),
        (1, 0, 14)
    );
    for id in 0..=14 {
        let p = plan(1, false, data.len());
        a.handle_packet(&packet(&p, &data, id, Status::PACKET_RESEND), 3 * MS);
    }
    let f = a.poll_frame().expect("block 1");
    assert!(f.is_complete());
    assert_eq!(f.data(), &data[..]);
}

#[test]
fn stray_packets_do_not_move_the_window_while_a_frame_is_in_flight() {
    let data = source(3000, 9);
    let mut a = assembler(4096);
    let pk = block(20, false, &data);
    a.handle_packet(&pk[0], 0);
    // Many packets of one far block while block 20 is in flight.
    let far = block(30_000, false, &data);
    for _ in 0..3 {
        for p in &far[1..] {
            a.handle_packet(p, 0);
        }
    }
    assert_eq!(a.counters().block_id_resyncs, 0);
    for p in &pk[1..] {
        a.handle_packet(p, 0);
    }
    assert!(a.poll_frame().expect("block 20").is_complete());
}

proptest! {
    /// Forged payload packets (same ids, other bytes) mixed anywhere into a
    /// genuine block in any order. The frame ends at the first of: every
    /// packet id present (complete), or an id arriving a second time with
    /// other bytes (conflict). So it is a conflict whenever both copies of
    /// an id arrive before it is complete, and it is complete with forged
    /// bytes only when the forged copies of those ids came first and
    /// nothing genuine for them arrived before the frame was done: the
    /// limit docs/security.md states.
    #[test]
    fn forged_copies_are_conflicts_unless_they_complete_the_frame_first(
        len in 1usize..1500,
        seed in any::<u8>(),
        shuffle in any::<proptest::sample::Index>(),
        picks in proptest::collection::vec(
            (any::<proptest::sample::Index>(), any::<proptest::sample::Index>()),
            0..6,
        ),
    ) {
        let data = source(len, seed);
        let genuine = block(8, false, &data);
        let fake = forged(8, &data);
        let n = genuine.len();
        // (genuine, packet id): the genuine block rotated, forged payload
        // packets inserted anywhere.
        let mut order: Vec<(bool, usize)> = (0..n).map(|id| (true, id)).collect();
        order.rotate_left(shuffle.index(n));
        for (at, id) in &picks {
            let id = 1 + id.index(n - 2);
            order.insert(at.index(order.len() + 1), (false, id));
        }
        // The model: which copy of each id is placed, and how it ends.
        let mut placed: Vec<Option<bool>> = vec![None; n];
        let mut expect = None;
        for &(g, id) in &order {
            match placed[id] {
                Some(was) if was != g => {
                    expect = Some(FrameStatus::Conflict);
                    break;
                }
                Some(_) => {}
                None => placed[id] = Some(g),
            }
            if placed.iter().all(|p| p.is_some()) {
                expect = Some(FrameStatus::Complete);
                break;
            }
        }
        let mut a = assembler(4096);
        for &(g, id) in &order {
            a.handle_packet(if g { &genuine[id] } else { &fake[id] }, 0);
        }
        a.flush();
        let f = a.poll_frame().expect("delivered");
        prop_assert_eq!(Some(f.status), expect);
        if f.is_complete() {
            let all_genuine = placed.iter().all(|p| *p == Some(true));
            prop_assert_eq!(f.data() == &data[..], all_genuine);
        }
        prop_assert!(a.poll_frame().is_none());
    }
}

#[test]
fn a_restarted_device_with_small_frames_is_followed_too() {
    // Three packets a block: the window follows consecutive blocks.
    let data = source(50, 10);
    let mut a = assembler(4096);
    for p in &block(9000, false, &data) {
        a.handle_packet(p, 0);
    }
    assert!(a.poll_frame().expect("block 9000").is_complete());
    let mut complete = Vec::new();
    for id in 1..=10u64 {
        for p in &block(id, false, &data) {
            a.handle_packet(p, id * MS);
        }
        while let Some(f) = a.poll_frame() {
            if f.is_complete() {
                complete.push(f.block_id);
            }
        }
    }
    assert_eq!(a.counters().block_id_resyncs, 1);
    // Blocks 1 to 5 (15 packets) are dropped; block 6's leader is the
    // 16th packet in a row and starts it: 6 to 10 complete.
    assert_eq!(complete, [6, 7, 8, 9, 10]);
    // Random far ids never add up to a resync.
    for id in [20_000u64, 40_000, 60_000, 30_000, 50_000, 10_000] {
        for p in &block(id, false, &data) {
            a.handle_packet(p, 20 * MS);
        }
    }
    assert_eq!(a.counters().block_id_resyncs, 1);
}

#[test]
fn a_forged_frame_that_completes_first_is_complete_but_the_cameras_copies_are_counted() {
    // The limit: every packet forged before any genuine one.
    let data = source(1050, 11);
    let mut a = assembler(4096);
    for p in &forged(12, &data) {
        a.handle_packet(p, 0);
    }
    let f = a.poll_frame().expect("forged frame");
    assert!(f.is_complete());
    assert_ne!(f.data(), &data[..]);
    let pk = block(12, false, &data);
    for p in &pk {
        assert_eq!(
            a.handle_packet(p, MS),
            Placement::Ignored(IgnoreReason::Late)
        );
    }
    // The camera's copies are the hint; a late resend answer is not.
    assert_eq!(a.counters().packets_after_complete, pk.len() as u64);
    let p = plan(12, false, data.len());
    a.handle_packet(&packet(&p, &data, 3, Status::PACKET_RESEND), 2 * MS);
    assert_eq!(a.counters().packets_after_complete, pk.len() as u64);
    assert_eq!(a.counters().packets_late, pk.len() as u64 + 1);
}

/// A receive backend writes a predicted packet's data into the slot the
/// assembler lends and records it without a copy; the frame completes with
/// the source bytes, and a slot already filled is not lent again.
#[test]
fn lent_slots_take_data_in_place() {
    let data = source(1050, 3);
    let p = plan(9, false, data.len());
    let mut a = assembler(4096);
    for id in 0..4 {
        a.handle_packet(&packet(&p, &data, id, Status::SUCCESS), u64::from(id));
    }
    let mut guesses = Vec::new();
    assert!(a.guess_slots(&mut guesses, 4) > 0);
    let g = guesses[0].expect("the next payload packet");
    assert_eq!((g.block_id, g.packet_id, g.offset, g.len), (9, 4, 300, DPP));
    let filled = linerate_gev::assembler::SlotGuess {
        packet_id: 3,
        offset: 200,
        ..g
    };
    assert!(a.slot_mut(&filled).is_none(), "packet 3 arrived already");
    a.slot_mut(&g)
        .expect("lent")
        .copy_from_slice(&data[300..400]);
    let mut head = [0u8; 128];
    let (n, range) = p.write_head(4, Status::SUCCESS, &mut head).expect("head");
    assert_eq!(range.len(), DPP);
    let placed = a.handle_placed_payload(&g, &head[..n], DPP, 4);
    assert!(matches!(
        placed,
        Some(Placement::Payload { offset: 300, .. })
    ));
    for id in 5..p.packet_count() {
        a.handle_packet(&packet(&p, &data, id, Status::SUCCESS), u64::from(id));
    }
    let f = a.poll_frame().expect("delivered");
    assert_eq!(f.status, FrameStatus::Complete);
    assert_eq!(f.data(), &data[..]);
}

#[test]
fn a_frame_larger_than_the_buffers_is_never_complete() {
    // The camera sends 1500 bytes into buffers of 1000: the packets past
    // the buffer's end are ignored, and the frame, short of them, must be
    // delivered incomplete, never as complete. (Its `missing` list covers
    // the buffer only, so it is empty here: the bytes that did not fit
    // have no place in it.)
    let data = source(1500, 3);
    let pk = block(4, false, &data);
    let mut a = assembler(1000);
    for p in &pk {
        a.handle_packet(p, 0);
    }
    assert!(a.counters().packets_out_of_bounds > 0);
    let f = loop {
        if let Some(f) = a.poll_frame() {
            break f;
        }
        // Resend requests go unanswered until the frame times out.
        let at = a
            .poll_timeout()
            .expect("an unfinished frame has a deadline");
        while a.poll_transmit(at).is_some() {}
    };
    assert!(!f.is_complete(), "{:?}", f.status);
    assert_eq!(a.counters().frames_completed, 0);
    assert_eq!(a.counters().frames_incomplete, 1);
    // What the buffer holds is the frame's first bytes, intact.
    assert_eq!(f.data(), &data[..1000]);
}

#[test]
fn progress_inside_a_packet_keeps_its_frame_past_the_retention() {
    let data = source(1050, 3);
    let packets = block(7, false, &data);
    let run = |progress: bool| {
        let mut c = config(4096);
        c.resend.enabled = false;
        let mut a = Assembler::new(c).expect("valid config");
        // Leader and the first payload packet at 0 ms.
        a.handle_packet(&packets[0], 0);
        a.handle_packet(&packets[1], 0);
        let guess = SlotGuess {
            block_id: 7,
            extended: false,
            packet_id: 2,
            offset: DPP,
            len: DPP,
        };
        // Packet 2's bytes trickle in every 50 ms for 400 ms.
        for t in (50..=400).step_by(50) {
            if progress {
                a.handle_progress(&guess, t * MS);
            }
            assert_eq!(a.poll_transmit(t * MS), None);
        }
        for (t, p) in packets.iter().enumerate().skip(2) {
            a.handle_packet(p, 401 * MS + t as u64);
        }
        a.poll_frame().expect("delivered")
    };
    let alive = run(true);
    assert_eq!(alive.status, FrameStatus::Complete);
    assert_eq!(alive.data(), &data[..]);
    let silent = run(false);
    assert_eq!(silent.status, FrameStatus::TimedOut, "100 ms retention");
    // Progress on a block not in flight changes nothing and never panics.
    let mut a = assembler(4096);
    a.handle_progress(
        &SlotGuess {
            block_id: 9,
            extended: true,
            packet_id: u32::MAX,
            offset: usize::MAX,
            len: 0,
        },
        u64::MAX,
    );
    assert_eq!(a.poll_frame().map(|f| f.block_id), None);
}
