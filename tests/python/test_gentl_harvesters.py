"""linerate.cti, linerate's GenTL producer, under Harvesters (a GenTL
consumer nobody here wrote, on the EMVA GenApi reference implementation).

Bench: three namespaces. `linerate camera` runs in "cam" (169.254.77.1)
and Aravis's `arv-fake-gv-camera-0.8` in "cam2" (169.254.78.1), each
joined to "pc" by its own veth pair, so the producer lists two network
interfaces with one camera each. Harvesters runs in "pc" (its calls, and
the threads the producer starts from them, stay there).

Checked: both cameras are listed; 300 frames from each, verified in Python
against the camera's pattern (linerate's stamped pattern with its CRC;
Aravis's row ramp) and by the producer's own verifier; Width changed
between acquisitions takes effect; with 2% loss at the camera's output and
the host's input every buffer completes (packets were resent); with resend
disabled lost packets give incomplete buffers, which come back to the pool
so acquisition goes on. The same acquisition routine runs against the
`viky.cti` simulator bundled with the `genicam` package, so the test
itself is known to pass with a producer nobody here wrote.
"""

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time
import zlib

import numpy as np
import pytest
from harvesters.core import Callback, Harvester, ImageAcquirer

import genicam
import netbench

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
LINERATE_BIN = pathlib.Path(os.environ.get("LINERATE_BIN", TARGET / "debug/linerate"))
VIKY = pathlib.Path(genicam.__file__).parent / "viky.cti"


def producer_path(tmp_dir):
    """linerate.cti: $LINERATE_CTI, or the optimised library cargo built
    (as users install it: the grab engine unoptimised falls behind a
    stream on a busy 2-core machine), copied under the name GenTL
    consumers look for."""
    given = os.environ.get("LINERATE_CTI")
    if given:
        return given
    built = TARGET / "release/liblinerate_gentl.so"
    if not built.is_file():
        pytest.fail(f"{built} is missing: run `cargo build --release -p linerate-gentl` (scripts/test does)")
    cti = pathlib.Path(tmp_dir) / "linerate.cti"
    shutil.copy(built, cti)
    return str(cti)


class TwoCameraBench(netbench.Bench):
    """netbench's cam/pc pair plus a second camera namespace, cam2
    (169.254.78.1), on a veth pair of its own to pc (169.254.78.2)."""

    def __init__(self):
        super().__init__()
        tag = self.names["cam"][:-1]
        self.names["cam2"] = f"{tag}d"
        self.addr.update({"cam2": "169.254.78.1", "pc2": "169.254.78.2"})
        self.dev.update({"cam2": f"{tag}d0", "pc2": f"{tag}q0"})

    def __enter__(self):
        super().__enter__()
        try:
            sh = netbench._sh
            sh("ip", "netns", "add", self.names["cam2"])
            sh("ip", "link", "add", self.dev["cam2"], "netns", self.names["cam2"],
               "type", "veth", "peer", "name", self.dev["pc2"], "netns", self.names["pc"])
            for role, ns in (("cam2", self.names["cam2"]), ("pc2", self.names["pc"])):
                sh("ip", "-n", ns, "addr", "add", f"{self.addr[role]}/24", "dev", self.dev[role])
                sh("ip", "-n", ns, "link", "set", self.dev[role], "up")
            sh("ip", "-n", self.names["cam2"], "link", "set", "lo", "up")
            self.wait_links_up()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def wait_links_up(self):
        """Waits until pc's two links are running (the kernel reports a new
        veth's carrier up to a second late, and discovery skips links that
        are not running)."""
        deadline = time.monotonic() + 5
        while True:
            out = subprocess.run(["ip", "-n", self.names["pc"], "-br", "link"],
                                 capture_output=True, text=True).stdout
            states = {line.split()[0].split("@")[0]: line.split()[1] for line in out.splitlines()}
            if all(states.get(self.dev[r]) == "UP" for r in ("pc", "pc2")):
                return
            assert time.monotonic() < deadline, f"pc's links never came up: {states}"
            time.sleep(0.05)

    def no_loss(self):
        """Removes the loss rules of `loss()`."""
        for role in ("cam", "pc"):
            subprocess.run(["ip", "netns", "exec", self.names[role], "nft", "delete", "table",
                            "netdev", "pyloss"], capture_output=True)


