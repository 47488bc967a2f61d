"""The linerate Python package against linerate's emulated camera, both in
this process on loopback (the camera on a free GVCP port): frames arrive
complete and verified as numpy views of the stream's own buffers (no
copy), a held frame keeps its buffer and its data, the pool never
shrinks, features are bounds-checked, errors are linerate exceptions, and
discovery finds the camera."""

import gc
import time

import numpy as np
import pytest

import linerate


def emulator(**kw):
    """An emulated camera on loopback, on a free port."""
    kw.setdefault("bind", "127.0.0.1")
    kw.setdefault("port", 0)
    return linerate.CameraEmulator(**kw)


def test_300_frames_arrive_complete_and_verified_as_views_of_the_pool():
    with emulator(width=320, height=240, fps=400) as emu:
        with linerate.Camera.open(emu.address) as cam:
            assert cam["Width"] == 320 and cam["Height"] == 240
            with cam.stream(buffers=8, verify=True) as stream:
                pool = set(stream.buffer_addresses)
                assert stream.buffers == 8 and len(pool) == 8
                seen = set()
                blocks = []
                for frame in stream.frames(count=300, timeout=2.0):
                    a = frame.array
                    assert frame.complete and frame.missing == []
                    assert a.shape == (240, 320) and a.dtype == np.uint8
                    assert not a.flags.writeable
                    # The array is the grab buffer, kept alive by the frame.
                    assert a.base is frame
                    assert a.ctypes.data == frame.address
                    assert frame.address in pool
                    assert np.shares_memory(a, frame.array)
                    seen.add(frame.address)
                    blocks.append(frame.block_id)
                del frame, a
                gc.collect()
                stats = stream.stats()
                assert stream.frames_held == 0
                assert stream.buffers == 8 and set(stream.buffer_addresses) == pool
            final = stream.stats()
    # Consecutive block ids: no frame was dropped for want of a buffer
    # while the loop ran (after it, the camera streams on into a pool
    # nobody reads, and those underruns are counted).
    assert blocks == list(range(blocks[0], blocks[0] + 300))
    assert seen <= pool
    for report in (stats, final):
        assert report["frames_completed"] == 300, report
        assert report["frames_verified"] == 300, report
        assert report["frames_incomplete"] == 0 and report["frames_corrupt"] == 0
        assert report["buffers"] == 8
    assert final["backend"] == "mmsg" and final["transport"] == "udp"


def test_a_held_frame_keeps_its_buffer_and_its_data():
    with emulator(width=64, height=48, fps=500) as emu:
        with linerate.Camera.open(emu.address) as cam, cam.stream(buffers=4) as stream:
            frames = stream.frames(timeout=2.0)
            first = next(frames)
            kept = first.array
            snapshot = first.copy()
            assert snapshot.flags.writeable and not np.shares_memory(snapshot, kept)
            address = first.address
            del first
            # The view alone keeps the frame, so its buffer stays out of the pool.
            assert stream.frames_held == 1
            for _ in range(50):
                frame = next(frames)
                assert frame.complete
                assert frame.address != address
                del frame
            assert np.array_equal(kept, snapshot)
            del kept
            gc.collect()
            assert stream.frames_held == 0
            # ...and the buffer comes back to be filled again.
            addresses = {f.address for f in stream.frames(count=20, timeout=2.0)}
            assert address in addresses


def test_features_are_bounds_checked_and_shape_the_frames():
    with emulator(width=320, height=240, fps=200) as emu:
        with linerate.Camera.open(emu.address) as cam:
            assert cam.vendor and cam.serial == emu.serial
            with pytest.raises(linerate.FeatureError, match="Width"):
                cam["Width"] = 10**9
            with pytest.raises(linerate.FeatureError):
                cam["NoSuchFeature"]
            with pytest.raises(TypeError):
                cam["Width"] = [1]
            cam["Width"] = 128
            cam["Height"] = 32
            assert cam["PixelFormat"] == "Mono8"
            with cam.stream() as stream:
                frame = stream.next(timeout=2.0)
                assert frame is not None and frame.array.shape == (32, 128)
                assert frame.width == 128 and frame.pixel_format == "Mono8"
                # Features go through the stream's control connection meanwhile.
                assert cam["Width"] == 128
                assert cam["PayloadSize"] == 128 * 32
                del frame
                assert stream.next(timeout=2.0).complete
            # Closing the stream gives it back.
            assert cam["Width"] == 128
            # A camera closed while its stream runs stays closed after.
            stream = cam.stream()
            cam.close()
            assert stream.next(timeout=2.0).complete
            stream.close()
            with pytest.raises(linerate.Error, match="closed"):
                cam["Width"]


