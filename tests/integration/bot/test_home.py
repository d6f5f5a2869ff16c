"""A home on the real sandbox server: the bot chooses a site (``site``) and builds a blueprint's
cells there (``build``, ``pepa/link/js/build.js``; blueprints: ``pepa/game/blueprints.py``,
docs/blueprints.md). Each test builds on a grass plot of its own high in the sky, with something
on it to clear."""

from __future__ import annotations

from typing import Any

import pytest

from pepa.game import blueprints
from pepa.worldserver.process import EmbeddedWorld
from tests import stages
from tests.world_harness import HelperBot, block, give

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(300),
    pytest.mark.xdist_group("home"),
]

SANDBOX = {"time": 6000, "remove_mobs": True}
"""Noon, the clock stopped, no mobs."""
HELPER = "builder_bot"
SKY = 150


def plot(
    world: EmbeddedWorld, helper: HelperBot, n: int, size: int = 15, middle: bool = False
) -> tuple[int, int]:
    """A grass plot at SKY - 1 round (x, z) on a layer of dirt, the air cleared 5 blocks above
    it (a hut is 4 high), the bot standing at its south-west corner (or its ``middle``) and
    seeing it. Kept small: a busy server filling thousands of blocks at once let the bot's
    keep-alive time out."""
    x, z = 60 * n - 300, -320
    h = size // 2
    stand = (0, 0) if middle else (-h, h)
    stages.floor(world, helper, x, z, sky=SKY, half=h, top="grass_block", under="dirt",
                 clear=5, stand=stand)  # fmt: skip
    return x, z


def build(helper: HelperBot, origin: tuple[int, int, int], bp: blueprints.Blueprint,
          front: str | None = None) -> dict[str, Any]:  # fmt: skip
    cells = [c.as_js() for c in blueprints.cells(bp, front)]
    x, y, z = origin
    return helper.act("build", x=x, y=y, z=z, cells=cells, timeout=240)


def made(world: EmbeddedWorld, origin: tuple[int, int, int], bp: blueprints.Blueprint,
         front: str | None = None) -> list[str]:  # fmt: skip
    """What differs from the blueprint at the site: one line per cell."""
    x, y, z = origin
    wrong = []
    for c in blueprints.cells(bp, front):
        name = block(world, x + c.dx, y + c.dy, z + c.dz)
        kept = c.keep and name not in ("air", "water")
        torch = c.names == ("torch",) and name == "wall_torch"
        if c.names and name not in c.names and not kept and not torch:
            wrong.append(f"{c.dx},{c.dy},{c.dz}: {name}, not {c.names[0]}")
        if not c.names and not c.part and name != "air":
            wrong.append(f"{c.dx},{c.dy},{c.dz}: {name}, not air")
    return wrong


WALLS = blueprints.parse(
    {
        "name": "walls",
        "about": "A 3x3 room, walls two high, a torch inside, an opening to the south.",
        "front": "south",
        "ground": 1,
        "materials": {"wall": ["cobblestone"], "floor": ["dirt", "cobblestone"]},
        "legend": {
            "_": {"role": "floor", "keep": True},
            "#": {"role": "wall"},
            "t": {"item": "torch"},
            ".": {"air": True},
        },
        "layers": [
            ["_____", "_____", "_____", "_____", "_____"],
            ["#####", "#t..#", "#...#", "#...#", "##.##"],
            ["#####", "#...#", "#...#", "#...#", "##.##"],
        ],
    }
)
"""A blueprint of plain blocks only: walls, a floor, a torch (a roof whose middle hangs from its
edge is the hut's)."""
PEN = blueprints.parse(
    {
        "name": "pen",
        "about": "A 3x3 ring of blocks, one high, open to the south.",
        "front": "south",
        "ground": 0,
        "materials": {"wall": ["cobblestone"]},
        "legend": {"#": {"role": "wall"}, ".": {"air": True}},
        "layers": [["###", "#.#", "#.#"]],
    }
)
"""A blueprint small enough to see a turn by: its opening on its front."""