def wait_for_camera(bench, role, ip):
    """Waits until the camera in `role` answers a GVCP discovery command
    sent to `ip` from pc."""
    discovery = bytes([0x42, 0x11, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01])
    deadline = time.monotonic() + 10
    with bench.inside("pc"), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(0.2)
        while True:
            s.sendto(discovery, (ip, 3956))
            try:
                if len(s.recv(1024)) > 8:
                    return
            except OSError:
                pass
            assert time.monotonic() < deadline, f"the camera in {role} never answered at {ip}"


@pytest.fixture(autouse=True)
def sigint_handler_restored():
    """Harvesters' ImageAcquirer installs its own SIGINT handler in the
    main thread and never restores Python's, after which Ctrl-C no longer
    raises KeyboardInterrupt anywhere in the process (a Harvesters
    behaviour, not the producer's): put the previous handler back after
    each test so later tests in this process get Ctrl-C as users do."""
    before = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.fixture(scope="module")
def bench():
    if not LINERATE_BIN.is_file():
        pytest.fail(f"{LINERATE_BIN} is missing: run `cargo build -p linerate-cli` (scripts/test's cargo test does)")
    with TwoCameraBench() as b:
        ours = b.exec("cam", str(LINERATE_BIN), "camera", "--bind", b.addr["cam"], "--width", "512",
                      "--height", "256", "--fps", "300", "--stats-interval", "0")
        fake = b.exec("cam2", "arv-fake-gv-camera-0.8", "-i", b.addr["cam2"])
        try:
            wait_for_camera(b, "cam", b.addr["cam"])
            wait_for_camera(b, "cam2", b.addr["cam2"])
            yield b
        finally:
            for p in (ours, fake):
                p.kill()
                p.wait()


@pytest.fixture(scope="module")
def cti(tmp_path_factory):
    return producer_path(tmp_path_factory.mktemp("gentl"))


@pytest.fixture
def harvester(bench, cti):
    """A Harvester with linerate.cti loaded, updated from inside pc."""
    with bench.inside("pc"):
        h = Harvester()
        h.add_file(cti)
        h.update()
        try:
            yield h
        finally:
            h.reset()


def check_linerate_frame(data):
    """Checks one frame of linerate's test pattern (docs/test-pattern.md):
    the LRTP stamp, the CRC of the pixels and every pixel; returns the
    frame number."""
    raw = data.tobytes()
    assert raw[:4] == b"LRTP", raw[:16]
    frame = int.from_bytes(raw[4:12], "big")
    assert int.from_bytes(raw[12:16], "big") == zlib.crc32(raw[16:]), f"frame {frame}: CRC"
    i = np.arange(16, len(raw), dtype=np.uint64)
    expected = ((i + np.uint64(frame)) % np.uint64(251)).astype(np.uint8)
    assert np.array_equal(np.frombuffer(raw, np.uint8)[16:], expected), f"frame {frame}: pixels"
    return frame


def check_aravis_frame(data, width):
    """Aravis's fake camera draws a diagonal ramp: pixel (x, y) is
    (x + y + f) mod 255 for the frame's offset f."""
    img = data.reshape(-1, width).astype(np.int64)
    y, x = np.indices(img.shape)
    assert np.array_equal(img, (img[0, 0] + x + y) % 255)


def acquire(ia, count, check, timeout=3.0):
    """Starts `ia`, fetches `count` buffers, checks each with
    `check(data, width, height)`, stops; returns the widths seen."""
    widths = set()
    ia.start()
    try:
        for _ in range(count):
            with ia.fetch(timeout=timeout) as buffer:
                c = buffer.payload.components[0]
                assert c.data.size == c.width * c.height * c.num_components_per_pixel or \
                    c.data.nbytes >= c.width * c.height
                check(c.data, c.width, c.height)
                widths.add(c.width)
    finally:
        ia.stop()
    return widths


def acquisition_routine(ia, check, count=300, new_width=None):
    """The routine every producer goes through: `count` frames checked,
    then Width changed and a few more frames at the new width."""
    nm = ia.remote_device.node_map
    width = nm.Width.value
    assert acquire(ia, count, check) == {width}
    new_width = new_width or width // 2
    nm.Width.value = new_width
    assert acquire(ia, 10, check) == {new_width}
    nm.Width.value = width


class Counter(Callback):
    """Counts the times Harvesters emits an event."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def emit(self, context=None):
        self.count += 1


def stream_features(ia):
    return ia.data_streams[0].node_map


def thread_names():
    """The names of this process's threads."""
    return [pathlib.Path(f"/proc/self/task/{t}/comm").read_text().strip()
            for t in os.listdir("/proc/self/task")]


