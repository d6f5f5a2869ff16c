"""A bot's packet reading: minecraft-protocol's streams against frames.js's direct reading.

Run: ``.venv/bin/python bench/packet_read.py [--version 1.16.5] [--packets 20000] [--rounds 9]``.
Runs ``tests/js/frames.js bench``: a child process sends an idle bot's mix of play packets
(other entities' moves, looks, head turns and velocities, now and then a large compressed one),
compressed as a server sends them, in writes of 1 to 6 frames, 2 writes a millisecond, over
loopback to two clients of mineflayer's minecraft-protocol in turn: one on a stream socket
reading through its splitter, decompressor and deserializer streams, one connected by
``directConnect`` (the socket read with ``onread``) with ``readDirect``; the test of the same
name checks both emit the same packets. Prints each client's CPU microseconds per packet (the
median and spread over the rounds) and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.js import run_script


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="1.16.5")
    parser.add_argument("--packets", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    report = run_script("frames.js", "bench", args.version, args.packets, args.rounds, timeout=600)
    print(f"{args.version}: {report['packets']} packets a round, {args.rounds} rounds each")
    medians = {}
    for side in ("streams", "direct"):
        values = report[f"{side}_us"]
        medians[side] = statistics.median(values)
        print(f"{side:8} median {medians[side]:6.2f} us/packet  "
              f"min {min(values):6.2f}  max {max(values):6.2f}")  # fmt: skip
    print(f"ratio: {medians['streams'] / max(medians['direct'], 1e-9):.2f}x at the median")


if __name__ == "__main__":
    main()
