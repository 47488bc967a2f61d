//! The declarative description of a bed, deserialisable from TOML or JSON.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Prefix of every namespace this crate creates, so that leftovers from a
/// crash can be found (`down --all`) without touching anything else.
pub const NETNS_PREFIX: &str = "lr-";

/// Host name reserved for the switch's own namespace (`lr-<bed>-switch`).
pub const SWITCH_HOST: &str = "switch";

/// Longest bed or host name accepted. Keeps namespace names readable and
/// well below any path limit.
pub const MAX_NAME_LEN: usize = 24;

/// Checks a bed or host name: 1..=24 of `[a-z0-9_]`, starting with a letter
/// or digit.
///
/// No `-` so `lr-<bed>-<host>` splits unambiguously back into bed and host,
/// and no upper case so two names never differ only by case.
pub fn validate_name(kind: &str, name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !name.starts_with('_');
    if ok {
        Ok(())
    } else {
        Err(Error::Spec(format!(
            "{kind} name {name:?} must be 1..={MAX_NAME_LEN} characters of [a-z0-9_] not starting with '_'"
        )))
    }
}

/// Namespace name of `host` in bed `bed`: `lr-<bed>-<host>`.
pub fn netns_name(bed: &str, host: &str) -> String {
    format!("{NETNS_PREFIX}{bed}-{host}")
}

/// Splits a namespace name made by [`netns_name`] back into `(bed, host)`.
///
/// Returns `None` for namespaces that are not ours (no prefix, or a bed or
/// host part that fails [`validate_name`]).
pub fn parse_netns_name(netns: &str) -> Option<(&str, &str)> {
    let rest = netns.strip_prefix(NETNS_PREFIX)?;
    let (bed, host) = rest.split_once('-')?;
    if validate_name("bed", bed).is_ok() && validate_name("host", host).is_ok() {
        Some((bed, host))
    } else {
        None
    }
}

/// Smallest MTU accepted: IPv4's minimum of 576 is too small for useful
/// GVSP, but 1280 keeps IPv6 possible and anything real is above it.
pub const MIN_MTU: u32 = 1280;
/// Largest MTU accepted: the common jumbo-frame ceiling (veth allows more,
/// real NICs and switches do not).
pub const MAX_MTU: u32 = 9216;

/// Checks an MTU against [`MIN_MTU`]..=[`MAX_MTU`].
pub fn validate_mtu(mtu: u32) -> Result<()> {
    if (MIN_MTU..=MAX_MTU).contains(&mtu) {
        Ok(())
    } else {
        Err(Error::Spec(format!(
            "MTU {mtu} out of range {MIN_MTU}..={MAX_MTU} (use 1500 or 9000)"
        )))
    }
}

/// A link rate in bits per second, as given to tc tbf.
///
/// Parses `1g`, `10G`, `950m`, `2.5gbit`, `5gbps`, `100000k`, `1000000000`
/// (all in *bits* per second; unlike tc, `bps` here means bits, as in
/// "10 Gbps"), so CLI flags and spec files read like the link they emulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "RateRepr", into = "String")]
pub struct Rate {
    bits_per_sec: u64,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RateRepr {
    Num(u64),
    Text(String),
}

impl TryFrom<RateRepr> for Rate {
    type Error = Error;
    fn try_from(r: RateRepr) -> Result<Rate> {
        match r {
            RateRepr::Num(n) => Rate::from_bits_per_sec(n),
            RateRepr::Text(s) => s.parse(),
        }
    }
}

impl From<Rate> for String {
    fn from(r: Rate) -> String {
        r.to_string()
    }
}

impl Rate {
    /// Slowest rate accepted (8 kbit/s); below this tbf timing is silly.
    pub const MIN: u64 = 8_000;
    /// Fastest rate accepted (400 Gbit/s).
    pub const MAX: u64 = 400_000_000_000;

    /// A rate of `bits` bits per second, validated against MIN..=MAX.
    pub fn from_bits_per_sec(bits: u64) -> Result<Rate> {
        if (Self::MIN..=Self::MAX).contains(&bits) {
            Ok(Rate { bits_per_sec: bits })
        } else {
            Err(Error::Spec(format!(
                "rate {bits} bit/s out of range {}..={}",
                Self::MIN,
                Self::MAX
            )))
        }
    }

    /// `n` Gbit/s (1 GbE = `gbit(1)`), for builder code where the value is a
    /// literal and cannot be out of range in practice.
    pub fn gbit(n: u32) -> Rate {
        Rate {
            bits_per_sec: (u64::from(n) * 1_000_000_000).clamp(Self::MIN, Self::MAX),
        }
    }

