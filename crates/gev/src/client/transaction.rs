//! One GVCP command in flight: retries, pending ack, timeout.

use linerate_wire::gvcp::{Ack, AckPacket, AckRepr, Command, CommandRepr};
use linerate_wire::Status;

/// Hands out GVCP request ids: never 0, wrapping from 0xffff back to 1.
#[derive(Debug, Clone)]
pub struct RequestIds {
    next: u16,
}

impl Default for RequestIds {
    fn default() -> Self {
        RequestIds { next: 1 }
    }
}

impl RequestIds {
    /// Starts at `first` (0 is replaced by 1).
    pub fn starting_at(first: u16) -> RequestIds {
        RequestIds { next: first.max(1) }
    }

    /// The next id to use.
    pub fn next_id(&mut self) -> u16 {
        let id = self.next;
        self.next = if id == u16::MAX { 1 } else { id + 1 };
        id
    }
}

/// Why a command did not succeed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// No ack arrived after every retry.
    #[error("GVCP command {command:#06x} (request id {request_id}) got no ack after {attempts} attempts")]
    Timeout {
        /// Command code.
        command: u16,
        /// Request id used for every attempt.
        request_id: u16,
        /// Datagrams sent.
        attempts: u32,
    },
    /// The device answered with an error status.
    #[error("GVCP command {command:#06x} refused by the device: {status}")]
    Refused {
        /// Command code.
        command: u16,
        /// The device's status.
        status: Status,
    },
    /// The command could not be encoded (e.g. too many registers).
    #[error("GVCP command cannot be encoded: {0}")]
    Encode(linerate_wire::Error),
}

/// Retry policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransactionConfig {
    /// Time to wait for an ack before resending, in nanoseconds.
    pub ack_timeout_ns: u64,
    /// Datagrams sent in total before giving up (at least 1).
    pub attempts: u32,
}

impl Default for TransactionConfig {
    /// 200 ms and 3 attempts: a local camera answers in well under a
    /// millisecond, so a lost datagram costs 200 ms, and a device that is
    /// gone is reported after 0.6 s (Aravis: 500 ms × 3).
    fn default() -> Self {
        TransactionConfig {
            ack_timeout_ns: 200_000_000,
            attempts: 3,
        }
    }
}

/// What the caller must do after [`Transaction::poll_transmit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransactionPoll {
    /// Nothing to send before this time (ns), which is also
    /// [`Transaction::poll_timeout`].
    WaitUntil(u64),
    /// Send this datagram again (same request id).
    Resend(Vec<u8>),
    /// The transaction is over: the ack, or why there is none.
    Done(Result<AckRepr, ClientError>),
}

/// One command in flight.
#[derive(Debug, Clone)]
pub struct Transaction {
    config: TransactionConfig,
    command: CommandRepr,
    datagram: Vec<u8>,
    attempts: u32,
    deadline_ns: u64,
    result: Option<Result<AckRepr, ClientError>>,
    ignored: u64,
}

impl Transaction {
    /// Starts `command` with the next id from `ids`; returns the transaction
    /// and the first datagram to send.
    pub fn start(
        command: Command,
        ids: &mut RequestIds,
        config: TransactionConfig,
        now_ns: u64,
    ) -> Result<(Transaction, Vec<u8>), ClientError> {
        let command = CommandRepr::new(command, ids.next_id());
        let datagram = command.to_vec().map_err(ClientError::Encode)?;
        let t = Transaction {
            config: TransactionConfig {
                attempts: config.attempts.max(1),
                ..config
            },
            command,
            datagram: datagram.clone(),
            attempts: 1,
            deadline_ns: now_ns.saturating_add(config.ack_timeout_ns),
            result: None,
            ignored: 0,
        };
        Ok((t, datagram))
    }

    /// The request id this transaction uses.
    pub fn request_id(&self) -> u16 {
        self.command.request_id
    }

    /// Datagrams received that were not this transaction's ack.
    pub fn ignored(&self) -> u64 {
        self.ignored
    }

    /// Feeds a datagram received from the device at `now_ns`.
    pub fn handle_datagram(&mut self, datagram: &[u8], now_ns: u64) {
        if self.result.is_some() {
            return;
        }
        let ack = AckPacket::new_checked(datagram)
            .and_then(|p| AckRepr::parse(&p))
            .ok()
            .filter(|a| a.ack_id == self.command.request_id);
        let Some(ack) = ack else {
            self.ignored += 1;
            return;
        };
        if let Ack::PendingAck {
            time_to_completion_ms,
        } = ack.ack
        {
            // The device is working on it: wait as long as it says, and
            // count this as an answer (no retransmission meanwhile).
            let extra = u64::from(time_to_completion_ms) * 1_000_000;
            self.deadline_ns = now_ns.saturating_add(extra.max(self.config.ack_timeout_ns));
            return;
        }
        self.result = Some(if ack.status.is_error() {
            Err(ClientError::Refused {
                command: self.command.command.code(),
                status: ack.status,
            })
        } else {
            Ok(ack)
        });
    }

