"""Reads a topic linerate forwarded to with third-party code only
(confluent-kafka, and ESS's ess-streaming-data-types decoder) and prints
one JSON line per ad00 message: source, id, timestamp, dimensions, the
block_id attribute and whether the frame's LRTP stamp and CRC hold.

    python kafka_decode.py BOOTSTRAP TOPIC EXPECTED
    python kafka_decode.py BOOTSTRAP TOPIC --create PARTITIONS
"""

import json
import sys
import zlib

from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic
from streaming_data_types.area_detector_ad00 import deserialise_ad00


def create(bootstrap, topic, partitions):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, num_partitions=partitions)])
    for f in futures.values():
        f.result(timeout=60)


def main():
    if sys.argv[3] == "--create":
        create(sys.argv[1], sys.argv[2], int(sys.argv[4]))
        return
    bootstrap, topic, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"ess-decoder-{topic}",
            "auto.offset.reset": "earliest",
            "fetch.max.bytes": 64 << 20,
            "max.partition.fetch.bytes": 32 << 20,
        }
    )
    consumer.subscribe([topic])
    seen = 0
    idle = 0
    while seen < expected and idle < 100:
        msg = consumer.poll(0.2)
        if msg is None:
            idle += 1
            continue
        if msg.error():
            continue
        idle = 0
        a = deserialise_ad00(msg.value())
        raw = a.data.tobytes()
        stamp_ok = raw[:4] == b"LRTP" and int.from_bytes(raw[12:16], "big") == (
            zlib.crc32(raw[16:]) & 0xFFFFFFFF
        )
        attrs = {x.name: x.data for x in a.attributes}
        print(
            json.dumps(
                {
                    "source": a.source_name,
                    "id": a.unique_id,
                    "timestamp_ns": a.timestamp_ns,
                    "dimensions": [int(d) for d in a.dimensions],
                    "shape": list(a.data.shape),
                    "block_id": int(attrs.get("block_id", -1)),
                    "complete": int(attrs.get("complete", -1)),
                    "stamp_ok": stamp_ok,
                }
            )
        )
        seen += 1
    consumer.close()


if __name__ == "__main__":
    main()
