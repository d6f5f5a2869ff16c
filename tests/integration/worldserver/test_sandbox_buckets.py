"""Buckets in the survival sandbox (``pepa/worldserver/js/plugins/buckets.js``) and the bot's
``scoop`` and ``pour`` (``pepa/link/js/actions/buckets.js``), on the real server: a source taken
into an empty bucket, water poured on lava, on fire and into air, a use that reaches nothing, a
click on a block with a bucket (docs/sandbox.md, "Buckets"). Each test stands the helper bot on
a stone floor of its own high in the sky."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests import stages
from tests.waiting import eventually
from tests.world_harness import HELPER, HelperBot, block, give

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(120),
    pytest.mark.xdist_group("sandbox_buckets"),  # one world for the module, on one worker
]

SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs; its fluids
still until the ``fluids`` op turns them on."""
SKY = 160


def stage(world: EmbeddedWorld, helper: HelperBot, n: int) -> tuple[int, int]:
    """A stone floor at SKY - 1 round (x, z), the place of test ``n``, its air cleared above, the
    bot standing at its middle and seeing it."""
    x, z = 40 * n - 200, 260
    stages.floor(world, helper, x, z, sky=SKY)
    return x, z


def stats(world: EmbeddedWorld) -> dict[str, Any]:
    return dict(world.op("bucket_stats"))


def held(world: EmbeddedWorld) -> dict[str, int]:
    return dict(world.op("inventory", player=HELPER))


@pytest.fixture
def fluids(sandbox: EmbeddedWorld) -> Iterator[EmbeddedWorld]:
    sandbox.op("fluids", on=True)
    yield sandbox
    sandbox.op("fluids", on=False)


def test_scooping_a_water_source_fills_one_bucket_and_takes_the_source(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 0)
    sandbox.op("set_block", x=x + 3, y=SKY - 1, z=z, block="water")  # a source in the floor
    give(sandbox, helper, {"bucket": 2})
    helper.sees([(x + 3, SKY - 1, z)], "water")

    done = helper.act("scoop", radius=8.0)

    assert done["ok"], f"the scoop failed: {done}"
    assert done["source"] == {"x": x + 3, "y": SKY - 1, "z": z}
    assert block(sandbox, x + 3, SKY - 1, z) == "air"
    # one of the two became a water bucket, in a slot of its own (a water bucket stacks to 1)
    assert held(sandbox) == {"bucket": 1, "water_bucket": 1}


