//! `parse_url` on anything: never panics, and well-formed Local URLs come
//! back exactly.

use linerate_genicam::{parse_url, Error, XmlFormat, XmlLocation};
use proptest::prelude::*;

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = parse_url(&text);
    }

    #[test]
    fn url_shaped_garbage_never_panics(
        scheme in "(Local|local|LOCAL|File|http|ftp|)",
        rest in "[:;/?.a-zA-Z0-9xX\\-+ \\x00]{0,40}",
    ) {
        let _ = parse_url(&format!("{scheme}:{rest}"));
    }

    #[test]
    fn local_urls_round_trip(
        stem in "[A-Za-z0-9_-][A-Za-z0-9_.-]{0,20}",
        zip in any::<bool>(),
        address in 0u64..=u64::from(u32::MAX),
        length in 1u64..=0xFFFF_FFFF,
        upper in any::<bool>(),
        slashes in any::<bool>(),
        query in any::<bool>(),
    ) {
        let ext = if zip { "zip" } else { "xml" };
        let file_name = format!("{stem}.{ext}");
        let (a, l) = if upper {
            (format!("{address:X}"), format!("{length:X}"))
        } else {
            (format!("{address:x}"), format!("{length:x}"))
        };
        let url = format!(
            "Local:{}{file_name};{a};{l}{}",
            if slashes { "///" } else { "" },
            if query { "?SchemaVersion=1.1.0" } else { "" },
        );
        let expected = XmlLocation::Local {
            file_name,
            address,
            length: usize::try_from(length).expect("64-bit host"),
            format: if zip { XmlFormat::Zip } else { XmlFormat::Xml },
        };
        prop_assert_eq!(parse_url(&url).expect("well-formed"), expected);
    }

    #[test]
    fn other_schemes_name_the_url(
        scheme in "(File|file|http|HTTP|https)",
        rest in "[a-z0-9/.]{1,30}",
    ) {
        let url = format!("{scheme}:{rest}");
        match parse_url(&url) {
            Err(Error::UnsupportedUrl { url: got }) => prop_assert_eq!(got, url),
            other => prop_assert!(false, "{:?}", other),
        }
    }
}
