"""Diamonds from an iron kit: the deep miner in the vanilla world, from the surface at spawn.

Run: ``.venv/bin/python bench/deep_mine.py [--seeds 20261130,777,31] [--minutes 10]``.

Each run starts a fresh vanilla world of the seed (real time: a 20-minute day, the clock at
morning), and ``pepa start`` (learning off) with a plan of two milestones, ``3 diamond
(gather.diamond)`` then ``1 diamond_pickaxe (craft.diamond_pickaxe)``, and the kit the default
plan has made by then: an iron pickaxe and sword, 16 torches, a water bucket and an empty
one, 16 bread, 32 cobblestone, sticks and a crafting table. It measures, for at most
``--minutes`` real minutes: the real minutes to the first diamond and to the diamond pickaxe,
diamonds held at the end, deaths and their causes, the deep miner's failed runs by reason
(a run that gets its diamonds ends the plan's milestone), and the watchdog's stuck events.
Rows go to ``bench/results/deep_mine.jsonl``.

What it shows is the miner's part of the road past iron on vanilla terrain, apart from
the rest of the tree (``bench/gauntlet.py`` measures the whole climb).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.gauntlet import BOT, RESULTS, _alive, _death_cause
from pepa.ipc.client import IpcClient
from pepa.ipc.protocol import Pause, Resume
from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.daemon_harness import Daemon

PLAN = """# Plan

Goal: a diamond pickaxe

- [ ] 3 diamond (gather.diamond)
- [ ] 1 diamond_pickaxe (craft.diamond_pickaxe)
"""
KIT = {
    "iron_pickaxe": 1,
    "iron_sword": 1,
    "torch": 16,
    "water_bucket": 1,
    "bucket": 1,
    "bread": 16,
    "cobblestone": 32,
    "stick": 4,
    "crafting_table": 1,
}


def run(seed: int, minutes: float) -> dict[str, Any]:
    """One seed's run; its row."""
    root = Path(tempfile.mkdtemp(prefix="pepa-deepmine-", dir="/tmp"))
    port = free_port()
    server = root / "state" / f"127.0.0.1_{port}"
    server.mkdir(parents=True, mode=0o700)
    for name, text in (("plan.md", PLAN), ("goal.md", "a diamond pickaxe\n")):
        (server / name).write_text(text)
        (server / name).chmod(0o600)
    world = EmbeddedWorld(
        root / "world", port=port, control=True, sandbox=True, seed=seed, profile="vanilla"
    ).start()
    daemon = Daemon(root, host="127.0.0.1", port=world.port, curriculum=True,
                    env={"PEPA_LEARNING": "0", "PEPA_REFLECT_EVERY": "0"})  # fmt: skip
    first_diamond = pickaxe = None
    lowest = 256
    try:
        daemon.ready(timeout=90)
        with IpcClient.connect(daemon.socket) as control:
            control.send(Pause())  # nothing starts before the kit is in the bag
            daemon.in_world(timeout=90)
            world.op("set_time", time=1000)
            for item, count in KIT.items():
                world.op("give", player=BOT, item=item, count=count)
            _held(world, KIT)
            control.send(Resume())
        started = time.monotonic()
        pause = threading.Event()
        while time.monotonic() - started < minutes * 60 and pickaxe is None:
            held = world.op("inventory", player=BOT) if _alive(world) else {}
            elapsed = round((time.monotonic() - started) / 60, 2)
            if first_diamond is None and int(held.get("diamond", 0)) > 0:
                first_diamond = elapsed
            if int(held.get("diamond_pickaxe", 0)) > 0:
                pickaxe = elapsed
            where = next((p["position"] for p in world.op("players") if p["username"] == BOT), None)
            if where:
                lowest = min(lowest, int(where["y"]))
            print(f"\r[{seed}] {elapsed:5.2f} min  diamonds {held.get('diamond', 0)}  at {where}"
                  .ljust(120), end="", flush=True)  # fmt: skip
            pause.wait(2.0)
        end = world.op("inventory", player=BOT) if _alive(world) else {}
        deaths = [_death_cause(d) for d in world.op("life_stats")["deaths"] if d["player"] == BOT]
    finally:
        print()
        daemon.close()
        world.stop()
    (root / "daemon.log").write_text("\n".join(daemon.lines) + "\n")
    runs = Counter(_why(line) for line in daemon.lines if "gather.diamond failed: " in line)
    stuck = sum("watchdog: stuck" in line for line in daemon.lines)
    return {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "seed": seed,
        "minutes": minutes,
        "first_diamond_min": first_diamond,
        "diamond_pickaxe_min": pickaxe,
        "diamonds_held_at_end": int(end.get("diamond", 0)),
        "lowest_y": lowest,
        "deaths": len(deaths),
        "deaths_by_cause": "; ".join(f"{n} {c}" for c, n in Counter(deaths).most_common()),
        "mine_failures": "; ".join(f"{n} {why}" for why, n in runs.most_common()),
        "stuck_events": stuck,
        "log": str(root / "daemon.log"),
    }


def _held(world: EmbeddedWorld, kit: dict[str, int]) -> None:
    """Wait (30 s at most) until the server shows the kit in the bot's inventory."""
    pause = threading.Event()
    for _ in range(300):
        held = world.op("inventory", player=BOT)
        if all(int(held.get(item, 0)) >= n for item, n in kit.items()):
            return
        pause.wait(0.1)
    raise RuntimeError(f"the kit never reached {BOT}")


def _why(line: str) -> str:
    """A failed run's reason, without its numbers (``retreated: health``, ``walled in``)."""
    reason = line.split("gather.diamond failed: ", 1)[1]
    return " ".join(re.sub(r"[\d(),/.-]+", " ", reason).split(" at ")[0].split())[:60] or "failed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="20261130,777,31", help="world seeds, comma-separated")
    parser.add_argument("--minutes", type=float, default=10.0, help="real minutes per seed")
    args = parser.parse_args()
    rows = [run(int(seed), args.minutes) for seed in args.seeds.split(",") if seed.strip()]
    RESULTS.mkdir(exist_ok=True)
    with (RESULTS / "deep_mine.jsonl").open("a") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    for row in rows:
        print(json.dumps(row))
    reached = sum(row["diamond_pickaxe_min"] is not None for row in rows)
    print(f"diamond pickaxe on {reached}/{len(rows)} seeds within {args.minutes:g} minutes; "
          f"deaths {sum(row['deaths'] for row in rows)}")  # fmt: skip


if __name__ == "__main__":
    main()
