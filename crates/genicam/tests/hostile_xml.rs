//! No XML and no register content may crash the host: malformed XML gives
//! typed errors, shapes that would overflow cameleon-genapi's recursion are
//! refused up front, and shapes at the limits still work on a 2 MiB stack.

use linerate_genicam::{
    Error, FeatureValue, Features, PortError, RegisterPort, MAX_ELEMENT_DEPTH, MAX_OPERATORS,
    MAX_PAREN_DEPTH, MAX_REFERENCE_DEPTH,
};
use linerate_gev::device::GENICAM_XML;
use proptest::prelude::*;

/// Memory that answers every read with the same repeated byte pattern.
struct Pattern(Vec<u8>);

impl RegisterPort for Pattern {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), PortError> {
        if self.0.is_empty() {
            return Err(PortError::read(address, buf.len(), "no memory"));
        }
        for (i, b) in buf.iter_mut().enumerate() {
            *b = self.0[(address as usize + i) % self.0.len()];
        }
        Ok(())
    }

    fn write(&mut self, _address: u64, _data: &[u8]) -> Result<(), PortError> {
        Ok(())
    }
}

fn doc(body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<RegisterDescription ModelName="M" VendorName="V" StandardNameSpace="None"
    SchemaMajorVersion="1" SchemaMinorVersion="1" SchemaSubMinorVersion="0"
    MajorVersion="1" MinorVersion="0" SubMinorVersion="0"
    ProductGuid="00000000-0000-0000-0000-000000000000" VersionGuid="00000000-0000-0000-0000-000000000000"
    xmlns="http://www.genicam.org/GenApi/Version_1_1">
{body}
  <Port Name="Device"/>
</RegisterDescription>"#
    )
}

fn int_reg(name: &str, address: u32) -> String {
    format!(
        r#"<IntReg Name="{name}"><Address>{address:#x}</Address><Length>4</Length><AccessMode>RW</AccessMode>
  <pPort>Device</pPort><Sign>Unsigned</Sign><Endianess>BigEndian</Endianess></IntReg>"#
    )
}

fn too_complex(xml: &str) -> String {
    match Features::from_xml(xml) {
        Err(Error::XmlTooComplex { reason }) => reason,
        other => panic!("expected XmlTooComplex, got {other:?}"),
    }
}

/// Runs `f` on a thread with Rust's default 2 MiB stack (whatever
/// RUST_MIN_STACK says), so limits are tested against the smallest stack a
/// host thread normally has.
fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow or panic")
}

#[test]
fn malformed_xml_is_a_syntax_error() {
    for xml in [
        "",
        "not xml",
        "<a>",
        "<a></b>",
        "\u{0}",
        "<a/>",
        "<RegisterDescription/>",
        &doc("").replace("VendorName", "Vendor"),
    ] {
        assert!(
            matches!(Features::from_xml(xml), Err(Error::XmlSyntax { .. })),
            "{xml:?}"
        );
    }
}

