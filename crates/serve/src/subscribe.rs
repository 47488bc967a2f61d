//! UDP subscriptions with a return-routability handshake (docs/serve.md).
//!
//! UDP has no handshake of its own, so anyone can send a subscription with
//! someone else's source address; a server that believed it would send a
//! victim the whole stream (a reflection amplifier). Here a subscriber gets
//! frames only after it has echoed, from its own address and port, a cookie
//! the server sent there:
//!
//! 1. client → server: Hello; server → client: Challenge(cookie);
//! 2. client → server: Join(cookie), then again at least every second to
//!    renew; Leave(cookie) to stop.
//!
//! The cookie is a keyed hash (SipHash-2-4, 128 bits, a random key per
//! server process) of the address, port and a time epoch, so the server
//! keeps nothing per Hello: a flood of Hellos costs no memory, and each is
//! answered by one Challenge of the Hello's own size (no amplification).
//! A cookie is good for the epoch it was made in and the next one; a Join
//! with an older cookie, or a bad one, is answered by a fresh Challenge.
//!
//! Confirmed subscribers are bounded in number, per source address and by
//! the total rate the caller allows; one whose address answers ICMP
//! unreachable is dropped ([`Subscriptions::handle_unreachable`]).

use std::collections::{HashMap, VecDeque};
use std::hash::Hasher;
use std::net::SocketAddrV4;

use linerate_wire::served::{Cookie, SubscribeMessage, SubscribeRepr, SUBSCRIBE_LEN};
use siphasher::sip128::{Hasher128, SipHasher24};

use crate::error::{Error, Result};

/// Limits and keys of a [`Subscriptions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscriptionConfig {
    /// The secret cookie key: random per server process.
    pub key: [u8; 16],
    /// Length of a cookie epoch in ns (a cookie lives one to two epochs).
    pub epoch_ns: u64,
    /// A subscriber that does not renew within this many ns is dropped.
    pub expiry_ns: u64,
    /// Most subscribers at once (the caller derives it from the total rate
    /// it allows and the stream's rate, and its client limit).
    pub max_subscribers: usize,
    /// Most subscribers from one IP address.
    pub max_per_source: usize,
}

/// How a subscription ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The subscriber sent Leave.
    Left,
    /// It stopped renewing.
    Expired,
    /// Its address answered with an ICMP error (port or host unreachable).
    Unreachable,
}

impl End {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            End::Left => "left",
            End::Expired => "expired",
            End::Unreachable => "unreachable",
        }
    }
}

/// A change in the set of subscribers, for the caller's books.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A new confirmed subscriber: send it frames from now on.
    Joined(SocketAddrV4),
    /// A subscriber is gone: send it nothing more.
    Ended(SocketAddrV4, End),
}

/// Counters of a [`Subscriptions`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SubscriptionCounters {
    /// Challenges sent (answers to Hellos and to Joins with a stale or
    /// bad cookie).
    pub challenges: u64,
    /// Joins and Leaves whose cookie was not valid for their source.
    pub bad_cookies: u64,
    /// Datagrams that were no valid subscription message.
    pub invalid: u64,
    /// Confirmed Joins refused because the server had its most subscribers
    /// (or its total UDP rate) already.
    pub refused_full: u64,
    /// Confirmed Joins refused because their address had its most subscribers.
    pub refused_per_source: u64,
}

/// The server's UDP subscribers: a sans-IO state machine fed with the
/// datagrams that arrive, ICMP errors and the time.
#[derive(Debug)]
pub struct Subscriptions {
    config: SubscriptionConfig,
    /// Confirmed subscribers and when each last renewed (ns).
    subs: HashMap<SocketAddrV4, u64>,
    events: VecDeque<Event>,
    counters: SubscriptionCounters,
}

impl Subscriptions {
    /// Subscriptions with `config`'s limits; refuses a zero epoch or expiry.
    pub fn new(config: SubscriptionConfig) -> Result<Subscriptions> {
        if config.epoch_ns == 0 || config.expiry_ns == 0 {
            return Err(Error::BadConfig {
                what: "subscription epoch or expiry (ns)",
                value: config.epoch_ns.min(config.expiry_ns),
                rule: "above 0",
            });
        }
        Ok(Subscriptions {
            config,
            subs: HashMap::new(),
            events: VecDeque::new(),
            counters: SubscriptionCounters::default(),
        })
    }

    fn cookie_for(&self, addr: SocketAddrV4, epoch: u64) -> Cookie {
        let mut h = SipHasher24::new_with_key(&self.config.key);
        h.write(&epoch.to_be_bytes());
        h.write(&addr.ip().octets());
        h.write(&addr.port().to_be_bytes());
        h.finish128().as_bytes()
    }

    /// The cookie `addr` gets at `now_ns`.
    pub fn cookie(&self, addr: SocketAddrV4, now_ns: u64) -> Cookie {
        self.cookie_for(addr, now_ns / self.config.epoch_ns)
    }

