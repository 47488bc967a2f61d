//! The GenTL C ABI's numbers, declared here from the GenTL standard's
//! tables (version 1.6) rather than taken from the EMVA header, whose
//! licence forbids modified copies. Only values: the exported functions
//! are in [`crate::ffi`]. Every enumeration of the standard is a 32-bit
//! signed integer in C, so each is an `i32` constant here; handles are
//! pointer-sized opaque values.

/// `GC_ERROR`: every GenTL function returns one of these.
pub mod error_code {
    /// The call succeeded.
    pub const SUCCESS: i32 = 0;
    /// An error no other code describes.
    pub const ERROR: i32 = -1001;
    /// `GCInitLib` was not called (or `GCCloseLib` was).
    pub const NOT_INITIALIZED: i32 = -1002;
    /// The producer does not implement this function or command.
    pub const NOT_IMPLEMENTED: i32 = -1003;
    /// The module or resource is already open or in use.
    pub const RESOURCE_IN_USE: i32 = -1004;
    /// The device refused access, or the access mode does not allow it.
    pub const ACCESS_DENIED: i32 = -1005;
    /// The handle is not an open module of the expected kind.
    pub const INVALID_HANDLE: i32 = -1006;
    /// No module with this ID.
    pub const INVALID_ID: i32 = -1007;
    /// The query has no data (yet).
    pub const NO_DATA: i32 = -1008;
    /// A parameter is not valid (a NULL pointer, an unknown command).
    pub const INVALID_PARAMETER: i32 = -1009;
    /// Communication with the device failed.
    pub const IO: i32 = -1010;
    /// The wait ended without the awaited event.
    pub const TIMEOUT: i32 = -1011;
    /// The wait was aborted (`EventKill`, acquisition stopped).
    pub const ABORT: i32 = -1012;
    /// The buffer is not usable for this operation.
    pub const INVALID_BUFFER: i32 = -1013;
    /// The resource or information is not available now.
    pub const NOT_AVAILABLE: i32 = -1014;
    /// The address is outside the port's register space.
    pub const INVALID_ADDRESS: i32 = -1015;
    /// The caller's buffer is too small for the answer.
    pub const BUFFER_TOO_SMALL: i32 = -1016;
    /// An index is out of range.
    pub const INVALID_INDEX: i32 = -1017;
    /// Chunk data could not be parsed.
    pub const PARSING_CHUNK_DATA: i32 = -1018;
    /// A value written is out of range.
    pub const INVALID_VALUE: i32 = -1019;
    /// A resource (memory, buffers) ran out.
    pub const RESOURCE_EXHAUSTED: i32 = -1020;
    /// Memory could not be allocated.
    pub const OUT_OF_MEMORY: i32 = -1021;
    /// The module is busy with another operation.
    pub const BUSY: i32 = -1022;
}

/// `INFO_DATATYPE`: how an info query's answer is encoded.
pub mod info_type {
    /// Unknown.
    pub const UNKNOWN: i32 = 0;
    /// NUL-terminated string.
    pub const STRING: i32 = 1;
    /// NUL-separated strings, ending with an empty one.
    pub const STRINGLIST: i32 = 2;
    /// `int16_t`.
    pub const INT16: i32 = 3;
    /// `uint16_t`.
    pub const UINT16: i32 = 4;
    /// `int32_t`.
    pub const INT32: i32 = 5;
    /// `uint32_t`.
    pub const UINT32: i32 = 6;
    /// `int64_t`.
    pub const INT64: i32 = 7;
    /// `uint64_t`.
    pub const UINT64: i32 = 8;
    /// `double`.
    pub const FLOAT64: i32 = 9;
    /// A pointer.
    pub const PTR: i32 = 10;
    /// `bool8_t` (one byte, 0 or 1).
    pub const BOOL8: i32 = 11;
    /// `size_t`.
    pub const SIZET: i32 = 12;
    /// Raw bytes.
    pub const BUFFER: i32 = 13;
    /// `ptrdiff_t`.
    pub const PTRDIFF: i32 = 14;
}