    /// When (ns) the transaction next has work (a resend or giving up), or
    /// `None` once it is over.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.result.is_none().then_some(self.deadline_ns)
    }

    /// Advances time to `now_ns`: resend, give up, or report the outcome.
    pub fn poll_transmit(&mut self, now_ns: u64) -> TransactionPoll {
        if let Some(r) = self.result.clone() {
            return TransactionPoll::Done(r);
        }
        if now_ns < self.deadline_ns {
            return TransactionPoll::WaitUntil(self.deadline_ns);
        }
        if self.attempts >= self.config.attempts {
            let e = Err(ClientError::Timeout {
                command: self.command.command.code(),
                request_id: self.command.request_id,
                attempts: self.attempts,
            });
            self.result = Some(e.clone());
            return TransactionPoll::Done(e);
        }
        self.attempts += 1;
        self.deadline_ns = now_ns.saturating_add(self.config.ack_timeout_ns);
        TransactionPoll::Resend(self.datagram.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn ack(id: u16, status: Status, ack: Ack) -> Vec<u8> {
        AckRepr {
            status,
            ack_id: id,
            ack,
        }
        .to_vec()
        .expect("encodes")
    }

    fn read(ids: &mut RequestIds) -> (Transaction, Vec<u8>) {
        Transaction::start(
            Command::ReadReg {
                addresses: vec![0x0a00],
            },
            ids,
            TransactionConfig::default(),
            0,
        )
        .expect("starts")
    }

    #[test]
    fn ids_skip_zero() {
        let mut ids = RequestIds::starting_at(0xfffe);
        assert_eq!(
            [ids.next_id(), ids.next_id(), ids.next_id()],
            [0xfffe, 0xffff, 1]
        );
        assert_eq!(RequestIds::starting_at(0).next_id(), 1);
    }

    #[test]
    fn ack_completes() {
        let mut ids = RequestIds::default();
        let (mut t, first) = read(&mut ids);
        assert_eq!(&first[6..8], &[0, 1]);
        assert_eq!(t.poll_transmit(MS), TransactionPoll::WaitUntil(200 * MS));
        assert_eq!(t.poll_timeout(), Some(200 * MS));
        t.handle_datagram(
            &ack(1, Status::SUCCESS, Ack::ReadReg { values: vec![2] }),
            MS,
        );
        assert!(matches!(
            t.poll_transmit(MS),
            TransactionPoll::Done(Ok(AckRepr {
                ack: Ack::ReadReg { .. },
                ..
            }))
        ));
        assert_eq!(t.poll_timeout(), None, "nothing to wait for once done");
    }

    #[test]
    fn retries_with_the_same_id_then_times_out() {
        let mut ids = RequestIds::default();
        let (mut t, first) = read(&mut ids);
        assert_eq!(
            t.poll_transmit(200 * MS),
            TransactionPoll::Resend(first.clone())
        );
        assert_eq!(t.poll_timeout(), Some(400 * MS));
        assert_eq!(t.poll_transmit(400 * MS), TransactionPoll::Resend(first));
        assert_eq!(
            t.poll_transmit(600 * MS),
            TransactionPoll::Done(Err(ClientError::Timeout {
                command: 0x0080,
                request_id: 1,
                attempts: 3
            }))
        );
    }

    #[test]
    fn pending_ack_extends_the_deadline_and_stale_acks_are_ignored() {
        let mut ids = RequestIds::default();
        let (mut t, _) = read(&mut ids);
        t.handle_datagram(
            &ack(
                1,
                Status::SUCCESS,
                Ack::PendingAck {
                    time_to_completion_ms: 500,
                },
            ),
            100 * MS,
        );
        assert_eq!(
            t.poll_transmit(300 * MS),
            TransactionPoll::WaitUntil(600 * MS)
        );
        t.handle_datagram(
            &ack(9, Status::SUCCESS, Ack::ReadReg { values: vec![1] }),
            310 * MS,
        );
        t.handle_datagram(&[1, 2, 3], 311 * MS);
        assert_eq!(t.ignored(), 2);
        t.handle_datagram(
            &ack(1, Status::ACCESS_DENIED, Ack::ReadReg { values: vec![] }),
            320 * MS,
        );
        assert_eq!(
            t.poll_transmit(330 * MS),
            TransactionPoll::Done(Err(ClientError::Refused {
                command: 0x0080,
                status: Status::ACCESS_DENIED
            }))
        );
    }

    #[test]
    fn unencodable_commands_are_errors() {
        let mut ids = RequestIds::default();
        let r = Transaction::start(
            Command::ReadReg { addresses: vec![] },
            &mut ids,
            TransactionConfig::default(),
            0,
        );
        assert!(matches!(r, Err(ClientError::Encode(_))));
    }
}
