//! `linerate decode`: run our wire decoders on hex packets or vector files.
//!
//! A device developer pastes a packet from a capture and sees at once what
//! linerate makes of it, or why it refuses it.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use linerate_wire::{fade, gvcp, gvsp, gvsp_tcp};

/// Protocols `linerate decode` understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Proto {
    /// GVCP datagram (UDP payload, command or ack).
    Gvcp,
    /// GVSP datagram (UDP payload).
    Gvsp,
    /// One linerate GVSP-over-TCP record (header and body).
    GvspTcp,
    /// FADE v1 payload (bytes after the Ethernet header).
    FadeV1,
    /// FADE-10G payload (bytes after the Ethernet header).
    #[value(name = "fade-10g")]
    Fade10g,
}

/// Arguments of `linerate decode`.
#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// Protocol of the packets. With --file, lines name their own protocol.
    #[arg(long, value_enum)]
    proto: Option<Proto>,
    /// Packets as hex strings (spaces and colons allowed inside quotes).
    hex: Vec<String>,
    /// A vector file: lines `<proto> <src_port> <dst_port> <hex>`, `#` comments.
    #[arg(long)]
    file: Option<PathBuf>,
    /// Print one JSON object per packet instead of text.
    #[arg(long)]
    json: bool,
}

fn parse_hex(text: &str) -> Result<Vec<u8>> {
    let clean: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ':')
        .collect();
    if clean.len() % 2 != 0 {
        bail!("hex string has an odd number of digits ({})", clean.len());
    }
    (0..clean.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&clean[i..i + 2], 16)
                .with_context(|| format!("bad hex digits {:?} at offset {i}", &clean[i..i + 2]))
        })
        .collect()
}

/// Decodes one packet, returning a description or the decoder's error.
pub fn describe(proto: Proto, bytes: &[u8]) -> std::result::Result<String, String> {
    let r = match proto {
        Proto::Gvcp => gvcp::Message::parse(bytes).map(|m| format!("{m:?}")),
        Proto::Gvsp => gvsp::PacketRepr::parse(bytes).map(|p| format!("{p:?}")),
        Proto::GvspTcp => gvsp_tcp::Record::new_checked(bytes).and_then(|r| {
            gvsp::PacketRepr::parse(r.body()).map(|p| format!("{:?} {p:?}", r.header()))
        }),
        Proto::FadeV1 => fade::v1::Repr::parse_bytes(bytes).map(|p| format!("{p:?}")),
        Proto::Fade10g => fade::ten_g::Repr::parse_bytes(bytes).map(|p| format!("{p:?}")),
    };
    r.map_err(|e| e.to_string())
}

/// Decodes one packet into its fields, as `decode --json` prints them:
/// names and numbers, never a Rust Debug string.
pub fn fields(proto: Proto, bytes: &[u8]) -> std::result::Result<serde_json::Value, String> {
    let json = |v: std::result::Result<serde_json::Value, serde_json::Error>| {
        v.map_err(|e| format!("cannot present the decoded packet: {e}"))
    };
    match proto {
        Proto::Gvcp => gvcp::Message::parse(bytes)
            .map_err(|e| e.to_string())
            .and_then(|m| json(serde_json::to_value(&m))),
        Proto::Gvsp => gvsp::PacketRepr::parse(bytes)
            .map_err(|e| e.to_string())
            .and_then(|p| json(serde_json::to_value(p))),
        Proto::GvspTcp => {
            let record = gvsp_tcp::Record::new_checked(bytes).map_err(|e| e.to_string())?;
            let packet = gvsp::PacketRepr::parse(record.body()).map_err(|e| e.to_string())?;
            json(serde_json::to_value(
                serde_json::json!({ "record": record.header(), "packet": packet }),
            ))
        }
        Proto::FadeV1 => fade::v1::Repr::parse_bytes(bytes)
            .map_err(|e| e.to_string())
            .and_then(|p| json(serde_json::to_value(p))),
        Proto::Fade10g => fade::ten_g::Repr::parse_bytes(bytes)
            .map_err(|e| e.to_string())
            .and_then(|p| json(serde_json::to_value(p))),
    }
}

