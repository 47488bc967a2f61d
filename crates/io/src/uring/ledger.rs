//! Bookkeeping of io_uring zero-copy sends (`IORING_OP_SEND_ZC`), without I/O.
//!
//! A zero-copy send completes twice: a *result* CQE tells how many bytes the
//! socket took (or the error), and, when that CQE carries
//! `IORING_CQE_F_MORE`, a later *notification* CQE (`IORING_CQE_F_NOTIF`)
//! tells that the kernel no longer reads the pages. Only then may the bytes'
//! frame slot be reused. This ledger turns CQEs into what the server needs:
//! bytes accepted per client (to advance its stream), how far each client's
//! stream may be forgotten (to release slots), and, per slot, whether any
//! send, including one of a client already cut loose, still holds it.
//!
//! One send per client is in flight at a time: two sends queued on one TCP
//! socket could interleave their bytes if the first came back short.

use std::collections::{HashMap, VecDeque};

/// Identifies a client (the caller's id, e.g. the hub's).
pub type ClientId = u64;

/// `user_data` reserved for cancel requests (sends use ids from 1).
pub const CANCEL_USER_DATA: u64 = 0;

/// `IORING_CQE_F_MORE`: a notification CQE follows this one.
pub const CQE_F_MORE: u32 = 1 << 1;
/// `IORING_CQE_F_NOTIF`: this CQE is a zero-copy notification.
pub const CQE_F_NOTIF: u32 = 1 << 3;
/// `IORING_NOTIF_USAGE_ZC_COPIED`: in a notification's result, the kernel
/// copied the bytes after all (asked for with `IORING_SEND_ZC_REPORT_USAGE`).
pub const NOTIF_USAGE_ZC_COPIED: i32 = i32::MIN;

/// Why a send could not be recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    /// The client is unknown or already cut loose.
    #[error("client {0} is not an active io_uring client")]
    NoClient(ClientId),
    /// The client already has a send in flight or too many unreleased ones.
    #[error("client {client} cannot take another send now ({unreleased} sends not yet released)")]
    Busy {
        /// The client.
        client: ClientId,
        /// Its sends whose pages the kernel may still read.
        unreleased: usize,
    },
    /// The slot is past the pool.
    #[error("slot {0} is past the frame pool")]
    NoSlot(usize),
}

/// What one CQE meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// The socket took `bytes` of the `asked` bytes (fewer: a short send,
    /// the rest must be sent again).
    Sent {
        /// The client.
        client: ClientId,
        /// Bytes taken.
        bytes: usize,
        /// Bytes the send asked for.
        asked: usize,
    },
    /// The send failed; the client should be cut loose with this error.
    Failed {
        /// The client.
        client: ClientId,
        /// The positive errno.
        errno: i32,
    },
    /// A notification: the kernel is done with a send's pages.
    Released {
        /// The client.
        client: ClientId,
    },
    /// A CQE of a cut-loose client, of a cancel request, or unknown.
    Ignored,
}

/// Counters of one client's io_uring sends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LedgerCounters {
    /// Send SQEs queued.
    pub sends: u64,
    /// Result CQEs that took fewer bytes than asked.
    pub short_sends: u64,
    /// Notifications received.
    pub notifs: u64,
    /// Of those, how many said the kernel copied after all.
    pub copied: u64,
}

#[derive(Debug)]
struct Op {
    id: u64,
    slot: usize,
    /// Stream position of the send's first byte.
    start: u64,
    asked: usize,
    result: bool,
    /// Whether a notification is still due (unknown until the result).
    notif_due: bool,
    notif: bool,
}

impl Op {
    fn done(&self) -> bool {
        self.result && (self.notif || !self.notif_due)
    }
}

#[derive(Debug, Default)]
struct Client {
    /// Bytes the socket took so far.
    pos: u64,
    /// Sends not yet released, oldest first.
    ops: VecDeque<Op>,
    in_flight: Option<u64>,
    retired: bool,
    counters: LedgerCounters,
}

/// The io_uring send bookkeeping of all clients; bounded by
/// `max_unreleased` sends per client.
#[derive(Debug)]
pub struct SendLedger {
    clients: HashMap<ClientId, Client>,
    /// Send id → client.
    ops: HashMap<u64, ClientId>,
    /// Per slot: sends whose pages the kernel may still read.
    holds: Vec<u32>,
    next_id: u64,
    max_unreleased: usize,
}

