//! The producer's state behind the C functions: one table of live modules
//! by handle, each knowing its parent, so closing a module closes what was
//! opened from it, and `GCCloseLib` stops every stream and releases every
//! camera (joining their threads) before it returns.
//!
//! Every function here is safe Rust taking and returning plain values; the
//! C boundary ([`crate::ffi`]) only converts pointers to and from them.

use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use crate::abi::{event_info, event_type, port_info, url_info, url_scheme};
use crate::device::Device;
use crate::error::{GcError, GcResult};
use crate::handles::Handles;
use crate::info::Info;
use crate::local_port::{Fields, LocalPort};
use crate::stream::{DataStream, Memory, OwnedMemory, STREAM_ID};
use crate::system::{self, device_id, Interface, System, TL_TYPE, VENDOR};

/// A live module, with the handle of the module it was opened from.
#[derive(Debug, Clone)]
pub enum Object {
    /// The system module.
    System(Arc<System>),
    /// An interface module.
    Interface(u64, Arc<Interface>),
    /// A device module.
    Device(u64, Arc<Device>),
    /// A device's remote port (the camera itself).
    RemotePort(u64, Arc<Device>),
    /// A data stream module.
    Stream(u64, Arc<DataStream>),
    /// A buffer announced to a stream.
    Buffer(u64, Arc<DataStream>),
    /// A stream's NEW_BUFFER event.
    Event(u64, Arc<DataStream>),
}

impl Object {
    fn parent(&self) -> Option<u64> {
        match self {
            Object::System(_) => None,
            Object::Interface(p, _)
            | Object::Device(p, _)
            | Object::RemotePort(p, _)
            | Object::Stream(p, _)
            | Object::Buffer(p, _)
            | Object::Event(p, _) => Some(*p),
        }
    }
}

#[derive(Debug, Default)]
struct Library {
    initialised: bool,
    handles: Handles<Object>,
}

static LIBRARY: LazyLock<Mutex<Library>> = LazyLock::new(Mutex::default);

fn library() -> MutexGuard<'static, Library> {
    system::lock(&LIBRARY)
}

/// The initialised library, locked.
fn live() -> GcResult<MutexGuard<'static, Library>> {
    let lib = library();
    if lib.initialised {
        Ok(lib)
    } else {
        Err(GcError::NotInitialized)
    }
}

/// `GCInitLib`.
pub fn init() -> GcResult<()> {
    let mut lib = library();
    if lib.initialised {
        return Err(GcError::ResourceInUse(
            "GCInitLib was called already".into(),
        ));
    }
    lib.initialised = true;
    Ok(())
}

/// `GCCloseLib`: closes every module; streams stop and cameras are released
/// (their threads joined) before this returns.
pub fn close_lib() -> GcResult<()> {
    let objects = {
        let mut lib = live()?;
        lib.initialised = false;
        lib.handles.drain()
    };
    release(&objects);
    Ok(())
}

fn get(handle: u64, expected: &'static str) -> GcResult<Object> {
    live()?
        .handles
        .get(handle)
        .ok_or(GcError::InvalidHandle { handle, expected })
}

/// The system module `handle` names.
pub fn system(handle: u64) -> GcResult<Arc<System>> {
    match get(handle, "system module (TL_HANDLE)")? {
        Object::System(s) => Ok(s),
        _ => Err(wrong(handle, "system module (TL_HANDLE)")),
    }
}

/// The interface module `handle` names.
pub fn interface(handle: u64) -> GcResult<Arc<Interface>> {
    match get(handle, "interface module (IF_HANDLE)")? {
        Object::Interface(_, i) => Ok(i),
        _ => Err(wrong(handle, "interface module (IF_HANDLE)")),
    }
}

/// The device module `handle` names.
pub fn device(handle: u64) -> GcResult<Arc<Device>> {
    match get(handle, "device module (DEV_HANDLE)")? {
        Object::Device(_, d) => Ok(d),
        _ => Err(wrong(handle, "device module (DEV_HANDLE)")),
    }
}

