"""Snapshot cost through the JS bridge: the one-call snapshot vs walking attributes.

Run: ``.venv/bin/python bench/world_snapshot.py``. Starts an embedded world,
connects a bot through JSPyBridge, spawns 100 zombies around it, then times
the bridge round trip (a JS function returning 1), ``MinecraftLink.snapshot()``
(one call returning one JSON string, parsed in Python), and reading the same
fields attribute by attribute from Python through mineflayer's objects.
"""

from __future__ import annotations

import logging
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import describe
from pepa.link.bridge import shutdown_bridge
from pepa.link.minecraft import LinkSettings, MinecraftLink
from pepa.worldserver.process import EmbeddedWorld, free_port

MOBS = 100


def timed(fn: Callable[[], Any], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def attribute_walk(bot: Any) -> dict[str, Any]:
    """The snapshot's fields read one property at a time (each a bridge round trip)."""
    me = bot.entity.position
    entities = []
    mobs = bot.entities
    for key in mobs:  # iterating a JS object proxy yields its keys
        entity = mobs[key]
        distance = entity.position.distanceTo(me)
        if distance <= 32:
            entities.append((entity.id, entity.name, entity.type, entity.kind, distance))
    return {
        "hp": bot.health,
        "food": bot.food,
        "position": (me.x, me.y, me.z),
        "dimension": bot.game.dimension,
        "timeOfDay": bot.time.timeOfDay,
        "entities": entities,
    }


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    root = Path(tempfile.mkdtemp(prefix="pepa-bench-"))
    world = EmbeddedWorld(root / "world", port=free_port(), control=True).start()
    link = MinecraftLink(
        LinkSettings(host="127.0.0.1", port=world.port, username="bench_bot", server_dir=root),
        on_event=lambda event: None,
        on_bridge_dead=lambda reason: print(f"bridge died: {reason}"),
    )
    try:
        link.start()
        assert link.wait_connected(30), "the bot did not join"
        world.op("spawn_mob", player="bench_bot", name="zombie", count=MOBS, dx=-5, dz=-5)
        deadline = time.monotonic() + 20
        pause = threading.Event()
        while len((link.snapshot() or {}).get("entities", [])) < MOBS:
            assert time.monotonic() < deadline, "the mobs never all arrived"
            pause.wait(0.1)
        seen = len(link.snapshot()["entities"])  # type: ignore[index]
        round_trip = timed(link.ping, 1000)
        snapshot = timed(link.snapshot, 1000)
        bot = link.raw_bot()
        walked = timed(lambda: attribute_walk(bot), 5)
        walked_entities = len(attribute_walk(bot)["entities"])
    finally:
        link.close()
        shutdown_bridge()
        world.stop()
    print(f"entities within 32 blocks: snapshot {seen}, attribute walk {walked_entities}")
    print(f"bridge round trip   {describe(round_trip)}")
    print(f"one-call snapshot   {describe(snapshot)}")
    print(f"attribute walk      {describe(walked)}")
    ratio = statistics.median(walked) / statistics.median(snapshot)
    print(f"attribute walk / one-call snapshot (medians): x{ratio:.0f}")


if __name__ == "__main__":
    main()