    /// Whether `cookie` is `addr`'s cookie of this epoch (Some(true)) or
    /// of the one before (Some(false)), compared in constant time.
    fn check(&self, addr: SocketAddrV4, cookie: &Cookie, now_ns: u64) -> Option<bool> {
        let same = |a: Cookie| a.iter().zip(cookie).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0;
        let epoch = now_ns / self.config.epoch_ns;
        if same(self.cookie_for(addr, epoch)) {
            Some(true)
        } else if epoch > 0 && same(self.cookie_for(addr, epoch - 1)) {
            Some(false)
        } else {
            None
        }
    }

    fn challenge(&mut self, addr: SocketAddrV4, now_ns: u64) -> [u8; SUBSCRIBE_LEN] {
        self.counters.challenges += 1;
        SubscribeRepr::Challenge(self.cookie(addr, now_ns)).to_bytes()
    }

    /// Takes one datagram from `from`; returns the reply to send back to
    /// `from`, if any (never longer than the datagram).
    pub fn handle_datagram(
        &mut self,
        from: SocketAddrV4,
        datagram: &[u8],
        now_ns: u64,
    ) -> Option<[u8; SUBSCRIBE_LEN]> {
        let Ok(msg) =
            SubscribeMessage::new_checked(datagram).and_then(|m| SubscribeRepr::parse(&m))
        else {
            self.counters.invalid += 1;
            return None;
        };
        match msg {
            SubscribeRepr::Hello => Some(self.challenge(from, now_ns)),
            SubscribeRepr::Challenge(_) => {
                self.counters.invalid += 1;
                None
            }
            SubscribeRepr::Join(cookie) => match self.check(from, &cookie, now_ns) {
                Some(current) => {
                    self.join(from, now_ns);
                    // A cookie of the last epoch still works; hand out
                    // this epoch's before it runs out.
                    (!current).then(|| self.challenge(from, now_ns))
                }
                None => {
                    self.counters.bad_cookies += 1;
                    Some(self.challenge(from, now_ns))
                }
            },
            SubscribeRepr::Leave(cookie) => {
                if self.check(from, &cookie, now_ns).is_some() {
                    self.end(from, End::Left);
                } else {
                    self.counters.bad_cookies += 1;
                }
                None
            }
        }
    }

    fn join(&mut self, from: SocketAddrV4, now_ns: u64) {
        if let Some(seen) = self.subs.get_mut(&from) {
            *seen = now_ns;
            return;
        }
        if self.subs.len() >= self.config.max_subscribers {
            self.counters.refused_full += 1;
            return;
        }
        let same_source = self.subs.keys().filter(|a| a.ip() == from.ip()).count();
        if same_source >= self.config.max_per_source {
            self.counters.refused_per_source += 1;
            return;
        }
        self.subs.insert(from, now_ns);
        self.events.push_back(Event::Joined(from));
    }

    fn end(&mut self, addr: SocketAddrV4, why: End) {
        if self.subs.remove(&addr).is_some() {
            self.events.push_back(Event::Ended(addr, why));
        }
    }

    /// An ICMP error came back for a datagram sent to `dest`: it is
    /// dropped at once (a subscriber that is still there renews within a
    /// second with its cookie and is back).
    pub fn handle_unreachable(&mut self, dest: SocketAddrV4) {
        self.end(dest, End::Unreachable);
    }

    /// Drops subscribers that did not renew within the expiry time.
    pub fn handle_timeout(&mut self, now_ns: u64) {
        let expiry = self.config.expiry_ns;
        let old: Vec<SocketAddrV4> = self
            .subs
            .iter()
            .filter(|(_, &seen)| now_ns.saturating_sub(seen) >= expiry)
            .map(|(a, _)| *a)
            .collect();
        for a in old {
            self.end(a, End::Expired);
        }
    }

    /// When (ns) [`Self::handle_timeout`] next has work: the moment the
    /// subscriber that renewed longest ago expires, or `None` with no
    /// subscriber.
    pub fn poll_timeout(&self) -> Option<u64> {
        let oldest = self.subs.values().min()?;
        Some(oldest.saturating_add(self.config.expiry_ns))
    }

    /// The next change in the set of subscribers, oldest first.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Confirmed subscribers now.
    pub fn len(&self) -> usize {
        self.subs.len()
    }

    /// Whether there is no confirmed subscriber.
    pub fn is_empty(&self) -> bool {
        self.subs.is_empty()
    }

    /// Counters so far.
    pub fn counters(&self) -> SubscriptionCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn subs(max: usize, per_source: usize) -> Subscriptions {
        Subscriptions::new(SubscriptionConfig {
            key: [9; 16],
            epoch_ns: 30 * S,
            expiry_ns: 5 * S,
            max_subscribers: max,
            max_per_source: per_source,
        })
        .expect("config")
    }

    fn addr(last: u8, port: u16) -> SocketAddrV4 {
        SocketAddrV4::new([169, 254, 1, last].into(), port)
    }

