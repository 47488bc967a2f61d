//! Packet loss with nftables in the netdev family.
//!
//! Each host namespace gets one table, `netdev linerate`, with a base chain
//! per interface and direction (`ingress_eth0`, `egress_eth0`) hooked on the
//! device. A rule drops a random fraction:
//!
//! ```text
//! udp dport 20202 numgen random mod 1000000 < 50000 counter drop comment "lr:ingress:eth0:udp-dport-20202:ppm=50000"
//! ```
//!
//! The comment names the selector, so setting loss for the same selector
//! again (from this process or another one) replaces the rule instead of
//! stacking a second one, and the counter shows how many were dropped.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::spec::{Direction, LossMatch, LOSS_RESOLUTION};
use crate::sys;

/// nft table holding all loss chains of a host.
pub const TABLE: &str = "linerate";

/// The chain name for `iface` and `direction`.
pub(crate) fn chain_name(direction: Direction, iface: &str) -> String {
    format!("{}_{}", direction.as_str(), iface)
}

/// Comment prefix identifying the selector, without the threshold.
pub(crate) fn comment_key(direction: Direction, iface: &str, m: &LossMatch) -> String {
    format!("lr:{}:{}:{}:", direction.as_str(), iface, m.key())
}

/// Renders the nft rule (without `add rule TABLE CHAIN`).
///
/// `threshold` is out of [`LOSS_RESOLUTION`]; at 100 % the random test is
/// left out so every packet really is dropped.
pub(crate) fn render_rule(
    direction: Direction,
    iface: &str,
    m: &LossMatch,
    threshold: u32,
) -> String {
    let mut r = m.nft_expr();
    if threshold < LOSS_RESOLUTION {
        if !r.is_empty() {
            r.push(' ');
        }
        r.push_str(&format!(
            "numgen random mod {LOSS_RESOLUTION} < {threshold}"
        ));
    }
    if !r.is_empty() {
        r.push(' ');
    }
    r.push_str(&format!(
        "counter drop comment \"{}ppm={threshold}\"",
        comment_key(direction, iface, m)
    ));
    r
}

/// Renders the whole transaction that makes `(direction, iface, m)` drop
/// `threshold` ppm: create table and chain if missing, delete the rules
/// with the same selector (`old_handles`), add the new one unless 0.
pub(crate) fn render_set_script(
    direction: Direction,
    iface: &str,
    m: &LossMatch,
    threshold: u32,
    old_handles: &[u64],
) -> String {
    let chain = chain_name(direction, iface);
    let mut s = format!("add table netdev {TABLE}\n");
    s.push_str(&format!(
        "add chain netdev {TABLE} {chain} {{ type filter hook {} device \"{iface}\" priority 0; policy accept; }}\n",
        direction.as_str()
    ));
    for h in old_handles {
        s.push_str(&format!("delete rule netdev {TABLE} {chain} handle {h}\n"));
    }
    if threshold > 0 {
        s.push_str(&format!(
            "add rule netdev {TABLE} {chain} {}\n",
            render_rule(direction, iface, m, threshold)
        ));
    }
    s
}

/// Script removing every loss rule of a host (the `add` makes the `delete`
/// succeed when there was no table).
pub(crate) fn render_clear_script() -> String {
    format!("add table netdev {TABLE}\ndelete table netdev {TABLE}\n")
}

/// One installed loss rule with its counters, as read back from nft.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstalledLoss {
    /// Chain (`ingress_eth0`...).
    pub chain: String,
    /// nft rule handle.
    pub handle: u64,
    /// The selector comment (`lr:ingress:eth0:udp-dport-20202:ppm=50000`).
    pub comment: String,
    /// Drop threshold in parts per million, parsed from the comment.
    pub ppm: Option<u32>,
    /// Packets dropped so far.
    pub packets: u64,
    /// Bytes dropped so far.
    pub bytes: u64,
}

