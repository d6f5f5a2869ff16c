"""Flight from three zombies at 6 HP on open ground: how often the bot lives through it.

Run: ``.venv/bin/python bench/flee.py [--trials 30] [--seconds 20] [--sandbox]``.
One embedded world (flat, open ground; ``--sandbox``: the survival sandbox at
noon with natural spawning off, its zombies finding paths) and one
``pepa start`` daemon with the curriculum off. Each trial puts the bot back at
the world's spawn with 20 HP and a full food bar (a bot with food at 6 or less
cannot sprint: over 30 trials without eating it would starve into another
benchmark), clears the mobs, sets its health to 6 and spawns
three chasing zombies 4 blocks east (1 block apart): it survives the trial if
it is alive ``--seconds`` later (a death is counted from the daemon's log: the
respawn can come before the next poll). Time stands at noon. The flight time
is from the spawn until the bot is first over 20 blocks from every zombie.
Prints the survival rate and the median flight time; a death prints how far the
bot got from where the trial started, and its food then.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pepa.worldserver.process import EmbeddedWorld, free_port

BOT = "pepa_bot"
CLEAR = 20.0
"""Blocks from every zombie that end the flight (the chain's SAFE_DISTANCE)."""


def run_daemon(world: EmbeddedWorld, root: Path) -> subprocess.Popen[str]:
    """``pepa start`` in ``world``, its output in ``root/daemon.log``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
    env["PEPA_CURRICULUM"] = "0"  # a bot that only reacts
    log = (root / "daemon.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pepa", "start", "--state-dir", str(root / "state"),
         "--host", "127.0.0.1", "--port", str(world.port)],
        stdout=log, stderr=subprocess.STDOUT, text=True, env=env, cwd=root,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while "in the world at" not in (root / "daemon.log").read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the daemon never joined the world: see {root / 'daemon.log'}")
        threading.Event().wait(0.2)
    return proc


def bot(world: EmbeddedWorld) -> dict[str, Any] | None:
    return next((p for p in world.op("players") if p["username"] == BOT), None)


def dist(a: dict[str, float], b: dict[str, float]) -> float:
    return math.dist((a["x"], a["y"], a["z"]), (b["x"], b["y"], b["z"]))


def deaths(root: Path) -> int:
    """Deaths the daemon has logged (a death and the respawn can both fall between two polls)."""
    return (root / "daemon.log").read_text().count("died at")


def trial(
    world: EmbeddedWorld, root: Path, home: dict[str, float], seconds: float
) -> tuple[bool, float | None]:
    """(survived, seconds until over CLEAR blocks from every zombie, or None)."""
    pause = threading.Event()
    world.op("remove_mobs")
    deadline = time.monotonic() + 15
    while (me := bot(world)) is None or me["health"] <= 0:  # dead last trial: wait for respawn
        if time.monotonic() > deadline:
            raise RuntimeError("the bot never came back after dying")
        pause.wait(0.2)
    world.op("set_health", player=BOT, hp=20)
    world.op("teleport", player=BOT, **home)
    # the flight of the last trial ends, and the client gets the chunks back: mineflayer
    # runs no physics (the bot cannot move) while the chunk under it is not loaded
    pause.wait(5.0)
    world.op("remove_mobs")
    world.op("set_health", player=BOT, hp=6)
    world.op("set_food", player=BOT, food=20)
    before = deaths(root)
    world.op("spawn_mob", player=BOT, name="zombie", count=3, dx=4, spacing=1, ai=True)
    start = time.monotonic()
    flight: float | None = None
    moved = 0.0
    while time.monotonic() - start < seconds:
        me = bot(world)
        if me is None or me["health"] <= 0 or deaths(root) > before:
            food = me.get("food") if me else None
            print(f"  died {moved:.1f} blocks from the start, food {food}", flush=True)
            return False, flight
        moved = max(moved, dist(me["position"], home))
        herd = [z["position"] for z in world.op("entities", name="zombie")]
        if flight is None and herd and min(dist(me["position"], z) for z in herd) > CLEAR:
            flight = time.monotonic() - start
        pause.wait(0.05)
    return True, flight


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--sandbox", action="store_true", help="the survival sandbox, not flat")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="pepa-bench-", dir="/tmp"))
    world = EmbeddedWorld(
        root / "world", port=free_port(), control=True, sandbox=args.sandbox, seed=20261130
    ).start()
    world.op("set_time", time=6000, cycle=False)  # noon: no night plan, no burning zombies
    if args.sandbox:
        world.op("spawning", on=False)
    proc = run_daemon(world, root)
    results: list[tuple[bool, float | None]] = []
    try:
        me = bot(world)
        assert me is not None
        home = dict(me["position"])
        for number in range(args.trials):
            results.append(trial(world, root, home, args.seconds))
            print(f"trial {number + 1}: {'survived' if results[-1][0] else 'died'}", flush=True)
    finally:
        print(f"daemon log: {root / 'daemon.log'}")
        proc.terminate()
        proc.wait(20)
        world.stop()
    lived = sum(ok for ok, _ in results)
    flights = [f for ok, f in results if f is not None]
    where = "survival sandbox" if args.sandbox else "flat world"
    print(f"\nthree zombies at 6 HP, {where}: survived {lived}/{len(results)} "
          f"({100 * lived / len(results):.0f} %), alive after {args.seconds:g} s")  # fmt: skip
    if flights:
        median = statistics.median(flights)
        print(f"flight beyond {CLEAR:g} blocks of every zombie: median {median:.1f} s", end="")
        print(f" (n={len(flights)})")


if __name__ == "__main__":
    main()
