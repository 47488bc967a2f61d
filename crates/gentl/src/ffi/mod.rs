//! The C boundary: every GenTL 1.6 function, exported unmangled. Each one
//! checks its pointers for NULL, converts them to plain values, calls the
//! safe producer ([`crate::producer`]) inside `catch_unwind` (no panic
//! crosses into C; it becomes `GC_ERR_ERROR` with a message) and records
//! any error as the calling thread's last error for `GCGetLastError`.
//!
//! This module and [`stream`] are the only places of the crate with
//! `unsafe` code: reading the caller's strings, writing its out-parameters
//! and copying frames into the memory it announced.
//!
//! # Safety
//!
//! Every exported function is `unsafe` for the same reason: the caller
//! passes pointers the producer cannot check beyond NULL. As the GenTL
//! standard requires, a non-NULL pointer must point to memory valid for
//! the size the function's contract gives (a `size_t` at `piSize`, at
//! least `*piSize` bytes at `pBuffer`, a NUL-terminated string at an ID).
//! Handles need no such care: they are looked up, never dereferenced.
#![allow(clippy::missing_safety_doc)]

pub(crate) mod lent;
mod stream;

use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::abi::error_code;
use crate::error::{self, GcError, GcResult};
use crate::info::{c_string, Info};
use crate::producer;
use crate::system;

/// `GC_ERROR`.
type GcError32 = i32;
/// Any GenTL handle: an opaque pointer-sized value.
type Handle = *mut c_void;

/// Runs `f` without letting a panic out, recording a failure as this
/// thread's last error and returning its code.
fn guard(f: impl FnOnce() -> GcResult<()>) -> GcError32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => error_code::SUCCESS,
        Ok(Err(e)) => error::record(&e),
        Err(panic) => {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".into());
            error::record(&GcError::Panic(text))
        }
    }
}

fn handle(h: Handle) -> u64 {
    h as usize as u64
}

fn to_handle(h: u64) -> Handle {
    usize::try_from(h).unwrap_or(0) as Handle
}

/// Stores `value` at `out`.
unsafe fn put<T>(out: *mut T, value: T, what: &str) -> GcResult<()> {
    if out.is_null() {
        return Err(GcError::null(what));
    }
    // SAFETY: non-NULL, and the caller's contract makes it valid for a T.
    unsafe { out.write_unaligned(value) };
    Ok(())
}

/// The GenTL size protocol: with `buffer` NULL, `*size` learns the bytes
/// needed; otherwise `bytes` are copied if `*size` allows, and `*size`
/// becomes their count.
unsafe fn put_bytes(bytes: &[u8], buffer: *mut c_void, size: *mut usize) -> GcResult<()> {
    if size.is_null() {
        return Err(GcError::null("piSize"));
    }
    if buffer.is_null() {
        // SAFETY: checked non-NULL; the caller's contract covers a size_t.
        unsafe { size.write_unaligned(bytes.len()) };
        return Ok(());
    }
    // SAFETY: as above.
    let given = unsafe { size.read_unaligned() };
    if given < bytes.len() {
        return Err(GcError::BufferTooSmall {
            needed: bytes.len(),
            given,
        });
    }
    // SAFETY: the caller's buffer holds `given` >= `bytes.len()` bytes and
    // does not overlap our own `bytes`.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer.cast::<u8>(), bytes.len());
        size.write_unaligned(bytes.len());
    }
    Ok(())
}