/// The data stream `handle` names.
pub fn stream(handle: u64) -> GcResult<Arc<DataStream>> {
    match get(handle, "data stream (DS_HANDLE)")? {
        Object::Stream(_, s) => Ok(s),
        _ => Err(wrong(handle, "data stream (DS_HANDLE)")),
    }
}

/// The stream that `buffer` belongs to, checked to be `stream_handle`.
fn buffer_of(stream_handle: u64, buffer: u64) -> GcResult<Arc<DataStream>> {
    let s = stream(stream_handle)?;
    match get(buffer, "buffer (BUFFER_HANDLE)")? {
        Object::Buffer(parent, _) if parent == stream_handle => Ok(s),
        _ => Err(wrong(buffer, "buffer (BUFFER_HANDLE) of this stream")),
    }
}

fn wrong(handle: u64, expected: &'static str) -> GcError {
    GcError::InvalidHandle { handle, expected }
}

/// Closes `handle` (of kind `expected`) and every module opened from it.
fn close(handle: u64, expected: &'static str, fits: fn(&Object) -> bool) -> GcResult<()> {
    let removed = {
        let mut lib = live()?;
        let object = lib.handles.get(handle).ok_or(wrong(handle, expected))?;
        if !fits(&object) {
            return Err(wrong(handle, expected));
        }
        let mut removed = Vec::new();
        let mut pending = vec![handle];
        while let Some(h) = pending.pop() {
            pending.extend(lib.handles.find(|o| o.parent() == Some(h)));
            if let Some(o) = lib.handles.remove(h) {
                removed.push(o);
            }
        }
        removed
    };
    release(&removed);
    Ok(())
}

/// Stops the streams among `objects`, then gives their cameras back
/// (outside the library's lock: both wait for threads to end).
fn release(objects: &[Object]) {
    for object in objects {
        if let Object::Stream(_, s) = object {
            if s.is_acquiring() {
                let _ = s.stop();
            }
        }
    }
    for object in objects {
        if let Object::Device(_, d) = object {
            d.release();
        }
    }
}

/// `TLOpen`.
pub fn tl_open() -> GcResult<u64> {
    let mut lib = live()?;
    if !lib
        .handles
        .find(|o| matches!(o, Object::System(_)))
        .is_empty()
    {
        return Err(GcError::ResourceInUse(
            "the system module is open already".into(),
        ));
    }
    Ok(lib
        .handles
        .insert(Object::System(Arc::new(System::default()))))
}

/// `TLClose`.
pub fn tl_close(handle: u64) -> GcResult<()> {
    close(handle, "system module (TL_HANDLE)", |o| {
        matches!(o, Object::System(_))
    })
}

/// `TLOpenInterface`.
pub fn open_interface(tl: u64, id: &str) -> GcResult<u64> {
    let system = system(tl)?;
    let iface = system.interface(id)?;
    let mut lib = live()?;
    let open = lib
        .handles
        .find(|o| matches!(o, Object::Interface(p, i) if *p == tl && i.iface.name == id));
    if !open.is_empty() {
        return Err(GcError::ResourceInUse(format!(
            "interface {id} is open already"
        )));
    }
    Ok(lib
        .handles
        .insert(Object::Interface(tl, Arc::new(Interface::new(iface)))))
}

/// `IFClose`.
pub fn if_close(handle: u64) -> GcResult<()> {
    close(handle, "interface module (IF_HANDLE)", |o| {
        matches!(o, Object::Interface(..))
    })
}

/// The parent handle of `handle`, checked to be of `expected` kind.
pub fn parent(handle: u64, expected: &'static str, fits: fn(&Object) -> bool) -> GcResult<u64> {
    let object = get(handle, expected)?;
    if !fits(&object) {
        return Err(wrong(handle, expected));
    }
    object.parent().ok_or(wrong(handle, expected))
}