fn proto_from_name(name: &str) -> Result<Proto> {
    Proto::from_str(name, true)
        .map_err(|_| anyhow::anyhow!("unknown protocol {name:?} in vector file"))
}

/// Runs `linerate decode`.
pub fn run(args: DecodeArgs) -> Result<()> {
    let mut items: Vec<(Proto, String)> = Vec::new();
    for h in &args.hex {
        let proto = args.proto.context(
            "--proto is required for hex arguments (gvcp, gvsp, gvsp-tcp, fade-v1, fade-10g)",
        )?;
        items.push((proto, h.clone()));
    }
    if let Some(path) = &args.file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read vector file {}", path.display()))?;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (proto, hex) = match fields.as_slice() {
                [p, _, _, hex] => (proto_from_name(p)?, *hex),
                [p, hex] => (proto_from_name(p)?, *hex),
                _ => bail!(
                    "{}:{}: expected `<proto> <src_port> <dst_port> <hex>`",
                    path.display(),
                    n + 1
                ),
            };
            items.push((args.proto.unwrap_or(proto), hex.to_string()));
        }
    }
    if items.is_empty() {
        bail!("nothing to decode: give hex packets or --file");
    }
    let mut failures = 0usize;
    let mut packets = Vec::new();
    for (proto, hex) in items {
        let bytes = parse_hex(&hex)?;
        let result = if args.json {
            fields(proto, &bytes)
        } else {
            describe(proto, &bytes).map(serde_json::Value::String)
        };
        failures += usize::from(result.is_err());
        let name = proto
            .to_possible_value()
            .map_or_else(|| format!("{proto:?}"), |v| v.get_name().to_owned());
        if args.json {
            packets.push(match &result {
                Ok(d) => {
                    serde_json::json!({"proto": name, "len": bytes.len(), "ok": true, "decoded": d})
                }
                Err(e) => {
                    serde_json::json!({"proto": name, "len": bytes.len(), "ok": false, "error": e})
                }
            });
        } else {
            match result {
                Ok(serde_json::Value::String(d)) => {
                    println!("{proto:?} ({} bytes): {d}", bytes.len())
                }
                Ok(d) => println!("{proto:?} ({} bytes): {d}", bytes.len()),
                Err(e) => println!("{proto:?} ({} bytes): ERROR {e}", bytes.len()),
            }
        }
    }
    if args.json {
        crate::json_println!(
            "{}",
            serde_json::json!({
                "ok": failures == 0,
                "failures": failures,
                "error": (failures > 0).then(|| format!("{failures} packet(s) did not decode")),
                "packets": packets,
            })
        );
    }
    if failures > 0 {
        bail!("{failures} packet(s) did not decode");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_parsing() {
        assert_eq!(parse_hex("42 01:00 02").ok(), Some(vec![0x42, 1, 0, 2]));
        assert!(parse_hex("421").is_err());
        assert!(parse_hex("zz").is_err());
    }

    #[test]
    fn describes_and_refuses() {
        let discovery = parse_hex("4211000200000001").expect("hex");
        assert!(describe(Proto::Gvcp, &discovery).is_ok_and(|d| d.contains("Discovery")));
        assert!(describe(Proto::Gvsp, &discovery[..3]).is_err());
    }

    #[test]
    fn json_fields_are_names_and_numbers_not_debug_strings() {
        let discovery = parse_hex("4211000200000001").expect("hex");
        let v = fields(Proto::Gvcp, &discovery).expect("decodes");
        let text = v.to_string();
        assert!(text.contains("discovery"), "{text}");
        assert!(!text.contains("Discovery {"), "{text}");
        assert!(fields(Proto::Gvsp, &discovery[..3]).is_err());
    }
}
