//! Fetching XML from an in-memory device: zipped (deflated and stored),
//! plain with odd lengths, the second URL as fallback, and the typed errors
//! for corrupt archives, zip bombs and over-long lengths.

use std::io::{Cursor, Write};

use linerate_genicam::{
    fetch_xml, fetch_xml_document, Error, FeatureValue, Features, PortError, RegisterPort,
    FIRST_URL_ADDRESS, MAX_CHUNK, MAX_XML_BYTES, SECOND_URL_ADDRESS,
};
use linerate_gev::device::GENICAM_XML;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

const FILE_ADDRESS: u64 = 0x10000;

/// Byte-addressed memory with two URL registers and a file at 0x10000.
struct Memory {
    bytes: Vec<u8>,
    reads: Vec<(u64, usize)>,
}

impl Memory {
    fn new(first_url: &str, second_url: &str, file: &[u8]) -> Memory {
        let mut bytes = vec![0u8; FILE_ADDRESS as usize + file.len() + 4];
        for (address, url) in [
            (FIRST_URL_ADDRESS, first_url),
            (SECOND_URL_ADDRESS, second_url),
        ] {
            let at = address as usize;
            bytes[at..at + url.len()].copy_from_slice(url.as_bytes());
        }
        let at = FILE_ADDRESS as usize;
        bytes[at..at + file.len()].copy_from_slice(file);
        Memory {
            bytes,
            reads: Vec::new(),
        }
    }

    /// A device whose first URL names `file_name` holding `file`.
    fn serving(file_name: &str, file: &[u8]) -> Memory {
        let url = format!("Local:{file_name};{FILE_ADDRESS:x};{:x}", file.len());
        Memory::new(&url, "", file)
    }
}

impl RegisterPort for Memory {
    fn read(&mut self, address: u64, buf: &mut [u8]) -> Result<(), PortError> {
        assert!(address % 4 == 0 && buf.len() % 4 == 0 && buf.len() <= MAX_CHUNK);
        self.reads.push((address, buf.len()));
        let start =
            usize::try_from(address).map_err(|_| PortError::read(address, buf.len(), "huge"))?;
        let src = self
            .bytes
            .get(start..start + buf.len())
            .ok_or_else(|| PortError::read(address, buf.len(), "INVALID_ADDRESS"))?;
        buf.copy_from_slice(src);
        Ok(())
    }

    fn write(&mut self, address: u64, data: &[u8]) -> Result<(), PortError> {
        Err(PortError::write(address, data.len(), "read-only memory"))
    }
}

fn zip_of(entries: &[(&str, &[u8])], method: CompressionMethod) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(method);
    for (name, data) in entries {
        writer.start_file(*name, options).expect("start file");
        writer.write_all(data).expect("write");
    }
    writer.finish().expect("finish").into_inner()
}

fn camera_xml() -> &'static str {
    std::str::from_utf8(GENICAM_XML).expect("UTF-8")
}

#[test]
fn deflated_zip_gives_the_xml() {
    let archive = zip_of(&[("cam.xml", GENICAM_XML)], CompressionMethod::Deflated);
    assert!(archive.len() < GENICAM_XML.len() / 3, "really compressed");
    let mut mem = Memory::serving("cam.zip", &archive);
    let xml = fetch_xml(&mut mem).expect("fetch");
    assert_eq!(xml, camera_xml());
    // And the features build from it.
    let f = Features::from_xml(&xml).expect("builds");
    assert!(f.contains("Width"));
    assert!(mem.reads.iter().all(|&(_, n)| n <= 512));
}

