//! What the running camera has to say besides its counters: who took
//! control, where a stream goes, a TCP link that broke. A library must not
//! print, so these reach whoever started the camera through an
//! [`EventSink`]; the CLI writes them to stderr as `camera: <event>`.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::Arc;
use std::time::Duration;

use linerate_gev::device::ControlLossReason;

use super::CameraInfo;

/// One thing the camera reports while it runs. Its `Display` is the
/// sentence a person reads (without a "camera: " prefix).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CameraEvent {
    /// A FORCEIP moved the camera: it now answers at `info.control`
    /// (its counters restart there).
    Moved {
        /// Where it answers now, and how it streams from there.
        info: CameraInfo,
        /// The subnet mask the FORCEIP gave.
        subnet_mask: Ipv4Addr,
        /// The gateway the FORCEIP gave.
        gateway: Ipv4Addr,
    },
    /// A FORCEIP to an address no interface of this host has: discovery
    /// reports it, but the camera still answers at `answering_at`.
    ForcedAddressNotLocal {
        /// The address the FORCEIP gave.
        ip: Ipv4Addr,
        /// Its subnet mask.
        subnet_mask: Ipv4Addr,
        /// Where the camera still answers.
        answering_at: Ipv4Addr,
    },
    /// A host took control (CCP).
    ControlGranted {
        /// The controlling application's address and port.
        controller: SocketAddrV4,
    },
    /// The controlling host lost control (heartbeat timeout, release).
    ControlLost {
        /// Who held control.
        controller: SocketAddrV4,
        /// Why it was lost.
        reason: ControlLossReason,
    },
    /// The first command refused because it came from the controlling
    /// host's address on another UDP port (later ones are only counted).
    ForeignPortRefused {
        /// The sender.
        from: SocketAddrV4,
    },
    /// A GVCP reply could not be sent.
    ReplyFailed {
        /// Where it should have gone.
        to: SocketAddrV4,
        /// The socket error, in words.
        error: String,
    },
    /// Acquisition started while no stream destination was set.
    NoStreamDestination,
    /// The stream socket could not be connected to the destination, so
    /// every datagram carries its address.
    StreamNotConnected {
        /// The socket error, in words.
        error: String,
    },
    /// How a UDP stream's datagrams leave, when that changed.
    StreamEgress {
        /// Where the stream goes.
        destination: SocketAddrV4,
        /// GSO or one by one, and why ([`super::describe_egress`]).
        description: String,
    },
    /// Packets could not be sent (at most one of these every five
    /// seconds; the report counts them all).
    SendFailed {
        /// What failed, in words.
        message: String,
    },
    /// The TCP stream connected to the host.
    TcpConnected {
        /// The camera's end.
        local: SocketAddrV4,
        /// The host's end.
        destination: SocketAddrV4,
        /// The link sends with MSG_ZEROCOPY.
        zerocopy: bool,
    },
    /// The TCP stream could not connect (said once per acquisition).
    TcpConnectFailed {
        /// The error, in words.
        error: String,
        /// How often it is tried again.
        retry: Duration,
    },
    /// The kernel kept a zerocopy frame too long; the link was reset.
    TcpZerocopyStalled,
    /// The TCP stream broke while sending.
    TcpLost {
        /// The error, in words.
        error: String,
    },
}

impl fmt::Display for CameraEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CameraEvent::Moved {
                info,
                subnet_mask,
                gateway,
            } => write!(
                f,
                "FORCEIP: now answering at {} (mask {subnet_mask}, gateway {gateway})",
                info.control
            ),
            CameraEvent::ForcedAddressNotLocal {
                ip,
                subnet_mask,
                answering_at,
            } => write!(
                f,
                "FORCEIP to {ip}/{subnet_mask}: discovery reports it now; still answering at \
                 {answering_at} until an interface of this host has {ip}"
            ),
            CameraEvent::ControlGranted { controller } => write!(f, "{controller} took control"),
            CameraEvent::ControlLost { controller, reason } => {
                write!(f, "{controller} lost control ({reason:?})")
            }
            CameraEvent::ForeignPortRefused { from } => write!(
                f,
                "refused a command from {from}: the controlling host's address on another UDP \
                 port (a second program there, or a forgery); counting the rest"
            ),
            CameraEvent::ReplyFailed { to, error } => {
                write!(f, "send GVCP reply to {to}: {error}")
            }
            CameraEvent::NoStreamDestination => write!(
                f,
                "acquisition started with no stream destination (SCDA/SCP unset); not streaming"
            ),
            CameraEvent::StreamNotConnected { error } => {
                write!(f, "{error}; sending with an address per packet")
            }
            CameraEvent::StreamEgress {
                destination,
                description,
            } => write!(f, "stream to {destination}: {description}"),
            CameraEvent::SendFailed { message } => f.write_str(message),
            CameraEvent::TcpConnected {
                local,
                destination,
                zerocopy,
            } => write!(
                f,
                "TCP stream connected {local} -> {destination}{}",
                if *zerocopy { " (MSG_ZEROCOPY)" } else { "" }
            ),
            CameraEvent::TcpConnectFailed { error, retry } => write!(
                f,
                "TCP stream: {error}; retrying every {retry:?} while acquiring"
            ),
            CameraEvent::TcpZerocopyStalled => write!(
                f,
                "TCP stream: the kernel held a frame for zerocopy too long; resetting the connection"
            ),
            CameraEvent::TcpLost { error } => write!(f, "TCP stream lost: {error}"),
        }
    }
}

/// Where a camera's [`CameraEvent`]s go: a function called on the
/// camera's own threads (keep it short; it must not block), or nowhere
/// (the default).
#[derive(Clone, Default)]
pub struct EventSink(Option<Arc<EventFn>>);

/// The function an [`EventSink`] calls.
type EventFn = dyn Fn(&CameraEvent) + Send + Sync;

impl EventSink {
    /// Sends every event to `f`.
    pub fn new(f: impl Fn(&CameraEvent) + Send + Sync + 'static) -> EventSink {
        EventSink(Some(Arc::new(f)))
    }

    /// Hands `event` to the function, if there is one.
    pub(crate) fn emit(&self, event: CameraEvent) {
        if let Some(f) = &self.0 {
            f(&event);
        }
    }
}

impl fmt::Debug for EventSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "EventSink(fn)"
        } else {
            "EventSink(none)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_as_sentences_with_their_values() {
        let controller = SocketAddrV4::new(Ipv4Addr::new(169, 254, 0, 2), 50000);
        assert_eq!(
            CameraEvent::ControlGranted { controller }.to_string(),
            "169.254.0.2:50000 took control"
        );
        let forced = CameraEvent::ForcedAddressNotLocal {
            ip: Ipv4Addr::new(169, 254, 7, 7),
            subnet_mask: Ipv4Addr::new(255, 255, 0, 0),
            answering_at: Ipv4Addr::new(169, 254, 0, 1),
        };
        let text = forced.to_string();
        assert!(text.contains("169.254.7.7/255.255.0.0"), "{text}");
        assert!(text.contains("still answering at 169.254.0.1"), "{text}");
    }

    #[test]
    fn a_sink_hands_events_to_its_function_and_the_default_drops_them() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = EventSink::new({
            let seen = Arc::clone(&seen);
            move |e| seen.lock().expect("lock").push(e.clone())
        });
        sink.emit(CameraEvent::NoStreamDestination);
        EventSink::default().emit(CameraEvent::TcpZerocopyStalled);
        assert_eq!(
            *seen.lock().expect("lock"),
            vec![CameraEvent::NoStreamDestination]
        );
    }
}
