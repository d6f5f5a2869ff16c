"""Probe, in its own process (one JS bridge per process): JSPyBridge, hardened by pepa, under
many threads and with calls that time out.

Prints one JSON line: {"late_timed_out": bool, "wrong": [...], "failed": [...], "calls": int,
"callback": bool, "after_unclaimed_ms": float, "crossing": {...}}: whether the slow call timed
out, the echoes that came back with another value (another thread's), the errors of the calls
that should all have been answered, how long a call took after an answer nobody took, and the
echoes made while JS called Python with request ids the same as theirs (:func:`crossing`).
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from pepa.link.bridge import bridge, shutdown_bridge

THREADS, CALLS = 8, 150
JS = Path(__file__).resolve().parents[1] / "js" / "bridge_stress.js"


def main() -> int:
    js = bridge()
    module = js.require(str(JS))
    echo, later = module.echo, module.later
    outcome: dict[str, Any] = {}
    try:
        try:
            later(800, "late", timeout=0.2)  # its answer comes after its caller gave up
            outcome["late_timed_out"] = False
        except Exception:  # JSPyBridge's timeout is a bare Exception
            outcome["late_timed_out"] = True
        outcome.update(echoes(echo, "", later))
        try:  # a Python function passed to JS: the call that waits for its reference first
            outcome["callback"] = bool(module.withCallback(lambda: None, timeout=5))
        except Exception as exc:  # reported
            outcome["callback"] = repr(exc)[:200]
        outcome["after_unclaimed_ms"] = after_unclaimed(js, module, echo)
        outcome["crossing"] = crossing(js, module, echo)
        sys.stdout.write(orjson.dumps(outcome).decode() + "\n")
    finally:
        shutdown_bridge()
    return 0


def echoes(echo: Any, tag: str, later: Any = None) -> dict[str, Any]:
    """THREADS threads each echo CALLS values at once, with ``later``, every 50th followed by a
    slow call that times out: {"calls": answered, "wrong": [answers not the value sent],
    "failed": [errors]}."""
    outcome: dict[str, Any] = {"calls": 0, "wrong": [], "failed": []}
    lock = threading.Lock()

    def caller(n: int) -> None:
        for i in range(CALLS):
            value = f"{tag}{n}-{i}"
            try:
                got = echo(value, timeout=5)
                if later is not None and i % 50 == 0:  # slow ones, timing out now and then
                    try:
                        later(300, value, timeout=0.1)
                    except Exception:  # expected: it timed out
                        pass
            except Exception as exc:  # reported
                with lock:
                    outcome["failed"].append(repr(exc)[:200])
                continue
            with lock:
                outcome["calls"] += 1
                if got != value:
                    outcome["wrong"].append(repr(got)[:80])

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return outcome


def after_unclaimed(js: Any, module: Any, echo: Any) -> float:
    """ms of a call made after a request whose answer its caller never takes (a thread that
    is slow to wake): JSPyBridge's loop waited up to 5 s for each caller to take its answer,
    holding every answer behind it."""
    executor = js.config.executor
    with executor.pepa_ids:
        executor.i += 1
        request = executor.i
    payload = {"r": request, "action": "get", "ffid": module.ffid, "key": "echo"}
    executor.loop.queue_request(request, payload)  # its event is never waited on
    start = time.perf_counter()
    echo("after", timeout=8)
    return (time.perf_counter() - start) * 1000


PULSES, ROUNDS = 3000, 5


def crossing(js: Any, module: Any, echo: Any) -> dict[str, Any]:
    """:func:`echoes` while JS calls a Python function PULSES times, ROUNDS times. JS numbers
    its requests to Python from 10000 up; Python's own ids get there by themselves after some
    thousands of calls (a fleet worker's, in its first minute), and here each round sets them
    to about where JS's are. A request from JS taken for the answer to Python's request of the
    same id gave that echo JS's arguments (a perception read ``[[12], None]`` for its snapshot
    and crashed); about one round in two showed it."""
    executor = js.config.executor
    heard = threading.Semaphore(0)
    outcome: dict[str, Any] = {"calls": 0, "wrong": [], "failed": [], "heard": 0}
    for round_ in range(ROUNDS):
        with executor.pepa_ids:
            executor.i = 10000 + round_ * PULSES  # JS's count of its requests, give or take
        module.pulse(lambda i: heard.release(), PULSES)
        echoed = echoes(echo, "x")
        outcome["calls"] += echoed["calls"]
        outcome["wrong"] += echoed["wrong"]
        outcome["failed"] += echoed["failed"]
        outcome["heard"] += sum(heard.acquire(timeout=10) for _ in range(PULSES))
    return outcome


if __name__ == "__main__":
    sys.exit(main())