impl SendLedger {
    /// A ledger for a pool of `slots` slots, allowing each client at most
    /// `max_unreleased` (at least 1) sends the kernel has not released.
    pub fn new(slots: usize, max_unreleased: usize) -> SendLedger {
        SendLedger {
            clients: HashMap::new(),
            ops: HashMap::new(),
            holds: vec![0; slots],
            next_id: CANCEL_USER_DATA + 1,
            max_unreleased: max_unreleased.max(1),
        }
    }

    /// Starts tracking a client (a no-op if it is known).
    pub fn add_client(&mut self, client: ClientId) {
        self.clients.entry(client).or_default();
    }

    /// Whether `client` may get a send now: active, nothing in flight, and
    /// fewer than the limit of unreleased sends.
    pub fn can_send(&self, client: ClientId) -> bool {
        self.clients.get(&client).is_some_and(|c| {
            !c.retired && c.in_flight.is_none() && c.ops.len() < self.max_unreleased
        })
    }

    /// Records a send of `len` bytes from `slot` continuing `client`'s
    /// stream; returns the id to put in the SQE's `user_data`.
    pub fn begin_send(
        &mut self,
        client: ClientId,
        slot: usize,
        len: usize,
    ) -> Result<u64, LedgerError> {
        if slot >= self.holds.len() {
            return Err(LedgerError::NoSlot(slot));
        }
        let max = self.max_unreleased;
        let c = self
            .clients
            .get_mut(&client)
            .filter(|c| !c.retired)
            .ok_or(LedgerError::NoClient(client))?;
        if c.in_flight.is_some() || c.ops.len() >= max {
            return Err(LedgerError::Busy {
                client,
                unreleased: c.ops.len(),
            });
        }
        let id = self.next_id;
        self.next_id += 1;
        c.ops.push_back(Op {
            id,
            slot,
            start: c.pos,
            asked: len,
            result: false,
            notif_due: true,
            notif: false,
        });
        c.in_flight = Some(id);
        c.counters.sends += 1;
        self.ops.insert(id, client);
        self.holds[slot] += 1;
        Ok(id)
    }

    /// Takes one CQE (`user_data`, `res`, `flags`).
    pub fn complete(&mut self, user_data: u64, res: i32, flags: u32) -> Completion {
        let Some(&client) = self.ops.get(&user_data) else {
            return Completion::Ignored;
        };
        let Some(c) = self.clients.get_mut(&client) else {
            self.ops.remove(&user_data);
            return Completion::Ignored;
        };
        let Some(op) = c.ops.iter_mut().find(|o| o.id == user_data) else {
            self.ops.remove(&user_data);
            return Completion::Ignored;
        };
        let event = if flags & CQE_F_NOTIF != 0 {
            op.notif = true;
            c.counters.notifs += 1;
            if res & NOTIF_USAGE_ZC_COPIED != 0 {
                c.counters.copied += 1;
            }
            Completion::Released { client }
        } else {
            op.result = true;
            op.notif_due = flags & CQE_F_MORE != 0;
            if c.in_flight == Some(user_data) {
                c.in_flight = None;
            }
            // EAGAIN: the socket took nothing; send again later.
            let res = if res == -libc::EAGAIN { 0 } else { res };
            if res >= 0 {
                let bytes = (res as usize).min(op.asked);
                if bytes < op.asked {
                    c.counters.short_sends += 1;
                }
                c.pos += bytes as u64;
                Completion::Sent {
                    client,
                    bytes,
                    asked: op.asked,
                }
            } else {
                Completion::Failed {
                    client,
                    errno: -res,
                }
            }
        };
        let (slot, done) = (op.slot, op.done());
        if done {
            self.ops.remove(&user_data);
            self.holds[slot] = self.holds[slot].saturating_sub(1);
        }
        // Forget finished sends at the front; a retired client whose sends
        // are all finished is gone.
        while c.ops.front().is_some_and(Op::done) {
            c.ops.pop_front();
        }
        let retired = c.retired;
        if retired && c.ops.iter().all(Op::done) {
            self.clients.remove(&client);
        }
        if retired {
            return Completion::Ignored;
        }
        event
    }