    /// Runs the handshake from `a` at `now`; returns the cookie.
    fn handshake(s: &mut Subscriptions, a: SocketAddrV4, now: u64) -> Cookie {
        let reply = s
            .handle_datagram(a, &SubscribeRepr::Hello.to_bytes(), now)
            .expect("challenge");
        let m = SubscribeMessage::new_checked(&reply[..]).expect("view");
        let SubscribeRepr::Challenge(cookie) = SubscribeRepr::parse(&m).expect("parses") else {
            panic!("not a challenge")
        };
        assert_eq!(
            s.handle_datagram(a, &SubscribeRepr::Join(cookie).to_bytes(), now),
            None
        );
        cookie
    }

    #[test]
    fn only_an_echoed_cookie_subscribes_and_hellos_cost_nothing() {
        let mut s = subs(8, 8);
        let victim = addr(9, 5000);
        // A flood of spoofed Hellos and forged Joins from the victim's
        // address: each answered by one message of its own size, nobody
        // subscribed, nothing kept.
        for i in 0..1000u32 {
            let hello = SubscribeRepr::Hello.to_bytes();
            let r = s.handle_datagram(victim, &hello, u64::from(i));
            assert!(r.is_some_and(|r| r.len() <= hello.len()));
            let forged = SubscribeRepr::Join([i as u8; 16]).to_bytes();
            assert!(s.handle_datagram(victim, &forged, 0).is_some());
        }
        // Version 1's bare 8-byte join does nothing either.
        assert_eq!(
            s.handle_datagram(victim, &[0x4c, 0x52, 0x53, 0x42, 1, 1, 0, 0], 0),
            None
        );
        assert!(s.is_empty());
        assert_eq!(s.poll_event(), None);
        assert_eq!(s.counters().bad_cookies, 1000);
        assert_eq!(s.counters().invalid, 1);
        // A cookie made for one address or port is no good for another.
        let real = addr(2, 4000);
        let cookie = s.cookie(real, 0);
        s.handle_datagram(addr(2, 4001), &SubscribeRepr::Join(cookie).to_bytes(), 0);
        assert!(s.is_empty());
        // The real subscriber echoes its cookie and is in.
        handshake(&mut s, real, S);
        assert_eq!(s.poll_event(), Some(Event::Joined(real)));
        assert_eq!(s.len(), 1);
        // A forged Leave does not end it; its own does.
        s.handle_datagram(real, &SubscribeRepr::Leave([0; 16]).to_bytes(), S);
        assert_eq!(s.len(), 1);
        s.handle_datagram(real, &SubscribeRepr::Leave(cookie).to_bytes(), S);
        assert_eq!(s.poll_event(), Some(Event::Ended(real, End::Left)));
    }

    #[test]
    fn cookies_age_out_and_renewals_keep_a_subscriber() {
        let mut s = subs(8, 8);
        let a = addr(2, 4000);
        let cookie = handshake(&mut s, a, 29 * S);
        s.poll_event();
        // Next epoch: the old cookie still renews, and a fresh one comes back.
        let r = s.handle_datagram(a, &SubscribeRepr::Join(cookie).to_bytes(), 31 * S);
        assert_eq!(
            r,
            Some(SubscribeRepr::Challenge(s.cookie(a, 31 * S)).to_bytes())
        );
        assert_ne!(s.cookie(a, 31 * S), cookie);
        // Two epochs on, it is refused (and a fresh challenge sent).
        s.handle_datagram(a, &SubscribeRepr::Join(cookie).to_bytes(), 61 * S);
        assert_eq!(s.counters().bad_cookies, 1);
        // It renewed at 31 s: expired 5 s later, not before.
        assert_eq!(s.poll_timeout(), Some(36 * S));
        s.handle_timeout(35 * S);
        assert_eq!(s.len(), 1);
        s.handle_timeout(36 * S);
        assert_eq!(s.poll_event(), Some(Event::Ended(a, End::Expired)));
        assert_eq!(s.poll_timeout(), None, "no subscriber, no timer");
    }

    #[test]
    fn limits_and_unreachable() {
        let mut s = subs(3, 2);
        for port in [1, 2, 3] {
            handshake(&mut s, addr(2, port), 0);
        }
        // Two from 169.254.1.2, the third refused per source.
        assert_eq!(s.len(), 2);
        assert_eq!(s.counters().refused_per_source, 1);
        handshake(&mut s, addr(3, 1), 0);
        handshake(&mut s, addr(4, 1), 0);
        assert_eq!(s.len(), 3);
        assert_eq!(s.counters().refused_full, 1);
        s.handle_unreachable(addr(3, 1));
        s.handle_unreachable(addr(99, 1));
        let events: Vec<Event> = std::iter::from_fn(|| s.poll_event()).collect();
        assert_eq!(
            events.last(),
            Some(&Event::Ended(addr(3, 1), End::Unreachable))
        );
        assert_eq!(s.len(), 2);
    }
}
