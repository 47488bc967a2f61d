//! Hex test vectors under `tests/vectors/` (many captured from Aravis's own
//! fake camera and host tools): every packet must decode, and re-encoding
//! the decoded value must reproduce the captured bytes. Vectors under an
//! `invalid/` folder are the opposite: each must be refused with an error.
//!
//! File format: `#` comments, blank lines, and lines
//! `<proto> <src_port> <dst_port> <hex>` where proto is gvcp, gvsp,
//! gvsp-tcp, fade-v1 or fade-10g.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use linerate_wire::gvcp::{Ack, Command, Message};
use linerate_wire::gvsp::{Body, PacketRepr};
use linerate_wire::{fade, gvsp_tcp};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "hex") {
            out.push(p);
        }
    }
}

fn hex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("odd number of hex digits ({})", s.len()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("at {i}: {e}")))
        .collect()
}

/// Decodes one vector, re-encodes it, and names the packet kind for the coverage count.
fn check(proto: &str, bytes: &[u8]) -> Result<String, String> {
    match proto {
        "gvcp" => {
            let m = Message::parse(bytes).map_err(|e| e.to_string())?;
            let again = m.to_vec().map_err(|e| format!("re-encode: {e}"))?;
            if again != bytes[..again.len().min(bytes.len())] || again.len() > bytes.len() {
                return Err(format!("re-encoded bytes differ: {}", to_hex(&again)));
            }
            Ok(match m {
                Message::Command(c) => format!(
                    "gvcp cmd {}",
                    match c.command {
                        Command::Discovery => "discovery",
                        Command::Bye => "bye",
                        Command::ForceIp(_) => "forceip",
                        Command::ReadReg { .. } => "readreg",
                        Command::WriteReg { .. } => "writereg",
                        Command::ReadMem { .. } => "readmem",
                        Command::WriteMem { .. } => "writemem",
                        Command::PacketResend(_) => "packet-resend",
                    }
                ),
                Message::Ack(a) => format!(
                    "gvcp ack {}{}",
                    match a.ack {
                        Ack::Discovery(_) => "discovery",
                        Ack::Bye => "bye",
                        Ack::ReadReg { .. } => "readreg",
                        Ack::WriteReg { .. } => "writereg",
                        Ack::ReadMem { .. } => "readmem",
                        Ack::WriteMem { .. } => "writemem",
                        Ack::PendingAck { .. } => "pending",
                        Ack::Bare { .. } => "error-only",
                    },
                    if a.status.is_error() {
                        " (error status)"
                    } else {
                        ""
                    }
                ),
            })
        }
        "gvsp" => {
            let p = PacketRepr::parse(bytes).map_err(|e| e.to_string())?;
            let again = p.to_vec().map_err(|e| format!("re-encode: {e}"))?;
            if again != bytes {
                return Err(format!("re-encoded bytes differ: {}", to_hex(&again)));
            }
            let kind = match p.body {
                Body::Leader(_) => "leader",
                Body::Trailer(_) => "trailer",
                Body::Payload(_) => "payload",
                Body::AllIn { .. } => "all-in",
                Body::Empty => "error-only",
            };
            let ids = if p.header.extended {
                "extended"
            } else {
                "standard"
            };
            let resent = if p.header.status == linerate_wire::Status::PACKET_RESEND {
                " resent"
            } else {
                ""
            };
            Ok(format!("gvsp {kind} ({ids} ids){resent}"))
        }
        "gvsp-tcp" => {
            let r = gvsp_tcp::Record::new_checked(bytes).map_err(|e| e.to_string())?;
            PacketRepr::parse(r.body()).map_err(|e| e.to_string())?;
            Ok("gvsp-tcp record".into())
        }
        "fade-v1" => {
            fade::v1::Repr::parse_bytes(bytes).map_err(|e| e.to_string())?;
            Ok("fade-v1".into())
        }
        "fade-10g" => {
            fade::ten_g::Repr::parse_bytes(bytes).map_err(|e| e.to_string())?;
            Ok("fade-10g".into())
        }
        other => Err(format!("unknown protocol {other:?}")),
    }
}

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn every_vector_decodes_and_reencodes() {
    let mut paths = Vec::new();
    files(&vectors_dir(), &mut paths);
    assert!(
        !paths.is_empty(),
        "no vector files under {}",
        vectors_dir().display()
    );
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut aravis_kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut total = 0;
    let mut invalid = 0;
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("vector file is UTF-8");
        let from_aravis = path.components().any(|c| c.as_os_str() == "aravis");
        let must_fail = path.components().any(|c| c.as_os_str() == "invalid");
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            total += 1;
            let fields: Vec<&str> = line.split_whitespace().collect();
            let result = match fields.as_slice() {
                [proto, _src, _dst, h] => hex(h).and_then(|b| check(proto, &b)),
                _ => Err("expected `<proto> <src_port> <dst_port> <hex>`".into()),
            };
            if must_fail {
                invalid += 1;
                if let Ok(kind) = result {
                    failures.push(format!(
                        "{}:{}: accepted ({kind}) but must be refused",
                        path.display(),
                        n + 1
                    ));
                }
                continue;
            }
            match result {
                Ok(kind) => {
                    if from_aravis {
                        *aravis_kinds.entry(kind.clone()).or_default() += 1;
                    }
                    *kinds.entry(kind).or_default() += 1;
                }
                Err(e) => failures.push(format!("{}:{}: {e}", path.display(), n + 1)),
            }
        }
    }
    eprintln!("{total} vectors ({invalid} that must be refused); kinds: {kinds:#?}");
    assert!(
        invalid >= 10,
        "the invalid/ vectors went missing ({invalid} found)"
    );
    assert!(
        failures.is_empty(),
        "{} of {total} vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The Aravis captures must keep covering the packet kinds a host and a
    // camera exchange, so a regenerated capture cannot silently lose them.
    for required in [
        "gvcp cmd discovery",
        "gvcp ack discovery",
        "gvcp cmd readreg",
        "gvcp ack readreg",
        "gvcp cmd writereg",
        "gvcp ack writereg",
        "gvcp cmd readmem",
        "gvcp ack readmem",
        "gvcp cmd packet-resend",
        "gvsp leader (standard ids)",
        "gvsp payload (standard ids)",
        "gvsp trailer (standard ids)",
    ] {
        assert!(
            aravis_kinds.contains_key(required),
            "Aravis captures lack a {required:?} packet; have {aravis_kinds:#?}"
        );
    }
}