    /// How far `client`'s stream may be forgotten: every byte before the
    /// returned position was taken by the socket and its pages released.
    pub fn released(&self, client: ClientId) -> Option<u64> {
        let c = self.clients.get(&client)?;
        Some(c.ops.iter().find(|o| !o.done()).map_or(c.pos, |o| o.start))
    }

    /// Bytes `client`'s socket took so far.
    pub fn position(&self, client: ClientId) -> Option<u64> {
        self.clients.get(&client).map(|c| c.pos)
    }

    /// A client's counters.
    pub fn counters(&self, client: ClientId) -> Option<LedgerCounters> {
        self.clients.get(&client).map(|c| c.counters)
    }

    /// Cuts `client` loose: it gets no more sends; returns the id of its
    /// send in flight (to cancel). Its sends keep their slots held until
    /// their notifications arrive, then the client is forgotten.
    pub fn retire(&mut self, client: ClientId) -> Option<u64> {
        let c = self.clients.get_mut(&client)?;
        c.retired = true;
        let in_flight = c.in_flight;
        if c.ops.iter().all(Op::done) {
            self.clients.remove(&client);
        }
        in_flight
    }

    /// Whether any send (of any client, retired or not) may still read `slot`.
    pub fn slot_held(&self, slot: usize) -> bool {
        self.holds.get(slot).is_some_and(|&h| h > 0)
    }

    /// Sends whose pages the kernel may still read, all clients.
    pub fn unreleased(&self) -> usize {
        self.ops.len()
    }