/// An info answer through the size protocol, with its type at `kind`
/// (which may be NULL).
unsafe fn put_info(
    info: GcResult<Info>,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcResult<()> {
    let info = info?;
    if !kind.is_null() {
        // SAFETY: non-NULL INFO_DATATYPE out-parameter.
        unsafe { kind.write_unaligned(info.data_type()) };
    }
    // SAFETY: forwarded under the same contract.
    unsafe { put_bytes(&info.to_bytes(), buffer, size) }
}

/// A string through the size protocol.
unsafe fn put_string(text: &str, buffer: *mut c_char, size: *mut usize) -> GcResult<()> {
    // SAFETY: forwarded under the same contract.
    unsafe { put_bytes(&c_string(text), buffer.cast(), size) }
}

/// The caller's NUL-terminated string.
unsafe fn text(s: *const c_char, what: &str) -> GcResult<String> {
    if s.is_null() {
        return Err(GcError::null(what));
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let s = unsafe { CStr::from_ptr(s) };
    Ok(s.to_string_lossy().into_owned())
}

// ---- Library -------------------------------------------------------------

/// Initialises the producer; call once before anything else.
#[no_mangle]
pub extern "C" fn GCInitLib() -> GcError32 {
    guard(producer::init)
}

/// Closes every module, stops every stream and joins every thread.
#[no_mangle]
pub extern "C" fn GCCloseLib() -> GcError32 {
    guard(producer::close_lib)
}

/// Information about the producer (callable before `GCInitLib`).
#[no_mangle]
pub unsafe extern "C" fn GCGetInfo(
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe { put_info(system::tl_info(command), kind, buffer, size) })
}

/// The calling thread's last error: its code and text.
#[no_mangle]
pub unsafe extern "C" fn GCGetLastError(
    code: *mut GcError32,
    text: *mut c_char,
    size: *mut usize,
) -> GcError32 {
    let result = catch_unwind(AssertUnwindSafe(|| -> GcResult<()> {
        let (last_code, last_text) = error::last();
        unsafe {
            put(code, last_code, "piErrorCode")?;
            put_string(&last_text, text, size)
        }
    }));
    match result {
        Ok(Ok(())) => error_code::SUCCESS,
        Ok(Err(e)) => e.code(),
        Err(_) => error_code::ERROR,
    }
}

// ---- System module -------------------------------------------------------

/// Opens the system module.
#[no_mangle]
pub unsafe extern "C" fn TLOpen(out: *mut Handle) -> GcError32 {
    guard(|| unsafe {
        if out.is_null() {
            return Err(GcError::null("phTL"));
        }
        put(out, to_handle(producer::tl_open()?), "phTL")
    })
}

/// Closes the system module and everything opened from it.
#[no_mangle]
pub extern "C" fn TLClose(tl: Handle) -> GcError32 {
    guard(|| producer::tl_close(handle(tl)))
}

/// Information about the system module.
#[no_mangle]
pub unsafe extern "C" fn TLGetInfo(
    tl: Handle,
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        producer::system(handle(tl))?;
        put_info(system::tl_info(command), kind, buffer, size)
    })
}

/// The number of interfaces found by the last `TLUpdateInterfaceList`.
#[no_mangle]
pub unsafe extern "C" fn TLGetNumInterfaces(tl: Handle, count: *mut u32) -> GcError32 {
    guard(|| unsafe { put(count, producer::system(handle(tl))?.count(), "piNumIfaces") })
}

/// The ID of an interface.
#[no_mangle]
pub unsafe extern "C" fn TLGetInterfaceID(
    tl: Handle,
    index: u32,
    id: *mut c_char,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        let name = producer::system(handle(tl))?.interface_id(index)?;
        put_string(&name, id, size)
    })
}

/// Information about an interface, by ID.
#[no_mangle]
pub unsafe extern "C" fn TLGetInterfaceInfo(
    tl: Handle,
    id: *const c_char,
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        let iface = producer::system(handle(tl))?.interface(&text(id, "sIfaceID")?)?;
        put_info(system::interface_info(&iface, command), kind, buffer, size)
    })
}

/// Opens an interface module.
#[no_mangle]
pub unsafe extern "C" fn TLOpenInterface(
    tl: Handle,
    id: *const c_char,
    out: *mut Handle,
) -> GcError32 {
    guard(|| unsafe {
        let id = text(id, "sIfaceID")?;
        if out.is_null() {
            return Err(GcError::null("phIface"));
        }
        put(
            out,
            to_handle(producer::open_interface(handle(tl), &id)?),
            "phIface",
        )
    })
}

/// Lists the network interfaces again.
#[no_mangle]
pub unsafe extern "C" fn TLUpdateInterfaceList(
    tl: Handle,
    changed: *mut u8,
    _timeout_ms: u64,
) -> GcError32 {
    guard(|| unsafe {
        let c = producer::system(handle(tl))?.update()?;
        if !changed.is_null() {
            put(changed, u8::from(c), "pbChanged")?;
        }
        Ok(())
    })
}

// ---- Interface module ----------------------------------------------------