/// `TL_INFO_CMD`: what `GCGetInfo` and `TLGetInfo` answer.
pub mod tl_info {
    /// Producer ID.
    pub const ID: i32 = 0;
    /// Producer vendor.
    pub const VENDOR: i32 = 1;
    /// Producer model.
    pub const MODEL: i32 = 2;
    /// Producer version.
    pub const VERSION: i32 = 3;
    /// Transport layer type (`GEV`).
    pub const TLTYPE: i32 = 4;
    /// File name of the producer.
    pub const NAME: i32 = 5;
    /// Full path of the producer.
    pub const PATHNAME: i32 = 6;
    /// Name to show users.
    pub const DISPLAYNAME: i32 = 7;
    /// Character encoding of strings (0: ASCII).
    pub const CHAR_ENCODING: i32 = 8;
    /// GenTL major version implemented.
    pub const GENTL_VER_MAJOR: i32 = 9;
    /// GenTL minor version implemented.
    pub const GENTL_VER_MINOR: i32 = 10;
}

/// `INTERFACE_INFO_CMD`.
pub mod interface_info {
    /// Interface ID.
    pub const ID: i32 = 0;
    /// Name to show users.
    pub const DISPLAYNAME: i32 = 1;
    /// Transport layer type.
    pub const TLTYPE: i32 = 2;
}

/// `DEVICE_INFO_CMD`.
pub mod device_info {
    /// Device ID.
    pub const ID: i32 = 0;
    /// Vendor name.
    pub const VENDOR: i32 = 1;
    /// Model name.
    pub const MODEL: i32 = 2;
    /// Transport layer type.
    pub const TLTYPE: i32 = 3;
    /// Name to show users.
    pub const DISPLAYNAME: i32 = 4;
    /// `DEVICE_ACCESS_STATUS`.
    pub const ACCESS_STATUS: i32 = 5;
    /// User-defined name.
    pub const USER_DEFINED_NAME: i32 = 6;
    /// Serial number.
    pub const SERIAL_NUMBER: i32 = 7;
    /// Device version.
    pub const VERSION: i32 = 8;
    /// Timestamp ticks per second.
    pub const TIMESTAMP_FREQUENCY: i32 = 9;
}

/// `DEVICE_ACCESS_STATUS`.
pub mod access_status {
    /// Not known.
    pub const UNKNOWN: i32 = 0;
    /// Openable for reading and writing.
    pub const READWRITE: i32 = 1;
    /// Opened by this producer.
    pub const OPEN_READWRITE: i32 = 5;
    /// Controlled by someone else, or unreachable.
    pub const NOACCESS: i32 = 3;
}

/// `DEVICE_ACCESS_FLAGS` given to `IFOpenDevice`.
pub mod access_flags {
    /// Read-only access.
    pub const READONLY: i32 = 2;
    /// Control access (others may read).
    pub const CONTROL: i32 = 3;
    /// Exclusive access.
    pub const EXCLUSIVE: i32 = 4;
}

/// `STREAM_INFO_CMD`.
pub mod stream_info {
    /// Stream ID.
    pub const ID: i32 = 0;
    /// Buffers delivered since the stream was opened.
    pub const NUM_DELIVERED: i32 = 1;
    /// Frames lost for want of a queued buffer.
    pub const NUM_UNDERRUN: i32 = 2;
    /// Buffers announced.
    pub const NUM_ANNOUNCED: i32 = 3;
    /// Buffers in the input queue.
    pub const NUM_QUEUED: i32 = 4;
    /// Buffers in the output queue.
    pub const NUM_AWAIT_DELIVERY: i32 = 5;
    /// Frames started.
    pub const NUM_STARTED: i32 = 6;
    /// Bytes a buffer needs.
    pub const PAYLOAD_SIZE: i32 = 7;
    /// Acquisition is running.
    pub const IS_GRABBING: i32 = 8;
    /// The stream knows the payload size.
    pub const DEFINES_PAYLOADSIZE: i32 = 9;
    /// Transport layer type.
    pub const TLTYPE: i32 = 10;
    /// Most chunks a buffer may hold.
    pub const NUM_CHUNKS_MAX: i32 = 11;
    /// Fewest buffers to announce.
    pub const BUF_ANNOUNCE_MIN: i32 = 12;
    /// Buffer alignment in bytes.
    pub const BUF_ALIGNMENT: i32 = 13;
}