/// Whether device `id` of interface `iface` is open.
pub fn device_is_open(iface: u64, id: &str) -> GcResult<bool> {
    Ok(!live()?
        .handles
        .find(|o| matches!(o, Object::Device(p, d) if *p == iface && device_id(&d.found) == id))
        .is_empty())
}

/// `IFOpenDevice`.
pub fn open_device(iface_handle: u64, id: &str, flags: i32) -> GcResult<u64> {
    let iface = interface(iface_handle)?;
    let found = iface.device(id)?;
    if device_is_open(iface_handle, id)? {
        return Err(GcError::ResourceInUse(format!(
            "device {id} is open already"
        )));
    }
    // Connecting takes a while: no lock is held meanwhile.
    let device = Arc::new(Device::open(found, iface.iface.address, flags)?);
    let mut lib = live()?;
    let handle = lib
        .handles
        .insert(Object::Device(iface_handle, Arc::clone(&device)));
    lib.handles.insert(Object::RemotePort(handle, device));
    Ok(handle)
}

/// `DevClose`.
pub fn dev_close(handle: u64) -> GcResult<()> {
    close(handle, "device module (DEV_HANDLE)", |o| {
        matches!(o, Object::Device(..))
    })
}

/// `DevGetPort`: the remote device port.
pub fn remote_port(device_handle: u64) -> GcResult<u64> {
    device(device_handle)?;
    live()?
        .handles
        .find(|o| matches!(o, Object::RemotePort(p, _) if *p == device_handle))
        .first()
        .copied()
        .ok_or(wrong(device_handle, "device module (DEV_HANDLE)"))
}

/// `DevOpenDataStream`.
pub fn open_stream(device_handle: u64, id: &str) -> GcResult<u64> {
    let device = device(device_handle)?;
    if id != STREAM_ID {
        return Err(GcError::InvalidId {
            kind: "data stream",
            id: id.into(),
        });
    }
    let mut lib = live()?;
    if !lib
        .handles
        .find(|o| matches!(o, Object::Stream(p, _) if *p == device_handle))
        .is_empty()
    {
        return Err(GcError::ResourceInUse(format!(
            "{STREAM_ID} is open already"
        )));
    }
    Ok(lib.handles.insert(Object::Stream(
        device_handle,
        Arc::new(DataStream::new(device)),
    )))
}

/// `DSClose`.
pub fn ds_close(handle: u64) -> GcResult<()> {
    close(handle, "data stream (DS_HANDLE)", |o| {
        matches!(o, Object::Stream(..))
    })
}

/// `DSAnnounceBuffer` / `DSAllocAndAnnounceBuffer`.
pub fn announce(stream_handle: u64, memory: Box<dyn Memory>, private: usize) -> GcResult<u64> {
    let s = stream(stream_handle)?;
    let handle = live()?
        .handles
        .insert(Object::Buffer(stream_handle, Arc::clone(&s)));
    if let Err(e) = s.announce(handle, memory, private) {
        live()?.handles.remove(handle);
        return Err(e);
    }
    Ok(handle)
}

/// `DSAllocAndAnnounceBuffer`.
pub fn alloc_and_announce(stream_handle: u64, size: usize, private: usize) -> GcResult<u64> {
    if size == 0 || size > (1 << 34) {
        return Err(GcError::InvalidParameter(format!(
            "a buffer of {size} bytes: between 1 byte and 16 GiB, please"
        )));
    }
    announce(stream_handle, Box::new(OwnedMemory::new(size)), private)
}

/// `DSRevokeBuffer`: the buffer's memory and private pointer.
pub fn revoke(stream_handle: u64, buffer: u64) -> GcResult<(usize, usize)> {
    let s = buffer_of(stream_handle, buffer)?;
    let out = s.revoke(buffer)?;
    live()?.handles.remove(buffer);
    Ok(out)
}

/// `DSQueueBuffer`.
pub fn queue(stream_handle: u64, buffer: u64) -> GcResult<()> {
    buffer_of(stream_handle, buffer)?.queue(buffer)
}