/// Closes an interface module and the devices opened from it.
#[no_mangle]
pub extern "C" fn IFClose(iface: Handle) -> GcError32 {
    guard(|| producer::if_close(handle(iface)))
}

/// Information about an interface module.
#[no_mangle]
pub unsafe extern "C" fn IFGetInfo(
    iface: Handle,
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        let i = producer::interface(handle(iface))?;
        put_info(
            system::interface_info(&i.iface, command),
            kind,
            buffer,
            size,
        )
    })
}

/// The number of devices found by the last `IFUpdateDeviceList`.
#[no_mangle]
pub unsafe extern "C" fn IFGetNumDevices(iface: Handle, count: *mut u32) -> GcError32 {
    guard(|| unsafe {
        put(
            count,
            producer::interface(handle(iface))?.count(),
            "piNumDevices",
        )
    })
}

/// The ID of a device.
#[no_mangle]
pub unsafe extern "C" fn IFGetDeviceID(
    iface: Handle,
    index: u32,
    id: *mut c_char,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        let name = producer::interface(handle(iface))?.device_id(index)?;
        put_string(&name, id, size)
    })
}

/// Discovers the devices on the interface (GVCP broadcast).
#[no_mangle]
pub unsafe extern "C" fn IFUpdateDeviceList(
    iface: Handle,
    changed: *mut u8,
    timeout_ms: u64,
) -> GcError32 {
    guard(|| unsafe {
        let c = producer::interface(handle(iface))?.update(timeout_ms)?;
        if !changed.is_null() {
            put(changed, u8::from(c), "pbChanged")?;
        }
        Ok(())
    })
}

/// Information about a device, by ID.
#[no_mangle]
pub unsafe extern "C" fn IFGetDeviceInfo(
    iface: Handle,
    id: *const c_char,
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        let id = text(id, "sDeviceID")?;
        let found = producer::interface(handle(iface))?.device(&id)?;
        let open = producer::device_is_open(handle(iface), &id)?;
        put_info(
            system::device_info(&found, open, command),
            kind,
            buffer,
            size,
        )
    })
}

/// Opens a device: takes control of the camera.
#[no_mangle]
pub unsafe extern "C" fn IFOpenDevice(
    iface: Handle,
    id: *const c_char,
    flags: i32,
    out: *mut Handle,
) -> GcError32 {
    guard(|| unsafe {
        let id = text(id, "sDeviceID")?;
        if out.is_null() {
            return Err(GcError::null("phDevice"));
        }
        put(
            out,
            to_handle(producer::open_device(handle(iface), &id, flags)?),
            "phDevice",
        )
    })
}

/// The system module an interface belongs to.
#[no_mangle]
pub unsafe extern "C" fn IFGetParentTL(iface: Handle, out: *mut Handle) -> GcError32 {
    guard(|| unsafe {
        let p = producer::parent(handle(iface), "interface module (IF_HANDLE)", |o| {
            matches!(o, producer::Object::Interface(..))
        })?;
        put(out, to_handle(p), "phSystem")
    })
}

// ---- Device module -------------------------------------------------------

/// The remote device port (the camera's registers and XML).
#[no_mangle]
pub unsafe extern "C" fn DevGetPort(device: Handle, out: *mut Handle) -> GcError32 {
    guard(|| unsafe {
        put(
            out,
            to_handle(producer::remote_port(handle(device))?),
            "phRemoteDevice",
        )
    })
}

/// The number of data streams: one.
#[no_mangle]
pub unsafe extern "C" fn DevGetNumDataStreams(device: Handle, count: *mut u32) -> GcError32 {
    guard(|| unsafe {
        producer::device(handle(device))?;
        put(count, 1, "piNumDataStreams")
    })
}

/// The ID of the data stream.
#[no_mangle]
pub unsafe extern "C" fn DevGetDataStreamID(
    device: Handle,
    index: u32,
    id: *mut c_char,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        producer::device(handle(device))?;
        if index != 0 {
            return Err(GcError::InvalidIndex {
                index: u64::from(index),
                count: 1,
            });
        }
        put_string(crate::stream::STREAM_ID, id, size)
    })
}

/// Opens the data stream.
#[no_mangle]
pub unsafe extern "C" fn DevOpenDataStream(
    device: Handle,
    id: *const c_char,
    out: *mut Handle,
) -> GcError32 {
    guard(|| unsafe {
        let id = text(id, "sDataStreamID")?;
        if out.is_null() {
            return Err(GcError::null("phDataStream"));
        }
        put(
            out,
            to_handle(producer::open_stream(handle(device), &id)?),
            "phDataStream",
        )
    })
}

