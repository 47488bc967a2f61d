//! Unit tests of the frame bookkeeping that the integration tests cannot see.

use super::*;

#[test]
fn standard_ids_compare_on_the_ring() {
    let mut a = Assembler::new(Config::new(100)).expect("valid");
    let k = |block_id| BlockKey {
        extended: false,
        block_id,
    };
    a.newest = Some(k(65535));
    assert!(a.is_newer(k(1)));
    assert!(!a.is_newer(k(65535)));
    assert!(!a.is_newer(k(65000)));
    a.newest = Some(k(1));
    assert!(!a.is_newer(k(65535)));
    assert!(a.is_newer(k(2)));
    // Far behind means the device restarted its ids.
    a.newest = Some(k(30000));
    assert!(a.is_newer(k(1)));
}

#[test]
fn budget_caps_requests_per_frame() {
    let mut f = Frame::empty();
    f.start(
        BlockKey {
            extended: false,
            block_id: 1,
        },
        0,
        vec![0; 10],
        Vec::new(),
        Some(1),
        0,
    );
    f.note_id(10, Some(5));
    assert_eq!(f.plan_request(4, 100, 3), None);
    assert_eq!(f.plan_request(5, 100, 3), Some((0, 2)));
    assert_eq!(f.plan_request(500, 100, 3), None);
    assert_eq!(f.next_deadline, frame::NEVER);
}

#[test]
fn restart_lets_block_ids_begin_again() {
    let mut a = Assembler::new(Config::new(100)).expect("valid");
    let k = |block_id| BlockKey {
        extended: false,
        block_id,
    };
    a.newest = Some(k(500));
    a.finished[0] = Some(k(1));
    assert!(
        !a.is_newer(k(1)),
        "block 1 is 499 behind: late before the restart"
    );
    a.restart();
    assert!(a.is_newer(k(1)));
    assert!(!a.finished.contains(&Some(k(1))));
}
