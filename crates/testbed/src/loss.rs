//! Packet loss with nftables.
//!
//! Each host namespace gets up to two tables named `linerate`: `netdev
//! linerate` with a base chain per interface and direction (`ingress_eth0`,
//! `egress_eth0`) hooked on the device, and `inet linerate` with one chain
//! per IP hook (`input`, `output`) whose rules name the interface. A rule
//! drops a random fraction, or deterministic bursts:
//!
//! ```text
//! udp dport 20202 numgen random mod 1000000 < 50000 counter drop comment "lr:ingress:eth0:udp-dport-20202:ppm=50000"
//! iifname "eth0" udp dport 20202 numgen inc mod 4000 2000-2049 counter drop comment "lr:input:eth0:udp-dport-20202:burst=50/4000@2000 ppm=12500"
//! ```
//!
//! The comment names the hook, interface and selector, so setting loss for
//! the same selector again (from this process or another one) replaces the
//! rule instead of stacking a second one, and the counter shows how many
//! were dropped.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::spec::{Direction, LossBurst, LossLayer, LossMatch, LOSS_RESOLUTION};
use crate::sys;

/// nft table holding all loss chains of a host (in both families).
pub const TABLE: &str = "linerate";

/// Where a rule sits: layer and direction, hence nft family, hook and chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hook {
    pub layer: LossLayer,
    pub direction: Direction,
}

impl Hook {
    /// The chain name for `iface`: one per device and direction in the
    /// netdev family, one per hook in the inet family.
    pub(crate) fn chain(self, iface: &str) -> String {
        match self.layer {
            LossLayer::Device => format!("{}_{}", self.direction.as_str(), iface),
            LossLayer::Ip => self.name().to_owned(),
        }
    }

    fn name(self) -> &'static str {
        self.layer.hook(self.direction)
    }

    /// The chain's declaration (inside `{ }`).
    fn chain_decl(self, iface: &str) -> String {
        match self.layer {
            LossLayer::Device => format!(
                "type filter hook {} device \"{iface}\" priority 0; policy accept;",
                self.name()
            ),
            LossLayer::Ip => format!(
                "type filter hook {} priority 0; policy accept;",
                self.name()
            ),
        }
    }

    /// Match on the interface, where the chain does not already.
    fn iface_expr(self, iface: &str) -> Option<String> {
        match (self.layer, self.direction) {
            (LossLayer::Device, _) => None,
            (LossLayer::Ip, Direction::Ingress) => Some(format!("iifname \"{iface}\"")),
            (LossLayer::Ip, Direction::Egress) => Some(format!("oifname \"{iface}\"")),
        }
    }
}

/// Comment prefix identifying the selector, without the pattern.
pub(crate) fn comment_key(hook: Hook, iface: &str, m: &LossMatch) -> String {
    format!("lr:{}:{}:{}:", hook.name(), iface, m.key())
}

/// Renders the nft rule (without `add rule FAMILY TABLE CHAIN`).
///
/// `threshold` is out of [`LOSS_RESOLUTION`]; at 100 % the random test is
/// left out so every packet really is dropped. With `burst` the pattern is
/// the burst's instead of a random draw.
pub(crate) fn render_rule(
    hook: Hook,
    iface: &str,
    m: &LossMatch,
    threshold: u32,
    burst: Option<&LossBurst>,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(hook.iface_expr(iface));
    let expr = m.nft_expr();
    if !expr.is_empty() {
        parts.push(expr);
    }
    let mut pattern = String::new();
    match burst {
        Some(b) => {
            parts.push(format!(
                "numgen inc mod {} {}-{}",
                b.every,
                b.start,
                b.start + b.length - 1
            ));
            pattern.push_str(&format!("burst={}/{}@{} ", b.length, b.every, b.start));
        }
        None if threshold < LOSS_RESOLUTION => {
            parts.push(format!("numgen random mod {LOSS_RESOLUTION} < {threshold}"));
        }
        None => {}
    }
    parts.push(format!(
        "counter drop comment \"{}{pattern}ppm={threshold}\"",
        comment_key(hook, iface, m)
    ));
    parts.join(" ")
}

