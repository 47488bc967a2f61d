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
    assert_eq!(a.position(k(1)), Position::Ahead);
    assert_eq!(a.position(k(64)), Position::Ahead);
    assert_eq!(a.position(k(65)), Position::Outside);
    assert_eq!(a.position(k(65535)), Position::Behind);
    assert_eq!(a.position(k(65531)), Position::Behind);
    assert_eq!(a.position(k(65530)), Position::Outside);
    a.newest = Some(k(1));
    assert_eq!(a.position(k(65535)), Position::Behind);
    assert_eq!(a.position(k(2)), Position::Ahead);
    // Far behind or far ahead: outside the window.
    a.newest = Some(k(30000));
    assert_eq!(a.position(k(1)), Position::Outside);
    assert_eq!(a.position(k(30065)), Position::Outside);
    // The other id form is outside too.
    assert_eq!(
        a.position(BlockKey {
            extended: true,
            block_id: 30001
        }),
        Position::Outside
    );
}

#[test]
fn extended_ids_window_wraps_at_64_bits() {
    let mut a = Assembler::new(Config::new(100)).expect("valid");
    let k = |block_id| BlockKey {
        extended: true,
        block_id,
    };
    a.newest = Some(k(u64::MAX));
    assert_eq!(a.position(k(63)), Position::Ahead);
    assert_eq!(a.position(k(64)), Position::Outside);
    assert_eq!(a.position(k(u64::MAX - 4)), Position::Behind);
    assert_eq!(a.position(k(1 << 40)), Position::Outside);
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
        vec![0; 10].into(),
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
    assert_eq!(
        a.position(k(1)),
        Position::Outside,
        "block 1 is 499 behind: outside the window before the restart"
    );
    a.restart();
    assert_eq!(a.position(k(1)), Position::Ahead);
    assert!(!a.finished.contains(&Some(k(1))));
}
