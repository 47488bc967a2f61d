//! The host side of GVCP, sans-IO: request ids, retries, pending acks,
//! timeouts and the heartbeat that keeps control of a camera.
//!
//! GVCP is stop-and-wait: a host has one command in flight per device. The
//! [`Transaction`] state machine takes the command, returns the datagram
//! to send, and then consumes received datagrams and the passing of time:
//! it retransmits with the same request id on timeout (so a device can
//! recognise a duplicate), stretches its deadline when the device sends a
//! pending ack, ignores stale or foreign acks, and finally yields the ack or
//! a typed error. [`Heartbeat`] says when a controlling host must send
//! something so the device does not release control.

mod heartbeat;
mod transaction;

pub use heartbeat::Heartbeat;
pub use transaction::{ClientError, RequestIds, Transaction, TransactionConfig, TransactionPoll};
