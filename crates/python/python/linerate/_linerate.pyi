"""Type stubs of linerate's native module (see linerate/__init__.py)."""

from types import TracebackType
from typing import Any, Iterator

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

__all__ = [
    "Camera",
    "CameraEmulator",
    "ControlLost",
    "DeviceInfo",
    "Error",
    "FeatureError",
    "Frame",
    "FrameIter",
    "Stream",
    "TimeoutError",
    "discover",
]