/// Information about an open device.
#[no_mangle]
pub unsafe extern "C" fn DevGetInfo(
    device: Handle,
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        let d = producer::device(handle(device))?;
        let info = if command == crate::abi::device_info::TIMESTAMP_FREQUENCY {
            d.tick_frequency().map(Info::U64)
        } else {
            system::device_info(&d.found, true, command)
        };
        put_info(info, kind, buffer, size)
    })
}

/// Closes a device (stopping its stream) and releases the camera.
#[no_mangle]
pub extern "C" fn DevClose(device: Handle) -> GcError32 {
    guard(|| producer::dev_close(handle(device)))
}

/// The interface a device was opened from.
#[no_mangle]
pub unsafe extern "C" fn DevGetParentIF(device: Handle, out: *mut Handle) -> GcError32 {
    guard(|| unsafe {
        let p = producer::parent(handle(device), "device module (DEV_HANDLE)", |o| {
            matches!(o, producer::Object::Device(..))
        })?;
        put(out, to_handle(p), "phIface")
    })
}

// ---- Ports ---------------------------------------------------------------

/// Reads `*size` bytes of a port at `address`.
#[no_mangle]
pub unsafe extern "C" fn GCReadPort(
    port: Handle,
    address: u64,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        if buffer.is_null() {
            return Err(GcError::null("pBuffer"));
        }
        if size.is_null() {
            return Err(GcError::null("piSize"));
        }
        let len = size.read_unaligned();
        let bytes = producer::port_read(handle(port), address, len)?;
        put_bytes(&bytes, buffer, size)
    })
}

/// Writes `*size` bytes to a port at `address`.
#[no_mangle]
pub unsafe extern "C" fn GCWritePort(
    port: Handle,
    address: u64,
    buffer: *const c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        if buffer.is_null() {
            return Err(GcError::null("pBuffer"));
        }
        if size.is_null() {
            return Err(GcError::null("piSize"));
        }
        let len = size.read_unaligned();
        if len > 1 << 24 {
            return Err(GcError::InvalidParameter(format!(
                "a port write of {len} bytes is beyond any register"
            )));
        }
        // SAFETY: the caller's buffer holds `len` bytes by contract.
        let data = std::slice::from_raw_parts(buffer.cast::<u8>(), len);
        producer::port_write(handle(port), address, data)?;
        size.write_unaligned(len);
        Ok(())
    })
}

/// The port's first XML URL (GenTL 1.0's form of `GCGetPortURLInfo`).
#[no_mangle]
pub unsafe extern "C" fn GCGetPortURL(
    port: Handle,
    url: *mut c_char,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        match producer::port_url_info(handle(port), 0, crate::abi::url_info::URL)? {
            Info::Str(s) => put_string(&s, url, size),
            _ => Err(GcError::NoData("no URL".into())),
        }
    })
}

/// Information about a port.
#[no_mangle]
pub unsafe extern "C" fn GCGetPortInfo(
    port: Handle,
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        put_info(
            producer::port_info(handle(port), command),
            kind,
            buffer,
            size,
        )
    })
}

/// The number of XML URLs a port publishes.
#[no_mangle]
pub unsafe extern "C" fn GCGetNumPortURLs(port: Handle, count: *mut u32) -> GcError32 {
    guard(|| unsafe { put(count, producer::port_url_count(handle(port))?, "piNumURLs") })
}

/// Information about one of a port's XML URLs.
#[no_mangle]
pub unsafe extern "C" fn GCGetPortURLInfo(
    port: Handle,
    index: u32,
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        put_info(
            producer::port_url_info(handle(port), index, command),
            kind,
            buffer,
            size,
        )
    })
}

/// `PORT_REGISTER_STACK_ENTRY`: one access of a stacked read or write.
#[repr(C)]
pub struct PortRegisterStackEntry {
    /// Register address.
    pub address: u64,
    /// The caller's bytes.
    pub buffer: *mut c_void,
    /// How many.
    pub size: usize,
}

