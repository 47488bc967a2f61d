//! The few `bpf(2)` commands an XDP receiver needs: create a map, update
//! and read an element, load a program, and attach it to an interface as
//! a BPF link. The link detaches the program when its descriptor closes,
//! so a receiver that exits or crashes leaves the interface as it was.

use std::ffi::CString;
use std::mem::size_of;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::insn::{self, Insn};
use crate::error::{Error, Result};

/// `enum bpf_cmd` values used here.
mod cmd {
    pub const MAP_CREATE: libc::c_long = 0;
    pub const MAP_LOOKUP_ELEM: libc::c_long = 1;
    pub const MAP_UPDATE_ELEM: libc::c_long = 2;
    pub const PROG_LOAD: libc::c_long = 5;
    pub const LINK_CREATE: libc::c_long = 28;
}

/// `enum bpf_map_type` values used here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum MapType {
    /// Plain array of fixed-size values, shared by every CPU.
    Array = 2,
    /// AF_XDP sockets by receive queue: the target of `bpf_redirect_map`.
    XskMap = 17,
}

/// `BPF_PROG_TYPE_XDP`.
const PROG_TYPE_XDP: u32 = 6;
/// `BPF_XDP`, the attach type of an XDP link.
const ATTACH_XDP: u32 = 37;
/// `BPF_F_XDP_HAS_FRAGS`: the program copes with frames in several
/// buffers, which the kernel demands before it attaches XDP to an
/// interface whose MTU exceeds a page (jumbo frames).
const F_XDP_HAS_FRAGS: u32 = 1 << 5;

/// Where the kernel runs an XDP program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachMode {
    /// In the driver, before any socket buffer exists (`XDP_FLAGS_DRV_MODE`).
    Native,
    /// After the driver, on socket buffers (`XDP_FLAGS_SKB_MODE`): works on
    /// any interface, costs more.
    Generic,
}

impl AttachMode {
    fn flags(self) -> u32 {
        match self {
            AttachMode::Generic => 1 << 1,
            AttachMode::Native => 1 << 2,
        }
    }

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            AttachMode::Native => "native",
            AttachMode::Generic => "generic",
        }
    }
}

#[repr(C)]
#[derive(Default)]
struct MapCreateAttr {
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
    inner_map_fd: u32,
    numa_node: u32,
    map_name: [u8; 16],
}

#[repr(C)]
#[derive(Default)]
struct MapElemAttr {
    map_fd: u32,
    _pad: u32,
    key: u64,
    value: u64,
    flags: u64,
}

#[repr(C)]
#[derive(Default)]
struct ProgLoadAttr {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
    prog_ifindex: u32,
    expected_attach_type: u32,
}

#[repr(C)]
#[derive(Default)]
struct LinkCreateAttr {
    prog_fd: u32,
    target_ifindex: u32,
    attach_type: u32,
    flags: u32,
}

/// Issues one `bpf(2)` command with `attr`; returns the syscall's result.
fn bpf<T>(command: libc::c_long, attr: &mut T) -> std::io::Result<libc::c_long> {
    // SAFETY: `attr` is a live, fully initialised #[repr(C)] prefix of
    // `union bpf_attr` for this command, and its exact size is passed; the
    // kernel reads (and for lookups writes through pointers we own) no more.
    let r = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            command,
            (attr as *mut T).cast::<libc::c_void>(),
            size_of::<T>() as libc::c_uint,
        )
    };
    if r < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Takes ownership of a descriptor a `bpf(2)` command returned.
fn owned(r: libc::c_long) -> OwnedFd {
    // SAFETY: the kernel just returned this descriptor to us and nothing
    // else owns it.
    unsafe { OwnedFd::from_raw_fd(r as RawFd) }
}

fn name16(name: &str) -> [u8; 16] {
    let mut n = [0u8; 16];
    for (d, s) in n.iter_mut().take(15).zip(name.bytes()) {
        *d = s;
    }
    n
}

fn bpf_error(op: &'static str, what: String) -> impl FnOnce(std::io::Error) -> Error {
    move |source| match source.raw_os_error() {
        Some(libc::EPERM | libc::EACCES) => Error::NeedsCapBpf { op, source },
        _ => Error::Bpf { op, what, source },
    }
}

/// A BPF map, closed (and freed once no program uses it) on drop.
#[derive(Debug)]
pub struct Map {
    fd: OwnedFd,
    kind: MapType,
    max_entries: u32,
}

impl Map {
    /// Creates a map of `kind` with u32 keys, `value_size`-byte values and
    /// `max_entries` slots.
    pub fn create(kind: MapType, name: &str, value_size: u32, max_entries: u32) -> Result<Map> {
        let mut attr = MapCreateAttr {
            map_type: kind as u32,
            key_size: 4,
            value_size,
            max_entries,
            map_name: name16(name),
            ..MapCreateAttr::default()
        };
        let r = bpf(cmd::MAP_CREATE, &mut attr).map_err(bpf_error(
            "BPF_MAP_CREATE",
            format!("{kind:?} map `{name}` of {max_entries} entries"),
        ))?;
        Ok(Map {
            fd: owned(r),
            kind,
            max_entries,
        })
    }