    /// `n` Mbit/s.
    pub fn mbit(n: u32) -> Rate {
        Rate {
            bits_per_sec: (u64::from(n) * 1_000_000).clamp(Self::MIN, Self::MAX),
        }
    }

    /// The rate in bits per second.
    pub fn bits_per_sec(self) -> u64 {
        self.bits_per_sec
    }

    /// The rate in bytes per second.
    pub fn bytes_per_sec(self) -> u64 {
        self.bits_per_sec / 8
    }
}

impl FromStr for Rate {
    type Err = Error;
    fn from_str(s: &str) -> Result<Rate> {
        let t = s.trim().to_ascii_lowercase();
        let t = t
            .strip_suffix("bit/s")
            .or_else(|| t.strip_suffix("bps"))
            .or_else(|| t.strip_suffix("bit"))
            .unwrap_or(&t);
        let (num, mult) = match t.chars().last() {
            Some('k') => (&t[..t.len() - 1], 1e3),
            Some('m') => (&t[..t.len() - 1], 1e6),
            Some('g') => (&t[..t.len() - 1], 1e9),
            Some('t') => (&t[..t.len() - 1], 1e12),
            _ => (t, 1.0),
        };
        let v: f64 = num.trim().parse().map_err(|_| {
            Error::Spec(format!(
                "cannot parse rate {s:?}: expected e.g. 1g, 5g, 10g, 950m, 2.5gbit"
            ))
        })?;
        let bits = v * mult;
        if !bits.is_finite() || bits < 0.0 || bits > Self::MAX as f64 {
            return Err(Error::Spec(format!("rate {s:?} out of range")));
        }
        Rate::from_bits_per_sec(bits.round() as u64)
    }
}

impl fmt::Display for Rate {
    /// Shortest exact form tc also understands: `1gbit`, `950mbit`, `12345bit`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.bits_per_sec;
        if b % 1_000_000_000 == 0 {
            write!(f, "{}gbit", b / 1_000_000_000)
        } else if b % 1_000_000 == 0 {
            write!(f, "{}mbit", b / 1_000_000)
        } else if b % 1_000 == 0 {
            write!(f, "{}kbit", b / 1_000)
        } else {
            write!(f, "{b}bit")
        }
    }
}

/// Which way traffic crosses a host's interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Arriving at the host (received).
    Ingress,
    /// Leaving the host (sent).
    Egress,
}

impl Direction {
    /// `"ingress"` or `"egress"`, the nft hook name too.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Ingress => "ingress",
            Direction::Egress => "egress",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Direction {
    type Err = Error;
    fn from_str(s: &str) -> Result<Direction> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ingress" | "in" | "rx" => Ok(Direction::Ingress),
            "egress" | "out" | "tx" => Ok(Direction::Egress),
            _ => Err(Error::Spec(format!(
                "direction {s:?} must be ingress or egress"
            ))),
        }
    }
}

/// Parses an ethertype: `0x88b5`, `34997`, or a name (`arp`, `ipv4`/`ip`,
/// `ipv6`, `vlan`).
pub fn parse_ethertype(s: &str) -> Result<u16> {
    let t = s.trim().to_ascii_lowercase();
    let named = match t.as_str() {
        "ip" | "ipv4" => Some(0x0800),
        "arp" => Some(0x0806),
        "ipv6" | "ip6" => Some(0x86dd),
        "vlan" | "8021q" => Some(0x8100),
        _ => None,
    };
    if let Some(v) = named {
        return Ok(v);
    }
    let parsed = match t.strip_prefix("0x") {
        Some(hex) => u16::from_str_radix(hex, 16),
        None => t.parse::<u16>(),
    };
    match parsed {
        Ok(v) if v >= 0x0600 => Ok(v),
        Ok(v) => Err(Error::Spec(format!(
            "ethertype {v:#06x} is below 0x0600 (that is an 802.3 length, not a type)"
        ))),
        Err(_) => Err(Error::Spec(format!(
            "cannot parse ethertype {s:?}: expected e.g. 0x88b5, arp, ipv4"
        ))),
    }
}

/// Which packets a loss rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LossMatch {
    /// Every frame, ARP included.
    #[default]
    All,
    /// UDP datagrams to this destination port (first fragment only: later
    /// IP fragments carry no UDP header).
    UdpDport(u16),
    /// UDP datagrams from this source port (first fragment only).
    UdpSport(u16),
    /// Ethernet frames of this ethertype (e.g. `0x0806` ARP, `0x88b5`).
    Ethertype(u16),
}

impl LossMatch {
    /// A short stable key identifying the selector, used in nft rule
    /// comments so a rule can be found and replaced from another process.
    pub fn key(&self) -> String {
        match self {
            LossMatch::All => "all".into(),
            LossMatch::UdpDport(p) => format!("udp-dport-{p}"),
            LossMatch::UdpSport(p) => format!("udp-sport-{p}"),
            LossMatch::Ethertype(t) => format!("ether-{t:04x}"),
        }
    }

