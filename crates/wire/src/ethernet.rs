//! Ethernet II header, as carried by raw-socket protocols such as FADE.

use crate::bytes::{be_u16, put_u16};
use crate::error::{ensure_len, Result};

/// Byte offsets of the Ethernet II header.
mod field {
    use crate::{Field, Rest};
    pub const DESTINATION: Field = 0..6;
    pub const SOURCE: Field = 6..12;
    pub const ETHERTYPE: usize = 12;
    pub const PAYLOAD: Rest = 14..;
}

/// Length of an Ethernet II header (no VLAN tag).
pub const HEADER_LEN: usize = field::PAYLOAD.start;

/// Smallest Ethernet frame without FCS; shorter frames are padded to this.
pub const MIN_FRAME_LEN: usize = 60;

/// The ethertype FADE uses (unregistered, private networks only).
pub const ETHERTYPE_FADE: u16 = 0xfade;

/// A 48-bit MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// The broadcast address ff:ff:ff:ff:ff:ff.
    pub const BROADCAST: MacAddr = MacAddr([0xff; 6]);
}

impl core::fmt::Display for MacAddr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let b = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

impl core::str::FromStr for MacAddr {
    type Err = crate::Error;

    /// Parses `aa:bb:cc:dd:ee:ff` (colons or dashes).
    fn from_str(s: &str) -> Result<Self> {
        let bad = crate::Error::BadText {
            what: "MAC address",
            text: s.to_owned(),
            rule: "expected six hex octets separated by ':' or '-', such as 02:00:00:00:00:01",
        };
        let mut out = [0u8; 6];
        let mut parts = s.split([':', '-']);
        for slot in out.iter_mut() {
            let part = parts.next().ok_or_else(|| bad.clone())?;
            if part.is_empty() || part.len() > 2 {
                return Err(bad);
            }
            *slot = u8::from_str_radix(part, 16).map_err(|_| bad.clone())?;
        }
        if parts.next().is_some() {
            return Err(bad);
        }
        Ok(MacAddr(out))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for MacAddr {
    /// As text, `02:00:00:00:00:01`, the form people and JSON tools read.
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for MacAddr {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A zero-copy view of an Ethernet II frame (without FCS).
#[derive(Debug, Clone)]
pub struct Frame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Frame<T> {
    /// Wraps `buffer` after checking it holds a whole header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        ensure_len("Ethernet header", buffer.as_ref(), HEADER_LEN)?;
        Ok(Frame { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Destination MAC address.
    pub fn destination(&self) -> MacAddr {
        let mut m = [0u8; 6];
        m.copy_from_slice(&self.buffer.as_ref()[field::DESTINATION]);
        MacAddr(m)
    }

    /// Source MAC address.
    pub fn source(&self) -> MacAddr {
        let mut m = [0u8; 6];
        m.copy_from_slice(&self.buffer.as_ref()[field::SOURCE]);
        MacAddr(m)
    }

    /// The ethertype field.
    pub fn ethertype(&self) -> u16 {
        be_u16(self.buffer.as_ref(), field::ETHERTYPE)
    }

    /// Everything after the header (including any padding).
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PAYLOAD]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Frame<T> {
    /// Sets the destination MAC address.
    pub fn set_destination(&mut self, mac: MacAddr) {
        self.buffer.as_mut()[field::DESTINATION].copy_from_slice(&mac.0);
    }

    /// Sets the source MAC address.
    pub fn set_source(&mut self, mac: MacAddr) {
        self.buffer.as_mut()[field::SOURCE].copy_from_slice(&mac.0);
    }

    /// Sets the ethertype.
    pub fn set_ethertype(&mut self, ethertype: u16) {
        put_u16(self.buffer.as_mut(), field::ETHERTYPE, ethertype);
    }

    /// Mutable access to everything after the header.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::PAYLOAD]
    }
}

/// The parsed form of an Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr {
    /// Destination MAC address.
    pub destination: MacAddr,
    /// Source MAC address.
    pub source: MacAddr,
    /// Ethertype.
    pub ethertype: u16,
}

impl Repr {
    /// Reads the header fields of `frame`.
    pub fn parse<T: AsRef<[u8]>>(frame: &Frame<T>) -> Repr {
        Repr {
            destination: frame.destination(),
            source: frame.source(),
            ethertype: frame.ethertype(),
        }
    }

    /// Bytes the header occupies.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into `frame`.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut Frame<T>) {
        frame.set_destination(self.destination);
        frame.set_source(self.source);
        frame.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_emit() {
        let bytes = [2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0xfa, 0xde, 0xa5, 0xa5];
        let f = Frame::new_checked(&bytes[..]).expect("valid frame");
        let r = Repr::parse(&f);
        assert_eq!(r.ethertype, ETHERTYPE_FADE);
        assert_eq!(r.source.to_string(), "02:00:00:00:00:02");
        assert_eq!(f.payload(), &[0xa5, 0xa5]);
        let mut out = [0u8; 14];
        r.emit(&mut Frame::new_checked(&mut out[..]).expect("room"));
        assert_eq!(&out[..], &bytes[..14]);
    }

    #[test]
    fn short_buffer_is_an_error() {
        assert!(Frame::new_checked(&[0u8; 13][..]).is_err());
    }

    #[test]
    fn mac_text_round_trip() {
        let m: MacAddr = "02:aB:00:00:00:ff".parse().expect("valid");
        assert_eq!(m.to_string(), "02:ab:00:00:00:ff");
        assert!("02:ab:00:00:00".parse::<MacAddr>().is_err());
        assert!("02:ab:00:00:00:ff:01".parse::<MacAddr>().is_err());
        assert!("zz:ab:00:00:00:ff".parse::<MacAddr>().is_err());
    }
}