/// `BUFFER_INFO_CMD`.
pub mod buffer_info {
    /// Start of the buffer's memory.
    pub const BASE: i32 = 0;
    /// Size of the buffer's memory.
    pub const SIZE: i32 = 1;
    /// The private pointer given when announcing it.
    pub const USER_PTR: i32 = 2;
    /// Camera timestamp.
    pub const TIMESTAMP: i32 = 3;
    /// Filled and not yet read.
    pub const NEW_DATA: i32 = 4;
    /// In the input queue.
    pub const IS_QUEUED: i32 = 5;
    /// Being filled.
    pub const IS_ACQUIRING: i32 = 6;
    /// Not every byte of the frame arrived.
    pub const IS_INCOMPLETE: i32 = 7;
    /// Transport layer type.
    pub const TLTYPE: i32 = 8;
    /// Bytes filled.
    pub const SIZE_FILLED: i32 = 9;
    /// Image width.
    pub const WIDTH: i32 = 10;
    /// Image height.
    pub const HEIGHT: i32 = 11;
    /// Image x offset.
    pub const XOFFSET: i32 = 12;
    /// Image y offset.
    pub const YOFFSET: i32 = 13;
    /// Padding at the end of each line.
    pub const XPADDING: i32 = 14;
    /// Padding at the end of the image.
    pub const YPADDING: i32 = 15;
    /// Frame (block) id.
    pub const FRAMEID: i32 = 16;
    /// The buffer holds an image.
    pub const IMAGEPRESENT: i32 = 17;
    /// Offset of the image in the buffer.
    pub const IMAGEOFFSET: i32 = 18;
    /// `PAYLOADTYPE_INFO_IDS`.
    pub const PAYLOADTYPE: i32 = 19;
    /// Pixel format code.
    pub const PIXELFORMAT: i32 = 20;
    /// Namespace of the pixel format code.
    pub const PIXELFORMAT_NAMESPACE: i32 = 21;
    /// Lines delivered.
    pub const DELIVERED_IMAGEHEIGHT: i32 = 22;
    /// Chunk payload bytes delivered.
    pub const DELIVERED_CHUNKPAYLOADSIZE: i32 = 23;
    /// Chunk layout id.
    pub const CHUNKLAYOUTID: i32 = 24;
    /// File name (file payloads).
    pub const FILENAME: i32 = 25;
    /// `PIXELENDIANNESS`.
    pub const PIXEL_ENDIANNESS: i32 = 26;
    /// Bytes of data in the buffer.
    pub const DATA_SIZE: i32 = 27;
    /// Timestamp in nanoseconds.
    pub const TIMESTAMP_NS: i32 = 28;
    /// The frame was larger than the buffer.
    pub const DATA_LARGER_THAN_BUFFER: i32 = 29;
    /// The buffer holds chunk data.
    pub const CONTAINS_CHUNKDATA: i32 = 30;
}

/// `PAYLOADTYPE_INFO_IDS`.
pub mod payload_type {
    /// An image.
    pub const IMAGE: i32 = 1;
}

/// `PIXELFORMAT_NAMESPACE_IDS`.
pub mod pixel_namespace {
    /// GenICam Pixel Format Naming Convention, 32-bit codes.
    pub const PFNC_32BIT: i32 = 4;
}

/// `PIXELENDIANNESS_IDS`.
pub mod pixel_endianness {
    /// Little-endian pixels.
    pub const LITTLE: i32 = 1;
}

