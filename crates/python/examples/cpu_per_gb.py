#!/usr/bin/env python3
"""The Python package's cost against `linerate grab`, side by side in one
run (issue 23's benchmark, as a script until it is a `linerate bench`
scenario).

One emulated camera (`linerate camera`, on CPU 0) in a namespace streams
2048x2048 Mono8 over a veth pair (MTU 9000) to the other namespace, where
each receiver runs in turn on CPU 1, alternating, `--repeats` times:

  grab    `linerate grab --frames N --json`
  python  `for frame in stream.frames(): frame.array[0, 0]` (no copy)
  copy    the same loop calling `frame.array.copy()` (what a copying
          binding pays, as pypylon's `GrabResult.Array` does)

and prints, per receiver, the frames complete, the throughput and the
receiving process's CPU seconds per GB (all its threads; from the report's
`process_cpu_seconds`), with the ratio to `linerate grab`.

Usage (root; after `cargo build --release -p linerate-cli` and the
package built into target/venv, as scripts/test does):

  target/venv/bin/python crates/python/examples/cpu_per_gb.py [--fps 50] [--frames 300] [--repeats 2]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
import netbench  # noqa: E402

LINERATE = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "linerate")
SENDER_CPU, RECEIVER_CPU = "0", "1"

RECEIVER = r"""
import json, sys, linerate
mode, address, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with linerate.Camera.open(address) as cam, cam.stream(buffers=16) as stream:
    for frame in stream.frames(count=count, timeout=3.0):
        if mode == "copy":
            frame.array.copy()
        else:
            frame.array[0, 0]
        del frame
    print(json.dumps(stream.close()))
"""


def run(bench, mode, frames):
    if mode == "grab":
        argv = [LINERATE, "grab", bench.addr["cam"], "--frames", str(frames), "--buffers", "16", "--json"]
    else:
        argv = [sys.executable, "-c", RECEIVER, mode, bench.addr["cam"], str(frames)]
    # `linerate grab` exits 1 when a frame is missing, still printing its report.
    done = subprocess.run(
        ["ip", "netns", "exec", bench.names["pc"], "taskset", "-c", RECEIVER_CPU, *argv],
        capture_output=True, text=True,
    )
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"{mode}: no report (exit {done.returncode}): {done.stderr.strip()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fps", type=float, default=50.0)
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    results = {m: [] for m in ("grab", "python", "copy")}
    with netbench.Bench(mtu=9000) as bench:
        camera = subprocess.Popen(
            ["ip", "netns", "exec", bench.names["cam"], "taskset", "-c", SENDER_CPU, LINERATE,
             "camera", "--bind", bench.addr["cam"], "--stats-interval", "0", "--width", "2048", "--height", "2048",
             "--fps", str(args.fps), "--packet-size", "8000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            time.sleep(1.0)
            for _ in range(args.repeats):
                for mode in results:
                    results[mode].append(run(bench, mode, args.frames))
        finally:
            camera.terminate()
            camera.wait()
    per_gb = {
        m: statistics.median(r["process_cpu_seconds"] / (r["bytes"] / 1e9) for r in runs)
        for m, runs in results.items()
    }
    print(f"2048x2048 Mono8 at {args.fps:g} fps, {args.frames} frames, {args.repeats} alternating runs each (medians)")
    print("| receiver | frames complete | Gbit/s | process CPU s/GB | vs linerate grab |")
    print("|---|---|---|---|---|")
    for m, runs in results.items():
        complete = min(r["frames_completed"] for r in runs)
        gbit = statistics.median(r["gbit_per_s"] or 0.0 for r in runs)
        print(f"| {m} | {complete}/{args.frames} (worst run) | {gbit:.2f} | {per_gb[m]:.3f} | {per_gb[m] / per_gb['grab']:.2f}x |")


if __name__ == "__main__":
    main()
