"""The `python` bench scenario's receiver: the linerate Python package
grabbing from a camera the way a user's loop does, for a fixed time, then
printing the stream's final report (the same fields as `linerate grab
--json`) as one JSON line.

argv: MODE CAMERA SECONDS FPS WIDTH HEIGHT PACKET_SIZE PACKET_DELAY_NS CPU
MODE "view" touches one pixel of each frame's zero-copy array; "copy"
copies each frame out (what a copying binding pays for every frame).
"""
import json
import sys
import time

import linerate

mode, camera = sys.argv[1], sys.argv[2]
seconds, fps = float(sys.argv[3]), float(sys.argv[4])
width, height, packet_size, delay_ns, cpu = (int(a) for a in sys.argv[5:10])

with linerate.Camera.open(camera) as cam:
    cam["Width"] = width
    cam["Height"] = height
    cam["AcquisitionFrameRate"] = fps
    with cam.stream(
        buffers=16, cpu=cpu, packet_size=packet_size, packet_delay_ns=delay_ns or None
    ) as stream:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            frame = stream.next(timeout=1.0)
            if frame is None:
                break
            if mode == "copy":
                frame.array.copy()
            else:
                frame.array[0, 0]
            del frame
        print(json.dumps(stream.close()), flush=True)
