//! Why a GenTL call failed, as one typed error carrying the offending
//! value; its GenTL code is what the C function returns, its text what
//! `GCGetLastError` gives the same thread afterwards.

use std::cell::RefCell;

use crate::abi::error_code as code;

/// A failed GenTL call.
#[derive(Debug, thiserror::Error)]
pub enum GcError {
    /// A call before `GCInitLib` or after `GCCloseLib`.
    #[error("the producer is not initialised: call GCInitLib first")]
    NotInitialized,
    /// A function or command this producer does not implement.
    #[error("{0} is not implemented by linerate.cti")]
    NotImplemented(String),
    /// A handle that is not (or no longer) an open module of the right kind.
    #[error("handle {handle:#x} is not an open {expected}")]
    InvalidHandle {
        /// The handle given.
        handle: u64,
        /// What kind of handle the function takes.
        expected: &'static str,
    },
    /// An ID naming no module.
    #[error("no {kind} with ID {id:?}")]
    InvalidId {
        /// Interface, device or data stream.
        kind: &'static str,
        /// The ID given.
        id: String,
    },
    /// An index past the end of a list.
    #[error("index {index} is out of range: there are {count}")]
    InvalidIndex {
        /// The index given.
        index: u64,
        /// How many there are.
        count: u64,
    },
    /// A bad parameter: a NULL pointer, an unknown command, a bad size.
    #[error("{0}")]
    InvalidParameter(String),
    /// The caller's buffer cannot hold the answer.
    #[error("the buffer holds {given} bytes; {needed} are needed")]
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes the caller offered.
        given: usize,
    },
    /// The module is open already, or busy.
    #[error("{0}")]
    ResourceInUse(String),
    /// The device refused, or the access mode does not allow it.
    #[error("{0}")]
    AccessDenied(String),
    /// The control connection or the stream failed.
    #[error("{0}")]
    Io(String),
    /// No event within the wait.
    #[error("no new buffer within {0} ms")]
    Timeout(u64),
    /// The wait was ended by `EventKill` or the stream stopping.
    #[error("{0}")]
    Abort(String),
    /// A buffer that cannot be used for this.
    #[error("{0}")]
    InvalidBuffer(String),
    /// Something that does not exist now (no frame in a buffer yet).
    #[error("{0}")]
    NotAvailable(String),
    /// The query has no answer.
    #[error("{0}")]
    NoData(String),
    /// An address outside a port's registers.
    #[error("address {address:#x} (+{len} bytes) is outside this port's registers")]
    InvalidAddress {
        /// The address given.
        address: u64,
        /// Bytes asked for.
        len: usize,
    },
    /// A value out of range for a register of ours.
    #[error("{0}")]
    InvalidValue(String),
    /// A panic inside the producer, caught at the C boundary.
    #[error("internal error in linerate.cti (a panic, caught): {0}")]
    Panic(String),
}

impl GcError {
    /// The `GC_ERROR` code the C function returns.
    pub fn code(&self) -> i32 {
        match self {
            GcError::NotInitialized => code::NOT_INITIALIZED,
            GcError::NotImplemented(_) => code::NOT_IMPLEMENTED,
            GcError::InvalidHandle { .. } => code::INVALID_HANDLE,
            GcError::InvalidId { .. } => code::INVALID_ID,
            GcError::InvalidIndex { .. } => code::INVALID_INDEX,
            GcError::InvalidParameter(_) => code::INVALID_PARAMETER,
            GcError::BufferTooSmall { .. } => code::BUFFER_TOO_SMALL,
            GcError::ResourceInUse(_) => code::RESOURCE_IN_USE,
            GcError::AccessDenied(_) => code::ACCESS_DENIED,
            GcError::Io(_) => code::IO,
            GcError::Timeout(_) => code::TIMEOUT,
            GcError::Abort(_) => code::ABORT,
            GcError::InvalidBuffer(_) => code::INVALID_BUFFER,
            GcError::NotAvailable(_) => code::NOT_AVAILABLE,
            GcError::NoData(_) => code::NO_DATA,
            GcError::InvalidAddress { .. } => code::INVALID_ADDRESS,
            GcError::InvalidValue(_) => code::INVALID_VALUE,
            GcError::Panic(_) => code::ERROR,
        }
    }

    /// A NULL where a pointer is required.
    pub fn null(what: &str) -> GcError {
        GcError::InvalidParameter(format!("{what} is NULL"))
    }

    /// An info or URL command this module does not answer.
    pub fn unknown_command(what: &str, command: i32) -> GcError {
        GcError::InvalidParameter(format!(
            "{what} {command} is not a command this module answers"
        ))
    }
}

/// Results of the producer's calls.
pub type GcResult<T> = Result<T, GcError>;

thread_local! {
    static LAST: RefCell<(i32, String)> = const { RefCell::new((code::SUCCESS, String::new())) };
}

/// Records `error` as this thread's last error (for `GCGetLastError`) and
/// returns its code.
pub fn record(error: &GcError) -> i32 {
    let c = error.code();
    let text = error.to_string();
    LAST.with(|l| *l.borrow_mut() = (c, text));
    c
}

/// This thread's last error: its code and text (`GC_ERR_SUCCESS` and an
/// empty text before any error).
pub fn last() -> (i32, String) {
    LAST.with(|l| l.borrow().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_error_is_per_thread() {
        record(&GcError::Timeout(5));
        let other = std::thread::spawn(last).join().expect("thread ran");
        assert_eq!(other.0, code::SUCCESS);
        assert_eq!(last(), (code::TIMEOUT, "no new buffer within 5 ms".into()));
    }
}