    /// Writes `value` under `key`.
    pub fn update(&self, key: u32, value: &[u8]) -> Result<()> {
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: (&key as *const u32) as u64,
            value: value.as_ptr() as u64,
            ..MapElemAttr::default()
        };
        bpf(cmd::MAP_UPDATE_ELEM, &mut attr).map_err(bpf_error(
            "BPF_MAP_UPDATE_ELEM",
            format!("{:?} map, key {key}", self.kind),
        ))?;
        Ok(())
    }

    /// Reads the u64 stored under `key` of an array map.
    pub fn read_u64(&self, key: u32) -> Result<u64> {
        let mut value = 0u64;
        let mut attr = MapElemAttr {
            map_fd: self.fd.as_raw_fd() as u32,
            key: (&key as *const u32) as u64,
            value: (&mut value as *mut u64) as u64,
            ..MapElemAttr::default()
        };
        bpf(cmd::MAP_LOOKUP_ELEM, &mut attr).map_err(bpf_error(
            "BPF_MAP_LOOKUP_ELEM",
            format!("{:?} map, key {key}", self.kind),
        ))?;
        Ok(value)
    }

    /// Entries the map was created with.
    pub fn max_entries(&self) -> u32 {
        self.max_entries
    }

    /// The descriptor, for a program's map reference.
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// A loaded XDP program (not yet attached anywhere).
#[derive(Debug)]
pub struct Program {
    fd: OwnedFd,
    name: String,
}

/// Bytes of verifier log kept when a program is refused.
const LOG_BYTES: usize = 64 << 10;

impl Program {
    /// Loads `insns` as an XDP program that accepts multi-buffer frames.
    /// When the verifier refuses it, the error carries the verifier's log.
    pub fn load_xdp(name: &str, insns: &[Insn]) -> Result<Program> {
        let bytes = insn::to_bytes(insns);
        let license = CString::new("Dual MIT/GPL").map_err(|_| Error::Bpf {
            op: "BPF_PROG_LOAD",
            what: "licence string".into(),
            source: std::io::Error::from(std::io::ErrorKind::InvalidInput),
        })?;
        let attempt = |log: Option<&mut Vec<u8>>| {
            let (log_level, log_size, log_buf) = match log {
                Some(l) => (1, l.len() as u32, l.as_mut_ptr() as u64),
                None => (0, 0, 0),
            };
            let mut attr = ProgLoadAttr {
                prog_type: PROG_TYPE_XDP,
                insn_cnt: insns.len() as u32,
                insns: bytes.as_ptr() as u64,
                license: license.as_ptr() as u64,
                log_level,
                log_size,
                log_buf,
                prog_flags: F_XDP_HAS_FRAGS,
                prog_name: name16(name),
                expected_attach_type: ATTACH_XDP,
                ..ProgLoadAttr::default()
            };
            bpf(cmd::PROG_LOAD, &mut attr)
        };
        match attempt(None) {
            Ok(r) => Ok(Program {
                fd: owned(r),
                name: name.to_owned(),
            }),
            Err(first) if matches!(first.raw_os_error(), Some(libc::EPERM | libc::EACCES)) => {
                Err(Error::NeedsCapBpf {
                    op: "BPF_PROG_LOAD",
                    source: first,
                })
            }
            Err(first) => {
                // Load again with the verifier's log, to say why.
                let mut log = vec![0u8; LOG_BYTES];
                let _ = attempt(Some(&mut log));
                let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                Err(Error::BpfVerifier {
                    program: name.to_owned(),
                    log: String::from_utf8_lossy(&log[..end]).trim_end().to_owned(),
                    source: first,
                })
            }
        }
    }

    /// Attaches the program to interface `ifindex` (named `interface` in
    /// errors) as a link: detached when the returned [`Link`] drops.
    pub fn attach(&self, interface: &str, ifindex: u32, mode: AttachMode) -> Result<Link> {
        let mut attr = LinkCreateAttr {
            prog_fd: self.fd.as_raw_fd() as u32,
            target_ifindex: ifindex,
            attach_type: ATTACH_XDP,
            flags: mode.flags(),
        };
        let r = bpf(cmd::LINK_CREATE, &mut attr).map_err(|source| Error::XdpAttach {
            program: self.name.clone(),
            interface: interface.to_owned(),
            mode: mode.name(),
            source,
        })?;
        Ok(Link {
            _fd: owned(r),
            mode,
        })
    }
}

/// An attached XDP program; dropping it detaches the program.
#[derive(Debug)]
pub struct Link {
    _fd: OwnedFd,
    mode: AttachMode,
}

impl Link {
    /// Where the program runs.
    pub fn mode(&self) -> AttachMode {
        self.mode
    }
}
