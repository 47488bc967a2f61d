//! The data stream and buffer functions at the C boundary, and the one
//! place frames are copied into memory the consumer owns.

use std::ffi::c_void;

use super::lent::lend_view;
use super::{guard, handle, put, put_info, to_handle, GcError32, Handle};
use crate::error::GcError;
use crate::producer;
use crate::stream::Memory;
use linerate_grab::stream::LentMemory;

/// A buffer the consumer announced: its memory, which it promises to keep
/// valid and leave to us until it revokes the buffer.
#[derive(Debug)]
struct ForeignMemory {
    base: usize,
    len: usize,
}

impl Memory for ForeignMemory {
    fn len(&self) -> usize {
        self.len
    }

    fn base(&self) -> usize {
        self.base
    }

    fn fill(&mut self, data: &[u8]) -> usize {
        let n = data.len().min(self.len);
        // SAFETY: DSAnnounceBuffer's contract: `base` holds `len` bytes the
        // consumer lends the producer until DSRevokeBuffer, and it reads
        // them only after EventGetData hands the buffer over (this copy
        // happens before); `data` is our own frame, never that memory.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.base as *mut u8, n) };
        n
    }

    fn lend(&mut self, id: u64, len: usize) -> Box<dyn LentMemory> {
        lend_view(id, self.base, len.min(self.len))
    }
}

/// Announces memory of the consumer's as a buffer.
#[no_mangle]
pub unsafe extern "C" fn DSAnnounceBuffer(
    stream: Handle,
    buffer: *mut c_void,
    size: usize,
    private: *mut c_void,
    out: *mut Handle,
) -> GcError32 {
    guard(|| unsafe {
        if buffer.is_null() || out.is_null() {
            return Err(GcError::null("pBuffer or phBuffer"));
        }
        let memory = ForeignMemory {
            base: buffer as usize,
            len: size,
        };
        let h = producer::announce(handle(stream), Box::new(memory), private as usize)?;
        put(out, to_handle(h), "phBuffer")
    })
}

/// Allocates a buffer of `size` bytes and announces it.
#[no_mangle]
pub unsafe extern "C" fn DSAllocAndAnnounceBuffer(
    stream: Handle,
    size: usize,
    private: *mut c_void,
    out: *mut Handle,
) -> GcError32 {
    guard(|| unsafe {
        if out.is_null() {
            return Err(GcError::null("phBuffer"));
        }
        let h = producer::alloc_and_announce(handle(stream), size, private as usize)?;
        put(out, to_handle(h), "phBuffer")
    })
}

/// Moves buffers between the queues.
#[no_mangle]
pub extern "C" fn DSFlushQueue(stream: Handle, operation: i32) -> GcError32 {
    guard(|| producer::stream(handle(stream))?.flush(operation))
}

/// Starts acquisition: the camera streams and buffers fill.
#[no_mangle]
pub extern "C" fn DSStartAcquisition(stream: Handle, _flags: i32, count: u64) -> GcError32 {
    guard(|| producer::stream(handle(stream))?.start(count))
}

/// Stops acquisition.
#[no_mangle]
pub extern "C" fn DSStopAcquisition(stream: Handle, _flags: i32) -> GcError32 {
    guard(|| producer::stream(handle(stream))?.stop())
}

/// Information about a data stream.
#[no_mangle]
pub unsafe extern "C" fn DSGetInfo(
    stream: Handle,
    command: i32,
    kind: *mut i32,
    buffer: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        let s = producer::stream(handle(stream))?;
        put_info(s.info(command), kind, buffer, size)
    })
}

/// The handle of announced buffer `index`.
#[no_mangle]
pub unsafe extern "C" fn DSGetBufferID(stream: Handle, index: u32, out: *mut Handle) -> GcError32 {
    guard(|| unsafe {
        let h = producer::stream(handle(stream))?.buffer_at(index)?;
        put(out, to_handle(h), "phBuffer")
    })
}

/// Closes a data stream (stopping it) and revokes its buffers.
#[no_mangle]
pub extern "C" fn DSClose(stream: Handle) -> GcError32 {
    guard(|| producer::ds_close(handle(stream)))
}

/// Takes a buffer back from the stream.
#[no_mangle]
pub unsafe extern "C" fn DSRevokeBuffer(
    stream: Handle,
    buffer: Handle,
    base: *mut *mut c_void,
    private: *mut *mut c_void,
) -> GcError32 {
    guard(|| unsafe {
        let (b, p) = producer::revoke(handle(stream), handle(buffer))?;
        if !base.is_null() {
            put(base, b as *mut c_void, "pBuffer")?;
        }
        if !private.is_null() {
            put(private, p as *mut c_void, "pPrivate")?;
        }
        Ok(())
    })
}

