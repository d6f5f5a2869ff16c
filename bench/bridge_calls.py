"""Calls into JS from many Python threads at once, beside threads busy in Python.

Run: ``.venv/bin/python bench/bridge_calls.py [--threads 16] [--calls 300] [--busy 2]``.
One JS bridge (pepa's, hardened: pepa/link/jspy.py); ``--threads`` threads each make
``--calls`` calls of an echo function (a round trip: Python, the bridge's pipe, Node's loop,
back), while ``--busy`` threads keep computing in Python (a fleet worker's actors: the GIL is
rarely free), with the workers' GIL switch interval (``pepa.daemon.worker.SWITCH_INTERVAL``).
Prints the round trip's median, p90, p99 and max, and the calls per second.
A fleet worker is eight bots' actor trees (some 60 threads) around one bridge: every snapshot,
swing and stop of every bot is such a call.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pepa.daemon.worker import SWITCH_INTERVAL
from pepa.link.bridge import bridge, shutdown_bridge

JS = Path(__file__).resolve().parent.parent / "tests" / "js" / "bridge_stress.js"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--busy", type=int, default=2)
    args = parser.parse_args()
    sys.setswitchinterval(SWITCH_INTERVAL)
    js = bridge()
    echo = js.require(str(JS)).echo
    stop = threading.Event()

    def busy() -> None:
        n = 0
        while not stop.is_set():
            n = (n * 31 + 7) % 1_000_003  # pure Python: holds the GIL but for the switches

    samples: list[float] = []
    lock = threading.Lock()

    def caller(k: int) -> None:
        mine = []
        for i in range(args.calls):
            t = time.perf_counter()
            echo(f"{k}-{i}", timeout=10)
            mine.append((time.perf_counter() - t) * 1000)
        with lock:
            samples.extend(mine)

    burners = [threading.Thread(target=busy, daemon=True) for _ in range(args.busy)]
    for thread in burners:
        thread.start()
    callers = [threading.Thread(target=caller, args=(k,)) for k in range(args.threads)]
    start = time.perf_counter()
    for thread in callers:
        thread.start()
    for thread in callers:
        thread.join()
    seconds = time.perf_counter() - start
    stop.set()
    samples.sort()
    q = statistics.quantiles(samples, n=100)
    print(f"{args.threads} threads x {args.calls} calls, {args.busy} busy: round trip median "
          f"{statistics.median(samples):.2f} ms  p90 {q[89]:.2f} ms  p99 {q[98]:.2f} ms  "
          f"max {samples[-1]:.1f} ms; {len(samples) / seconds:.0f} calls/s")  # fmt: skip
    shutdown_bridge()


if __name__ == "__main__":
    main()
