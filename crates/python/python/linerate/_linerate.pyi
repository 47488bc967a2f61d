"""Type stubs of linerate's native module (see linerate/__init__.py)."""

from types import TracebackType
from typing import Any, Iterator

import numpy as np
import numpy.typing as npt

class Error(Exception):
    """Base class of every error linerate raises."""

class TimeoutError(Error):
    """No frame (or answer) came within the time allowed; the stream stays usable."""

class ControlLost(Error):
    """The camera's control connection was lost or taken over; the stream has ended."""

class FeatureError(Error):
    """A GenICam feature does not exist, or refused the value."""

class DeviceInfo:
    """A device that answered discovery."""

    ip: str
    mac: str
    vendor: str
    model: str
    serial: str
    user_name: str
    version: str
    reachable: bool

def discover(
    timeout: float = 0.5, interface: str | None = None, target: str | None = None
) -> list[DeviceInfo]:
    """GigE Vision devices that answered within `timeout` seconds (GIL released)."""

class Frame:
    """One frame; `array` views the grab buffer, which returns to the pool
    when the frame and every view of it are gone."""

    @property
    def array(self) -> npt.NDArray[Any]: ...
    def copy(self) -> npt.NDArray[Any]: ...
    @property
    def complete(self) -> bool: ...
    @property
    def block_id(self) -> int: ...
    @property
    def timestamp(self) -> int: ...
    @property
    def timestamp_ns(self) -> int | None: ...
    @property
    def delivered_ns(self) -> int: ...
    @property
    def missing(self) -> list[tuple[int, int]]: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def pixel_format(self) -> str | None: ...
    @property
    def size(self) -> int: ...
    @property
    def address(self) -> int: ...

class FrameIter(Iterator[Frame]):
    """The iterator `Stream.frames()` returns."""

    def __iter__(self) -> FrameIter: ...
    def __next__(self) -> Frame: ...

class Stream:
    """A camera's running stream; a context manager."""

    def frames(self, count: int | None = None, timeout: float = 1.0) -> FrameIter: ...
    def next(self, timeout: float = 1.0) -> Frame | None: ...
    def grab_into(self, out: Any, timeout: float = 1.0) -> dict[str, Any] | None: ...
    def stats(self) -> dict[str, Any]: ...
    def close(self) -> dict[str, Any]: ...
    @property
    def buffers(self) -> int: ...
    @property
    def frames_held(self) -> int: ...
    @property
    def payload_size(self) -> int: ...
    @property
    def buffer_addresses(self) -> list[int]: ...
    def __enter__(self) -> Stream: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool: ...