/// Renders the whole transaction that makes `(hook, iface, m)` drop
/// `threshold` ppm: create table and chain if missing, delete the rules
/// with the same selector (`old_handles`), add the new one unless 0.
pub(crate) fn render_set_script(
    hook: Hook,
    iface: &str,
    m: &LossMatch,
    threshold: u32,
    burst: Option<&LossBurst>,
    old_handles: &[u64],
) -> String {
    let family = hook.layer.family();
    let chain = hook.chain(iface);
    let mut s = format!("add table {family} {TABLE}\n");
    s.push_str(&format!(
        "add chain {family} {TABLE} {chain} {{ {} }}\n",
        hook.chain_decl(iface)
    ));
    for h in old_handles {
        s.push_str(&format!(
            "delete rule {family} {TABLE} {chain} handle {h}\n"
        ));
    }
    if threshold > 0 {
        s.push_str(&format!(
            "add rule {family} {TABLE} {chain} {}\n",
            render_rule(hook, iface, m, threshold, burst)
        ));
    }
    s
}

/// Script removing every loss rule of a host (each `add` makes its
/// `delete` succeed when there was no table).
pub(crate) fn render_clear_script() -> String {
    [LossLayer::Device, LossLayer::Ip]
        .iter()
        .map(|l| {
            let f = l.family();
            format!("add table {f} {TABLE}\ndelete table {f} {TABLE}\n")
        })
        .collect()
}

/// One installed loss rule with its counters, as read back from nft.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstalledLoss {
    /// nft family: `netdev` (device hooks) or `inet` (IP hooks).
    pub family: String,
    /// Chain (`ingress_eth0`, `output`...).
    pub chain: String,
    /// nft rule handle.
    pub handle: u64,
    /// The selector comment (`lr:ingress:eth0:udp-dport-20202:ppm=50000`,
    /// with `burst=LEN/EVERY@START ` before the ppm for bursts).
    pub comment: String,
    /// Drop threshold in parts per million, parsed from the comment.
    pub ppm: Option<u32>,
    /// Packets dropped so far.
    pub packets: u64,
    /// Bytes dropped so far.
    pub bytes: u64,
}

/// Parses `nft -j -a list ruleset` output into our rules (both families).
pub(crate) fn parse_rules(json: &str) -> Result<Vec<InstalledLoss>> {
    let bad = |detail: String| Error::Output {
        cmdline: "nft -j -a list ruleset".into(),
        detail,
    };
    if json.trim().is_empty() {
        return Ok(Vec::new());
    }
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
    let items = v
        .get("nftables")
        .and_then(|n| n.as_array())
        .ok_or_else(|| bad("no `nftables` array".into()))?;
    let mut out = Vec::new();
    for item in items {
        let Some(rule) = item.get("rule") else {
            continue;
        };
        if rule.get("table").and_then(|t| t.as_str()) != Some(TABLE) {
            continue;
        }
        let family = rule
            .get("family")
            .and_then(|f| f.as_str())
            .unwrap_or_default();
        if family != "netdev" && family != "inet" {
            continue;
        }
        let Some(comment) = rule.get("comment").and_then(|c| c.as_str()) else {
            continue;
        };
        if !comment.starts_with("lr:") {
            continue;
        }
        let handle = rule
            .get("handle")
            .and_then(|h| h.as_u64())
            .ok_or_else(|| bad(format!("rule {comment:?} has no handle")))?;
        let chain = rule
            .get("chain")
            .and_then(|c| c.as_str())
            .unwrap_or_default()
            .to_owned();
        let (mut packets, mut bytes) = (0, 0);
        if let Some(exprs) = rule.get("expr").and_then(|e| e.as_array()) {
            for e in exprs {
                if let Some(c) = e.get("counter") {
                    packets = c.get("packets").and_then(|p| p.as_u64()).unwrap_or(0);
                    bytes = c.get("bytes").and_then(|p| p.as_u64()).unwrap_or(0);
                }
            }
        }
        let ppm = comment
            .rsplit_once("ppm=")
            .and_then(|(_, n)| n.parse::<u32>().ok());
        out.push(InstalledLoss {
            family: family.to_owned(),
            chain,
            handle,
            comment: comment.to_owned(),
            ppm,
            packets,
            bytes,
        });
    }
    Ok(out)
}