    /// The nft match expression (empty for [`LossMatch::All`]).
    pub fn nft_expr(&self) -> String {
        match self {
            LossMatch::All => String::new(),
            LossMatch::UdpDport(p) => format!("udp dport {p}"),
            LossMatch::UdpSport(p) => format!("udp sport {p}"),
            LossMatch::Ethertype(t) => format!("ether type {t:#06x}"),
        }
    }
}

/// Resolution of loss probabilities: parts per million
/// (`numgen random mod 1000000 < N`).
pub const LOSS_RESOLUTION: u32 = 1_000_000;

/// Where in a host's network stack a loss rule drops packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LossLayer {
    /// The device's ingress/egress hooks (nftables netdev family): works for
    /// any ethertype, drops before the IP stack sees a received packet, and
    /// after a sent one left it, so the sender's `send()` still succeeds
    /// (like a lossy cable or an overflowing NIC ring).
    #[default]
    Device,
    /// The IP stack's input/output hooks (nftables inet family), where a
    /// host firewall drops: a dropped sent datagram makes the sender's
    /// `send()`/`sendmmsg()` fail with EPERM, a dropped received one never
    /// reaches the socket. IP packets only (not [`LossMatch::Ethertype`]).
    Ip,
}

impl LossLayer {
    /// The nft hook of this layer for `direction`.
    pub fn hook(self, direction: Direction) -> &'static str {
        match (self, direction) {
            (LossLayer::Device, d) => d.as_str(),
            (LossLayer::Ip, Direction::Ingress) => "input",
            (LossLayer::Ip, Direction::Egress) => "output",
        }
    }

    /// The nftables family holding this layer's rules.
    pub fn family(self) -> &'static str {
        match self {
            LossLayer::Device => "netdev",
            LossLayer::Ip => "inet",
        }
    }
}

impl FromStr for LossLayer {
    type Err = Error;
    fn from_str(s: &str) -> Result<LossLayer> {
        match s.trim().to_ascii_lowercase().as_str() {
            "device" | "netdev" => Ok(LossLayer::Device),
            "ip" | "inet" | "stack" => Ok(LossLayer::Ip),
            _ => Err(Error::Spec(format!(
                "loss layer {s:?} must be device or ip"
            ))),
        }
    }
}

/// Deterministic bursts: `length` consecutive matching packets dropped out
/// of every `every`, starting with the `start`-th (counted from 0 when the
/// rule is installed).
///
/// Rendered as `numgen inc mod EVERY START-END`: nftables keeps one counter
/// per rule, incremented by every packet that reaches it (after the
/// selector matched), so the dropped runs are exact and repeat every
/// `every` packets, whatever the timing. A packet here is what the hook
/// sees: behind GRO or before GSO segmentation one packet can be a train
/// of datagrams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossBurst {
    /// Packets dropped in a row.
    pub length: u32,
    /// Period of the pattern in matching packets.
    pub every: u32,
    /// Position of the first dropped packet in each period.
    #[serde(default)]
    pub start: u32,
}

impl LossBurst {
    /// Checks `1 <= length` and `start + length <= every`.
    pub fn validate(&self) -> Result<()> {
        let fits = self
            .start
            .checked_add(self.length)
            .is_some_and(|end| end <= self.every);
        if self.length == 0 || !fits {
            return Err(Error::Spec(format!(
                "loss burst of {} packets from {} must lie within its period of {}",
                self.length, self.start, self.every
            )));
        }
        Ok(())
    }

    /// Parts per million of matching packets dropped.
    pub fn ppm(&self) -> u32 {
        (u64::from(self.length) * u64::from(LOSS_RESOLUTION) / u64::from(self.every.max(1))) as u32
    }
}

/// A loss rule: drop `percent` % of the packets matching `matcher` that
/// cross `host`'s interface in `direction` (at random), or, with `burst`,
/// runs of consecutive packets.
///
/// By default implemented with nftables in the netdev family (ingress/egress
/// hooks on the device), so it works for any ethertype, drops before the IP
/// stack sees the packet, and does not make `send()` fail with EPERM; with
/// `layer = "ip"` at the IP stack's input/output hooks, where it does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossRule {
    /// Host whose interface drops packets.
    pub host: String,
    /// Interface of that host; `None` means all of its interfaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iface: Option<String>,
    /// Received (`ingress`) or sent (`egress`) packets.
    #[serde(default = "default_direction")]
    pub direction: Direction,
    /// Which packets; default all.
    #[serde(default, rename = "match")]
    pub matcher: LossMatch,
    /// Percentage dropped, 0..=100 with 0.0001 % resolution; 0 removes the
    /// rule. With `burst`, the burst's share (informational).
    pub percent: f64,
    /// Device hooks (default) or the IP stack's input/output hooks.
    #[serde(default, skip_serializing_if = "is_device")]
    pub layer: LossLayer,
    /// Drop deterministic runs of consecutive packets instead of a random
    /// fraction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<LossBurst>,
}