/// `DSGetBufferInfo`.
pub fn buffer_info(stream_handle: u64, buffer: u64, command: i32) -> GcResult<Info> {
    buffer_of(stream_handle, buffer)?.buffer_info(buffer, command)
}

/// `DSGetNumBufferParts`: 0, as for every single-part payload.
pub fn buffer_parts(stream_handle: u64, buffer: u64) -> GcResult<u32> {
    buffer_of(stream_handle, buffer)?;
    Ok(0)
}

/// `DSGetBufferChunkData`: no chunks (our buffers carry images only).
pub fn buffer_chunks(stream_handle: u64, buffer: u64) -> GcResult<usize> {
    buffer_of(stream_handle, buffer)?;
    Ok(0)
}

/// `GCRegisterEvent`: only a data stream's NEW_BUFFER event exists.
pub fn register_event(source: u64, kind: i32) -> GcResult<u64> {
    let object = get(source, "event source")?;
    let Object::Stream(_, s) = object else {
        return Err(GcError::NotImplemented(format!(
            "event type {kind} on this module (only a data stream's NEW_BUFFER is)"
        )));
    };
    if kind != event_type::NEW_BUFFER {
        return Err(GcError::NotImplemented(format!(
            "event type {kind} on a data stream (only NEW_BUFFER is)"
        )));
    }
    let mut lib = live()?;
    let handle = lib.handles.insert(Object::Event(source, Arc::clone(&s)));
    if let Err(e) = s.register_event(handle) {
        lib.handles.remove(handle);
        return Err(e);
    }
    Ok(handle)
}

/// `GCUnregisterEvent`.
pub fn unregister_event(source: u64, kind: i32) -> GcResult<()> {
    let object = get(source, "event source")?;
    let Object::Stream(_, s) = object else {
        return Err(GcError::NotImplemented(format!(
            "event type {kind} on this module"
        )));
    };
    if kind != event_type::NEW_BUFFER {
        return Err(GcError::NotImplemented(format!("event type {kind}")));
    }
    let handle = s
        .unregister_event()
        .ok_or_else(|| GcError::ResourceInUse("NEW_BUFFER is not registered".into()))?;
    live()?.handles.remove(handle);
    Ok(())
}

fn event(handle: u64) -> GcResult<Arc<DataStream>> {
    match get(handle, "event (EVENT_HANDLE)")? {
        Object::Event(_, s) => Ok(s),
        _ => Err(wrong(handle, "event (EVENT_HANDLE)")),
    }
}

/// `EventGetData`: the next filled buffer and its private pointer.
pub fn event_wait(handle: u64, timeout_ms: u64) -> GcResult<(u64, usize)> {
    event(handle)?.wait_buffer(timeout_ms)
}

/// `EventGetInfo`.
pub fn event_info(handle: u64, command: i32, data_size: usize) -> GcResult<Info> {
    let s = event(handle)?;
    Ok(match command {
        event_info::EVENT_TYPE => Info::I32(event_type::NEW_BUFFER),
        event_info::NUM_IN_QUEUE => Info::Size(s.waiting()),
        event_info::NUM_FIRED => Info::U64(s.delivered()),
        event_info::SIZE_MAX => Info::Size(data_size),
        event_info::INFO_DATA_SIZE_MAX => Info::Size(0),
        other => return Err(GcError::unknown_command("EVENT_INFO_CMD", other)),
    })
}

/// `EventFlush`: discards the buffers waiting in the output queue (frames
/// are copied when asked for, so only flushed-through buffers wait there).
pub fn event_flush(handle: u64) -> GcResult<()> {
    event(handle)?.flush_output();
    Ok(())
}

/// `EventKill`.
pub fn event_kill(handle: u64) -> GcResult<()> {
    event(handle)?.kill_wait();
    Ok(())
}

