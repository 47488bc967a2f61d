"""linerate for Python: GigE Vision frames into numpy without a copy.

Find cameras with :func:`discover`, open one with :meth:`Camera.open`
(a context manager), read and write its GenICam features as
``cam["Width"]``, and iterate over ``cam.stream().frames()``: each
:class:`Frame`'s ``array`` is a read-only numpy view of the grab buffer
itself, which goes back to the stream only when the frame and every view
of it are gone. Every blocking call releases the GIL, and Ctrl-C
interrupts a wait with ``KeyboardInterrupt``.

:class:`CameraEmulator` runs linerate's emulated camera in this process,
for tests and demos. :mod:`linerate.fade` reads out FADE front-end boards
in place (``Readout``) and emulates them (``BoardEmulator``). See
docs/python.md for the whole API.
"""

from . import fade
from ._linerate import (
    Camera,
    CameraEmulator,
    ControlLost,
    DeviceInfo,
    Error,
    FeatureError,
    Frame,
    FrameIter,
    Stream,
    TimeoutError,
    discover,
)

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
    "fade",
]
