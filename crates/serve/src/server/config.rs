//! What a frame server serves and how: the plain settings of
//! [`super::spawn`], with the defaults `linerate serve` uses.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::PathBuf;
use std::time::Duration;

use linerate_io::fanout::Method;
use linerate_wire::served::{HEADER_LEN, MAX_FRAME_LEN};

use super::error::ServeError;

/// Where the server's frames come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum FrameSource {
    /// A self-checking test pattern, almost free to make: what a client
    /// verifies without knowing the source.
    #[default]
    Pattern,
    /// A file whose consecutive `frame_size` chunks are the frames, read
    /// again from the start at its end (recorded data played back).
    File(PathBuf),
}

/// The settings of one frame server. Every field has the default
/// `linerate serve` uses, so a caller names only what it changes.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to listen on (TCP, and UDP with `udp` or `multicast`);
    /// port 0 lets the kernel choose (see [`super::ServerHandle::address`]).
    pub bind: SocketAddrV4,
    /// Where frames come from.
    pub source: FrameSource,
    /// Frames per second, above 0 and at most 100000.
    pub fps: f64,
    /// Payload bytes per frame (a 40-byte header precedes each), 8 bytes
    /// to 64 MiB.
    pub frame_size: usize,
    /// How frames reach the TCP sockets.
    pub method: Method,
    /// Most clients at once; more are refused (closed at once).
    pub max_clients: usize,
    /// Most TCP clients from one IP address at once, so one host cannot
    /// take every place.
    pub max_clients_per_source: usize,
    /// Frame slots shared by all clients: the server's whole frame memory
    /// is slots × (frame size + header).
    pub slots: usize,
    /// Frames a client may have waiting; a slow client loses its oldest
    /// waiting frame beyond this.
    pub queue: usize,
    /// How long a client may have frames waiting and take none before it
    /// is cut loose, above 0 and at most an hour.
    pub stall_timeout: Duration,
    /// Socket send buffer per client in bytes (0: the kernel autotunes).
    pub send_buffer: usize,
    /// Also serve UDP subscribers (off unless asked for: a UDP server can
    /// be made to send to addresses that never asked).
    pub udp: bool,
    /// UDP datagram size (40-byte header + piece), 41 to 65507.
    pub datagram_size: usize,
    /// Most UDP traffic to all subscribers together, in Mbit/s.
    pub udp_max_rate_mbit: f64,
    /// Most UDP subscribers from one IP address.
    pub udp_per_source: usize,
    /// How long a UDP subscriber stays subscribed without renewing.
    pub udp_expiry: Duration,
    /// Also send every frame's datagrams once to this multicast group (at
    /// the bind port, out of the bind address's interface, TTL 1); must be
    /// in 239.0.0.0/8.
    pub multicast: Option<Ipv4Addr>,
    /// Stop by itself after this long (None: until
    /// [`super::ServerHandle::stop`]).
    pub duration: Option<Duration>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: SocketAddrV4::new(Ipv4Addr::LOCALHOST, 5600),
            source: FrameSource::Pattern,
            fps: 30.0,
            frame_size: 256 * 1024,
            method: Method::Zerocopy,
            max_clients: 64,
            max_clients_per_source: 32,
            slots: 32,
            queue: 4,
            stall_timeout: Duration::from_secs(3),
            send_buffer: 0,
            udp: false,
            datagram_size: 1472,
            udp_max_rate_mbit: 1000.0,
            udp_per_source: 8,
            udp_expiry: Duration::from_secs(5),
            multicast: None,
            duration: None,
        }
    }
}

impl ServerConfig {
    /// Bits per second one UDP subscriber receives: every frame's payload
    /// plus, per datagram, the 40-byte header and 28 bytes of IP and UDP.
    pub fn udp_subscriber_bps(&self) -> f64 {
        let chunk = self.datagram_size.saturating_sub(HEADER_LEN).max(1);
        let datagrams = self.frame_size.div_ceil(chunk).max(1);
        (self.frame_size + datagrams * (HEADER_LEN + 28)) as f64 * 8.0 * self.fps
    }

    /// Most UDP subscribers: `max_clients`, or fewer where that many
    /// streams would pass `udp_max_rate_mbit`.
    pub fn udp_max_subscribers(&self) -> usize {
        let by_rate = (self.udp_max_rate_mbit * 1e6 / self.udp_subscriber_bps()).floor();
        self.max_clients.min(by_rate as usize)
    }

    /// Checks every setting before anything is opened, so a bad value is
    /// named rather than failing deep inside the loop.
    pub fn validate(&self) -> Result<(), ServeError> {
        let bad = |setting: &'static str, value: String, rule: &'static str| {
            Err(ServeError::Config {
                setting,
                value,
                rule,
            })
        };
        if !(self.fps > 0.0 && self.fps <= 100_000.0) {
            return bad("fps", self.fps.to_string(), "above 0 and at most 100000");
        }
        if self.frame_size < 8 || self.frame_size > MAX_FRAME_LEN as usize {
            return bad(
                "frame_size",
                self.frame_size.to_string(),
                "8 bytes to 64 MiB",
            );
        }
        if !(41..=65_507).contains(&self.datagram_size) {
            return bad(
                "datagram_size",
                self.datagram_size.to_string(),
                "41 to 65507 bytes",
            );
        }
        if let Some(g) = self.multicast.filter(|g| g.octets()[0] != 239) {
            return bad(
                "multicast",
                g.to_string(),
                "an administratively scoped group in 239.0.0.0/8",
            );
        }
        for (setting, value) in [
            ("max_clients", self.max_clients),
            ("max_clients_per_source", self.max_clients_per_source),
            ("queue", self.queue),
        ] {
            if value == 0 {
                return bad(setting, "0".into(), "at least 1");
            }
        }
        if self.slots < 2 {
            return bad("slots", self.slots.to_string(), "at least 2");
        }
        if self.stall_timeout.is_zero() || self.stall_timeout > Duration::from_secs(3600) {
            return bad(
                "stall_timeout",
                format!("{:?}", self.stall_timeout),
                "above 0 and at most 3600 seconds",
            );
        }
        if self.udp_expiry.is_zero() {
            return bad("udp_expiry", "0".into(), "above 0");
        }
        if self.udp {
            if !(self.udp_max_rate_mbit > 0.0 && self.udp_max_rate_mbit.is_finite()) {
                return bad(
                    "udp_max_rate_mbit",
                    self.udp_max_rate_mbit.to_string(),
                    "a positive number of Mbit/s",
                );
            }
            if self.udp_per_source == 0 {
                return bad("udp_per_source", "0".into(), "at least 1");
            }
            if self.udp_max_subscribers() == 0 {
                return bad(
                    "udp_max_rate_mbit",
                    self.udp_max_rate_mbit.to_string(),
                    "at least one UDP subscriber's rate",
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid() {
        ServerConfig::default().validate().expect("defaults");
    }

    #[test]
    fn a_group_outside_239_is_named() {
        let c = ServerConfig {
            multicast: Some(Ipv4Addr::new(224, 0, 0, 5)),
            ..ServerConfig::default()
        };
        let e = c.validate().expect_err("224.0.0.5");
        assert!(e.to_string().contains("224.0.0.5"), "{e}");
    }

    #[test]
    fn a_rate_cap_below_one_subscriber_is_refused() {
        let c = ServerConfig {
            udp: true,
            udp_max_rate_mbit: 1.0,
            ..ServerConfig::default()
        };
        assert_eq!(c.udp_max_subscribers(), 0);
        assert!(c.validate().is_err());
    }
}