class Camera:
    """A GigE Vision camera under control; a context manager."""

    @staticmethod
    def open(target: str, interface: str | None = None) -> Camera: ...
    @property
    def vendor(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def serial(self) -> str: ...
    @property
    def ip(self) -> str: ...
    def __getitem__(self, name: str) -> int | float | str | bool | None: ...
    def __setitem__(self, name: str, value: int | float | str | bool) -> None: ...
    def execute(self, name: str) -> None: ...
    def stream(
        self,
        buffers: int = 8,
        transport: str = "udp",
        backend: str = "mmsg",
        verify: bool = False,
        cpu: int | None = None,
        packet_size: int | None = None,
        packet_delay_ns: int | None = None,
        to: str | None = None,
        kafka_on_full: str = "wait",
        kafka_settings: dict[str, str] | None = None,
    ) -> Stream: ...
    def close(self) -> None: ...
    def __enter__(self) -> Camera: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool: ...

class CameraEmulator:
    """linerate's emulated camera, running in this process; a context manager."""

    def __init__(
        self,
        bind: str = "127.0.0.1",
        port: int = 3956,
        width: int = 1024,
        height: int = 768,
        fps: float = 25.0,
        pixel_format: str = "Mono8",
        packet_size: int = 1500,
        serial: str | None = None,
    ) -> None: ...
    @property
    def ip(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def address(self) -> str: ...
    @property
    def serial(self) -> str: ...
    def counters(self) -> dict[str, Any]: ...
    def stop(self) -> dict[str, Any]: ...
    def __enter__(self) -> CameraEmulator: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool: ...

class Chunk:
    """Bytes of one board's stream in place in its receive ring (no copy).
    `array` and `data` view the ring and keep the chunk alive; the ring
    reuses the place only once the chunk and every view of it are gone."""

    @property
    def array(self) -> npt.NDArray[np.uint8]:
        """Read-only 1-D uint8 view of the ring (its `base` is the chunk)."""
    @property
    def data(self) -> memoryview:
        """Read-only memoryview of `array`."""
    def copy(self) -> npt.NDArray[np.uint8]:
        """A writable copy you own."""
    @property
    def offset(self) -> int:
        """Stream offset of the first byte."""
    @property
    def board(self) -> int:
        """The board's index in `Readout.boards`."""
    @property
    def address(self) -> int:
        """Where the bytes lie: inside `Readout.ring_span(board)`."""
    def __len__(self) -> int: ...

class ChunkIter(Iterator[Chunk]):
    """The iterator `Readout.chunks()` returns (GIL released while waiting)."""

    def __iter__(self) -> ChunkIter: ...
    def __next__(self) -> Chunk: ...

class Readout:
    """A FADE readout of front-end boards over raw Ethernet, read in place
    chunk by chunk; `close()` returns the `linerate fade recv --json` report."""

    def __init__(
        self,
        interface: str,
        boards: list[str],
        bytes: int | None = None,
        duration: float | None = None,
        version: str = "1",
        ring_mib: int = 64,
        chunk_bytes: int = 1048576,
        idle_timeout: float = 2.0,
        backend: str = "ring",
        link_rate: int = 1000000000,
        cpu: int | None = None,
        to: str | None = None,
        kafka_chunk_bytes: int = 1048576,
        kafka_on_full: str = "wait",
        kafka_settings: dict[str, str] | None = None,
    ) -> None: ...
    def chunks(self, board: int = 0, timeout: float = 1.0) -> ChunkIter:
        """Board `board`'s stream as Chunks until it ends; TimeoutError after
        `timeout` seconds of silence; Ctrl-C raises KeyboardInterrupt."""
    @property
    def boards(self) -> list[str]: ...
    @property
    def interface(self) -> str: ...
    @property
    def bytes_read(self) -> list[int]: ...
    @property
    def finished(self) -> bool: ...
    def ring_span(self, board: int) -> tuple[int, int]:
        """(address, size) of the board's ring."""
    def stats(self) -> dict[str, Any] | None:
        """The report once the readout has ended, else None."""
    def close(self) -> dict[str, Any]:
        """Ends the readout and returns its report."""
    def __enter__(self) -> Readout: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool: ...

class BoardEmulator:
    """An emulated FADE board streaming its counter stream from this process."""

    def __init__(
        self,
        interface: str,
        bytes: int | None = None,
        duration: float | None = None,
        rate: int | None = None,
        version: str = "1",
    ) -> None: ...
    @property
    def mac(self) -> str: ...
    @property
    def interface(self) -> str: ...
    @property
    def version(self) -> str: ...
    def counters(self) -> dict[str, Any]: ...
    def wait(self, timeout: float | None = None) -> bool:
        """True once the board has ended on its own (GIL released)."""
    def stop(self) -> dict[str, Any]:
        """Stops the board; its `linerate fade feb --json` report."""
    def __enter__(self) -> BoardEmulator: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool: ...

__all__ = [
    "BoardEmulator",
    "Camera",
    "CameraEmulator",
    "Chunk",
    "ChunkIter",
    "ControlLost",
    "DeviceInfo",
    "Error",
    "FeatureError",
    "Frame",
    "FrameIter",
    "Readout",
    "Stream",
    "TimeoutError",
    "discover",
]
