//! What a camera and the stream opened from it share: the control
//! connection, lent to the stream while it runs and given back when it
//! closes, and the stream's state, which the camera reads to route feature
//! access. Kept apart so that the camera and the stream modules each use
//! this one and never each other both ways.

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use linerate_grab::session::{Acquisition, GrabReport};
use linerate_grab::Camera as GrabCamera;

/// The camera connection: here, lent to a stream (`camera` is None
/// meanwhile, and features go through the stream), or closed for good.
pub struct Connection {
    /// The control connection, when it is here.
    pub camera: Option<GrabCamera>,
    /// The stream that holds the connection, while one does.
    pub streaming: Weak<Mutex<State>>,
    /// `close()` was called: a stream that ends does not bring the
    /// connection back.
    pub closed: bool,
}

/// The camera connection, shared with the stream that borrows it.
pub type Slot = Arc<Mutex<Connection>>;

/// Locks `m` (the camera connection, an emulator's or a readout's
/// state), whatever a panic elsewhere left in it.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Running until closed, then the final report.
pub enum State {
    Running(Box<Acquisition>),
    Closed(Box<GrabReport>),
}

/// Locks a stream's state, whatever a panic elsewhere left in it.
pub fn lock_state(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}
