"""Ask round trip through a stable handle, idle and beside a CPU-burning sibling actor.

Run: ``.venv/bin/python bench/ask_roundtrip.py``. Compares the GIL switch
interval Python ships with (5 ms) and shorter ones (the worker uses 0.25 ms). Asks are spaced
1 ms apart, as events arrive in the bot, so a burning sibling holds the GIL
when each ask starts (back-to-back asks would keep the GIL between the two
talking threads and hide the cost).
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import Burn, Get, close, describe, make_tree

ROUNDS = 2000
INTERVALS = (0.005, 0.001, 0.0005, 0.00025)
"""GIL switch intervals compared: Python's default, then shorter ones."""
GAP = 0.001
"""Seconds between asks: the asker sleeps, so a burning sibling holds the GIL when an ask comes."""


def measure(burn: bool, interval: float) -> list[float]:
    sys.setswitchinterval(interval)
    runtime = make_tree(["target", "burner"], heartbeat_interval=60.0)
    target = runtime.registry.handle("target")
    stop = threading.Event()
    if burn:
        runtime.registry.handle("burner").tell(Burn(stop=stop))
    try:
        for _ in range(200):
            target.ask(Get())
        samples = []
        pause = threading.Event()
        for _ in range(ROUNDS):
            pause.wait(GAP)
            started = time.perf_counter()
            target.ask(Get())
            samples.append((time.perf_counter() - started) * 1000)
        return samples
    finally:
        stop.set()
        close(runtime)


def main() -> None:
    results = {}
    for interval in INTERVALS:
        for burn in (False, True):
            sibling = "sibling burns CPU" if burn else "idle sibling     "
            label = f"switchinterval {interval * 1000:5.2f} ms, {sibling}"
            results[(interval, burn)] = measure(burn, interval)
            print(f"{label}  {describe(results[(interval, burn)])}")
    sys.setswitchinterval(0.005)
    p99 = {key: sorted(v)[int(len(v) * 0.99)] for key, v in results.items()}
    for interval in INTERVALS:
        print(
            f"p99 with a burning sibling / idle at {interval * 1000:5.2f} ms: "
            f"x{p99[(interval, True)] / p99[(interval, False)]:.1f}"
        )


if __name__ == "__main__":
    main()
