"""The GIL is released while linerate waits: other Python threads run
during a wait, Ctrl-C interrupts a wait within 100 ms with
KeyboardInterrupt (the stream staying usable), and two cameras grabbed
from two Python threads both run at their full rate."""

import os
import signal
import threading
import time

import linerate


def test_ctrl_c_interrupts_a_wait_within_100_ms():
    with linerate.CameraEmulator(bind="127.0.0.1", port=0, width=64, height=48, fps=0.5) as emu:
        with linerate.Camera.open(emu.address) as cam, cam.stream() as stream:
            assert stream.next(timeout=5.0) is not None  # the next one is 2 s away
            sent = []

            def interrupt():
                time.sleep(0.3)
                sent.append(time.monotonic())
                os.kill(os.getpid(), signal.SIGINT)

            t = threading.Thread(target=interrupt)
            t.start()
            try:
                for _ in stream.frames(timeout=10.0):
                    pass
                raise AssertionError("the wait was not interrupted")
            except KeyboardInterrupt:
                caught = time.monotonic()
            t.join()
            assert caught - sent[0] < 0.1, f"KeyboardInterrupt after {caught - sent[0]:.3f} s"
            # The stream is still usable.
            assert stream.next(timeout=5.0).complete


def test_other_threads_run_while_a_stream_waits():
    with linerate.CameraEmulator(bind="127.0.0.1", port=0, width=64, height=48, fps=0.5) as emu:
        with linerate.Camera.open(emu.address) as cam, cam.stream() as stream:
            assert stream.next(timeout=5.0) is not None  # the next one is 2 s away
            result = {}

            def wait():
                started = time.monotonic()
                result["frame"] = stream.next(timeout=5.0)
                result["waited"] = time.monotonic() - started

            t = threading.Thread(target=wait)
            longest, last = 0.0, time.monotonic()
            end = last + 1.0
            t.start()
            # Pure Python in this thread meanwhile: a wait holding the GIL
            # would stop it for the whole wait.
            while True:
                now = time.monotonic()
                longest, last = max(longest, now - last), now
                if now >= end:
                    break
            t.join()
            assert result["frame"] is not None and result["waited"] > 1.0, result
            assert longest < 0.05, f"this thread stood still for {longest:.3f} s"


def grab(address, count, out):
    with linerate.Camera.open(address) as cam, cam.stream() as stream:
        started = time.monotonic()
        complete = sum(1 for f in stream.frames(count=count, timeout=2.0) if f.complete)
        out.append((complete, time.monotonic() - started))


def test_two_cameras_from_two_threads_run_at_full_rate():
    fps, count = 100, 100
    with (
        linerate.CameraEmulator(bind="127.0.0.1", port=0, width=320, height=240, fps=fps) as a,
        linerate.CameraEmulator(bind="127.0.0.1", port=0, width=320, height=240, fps=fps) as b,
    ):
        results = []
        threads = [threading.Thread(target=grab, args=(e.address, count, results)) for e in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(results) == 2
    for complete, seconds in results:
        assert complete == count
        # At full rate 100 frames take 1 s; a wait holding the GIL would
        # serialise the two threads and halve each one's rate.
        assert count / seconds > 0.8 * fps, f"{count / seconds:.1f} frames/s"