fn is_device(l: &LossLayer) -> bool {
    *l == LossLayer::Device
}

fn default_direction() -> Direction {
    Direction::Ingress
}

impl LossRule {
    /// A rule dropping `percent` % of everything received by `host`;
    /// refine with the `egress`/`udp_dport`/... methods.
    pub fn new(host: &str, percent: f64) -> LossRule {
        LossRule {
            host: host.to_owned(),
            iface: None,
            direction: Direction::Ingress,
            matcher: LossMatch::All,
            percent,
            layer: LossLayer::Device,
            burst: None,
        }
    }

    /// A rule dropping runs of `length` consecutive packets out of every
    /// `every` that `host` receives (see [`LossBurst`]); the first run
    /// starts with the `start`-th matching packet.
    pub fn burst(host: &str, length: u32, every: u32, start: u32) -> LossRule {
        let burst = LossBurst {
            length,
            every,
            start,
        };
        let mut r = LossRule::new(
            host,
            f64::from(burst.ppm()) * 100.0 / f64::from(LOSS_RESOLUTION),
        );
        r.burst = Some(burst);
        r
    }

    /// Drop at the IP stack's input/output hooks instead of the device
    /// (see [`LossLayer::Ip`]).
    pub fn ip_hooks(mut self) -> LossRule {
        self.layer = LossLayer::Ip;
        self
    }

    /// Apply to sent packets instead of received ones.
    pub fn egress(mut self) -> LossRule {
        self.direction = Direction::Egress;
        self
    }

    /// Apply to received packets (the default).
    pub fn ingress(mut self) -> LossRule {
        self.direction = Direction::Ingress;
        self
    }

    /// Only on interface `iface` of the host.
    pub fn iface(mut self, iface: &str) -> LossRule {
        self.iface = Some(iface.to_owned());
        self
    }

    /// Only UDP to destination port `port`.
    pub fn udp_dport(mut self, port: u16) -> LossRule {
        self.matcher = LossMatch::UdpDport(port);
        self
    }

    /// Only UDP from source port `port`.
    pub fn udp_sport(mut self, port: u16) -> LossRule {
        self.matcher = LossMatch::UdpSport(port);
        self
    }

    /// Only frames of this ethertype.
    pub fn ethertype(mut self, ethertype: u16) -> LossRule {
        self.matcher = LossMatch::Ethertype(ethertype);
        self
    }

    /// The threshold N out of [`LOSS_RESOLUTION`], after validating
    /// `percent`.
    pub fn threshold(&self) -> Result<u32> {
        if self.layer == LossLayer::Ip && matches!(self.matcher, LossMatch::Ethertype(_)) {
            return Err(Error::Spec(
                "an ethertype loss rule needs the device layer: the IP hooks see IP packets only"
                    .into(),
            ));
        }
        if let Some(b) = &self.burst {
            b.validate()?;
            return Ok(b.ppm());
        }
        if !self.percent.is_finite() || !(0.0..=100.0).contains(&self.percent) {
            return Err(Error::Spec(format!(
                "loss percent {} must be between 0 and 100",
                self.percent
            )));
        }
        Ok((self.percent * f64::from(LOSS_RESOLUTION) / 100.0).round() as u32)
    }
}

/// Token-bucket parameters for one direction of a link.
///
/// `burst` and `latency` default to values measured to sustain the rate
/// with 9000-byte frames on veth (see [`Shaper::effective_burst`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shaper {
    /// Sustained rate.
    pub rate: Rate,
    /// Bucket size in bytes; `None` = automatic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_bytes: Option<u32>,
    /// Longest a packet may wait in the queue, in microseconds; sets tbf's
    /// queue limit. `None` = 10 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_us: Option<u32>,
}

impl From<Rate> for Shaper {
    fn from(rate: Rate) -> Shaper {
        Shaper {
            rate,
            burst_bytes: None,
            latency_us: None,
        }
    }
}

