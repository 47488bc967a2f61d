//! The kernel's packet drop counters, read before and after a run.
//!
//! A receiver that lost frames wants to know *where*: its socket buffer was
//! full (`Udp: RcvbufErrors`, also counted in `InErrors`), the interface
//! dropped them (`/proc/net/dev` rx `drop`), or the per-CPU backlog between
//! driver and stack overflowed (`/proc/net/softnet_stat` column 2, raise
//! `net.core.netdev_max_backlog`) or ran out of budget (`time_squeeze`,
//! column 3, raise `net.core.netdev_budget`). Snapshot with
//! [`KernelDrops::read`], subtract with [`KernelDrops::delta_since`].
//!
//! `/proc/net` belongs to the reader's network namespace, so read it from
//! the thread that receives. `/proc/net/dev` is parsed with `procfs-core`;
//! the UDP row of `/proc/net/snmp` is looked up by column name here, since
//! `procfs-core`'s `Snmp` insists on every counter of every protocol and
//! fails on kernels that have a few more or fewer; `softnet_stat` is not in
//! `procfs-core` at all.

use std::path::{Path, PathBuf};

use procfs_core::FromBufRead;
use serde::{Deserialize, Serialize};

use crate::error::{read_text, Error, Result};

/// Cumulative drop counters at one instant.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KernelDrops {
    /// `Udp: InErrors`: datagrams that arrived but could not be delivered
    /// (includes receive-buffer overflows and checksum errors).
    pub udp_in_errors: u64,
    /// `Udp: RcvbufErrors`: datagrams dropped because a socket's receive
    /// buffer was full — the application did not keep up, or `SO_RCVBUF`
    /// (capped by `net.core.rmem_max`) is too small.
    pub udp_rcvbuf_errors: u64,
    /// Receive drops of the watched interfaces (`/proc/net/dev`), summed.
    pub rx_dropped: u64,
    /// Interfaces whose `rx_dropped` is summed (all but `lo` when none was named).
    pub interfaces: Vec<String>,
    /// Packets dropped because a CPU's input backlog was full, summed over CPUs.
    pub softnet_dropped: u64,
    /// Times a CPU's receive processing ran out of budget with work left, summed.
    pub softnet_time_squeeze: u64,
}

/// What the counters grew by between two snapshots.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct KernelDropsDelta {
    /// Growth of `Udp: InErrors`.
    pub udp_in_errors: u64,
    /// Growth of `Udp: RcvbufErrors`.
    pub udp_rcvbuf_errors: u64,
    /// Growth of the watched interfaces' rx drops.
    pub rx_dropped: u64,
    /// Growth of softnet backlog drops.
    pub softnet_dropped: u64,
    /// Growth of softnet time squeezes.
    pub softnet_time_squeeze: u64,
}

impl KernelDropsDelta {
    /// True when no counter grew.
    pub fn is_clean(&self) -> bool {
        self.udp_in_errors == 0
            && self.udp_rcvbuf_errors == 0
            && self.rx_dropped == 0
            && self.softnet_dropped == 0
    }
}

impl KernelDrops {
    /// Reads the live counters; `interface` limits `rx_dropped` to one
    /// interface (otherwise every interface but `lo`).
    pub fn read(interface: Option<&str>) -> Result<KernelDrops> {
        Self::read_from(Path::new("/proc"), interface)
    }

    /// Reads the counters under a `/proc` root (a fake one in tests).
    pub fn read_from(proc_root: &Path, interface: Option<&str>) -> Result<KernelDrops> {
        let snmp_path = proc_root.join("net/snmp");
        let (udp_in_errors, udp_rcvbuf_errors) =
            parse_udp(&read_text(&snmp_path)?).map_err(|reason| Error::Format {
                path: snmp_path,
                reason,
            })?;
        let dev_path = proc_root.join("net/dev");
        let (rx_dropped, interfaces) =
            parse_dev(&read_text(&dev_path)?, interface).map_err(|reason| Error::Format {
                path: dev_path,
                reason,
            })?;
        let softnet_path: PathBuf = proc_root.join("net/softnet_stat");
        let (softnet_dropped, softnet_time_squeeze) = parse_softnet(&read_text(&softnet_path)?)
            .map_err(|reason| Error::Format {
                path: softnet_path,
                reason,
            })?;
        Ok(KernelDrops {
            udp_in_errors,
            udp_rcvbuf_errors,
            rx_dropped,
            interfaces,
            softnet_dropped,
            softnet_time_squeeze,
        })
    }

