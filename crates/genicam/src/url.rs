//! The GenICam XML URL a GigE Vision device publishes in its first and
//! second URL bootstrap registers, parsed into where to read the file and
//! how to decode it.

use crate::error::Error;

/// How the file's bytes are encoded, from its name's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XmlFormat {
    /// `.xml`: the bytes are the XML text.
    Xml,
    /// `.zip`: a zip archive holding the XML (deflated or stored).
    Zip,
}

/// Where the device says its XML is, parsed from a URL register.
///
/// Only `Local:` URLs (the file is in device memory) are represented: they
/// are the only kind a host can read over the control channel, and the only
/// kind GigE Vision cameras use in practice. `File:` and `http:` URLs parse
/// to [`Error::UnsupportedUrl`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum XmlLocation {
    /// The file is `length` bytes of device memory at `address`.
    Local {
        /// The file name, e.g. `linerate-camera.xml`; its extension gave `format`.
        file_name: String,
        /// Device address of the first byte.
        address: u64,
        /// Length of the file in bytes (of the zip, for a zipped XML).
        length: usize,
        /// How to decode the bytes.
        format: XmlFormat,
    },
}

fn invalid(url: &str, reason: &'static str) -> Error {
    Error::InvalidUrl {
        url: url.to_string(),
        reason,
    }
}

/// Parses a hexadecimal field of the URL (optionally `0x`-prefixed); strict,
/// so a sign or a space is an error rather than silently accepted.
fn hex(url: &str, field: &str, reason: &'static str) -> Result<u64, Error> {
    let digits = field
        .strip_prefix("0x")
        .or_else(|| field.strip_prefix("0X"))
        .unwrap_or(field);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid(url, reason));
    }
    u64::from_str_radix(digits, 16).map_err(|_| invalid(url, reason))
}

/// Parses a GenICam XML URL, e.g. `Local:linerate-camera.xml;20000;4a3c` or
/// `local:///Basler.zip;8001000;1a2b3c?SchemaVersion=1.1.0`.
///
/// The scheme is case-insensitive; address and length are hexadecimal (an
/// `0x` prefix is tolerated); an optional `///` after the scheme and a
/// `?SchemaVersion=...` query are accepted and ignored, as the GenICam
/// standard allows both. The file name's extension, `.xml` or `.zip` in any
/// case, decides how the bytes are decoded. Surrounding whitespace and NULs
/// (the register is NUL-padded) are ignored.
///
/// This only checks the URL's syntax; the size limit is applied by
/// [`fetch_from`](crate::fetch_from), before anything is read.
pub fn parse_url(url: &str) -> Result<XmlLocation, Error> {
    let text = url.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    if text.is_empty() {
        return Err(invalid(url, "the URL is empty"));
    }
    let Some((scheme, rest)) = text.split_once(':') else {
        return Err(invalid(
            text,
            "no scheme: expected Local:<file>;<hex address>;<hex length>",
        ));
    };
    match scheme.to_ascii_lowercase().as_str() {
        "local" => {}
        "file" | "http" | "https" => {
            return Err(Error::UnsupportedUrl {
                url: text.to_string(),
            })
        }
        _ => {
            return Err(invalid(
                text,
                "unknown scheme: expected Local:, File: or http:",
            ))
        }
    }
    let rest = rest.trim_start_matches('/');
    let rest = rest.split_once('?').map_or(rest, |(before, _query)| before);
    let mut fields = rest.split(';');
    let (Some(file_name), Some(address), Some(length), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(invalid(
            text,
            "expected three fields: <file>;<hex address>;<hex length>",
        ));
    };
    let file_name = file_name.trim();
    if file_name.is_empty() {
        return Err(invalid(text, "the file name is empty"));
    }
    let format = match file_name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.eq_ignore_ascii_case("xml") => XmlFormat::Xml,
        Some((stem, ext)) if !stem.is_empty() && ext.eq_ignore_ascii_case("zip") => XmlFormat::Zip,
        _ => {
            return Err(invalid(
                text,
                "the file name must end in .xml or .zip (that decides how it is decoded)",
            ))
        }
    };
    let address = hex(
        text,
        address.trim(),
        "the address is not a hexadecimal number",
    )?;
    let length = hex(
        text,
        length.trim(),
        "the length is not a hexadecimal number",
    )?;
    if length == 0 {
        return Err(invalid(text, "the length is zero"));
    }
    if address.checked_add(length).is_none() {
        return Err(invalid(
            text,
            "address + length runs past the end of the address space",
        ));
    }
    let length = usize::try_from(length)
        .map_err(|_| invalid(text, "the length does not fit this machine's memory"))?;
    Ok(XmlLocation::Local {
        file_name: file_name.to_string(),
        address,
        length,
        format,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(file_name: &str, address: u64, length: usize, format: XmlFormat) -> XmlLocation {
        XmlLocation::Local {
            file_name: file_name.into(),
            address,
            length,
            format,
        }
    }

    #[test]
    fn local_urls() {
        assert_eq!(
            parse_url("Local:linerate-camera.xml;20000;4a3c").expect("parses"),
            local("linerate-camera.xml", 0x20000, 0x4a3c, XmlFormat::Xml)
        );
        assert_eq!(
            parse_url("local:Basler.zip;8001000;1a2b3c").expect("parses"),
            local("Basler.zip", 0x800_1000, 0x1a_2b3c, XmlFormat::Zip)
        );
        assert_eq!(
            parse_url("LOCAL:///Cam.ZIP;0x10000;0X20?SchemaVersion=1.1.0\0\0\0").expect("parses"),
            local("Cam.ZIP", 0x10000, 0x20, XmlFormat::Zip)
        );
        assert_eq!(
            parse_url("  Local:a.b.Xml;ffffffff;FFFF \n").expect("parses"),
            local("a.b.Xml", 0xffff_ffff, 0xffff, XmlFormat::Xml)
        );
    }

    #[test]
    fn file_and_http_are_unsupported_and_named() {
        for url in [
            "File:///C:/cameras/basler.xml",
            "file:camera.zip",
            "http://www.example.com/camera.xml",
            "HTTPS://example.com/x.zip",
        ] {
            match parse_url(url) {
                Err(Error::UnsupportedUrl { url: got }) => assert_eq!(got, url),
                other => panic!("{url}: {other:?}"),
            }
        }
    }

    #[test]
    fn malformed_urls_are_invalid() {
        for url in [
            "",
            "\0\0\0",
            "linerate.xml;20000;4a3c",
            "Ftp:x.xml;0;4",
            "Local:",
            "Local:x.xml;20000",
            "Local:x.xml;20000;4a3c;1",
            "Local:;20000;4a3c",
            "Local:.xml;20000;4a3c",
            "Local:x.txt;20000;4a3c",
            "Local:xml;20000;4a3c",
            "Local:x.xml;2000g;4a3c",
            "Local:x.xml;+20000;4a3c",
            "Local:x.xml;-1;4a3c",
            "Local:x.xml;20000;",
            "Local:x.xml;20000;0",
            "Local:x.xml;20000;0x",
            "Local:x.xml;ffffffffffffffff;1",
            "Local:x.xml;1;ffffffffffffffff",
            "Local:x.xml;10000000000000000;4",
        ] {
            match parse_url(url) {
                Err(Error::InvalidUrl { reason, .. }) => assert!(!reason.is_empty()),
                other => panic!("{url:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_error_names_the_url() {
        let err = parse_url("Local:x.xml;zz;4").expect_err("invalid");
        let text = err.to_string();
        assert!(text.contains("Local:x.xml;zz;4"), "{text}");
        assert!(text.contains("address"), "{text}");
    }
}
