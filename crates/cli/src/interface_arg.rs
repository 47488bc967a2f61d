//! `--interface` speaks one dialect on every command: an interface name
//! (`eth1`) or one of its IPv4 addresses (`169.254.1.2`). Commands that
//! work at the IP layer want the address; those at the Ethernet layer
//! (FADE, `doctor`) want the name. These parsers turn either form into
//! what the command needs, while the arguments are parsed.

use std::net::Ipv4Addr;

/// An interface name or IPv4 address, as the interface's IPv4 address. An
/// address is taken as given (the command checks that it is local); a name
/// must be an interface with an IPv4 address.
pub fn ipv4_address(s: &str) -> Result<Ipv4Addr, String> {
    if let Ok(ip) = s.trim().parse::<Ipv4Addr>() {
        return Ok(ip);
    }
    linerate_io::interfaces::find_ipv4_interface(s.trim())
        .map(|i| i.address)
        .map_err(|e| format!("{e} (give an interface name or one of its IPv4 addresses)"))
}

/// An interface name or IPv4 address, as the interface's name. A name is
/// taken as given (an Ethernet-layer interface needs no IPv4 address); an
/// address must belong to a local interface.
pub fn name(s: &str) -> Result<String, String> {
    let t = s.trim();
    if t.parse::<Ipv4Addr>().is_err() {
        return Ok(t.to_owned());
    }
    linerate_io::interfaces::find_ipv4_interface(t)
        .map(|i| i.name)
        .map_err(|e| format!("{e}: no local interface has this address"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_by_name_or_address() {
        assert_eq!(ipv4_address("lo"), Ok(Ipv4Addr::LOCALHOST));
        assert_eq!(ipv4_address("127.0.0.1"), Ok(Ipv4Addr::LOCALHOST));
        assert_eq!(name("127.0.0.1").as_deref(), Ok("lo"));
        assert_eq!(name("eth7").as_deref(), Ok("eth7"));
        assert!(ipv4_address("no-such-if0").is_err());
        assert!(name("192.0.2.99").is_err());
    }
}
