"""Probe, in its own process (one JS bridge per process): does a bot at rest skip its physics,
and still fall when the ground goes and move when a zombie knocks it back?

Prints one JSON line: {"skipped": int, "drop": float, "knocked": float, "hit": bool}: the ticks
skipped while it stood, how far it fell once the blocks under it went, and how far it moved
when the zombie hit it.
"""

from __future__ import annotations

import math
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from pepa.link.bridge import shutdown_bridge
from pepa.link.minecraft import LinkSettings, MinecraftLink
from pepa.worldserver.process import EmbeddedWorld, free_port

SEED = 424242


def wait(check: Callable[[], Any], timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not (result := check()):
        if time.monotonic() > deadline:
            return result
        pause.wait(0.1)
    return result


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="pepa-probe-"))
    world = EmbeddedWorld(
        root / "world", port=free_port(), control=True, sandbox=True, seed=SEED
    ).start()
    world.op("spawning", on=False)
    world.op("remove_mobs")
    world.op("set_time", time=18000, cycle=False)  # midnight: the zombie does not burn
    link = MinecraftLink(
        LinkSettings(host="127.0.0.1", port=world.port, username="rest_bot", server_dir=root),
        on_event=lambda event: None,
        on_bridge_dead=lambda reason: None,
    )
    try:
        link.start()
        assert link.wait_connected(30), "no spawn"
        bot = link.raw_bot()
        counts = bot.physics.pepaResting
        skipped = wait(lambda: counts.skipped >= 20 and counts.skipped, 30) or 0
        rest = link.snapshot()
        assert rest is not None
        world.op("spawn_mob", player="rest_bot", name="zombie", count=1, dx=2, dz=0)
        hit = bool(wait(lambda: (link.snapshot() or {}).get("hp", 20) < rest["hp"], 30))

        def moved() -> float:
            now = link.snapshot()["position"]  # type: ignore[index]
            away = math.hypot(now["x"] - rest["position"]["x"], now["z"] - rest["position"]["z"])
            return away if away >= 0.3 else 0.0

        knocked = wait(moved, 10) or 0.0
        world.op("remove_mobs")
        wait(lambda: counts.skipped > skipped + 20, 30)  # at rest again
        here = link.snapshot()["position"]  # type: ignore[index]
        x, y, z = math.floor(here["x"]), math.floor(here["y"]), math.floor(here["z"])
        world.op("fill", x1=x - 1, y1=y - 3, z1=z - 1, x2=x + 1, y2=y - 1, z2=z + 1, block="air")

        def dropped() -> float:
            now = link.snapshot()["position"]  # type: ignore[index]
            return here["y"] - now["y"] if here["y"] - now["y"] >= 2.5 else 0.0

        drop = wait(dropped, 20) or 0.0
        outcome = {"skipped": int(skipped), "drop": drop, "knocked": knocked, "hit": hit}
        sys.stdout.write(orjson.dumps(outcome).decode() + "\n")
    finally:
        link.close()
        shutdown_bridge()
        world.stop()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