def test_a_silent_camera_raises_timeout_and_the_stream_goes_on():
    with emulator(width=64, height=48, fps=2) as emu:
        with linerate.Camera.open(emu.address) as cam, cam.stream() as stream:
            assert stream.next(timeout=3.0) is not None
            with pytest.raises(linerate.TimeoutError, match="no frame within"):
                stream.next(timeout=0.05)
            assert issubclass(linerate.TimeoutError, linerate.Error)
            assert stream.next(timeout=3.0).complete


def test_errors_are_linerate_exceptions():
    with pytest.raises(linerate.Error, match="opening camera 127.0.0.1:1"):
        linerate.Camera.open("127.0.0.1:1")
    with pytest.raises(ValueError):
        linerate.discover(timeout=-1)
    with emulator(width=64, height=48) as emu:
        with linerate.Camera.open(emu.address) as cam:
            with pytest.raises(ValueError, match="backend"):
                cam.stream(backend="nope")
            with pytest.raises(ValueError, match="buffers"):
                cam.stream(buffers=1)
            # A refused stream leaves the camera usable.
            assert cam["Width"] == 64


def test_discovery_finds_the_emulated_camera():
    with emulator(serial="PYTEST42") as emu:
        found = linerate.discover(timeout=0.5, target=emu.address)
        assert [d.serial for d in found] == ["PYTEST42"]
        assert found[0].ip == "127.0.0.1" and found[0].vendor
        assert "PYTEST42" in repr(found[0])


def test_the_emulator_reports_what_it_sent():
    emu = emulator(width=64, height=48, fps=200)
    with linerate.Camera.open(emu.address) as cam, cam.stream() as stream:
        got = sum(1 for f in stream.frames(count=10, timeout=2.0) if f.complete)
    report = emu.stop()
    assert got == 10
    assert isinstance(report, dict) and report == emu.stop()
    with pytest.raises(linerate.Error):
        emu.counters()


def test_grab_into_copies_into_an_array_you_own_and_returns_the_buffer():
    with emulator(width=64, height=48, fps=200) as emu:
        with linerate.Camera.open(emu.address) as cam, cam.stream(buffers=4, verify=True) as stream:
            out = np.zeros((48, 64), np.uint8)
            infos = [stream.grab_into(out, timeout=2.0) for _ in range(20)]
            assert all(i["complete"] and i["missing"] == [] for i in infos)
            assert [i["block_id"] for i in infos] == list(range(infos[0]["block_id"], infos[0]["block_id"] + 20))
            assert infos[0]["width"] == 64 and infos[0]["size"] == out.nbytes
            assert out.any()  # the last frame's bytes, not the zeros
            assert stream.frames_held == 0
            assert stream.stats()["frames_verified"] == 20
            with pytest.raises(ValueError, match="holds 10 bytes"):
                stream.grab_into(np.zeros(10, np.uint8), timeout=2.0)
            with pytest.raises(ValueError, match="writable"):
                ro = np.zeros((48, 64), np.uint8)
                ro.flags.writeable = False
                stream.grab_into(ro, timeout=2.0)
            # A uint16 array of the same byte size takes the bytes too.
            assert stream.grab_into(np.zeros((48, 32), np.uint16), timeout=2.0)["complete"]


def test_a_camera_gone_mid_stream_raises_control_lost():
    emu = emulator(width=64, height=48, fps=100)
    with linerate.Camera.open(emu.address) as cam, cam.stream() as stream:
        assert stream.next(timeout=2.0).complete
        emu.stop()
        started = time.monotonic()
        with pytest.raises(linerate.ControlLost, match="lost control of camera"):
            for _ in stream.frames(timeout=10.0):
                pass
        assert time.monotonic() - started < 5.0
        assert "lost control" in stream.close()["error"]
        with pytest.raises(linerate.ControlLost):
            cam["Width"]


def test_the_tcp_transport_delivers_views_too():
    with emulator(width=320, height=240, fps=200) as emu:
        with linerate.Camera.open(emu.address) as cam, cam.stream(transport="tcp", verify=True) as stream:
            pool = set(stream.buffer_addresses)
            for frame in stream.frames(count=50, timeout=2.0):
                assert frame.complete and frame.address in pool
                assert frame.array.shape == (240, 320) and frame.array.base is frame
            del frame
            stats = stream.close()
    assert stats["transport"] == "tcp" and stats["tcp_connections"] == 1, stats
    assert stats["frames_completed"] == 50 and stats["frames_verified"] == 50, stats


def test_a_frame_held_past_the_stream_stays_valid():
    with emulator(width=64, height=48, fps=200) as emu:
        with linerate.Camera.open(emu.address) as cam:
            with cam.stream() as stream:
                frame = stream.next(timeout=2.0)
                kept = frame.copy()
            # The stream is closed; the frame still owns its buffer.
            assert np.array_equal(frame.array, kept)
            assert stream.frames_held == 1
            with pytest.raises(linerate.Error, match="closed"):
                stream.next(timeout=0.1)
            del frame
            gc.collect()
            assert stream.frames_held == 0
