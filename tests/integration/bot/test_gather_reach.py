"""A gather's reach and its given-up searches, on the real sandbox server (docs/world.md).

bot_helper.js (driven by tests/js/helper_bot.js) walks to a cell from which its eyes are
within 4.5 blocks of a block's centre and see one of its faces (reach.js), the way the
server and mineflayer measure a dig. mineflayer-pathfinder's GoalLookAtBlock measured from
the floor to a point above the block: a log 3 or more blocks up a trunk was out of reach
from the ground, and each one cost a search to its time limit before it was skipped. A
block that turns into something else during the search (another player dug it) ends the
search at once.
"""

from __future__ import annotations

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.waiting import eventually
from tests.world_harness import HELPER, HelperBot, block, feet, give, teleport

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(150),
    pytest.mark.xdist_group("gather_reach"),
]

CLEAR = 8
"""Blocks cleared round the bot each way: no tree of the world's within a gather's radius."""


SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""


def clearing(sandbox: EmbeddedWorld, helper: HelperBot) -> tuple[int, int, int]:
    """A flat dirt floor with open air above it round the bot, which stands at its middle."""
    x, y, z = feet(sandbox, HELPER)
    c = CLEAR
    sandbox.op("fill", x1=x - c, y1=y - 3, z1=z - c, x2=x + c, y2=y - 1, z2=z + c, block="dirt")
    sandbox.op("fill", x1=x - c, y1=y, z1=z - c, x2=x + c, y2=y + 9, z2=z + c, block="air")
    teleport(sandbox, HELPER, x + 0.5, y, z + 0.5)
    give(sandbox, helper, {"wooden_axe": 1})  # nothing to stand on or to tower with
    return x, y, z


def test_a_six_log_trunk_is_chopped_whole_from_the_ground(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, y, z = clearing(sandbox, helper)
    sandbox.op("fill", x1=x + 2, y1=y, z1=z, x2=x + 2, y2=y + 5, z2=z, block="oak_log")
    helper.sees([(x + 2, y + dy, z) for dy in range(6)], "oak_log")

    done = helper.act(
        "gather", names=["oak_log"], count=6, radius=6.0, drops=["oak_log"], timeout=120
    )

    assert done["ok"], f"the gather failed: {done}"
    assert [block(sandbox, x + 2, y + dy, z) for dy in range(6)] == ["air"] * 6
    assert sandbox.op("inventory", player=HELPER).get("oak_log") == 6
    assert feet(sandbox, HELPER)[1] == y  # from the ground: nothing to climb on


def test_a_block_dug_by_someone_else_ends_the_search_for_it(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, y, z = clearing(sandbox, helper)
    # the nearest log hangs out of reach (its centre 4.9 blocks from the eyes below it) ...
    sandbox.op("set_block", x=x + 1, y=y + 6, z=z, block="oak_log")
    # ... and one farther away stands on the ground
    sandbox.op("set_block", x=x - 7, y=y, z=z, block="oak_log")
    helper.sees([(x + 1, y + 6, z), (x - 7, y, z)], "oak_log")
    helper.think(600_000)  # the search for the first would go on for 10 minutes
    try:
        started = helper.start(
            "gather", names=["oak_log"], count=1, radius=float(CLEAR), drops=["oak_log"]
        )
        hanging = {"x": x + 1, "y": y + 6, "z": z}
        eventually(
            lambda: (helper.goal() or {}).get("pos") == hanging, 30, "a search for the hanging log"
        )
        sandbox.op("set_block", x=x + 1, y=y + 6, z=z, block="air")  # dug by someone else

        done = helper.finished(started, 60)  # a hang (the search to its limit) fails here
    finally:
        helper.think(5000)  # bot_helper.js's limit for a bot alone

    assert done["ok"], f"the gather failed: {done}"
    assert block(sandbox, x - 7, y, z) == "air"
    assert sandbox.op("inventory", player=HELPER).get("oak_log") == 1
