"""The live view's page in a real browser: Debian's Chromium driven by
Playwright (never `playwright install`), against `linerate camera` and
`linerate fade feb` in network namespaces, with `linerate view`, and
`linerate fade recv --view` serving the page on the host namespace's
loopback. The browser runs inside that namespace too.

Set LINERATE_VIEW_SCREENSHOTS=DIR to keep a screenshot of each view
(docs/view.md's pictures come from there).
"""

import contextlib
import ctypes
import json
import os
import pathlib
import re
import subprocess
import threading
import time

import pytest

from netbench import Bench

ROOT = pathlib.Path(__file__).resolve().parents[2]
LINERATE = pathlib.Path(os.environ.get("LINERATE_BIN", ROOT / "target" / "debug" / "linerate"))
CHROMIUM = "/usr/bin/chromium"
PORT = 8089
CAMERA_FPS = 10.0
SHOTS = os.environ.get("LINERATE_VIEW_SCREENSHOTS")

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _require():
    if not LINERATE.exists():
        pytest.fail(f"{LINERATE} missing: build it with `cargo build -p linerate-cli` "
                    "(or point LINERATE_BIN at a linerate binary)")
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} missing: scripts/install-deps installs Debian's chromium")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail("playwright missing: pip install -r tests/python/requirements.txt")


@contextlib.contextmanager
def in_netns(name):
    """The calling thread (and what it starts) in namespace /run/netns/NAME."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if _libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns")
        try:
            yield
        finally:
            _libc.setns(home, CLONE_NEWNET)
    finally:
        os.close(target)
        os.close(home)


@contextlib.contextmanager
def browser_in(netns):
    """A Chromium page, started inside `netns` so it reaches that
    namespace's loopback."""
    from playwright.sync_api import sync_playwright

    with in_netns(netns):
        pw = sync_playwright().start()
        browser = pw.chromium.launch(executable_path=CHROMIUM,
                                     args=["--no-sandbox", "--disable-gpu"])
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        yield page
    finally:
        browser.close()
        pw.stop()


def stats(page):
    return page.request.get(f"http://127.0.0.1:{PORT}/api/stats").json()


def wait_for(what, check, timeout=10.0):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what} (last: {last!r})")


def shot(page, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, name), full_page=True)


def image_levels(page):
    """Mean grey level and the share of black and of white pixels of the
    picture the page shows, read back through a canvas."""
    return page.evaluate("""() => {
        const img = document.getElementById('image');
        const c = document.createElement('canvas');
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, c.width, c.height).data;
        let sum = 0, black = 0, white = 0;
        const n = d.length / 4;
        for (let i = 0; i < d.length; i += 4) {
            const v = (d[i] + d[i + 1] + d[i + 2]) / 3;
            sum += v; if (v < 8) black++; if (v > 247) white++;
        }
        return { mean: sum / n, black: black / n, white: white / n, width: c.width };
    }""")


class Camera:
    """`linerate camera` in the bench's cam namespace, its status lines
    (one every 3 s, the view's rate window) read as they come."""

    def __init__(self, bench, *args):
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", bench.names["cam"], str(LINERATE), "camera",
             "--bind", bench.addr["cam"], "--fps", str(CAMERA_FPS), "--stats-interval", "3",
             "--width", "640", "--height", "480", *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.rates = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            m = re.search(r"([0-9.]+) frames/s", line)
            if m:
                self.rates.append(float(m.group(1)))

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def assert_near_camera_rate(camera, figure):
    """The view's frames/s is within 10 % of the camera's rate: the rate it
    is set to, or, on a machine too busy for the camera to keep it, the
    rate the camera itself reports sending over its last 3 s."""
    sent = camera.rates[-1] if camera.rates else None
    for rate in (CAMERA_FPS, sent):
        if rate and abs(figure - rate) <= 0.1 * rate:
            return
    pytest.fail(f"the view shows {figure:.1f} frames/s; the camera runs at {CAMERA_FPS} "
                f"and its own last 3-s rate was {sent} frames/s")