/// Puts a buffer in the input queue, to be filled.
#[no_mangle]
pub extern "C" fn DSQueueBuffer(stream: Handle, buffer: Handle) -> GcError32 {
    guard(|| producer::queue(handle(stream), handle(buffer)))
}

/// Information about a buffer (its frame's size, format, completeness).
#[no_mangle]
pub unsafe extern "C" fn DSGetBufferInfo(
    stream: Handle,
    buffer: Handle,
    command: i32,
    kind: *mut i32,
    out: *mut c_void,
    size: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        put_info(
            producer::buffer_info(handle(stream), handle(buffer), command),
            kind,
            out,
            size,
        )
    })
}

/// The chunks of a buffer: none.
#[no_mangle]
pub unsafe extern "C" fn DSGetBufferChunkData(
    stream: Handle,
    buffer: Handle,
    _chunks: *mut c_void,
    count: *mut usize,
) -> GcError32 {
    guard(|| unsafe {
        let n = producer::buffer_chunks(handle(stream), handle(buffer))?;
        put(count, n, "piNumChunks")
    })
}

/// The device a data stream belongs to.
#[no_mangle]
pub unsafe extern "C" fn DSGetParentDev(stream: Handle, out: *mut Handle) -> GcError32 {
    guard(|| unsafe {
        let p = producer::parent(handle(stream), "data stream (DS_HANDLE)", |o| {
            matches!(o, producer::Object::Stream(..))
        })?;
        put(out, to_handle(p), "phDevice")
    })
}

/// The parts of a buffer: 0 (single-part image payloads).
#[no_mangle]
pub unsafe extern "C" fn DSGetNumBufferParts(
    stream: Handle,
    buffer: Handle,
    count: *mut u32,
) -> GcError32 {
    guard(|| unsafe {
        let n = producer::buffer_parts(handle(stream), handle(buffer))?;
        put(count, n, "piNumParts")
    })
}

/// Information about a buffer part: there are none.
#[no_mangle]
pub extern "C" fn DSGetBufferPartInfo(
    stream: Handle,
    buffer: Handle,
    index: u32,
    _command: i32,
    _kind: *mut i32,
    _out: *mut c_void,
    _size: *mut usize,
) -> GcError32 {
    guard(|| {
        producer::buffer_parts(handle(stream), handle(buffer))?;
        Err(GcError::InvalidIndex {
            index: u64::from(index),
            count: 0,
        })
    })
}

/// Answers GenTL 1.6 functions this producer does not implement.
fn not_implemented(name: &str) -> GcError32 {
    guard(|| Err(GcError::NotImplemented(name.into())))
}

/// Not implemented (composite buffers).
#[no_mangle]
pub extern "C" fn DSAnnounceCompositeBuffer(
    _stream: Handle,
    _segments: usize,
    _buffers: *mut *mut c_void,
    _sizes: *mut usize,
    _private: *mut c_void,
    _out: *mut Handle,
) -> GcError32 {
    not_implemented("DSAnnounceCompositeBuffer")
}

/// Not implemented (stacked buffer info).
#[no_mangle]
pub extern "C" fn DSGetBufferInfoStacked(
    _stream: Handle,
    _buffer: Handle,
    _infos: *mut c_void,
    _count: usize,
) -> GcError32 {
    not_implemented("DSGetBufferInfoStacked")
}

/// Not implemented (stacked part info).
#[no_mangle]
pub extern "C" fn DSGetBufferPartInfoStacked(
    _stream: Handle,
    _buffer: Handle,
    _infos: *mut c_void,
    _count: usize,
) -> GcError32 {
    not_implemented("DSGetBufferPartInfoStacked")
}

/// Not implemented (flows).
#[no_mangle]
pub extern "C" fn DSGetNumFlows(_stream: Handle, _count: *mut u32) -> GcError32 {
    not_implemented("DSGetNumFlows")
}

/// Not implemented (flows).
#[no_mangle]
pub extern "C" fn DSGetFlowInfo(
    _stream: Handle,
    _index: u32,
    _command: i32,
    _kind: *mut i32,
    _out: *mut c_void,
    _size: *mut usize,
) -> GcError32 {
    not_implemented("DSGetFlowInfo")
}

/// Not implemented (segments).
#[no_mangle]
pub extern "C" fn DSGetNumBufferSegments(
    _stream: Handle,
    _buffer: Handle,
    _count: *mut u32,
) -> GcError32 {
    not_implemented("DSGetNumBufferSegments")
}

/// Not implemented (segments).
#[no_mangle]
pub extern "C" fn DSGetBufferSegmentInfo(
    _stream: Handle,
    _buffer: Handle,
    _index: u32,
    _command: i32,
    _kind: *mut i32,
    _out: *mut c_void,
    _size: *mut usize,
) -> GcError32 {
    not_implemented("DSGetBufferSegmentInfo")
}