impl Shaper {
    /// Smallest automatic bucket: 256 KiB. Small buckets (one or a few
    /// jumbo frames) cannot even sustain 1 Gbit/s on veth, because the
    /// qdisc is only serviced every few hundred microseconds: 9 KiB gave
    /// ~0.69 Gbit/s for a 1 Gbit/s setting, 32-128 KiB 0.95-0.98, 256 KiB
    /// and up 0.99+. It also exceeds a 64 KiB GSO packet, so tbf never has
    /// to split TSO packets.
    pub const MIN_AUTO_BURST: u32 = 256 * 1024;
    /// Automatic bucket = this many microseconds of traffic at the rate
    /// (2 ms), when that exceeds [`Shaper::MIN_AUTO_BURST`].
    pub const AUTO_BURST_US: u64 = 2_000;
    /// Default queueing latency: 10 ms.
    pub const DEFAULT_LATENCY_US: u32 = 10_000;

    /// The bucket size used: explicit, or 2 ms of traffic at the rate but
    /// at least [`Shaper::MIN_AUTO_BURST`] (1 Gbit/s: 256 KiB, 5 Gbit/s:
    /// 1.25 MB, 10 Gbit/s: 2.5 MB).
    ///
    /// The cost of a big bucket: after an idle pause, up to `burst` bytes
    /// leave at veth speed instead of the emulated line rate, a microburst a
    /// real NIC would pace out. Set `burst_bytes` smaller to study that,
    /// at the price of not quite reaching the rate.
    pub fn effective_burst(&self) -> u32 {
        self.burst_bytes.unwrap_or_else(|| {
            let auto = self.rate.bytes_per_sec() * Self::AUTO_BURST_US / 1_000_000;
            u32::try_from(auto)
                .unwrap_or(u32::MAX)
                .max(Self::MIN_AUTO_BURST)
        })
    }

    /// The queueing latency used, in microseconds.
    pub fn effective_latency_us(&self) -> u32 {
        self.latency_us.unwrap_or(Self::DEFAULT_LATENCY_US)
    }

    /// Validates explicit parameters (the bucket must hold a jumbo frame).
    pub fn validate(&self, mtu: u32) -> Result<()> {
        if let Some(b) = self.burst_bytes {
            if b < mtu + 14 {
                return Err(Error::Spec(format!(
                    "tbf burst {b} bytes is smaller than one frame (MTU {mtu} + 14): nothing would pass"
                )));
            }
        }
        if let Some(l) = self.latency_us {
            if l == 0 {
                return Err(Error::Spec("tbf latency must be positive".into()));
            }
        }
        Ok(())
    }

    /// The arguments after `tc qdisc replace dev IF root`.
    pub fn tc_args(&self) -> Vec<String> {
        vec![
            "tbf".into(),
            "rate".into(),
            self.rate.to_string(),
            "burst".into(),
            self.effective_burst().to_string(),
            "latency".into(),
            format!("{}us", self.effective_latency_us()),
        ]
    }
}

/// One point-to-point link (a veth pair) between two hosts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// One end.
    pub a: String,
    /// The other end.
    pub b: String,
    /// MTU of this link; default the bed's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    /// Shaping of both directions; default the bed's `rate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Shaping a→b only, overriding `rate` for that direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_ab: Option<Rate>,
    /// Shaping b→a only, overriding `rate` for that direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_ba: Option<Rate>,
}

impl LinkSpec {
    /// A link between `a` and `b` with the bed's defaults.
    pub fn new(a: &str, b: &str) -> LinkSpec {
        LinkSpec {
            a: a.to_owned(),
            b: b.to_owned(),
            mtu: None,
            rate: None,
            rate_ab: None,
            rate_ba: None,
        }
    }
}

/// RPS steering for one host: which CPUs process its received packets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RpsSpec {
    /// Host whose interfaces are steered.
    pub host: String,
    /// CPUs (numbers) that do its receive processing.
    pub cpus: Vec<usize>,
}

/// A whole bed, declaratively. Deserialise it from TOML/JSON, or build it
/// with [`crate::Testbed::builder`].
///
/// ```toml
/// name = "bench"
/// hosts = ["cam", "pc"]
/// mtu = 9000
/// rate = "1g"
/// [[links]]
/// a = "cam"
/// b = "pc"
/// [[loss]]
/// host = "pc"
/// direction = "ingress"
/// match = { udp_dport = 20202 }
/// percent = 1.0
/// [[rps]]
/// host = "pc"
/// cpus = [1]
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestbedSpec {
    /// Bed name; namespaces are `lr-<name>-<host>`.
    pub name: String,
    /// Host names, in order; the order fixes their addresses.
    pub hosts: Vec<String>,
    /// Point-to-point links. Empty with exactly two hosts and no switch
    /// means "link those two".
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Instead of links, attach every host to one bridge in its own
    /// namespace (`lr-<name>-switch`), like devices sharing a switch.
    #[serde(default)]
    pub switch: bool,
    /// Default MTU of every link.
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// Default rate limit of every link direction; `None` = unshaped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Explicit tbf bucket size for all shaped directions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_bytes: Option<u32>,
    /// Explicit tbf latency (µs) for all shaped directions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_us: Option<u32>,
    /// Loss rules installed once the bed is up.
    #[serde(default)]
    pub loss: Vec<LossRule>,
    /// RPS steering applied once the bed is up.
    #[serde(default)]
    pub rps: Vec<RpsSpec>,
    /// Keep IPv6 enabled. Off by default: IPv6 router solicitations, MLD and
    /// DAD frames would otherwise trickle over every link and disturb
    /// packet counts.
    #[serde(default)]
    pub ipv6: bool,
}

