//! Fetching the device's GenICam XML: read the URL register, read the file
//! from device memory, unzip it if needed, and decode the text.

use std::io::{Cursor, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::Error;
use crate::port::{read_memory, RegisterPort};
use crate::url::{parse_url, XmlFormat, XmlLocation};

/// Largest XML accepted, compressed (the length in the URL) and uncompressed.
///
/// Real camera XMLs are 0.1 to 5 MB uncompressed; the bound keeps a wrong
/// length in a URL register, or a zip bomb, from making the host read or
/// allocate without limit.
pub const MAX_XML_BYTES: usize = 16 << 20;

/// Address of the first URL bootstrap register (GigE Vision).
pub const FIRST_URL_ADDRESS: u64 = 0x0200;
/// Address of the second URL bootstrap register, tried when the first does
/// not name a file this crate can read.
pub const SECOND_URL_ADDRESS: u64 = 0x0400;
/// Size of each URL register, NUL-terminated text.
pub const URL_REGISTER_LEN: usize = 512;

/// Reads the URL register at `address` (512 bytes) and returns its text up
/// to the first NUL, so a host can show or log what the device announced.
pub fn read_url(port: &mut dyn RegisterPort, address: u64) -> Result<String, Error> {
    let mut buf = vec![0u8; URL_REGISTER_LEN];
    read_memory(port, address, &mut buf)?;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let bytes = buf.get(..end).unwrap_or_default();
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.to_string()),
        Err(_) => Err(Error::InvalidUrl {
            url: String::from_utf8_lossy(bytes).into_owned(),
            reason: "the URL register is not UTF-8 text",
        }),
    }
}

/// Reads the device's URL registers, fetches the XML file they name in
/// chunks of at most 512 bytes, unzips it if it is a `.zip`, and returns the
/// XML text.
///
/// The first URL is used when it parses to a location this crate can read;
/// otherwise the second is tried, and if that fails too the first URL's
/// error is returned (it is the one the device means).
pub fn fetch_xml(port: &mut dyn RegisterPort) -> Result<String, Error> {
    fetch_xml_document(port).map(|document| document.text)
}

/// A device's GenICam XML with where it came from, for tools that show or
/// save it (`linerate xml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlDocument {
    /// The URL text the device announced, as read from its register.
    pub url: String,
    /// Which URL register held it ([`FIRST_URL_ADDRESS`] or [`SECOND_URL_ADDRESS`]).
    pub register: u64,
    /// The parsed location (file name, address, length, zipped or not).
    pub location: XmlLocation,
    /// The XML text, unzipped and decoded.
    pub text: String,
}

impl XmlDocument {
    /// Whether the device served the XML zipped (the text is unzipped).
    pub fn zipped(&self) -> bool {
        let XmlLocation::Local { format, .. } = &self.location;
        *format == XmlFormat::Zip
    }

    /// The file name in the URL (`linerate-camera.xml`).
    pub fn file_name(&self) -> &str {
        let XmlLocation::Local { file_name, .. } = &self.location;
        file_name
    }

    /// Device address of the file's first byte.
    pub fn address(&self) -> u64 {
        let XmlLocation::Local { address, .. } = &self.location;
        *address
    }

    /// Bytes the device serves (of the zip, when zipped).
    pub fn file_length(&self) -> usize {
        let XmlLocation::Local { length, .. } = &self.location;
        *length
    }
}

