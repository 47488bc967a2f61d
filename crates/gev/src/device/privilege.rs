//! Control channel privilege (CCP register 0x0a00) and the heartbeat that keeps it.
//!
//! One host at a time, the *primary application*, may write to the device.
//! It is identified by its IP address **and** UDP port, as the standard
//! says: a second socket on the same machine is another application. It
//! takes control by writing the control (0x2) or exclusive (0x1) bit to CCP
//! while nobody holds it, keeps it by sending any GVCP command at least once
//! per heartbeat timeout, and gives it up by writing 0 (or, for Aravis, with
//! its "bye" command). Control switchover is not supported, so the switchover
//! enable bit and key are ignored and a second host's CCP write is refused.

use core::net::SocketAddrV4;

use linerate_wire::Status;

use super::registers::bootstrap::ccp;

/// The level of control the primary application holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Privilege {
    /// Control access: other hosts may still read registers and memory.
    Control,
    /// Exclusive access: other hosts may neither read nor write (discovery
    /// still works, so the device stays visible).
    Exclusive,
}

impl Privilege {
    /// The CCP register bits that name this privilege.
    pub const fn ccp_bits(self) -> u32 {
        match self {
            Privilege::Control => ccp::CONTROL_ACCESS,
            Privilege::Exclusive => ccp::EXCLUSIVE_ACCESS,
        }
    }

    /// The privilege a CCP write asks for; exclusive wins when both bits are set.
    pub const fn from_ccp(value: u32) -> Option<Privilege> {
        if value & ccp::EXCLUSIVE_ACCESS != 0 {
            Some(Privilege::Exclusive)
        } else if value & ccp::CONTROL_ACCESS != 0 {
            Some(Privilege::Control)
        } else {
            None
        }
    }
}

/// Why the primary application lost control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlLossReason {
    /// It wrote 0 to the CCP register.
    Released,
    /// It sent Aravis's "bye" (command 0x0004 with no payload).
    Bye,
    /// Nothing arrived from it within the heartbeat timeout.
    HeartbeatExpired,
}

/// The current primary application.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Controller {
    pub addr: SocketAddrV4,
    pub privilege: Privilege,
    /// When it was last heard, in nanoseconds on the caller's clock.
    pub last_heard: u64,
}

/// What a CCP write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CcpOutcome {
    /// Nothing changed (0 written while nobody held control, or the same privilege again).
    Unchanged,
    /// The writer became the primary application.
    Granted(Privilege),
    /// The primary application switched between control and exclusive access.
    Changed(Privilege),
    /// The primary application gave control up.
    Released,
}

/// Who holds control, and since when we last heard from them.
#[derive(Debug, Clone, Default)]
pub(crate) struct ControlChannel {
    controller: Option<Controller>,
}

impl ControlChannel {
    /// The primary application, if any.
    pub fn controller(&self) -> Option<&Controller> {
        self.controller.as_ref()
    }

    /// The CCP register value every host reads.
    pub fn ccp_value(&self) -> u32 {
        self.controller.map_or(0, |c| c.privilege.ccp_bits())
    }

    /// `from` is the primary application.
    pub fn is_controller(&self, from: SocketAddrV4) -> bool {
        self.controller.is_some_and(|c| c.addr == from)
    }

    /// `from` may read: anyone, unless another host holds exclusive access.
    pub fn may_read(&self, from: SocketAddrV4) -> bool {
        match self.controller {
            Some(c) if c.privilege == Privilege::Exclusive => c.addr == from,
            _ => true,
        }
    }

    /// Records traffic from `from`; only the primary application's traffic
    /// counts as a heartbeat.
    pub fn heard_from(&mut self, from: SocketAddrV4, now: u64) {
        if let Some(c) = self.controller.as_mut() {
            if c.addr == from && now > c.last_heard {
                c.last_heard = now;
            }
        }
    }

    /// When control expires (ns), given the heartbeat timeout in ns (`None`: disabled).
    pub fn deadline(&self, timeout: Option<u64>) -> Option<u64> {
        let c = self.controller?;
        c.last_heard.checked_add(timeout?)
    }

    /// Handles a CCP write by `from` at `now`.
    pub fn write(
        &mut self,
        value: u32,
        from: SocketAddrV4,
        now: u64,
    ) -> Result<CcpOutcome, Status> {
        let wanted = Privilege::from_ccp(value);
        match (self.controller.as_mut(), wanted) {
            (None, None) => Ok(CcpOutcome::Unchanged),
            (None, Some(privilege)) => {
                self.controller = Some(Controller {
                    addr: from,
                    privilege,
                    last_heard: now,
                });
                Ok(CcpOutcome::Granted(privilege))
            }
            (Some(c), _) if c.addr != from => Err(Status::ACCESS_DENIED),
            (Some(_), None) => {
                self.controller = None;
                Ok(CcpOutcome::Released)
            }
            (Some(c), Some(privilege)) if c.privilege == privilege => Ok(CcpOutcome::Unchanged),
            (Some(c), Some(privilege)) => {
                c.privilege = privilege;
                Ok(CcpOutcome::Changed(privilege))
            }
        }
    }

    /// Drops the primary application, returning who it was.
    pub fn release(&mut self) -> Option<SocketAddrV4> {
        self.controller.take().map(|c| c.addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const SEC: u64 = 1_000 * MS;

    fn host(port: u16) -> SocketAddrV4 {
        SocketAddrV4::new([10, 0, 0, 2].into(), port)
    }

    #[test]
    fn grant_deny_release() {
        let mut ch = ControlChannel::default();
        let t = SEC;
        assert_eq!(ch.write(0, host(1), t), Ok(CcpOutcome::Unchanged));
        assert_eq!(
            ch.write(ccp::CONTROL_ACCESS, host(1), t),
            Ok(CcpOutcome::Granted(Privilege::Control))
        );
        assert_eq!(ch.ccp_value(), ccp::CONTROL_ACCESS);
        assert_eq!(
            ch.write(ccp::CONTROL_ACCESS, host(2), t),
            Err(Status::ACCESS_DENIED),
            "same IP, other port: another application"
        );
        assert_eq!(ch.write(0, host(2), t), Err(Status::ACCESS_DENIED));
        assert!(ch.may_read(host(2)));
        assert_eq!(
            ch.write(0x3, host(1), t),
            Ok(CcpOutcome::Changed(Privilege::Exclusive))
        );
        assert!(!ch.may_read(host(2)));
        assert!(ch.may_read(host(1)));
        assert_eq!(ch.write(0x4, host(1), t), Ok(CcpOutcome::Released));
        assert_eq!(ch.ccp_value(), 0);
    }

    #[test]
    fn heartbeat_deadline() {
        let mut ch = ControlChannel::default();
        let timeout = Some(3000 * MS);
        assert_eq!(ch.deadline(timeout), None);
        assert!(ch.write(2, host(1), 10 * SEC).is_ok());
        assert_eq!(ch.deadline(timeout), Some(13_000 * MS));
        ch.heard_from(host(2), 11 * SEC);
        assert_eq!(ch.deadline(timeout), Some(13_000 * MS));
        ch.heard_from(host(1), 12 * SEC);
        assert_eq!(ch.deadline(timeout), Some(15_000 * MS));
        ch.heard_from(host(1), 5 * SEC);
        assert_eq!(
            ch.deadline(timeout),
            Some(15_000 * MS),
            "time going backwards does not shorten control"
        );
        assert_eq!(ch.deadline(None), None);
        assert_eq!(ch.release(), Some(host(1)));
    }
}