fn default_mtu() -> u32 {
    1500
}

impl TestbedSpec {
    /// An empty spec named `name` (MTU 1500, unshaped, point-to-point).
    pub fn new(name: &str) -> TestbedSpec {
        TestbedSpec {
            name: name.to_owned(),
            hosts: Vec::new(),
            links: Vec::new(),
            switch: false,
            mtu: default_mtu(),
            rate: None,
            burst_bytes: None,
            latency_us: None,
            loss: Vec::new(),
            rps: Vec::new(),
            ipv6: false,
        }
    }

    /// Parses a TOML spec.
    pub fn from_toml(text: &str) -> Result<TestbedSpec> {
        toml::from_str(text).map_err(|e| Error::Spec(format!("TOML: {e}")))
    }

    /// Parses a JSON spec.
    pub fn from_json(text: &str) -> Result<TestbedSpec> {
        serde_json::from_str(text).map_err(|e| Error::Spec(format!("JSON: {e}")))
    }

    /// Reads a spec file: JSON if it ends in `.json`, TOML otherwise.
    pub fn from_file(path: &std::path::Path) -> Result<TestbedSpec> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io(format!("reading spec {}", path.display()), e))?;
        if path.extension().is_some_and(|e| e == "json") {
            Self::from_json(&text)
        } else {
            Self::from_toml(&text)
        }
    }

    /// The shaper for a direction with explicit rate `rate` (or the bed's).
    pub(crate) fn shaper(&self, rate: Option<Rate>) -> Option<Shaper> {
        rate.or(self.rate).map(|rate| Shaper {
            rate,
            burst_bytes: self.burst_bytes,
            latency_us: self.latency_us,
        })
    }

    /// The links that will actually be built: the explicit ones, or the
    /// implicit single link of a two-host bed.
    pub(crate) fn effective_links(&self) -> Vec<LinkSpec> {
        if self.links.is_empty() && !self.switch && self.hosts.len() == 2 {
            vec![LinkSpec::new(&self.hosts[0], &self.hosts[1])]
        } else {
            self.links.clone()
        }
    }

    /// Checks everything that can be checked without touching the system.
    pub fn validate(&self) -> Result<()> {
        validate_name("bed", &self.name)?;
        validate_mtu(self.mtu)?;
        if self.hosts.is_empty() {
            return Err(Error::Spec("a bed needs at least one host".into()));
        }
        if self.hosts.len() > 253 {
            return Err(Error::Spec("at most 253 hosts".into()));
        }
        for (i, h) in self.hosts.iter().enumerate() {
            validate_name("host", h)?;
            if h == SWITCH_HOST {
                return Err(Error::Spec(format!(
                    "host name {SWITCH_HOST:?} is reserved for the switch namespace"
                )));
            }
            if self.hosts[..i].contains(h) {
                return Err(Error::Spec(format!("host {h:?} listed twice")));
            }
        }
        let known = |h: &str| -> Result<()> {
            if self.hosts.iter().any(|x| x == h) {
                Ok(())
            } else {
                Err(Error::Spec(format!("{h:?} is not in hosts")))
            }
        };
        let links = self.effective_links();
        if self.switch && !links.is_empty() {
            return Err(Error::Spec(
                "use either point-to-point links or a switch, not both".into(),
            ));
        }
        if links.len() > 254 {
            return Err(Error::Spec("at most 254 links".into()));
        }
        for l in &links {
            known(&l.a)?;
            known(&l.b)?;
            if l.a == l.b {
                return Err(Error::Spec(format!("link from {:?} to itself", l.a)));
            }
            let mtu = l.mtu.unwrap_or(self.mtu);
            validate_mtu(mtu)?;
            for r in [l.rate_ab, l.rate_ba] {
                if let Some(s) = self.shaper(r.or(l.rate)) {
                    s.validate(mtu)?;
                }
            }
        }
        if let Some(s) = self.shaper(None) {
            s.validate(self.mtu)?;
        }
        if !self.switch {
            for h in &self.hosts {
                if !links.iter().any(|l| &l.a == h || &l.b == h) {
                    return Err(Error::Spec(format!(
                        "host {h:?} is on no link (add a link or use switch = true)"
                    )));
                }
            }
        }
        for r in &self.loss {
            known(&r.host)?;
            r.threshold()?;
        }
        for r in &self.rps {
            known(&r.host)?;
            crate::cpumask::cpu_mask(&r.cpus)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(validate_name("bed", "bench_1").is_ok());
        for bad in ["", "a-b", "Cam", "_x", "a b", &"x".repeat(25)] {
            assert!(validate_name("bed", bad).is_err(), "{bad:?}");
        }
        assert_eq!(netns_name("b", "cam"), "lr-b-cam");
        assert_eq!(parse_netns_name("lr-b-cam"), Some(("b", "cam")));
        assert_eq!(parse_netns_name("lr-b-switch"), Some(("b", "switch")));
        assert_eq!(parse_netns_name("lr-b"), None);
        assert_eq!(parse_netns_name("lr-b-c-d"), None);
        assert_eq!(parse_netns_name("other"), None);
    }

    #[test]
    fn rates_parse_and_print() -> Result<()> {
        assert_eq!("1g".parse::<Rate>()?.bits_per_sec(), 1_000_000_000);
        assert_eq!("10G".parse::<Rate>()?.bits_per_sec(), 10_000_000_000);
        assert_eq!("950m".parse::<Rate>()?.bits_per_sec(), 950_000_000);
        assert_eq!("2.5gbit".parse::<Rate>()?.bits_per_sec(), 2_500_000_000);
        assert_eq!("100000k".parse::<Rate>()?.bits_per_sec(), 100_000_000);
        assert_eq!("5gbps".parse::<Rate>()?.bits_per_sec(), 5_000_000_000);
        assert_eq!("12345".parse::<Rate>()?.bits_per_sec(), 12_345);
        assert!("fast".parse::<Rate>().is_err());
        assert!("-1g".parse::<Rate>().is_err());
        assert!("1".parse::<Rate>().is_err());
        assert!("1gb".parse::<Rate>().is_err());
        assert!("1000t".parse::<Rate>().is_err());
        assert_eq!(Rate::gbit(1).to_string(), "1gbit");
        assert_eq!("950m".parse::<Rate>()?.to_string(), "950mbit");
        assert_eq!("2.5g".parse::<Rate>()?.to_string(), "2500mbit");
        Ok(())
    }

    #[test]
    fn shaper_defaults() {
        let s = Shaper::from(Rate::gbit(1));
        assert_eq!(s.effective_burst(), 256 * 1024);
        assert_eq!(Shaper::from(Rate::gbit(5)).effective_burst(), 1_250_000);
        assert_eq!(Shaper::from(Rate::gbit(10)).effective_burst(), 2_500_000);
        assert_eq!(
            s.tc_args(),
            ["tbf", "rate", "1gbit", "burst", "262144", "latency", "10000us"]
        );
        let tiny = Shaper {
            burst_bytes: Some(1500),
            ..s
        };
        assert!(tiny.validate(9000).is_err());
        assert!(tiny.validate(1280).is_ok());
    }

    #[test]
    fn ethertypes() -> Result<()> {
        assert_eq!(parse_ethertype("0x88B5")?, 0x88b5);
        assert_eq!(parse_ethertype("arp")?, 0x0806);
        assert_eq!(parse_ethertype("2048")?, 0x0800);
        assert!(parse_ethertype("0x10").is_err());
        assert!(parse_ethertype("zz").is_err());
        Ok(())
    }

    #[test]
    fn loss_threshold() -> Result<()> {
        assert_eq!(LossRule::new("h", 50.0).threshold()?, 500_000);
        assert_eq!(LossRule::new("h", 0.0001).threshold()?, 1);
        assert_eq!(LossRule::new("h", 100.0).threshold()?, 1_000_000);
        assert!(LossRule::new("h", 100.1).threshold().is_err());
        assert!(LossRule::new("h", f64::NAN).threshold().is_err());
        Ok(())
    }

    #[test]
    fn loss_bursts_and_layers() -> Result<()> {
        let b = LossRule::burst("h", 50, 4000, 2000);
        assert_eq!(b.threshold()?, 12_500);
        assert!((b.percent - 1.25).abs() < 1e-9);
        assert!(LossRule::burst("h", 0, 10, 0).threshold().is_err());
        assert!(LossRule::burst("h", 50, 4000, 3951).threshold().is_err());
        assert!(LossRule::burst("h", 10, 10, 0).threshold().is_ok());
        assert!(LossRule::burst("h", 1, 1, u32::MAX).threshold().is_err());
        assert!(LossRule::new("h", 1.0)
            .ip_hooks()
            .ethertype(0x88b5)
            .threshold()
            .is_err());
        assert_eq!(LossLayer::Ip.hook(Direction::Egress), "output");
        assert_eq!(LossLayer::Ip.hook(Direction::Ingress), "input");
        assert_eq!(LossLayer::Device.hook(Direction::Egress), "egress");
        assert_eq!("ip".parse::<LossLayer>()?, LossLayer::Ip);
        assert!("wire".parse::<LossLayer>().is_err());
        let spec: TestbedSpec = toml::from_str(
            r#"
            name = "b"
            hosts = ["cam", "pc"]
            [[loss]]
            host = "cam"
            direction = "egress"
            layer = "ip"
            percent = 2
            [[loss]]
            host = "pc"
            percent = 0
            burst = { length = 50, every = 4000, start = 100 }
            "#,
        )
        .map_err(|e| Error::Spec(e.to_string()))?;
        assert_eq!(spec.loss[0].layer, LossLayer::Ip);
        assert_eq!(spec.loss[1].layer, LossLayer::Device);
        assert_eq!(spec.loss[1].threshold()?, 12_500);
        spec.validate()?;
        Ok(())
    }

    #[test]
    fn toml_spec() -> Result<()> {
        let spec = TestbedSpec::from_toml(
            r#"
            name = "bench"
            hosts = ["cam", "pc"]
            mtu = 9000
            rate = "1g"
            [[links]]
            a = "cam"
            b = "pc"
            rate_ba = 950000000
            [[loss]]
            host = "pc"
            match = { udp_dport = 20202 }
            percent = 1.5
            [[loss]]
            host = "cam"
            direction = "egress"
            match = { ethertype = 0x88b5 }
            percent = 50
            [[rps]]
            host = "pc"
            cpus = [1]
            "#,
        )?;
        spec.validate()?;
        assert_eq!(spec.mtu, 9000);
        assert_eq!(spec.rate, Some(Rate::gbit(1)));
        assert_eq!(spec.links[0].rate_ba, Some(Rate::mbit(950)));
        assert_eq!(spec.loss[0].direction, Direction::Ingress);
        assert_eq!(spec.loss[0].matcher, LossMatch::UdpDport(20202));
        assert_eq!(spec.loss[1].matcher, LossMatch::Ethertype(0x88b5));
        assert_eq!(spec.rps[0].cpus, vec![1]);
        Ok(())
    }

    #[test]
    fn json_spec_roundtrip_and_defaults() -> Result<()> {
        let spec = TestbedSpec::from_json(r#"{"name":"sw","hosts":["a","b","c"],"switch":true}"#)?;
        spec.validate()?;
        assert_eq!(spec.mtu, 1500);
        assert!(spec.effective_links().is_empty());
        let text = serde_json::to_string(&spec).map_err(|e| Error::Spec(e.to_string()))?;
        assert_eq!(TestbedSpec::from_json(&text)?, spec);
        // Two hosts and nothing else: an implicit link.
        let two = TestbedSpec::from_json(r#"{"name":"p","hosts":["a","b"]}"#)?;
        assert_eq!(two.effective_links(), vec![LinkSpec::new("a", "b")]);
        Ok(())
    }

    #[test]
    fn invalid_specs() {
        let bad = [
            r#"{"name":"x","hosts":[]}"#,
            r#"{"name":"x-y","hosts":["a","b"]}"#,
            r#"{"name":"x","hosts":["a","a"]}"#,
            r#"{"name":"x","hosts":["a","switch"],"switch":true}"#,
            r#"{"name":"x","hosts":["a","b"],"mtu":100}"#,
            r#"{"name":"x","hosts":["a","b","c"]}"#,
            r#"{"name":"x","hosts":["a","b"],"links":[{"a":"a","b":"z"}]}"#,
            r#"{"name":"x","hosts":["a","b"],"links":[{"a":"a","b":"a"}]}"#,
            r#"{"name":"x","hosts":["a","b"],"switch":true,"links":[{"a":"a","b":"b"}]}"#,
            r#"{"name":"x","hosts":["a","b"],"loss":[{"host":"a","percent":101}]}"#,
            r#"{"name":"x","hosts":["a","b"],"rps":[{"host":"a","cpus":[]}]}"#,
            r#"{"name":"x","hosts":["a","b"],"rate":"1g","burst_bytes":100,"mtu":9000}"#,
        ];
        for b in bad {
            let r = TestbedSpec::from_json(b).and_then(|s| s.validate());
            assert!(r.is_err(), "accepted {b}");
        }
        assert!(TestbedSpec::from_json(r#"{"name":"x","hosts":["a"],"bogus":1}"#).is_err());
        assert!(TestbedSpec::from_json(r#"{"name":"x","hosts":["a"],"rate":"fast"}"#).is_err());
    }
}