/// `EVENT_TYPE`.
pub mod event_type {
    /// Error events.
    pub const ERROR: i32 = 0;
    /// A buffer was filled.
    pub const NEW_BUFFER: i32 = 1;
    /// Module events.
    pub const MODULE: i32 = 5;
    /// Events of the remote device.
    pub const REMOTE_DEVICE: i32 = 4;
}

/// `EVENT_INFO_CMD`.
pub mod event_info {
    /// The event's `EVENT_TYPE`.
    pub const EVENT_TYPE: i32 = 0;
    /// Events waiting in the queue.
    pub const NUM_IN_QUEUE: i32 = 1;
    /// Events fired since registration.
    pub const NUM_FIRED: i32 = 2;
    /// Bytes of the largest event data.
    pub const SIZE_MAX: i32 = 3;
    /// Bytes of the largest event info answer.
    pub const INFO_DATA_SIZE_MAX: i32 = 4;
}

/// `ACQ_QUEUE_TYPE` for `DSFlushQueue`.
pub mod flush {
    /// Move input-queue buffers to the output queue.
    pub const INPUT_TO_OUTPUT: i32 = 0;
    /// Discard the output queue.
    pub const OUTPUT_DISCARD: i32 = 1;
    /// Every announced buffer into the input queue.
    pub const ALL_TO_INPUT: i32 = 2;
    /// Every buffer not queued into the input queue.
    pub const UNQUEUED_TO_INPUT: i32 = 3;
    /// Every buffer out of both queues.
    pub const ALL_DISCARD: i32 = 4;
}

/// `PORT_INFO_CMD`.
pub mod port_info {
    /// Port ID.
    pub const ID: i32 = 0;
    /// Vendor.
    pub const VENDOR: i32 = 1;
    /// Model.
    pub const MODEL: i32 = 2;
    /// Transport layer type.
    pub const TLTYPE: i32 = 3;
    /// The module type (`TLSystem`, `TLInterface`, `TLDevice`, `TLDataStream`, `Device`).
    pub const MODULE: i32 = 4;
    /// Registers are little-endian.
    pub const LITTLE_ENDIAN: i32 = 5;
    /// Registers are big-endian.
    pub const BIG_ENDIAN: i32 = 6;
    /// The port can be read.
    pub const ACCESS_READ: i32 = 7;
    /// The port can be written.
    pub const ACCESS_WRITE: i32 = 8;
    /// The port is not available.
    pub const ACCESS_NA: i32 = 9;
    /// The port is not implemented.
    pub const ACCESS_NI: i32 = 10;
    /// Port version.
    pub const VERSION: i32 = 11;
    /// Port name (GenApi's port node name).
    pub const PORTNAME: i32 = 12;
}

/// `URL_INFO_CMD`.
pub mod url_info {
    /// The URL.
    pub const URL: i32 = 0;
    /// Schema major version.
    pub const SCHEMA_VER_MAJOR: i32 = 1;
    /// Schema minor version.
    pub const SCHEMA_VER_MINOR: i32 = 2;
    /// File major version.
    pub const FILE_VER_MAJOR: i32 = 3;
    /// File minor version.
    pub const FILE_VER_MINOR: i32 = 4;
    /// File subminor version.
    pub const FILE_VER_SUBMINOR: i32 = 5;
    /// SHA-1 of the file.
    pub const FILE_SHA1_HASH: i32 = 6;
    /// Register address of the file.
    pub const FILE_REGISTER_ADDRESS: i32 = 7;
    /// File size in bytes.
    pub const FILE_SIZE: i32 = 8;
    /// `URL_SCHEME_IDS`.
    pub const SCHEME: i32 = 9;
    /// File name.
    pub const FILENAME: i32 = 10;
}

/// `URL_SCHEME_IDS`.
pub mod url_scheme {
    /// `local:` (the file is in the port's register space).
    pub const LOCAL: i32 = 0;
}

/// `GENTL_INFINITE`: a timeout that never ends, or "acquire until stopped".
pub const INFINITE: u64 = u64::MAX;
