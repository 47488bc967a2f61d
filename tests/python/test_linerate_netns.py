"""The linerate Python package on a two-namespace bench (as the Rust
tests run): linerate's emulated camera and Aravis's fake camera (a peer
nobody here wrote) in one namespace, the grab in the other, with
nftables loss at the camera's output and the host's input. 300 frames
complete and verified; 2% loss: every frame complete; 20% loss: every
frame accounted for; the pool intact at the end."""

import gc
import time

import linerate
import netbench


def grab(bench, count, timeout=2.0, **stream_kw):
    """Grabs `count` frames from the camera at the bench's cam address;
    returns (frames' (block_id, complete, missing), final stats, pool)."""
    with bench.inside("pc"):
        cam = linerate.Camera.open(bench.addr["cam"])
        stream = cam.stream(buffers=8, **stream_kw)
    with cam, stream:
        pool = set(stream.buffer_addresses)
        seen = []
        for frame in stream.frames(count=count, timeout=timeout):
            assert frame.address in pool and frame.array.base is frame
            seen.append((frame.block_id, frame.complete, frame.missing))
        del frame
        gc.collect()
        held = stream.frames_held
        stats = stream.close()
    assert held == 0 and stats["buffers"] == 8
    return seen, stats


def test_linerate_camera_300_frames_complete_and_verified():
    with netbench.Bench() as bench:
        with bench.inside("cam"):
            emu = linerate.CameraEmulator(bind=bench.addr["cam"], width=512, height=256, fps=200)
        with emu:
            seen, stats = grab(bench, 300, verify=True)
    assert len(seen) == 300 and all(c for _, c, _ in seen)
    assert stats["frames_completed"] == 300 and stats["frames_verified"] == 300, stats


def test_aravis_fake_camera_300_frames_complete_and_verified():
    with netbench.Bench() as bench:
        fake = bench.exec("cam", "arv-fake-gv-camera-0.8", "-i", bench.addr["cam"])
        try:
            deadline = time.monotonic() + 10
            with bench.inside("pc"):
                while not linerate.discover(timeout=0.2, target=bench.addr["cam"]):
                    assert time.monotonic() < deadline, "the fake camera never answered"
            seen, stats = grab(bench, 300, timeout=3.0, verify=True)
        finally:
            fake.kill()
            fake.wait()
    assert stats["vendor"] == "Aravis"
    assert len(seen) == 300 and all(c for _, c, _ in seen)
    assert stats["frames_completed"] == 300 and stats["frames_verified"] == 300, stats


def test_two_percent_loss_every_frame_complete():
    with netbench.Bench() as bench:
        with bench.inside("cam"):
            emu = linerate.CameraEmulator(bind=bench.addr["cam"], width=512, height=256, fps=100)
        with emu:
            bench.loss(2)
            seen, stats = grab(bench, 200, verify=True)
    assert stats["packets_resent"] > 0, "no loss happened"
    assert all(c for _, c, _ in seen), [s for s in seen if not s[1]][:3]
    assert stats["frames_completed"] == 200 and stats["frames_verified"] == 200, stats


def test_twenty_percent_loss_every_frame_accounted_for():
    with netbench.Bench() as bench:
        with bench.inside("cam"):
            emu = linerate.CameraEmulator(bind=bench.addr["cam"], width=512, height=256, fps=100)
        with emu:
            bench.loss(20)
            seen, stats = grab(bench, 200, verify=True)
    blocks = [b for b, _, _ in seen]
    assert len(seen) == 200
    assert stats["frames_completed"] + stats["frames_incomplete"] == 200, stats
    # An incomplete frame says what it misses; a complete one misses nothing.
    for _, complete, missing in seen:
        assert complete == (missing == [])
    assert stats["frames_corrupt"] == 0, stats
    assert stats["packets_resent"] > 0, stats
    # Frames come out as they finish (an incomplete one after its
    # retention time), so not in order; but no frame comes twice, and a
    # block id never seen is one still in flight when the grab ended (at
    # most the 8 buffers) or one dropped for want of a buffer (counted).
    assert len(set(blocks)) == 200
    unseen = set(range(min(blocks), max(blocks) + 1)) - set(blocks)
    assert len(unseen) <= 8 + stats["underruns"], (sorted(unseen), stats["underruns"])