#[test]
fn stored_zip_and_odd_names() {
    let archive = zip_of(
        &[
            ("README.txt", b"not this one"),
            ("dir/Camera.XML", GENICAM_XML),
        ],
        CompressionMethod::Stored,
    );
    let mut mem = Memory::serving("Vendor_Model.ZIP", &archive);
    assert_eq!(fetch_xml(&mut mem).expect("fetch"), camera_xml());

    // A single entry is taken whatever its name.
    let archive = zip_of(
        &[("description", b"<RegisterDescription/>")],
        CompressionMethod::Deflated,
    );
    let mut mem = Memory::serving("cam.zip", &archive);
    assert_eq!(
        fetch_xml(&mut mem).expect("fetch"),
        "<RegisterDescription/>"
    );

    // Several entries, none of them XML.
    let archive = zip_of(
        &[("a.txt", b"a"), ("b.bin", b"b")],
        CompressionMethod::Deflated,
    );
    let mut mem = Memory::serving("cam.zip", &archive);
    match fetch_xml(&mut mem) {
        Err(Error::Zip { file_name, reason }) => {
            assert_eq!(file_name, "cam.zip");
            assert!(reason.contains("a.txt"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn corrupt_zips_are_typed_errors() {
    let good = zip_of(&[("cam.xml", GENICAM_XML)], CompressionMethod::Deflated);

    // Damage the compressed data (past the 30-byte local header and the name).
    let mut damaged = good.clone();
    for b in &mut damaged[60..90] {
        *b ^= 0x5a;
    }
    // Not a zip at all.
    let garbage = b"PK\x03\x04 this is not really a zip archive".to_vec();
    // Cut before the central directory.
    let truncated = good[..good.len() / 2].to_vec();
    // The CRC-32 in both headers no longer matches the data.
    let stored = zip_of(
        &[("cam.xml", b"<RegisterDescription/>")],
        CompressionMethod::Stored,
    );
    let mut bad_crc = stored.clone();
    let data_at = 30 + "cam.xml".len();
    bad_crc[data_at + 1] ^= 0x01;

    for (what, bytes) in [
        ("damaged", damaged),
        ("garbage", garbage),
        ("truncated", truncated),
        ("bad CRC", bad_crc),
    ] {
        let mut mem = Memory::serving("cam.zip", &bytes);
        match fetch_xml(&mut mem) {
            Err(Error::Zip { file_name, reason }) => {
                assert_eq!(file_name, "cam.zip", "{what}");
                assert!(!reason.is_empty(), "{what}");
            }
            other => panic!("{what}: expected a zip error, got {other:?}"),
        }
    }
}

#[test]
fn zip_bombs_are_refused() {
    let huge = vec![b' '; MAX_XML_BYTES + 1];
    let archive = zip_of(&[("cam.xml", &huge)], CompressionMethod::Deflated);
    assert!(archive.len() < 100_000);
    let mut mem = Memory::serving("cam.zip", &archive);
    match fetch_xml(&mut mem) {
        Err(Error::XmlTooLarge { what, length, max }) => {
            assert_eq!(what, "uncompressed XML");
            assert_eq!(length, (MAX_XML_BYTES + 1) as u64);
            assert_eq!(max, MAX_XML_BYTES as u64);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn over_long_lengths_are_refused_before_reading() {
    let url = format!("Local:cam.zip;10000;{:x}", MAX_XML_BYTES + 1);
    let mut mem = Memory::new(&url, "", b"");
    match fetch_xml(&mut mem) {
        Err(Error::XmlTooLarge {
            what: "file",
            length,
            ..
        }) => {
            assert_eq!(length, (MAX_XML_BYTES + 1) as u64);
        }
        other => panic!("{other:?}"),
    }
    // Only the URL register was read.
    assert_eq!(mem.reads, [(FIRST_URL_ADDRESS, 512)]);

    // A length within the limit but past the device's memory: the port's error.
    let mut mem = Memory::new("Local:cam.xml;10000;100000", "", b"<a/>");
    assert!(matches!(fetch_xml(&mut mem), Err(Error::Port(_))));
}

#[test]
fn plain_xml_of_any_length() {
    for xml in [
        "<RegisterDescription/>",
        "<a/>",
        "<ab/>",
        "<abc/>",
        "<abcd/>",
    ] {
        let mut mem = Memory::serving("x.xml", xml.as_bytes());
        assert_eq!(fetch_xml(&mut mem).expect("fetch"), xml);
    }
}

#[test]
fn second_url_is_the_fallback() {
    let file = b"<RegisterDescription/>";
    let local = format!(
        "local:///cam.xml;{FILE_ADDRESS:x};{:x}?SchemaVersion=1.1.0",
        file.len()
    );
    let mut mem = Memory::new("File:///opt/camera.xml", &local, file);
    assert_eq!(
        fetch_xml(&mut mem).expect("fetch"),
        "<RegisterDescription/>"
    );

    // Neither usable: the first URL's error, naming it.
    let mut mem = Memory::new("http://example.com/cam.xml", "", file);
    match fetch_xml(&mut mem) {
        Err(Error::UnsupportedUrl { url }) => assert_eq!(url, "http://example.com/cam.xml"),
        other => panic!("{other:?}"),
    }
    let mut mem = Memory::new("", "", file);
    assert!(matches!(fetch_xml(&mut mem), Err(Error::InvalidUrl { .. })));
}

#[test]
fn features_work_over_plain_memory_too() {
    // A tiny XML with a bounded integer, served from memory.
    let xml = r#"<?xml version="1.0" encoding="utf-8"?>
<RegisterDescription ModelName="M" VendorName="V" StandardNameSpace="None"
    SchemaMajorVersion="1" SchemaMinorVersion="1" SchemaSubMinorVersion="0"
    MajorVersion="1" MinorVersion="0" SubMinorVersion="0"
    ProductGuid="00000000-0000-0000-0000-000000000000" VersionGuid="00000000-0000-0000-0000-000000000000"
    xmlns="http://www.genicam.org/GenApi/Version_1_1">
  <Category Name="Root"><pFeature>Gain</pFeature></Category>
  <Integer Name="Gain"><pValue>GainReg</pValue><Min>0</Min><Max>48</Max><Inc>2</Inc></Integer>
  <IntReg Name="GainReg"><Address>0x1000C</Address><Length>4</Length><AccessMode>RW</AccessMode>
    <pPort>Device</pPort><Sign>Unsigned</Sign><Endianess>BigEndian</Endianess></IntReg>
  <Port Name="Device"/>
</RegisterDescription>"#;
    let mut f = Features::from_xml(xml).expect("builds");
    assert_eq!(f.names().collect::<Vec<_>>(), ["Gain"]);
    let mut mem = Memory::serving("x.xml", &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12]);
    assert_eq!(
        f.get(&mut mem, "Gain").expect("get"),
        FeatureValue::Integer(12)
    );
    assert_eq!(f.int_bounds(&mut mem, "Gain").expect("bounds"), (0, 48, 2));
    assert!(matches!(
        f.set(&mut mem, "Gain", "13"),
        Err(Error::NotOnIncrement { .. })
    ));
    // Writes reach the port (this memory refuses them: a typed write error).
    match f.set(&mut mem, "Gain", "14") {
        Err(Error::Port(e)) => assert_eq!((e.address, e.length), (0x1000c, 4)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_document_says_zipped_and_which_url_register_served_it() {
    let archive = zip_of(&[("cam.xml", GENICAM_XML)], CompressionMethod::Deflated);
    let mut mem = Memory::serving("cam.zip", &archive);
    let document = fetch_xml_document(&mut mem).expect("fetch");
    assert!(document.zipped());
    assert_eq!(document.text, camera_xml());
    assert_eq!(document.register, FIRST_URL_ADDRESS);
    assert_eq!(document.file_name(), "cam.zip");
    assert_eq!(
        (document.address(), document.file_length()),
        (FILE_ADDRESS, archive.len())
    );
    assert!(
        document.url.starts_with("Local:cam.zip;"),
        "{}",
        document.url
    );

    // A first URL this crate cannot read falls back to the second.
    let second = format!("Local:cam.xml;{FILE_ADDRESS:x};{:x}", GENICAM_XML.len());
    let mut mem = Memory::new("http://example.invalid/cam.xml", &second, GENICAM_XML);
    let document = fetch_xml_document(&mut mem).expect("fetch");
    assert_eq!(document.register, SECOND_URL_ADDRESS);
    assert!(!document.zipped());
    assert_eq!(document.url, second);
}