/// Several port reads in one call.
#[no_mangle]
pub unsafe extern "C" fn GCReadPortStacked(
    port: Handle,
    entries: *mut PortRegisterStackEntry,
    count: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        if entries.is_null() || count.is_null() {
            return Err(GcError::null("pEntries or piNumEntries"));
        }
        let n = count.read_unaligned();
        for i in 0..n {
            let e = &mut *entries.add(i);
            let bytes = producer::port_read(handle(port), e.address, e.size)?;
            if e.buffer.is_null() {
                return Err(GcError::null("an entry's pBuffer"));
            }
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), e.buffer.cast::<u8>(), bytes.len());
        }
        Ok(())
    })
}

/// Several port writes in one call.
#[no_mangle]
pub unsafe extern "C" fn GCWritePortStacked(
    port: Handle,
    entries: *mut PortRegisterStackEntry,
    count: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        if entries.is_null() || count.is_null() {
            return Err(GcError::null("pEntries or piNumEntries"));
        }
        let n = count.read_unaligned();
        for i in 0..n {
            let e = &*entries.add(i);
            if e.buffer.is_null() {
                return Err(GcError::null("an entry's pBuffer"));
            }
            let data = std::slice::from_raw_parts(e.buffer.cast::<u8>(), e.size);
            producer::port_write(handle(port), e.address, data)?;
        }
        Ok(())
    })
}

// ---- Events --------------------------------------------------------------

/// `EVENT_NEW_BUFFER_DATA`: what `EventGetData` gives for a new buffer.
#[repr(C)]
struct NewBufferData {
    buffer: Handle,
    user: *mut c_void,
}

/// Registers an event (a data stream's NEW_BUFFER).
#[no_mangle]
pub unsafe extern "C" fn GCRegisterEvent(source: Handle, kind: i32, out: *mut Handle) -> GcError32 {
    guard(|| unsafe {
        if out.is_null() {
            return Err(GcError::null("phEvent"));
        }
        put(
            out,
            to_handle(producer::register_event(handle(source), kind)?),
            "phEvent",
        )
    })
}

/// Unregisters an event.
#[no_mangle]
pub extern "C" fn GCUnregisterEvent(source: Handle, kind: i32) -> GcError32 {
    guard(|| producer::unregister_event(handle(source), kind))
}

/// Waits up to `timeout_ms` for a filled buffer.
#[no_mangle]
pub unsafe extern "C" fn EventGetData(
    event: Handle,
    buffer: *mut c_void,
    size: *mut usize,
    timeout_ms: u64,
) -> GcError32 {
    guard(|| unsafe {
        if buffer.is_null() || size.is_null() {
            return Err(GcError::null("pBuffer or piSize"));
        }
        let needed = std::mem::size_of::<NewBufferData>();
        let given = size.read_unaligned();
        if given < needed {
            return Err(GcError::BufferTooSmall { needed, given });
        }
        let (b, user) = producer::event_wait(handle(event), timeout_ms)?;
        let data = NewBufferData {
            buffer: to_handle(b),
            user: user as *mut c_void,
        };
        buffer.cast::<NewBufferData>().write_unaligned(data);
        size.write_unaligned(needed);
        Ok(())
    })
}

/// Information about an event.
#[no_mangle]
pub unsafe extern "C" fn EventGetInfo(
    event: Handle,
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        let info =
            producer::event_info(handle(event), command, std::mem::size_of::<NewBufferData>());
        put_info(info, kind, buffer, size)
    })
}

/// Discards the buffers waiting in the output queue.
#[no_mangle]
pub extern "C" fn EventFlush(event: Handle) -> GcError32 {
    guard(|| producer::event_flush(handle(event)))
}

/// Ends a wait in `EventGetData` with `GC_ERR_ABORT`.
#[no_mangle]
pub extern "C" fn EventKill(event: Handle) -> GcError32 {
    guard(|| producer::event_kill(handle(event)))
}

/// Not implemented: NEW_BUFFER's data needs no decoding.
#[no_mangle]
pub extern "C" fn EventGetDataInfo(
    _event: Handle,
    _in: *const c_void,
    _in_size: usize,
    _command: i32,
    _kind: *mut i32,
    _out: *mut c_void,
    _out_size: *mut usize,
) -> GcError32 {
    guard(|| Err(GcError::NotImplemented("EventGetDataInfo".into())))
}