PRODUCER_THREADS = {"gvcp-heartbeat", "gvsp-receive"}


def test_lists_linerate_camera_and_aravis_fake_camera(harvester, bench):
    found = {(d.property_dict["vendor"], d.property_dict["id_"]) for d in harvester.device_info_list}
    assert ("linerate", bench.addr["cam"]) in found, found
    assert ("Aravis", bench.addr["cam2"]) in found, found
    # One interface module per network interface with a camera.
    interfaces = {d.property_dict["parent"].id_ for d in harvester.device_info_list}
    assert interfaces == {bench.dev["pc"], bench.dev["pc2"]}, interfaces


def test_the_producers_own_modules_serve_genicam_xml(harvester, bench):
    """GenApi (EMVA's reference) builds a node map from each module's XML,
    served through a local: URL, and reads the registers behind it."""
    with bench.inside("pc"):
        ia = harvester.create({"vendor": "linerate"})
        with ia:
            assert ia.system.node_map.TLVendorName.value == "linerate"
            assert ia.system.node_map.TLType.value == "GEV"
            assert ia.interface.node_map.InterfaceID.value == bench.dev["pc"]
            ip = ia.interface.node_map.GevInterfaceSubnetIPAddress.value
            assert ip == int.from_bytes(socket.inet_aton(bench.addr["pc"]), "big")
            assert ia.device.node_map.DeviceID.value == bench.addr["cam"]
            assert ia.device.node_map.DeviceSerialNumber.value.startswith("LR")
            ds = stream_features(ia)
            assert ds.StreamID.value == "stream0"
            assert ds.LinerateStreamTransport.value == "UDP"
            assert ds.LinerateStreamResend.value is True
            # The remote device's node map is the camera's own XML.
            assert ia.remote_device.node_map.DeviceVendorName.value == "linerate"


def test_stream_options_are_features_tcp_and_the_copy_backend(harvester, bench):
    with bench.inside("pc"):
        ia = harvester.create({"vendor": "linerate"})
        with ia:
            ds = stream_features(ia)
            check = lambda data, w, h: check_linerate_frame(data)  # noqa: E731
            ds.LinerateStreamTransport.value = "TCP"
            ds.LinerateStreamVerify.value = True
            acquire(ia, 50, check)
            assert ds.LinerateStreamVerifiedFrameCount.value >= 50
            ds.LinerateStreamTransport.value = "UDP"
            ds.LinerateStreamBackend.value = "copy"
            ds.LinerateStreamEngineBuffers.value = 4
            acquire(ia, 50, check)
            assert ds.LinerateStreamVerifiedFrameCount.value >= 50
            assert ds.StreamIncompleteFrameCount.value == 0


def test_closing_the_producer_joins_its_threads(bench, cti):
    with bench.inside("pc"):
        h = Harvester()
        h.add_file(cti)
        h.update()
        ia = h.create({"vendor": "linerate"})
        ia.start()
        with ia.fetch(timeout=3):
            pass
        running = set(thread_names())
        assert PRODUCER_THREADS <= running, running
        h.reset()
    assert not PRODUCER_THREADS & set(thread_names()), thread_names()


def test_linerate_camera_300_frames_verified_and_width_changes(harvester, bench):
    with bench.inside("pc"):
        ia = harvester.create({"vendor": "linerate"})
        with ia:
            ds = stream_features(ia)
            ds.LinerateStreamVerify.value = True
            frames = []

            def check(data, width, height):
                frames.append(check_linerate_frame(data))
                assert data.size == width * height

            acquisition_routine(ia, check)
            assert ds.LinerateStreamVerifiedFrameCount.value >= 10
            assert ds.LinerateStreamCorruptFrameCount.value == 0
            assert ds.StreamIncompleteFrameCount.value == 0
            assert len(frames) == 310
            # Frame numbers rise within each acquisition.
            assert all(b > a for a, b in zip(frames[:300], frames[1:300]))
            # Harvesters announces the producer's BUF_ANNOUNCE_MIN (16, the
            # size of grab's own pool) rather than its own default of 3, so
            # its users get frames received straight into their buffers,
            # with as many in flight for resends as grab, without setting
            # anything.
            assert ia.num_buffers == 16
            assert ds.LinerateStreamDirectFrameCount.value == ds.StreamDeliveredFrameCount.value