/// Like [`fetch_xml`], keeping the URL and location the XML was read from.
pub fn fetch_xml_document(port: &mut dyn RegisterPort) -> Result<XmlDocument, Error> {
    let mut first_error = None;
    for register in [FIRST_URL_ADDRESS, SECOND_URL_ADDRESS] {
        let parsed = read_url(port, register).and_then(|url| {
            let location = parse_url(&url)?;
            Ok((url, location))
        });
        match parsed {
            Ok((url, location)) => {
                let text = fetch_from(port, &location)?;
                return Ok(XmlDocument {
                    url,
                    register,
                    location,
                    text,
                });
            }
            // A transport failure is not a reason to try the other URL.
            Err(e @ Error::Port(_)) => return Err(first_error.unwrap_or(e)),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or(Error::InvalidUrl {
        url: String::new(),
        reason: "no URL register names the XML",
    }))
}

/// Fetches and decodes the XML at `location`, for a host that already has
/// the URL (or wants to retry without re-reading it).
///
/// Checks the length against [`MAX_XML_BYTES`] before reading anything.
pub fn fetch_from(port: &mut dyn RegisterPort, location: &XmlLocation) -> Result<String, Error> {
    let XmlLocation::Local {
        file_name,
        address,
        length,
        format,
    } = location;
    if *length > MAX_XML_BYTES {
        return Err(Error::XmlTooLarge {
            what: "file",
            length: *length as u64,
            max: MAX_XML_BYTES as u64,
        });
    }
    let mut bytes = vec![0u8; *length];
    read_memory(port, *address, &mut bytes)?;
    decode_xml(&bytes, *format, file_name)
}

/// Decodes a GenICam XML file's bytes: unzips a `.zip`, then decodes the
/// text (UTF-8, with or without a byte-order mark, or ISO-8859-1 when the
/// XML declaration says so).
///
/// Public so a host can load an XML file the vendor ships on disk with the
/// same rules; `file_name` is only used in error messages.
pub fn decode_xml(bytes: &[u8], format: XmlFormat, file_name: &str) -> Result<String, Error> {
    match format {
        XmlFormat::Xml => decode_text(bytes, file_name),
        XmlFormat::Zip => {
            let xml = unzip(bytes, file_name)?;
            decode_text(&xml, file_name)
        }
    }
}

fn zip_error(file_name: &str, reason: impl ToString) -> Error {
    Error::Zip {
        file_name: file_name.to_string(),
        reason: reason.to_string(),
    }
}

/// The XML inside a zip: the first entry named `*.xml`, or the only entry.
fn unzip(bytes: &[u8], file_name: &str) -> Result<Vec<u8>, Error> {
    // The zip reader is fuzzed upstream, but a panic on a corrupt archive
    // must still not take the host down.
    catch_unwind(AssertUnwindSafe(|| unzip_inner(bytes, file_name))).unwrap_or_else(|panic| {
        Err(zip_error(
            file_name,
            format!("the zip reader panicked: {}", panic_message(&*panic)),
        ))
    })
}

fn unzip_inner(bytes: &[u8], file_name: &str) -> Result<Vec<u8>, Error> {
    let mut archive =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| zip_error(file_name, e))?;
    let names: Vec<String> = archive.file_names().map(str::to_string).collect();
    let index = match names.iter().position(|n| {
        n.rsplit_once('.')
            .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("xml"))
    }) {
        Some(i) => i,
        None if names.len() == 1 => 0,
        None => {
            return Err(zip_error(
                file_name,
                format!(
                    "no .xml file among its {} entries ({})",
                    names.len(),
                    names.join(", ")
                ),
            ))
        }
    };
    let mut entry = archive
        .by_index(index)
        .map_err(|e| zip_error(file_name, e))?;
    let max = MAX_XML_BYTES as u64;
    if entry.size() > max {
        return Err(Error::XmlTooLarge {
            what: "uncompressed XML",
            length: entry.size(),
            max,
        });
    }
    let mut out = Vec::new();
    // The declared size may lie: read one byte past the limit to notice.
    // Reading to the end also makes the zip reader check the CRC-32.
    (&mut entry)
        .take(max + 1)
        .read_to_end(&mut out)
        .map_err(|e| zip_error(file_name, e))?;
    if out.len() as u64 > max {
        return Err(Error::XmlTooLarge {
            what: "uncompressed XML",
            length: out.len() as u64,
            max,
        });
    }
    Ok(out)
}

fn decode_text(bytes: &[u8], file_name: &str) -> Result<String, Error> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.to_string()),
        Err(_) if declares_latin1(bytes) => {
            // ISO-8859-1 maps each byte to the code point of the same value.
            Ok(bytes.iter().map(|&b| char::from(b)).collect())
        }
        Err(e) => Err(Error::NotUtf8 {
            file_name: file_name.to_string(),
            offset: e.valid_up_to(),
        }),
    }
}

/// Whether the XML declaration names ISO-8859-1 (some vendors' XMLs carry
/// `°` or `µ` in Latin-1).
fn declares_latin1(bytes: &[u8]) -> bool {
    let head = bytes.get(..bytes.len().min(200)).unwrap_or_default();
    if !head.starts_with(b"<?xml") {
        return false;
    }
    let end = head
        .windows(2)
        .position(|w| w == b"?>")
        .unwrap_or(head.len());
    let decl = String::from_utf8_lossy(head.get(..end).unwrap_or_default()).to_ascii_lowercase();
    ["iso-8859-1", "iso8859-1", "latin1", "latin-1"]
        .iter()
        .any(|name| {
            decl.contains(&format!("encoding=\"{name}\""))
                || decl.contains(&format!("encoding='{name}'"))
        })
}

/// The text of a caught panic, for error messages.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_decoding() {
        assert_eq!(decode_text(b"<a/>", "x.xml").expect("utf-8"), "<a/>");
        assert_eq!(
            decode_text(b"\xef\xbb\xbf<a/>", "x.xml").expect("bom"),
            "<a/>"
        );
        let latin1 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>25\xb0C</a>";
        assert_eq!(
            decode_text(latin1, "x.xml").expect("latin-1"),
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>25\u{b0}C</a>"
        );
        match decode_text(b"<a>\xff</a>", "x.xml") {
            Err(Error::NotUtf8 { file_name, offset }) => {
                assert_eq!((file_name.as_str(), offset), ("x.xml", 3));
            }
            other => panic!("{other:?}"),
        }
    }
}