/// Reads the loss rules installed in `netns`.
pub(crate) fn list(netns: &str) -> Result<Vec<InstalledLoss>> {
    sys::require("nft", "packet loss emulation", "nftables")?;
    let json = sys::exec_in(netns, "nft", &["-j", "-a", "list", "ruleset"], None)?;
    parse_rules(&json)
}

/// Sets the loss of one selector on one interface of `netns`.
pub(crate) fn set(
    netns: &str,
    hook: Hook,
    iface: &str,
    m: &LossMatch,
    threshold: u32,
    burst: Option<&LossBurst>,
) -> Result<()> {
    let key = comment_key(hook, iface, m);
    let chain = hook.chain(iface);
    let family = hook.layer.family();
    let old: Vec<u64> = list(netns)?
        .into_iter()
        .filter(|r| r.family == family && r.chain == chain && r.comment.starts_with(&key))
        .map(|r| r.handle)
        .collect();
    let script = render_set_script(hook, iface, m, threshold, burst, &old);
    sys::nft_script(netns, &script).map(|_| ())
}

/// Removes every loss rule in `netns`.
pub(crate) fn clear(netns: &str) -> Result<()> {
    sys::nft_script(netns, &render_clear_script()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    const INGRESS: Hook = Hook {
        layer: LossLayer::Device,
        direction: Direction::Ingress,
    };
    const EGRESS: Hook = Hook {
        layer: LossLayer::Device,
        direction: Direction::Egress,
    };
    const INPUT: Hook = Hook {
        layer: LossLayer::Ip,
        direction: Direction::Ingress,
    };
    const OUTPUT: Hook = Hook {
        layer: LossLayer::Ip,
        direction: Direction::Egress,
    };

    #[test]
    fn renders_rules() {
        assert_eq!(
            render_rule(INGRESS, "eth0", &LossMatch::UdpDport(20202), 500_000, None),
            "udp dport 20202 numgen random mod 1000000 < 500000 counter drop comment \"lr:ingress:eth0:udp-dport-20202:ppm=500000\""
        );
        assert_eq!(
            render_rule(EGRESS, "eth1", &LossMatch::Ethertype(0x88b5), 1, None),
            "ether type 0x88b5 numgen random mod 1000000 < 1 counter drop comment \"lr:egress:eth1:ether-88b5:ppm=1\""
        );
        assert_eq!(
            render_rule(EGRESS, "eth0", &LossMatch::All, LOSS_RESOLUTION, None),
            "counter drop comment \"lr:egress:eth0:all:ppm=1000000\""
        );
        assert_eq!(
            render_rule(
                EGRESS,
                "eth0",
                &LossMatch::UdpSport(7),
                LOSS_RESOLUTION,
                None
            ),
            "udp sport 7 counter drop comment \"lr:egress:eth0:udp-sport-7:ppm=1000000\""
        );
    }

    #[test]
    fn renders_ip_hook_and_burst_rules() {
        assert_eq!(
            render_rule(OUTPUT, "eth0", &LossMatch::UdpSport(7), 20_000, None),
            "oifname \"eth0\" udp sport 7 numgen random mod 1000000 < 20000 counter drop comment \"lr:output:eth0:udp-sport-7:ppm=20000\""
        );
        let burst = LossBurst {
            length: 50,
            every: 4000,
            start: 2000,
        };
        assert_eq!(
            render_rule(INPUT, "eth0", &LossMatch::UdpDport(9), burst.ppm(), Some(&burst)),
            "iifname \"eth0\" udp dport 9 numgen inc mod 4000 2000-2049 counter drop comment \"lr:input:eth0:udp-dport-9:burst=50/4000@2000 ppm=12500\""
        );
        assert_eq!(
            render_rule(INGRESS, "eth0", &LossMatch::All, burst.ppm(), Some(&burst)),
            "numgen inc mod 4000 2000-2049 counter drop comment \"lr:ingress:eth0:all:burst=50/4000@2000 ppm=12500\""
        );
        // The device and IP hooks of one interface are different selectors.
        assert_ne!(
            comment_key(INGRESS, "eth0", &LossMatch::All),
            comment_key(INPUT, "eth0", &LossMatch::All)
        );
    }

    #[test]
    fn renders_scripts() {
        let s = render_set_script(EGRESS, "eth0", &LossMatch::All, 0, None, &[4, 9]);
        assert_eq!(
            s,
            "add table netdev linerate\n\
             add chain netdev linerate egress_eth0 { type filter hook egress device \"eth0\" priority 0; policy accept; }\n\
             delete rule netdev linerate egress_eth0 handle 4\n\
             delete rule netdev linerate egress_eth0 handle 9\n"
        );
        let s = render_set_script(INGRESS, "eth0", &LossMatch::All, 10, None, &[]);
        assert!(s.ends_with("add rule netdev linerate ingress_eth0 numgen random mod 1000000 < 10 counter drop comment \"lr:ingress:eth0:all:ppm=10\"\n"), "{s}");
        let s = render_set_script(OUTPUT, "eth1", &LossMatch::All, 10, None, &[3]);
        assert_eq!(
            s,
            "add table inet linerate\n\
             add chain inet linerate output { type filter hook output priority 0; policy accept; }\n\
             delete rule inet linerate output handle 3\n\
             add rule inet linerate output oifname \"eth1\" numgen random mod 1000000 < 10 counter drop comment \"lr:output:eth1:all:ppm=10\"\n"
        );
        let clear = render_clear_script();
        assert!(clear.contains("delete table netdev linerate"));
        assert!(clear.contains("delete table inet linerate"));
    }

    #[test]
    fn parses_nft_json() -> Result<()> {
        let json = r#"{"nftables": [{"metainfo": {"version": "1.0.6"}},
          {"table": {"family": "netdev", "name": "linerate", "handle": 1}},
          {"rule": {"family": "netdev", "table": "linerate", "chain": "ingress_eth0", "handle": 3,
             "comment": "lr:ingress:eth0:udp-dport-5000:ppm=500000",
             "expr": [{"match": {}}, {"counter": {"packets": 12, "bytes": 3400}}, {"drop": null}]}},
          {"rule": {"family": "netdev", "table": "other", "chain": "x", "handle": 4, "comment": "lr:x", "expr": []}},
          {"rule": {"family": "netdev", "table": "linerate", "chain": "x", "handle": 5, "expr": []}},
          {"rule": {"family": "inet", "table": "linerate", "chain": "output", "handle": 2,
             "comment": "lr:output:eth0:all:burst=50/4000@0 ppm=12500",
             "expr": [{"counter": {"packets": 50, "bytes": 400000}}, {"drop": null}]}},
          {"rule": {"family": "ip", "table": "linerate", "chain": "x", "handle": 6, "comment": "lr:y", "expr": []}}]}"#;
        let r = parse_rules(json)?;
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].family, "inet");
        assert_eq!(r[1].chain, "output");
        assert_eq!(r[1].ppm, Some(12_500));
        assert_eq!(r[1].packets, 50);
        assert_eq!(r[0].handle, 3);
        assert_eq!(r[0].packets, 12);
        assert_eq!(r[0].bytes, 3400);
        assert_eq!(r[0].ppm, Some(500_000));
        assert!(parse_rules("")?.is_empty());
        assert!(parse_rules("{").is_err());
        assert!(parse_rules("{}").is_err());
        Ok(())
    }
}