def test_the_bot_builds_walls_clearing_what_stands_in_the_way(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = plot(sandbox, helper, 0)
    origin = (x - 2, SKY, z - 2)
    # a hole in the floor, a dirt mound inside the room and a block where the opening goes
    sandbox.op("set_block", x=x - 1, y=SKY - 1, z=z - 1, block="air")
    sandbox.op("set_block", x=x, y=SKY, z=z, block="dirt")
    sandbox.op("set_block", x=x, y=SKY, z=z + 2, block="stone")
    give(sandbox, helper, {"cobblestone": 32, "dirt": 2, "torch": 1, "stone_pickaxe": 1})
    helper.sees([(x, SKY, z)], "dirt")
    helper.sees([(x, SKY, z + 2)], "stone")

    done = build(helper, origin, WALLS)

    assert done["ok"], repr(done)
    assert made(sandbox, origin, WALLS) == []
    assert done["dug"] >= 2 and done["placed"] >= 31, done


def test_a_blueprint_turned_west_opens_to_the_west(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = plot(sandbox, helper, 1)
    origin = (x - 1, SKY, z - 1)
    give(sandbox, helper, {"cobblestone": 8})

    done = build(helper, origin, PEN, front="west")

    assert done["ok"], repr(done)
    assert made(sandbox, origin, PEN, "west") == []
    assert block(sandbox, x - 1, SKY, z) == "air"  # the opening, on the west side now
    assert block(sandbox, x, SKY, z + 1) == "cobblestone"  # the south side is a wall


def test_a_build_without_enough_blocks_fails_and_says_what_is_missing(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = plot(sandbox, helper, 2)
    give(sandbox, helper, {"cobblestone": 10})

    done = build(helper, (x - 2, SKY, z - 2), WALLS)

    assert not done["ok"]
    assert "no cobblestone" in done["error"], done


def test_the_site_is_flat_open_ground_near_water_and_never_on_it(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = plot(sandbox, helper, 3, size=23, middle=True)
    # a pond in the middle, a hill to the east: the flat ground west of the pond is the site
    sandbox.op(
        "fill", x1=x - 2, y1=SKY - 1, z1=z - 2, x2=x + 2, y2=SKY - 1, z2=z + 2, block="water"
    )
    sandbox.op("fill", x1=x + 5, y1=SKY, z1=z - 11, x2=x + 11, y2=SKY + 3, z2=z + 11, block="dirt")
    helper.sees([(x, SKY - 1, z)], "water")
    helper.sees([(x + 8, SKY + 3, z)], "dirt")

    done = helper.act("site", width=7, depth=7, radius=6)

    assert done["ok"], repr(done)
    ox, oy, oz = done["origin"]["x"], done["origin"]["y"], done["origin"]["z"]
    assert oy == SKY, done  # on the grass, not on the hill
    assert ox + 6 < x + 5, done  # west of the hill
    pond = {(px, pz) for px in range(x - 2, x + 3) for pz in range(z - 2, z + 3)}
    assert not pond & {(ox + i, oz + j) for i in range(7) for j in range(7)}, done
    assert done["water"] is not None and done["water"] <= 12, done


HUT = blueprints.load("hut")
HUT_KIT = {
    "cobblestone": 64, "oak_door": 1, "white_bed": 1, "chest": 2, "furnace": 1,
    "crafting_table": 1, "torch": 6, "stone_pickaxe": 1,
}  # fmt: skip


def door_of(world: EmbeddedWorld, at: dict[str, float]) -> dict[str, Any]:
    x, y, z = (int(at[k] // 1) for k in "xyz")
    return dict(world.op("block_at", x=x, y=y, z=z))


def test_the_bot_builds_the_hut_by_water_and_walks_in_and_out_by_its_door(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = plot(sandbox, helper, 4, size=21)
    sandbox.op("fill", x1=x + 7, y1=SKY - 1, z1=z + 7, x2=x + 9, y2=SKY - 1, z2=z + 9,
               block="water")  # fmt: skip
    give(sandbox, helper, HUT_KIT)
    helper.sees([(x + 8, SKY - 1, z + 8)], "water")

    done = helper.act("settle", radius=8, cells=[c.as_js() for c in blueprints.cells(HUT)],
                      timeout=280)  # fmt: skip

    assert done["ok"], repr(done)
    o = done["origin"]
    origin = (int(o["x"]), int(o["y"]), int(o["z"]))
    assert made(sandbox, origin, HUT) == []
    assert done["home"] is not None and done["home"]["room"] >= 3, repr(done)
    assert len(done["chests"]) == 2
    door = door_of(sandbox, done["home"]["door"])
    assert door["name"] == "oak_door" and door["properties"]["open"] is False
    walls = {(c.dx, c.dy, c.dz) for c in blueprints.cells(HUT) if c.role in ("wall", "roof")}

    out = helper.act("leave_home")
    assert out["ok"] and out["inside"] is False, repr(out)
    assert door_of(sandbox, done["home"]["door"])["properties"]["open"] is False  # shut behind
    back = helper.act("go_home")
    assert back["ok"] and back["inside"] is True, repr(back)
    # an ordinary walk out and in again goes by the door: no wall or roof block is broken
    ox, oy, oz = origin
    far = helper.act("goto", x=ox - 4.5, y=float(oy), z=oz + 3.5, reach=1.0)
    assert far["ok"], repr(far)
    bed = next(c for c in blueprints.cells(HUT) if c.role == "bed")
    sandbox.op("set_time", time=18000, cycle=False)
    try:
        sleep = helper.act("sleep", x=ox + bed.dx, y=oy + bed.dy, z=oz + bed.dz)
        assert sleep["ok"], repr(sleep)
    finally:
        sandbox.op("set_time", time=6000, cycle=False)
    broken = [w for w in walls if block(sandbox, ox + w[0], oy + w[1], oz + w[2]) == "air"]
    assert broken == [], "walked through the walls"