#[test]
fn content_cameleon_unwraps_on_becomes_an_error() {
    // A non-numeric <Value>, and a root without the required attributes:
    // cameleon-genapi panics on both; the panic comes back as an error.
    let bad_value = doc(r#"<Integer Name="X"><Value>twelve</Value></Integer>"#);
    assert!(matches!(
        Features::from_xml(&bad_value),
        Err(Error::GenApiPanic { .. })
    ));
    let bad_version = doc("").replace(r#"MajorVersion="1""#, r#"MajorVersion="one""#);
    assert!(matches!(
        Features::from_xml(&bad_version),
        Err(Error::GenApiPanic { .. })
    ));
}

#[test]
fn dangling_references_fail_on_use_not_by_crashing() {
    let xml = doc(r#"<Integer Name="X"><pValue>Nowhere</pValue></Integer>"#);
    let mut f = Features::from_xml(&xml).expect("builds: references resolve lazily");
    let mut mem = Pattern(vec![0; 4]);
    match f.get(&mut mem, "X") {
        Err(Error::GenApiPanic { .. } | Error::GenApi { .. } | Error::NotReadable { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        f.get(&mut mem, "Nowhere"),
        Err(Error::UnknownFeature { .. })
    ));
}

#[test]
fn register_values_with_no_enum_entry_are_errors() {
    let xml = doc(&format!(
        r#"<Enumeration Name="Mode"><EnumEntry Name="Off"><Value>0</Value></EnumEntry>
  <EnumEntry Name="On"><Value>1</Value></EnumEntry><pValue>ModeReg</pValue></Enumeration>
  {}"#,
        int_reg("ModeReg", 0x100)
    ));
    let mut f = Features::from_xml(&xml).expect("builds");
    assert_eq!(
        f.get(&mut Pattern(vec![0, 0, 0, 1]), "Mode").expect("get"),
        FeatureValue::Enum("On".into())
    );
    assert!(matches!(
        f.get(&mut Pattern(vec![0, 0, 0, 7]), "Mode"),
        Err(Error::GenApi { .. })
    ));
}

#[test]
fn deep_nesting_is_refused() {
    let depth = MAX_ELEMENT_DEPTH + 1;
    let xml = doc(&format!(
        "{}{}",
        "<Group>".repeat(depth),
        "</Group>".repeat(depth)
    ));
    let reason = too_complex(&xml);
    assert!(reason.contains("nest"), "{reason}");
    // Far deeper still, without recursing anywhere.
    let xml = doc(&format!(
        "{}{}",
        "<Group>".repeat(100_000),
        "</Group>".repeat(100_000)
    ));
    too_complex(&xml);
}

fn knife(formula: &str) -> String {
    doc(&format!(
        r#"<IntSwissKnife Name="K"><pVariable Name="A">A</pVariable><Formula>{formula}</Formula></IntSwissKnife>
  {}"#,
        int_reg("A", 0x100)
    ))
}

#[test]
fn huge_formulas_are_refused() {
    let deep = format!(
        "{}A{}",
        "(".repeat(MAX_PAREN_DEPTH + 1),
        ")".repeat(MAX_PAREN_DEPTH + 1)
    );
    assert!(too_complex(&knife(&deep)).contains("parentheses"));
    let long = vec!["A"; MAX_OPERATORS + 2].join("+");
    assert!(too_complex(&knife(&long)).contains("operators"));
    let unary = format!("{}A", "-".repeat(MAX_OPERATORS + 1));
    too_complex(&knife(&unary));
    let chain = format!("{}0", "A ? 1 : ".repeat(MAX_OPERATORS));
    assert!(too_complex(&knife(&chain)).contains("operators"));
    // Far beyond any limit: refused, not overflowed.
    let absurd = format!("{}A{}", "(".repeat(200_000), ")".repeat(200_000));
    too_complex(&knife(&absurd));
}

/// `formula` in knife `K`, at the end of a chain of `hops` knives
/// `C0 -> C1 -> ... -> K -> A -> Device`, the deepest evaluation the limits allow.
fn knife_under_chain(formula: &str, hops: usize) -> String {
    let mut body = String::new();
    for i in 0..hops {
        let next = if i + 1 == hops {
            "K".to_string()
        } else {
            format!("C{}", i + 1)
        };
        body.push_str(&format!(
            "<IntSwissKnife Name=\"C{i}\"><pVariable Name=\"X\">{next}</pVariable><Formula>X</Formula></IntSwissKnife>\n"
        ));
    }
    body.push_str(&format!(
        r#"<IntSwissKnife Name="K"><pVariable Name="A">A</pVariable><Formula>{formula}</Formula></IntSwissKnife>
  {}"#,
        int_reg("A", 0x100)
    ));
    doc(&body)
}

#[test]
fn formulas_at_the_limits_work_on_a_small_stack() {
    // C0..C61 -> K -> A -> Device: 64 references, the most allowed.
    let hops = MAX_REFERENCE_DEPTH - 2;
    let value = on_small_stack(move || {
        // Parentheses and operators at their limits, under the longest chain.
        let depth = MAX_PAREN_DEPTH;
        let nested = format!("{}A{}", "(".repeat(depth), ")".repeat(depth));
        let formula = format!("{nested}{}", "+A".repeat(MAX_OPERATORS));
        let mut f =
            Features::from_xml(&knife_under_chain(&formula, hops)).expect("within the limits");
        f.get(&mut Pattern(vec![0, 0, 0, 1]), "C0")
            .expect("evaluates")
    });
    assert_eq!(value, FeatureValue::Integer(MAX_OPERATORS as i64 + 1));

    let value = on_small_stack(move || {
        // Unary minus and conditional chains at the limits.
        let unary = format!("{}A", "- -".repeat(MAX_OPERATORS / 2));
        let mut f =
            Features::from_xml(&knife_under_chain(&unary, hops)).expect("within the limits");
        let a = f
            .get(&mut Pattern(vec![0, 0, 0, 3]), "C0")
            .expect("evaluates");
        let chain = format!("{}A", "(A = 0) ? 5 : ".repeat(MAX_OPERATORS / 3));
        let mut f =
            Features::from_xml(&knife_under_chain(&chain, hops)).expect("within the limits");
        let b = f
            .get(&mut Pattern(vec![0, 0, 0, 3]), "C0")
            .expect("evaluates");
        (a, b)
    });
    assert_eq!(value, (FeatureValue::Integer(3), FeatureValue::Integer(3)));

    // One more hop, or one more operator, is refused.
    too_complex(&knife_under_chain("A", hops + 1));
    too_complex(&knife_under_chain(
        &vec!["A"; MAX_OPERATORS + 2].join("+"),
        1,
    ));
}

#[test]
fn reference_cycles_are_refused() {
    let xml = doc(r#"<Integer Name="A"><pValue>B</pValue></Integer>
  <Integer Name="B"><pValue>C</pValue></Integer>
  <IntSwissKnife Name="C"><pVariable Name="X">A</pVariable><Formula>X + 1</Formula></IntSwissKnife>"#);
    let reason = too_complex(&xml);
    assert!(
        reason.contains("cycle") && reason.contains("A (value)"),
        "{reason}"
    );

    // A bound that needs its own node's bound.
    let xml = doc(&format!(
        r#"<Integer Name="W"><pValue>WReg</pValue><pMax>M</pMax></Integer>
  <IntSwissKnife Name="M"><pVariable Name="W.Max">W</pVariable><Formula>W.Max</Formula></IntSwissKnife>
  {}"#,
        int_reg("WReg", 0x100)
    ));
    assert!(too_complex(&xml).contains("cycle"));

    // An expression that uses itself.
    let xml = doc(
        r#"<IntSwissKnife Name="K"><Expression Name="E">E + 1</Expression><Formula>E</Formula></IntSwissKnife>"#,
    );
    assert!(too_complex(&xml).contains("expressions"));
}

#[test]
fn mutual_bounds_are_not_a_cycle() {
    // Width's max depends on OffsetX's value and OffsetX's max on Width's
    // value, as in many real cameras: legal, and evaluates.
    let xml = doc(&format!(
        r#"<Integer Name="Width"><pValue>WidthReg</pValue><Min>16</Min><pMax>WidthMaxCalc</pMax><Inc>4</Inc></Integer>
  <Integer Name="OffsetX"><pValue>OffsetXReg</pValue><Min>0</Min><pMax>OffsetXMaxCalc</pMax><Inc>4</Inc></Integer>
  <IntSwissKnife Name="WidthMaxCalc"><pVariable Name="OX">OffsetX</pVariable><Formula>4096 - OX</Formula></IntSwissKnife>
  <IntSwissKnife Name="OffsetXMaxCalc"><pVariable Name="W">Width</pVariable><Formula>4096 - W</Formula></IntSwissKnife>
  {}
  {}"#,
        int_reg("WidthReg", 0x100),
        int_reg("OffsetXReg", 0x104)
    ));
    let mut f = Features::from_xml(&xml).expect("no cycle");
    let mut mem = Pattern(vec![0, 0, 4, 0, 0, 0, 0, 8]); // Width 1024, OffsetX 8
    assert_eq!(
        f.int_bounds(&mut mem, "Width").expect("bounds"),
        (16, 4088, 4)
    );
    assert_eq!(
        f.int_bounds(&mut mem, "OffsetX").expect("bounds"),
        (0, 3072, 4)
    );
}

fn chain(length: usize) -> String {
    let mut body = String::new();
    for i in 0..length {
        body.push_str(&format!(
            "<Integer Name=\"N{i}\"><pValue>N{}</pValue></Integer>\n",
            i + 1
        ));
    }
    body.push_str(&int_reg(&format!("N{length}"), 0x100));
    doc(&body)
}

#[test]
fn long_reference_chains_are_refused() {
    let reason = too_complex(&chain(MAX_REFERENCE_DEPTH + 1));
    assert!(reason.contains("chain"), "{reason}");
    too_complex(&chain(50_000));
}

#[test]
fn chains_at_the_limit_work_on_a_small_stack() {
    let value = on_small_stack(|| {
        let mut f = Features::from_xml(&chain(MAX_REFERENCE_DEPTH - 1)).expect("within the limit");
        f.get(&mut Pattern(vec![0, 0, 0, 42]), "N0")
            .expect("evaluates")
    });
    assert_eq!(value, FeatureValue::Integer(42));
}

#[test]
fn giant_register_lengths_are_refused() {
    let xml = doc(
        r#"<StringReg Name="S"><Address>0</Address><Length>0x40000000</Length><AccessMode>RO</AccessMode><pPort>Device</pPort></StringReg>"#,
    );
    assert!(too_complex(&xml).contains("Length"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Arbitrary text never panics.
    #[test]
    fn arbitrary_text_never_panics(text in ".{0,400}") {
        let _ = Features::from_xml(&text);
    }

    /// The camera's XML with a slice cut out or overwritten, then every
    /// feature read over arbitrary register contents: errors, never a crash.
    #[test]
    fn mangled_camera_xml_never_panics(
        at in 0usize..GENICAM_XML.len(),
        cut in 0usize..64,
        insert in "[<>/\"=A-Za-z0-9 ()+*?:-]{0,16}",
        pattern in proptest::collection::vec(any::<u8>(), 0..16),
    ) {
        let xml = std::str::from_utf8(GENICAM_XML).expect("UTF-8");
        let (head, tail) = xml.as_bytes().split_at(at);
        let tail = &tail[cut.min(tail.len())..];
        let mut mangled = head.to_vec();
        mangled.extend_from_slice(insert.as_bytes());
        mangled.extend_from_slice(tail);
        let mangled = String::from_utf8_lossy(&mangled);
        if let Ok(mut f) = Features::from_xml(&mangled) {
            let names: Vec<String> = f.names().map(str::to_string).collect();
            let mut port = Pattern(pattern);
            for name in &names {
                let _ = f.get(&mut port, name);
                let _ = f.set(&mut port, name, "1");
            }
        }
    }
}

#[test]
fn latin1_declared_xml_builds() {
    // decode_xml turns ISO-8859-1 bytes into text; the declaration stays and
    // must not stop the parser.
    let xml =
        doc(r#"<Integer Name="T"><Description>25 °C</Description><Value>25</Value></Integer>"#)
            .replace("encoding=\"utf-8\"", "encoding=\"ISO-8859-1\"");
    let bytes: Vec<u8> = xml.chars().map(|c| c as u8).collect();
    let text = linerate_genicam::decode_xml(&bytes, linerate_genicam::XmlFormat::Xml, "t.xml")
        .expect("decodes");
    let mut f = Features::from_xml(&text).expect("builds");
    assert_eq!(
        f.get(&mut Pattern(vec![0]), "T").expect("get"),
        FeatureValue::Integer(25)
    );
}