    /// Clients tracked, including retired ones still waiting for notifications.
    pub fn tracked_clients(&self) -> usize {
        self.clients.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MORE: u32 = CQE_F_MORE;
    const NOTIF: u32 = CQE_F_NOTIF;

    #[test]
    fn a_slot_is_held_until_the_notification_not_the_result() {
        let mut l = SendLedger::new(4, 8);
        l.add_client(1);
        let id = l.begin_send(1, 2, 1000).expect("send");
        assert!(l.slot_held(2));
        assert!(!l.can_send(1), "one send in flight per client");
        assert_eq!(
            l.complete(id, 1000, MORE),
            Completion::Sent {
                client: 1,
                bytes: 1000,
                asked: 1000
            }
        );
        assert_eq!(l.position(1), Some(1000));
        assert_eq!(l.released(1), Some(0), "pages not released yet");
        assert!(l.slot_held(2));
        assert!(l.can_send(1));
        assert_eq!(l.complete(id, 0, NOTIF), Completion::Released { client: 1 });
        assert_eq!(l.released(1), Some(1000));
        assert!(!l.slot_held(2));
        assert_eq!(l.unreleased(), 0);
    }

    #[test]
    fn a_notification_before_its_result_still_waits_for_the_result() {
        let mut l = SendLedger::new(2, 8);
        l.add_client(7);
        let id = l.begin_send(7, 0, 500).expect("send");
        assert_eq!(l.complete(id, 0, NOTIF), Completion::Released { client: 7 });
        assert!(l.slot_held(0));
        assert_eq!(l.released(7), Some(0));
        l.complete(id, 500, MORE);
        assert!(!l.slot_held(0));
        assert_eq!(l.released(7), Some(500));
    }

    #[test]
    fn a_short_send_advances_by_what_was_taken() {
        let mut l = SendLedger::new(2, 8);
        l.add_client(1);
        let a = l.begin_send(1, 0, 1000).expect("send");
        assert_eq!(
            l.complete(a, 300, MORE),
            Completion::Sent {
                client: 1,
                bytes: 300,
                asked: 1000
            }
        );
        let b = l.begin_send(1, 0, 700).expect("rest");
        l.complete(b, 700, MORE);
        assert_eq!(l.position(1), Some(1000));
        // Notifications out of order: released only up to the first unreleased send.
        l.complete(b, 0, NOTIF);
        assert_eq!(l.released(1), Some(0));
        assert!(l.slot_held(0));
        l.complete(a, 0, NOTIF);
        assert_eq!(l.released(1), Some(1000));
        assert!(!l.slot_held(0));
        assert_eq!(l.counters(1).expect("client").short_sends, 1);
        // EAGAIN counts as nothing taken, not as an error.
        let c = l.begin_send(1, 1, 10).expect("send");
        assert_eq!(
            l.complete(c, -libc::EAGAIN, 0),
            Completion::Sent {
                client: 1,
                bytes: 0,
                asked: 10
            }
        );
        assert!(!l.slot_held(1), "no notification due without F_MORE");
    }

    #[test]
    fn an_error_cuts_the_client_and_its_notification_still_counts() {
        let mut l = SendLedger::new(2, 8);
        l.add_client(3);
        let id = l.begin_send(3, 1, 100).expect("send");
        assert_eq!(
            l.complete(id, -libc::ECONNRESET, MORE),
            Completion::Failed {
                client: 3,
                errno: libc::ECONNRESET
            }
        );
        assert!(l.slot_held(1), "a notification is still due");
        assert_eq!(l.retire(3), None, "nothing in flight");
        assert!(l.slot_held(1));
        assert_eq!(l.complete(id, 0, NOTIF), Completion::Ignored);
        assert!(!l.slot_held(1));
        assert_eq!(l.tracked_clients(), 0);
    }

    #[test]
    fn a_retired_client_holds_its_slots_until_every_notification() {
        let mut l = SendLedger::new(4, 8);
        l.add_client(1);
        l.add_client(2);
        let a = l.begin_send(1, 0, 100).expect("send");
        l.complete(a, 100, MORE);
        let b = l.begin_send(1, 1, 100).expect("send");
        let other = l.begin_send(2, 1, 100).expect("send");
        assert_eq!(
            l.retire(1),
            Some(b),
            "the send in flight is to be cancelled"
        );
        assert!(!l.can_send(1));
        assert_eq!(
            l.begin_send(1, 2, 10),
            Err(LedgerError::NoClient(1)),
            "no sends after retiring"
        );
        // The cancelled send's result, then both notifications.
        assert_eq!(l.complete(b, -libc::ECANCELED, MORE), Completion::Ignored);
        assert!(l.slot_held(0) && l.slot_held(1));
        assert_eq!(l.complete(a, 0, NOTIF), Completion::Ignored);
        assert!(!l.slot_held(0));
        assert!(l.slot_held(1));
        assert_eq!(l.complete(b, 0, NOTIF), Completion::Ignored);
        assert!(l.slot_held(1), "client 2 still holds slot 1");
        assert_eq!(l.tracked_clients(), 1);
        l.complete(other, 100, MORE);
        l.complete(other, 0, NOTIF);
        assert!(!l.slot_held(1));
        // A cancelled send without F_MORE needs no notification.
        let c = l.begin_send(2, 3, 10).expect("send");
        assert_eq!(l.retire(2), Some(c));
        l.complete(c, -libc::ECANCELED, 0);
        assert!(!l.slot_held(3));
        assert_eq!(l.tracked_clients(), 0);
    }

    #[test]
    fn limits_and_foreign_cqes() {
        let mut l = SendLedger::new(2, 2);
        l.add_client(1);
        assert_eq!(l.begin_send(1, 5, 10), Err(LedgerError::NoSlot(5)));
        assert_eq!(l.begin_send(9, 0, 10), Err(LedgerError::NoClient(9)));
        let a = l.begin_send(1, 0, 10).expect("send");
        assert!(matches!(
            l.begin_send(1, 0, 10),
            Err(LedgerError::Busy { .. })
        ));
        l.complete(a, 10, MORE);
        let b = l.begin_send(1, 0, 10).expect("send");
        l.complete(b, 10, MORE);
        assert!(!l.can_send(1), "two unreleased sends is the limit");
        assert!(matches!(
            l.begin_send(1, 0, 10),
            Err(LedgerError::Busy { unreleased: 2, .. })
        ));
        assert_eq!(l.complete(CANCEL_USER_DATA, 0, 0), Completion::Ignored);
        assert_eq!(l.complete(12345, 0, 0), Completion::Ignored);
        l.complete(a, NOTIF_USAGE_ZC_COPIED, NOTIF);
        assert!(l.can_send(1));
        let k = l.counters(1).expect("client");
        assert_eq!((k.sends, k.notifs, k.copied), (2, 1, 1));
    }
}