    /// What grew since `earlier`, saturating at zero (an interface that
    /// went away and came back restarts its counters).
    pub fn delta_since(&self, earlier: &KernelDrops) -> KernelDropsDelta {
        KernelDropsDelta {
            udp_in_errors: self.udp_in_errors.saturating_sub(earlier.udp_in_errors),
            udp_rcvbuf_errors: self
                .udp_rcvbuf_errors
                .saturating_sub(earlier.udp_rcvbuf_errors),
            rx_dropped: self.rx_dropped.saturating_sub(earlier.rx_dropped),
            softnet_dropped: self.softnet_dropped.saturating_sub(earlier.softnet_dropped),
            softnet_time_squeeze: self
                .softnet_time_squeeze
                .saturating_sub(earlier.softnet_time_squeeze),
        }
    }
}

/// `(InErrors, RcvbufErrors)` from the `Udp:` header/value line pair of
/// `/proc/net/snmp`, found by column name.
pub fn parse_udp(text: &str) -> std::result::Result<(u64, u64), String> {
    let mut rows = text.lines().filter(|l| l.starts_with("Udp:"));
    let (Some(header), Some(values)) = (rows.next(), rows.next()) else {
        return Err("no Udp: header and value lines".into());
    };
    let column = |name: &str| -> std::result::Result<u64, String> {
        let i = header
            .split_ascii_whitespace()
            .position(|h| h == name)
            .ok_or_else(|| format!("Udp: has no {name} column"))?;
        let v = values
            .split_ascii_whitespace()
            .nth(i)
            .ok_or_else(|| format!("Udp: value line {values:?} is short of {name}"))?;
        v.parse::<u64>()
            .map_err(|e| format!("Udp: {name} = {v:?} is not a number: {e}"))
    };
    Ok((column("InErrors")?, column("RcvbufErrors")?))
}

/// Sum of rx drops of `interface` (or of every interface but `lo`), and
/// the interfaces summed.
pub fn parse_dev(
    text: &str,
    interface: Option<&str>,
) -> std::result::Result<(u64, Vec<String>), String> {
    let devices = procfs_core::net::InterfaceDeviceStatus::from_buf_read(text.as_bytes())
        .map_err(|e| format!("not /proc/net/dev text: {e}"))?;
    let mut names: Vec<String> = match interface {
        Some(name) => {
            if !devices.0.contains_key(name) {
                return Err(format!("no interface {name:?}"));
            }
            vec![name.to_owned()]
        }
        None => devices.0.keys().filter(|n| *n != "lo").cloned().collect(),
    };
    names.sort();
    let sum = names
        .iter()
        .filter_map(|n| devices.0.get(n))
        .map(|d| d.recv_drop)
        .fold(0u64, u64::saturating_add);
    Ok((sum, names))
}

