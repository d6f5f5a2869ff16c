"""Farming in the survival sandbox (``pepa/worldserver/js/plugins/crops.js``, docs/sandbox.md
"Farming"), on the real server with the helper bot's own clicks (``tests/js/helper_bot.js``): a
hoe tilling grass, dirt, a path and coarse dirt and wearing, and refused under a block, on stone
and from below; seeds planting their crop on farmland only; wheat growing ripe at a forced scale
but not in the dark; farmland moistened by water, drying and going back to dirt without a crop,
and turned to dirt by a block put on it; what ripe and young wheat drop; a crop popping with its
loot when its farmland goes; a fall trampling farmland where walking does not, a zombie's only
with mob griefing on; ``grow`` and the ops' refusals; and crops growing on after a restart.
Each test stands the helper bot on a floor of its own high in the sky."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pepa.base.node import WorldError
from pepa.worldserver.process import EmbeddedWorld, free_port
from tests import stages
from tests.waiting import eventually
from tests.world_harness import SANDBOX_SEED, HelperBot, Player, block, give, teleport

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(120),
    pytest.mark.xdist_group("sandbox_crops"),  # one world for the module, on one worker
]

SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""
HELPER = "farmhand"
SKY = 160
FAST = 4000
"""Random ticks this many times faster (``crops_scale``): a crop ripens in seconds."""


def stage(world: EmbeddedWorld, helper: HelperBot, n: int) -> tuple[int, int]:
    """A grass floor on stone at SKY - 1 round (x, z), the place of test ``n``, its air cleared
    above, the bot standing at its middle and seeing it."""
    x, z = 40 * n - 200, 340
    stages.floor(world, helper, x, z, sky=SKY, top="grass_block")
    return x, z


def cell(world: EmbeddedWorld, x: int, y: int, z: int) -> dict[str, Any]:
    return dict(world.op("crop_at", x=x, y=y, z=z))


def stats(world: EmbeddedWorld) -> dict[str, Any]:
    return dict(world.op("crops_stats"))


def held(world: EmbeddedWorld) -> dict[str, int]:
    return dict(world.op("inventory", player=HELPER))


def farmland(world: EmbeddedWorld, x: int, y: int, z: int, moisture: int = 0) -> None:
    world.op("set_block", x=x, y=y, z=z, block="farmland", properties={"moisture": moisture})


def wheat(world: EmbeddedWorld, x: int, y: int, z: int, age: int = 0) -> None:
    world.op("set_block", x=x, y=y, z=z, block="wheat", properties={"age": age})


@pytest.fixture
def fast(sandbox: EmbeddedWorld) -> Iterator[EmbeddedWorld]:
    """Crops ripening in seconds for the test, at the normal pace after."""
    sandbox.op("crops_scale", factor=FAST)
    yield sandbox
    sandbox.op("crops_scale", factor=1)


def test_a_hoe_tills_grass_dirt_and_a_path_into_dry_farmland_and_wears_one_a_use(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 0)
    sandbox.op("set_block", x=x + 2, y=SKY - 1, z=z, block="dirt")
    sandbox.op("set_block", x=x, y=SKY - 1, z=z + 2, block="grass_path")
    sandbox.op("set_block", x=x - 2, y=SKY - 1, z=z, block="coarse_dirt")
    give(sandbox, helper, {"wooden_hoe": 1})
    helper.sees([(x - 2, SKY - 1, z)], "coarse_dirt")

    def tills(cx: int, cz: int, becomes: str) -> None:
        helper.click(cx, SKY - 1, cz, (0, 1, 0), use=False)
        eventually(lambda: block(sandbox, cx, SKY - 1, cz) == becomes, 10, f"{becomes} at {cx}")

    for n, (cx, cz, becomes) in enumerate(
        [(x + 1, z, "farmland"), (x + 2, z, "farmland"), (x, z + 2, "farmland"),
         (x - 2, z, "dirt")], start=1
    ):  # fmt: skip
        tills(cx, cz, becomes)
        assert stats(sandbox)["last"]["durabilityUsed"] == n  # vanilla hurtAndBreak(1)

    assert cell(sandbox, x + 1, SKY - 1, z)["moisture"] == 0  # HoeItem: FARMLAND's default
    assert held(sandbox) == {"wooden_hoe": 1}


def test_a_hoe_leaves_a_block_under_another_stone_and_a_bottom_face_as_they_are(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 1)
    sandbox.op("set_block", x=x + 1, y=SKY, z=z, block="oak_planks")  # on the grass
    sandbox.op("set_block", x=x - 1, y=SKY - 1, z=z, block="stone")
    sandbox.op("fill", x1=x, y1=SKY - 1, z1=z + 3, x2=x, y2=SKY - 1, z2=z + 3, block="air")
    sandbox.op("set_block", x=x, y=SKY, z=z + 3, block="grass_block")  # a step: its bottom face
    give(sandbox, helper, {"wooden_hoe": 1})
    helper.sees([(x + 1, SKY, z)], "oak_planks")
    before = stats(sandbox)["tilled"]

    helper.click(x + 1, SKY - 1, z, (0, 1, 0), use=False)
    helper.click(x - 1, SKY - 1, z, (0, 1, 0), use=False)
    helper.click(x, SKY, z + 3, (0, -1, 0), use=False)
    # a player's packets are handled in order: once the next click has tilled, those were refused
    helper.click(x, SKY - 1, z - 1, (0, 1, 0), use=False)
    eventually(lambda: block(sandbox, x, SKY - 1, z - 1) == "farmland", 10, "the last click")

    assert block(sandbox, x + 1, SKY - 1, z) == "grass_block"
    assert block(sandbox, x - 1, SKY - 1, z) == "stone"
    assert block(sandbox, x, SKY, z + 3) == "grass_block"
    assert stats(sandbox)["tilled"] == before + 1


def test_seeds_plant_their_crop_on_farmland_only_and_the_wheat_item_plants_nothing(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 2)
    for dx in (1, 2, -1):
        farmland(sandbox, x + dx, SKY - 1, z)
    helper.sees([(x - 1, SKY - 1, z)], "farmland")
    give(sandbox, helper, {"wheat_seeds": 3})

    helper.click(x, SKY - 1, z + 1, (0, 1, 0), use=False)  # grass: refused
    helper.click(x + 1, SKY - 1, z, (0, 1, 0), use=False)
    eventually(lambda: block(sandbox, x + 1, SKY, z) == "wheat", 10, "the wheat planted")

    assert cell(sandbox, x + 1, SKY, z)["age"] == 0
    assert block(sandbox, x, SKY, z + 1) == "air"
    eventually(lambda: held(sandbox) == {"wheat_seeds": 2}, 10, "one seed used")

    give(sandbox, helper, {"carrot": 2})
    helper.click(x - 1, SKY - 1, z, (0, 1, 0), use=False)
    eventually(lambda: block(sandbox, x - 1, SKY, z) == "carrots", 10, "the carrots planted")
    assert cell(sandbox, x + 1, SKY, z)["tracked"] and cell(sandbox, x - 1, SKY, z)["tracked"]

    give(sandbox, helper, {"wheat": 1, "wooden_hoe": 1})  # the wheat in the hand
    helper.click(x + 2, SKY - 1, z, (0, 1, 0), use=False)  # the item: not the crop
    # the till after it (the hoe taken in hand) is handled after that click
    done = helper.act("till", x=x, y=SKY - 1, z=z + 2)
    assert done["ok"], repr(done)
    assert block(sandbox, x + 2, SKY, z) == "air"


def test_wheat_ripens_at_a_forced_scale_but_not_in_the_dark(
    fast: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(fast, helper, 3)
    fast.op("set_block", x=x + 3, y=SKY - 1, z=z, block="water")
    farmland(fast, x + 2, SKY - 1, z, moisture=7)
    wheat(fast, x + 2, SKY, z)
    # the other in a closed stone room: no sky light, no block light
    fast.op("fill", x1=x - 4, y1=SKY - 1, z1=z - 1, x2=x - 2, y2=SKY + 1, z2=z + 1)
    fast.op("set_block", x=x - 3, y=SKY, z=z, block="air")  # no block on the farmland
    farmland(fast, x - 3, SKY - 1, z, moisture=7)
    wheat(fast, x - 3, SKY, z)
    before = stats(fast)["grown"]

    eventually(lambda: cell(fast, x + 2, SKY, z)["age"] == 7, 60, "the wheat in the light ripe")

    assert stats(fast)["grown"] >= before + 7
    assert cell(fast, x - 3, SKY, z)["age"] == 0
    assert cell(fast, x - 3, SKY, z)["tracked"]


def test_farmland_by_water_is_moistened_and_without_it_dries_to_dirt_unless_a_crop_stands(
    fast: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(fast, helper, 4)
    fast.op("set_block", x=x + 6, y=SKY - 1, z=z, block="water")
    farmland(fast, x + 2, SKY - 1, z)  # 4 blocks from the water
    farmland(fast, x - 5, SKY - 1, z, moisture=7)  # 11 blocks from it
    farmland(fast, x, SKY - 1, z - 5)
    wheat(fast, x, SKY, z - 5)
    before = stats(fast)

    eventually(lambda: cell(fast, x + 2, SKY - 1, z)["moisture"] == 7, 60, "the wet one moist")
    eventually(lambda: block(fast, x - 5, SKY - 1, z) == "dirt", 60, "the dry one dirt")

    after = stats(fast)
    assert after["dried"] >= before["dried"] + 7  # 7 → 0, one a random tick
    assert after["reverted"] > before["reverted"]
    assert cell(fast, x, SKY - 1, z - 5) == {"name": "farmland", "age": None, "moisture": 0,
                                              "tracked": True}  # fmt: skip
    assert block(fast, x, SKY, z - 5) == "wheat"


def test_a_solid_block_put_on_farmland_turns_it_to_dirt(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 5)
    farmland(sandbox, x + 2, SKY - 1, z, moisture=7)
    farmland(sandbox, x - 2, SKY - 1, z, moisture=7)
    farmland(sandbox, x, SKY - 1, z + 2, moisture=7)
    # not solid to farmland, though they have a collision box
    sandbox.op("set_block", x=x - 2, y=SKY, z=z, block="oak_fence_gate")
    sandbox.op("set_block", x=x, y=SKY, z=z + 2, block="white_carpet")

    sandbox.op("set_block", x=x + 2, y=SKY, z=z, block="cobblestone")

    eventually(lambda: block(sandbox, x + 2, SKY - 1, z) == "dirt", 10, "the farmland dirt")
    assert block(sandbox, x - 2, SKY - 1, z) == "farmland"
    assert block(sandbox, x, SKY - 1, z + 2) == "farmland"


def pick_up(world: EmbeddedWorld, helper: HelperBot, x: int, z: int, kit: dict[str, int]) -> None:
    """Walk onto cell (x, z) of the floor, and wait until the inventory is ``kit``."""
    done = helper.act("goto", x=x + 0.5, y=SKY, z=z + 0.5, reach=0.5)
    assert done["ok"], done
    eventually(lambda: held(world) == kit, 10, f"{kit} picked up")


def lying(world: EmbeddedWorld, x: int, y: int, z: int) -> list[dict[str, Any]]:
    """The entities within 2 blocks of the cell's centre but players (items: the module has no
    mobs; flying-squid names an item entity none)."""
    return [
        e
        for e in world.op("entities")
        if max(abs(e["position"][k] - c - 0.5) for k, c in zip("xyz", (x, y, z), strict=True)) < 2
    ]


def test_ripe_wheat_drops_wheat_and_seeds_and_young_wheat_a_seed(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 6)
    farmland(sandbox, x + 2, SKY - 1, z, moisture=7)
    wheat(sandbox, x + 2, SKY, z, age=7)
    farmland(sandbox, x - 2, SKY - 1, z, moisture=7)
    wheat(sandbox, x - 2, SKY, z, age=6)
    give(sandbox, helper, {})
    helper.sees([(x + 2, SKY, z), (x - 2, SKY, z)], "wheat")

    helper.dig(x + 2, SKY, z)
    done = helper.act("goto", x=x + 2.5, y=SKY, z=z + 0.5, reach=0.5)
    assert done["ok"], done
    eventually(lambda: held(sandbox).get("wheat_seeds", 0) >= 1, 10, "the seeds picked up")
    got = held(sandbox)
    assert got["wheat"] == 1 and 1 <= got["wheat_seeds"] <= 4, got  # 1 + binomial(3, 0.5714)

    give(sandbox, helper, {})
    helper.dig(x - 2, SKY, z)
    pick_up(sandbox, helper, x - 2, z, {"wheat_seeds": 1})


def test_a_crop_pops_with_its_loot_when_its_farmland_goes(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 7)
    farmland(sandbox, x + 2, SKY - 1, z, moisture=7)
    wheat(sandbox, x + 2, SKY, z, age=7)
    before = stats(sandbox)["popped"]

    sandbox.op("set_block", x=x + 2, y=SKY - 1, z=z, block="air")

    eventually(lambda: stats(sandbox)["popped"] == before + 1, 10, "the wheat popped")
    assert block(sandbox, x + 2, SKY, z) == "air"
    last = stats(sandbox)["last"]
    assert (last["crop"], last["age"], last["at"]) == ("wheat", 7, {"x": x + 2, "y": SKY, "z": z})
    drops = dict(last["drops"])
    assert drops["wheat"] == 1 and 1 <= drops["wheat_seeds"] <= 4, drops
    assert len(lying(sandbox, x + 2, SKY, z)) >= 2  # a stack each, in the world

    # dug by a player: flying-squid's own dig clears a plant over a dug block, with no drops
    farmland(sandbox, x - 2, SKY - 1, z, moisture=7)
    wheat(sandbox, x - 2, SKY, z, age=3)
    give(sandbox, helper, {})
    helper.sees([(x - 2, SKY, z)], "wheat")
    helper.dig(x - 2, SKY - 1, z)

    assert stats(sandbox)["popped"] == before + 2
    assert stats(sandbox)["last"]["drops"] == [["wheat_seeds", 1]]
    assert block(sandbox, x - 2, SKY, z) == "air"


def test_a_fall_onto_farmland_tramples_it_and_walking_over_it_does_not(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 8)
    for dx in range(-3, 4):
        farmland(sandbox, x + dx, SKY - 1, z + 2, moisture=7)
    helper.sees([(x + 3, SKY - 1, z + 2)], "farmland")
    before = stats(sandbox)["trampled"]

    done = helper.act("goto", x=x - 3.5, y=SKY, z=z + 2.5, reach=0.5)
    assert done["ok"], repr(done)
    done = helper.act("goto", x=x + 3.5, y=SKY, z=z + 2.5, reach=0.5)
    assert done["ok"], repr(done)

    assert all(block(sandbox, x + dx, SKY - 1, z + 2) == "farmland" for dx in range(-3, 4))
    teleport(sandbox, HELPER, x + 0.5, SKY + 3, z + 2.5)  # a fall of 3: trampled for sure

    eventually(lambda: block(sandbox, x, SKY - 1, z + 2) == "dirt", 10, "the farmland trampled")
    assert stats(sandbox)["trampled"] == before + 1


def test_a_zombie_falling_onto_farmland_tramples_it_while_mob_griefing_is_on(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 10)
    farmland(sandbox, x + 2, SKY - 1, z, moisture=7)
    farmland(sandbox, x, SKY - 1, z + 2, moisture=7)

    def drop_a_zombie(dx: int, dz: int) -> None:
        """A still adult zombie 3 blocks over the cell, until it has landed."""
        (mob,) = sandbox.op("spawn_mob", player=HELPER, name="zombie", dx=dx, dy=3, dz=dz,
                            ai=False, baby=False)["ids"]  # fmt: skip
        eventually(lambda: sandbox.op("life_mob", mob=mob).get("onGround"), 10, "it landed")

    try:
        sandbox.op("explosions", breakBlocks=False)  # vanilla's mobGriefing false
        drop_a_zombie(2, 0)
        assert block(sandbox, x + 2, SKY - 1, z) == "farmland"
        sandbox.op("explosions", breakBlocks=True)
        drop_a_zombie(0, 2)
        assert block(sandbox, x, SKY - 1, z + 2) == "dirt"
    finally:
        sandbox.op("explosions", breakBlocks=True)
        sandbox.op("remove_mobs")


def test_grow_sets_a_crops_age_and_the_ops_refuse_what_is_not_theirs(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 11)
    farmland(sandbox, x + 2, SKY - 1, z, moisture=7)
    sandbox.op("set_block", x=x + 2, y=SKY, z=z, block="beetroots")

    assert sandbox.op("grow", x=x + 2, y=SKY, z=z, age=1) == {"name": "beetroots", "age": 1}
    assert cell(sandbox, x + 2, SKY, z)["tracked"]  # growing: in the registry
    assert sandbox.op("grow", x=x + 2, y=SKY, z=z) == {"name": "beetroots", "age": 3}
    ripe = cell(sandbox, x + 2, SKY, z)
    assert (ripe["age"], ripe["tracked"]) == (3, False)  # ripe: no more random ticks
    with pytest.raises(WorldError, match="no crop at"):
        sandbox.op("grow", x=x + 2, y=SKY - 1, z=z)
    with pytest.raises(WorldError, match="age is 0 to 3"):
        sandbox.op("grow", x=x + 2, y=SKY, z=z, age=7)
    with pytest.raises(WorldError, match="factor must be a finite number"):
        sandbox.op("crops_scale", factor="fast")
    assert sandbox.op("crops_scale", factor=1e9) == {"factor": 10000}
    assert sandbox.op("crops_scale", factor=1) == {"factor": 1}


def test_crops_grow_on_after_a_restart() -> None:
    """Nothing of ours is saved: the world's blocks are, and each column's farmland and crops are
    found again as it loads."""
    folder = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))

    def make() -> EmbeddedWorld:
        return EmbeddedWorld(
            folder / "world", port=free_port(), control=True, sandbox=True, seed=SANDBOX_SEED
        )

    try:
        first = make().start()
        try:
            first.op("fill", x1=2, y1=SKY - 1, z1=2, x2=4, y2=SKY - 1, z2=2)
            first.op("set_block", x=4, y=SKY - 1, z=2, block="water")
            farmland(first, 3, SKY - 1, 2, moisture=7)
            region = folder / "world" / "region" / "r.0.0.mca"
            planted = time.time()
            wheat(first, 3, SKY, 2, age=2)
            assert cell(first, 3, SKY, 2)["tracked"]
            # flying-squid writes its changed columns every second, and not when it stops
            eventually(lambda: region.exists() and region.stat().st_mtime > planted, 10,
                       "the column saved")  # fmt: skip
        finally:
            first.stop()  # SIGTERM, as `pepa` stops its world
        second = make().start()
        try:
            keeper = Player(second, "keeper")  # at the spawn, within 128 blocks: crops grow
            try:
                second.op("crops_scale", factor=FAST)
                assert cell(second, 3, SKY, 2) == {"name": "wheat", "age": 2, "moisture": None,
                                                   "tracked": True}  # fmt: skip
                eventually(lambda: cell(second, 3, SKY, 2)["age"] == 7, 60, "the wheat ripe")
            finally:
                keeper.close()
        finally:
            second.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
