"""Crash → served again: time from a crash to the first answered ask through the stable name.

Run: ``.venv/bin/python bench/supervision_restart.py``. Every crash here is the
first of a failure run (``stable_after=0``), i.e. the immediate-restart path.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import Boom, Get, close, describe, make_tree
from pepa.base.errors import ActorCrashed
from pepa.runtime import Backoff

ROUNDS = 1000


def main() -> None:
    logging.disable(logging.CRITICAL)  # a thousand crash tracebacks would dominate the timing
    sys.setswitchinterval(0.00025)
    runtime = make_tree(
        ["victim", "sibling"],
        spec={"backoff": Backoff(stable_after=0.0)},
        max_restarts=ROUNDS * 2,
        period=3600.0,
    )
    victim = runtime.registry.handle("victim")
    samples = []
    retries = 0
    try:
        for _ in range(ROUNDS):
            started = time.perf_counter()
            victim.tell(Boom())
            while True:
                try:
                    victim.ask(Get(), timeout=5)
                    break
                except ActorCrashed:
                    retries += 1  # the ask was queued behind the crash: ask the successor
            samples.append((time.perf_counter() - started) * 1000)
    finally:
        close(runtime)
    print(f"crash -> served again   {describe(samples)}")
    print(f"asks queued behind the crash and retried: {retries}/{ROUNDS}")


if __name__ == "__main__":
    main()