class Viewed:
    """`linerate camera` in the bench's cam namespace and `linerate view`
    in its pc namespace, both stopped on exit."""

    def __init__(self, bench, camera_args=(), view_args=()):
        self.bench = bench
        self.camera_args = list(camera_args)
        self.view_args = list(view_args)

    def __enter__(self):
        b = self.bench
        self.camera = Camera(b, *self.camera_args)
        time.sleep(0.3)
        self.view = subprocess.Popen(
            ["ip", "netns", "exec", b.names["pc"], str(LINERATE), "view", b.addr["cam"],
             "--listen", f"127.0.0.1:{PORT}", *self.view_args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc):
        self.view.terminate()
        try:
            self.view.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.view.kill()
        self.camera.stop()
        return False


@pytest.fixture
def bench():
    _require()
    with Bench() as b:
        yield b


def open_page(page):
    wait_for("the page to answer", lambda: _try_goto(page))
    page.wait_for_function("document.getElementById('image').naturalWidth > 0", timeout=10000)


def _try_goto(page):
    try:
        page.goto(f"http://127.0.0.1:{PORT}/")
        return True
    except Exception:
        return False


def test_the_page_shows_a_moving_picture_at_the_cameras_rate(bench):
    with Viewed(bench) as viewed, browser_in(bench.names["pc"]) as page:
        open_page(page)
        first = page.locator("#image").screenshot()
        time.sleep(1.0)
        second = page.locator("#image").screenshot()
        assert first != second, "the picture did not change in a second"
        # The headline rate averages the last 3 s: wait until it covers them.
        s = wait_for("four seconds of history",
                     lambda: (lambda s: s if len(s["history"]) >= 4 else None)(stats(page)))
        assert_near_camera_rate(viewed.camera, s["frames_per_s"])
        # The page polls once a second; its figure must come within 10 % too.
        shown = float(page.locator("#fps").inner_text())
        assert_near_camera_rate(viewed.camera, shown)
        assert s["counters"]["width"] == 640
        assert 0 < s["receive_thread_cpu_pct"] <= 100, s["receive_thread_cpu_pct"]
        metrics = page.request.get(f"http://127.0.0.1:{PORT}/metrics").text()
        assert "# TYPE linerate_frames_per_second gauge" in metrics
        with page.expect_download() as download:
            page.click("#snapshot")
        assert download.value.suggested_filename.endswith(".png")
        with open(download.value.path(), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        time.sleep(1.0)  # a few points on the charts for the screenshot
        shot(page, "view-camera.png")


def test_setting_width_on_the_page_changes_the_frames_and_bounds_errors_show(bench):
    with Viewed(bench), browser_in(bench.names["pc"]) as page:
        open_page(page)
        page.wait_for_selector("#ctl-Width")
        page.fill("#ctl-Width", "320")
        page.click("button[data-set=Width]")
        wait_for("320-pixel frames in /api/stats",
                 lambda: stats(page)["counters"]["width"] == 320)
        page.fill("#ctl-Width", "99999")
        page.click("button[data-set=Width]")
        page.wait_for_function("document.getElementById('error').textContent.includes('out of range')",
                               timeout=5000)
        assert stats(page)["counters"]["width"] == 320
        shot(page, "view-controls-error.png")


def test_a_sixteen_bit_format_is_neither_black_nor_saturated(bench):
    with Viewed(bench, camera_args=["--pixel-format", "Mono16"]), browser_in(bench.names["pc"]) as page:
        open_page(page)
        wait_for("Mono16 frames", lambda: stats(page)["counters"]["pixel_format"] == "Mono16")
        levels = image_levels(page)
        assert 20 < levels["mean"] < 235, levels
        assert levels["black"] < 0.5 and levels["white"] < 0.5, levels
        time.sleep(2)  # a few points on the charts for the screenshot
        shot(page, "view-mono16.png")
        # Full range (the format's 16 bits instead of the picture's own
        # min/max): this pattern spans the whole range, so it too shows
        # neither black nor saturated.
        page.select_option("#contrast", "full")
        seq = page.evaluate("seq")
        page.wait_for_function(f"seq > {seq + 1}", timeout=5000)
        full = image_levels(page)
        assert 20 < full["mean"] < 235 and full["black"] < 0.5 and full["white"] < 0.5, full


def test_fade_recv_view_shows_per_board_rates_that_sum_to_the_total(bench):
    _require()
    name = f"vwf{os.getpid() % 100000}"
    up = subprocess.run([str(LINERATE), "testbed", "up", "--name", name, "--hosts", "feb1,feb2,pc",
                         "--switch", "--json"], capture_output=True, text=True, check=True)
    bed = json.loads(up.stdout)
    try:
        hosts = {h["name"]: h for h in bed["hosts"]}
        iface = {n: h["ifaces"][0]["name"] for n, h in hosts.items()}
        mac = {n: h["ifaces"][0]["mac"] for n, h in hosts.items()}
        febs = [subprocess.Popen([str(LINERATE), "testbed", "exec", "--name", name, "--host", f,
                                  str(LINERATE), "fade", "feb", "--interface", iface[f],
                                  "--duration", "8", "--rate", "100m"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for f in ("feb1", "feb2")]
        recv = subprocess.Popen([str(LINERATE), "testbed", "exec", "--name", name, "--host", "pc",
                                 str(LINERATE), "fade", "recv", "--interface", iface["pc"],
                                 "--feb", mac["feb1"], "--feb", mac["feb2"], "--duration", "8",
                                 "--view", f"127.0.0.1:{PORT}", "--json"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            with browser_in(hosts["pc"]["netns"]) as page:
                wait_for("the page to answer", lambda: _try_goto(page))
                s = wait_for("both boards sending",
                             lambda: (lambda s: s if len(s["boards"]) == 2 and all(b["mbit_per_s"] > 10 for b in s["boards"]) else None)(stats(page)))
                total = sum(b["mbit_per_s"] for b in s["boards"])
                assert abs(total - s["boards_total_mbit_per_s"]) < 1e-6 * max(total, 1)
                assert abs(s["gbit_per_s"] * 1000 - total) <= 0.05 * total, (s["gbit_per_s"], total)
                assert s["jain_fairness"] is not None and 0.5 <= s["jain_fairness"] <= 1.0
                page.wait_for_selector("#boards:not(.hidden)")
                rates = [float(t) for t in page.locator(".board-rate").all_inner_texts()]
                assert len(rates) == 2 and all(r > 0 for r in rates)
                # Retransmissions and ACK latency come from the receive thread.
                s = wait_for("ACK latency figures", lambda: (lambda s: s if all(
                    b["ack_latency_p50_us"] is not None for b in s["boards"]) else None)(stats(page)))
                for b in s["boards"]:
                    assert b["packets_received"] > 0 and b["retransmitted"] >= 0
                    assert 0 < b["ack_latency_p50_us"] <= b["ack_latency_p99_us"], b
                page.wait_for_function(
                    "[...document.querySelectorAll('.board-p99')].every(td => Number(td.textContent) > 0)",
                    timeout=5000)
                time.sleep(1.5)
                shot(page, "view-fade.png")
        finally:
            for p in [recv, *febs]:
                p.terminate()
            for p in [recv, *febs]:
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
    finally:
        subprocess.run([str(LINERATE), "testbed", "down", "--name", name], capture_output=True)


def test_transport_switch_and_stop_start_from_the_page(bench):
    def control(name):
        body = page.request.get(f"http://127.0.0.1:{PORT}/api/controls").json()
        return next(c["value"] for c in body["controls"] if c["name"] == name)

    def frames():
        c = stats(page)["counters"]
        return c["frames_completed"] + c["frames_incomplete"]

    with Viewed(bench), browser_in(bench.names["pc"]) as page:
        open_page(page)
        page.wait_for_selector("#ctl-Transport")
        page.select_option("#ctl-Transport", "tcp")
        wait_for("the tcp transport", lambda: control("Transport") == "tcp")
        before = frames()
        wait_for("frames over tcp", lambda: frames() > before + 10)
        page.click("#stop")
        wait_for("acquisition stopped", lambda: control("Acquisition") == "stopped")
        wait_for("the stats to say stopped", lambda: not stats(page)["counters"]["running"])
        page.click("#start")
        wait_for("acquisition running", lambda: control("Acquisition") == "running")
        before = frames()
        wait_for("frames again", lambda: frames() > before + 10)


def test_grab_view_shows_the_running_grab(bench):
    camera = Camera(bench)
    time.sleep(0.3)
    grab = subprocess.Popen(["ip", "netns", "exec", bench.names["pc"], str(LINERATE), "grab",
                             bench.addr["cam"], "--duration", "8", "--json",
                             "--view", f"127.0.0.1:{PORT}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with browser_in(bench.names["pc"]) as page:
            open_page(page)
            s = wait_for("four seconds of history",
                         lambda: (lambda s: s if len(s["history"]) >= 4 else None)(stats(page)))
            assert_near_camera_rate(camera, s["frames_per_s"])
            assert s["counters"]["width"] == 640 and s["counters"]["pixel_format"] == "Mono8"
            body = page.request.get(f"http://127.0.0.1:{PORT}/api/controls").json()
            assert body["available"] is False, "grab --view has no camera controls"
            # The grab lends its buffers to the page: the picture moves and
            # the snapshot is the lent frame at full resolution.
            first = page.locator("#image").screenshot()
            time.sleep(1.0)
            second = page.locator("#image").screenshot()
            assert first != second, "the picture did not change in a second"
            with page.expect_download() as download:
                page.click("#snapshot")
            with open(download.value.path(), "rb") as f:
                assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        out, err = grab.communicate(timeout=20)
        assert grab.returncode == 0, err
        report = json.loads(out)
        assert report["frames_completed"] > 0
        # Buffers lent to the page came back: every frame arrived whole.
        assert report["frames_incomplete"] == 0, report
    finally:
        grab.kill()
        grab.wait()
        camera.stop()