def test_scooping_walks_to_a_source_out_of_reach(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    x, z = stage(sandbox, helper, 1)
    sandbox.op("set_block", x=x - 6, y=SKY - 1, z=z + 5, block="water")  # 7.8 blocks away
    give(sandbox, helper, {"bucket": 1})
    helper.sees([(x - 6, SKY - 1, z + 5)], "water")

    done = helper.act("scoop", radius=12.0)

    assert done["ok"], f"the scoop failed: {done}"
    assert block(sandbox, x - 6, SKY - 1, z + 5) == "air"
    assert held(sandbox) == {"water_bucket": 1}


def test_water_poured_on_a_lava_source_makes_obsidian(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 2)
    sandbox.op("set_block", x=x + 2, y=SKY, z=z, block="lava")
    give(sandbox, helper, {"water_bucket": 1})
    helper.sees([(x + 2, SKY, z)], "lava")

    done = helper.act("pour", x=x + 2, y=SKY, z=z)

    assert done["ok"], f"the pour failed: {done}"
    assert (done["before"], done["block"]) == ("lava", "obsidian")
    assert block(sandbox, x + 2, SKY, z) == "obsidian"
    assert held(sandbox) == {"bucket": 1}


def test_water_poured_on_flowing_lava_makes_cobblestone(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 3)
    sandbox.op("set_block", x=x, y=SKY, z=z + 2, block="lava", properties={"level": 2})
    give(sandbox, helper, {"water_bucket": 1})
    helper.sees([(x, SKY, z + 2)], "lava")

    done = helper.act("pour", x=x, y=SKY, z=z + 2)

    assert done["ok"], f"the pour failed: {done}"
    assert block(sandbox, x, SKY, z + 2) == "cobblestone"


def test_water_poured_on_fire_puts_it_out(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    x, z = stage(sandbox, helper, 4)
    sandbox.op("set_block", x=x - 2, y=SKY, z=z, block="fire")
    give(sandbox, helper, {"water_bucket": 1})
    helper.sees([(x - 2, SKY, z)], "fire")

    done = helper.act("pour", x=x - 2, y=SKY, z=z)

    assert done["ok"], f"the pour failed: {done}"
    assert block(sandbox, x - 2, SKY, z) == "water"
    assert held(sandbox) == {"bucket": 1}


def test_water_poured_into_air_is_a_source_that_flows(
    fluids: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(fluids, helper, 5)
    give(fluids, helper, {"water_bucket": 1})

    done = helper.act("pour", x=x, y=SKY, z=z - 2)

    assert done["ok"], f"the pour failed: {done}"
    assert fluids.op("block_at", x=x, y=SKY, z=z - 2)["stateId"] == 34  # water, level 0
    eventually(lambda: block(fluids, x, SKY, z - 5) == "water", 30, "the water 3 blocks out")


def test_without_a_bucket_each_action_says_so(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    x, z = stage(sandbox, helper, 6)
    sandbox.op("set_block", x=x + 2, y=SKY - 1, z=z, block="water")
    give(sandbox, helper, {"dirt": 1})

    scooped = helper.act("scoop", radius=8.0)
    poured = helper.act("pour", x=x + 1, y=SKY, z=z)

    assert (scooped["ok"], scooped["error"]) == (False, "no bucket held")
    assert (poured["ok"], poured["error"]) == (False, "no water bucket held")
    assert block(sandbox, x + 2, SKY - 1, z) == "water"


def test_a_pour_out_of_reach_is_refused(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    x, z = stage(sandbox, helper, 7)
    give(sandbox, helper, {"water_bucket": 1})

    done = helper.act("pour", x=x + 5, y=SKY, z=z)

    assert not done["ok"] and done["error"].startswith("out of reach"), done
    assert block(sandbox, x + 5, SKY, z) == "air"


def test_a_bucket_used_at_nothing_in_reach_changes_nothing(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 8)
    sandbox.op("set_block", x=x + 6, y=SKY, z=z, block="water")  # ahead, 5.6 blocks from the eyes
    give(sandbox, helper, {"bucket": 1})
    helper.sees([(x + 6, SKY, z)], "water")
    before = stats(sandbox)

    helper.use(x + 6.5, SKY + 0.5, z + 0.5)
    eventually(lambda: stats(sandbox)["uses"] > before["uses"], 10, "the use handled")
    helper.use(x + 0.5, SKY + 20, z + 0.5)  # straight up: the sky
    eventually(lambda: stats(sandbox)["uses"] > before["uses"] + 1, 10, "the second handled")

    assert stats(sandbox)["missed"] == before["missed"] + 2
    assert block(sandbox, x + 6, SKY, z) == "water"
    assert held(sandbox) == {"bucket": 1}


def test_a_click_on_a_block_pours_once_though_use_item_follows(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    """A vanilla client sends block_place and then use_item for one click: a second use would
    take the water poured back into the bucket just emptied."""
    x, z = stage(sandbox, helper, 9)
    give(sandbox, helper, {"water_bucket": 1})
    before = stats(sandbox)

    helper.click(x + 1, SKY - 1, z, (0, 1, 0), use=True)

    def answered() -> bool:  # the use_item taken as the click's, or as a use of its own
        now = stats(sandbox)
        return bool(now["echoes"] > before["echoes"] or now["uses"] > before["uses"] + 1)

    eventually(answered, 10, "the use_item after the click handled")

    assert stats(sandbox)["uses"] == before["uses"] + 1
    assert block(sandbox, x + 1, SKY, z) == "water"
    assert held(sandbox) == {"bucket": 1}