/// Parses `nft -j -a list ruleset netdev` output into our rules.
pub(crate) fn parse_rules(json: &str) -> Result<Vec<InstalledLoss>> {
    let bad = |detail: String| Error::Output {
        cmdline: "nft -j -a list ruleset netdev".into(),
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
    let json = sys::exec_in(
        netns,
        "nft",
        &["-j", "-a", "list", "ruleset", "netdev"],
        None,
    )?;
    parse_rules(&json)
}

/// Sets the loss of one selector on one interface of `netns`.
pub(crate) fn set(
    netns: &str,
    direction: Direction,
    iface: &str,
    m: &LossMatch,
    threshold: u32,
) -> Result<()> {
    let key = comment_key(direction, iface, m);
    let chain = chain_name(direction, iface);
    let old: Vec<u64> = list(netns)?
        .into_iter()
        .filter(|r| r.chain == chain && r.comment.starts_with(&key))
        .map(|r| r.handle)
        .collect();
    let script = render_set_script(direction, iface, m, threshold, &old);
    sys::nft_script(netns, &script).map(|_| ())
}

/// Removes every loss rule in `netns`.
pub(crate) fn clear(netns: &str) -> Result<()> {
    sys::nft_script(netns, &render_clear_script()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_rules() {
        assert_eq!(
            render_rule(Direction::Ingress, "eth0", &LossMatch::UdpDport(20202), 500_000),
            "udp dport 20202 numgen random mod 1000000 < 500000 counter drop comment \"lr:ingress:eth0:udp-dport-20202:ppm=500000\""
        );
        assert_eq!(
            render_rule(Direction::Egress, "eth1", &LossMatch::Ethertype(0x88b5), 1),
            "ether type 0x88b5 numgen random mod 1000000 < 1 counter drop comment \"lr:egress:eth1:ether-88b5:ppm=1\""
        );
        assert_eq!(
            render_rule(Direction::Egress, "eth0", &LossMatch::All, LOSS_RESOLUTION),
            "counter drop comment \"lr:egress:eth0:all:ppm=1000000\""
        );
        assert_eq!(
            render_rule(
                Direction::Egress,
                "eth0",
                &LossMatch::UdpSport(7),
                LOSS_RESOLUTION
            ),
            "udp sport 7 counter drop comment \"lr:egress:eth0:udp-sport-7:ppm=1000000\""
        );
    }

    #[test]
    fn renders_scripts() {
        let s = render_set_script(Direction::Egress, "eth0", &LossMatch::All, 0, &[4, 9]);
        assert_eq!(
            s,
            "add table netdev linerate\n\
             add chain netdev linerate egress_eth0 { type filter hook egress device \"eth0\" priority 0; policy accept; }\n\
             delete rule netdev linerate egress_eth0 handle 4\n\
             delete rule netdev linerate egress_eth0 handle 9\n"
        );
        let s = render_set_script(Direction::Ingress, "eth0", &LossMatch::All, 10, &[]);
        assert!(s.ends_with("add rule netdev linerate ingress_eth0 numgen random mod 1000000 < 10 counter drop comment \"lr:ingress:eth0:all:ppm=10\"\n"), "{s}");
        assert!(render_clear_script().contains("delete table netdev linerate"));
    }

    #[test]
    fn parses_nft_json() -> Result<()> {
        let json = r#"{"nftables": [{"metainfo": {"version": "1.0.6"}},
          {"table": {"family": "netdev", "name": "linerate", "handle": 1}},
          {"rule": {"family": "netdev", "table": "linerate", "chain": "ingress_eth0", "handle": 3,
             "comment": "lr:ingress:eth0:udp-dport-5000:ppm=500000",
             "expr": [{"match": {}}, {"counter": {"packets": 12, "bytes": 3400}}, {"drop": null}]}},
          {"rule": {"family": "netdev", "table": "other", "chain": "x", "handle": 4, "comment": "lr:x", "expr": []}},
          {"rule": {"family": "netdev", "table": "linerate", "chain": "x", "handle": 5, "expr": []}}]}"#;
        let r = parse_rules(json)?;
        assert_eq!(r.len(), 1);
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
