"""The night workshop on the real sandbox server (docs/survival.md "Nights").

By night in its shelter (a 1x2 hole roofed over) the bot's own JS module
(tests/js/helper_bot.js drives bot_helper.js and workshop.js) crafts at the
table it carries and smelts in the furnace it carries: each goes into a wall
cell of the sealed pocket dug out for it, and comes back into the bag after;
the bot never leaves the hole, the shelter's walls and roof stand, and no
table or furnace is left behind; a cell under sand is never dug (it would fall
in and open the pocket). One quiet sandbox world for the module.
"""

from __future__ import annotations

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.world_harness import (
    HELPER,
    SIDES,
    HelperBot,
    block,
    closed_in,
    feet,
    give,
    teleport,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(120),
    pytest.mark.xdist_group("nights"),
]


SANDBOX = {"time": 18000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): midnight, the clock stopped, no mobs."""


def shelter_at(
    sandbox: EmbeddedWorld, helper: HelperBot, dx: int, kit: dict[str, int], top: str = "dirt"
) -> tuple:
    """A plain patch (3 dirt over stone, open sky) ``dx`` blocks east of the bot; the bot
    digs in there and roofs itself over; its feet in the hole. ``top``: the patch's top
    layer (the shelter's walls at head height) but for the bot's own column."""
    hx, _, hz = feet(sandbox, HELPER)
    x, y, z = hx + dx, 70, hz
    sandbox.op("fill", x1=x - 3, y1=y - 9, z1=z - 3, x2=x + 3, y2=y - 4, z2=z + 3, block="stone")
    sandbox.op("fill", x1=x - 3, y1=y - 3, z1=z - 3, x2=x + 3, y2=y - 1, z2=z + 3, block="dirt")
    sandbox.op("fill", x1=x - 3, y1=y - 1, z1=z - 3, x2=x + 3, y2=y - 1, z2=z + 3, block=top)
    sandbox.op("fill", x1=x, y1=y - 1, z1=z, x2=x, y2=y - 1, z2=z, block="dirt")
    sandbox.op("fill", x1=x - 3, y1=y, z1=z - 3, x2=x + 3, y2=y + 3, z2=z + 3, block="air")
    teleport(sandbox, HELPER, x + 0.5, y, z + 0.5)
    give(sandbox, helper, kit)
    done = helper.act("shelter")
    assert done["ok"], done
    spot = feet(sandbox, HELPER)
    assert spot == (x, y - 2, z) and closed_in(sandbox, spot)
    return spot


def none_left(sandbox: EmbeddedWorld, spot: tuple, name: str) -> bool:
    x, y, z = spot
    near = [(x + i, y + j, z + k) for i in range(-2, 3) for j in (-1, 0, 1) for k in range(-2, 3)]
    return not any(block(sandbox, *cell) == name for cell in near)


def sealed(sandbox: EmbeddedWorld, spot: tuple) -> bool:
    """The shelter closed in and every cell beside the feet solid again (the wall cell dug
    for the workshop refilled): the pocket is the 1x2 hole it was."""
    x, y, z = spot
    return closed_in(sandbox, spot) and all(
        block(sandbox, x + dx, y, z + dz) not in ("air", "cave_air") for dx, dz in SIDES
    )


def test_by_night_the_bot_crafts_a_stone_pickaxe_at_its_table_in_its_shelter(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    kit = {"dirt": 8, "wooden_pickaxe": 1, "crafting_table": 1, "cobblestone": 3, "stick": 2}
    spot = shelter_at(sandbox, helper, 12, kit)
    done = helper.act("craft", item="stone_pickaxe", times=1, under_cover=True)
    assert done["ok"], done
    held = sandbox.op("inventory", player=HELPER)
    assert held.get("stone_pickaxe") == 1 and held.get("crafting_table") == 1  # table back
    assert "cobblestone" not in held and "stick" not in held
    assert feet(sandbox, HELPER) == spot  # never left the hole: two blocks under the surface
    assert sealed(sandbox, spot)  # the shelter stands, nothing open to the sky
    assert none_left(sandbox, spot, "crafting_table")


def test_by_night_the_bot_smelts_iron_in_its_furnace_in_its_shelter(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    sandbox.op("furnace_scale", factor=10)  # 20 ticks of cooking a second is vanilla
    try:
        kit = {"dirt": 8, "stone_pickaxe": 1, "furnace": 1, "iron_ore": 1, "coal": 1}
        spot = shelter_at(sandbox, helper, -12, kit)
        done = helper.act("smelt", item="iron_ore", count=1, fuel="coal", under_cover=True)
        assert done["ok"], done
        held = sandbox.op("inventory", player=HELPER)
        assert held.get("iron_ingot") == 1 and held.get("furnace") == 1  # the furnace back
        assert feet(sandbox, HELPER) == spot
        assert sealed(sandbox, spot)
        assert none_left(sandbox, spot, "furnace")
    finally:
        sandbox.op("furnace_scale", factor=1)


def test_walled_in_on_the_spot_the_bot_steps_down_into_the_ground_for_its_table(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    # a cave right under the two blocks it would dig: it walls itself in where it stands
    hx, _, hz = feet(sandbox, HELPER)
    x, y, z = hx, 70, hz + 12
    sandbox.op("fill", x1=x - 3, y1=y - 6, z1=z - 3, x2=x + 3, y2=y - 1, z2=z + 3, block="dirt")
    sandbox.op("fill", x1=x - 3, y1=y, z1=z - 3, x2=x + 3, y2=y + 3, z2=z + 3, block="air")
    sandbox.op("fill", x1=x, y1=y - 3, z1=z, x2=x, y2=y - 3, z2=z, block="air")
    teleport(sandbox, HELPER, x + 0.5, y, z + 0.5)
    kit = {"dirt": 16, "crafting_table": 1, "cobblestone": 3, "stick": 2, "wooden_pickaxe": 1}
    give(sandbox, helper, kit)
    assert helper.act("shelter")["ok"]
    assert feet(sandbox, HELPER) == (x, y, z) and closed_in(sandbox, (x, y, z))
    done = helper.act("craft", item="stone_pickaxe", times=1, under_cover=True)
    assert done["ok"], done
    held = sandbox.op("inventory", player=HELPER)
    assert held.get("stone_pickaxe") == 1 and held.get("crafting_table") == 1
    spot = feet(sandbox, HELPER)
    assert spot == (x, y - 1, z)  # one block down, still on the cave's roof
    assert block(sandbox, x, y - 3, z) == "air" and block(sandbox, x, y - 2, z) == "dirt"
    beside = [block(sandbox, x + dx, y - 1, z + dz) for dx, dz in SIDES]
    assert closed_in(sandbox, (x, y, z)) and not set(beside) & {"air", "cave_air"}  # sealed
    assert none_left(sandbox, spot, "crafting_table")


def test_under_sand_the_bot_digs_its_tables_cell_a_block_lower(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    """Sand at head height round the shelter: a wall cell beside the feet dug for the table
    would let the sand over it fall in, a hole from the pocket to the open air. The bot
    steps a block down and digs the table's cell there, under dirt."""
    kit = {"dirt": 8, "wooden_pickaxe": 1, "crafting_table": 1, "cobblestone": 3, "stick": 2}
    x, y, z = shelter_at(sandbox, helper, -24, kit, top="sand")
    done = helper.act("craft", item="stone_pickaxe", times=1, under_cover=True)
    assert done["ok"], (done.get("error"), done)
    assert sandbox.op("inventory", player=HELPER).get("crafting_table") == 1  # the table back
    assert feet(sandbox, HELPER) == (x, y - 1, z)  # a block lower
    assert all(block(sandbox, x + dx, y + 1, z + dz) == "sand" for dx, dz in SIDES)  # none fell
    walls = [(x + dx, y + dy, z + dz) for dx, dz in SIDES for dy in (-1, 0)]
    assert all(block(sandbox, *cell) not in ("air", "cave_air") for cell in walls)
    assert block(sandbox, x, y + 2, z) not in ("air", "cave_air")  # the roof
    assert none_left(sandbox, (x, y - 1, z), "crafting_table")


def test_mining_under_cover_leaves_a_block_under_sand_alone(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    """Sand at head height round the shelter, stone under its floor: the dirt beside the feet
    lies under that sand (dug, the sand would fall in and leave a way to the open air). The
    bot digs down through the stone instead and takes its dirt a block lower."""
    x, y, z = shelter_at(sandbox, helper, 24, {"dirt": 8, "stone_pickaxe": 1}, top="sand")
    sandbox.op("fill", x1=x, y1=y - 1, z1=z, x2=x, y2=y - 1, z2=z, block="stone")
    helper.sees([(x, y - 1, z)], "stone")
    held = int(sandbox.op("inventory", player=HELPER).get("dirt", 0))
    done = helper.act(
        "gather", names=["dirt"], count=held + 2, radius=6, drops=["dirt"], under_cover=True
    )
    assert done["ok"], done
    assert feet(sandbox, HELPER)[1] < y  # down through the stone
    assert all(block(sandbox, x + dx, y + 1, z + dz) == "sand" for dx, dz in SIDES)  # none fell
    assert all(block(sandbox, x + dx, y, z + dz) not in ("air", "cave_air") for dx, dz in SIDES)
