"""The `python` bench scenario's Harvesters receiver: Harvesters (the
GenTL consumer most Python users know) with linerate.cti grabbing from a
camera for a fixed time, then one JSON line with what arrived.

argv: CTI SECONDS FPS WIDTH HEIGHT PACKET_SIZE PACKET_DELAY_NS
"""
import json
import os
import shutil
import sys
import tempfile
import time

# numpy (which Harvesters imports) starts OpenBLAS threads that spin while
# idle; neither receiver does linear algebra.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from harvesters.core import Harvester  # noqa: E402

cti = sys.argv[1]
seconds, fps = float(sys.argv[2]), float(sys.argv[3])
width, height, packet_size, delay_ns = (int(a) for a in sys.argv[4:8])

with tempfile.TemporaryDirectory() as tmp:
    # GenTL consumers load producers by the .cti name only.
    producer = os.path.join(tmp, "linerate.cti")
    shutil.copy(cti, producer)
    h = Harvester()
    h.add_file(producer)
    h.update()
    if not h.device_info_list:
        sys.exit("Harvesters found no device through linerate.cti")
    ia = h.create(0)
    try:
        nodes = ia.remote_device.node_map
        nodes.Width.value = width
        nodes.Height.value = height
        nodes.AcquisitionFrameRate.value = fps
        nodes.GevSCPSPacketSize.value = packet_size
        if delay_ns:
            # linerate's camera counts SCPD in 1 GHz ticks: nanoseconds.
            nodes.GevSCPD.value = delay_ns
        # Harvesters' own buffer count: the producer's BUF_ANNOUNCE_MIN.
        buffers = ia.num_buffers
        ia.start()
        ids, size = [], 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                with ia.fetch(timeout=1.0) as b:
                    ids.append(b.frame_id)
                    size += b.payload.components[0].data.nbytes
            except Exception as e:  # a timeout: the camera went quiet
                if "timeout" not in type(e).__name__.lower():
                    raise
                break
        ia.stop()
        stream_nodes = ia.data_streams[0].node_map
        incomplete = stream_nodes.StreamIncompleteFrameCount.value
        resent = stream_nodes.LinerateStreamResentPacketCount.value
        # STREAM_INFO_NUM_UNDERRUN: frames dropped for want of a buffer.
        underrun = ia.data_streams[0].module.num_underrun
    finally:
        ia.destroy()
        h.reset()
# Frames finish (and are fetched) out of order when one waits for a resent
# packet: count the ids never fetched between the first and the last, not
# the jumps between neighbours. The newest ids, as many as the producer
# keeps in flight (half the buffers), may still have been waiting for
# resent packets when the loop stopped.
seen = set(ids)
newest = max(ids, default=0)
in_flight = max(2, buffers // 2)
gaps = sum(1 for i in range(min(ids, default=0), newest - in_flight) if i not in seen)
print(json.dumps({
    "frames_delivered": len(ids),
    "frames_incomplete": incomplete,
    "frames_skipped": gaps,
    "frames_underrun": underrun,
    "packets_resent": resent,
    "bytes": size,
}), flush=True)
