"""What the bridge tells Python of the entities near, on the real sandbox server.

bot_helper.js (driven by tests/js/helper_bot.js) reports players, hostiles and other
creatures in its snapshots and its ``entities`` events, and leaves things out: an item on
the ground came and went several times a second among bots at work, and each event took a
snapshot at once (docs/world.md, "Creatures only").
"""

from __future__ import annotations

from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.world_harness import HelperBot, give

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]

NAME = "creature_bot"


def told(helper: HelperBot, start: int) -> list[dict[str, Any]]:
    """The entities bot_helper.js's ``entities`` events spawned since ``start``."""
    events = helper.since(start)
    return [s for e in events if e["type"] == "entities" for s in e.get("spawned") or []]


def test_an_item_on_the_ground_is_left_out_and_a_cow_is_told_of(
    sandbox_world: EmbeddedWorld,
) -> None:
    world = sandbox_world
    world.op("spawning", on=False)
    helper = HelperBot(world, NAME)
    try:
        world.op("remove_mobs")  # the animals placed at the first join
        give(world, helper, {"dirt": 4})
        helper.watch()
        mark = helper.mark()
        cow = world.op("spawn_mob", player=NAME, name="cow", dx=3, ai=False)["ids"][0]
        helper.wait_for(lambda e: e["type"] == "seen" and e["entity"]["id"] == cow, 20, mark)
        helper.toss("dirt")
        seen = helper.wait_for(
            lambda e: e["type"] == "seen" and e["entity"]["kind"] == "Drops", 20, mark
        )["entity"]
        # asked after the item reached the client: its answer comes after any event the
        # spawn made (bot_helper.js sends those at the end of the same turn of its loop)
        snapshot = helper.snapshot()
        assert [s["id"] for s in told(helper, mark)] == [cow], seen
        assert [(e["id"], e["name"]) for e in snapshot["entities"]] == [(cow, "cow")]
    finally:
        helper.close()
