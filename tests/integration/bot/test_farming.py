"""The bot's farming on the real sandbox server (``pepa/link/js/actions/farming.js``,
docs/survival.md "Farming"), driven as Python drives it (``tests/js/helper_bot.js``): from a hoe,
seeds and a water bucket it makes a field round the water it pours, the wheat ripens (at a forced
scale), it harvests, picks the wheat up and replants without trampling a block, and bakes bread
with the ``craft`` action; with no water and no water bucket it says so and tills nothing."""

from __future__ import annotations

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests import stages
from tests.waiting import eventually
from tests.world_harness import HelperBot, block, give

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(300),
    pytest.mark.xdist_group("farming"),
]

SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""
HELPER = "farmer_bot"
SKY = 160
FAST = 4000
"""Random ticks this many times faster (``crops_scale``): wheat ripens in seconds."""
SIZE = 3
CELLS = SIZE * SIZE - 1
"""A field's cells round its water."""


def stage(world: EmbeddedWorld, helper: HelperBot, n: int) -> tuple[int, int]:
    """A grass floor on dirt at SKY - 1 round (x, z), the place of test ``n``, its air cleared
    above; the bot standing on it 5 blocks from its middle, seeing it."""
    x, z = 60 * n - 300, 420
    stages.floor(world, helper, x, z, sky=SKY, half=7, top="grass_block", under="dirt",
                 stand=(5, 0))  # fmt: skip
    helper.sees([(x - 7, SKY - 1, z - 7)], "grass_block")
    return x, z


def field(x: int, z: int) -> list[tuple[int, int]]:
    r = SIZE // 2
    return [(x + dx, z + dz) for dx in range(-r, r + 1) for dz in range(-r, r + 1) if dx or dz]


def ages(world: EmbeddedWorld, x: int, z: int) -> list[int | None]:
    return [world.op("crop_at", x=cx, y=SKY, z=cz)["age"] for cx, cz in field(x, z)]


def test_the_bot_makes_a_field_harvests_replants_and_bakes_bread(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 0)
    give(sandbox, helper, {"wooden_hoe": 1, "wheat_seeds": CELLS, "water_bucket": 1,
                           "crafting_table": 1})  # fmt: skip

    made = helper.act("farm", x=x, z=z, size=SIZE, seeds="wheat_seeds", timeout=240)

    # planted, nothing ripe: time must pass (the curriculum rests the milestone meanwhile)
    waiting = f"waiting: {CELLS} crops growing, none ripe"
    assert not made["ok"] and made["error"] == waiting, repr(made)
    assert (made["tilled"], made["planted"], made["harvested"]) == (CELLS, CELLS, 0), repr(made)
    assert (made["growing"], made["ripe_left"], made["skipped"]) == (CELLS, 0, 0), repr(made)
    assert made["centre"] == {"x": x, "y": SKY - 1, "z": z}
    assert block(sandbox, x, SKY - 1, z) == "water"
    assert all(block(sandbox, cx, SKY - 1, cz) == "farmland" for cx, cz in field(x, z))
    assert ages(sandbox, x, z) == [0] * CELLS

    sandbox.op("crops_scale", factor=FAST)
    try:
        eventually(lambda: ages(sandbox, x, z) == [7] * CELLS, 120, "the field ripe")
    finally:
        sandbox.op("crops_scale", factor=1)
    tended = helper.act("farm", x=x, z=z, size=SIZE, seeds="wheat_seeds", timeout=240)

    assert tended["ok"], repr(tended)
    done = (tended["tilled"], tended["harvested"], tended["planted"])
    assert done == (0, CELLS, CELLS), repr(tended)
    left = (tended["growing"], tended["ripe_left"], tended["skipped"])
    assert left == (CELLS, 0, 0), repr(tended)
    # trampled none
    assert all(block(sandbox, cx, SKY - 1, cz) == "farmland" for cx, cz in field(x, z))
    held = sandbox.op("inventory", player=HELPER)
    assert held["wheat"] >= CELLS - 2, held  # a ripe wheat drops one: most of them picked up

    off = helper.act("goto", x=x + 5.5, y=SKY, z=z + 0.5)  # the table goes down on free ground
    assert off["ok"], repr(off)
    baked = helper.act("craft", item="bread", times=1, timeout=60)

    assert baked["ok"], repr(baked)
    assert sandbox.op("inventory", player=HELPER)["bread"] == 1


def test_with_no_water_and_no_water_bucket_the_bot_says_so_and_tills_nothing(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 1)
    give(sandbox, helper, {"wooden_hoe": 1, "wheat_seeds": 8})

    done = helper.act("farm", x=x, z=z, size=3, seeds="wheat_seeds")

    assert not done["ok"]
    assert done["error"] == f"no water at {x},{SKY - 1},{z} and no water bucket held", done
    assert done["tilled"] == 0
    assert all(block(sandbox, cx, SKY - 1, cz) == "grass_block" for cx, cz in field(x, z))


def test_with_no_water_bucket_the_field_goes_round_water_near_by(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 2)
    sandbox.op("set_block", x=x - 4, y=SKY - 1, z=z + 3, block="water")  # a pond's one source
    give(sandbox, helper, {"wooden_hoe": 1, "wheat_seeds": 8})
    helper.sees([(x - 4, SKY - 1, z + 3)], "water")

    done = helper.act("farm", x=x, z=z, size=3, seeds="wheat_seeds", timeout=120)

    assert done["centre"] == {"x": x - 4, "y": SKY - 1, "z": z + 3}, repr(done)
    assert done["tilled"] == 8 and done["planted"] == 8, repr(done)
    assert block(sandbox, x - 4, SKY - 1, z + 3) == "water"  # kept open
