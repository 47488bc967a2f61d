"""linerate.fade: FADE readouts from Python, in place.

:class:`Readout` reads front-end boards out over raw Ethernet (the same
receiver as ``linerate fade recv``, on threads of its own) into one ring
per board; ``ro.chunks(board)`` yields :class:`Chunk` objects whose
``array`` is a read-only numpy view of the ring itself (no copy). A
chunk's bytes go back to the ring once the chunk and every view of it are
gone (a ``for`` loop lets go of one when it moves on to the next), so
data never changes under a view; a view kept for long holds the ring back
and the board waits, so ``copy()`` what you keep. Every wait releases the
GIL, and Ctrl-C interrupts it with ``KeyboardInterrupt``.

:class:`BoardEmulator` runs linerate's emulated board in this process,
so both ends of a readout can run from Python. Errors are
:class:`linerate.Error` subclasses with the command line's messages.
"""

from ._linerate import BoardEmulator, Chunk, ChunkIter, Readout

__all__ = ["BoardEmulator", "Chunk", "ChunkIter", "Readout"]