def test_aravis_fake_camera_300_frames_verified_and_width_changes(harvester, bench):
    with bench.inside("pc"):
        ia = harvester.create({"vendor": "Aravis"})
        with ia:
            nm = ia.remote_device.node_map
            nm.AcquisitionFrameRate.value = 200.0
            ds = stream_features(ia)
            ds.LinerateStreamVerify.value = True
            acquisition_routine(ia, lambda data, width, height: check_aravis_frame(data, width))
            assert ds.LinerateStreamCorruptFrameCount.value == 0
            assert ds.StreamIncompleteFrameCount.value == 0


def test_two_percent_loss_every_buffer_completes(harvester, bench):
    with bench.inside("pc"):
        ia = harvester.create({"vendor": "linerate"})
        with ia:
            ds = stream_features(ia)
            # As the Python package's loss test: 100 frames/s of 90 packets.
            ia.remote_device.node_map.AcquisitionFrameRate.value = 100.0
            # Through the engine's own pool, each frame copied into a buffer
            # of Harvesters' (the test below covers direct placement).
            ds.LinerateStreamEngineBuffers.value = 16
            incomplete = Counter()
            ia.add_callback(ImageAcquirer.Events.INCOMPLETE_BUFFER, incomplete)
            bench.loss(2)
            try:
                acquire(ia, 200, lambda data, w, h: check_linerate_frame(data))
            finally:
                bench.no_loss()
            resent = ds.LinerateStreamResentPacketCount.value
            assert resent > 0, "no loss happened"
            assert ds.StreamIncompleteFrameCount.value == 0, f"{resent} packets resent"
            assert incomplete.count == 0
            assert ds.LinerateStreamDirectFrameCount.value == 0


def test_sixteen_buffers_receive_frames_directly_and_complete_under_loss(harvester, bench):
    """With 8 or more buffers queued the engine receives each frame straight
    into the application's buffer (no copy of ours): frames verify, and
    resent packets land there too."""
    with bench.inside("pc"):
        ia = harvester.create({"vendor": "linerate"})
        with ia:
            ds = stream_features(ia)
            ds.LinerateStreamVerify.value = True
            ia.num_buffers = 16
            ia.remote_device.node_map.AcquisitionFrameRate.value = 100.0
            bench.loss(2)
            try:
                acquire(ia, 200, lambda data, w, h: check_linerate_frame(data))
            finally:
                bench.no_loss()
            assert ds.LinerateStreamResentPacketCount.value > 0, "no loss happened"
            assert ds.StreamIncompleteFrameCount.value == 0
            assert ds.LinerateStreamCorruptFrameCount.value == 0
            assert ds.LinerateStreamVerifiedFrameCount.value >= 200
            assert ds.LinerateStreamDirectFrameCount.value == ds.StreamDeliveredFrameCount.value


def test_resend_off_loss_gives_incomplete_buffers_and_the_pool_never_starves(harvester, bench):
    with bench.inside("pc"):
        ia = harvester.create({"vendor": "linerate"})
        with ia:
            ds = stream_features(ia)
            ds.LinerateStreamResend.value = False
            incomplete = Counter()
            ia.add_callback(ImageAcquirer.Events.INCOMPLETE_BUFFER, incomplete)
            bench.loss(1)
            try:
                # Harvesters hands out complete buffers only and queues the
                # incomplete ones again: 100 complete frames can only come
                # if every incomplete buffer went back to the pool.
                acquire(ia, 100, lambda data, w, h: check_linerate_frame(data), timeout=10)
            finally:
                bench.no_loss()
            assert ds.LinerateStreamResentPacketCount.value == 0
            assert ds.StreamIncompleteFrameCount.value > 0
            assert incomplete.count == ds.StreamIncompleteFrameCount.value
            assert incomplete.count > ia.num_buffers, "fewer incomplete buffers than the pool holds"


def test_the_same_routine_passes_with_viky_the_genicam_simulator(tmp_path):
    """The acquisition routine above, run with the viky.cti producer the
    genicam package bundles (a simulated camera): the test is known good."""
    assert VIKY.is_file(), f"{VIKY} is missing: the genicam package no longer bundles viky.cti"
    h = Harvester()
    h.add_file(str(VIKY))
    h.update()
    try:
        assert h.device_info_list, "viky.cti lists no device"
        ia = h.create(0)
        with ia:
            bytes_per_pixel = []

            def check(data, width, height):
                assert data.size % (width * height) == 0
                bytes_per_pixel.append(data.size // (width * height))

            acquisition_routine(ia, check)
            assert len(bytes_per_pixel) == 310
    finally:
        h.reset()
