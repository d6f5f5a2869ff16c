"""The Node processes' event-loop stalls during a benchmark (``bench/fleet.py --stalls``).

:func:`enable` preloads ``loop_stalls.js`` into every Node process started from then on (the
world, the bridges); :func:`report` reads what they wrote and says, for the reaction round,
how often the bridges' and the world's loops stalled and whether they were running or waiting
for a core meanwhile, and for each slow reaction, whether the bot's own bridge or the world
was waiting then, and what the machine's cores were doing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

PROBE = Path(__file__).resolve().with_name("loop_stalls.js")
SLOW_MS = 50.0


def enable(folder: Path) -> None:
    """Every Node process started from now on by this process or its children records its
    stalls in ``folder`` (one file a process)."""
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["BENCH_LOOP_STALLS"] = str(folder)
    options = os.environ.get("NODE_OPTIONS", "")
    os.environ["NODE_OPTIONS"] = f"{options} --require {PROBE}".strip()


@dataclass
class Loop:
    """One Node process's records."""

    pid: int
    ppid: int
    argv: list[str]
    stalls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def bridge(self) -> bool:
        return any(a.endswith("bridge.js") for a in self.argv)

    def within(self, start_ms: float, end_ms: float) -> list[dict[str, Any]]:
        """The stalls overlapping ``start_ms`` .. ``end_ms`` (epoch ms)."""
        return [s for s in self.stalls if s["end"] >= start_ms and s["end"] - s["gap"] <= end_ms]


def load(folder: Path) -> dict[int, Loop]:
    loops: dict[int, Loop] = {}
    for path in folder.glob("*.jsonl"):
        rows = []
        for line in path.read_bytes().splitlines():
            with contextlib.suppress(orjson.JSONDecodeError):  # a line cut by a kill
                rows.append(orjson.loads(line))
        if not rows or "pid" not in rows[0]:
            continue
        head = rows[0]
        loop = Loop(int(head["pid"]), int(head["ppid"]), list(head["argv"]))
        loop.stalls = [r for r in rows[1:] if "gap" in r]
        loops[loop.pid] = loop
    return loops


def _summary(name: str, loops: Iterable[Loop], start_ms: float, end_ms: float) -> str:
    stalls = [s for loop in loops for s in loop.within(start_ms, end_ms)]
    slow = [s for s in stalls if s["gap"] > SLOW_MS]
    if not stalls:
        return f"{name} none"
    seconds = {k: sum(s[k] for s in stalls) / 1000 for k in ("wait", "cpu", "gap")}
    return (
        f"{name} {len(slow)} over {SLOW_MS:.0f} ms (longest {max(s['gap'] for s in stalls)} ms), "
        f"off the CPU {seconds['wait']:.1f} s and running {seconds['cpu']:.1f} s "
        f"of {seconds['gap']:.1f} s stalled"
    )


def _waited(loop: Loop | None, start_ms: float, end_ms: float) -> str:
    if loop is None:
        return "?"
    return f"{sum(s['wait'] for s in loop.within(start_ms, end_ms))} ms"


def report(
    folder: Path,
    world_pid: int | None,
    owners: dict[str, set[int]],
    samples: list[tuple[str, float, float]],
) -> list[str]:
    """Lines on the reaction round: ``owners`` maps a bot to the pids that may have started
    its bridge (its worker); ``samples`` are (bot, spawn time in epoch s, reaction ms)."""
    loops = load(folder)
    if not samples or not loops:
        return ["  stalls: nothing recorded"]
    start_ms = min(t for _, t, _ in samples) * 1000 - 1000
    end_ms = max(t * 1000 + ms for _, t, ms in samples)
    world = loops.get(world_pid) if world_pid is not None else None
    parents = set().union(*owners.values())
    mine = [loop for loop in loops.values() if loop.bridge and loop.ppid in parents]
    lines = [
        "  stalls in the reaction round: " + _summary("bridges", mine, start_ms, end_ms) + "; "
        + _summary("world", [world] if world else [], start_ms, end_ms)
    ]  # fmt: skip
    for bot, spawned, ms in samples:
        if ms <= SLOW_MS:
            continue
        a, b = spawned * 1000, spawned * 1000 + ms
        bridge = next((x for x in mine if x.ppid in owners.get(bot, set())), None)
        seen_by = world or bridge
        cores = seen_by.within(a, b) if seen_by else []
        busy = {k: sum(s[k] for s in cores) for k in ("user", "nice", "sys", "soft", "idle")}
        spent = sum(busy.values())
        split = ", ".join(f"{k} {100 * v / spent:.0f}%" for k, v in busy.items()) if spent else "-"
        lines.append(
            f"    {bot} {ms:.0f} ms: off the CPU meanwhile its bridge {_waited(bridge, a, b)}, "
            f"the world {_waited(world, a, b)}; the cores (user: nice 0, nice: above) {split}"
        )  # fmt: skip
    return lines
