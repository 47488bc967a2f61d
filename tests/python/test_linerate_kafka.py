"""Camera.stream(to="kafka://...") against a real Apache Kafka broker
(scripts/kafka up: started if not running, left running): every frame the
script reads reaches the topic once, as ESS ad00 that ESS's own decoder
(ess-streaming-data-types, through confluent-kafka) reads back with the
right source, id, dimensions and pixels; the stream's report counts the
deliveries; a broker that is not there fails the close, never silently.
The same for a FADE readout's board data, chunk by chunk."""

import contextlib
import os
import pathlib
import subprocess
import time
import zlib

import numpy as np
import pytest
from confluent_kafka import Consumer
from streaming_data_types.area_detector_ad00 import deserialise_ad00

import linerate
import netbench
from linerate import fade

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bootstrap():
    out = subprocess.run(
        [str(ROOT / "scripts/kafka"), "up"], capture_output=True, text=True
    )
    assert out.returncode == 0, (
        "scripts/kafka up failed (run scripts/install-deps for Java and Maven): "
        + out.stderr
    )
    return out.stdout.strip()


def emulator(**kw):
    kw.setdefault("bind", "127.0.0.1")
    kw.setdefault("port", 0)
    return linerate.CameraEmulator(**kw)


def read_topic(bootstrap, topic, expected):
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"pytest-{topic}",
            "auto.offset.reset": "earliest",
            "fetch.max.bytes": 64 << 20,
        }
    )
    consumer.subscribe([topic])
    messages = []
    deadline = time.monotonic() + 60
    while len(messages) < expected and time.monotonic() < deadline:
        msg = consumer.poll(0.2)
        if msg is None or msg.error():
            continue
        messages.append(deserialise_ad00(msg.value()))
    # Anything more than expected would be a duplicate: look a little longer.
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        msg = consumer.poll(0.1)
        if msg is not None and not msg.error():
            messages.append(deserialise_ad00(msg.value()))
    consumer.close()
    return messages


def test_frames_read_from_a_stream_reach_kafka_once_as_ad00(bootstrap):
    topic = f"pystream-{time.time_ns()}"
    frames = {}
    with emulator(width=320, height=240, fps=200) as emu:
        with linerate.Camera.open(emu.address) as cam:
            with cam.stream(verify=True, to=f"kafka://{bootstrap}/{topic}") as stream:
                for frame in stream.frames(count=60, timeout=2.0):
                    assert frame.complete
                    frames[frame.block_id] = frame.array.copy()
                live = stream.stats()
                report = stream.close()
    assert live["kafka_submitted"] == 60, live
    assert report["kafka_messages"] == 60, report
    assert report["kafka_errors"] == 0 and report["kafka_dropped"] == 0
    assert report["kafka"]["ok"] is True
    assert report["kafka"]["target"] == f"kafka://{bootstrap}/{topic}"
    assert report["kafka_latency_p99_us"] > 0
    messages = read_topic(bootstrap, topic, 60)
    ids = sorted(m.unique_id for m in messages)
    assert ids == sorted(frames), "every frame once, nothing else"
    for m in messages:
        assert m.source_name == emu.address
        assert [int(d) for d in m.dimensions] == [240, 320]
        assert m.data.dtype == np.uint8 and m.data.shape == (240, 320)
        assert np.array_equal(m.data, frames[m.unique_id])
        raw = m.data.tobytes()
        # linerate's test pattern stamp: magic and CRC of the rest.
        assert raw[:4] == b"LRTP"
        assert int.from_bytes(raw[12:16], "big") == zlib.crc32(raw[16:]) & 0xFFFFFFFF
        attrs = {a.name: a.data for a in m.attributes}
        assert int(attrs["complete"]) == 1
        assert int(attrs["block_id"]) == m.unique_id


def test_a_bad_target_is_refused_before_the_camera_starts():
    with emulator(width=64, height=64, fps=50) as emu:
        with linerate.Camera.open(emu.address) as cam:
            with pytest.raises(ValueError, match="kafka"):
                cam.stream(to="http://127.0.0.1:9/x")
            with pytest.raises(ValueError, match="kafka_on_full"):
                cam.stream(to="kafka://127.0.0.1:9/x", kafka_on_full="later")
            # The camera is still usable after both refusals.
            with cam.stream() as stream:
                assert next(iter(stream.frames(count=1, timeout=2.0))).complete


def test_frames_no_broker_took_fail_the_close_and_are_counted():
    # Nothing listens on this loopback port: deliveries time out after 2 s.
    with emulator(width=64, height=64, fps=100) as emu:
        with linerate.Camera.open(emu.address) as cam:
            stream = cam.stream(
                to="kafka://127.0.0.1:9/nowhere",
                kafka_settings={"message.timeout.ms": "2000"},
            )
            for _ in stream.frames(count=10, timeout=2.0):
                pass
            with pytest.raises(linerate.Error, match="10 of 10 frames not delivered"):
                stream.close()
            report = stream.stats()
    assert report["kafka_messages"] == 0
    assert report["kafka_errors"] == 10
    assert report["kafka"]["ok"] is False


@pytest.fixture
def board_link():
    """An emulated board's namespace joined by a veth pair to this
    (the broker's) namespace: the readout runs here, where 127.0.0.1 is
    the broker, and the board's frames stay on the pair."""
    tag = f"lrk{os.getpid()}"
    ns, board_dev, host_dev = f"{tag}b", f"{tag}b0", f"{tag}h0"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(
            ["ip", "link", "add", board_dev, "netns", ns, "type", "veth", "peer", "name", host_dev],
            check=True,
        )
        subprocess.run(["ip", "-n", ns, "link", "set", board_dev, "up"], check=True)
        subprocess.run(["ip", "link", "set", host_dev, "up"], check=True)
        yield ns, board_dev, host_dev
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


@contextlib.contextmanager
def inside(ns):
    """Runs the block, and the threads it starts, in namespace `ns`."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        netbench._setns(target)
        try:
            yield
        finally:
            netbench._setns(home)
    finally:
        os.close(target)
        os.close(home)


def test_board_data_read_from_a_readout_reaches_kafka_as_chunks(bootstrap, board_link):
    ns, board_dev, host_dev = board_link
    total, chunk = 16 << 20, 1 << 20
    topic = f"pyreadout-{time.time_ns()}"
    with inside(ns):
        board = fade.BoardEmulator(board_dev, bytes=total)
    with board:
        with fade.Readout(
            host_dev,
            boards=[board.mac],
            bytes=total,
            to=f"kafka://{bootstrap}/{topic}",
            kafka_chunk_bytes=chunk,
        ) as ro:
            read = sum(len(c) for c in ro.chunks(0, timeout=5.0))
            report = ro.close()
    assert read == total
    assert report["complete"] is True, report
    assert report["kafka_messages"] == total // chunk, report
    assert report["kafka_errors"] == 0 and report["kafka_dropped"] == 0
    assert report["kafka"]["ok"] is True
    messages = read_topic(bootstrap, topic, total // chunk)
    assert sorted(m.unique_id for m in messages) == list(range(total // chunk))
    for m in messages:
        assert m.source_name == board.mac
        offset = int({a.name: a.data for a in m.attributes}["stream_offset"])
        assert offset == m.unique_id * chunk
        # The board's counter stream: little-endian u64 counters.
        want = np.arange(offset // 8, (offset + chunk) // 8, dtype="<u8").view(np.uint8)
        assert np.array_equal(m.data, want)