/// `(dropped, time_squeeze)` summed over every CPU line of
/// `/proc/net/softnet_stat` (hexadecimal columns 2 and 3).
pub fn parse_softnet(text: &str) -> std::result::Result<(u64, u64), String> {
    let mut dropped = 0u64;
    let mut squeeze = 0u64;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split_ascii_whitespace().collect();
        let hex = |i: usize| -> std::result::Result<u64, String> {
            let c = cols
                .get(i)
                .ok_or_else(|| format!("line {line:?} has no column {}", i + 1))?;
            u64::from_str_radix(c, 16).map_err(|e| format!("{c:?} in {line:?} is not hex: {e}"))
        };
        dropped = dropped.saturating_add(hex(1)?);
        squeeze = squeeze.saturating_add(hex(2)?);
    }
    Ok((dropped, squeeze))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Captured from Linux 6.18 (MemErrors is a recent column; the parser
    /// must not care).
    const SNMP: &str = "\
Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs ReasmFails FragOKs FragFails FragCreates OutTransmits
Ip: 2 64 562185 0 0 0 0 0 562185 556492 0 0 0 0 0 0 0 0 0 556492
Icmp: InMsgs InErrors InCsumErrors InDestUnreachs
Icmp: 6 0 0 6
Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors
Tcp: 1 200 120000 -1 630 477 19 170 0 51858 47325 97 0 300 0
Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors
Udp: 513847 2 31 510325 29 0 2 0 0
UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors
UdpLite: 0 0 0 0 0 0 0 0 0
";

    const DEV: &str = "\
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 4354995046  549491    0    7    0     0          0         0 4354995046  549491    0    0    0     0       0          0
  eth0:  1000  10    0    3    0     0          0         0        0       0    0    0    0     0       0          0
 veth1:  2000  20    0    5    0     0          0         0        0       0    0    0    0     0       0          0
";

    const SOFTNET: &str = "\
034077df 00000010 00000071 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000
112fa352 00dda204 00000159 00000000 00000000 00000000 00000000 00000000 00000000 0134b784 00000000 00000000 00000001 00000000 00000000
";

    #[test]
    fn udp_columns_by_name() {
        assert_eq!(parse_udp(SNMP), Ok((31, 29)));
        assert!(parse_udp("Ip: a\nIp: 1\n").is_err());
        assert!(parse_udp("Udp: InErrors\nUdp: 1\n")
            .expect_err("no RcvbufErrors")
            .contains("RcvbufErrors"));
        assert!(parse_udp("Udp: InErrors RcvbufErrors\nUdp: 1 x\n").is_err());
        assert!(parse_udp("Udp: InErrors RcvbufErrors\nUdp: 1\n").is_err());
    }

    #[test]
    fn dev_drops_per_interface_or_all_but_lo() {
        assert_eq!(parse_dev(DEV, Some("veth1")), Ok((5, vec!["veth1".into()])));
        assert_eq!(
            parse_dev(DEV, None),
            Ok((8, vec!["eth0".into(), "veth1".into()]))
        );
        assert!(parse_dev(DEV, Some("nope"))
            .expect_err("absent")
            .contains("nope"));
    }

    #[test]
    fn softnet_sums_hex_columns() {
        assert_eq!(parse_softnet(SOFTNET), Ok((0x10 + 0xdda204, 0x71 + 0x159)));
        assert_eq!(parse_softnet(""), Ok((0, 0)));
        assert!(parse_softnet("0000 zz 00\n").is_err());
        assert!(parse_softnet("0000\n").is_err());
    }

    fn fake_root(tag: &str, snmp: &str, dev: &str, softnet: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lr-drops-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("net")).expect("mkdir");
        std::fs::write(dir.join("net/snmp"), snmp).expect("write");
        std::fs::write(dir.join("net/dev"), dev).expect("write");
        std::fs::write(dir.join("net/softnet_stat"), softnet).expect("write");
        dir
    }

    #[test]
    fn snapshots_from_a_fake_root_subtract() {
        let a = fake_root("a", SNMP, DEV, SOFTNET);
        let before = KernelDrops::read_from(&a, Some("eth0")).expect("reads");
        let b = fake_root(
            "b",
            &SNMP.replace("513847 2 31 510325 29", "613847 2 131 510325 129"),
            &DEV.replace("1000  10    0    3", "9000  90    0    13"),
            &SOFTNET.replace("00000010 00000071", "00000014 00000072"),
        );
        let after = KernelDrops::read_from(&b, Some("eth0")).expect("reads");
        let d = after.delta_since(&before);
        assert_eq!(
            d,
            KernelDropsDelta {
                udp_in_errors: 100,
                udp_rcvbuf_errors: 100,
                rx_dropped: 10,
                softnet_dropped: 4,
                softnet_time_squeeze: 1,
            }
        );
        assert!(!d.is_clean());
        assert!(before.delta_since(&after).is_clean());
        let e = KernelDrops::read_from(&a.join("missing"), None).expect_err("no files");
        assert!(e.to_string().contains("snmp"), "{e}");
        std::fs::remove_dir_all(&a).ok();
        std::fs::remove_dir_all(&b).ok();
    }

    /// 2000 datagrams into a 4 KiB receive buffer nobody reads must show
    /// up as receive-buffer errors in the live counters (on loopback).
    #[test]
    fn a_full_socket_buffer_counts_rcvbuf_errors() {
        use std::net::UdpSocket;
        let rx = UdpSocket::bind("127.0.0.1:0").expect("bind");
        linerate_io::socket::set_recv_buffer(&rx, 4096).expect("SO_RCVBUF");
        let to = rx.local_addr().expect("addr");
        let before = KernelDrops::read(Some("lo")).expect("counters");
        let tx = UdpSocket::bind("127.0.0.1:0").expect("bind");
        for _ in 0..2000 {
            let _ = tx.send_to(&[0u8; 1000], to);
        }
        let d = KernelDrops::read(Some("lo"))
            .expect("counters")
            .delta_since(&before);
        assert!(d.udp_rcvbuf_errors >= 1, "{d:?}");
        assert!(d.udp_in_errors >= d.udp_rcvbuf_errors, "{d:?}");
        assert!(!d.is_clean());
    }

    #[test]
    fn live_counters_read() {
        let d = KernelDrops::read(None).expect("this kernel's /proc/net");
        assert!(!d.interfaces.iter().any(|i| i == "lo"));
        KernelDrops::read(Some("lo")).expect("lo exists everywhere");
    }
}
