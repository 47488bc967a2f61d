"""linerate.fade against linerate's emulated FADE board on a two-namespace
bench (as the Rust tests run it): the board in one namespace, the
readout in the other, over a veth pair. 256 MiB arrive and every byte is
verified in Python against the board's counter stream, each chunk a view
of the ring itself (no copy); a chunk held keeps its bytes (the ring waits
rather than overwrite them); Ctrl-C interrupts a wait within 100 ms and
the readout goes on; bad arguments are linerate.Error with the command
line's message. Also: Ctrl-C interrupts discover() and Camera.open()."""

import gc
import json
import os
import signal
import socket
import subprocess
import threading
import time

import jsonschema
import numpy as np
import pytest

import linerate
import netbench
from linerate import fade

MIB = 1 << 20
SCHEMAS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "schemas")


def check_schema(report, name):
    """`report` has the shape of the command line's `--json` output
    (docs/schemas/`name`.schema.json)."""
    with open(os.path.join(SCHEMAS, f"{name}.schema.json")) as f:
        jsonschema.validate(report, json.load(f))


def expected(offset, n):
    """The board's counter stream at `offset` (both multiples of 8):
    little-endian u64 counters, byte n is byte n % 8 of counter n // 8."""
    assert offset % 8 == 0 and n % 8 == 0
    return np.arange(offset // 8, (offset + n) // 8, dtype="<u8").view(np.uint8)


def start(bench, board_kw, **readout_kw):
    """An emulated board in `cam` and a readout of it in `pc`."""
    with bench.inside("cam"):
        board = fade.BoardEmulator(bench.dev["cam"], **board_kw)
    with bench.inside("pc"):
        ro = fade.Readout(bench.dev["pc"], boards=[board.mac], **readout_kw)
    return board, ro


def test_256_mib_verified_in_python_as_views_of_the_ring():
    total = 256 * MIB
    with netbench.Bench() as bench:
        board, ro = start(bench, dict(bytes=total), bytes=total)
        with board, ro:
            base, size = ro.ring_span(0)
            offset = chunks = 0
            for chunk in ro.chunks(board=0, timeout=5.0):
                a = chunk.array
                # A view of the ring itself, at the chunk's place in it.
                assert a.base is chunk and not a.flags.writeable
                assert a.ctypes.data == chunk.address == base + chunk.offset % size
                assert np.shares_memory(a, np.frombuffer(chunk.data, np.uint8))
                assert chunk.offset == offset and len(chunk) == a.size > 0
                assert np.array_equal(a, expected(chunk.offset, a.size)), f"at {offset}"
                offset += a.size
                chunks += 1
            del chunk, a
            # Read to its end, the readout ends on its own; stats() is
            # its report, and close() returns the same.
            deadline = time.monotonic() + 5
            while not ro.finished:
                assert ro.stats() is None and time.monotonic() < deadline
                time.sleep(0.01)
            stats = ro.stats()
            report = ro.close()
            assert stats == report and ro.bytes_read == [total]
            board_report = board.stop()
    assert offset == total, offset
    assert chunks >= total // MIB
    assert report["complete"] and report["bytes"] == total, report
    (b,) = report["boards"]
    assert b["mac"] == board.mac and b["bytes"] == total and b["error"] is None, b
    assert b["bytes_received"] == total
    assert board_report["mac"] == board.mac
    # The same objects as `linerate fade recv --json` and `fade feb --json`.
    check_schema(report, "fade-recv")
    check_schema(board_report, "fade-feb")


def test_a_held_chunk_keeps_its_bytes_and_the_ring_waits_for_it():
    total = 4 * MIB
    with netbench.Bench() as bench:
        board, ro = start(bench, dict(bytes=total), bytes=total, ring_mib=1,
                          chunk_bytes=64 * 1024)
        with board, ro:
            chunks = ro.chunks(timeout=5.0)
            first = next(chunks)
            kept = first.array
            snapshot = kept.copy()
            assert first.offset == 0 and np.array_equal(kept, expected(0, kept.size))
            del first
            # The view holds its bytes: the ring fills (1 MiB) and the
            # board waits instead of overwriting them.
            seen = kept.size
            with pytest.raises(linerate.TimeoutError):
                for chunk in ro.chunks(timeout=0.3):
                    seen += len(chunk)
            assert seen <= MIB, seen
            assert np.array_equal(kept, snapshot)
            # Letting go of the view frees the ring: the rest arrives.
            del kept, chunk
            gc.collect()
            offset = seen
            for chunk in ro.chunks(timeout=5.0):
                assert chunk.offset == offset
                assert np.array_equal(chunk.array, expected(chunk.offset, len(chunk)))
                offset += len(chunk)
            report = ro.close()
    assert offset == total
    assert report["complete"], report


def test_two_boards_read_at_once_from_two_threads():
    each = 32 * MIB
    with netbench.Bench() as bench:
        # Two boards in the board namespace, each on a macvlan of its end
        # of the veth (so each has a MAC of its own), read out together.
        ns = bench.names["cam"]
        for i in (0, 1):
            subprocess.run(["ip", "-n", ns, "link", "add", f"feb{i}", "link", bench.dev["cam"],
                            "type", "macvlan", "mode", "bridge"], check=True)
            subprocess.run(["ip", "-n", ns, "link", "set", f"feb{i}", "up"], check=True)
        with bench.inside("cam"):
            boards = [fade.BoardEmulator(f"feb{i}", bytes=each) for i in (0, 1)]
        with bench.inside("pc"):
            ro = fade.Readout(bench.dev["pc"], boards=[b.mac for b in boards], bytes=each)
        read, spans = {}, {}

        def consume(i):
            offset = 0
            for chunk in ro.chunks(board=i, timeout=5.0):
                if offset == 0:
                    started = time.monotonic()
                assert chunk.board == i and chunk.offset == offset
                assert np.array_equal(chunk.array, expected(offset, len(chunk)))
                offset += len(chunk)
            read[i], spans[i] = offset, (started, time.monotonic())

        threads = [threading.Thread(target=consume, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        report = ro.close()
        for b in boards:
            b.stop()
    assert read == {0: each, 1: each}
    assert report["complete"] and [b["bytes"] for b in report["boards"]] == [each, each], report
    # Both threads read at the same time, not one after the other.
    assert spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1], spans


def test_other_threads_run_while_a_readout_waits():
    with netbench.Bench() as bench:
        with bench.inside("pc"):
            # A board nobody emulates: every wait runs to its timeout.
            ro = fade.Readout(bench.dev["pc"], boards=["02:00:00:00:00:99"], duration=5.0,
                              idle_timeout=10.0)
        with ro:
            result = {}

            def wait():
                started = time.monotonic()
                try:
                    next(ro.chunks(timeout=1.0))
                except linerate.TimeoutError:
                    result["waited"] = time.monotonic() - started

            t = threading.Thread(target=wait)
            longest, last = 0.0, time.monotonic()
            end = last + 1.0
            t.start()
            # Pure Python in this thread meanwhile: a wait holding the GIL
            # would stop it for the whole 1 s wait (the wait loops in Rust).
            # Scheduling on a busy 2-core machine can stop it for some
            # 100 ms; that is not what this looks for.
            while True:
                now = time.monotonic()
                longest, last = max(longest, now - last), now
                if now >= end:
                    break
            t.join()
            report = ro.close()
    assert result["waited"] >= 1.0, result
    assert longest < 0.5, f"this thread stood still for {longest:.3f} s"
    assert not report["complete"] and report["boards"][0]["error"], report


def test_ctrl_c_interrupts_a_readout_wait_within_100_ms():
    with netbench.Bench() as bench:
        # About one 1024-byte packet a second: each wait is long.
        board, ro = start(bench, dict(rate=8000), duration=20.0, idle_timeout=10.0)
        with board, ro:
            first = next(ro.chunks(timeout=5.0))
            end = first.offset + len(first)
            late = interrupted_within_100_ms(lambda: next(ro.chunks(timeout=10.0)))
            assert late < 0.1, f"KeyboardInterrupt after {late:.3f} s"
            # The readout goes on where it was.
            after = next(ro.chunks(timeout=5.0))
            assert after.offset == end
            assert np.array_equal(after.array, expected(after.offset, len(after)))
            report = ro.close()
    # Closed early: the board ends as interrupted, and says so.
    assert not report["complete"] and report["boards"][0]["error"], report
    assert report["boards"][0]["bytes_received"] >= end + len(after)


def test_a_silent_board_raises_a_linerate_error_naming_it():
    mac = "02:00:00:00:00:99"
    with netbench.Bench() as bench:
        with bench.inside("pc"):
            ro = fade.Readout(bench.dev["pc"], boards=[mac], bytes=MIB, idle_timeout=0.3)
        with ro:
            with pytest.raises(linerate.Error, match=f"^board {mac}: nothing received for 3[0-9][0-9] ms: the board never answered START"):
                for _ in ro.chunks(timeout=5.0):
                    pass
            report = ro.close()
    assert not report["complete"], report
    assert report["boards"][0]["error"].startswith(f"board {mac}: nothing received"), report


def test_bad_arguments_are_linerate_errors_with_clear_messages():
    with pytest.raises(linerate.Error, match="MAC address.*02:00:00:00:00"):
        fade.Readout("lo", boards=["02:00:00:00:00"], bytes=1024)
    with pytest.raises(linerate.Error, match="no-such-if0") as unknown:
        fade.Readout("no-such-if0", boards=["02:00:00:00:00:01"], bytes=1024)
    # The cause chain on one line, each cause once, as the CLI prints it.
    parts = str(unknown.value).split(": ")
    assert len(parts) == len(set(parts)), str(unknown.value)
    with pytest.raises(linerate.Error, match="say how much to receive"):
        fade.Readout("lo", boards=["02:00:00:00:00:01"])
    with pytest.raises(linerate.Error, match="unknown FADE version"):
        fade.Readout("lo", boards=["02:00:00:00:00:01"], bytes=1024, version="2")
    with pytest.raises(linerate.Error, match="no-such-if0"):
        fade.BoardEmulator("no-such-if0")


def interrupted_within_100_ms(call):
    """Runs `call`, sends this process SIGINT 0.2 s in, and returns how
    long after it KeyboardInterrupt came."""
    sent = []

    def interrupt():
        time.sleep(0.2)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Thread(target=interrupt)
    t.start()
    try:
        result = call()
        raise AssertionError(f"the call was not interrupted; it returned {result!r}")
    except KeyboardInterrupt:
        caught = time.monotonic()
    finally:
        t.join()
    return caught - sent[0]


def test_ctrl_c_interrupts_discovery_within_100_ms():
    # Nothing answers on loopback: discovery waits its whole 3 s.
    late = interrupted_within_100_ms(lambda: linerate.discover(timeout=3.0, interface="127.0.0.1"))
    assert late < 0.1, f"KeyboardInterrupt after {late:.3f} s"


def test_ctrl_c_interrupts_camera_open_within_100_ms():
    # A port that takes the datagrams and never answers: the open retries
    # for about 0.6 s before it gives up.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        port = silent.getsockname()[1]
        late = interrupted_within_100_ms(lambda: linerate.Camera.open(f"127.0.0.1:{port}"))
    assert late < 0.1, f"KeyboardInterrupt after {late:.3f} s"