/// Runs `f` on the local port and fields of a module handle, or returns
/// the device of a remote port handle.
fn port_of<T>(
    handle: u64,
    local: impl FnOnce(&LocalPort, &dyn Fields) -> GcResult<T>,
    remote: impl FnOnce(&Device) -> GcResult<T>,
) -> GcResult<T> {
    match get(handle, "port (a module or remote device handle)")? {
        Object::System(s) => local(&s.port, &*s),
        Object::Interface(_, i) => local(&i.port, &*i),
        Object::Device(_, d) => local(&d.port, &*d),
        Object::Stream(_, s) => local(&s.port, &*s),
        Object::RemotePort(_, d) => remote(&d),
        Object::Buffer(..) | Object::Event(..) => Err(GcError::NotImplemented(
            "a port on buffers and events".into(),
        )),
    }
}

/// The most one port read returns (a GenICam XML file is far smaller).
const MAX_PORT_READ: usize = 64 << 20;

/// `GCReadPort`.
pub fn port_read(handle: u64, address: u64, len: usize) -> GcResult<Vec<u8>> {
    if len > MAX_PORT_READ {
        return Err(GcError::InvalidParameter(format!(
            "a port read of {len} bytes: at most {MAX_PORT_READ} per call"
        )));
    }
    port_of(
        handle,
        |p, f| p.read(address, len, f),
        |d| d.read_remote(address, len),
    )
}

/// `GCWritePort`.
pub fn port_write(handle: u64, address: u64, data: &[u8]) -> GcResult<()> {
    port_of(
        handle,
        |p, f| p.write(address, data, f),
        |d| d.write_remote(address, data),
    )
}

/// `GCGetNumPortURLs`.
pub fn port_url_count(handle: u64) -> GcResult<u32> {
    port_of(handle, |_, _| Ok(1), |d| Ok(d.url_count()))
}

/// `GCGetPortURLInfo`.
pub fn port_url_info(handle: u64, index: u32, command: i32) -> GcResult<Info> {
    port_of(
        handle,
        |p, _| {
            if index != 0 {
                return Err(GcError::InvalidIndex {
                    index: u64::from(index),
                    count: 1,
                });
            }
            Ok(match command {
                url_info::URL => Info::Str(p.url()),
                url_info::SCHEMA_VER_MAJOR | url_info::SCHEMA_VER_MINOR => Info::I32(1),
                url_info::FILE_VER_MAJOR => Info::I32(1),
                url_info::FILE_VER_MINOR | url_info::FILE_VER_SUBMINOR => Info::I32(0),
                url_info::FILE_REGISTER_ADDRESS => Info::U64(crate::local_port::XML_ADDRESS),
                url_info::FILE_SIZE => Info::U64(p.xml().len() as u64),
                url_info::SCHEME => Info::I32(url_scheme::LOCAL),
                url_info::FILENAME => Info::Str(p.file_name().into()),
                url_info::FILE_SHA1_HASH => {
                    return Err(GcError::NotAvailable("no SHA-1 is published".into()))
                }
                other => return Err(GcError::unknown_command("URL_INFO_CMD", other)),
            })
        },
        |d| d.url_info(index, command),
    )
}

/// `GCGetPortInfo`.
pub fn port_info(handle: u64, command: i32) -> GcResult<Info> {
    port_of(
        handle,
        |p, _| {
            Ok(match command {
                port_info::ID => Info::Str(p.port_name.into()),
                port_info::VENDOR => Info::Str(VENDOR.into()),
                port_info::MODEL => Info::Str(system::MODEL.into()),
                port_info::TLTYPE => Info::Str(TL_TYPE.into()),
                port_info::MODULE => Info::Str(p.module.into()),
                port_info::LITTLE_ENDIAN | port_info::ACCESS_READ | port_info::ACCESS_WRITE => {
                    Info::Bool(true)
                }
                port_info::BIG_ENDIAN | port_info::ACCESS_NA | port_info::ACCESS_NI => {
                    Info::Bool(false)
                }
                port_info::VERSION => Info::Str(env!("CARGO_PKG_VERSION").into()),
                port_info::PORTNAME => Info::Str(p.port_name.into()),
                other => return Err(GcError::unknown_command("PORT_INFO_CMD", other)),
            })
        },
        |d| d.remote_port_info(command),
    )
}
