"""The bot's husbandry, on the real sandbox server (docs/survival.md, "Husbandry"):
bot_helper.js's ``breed``, ``shear`` and ``lure`` (``pepa/link/js/actions/husbandry.js``,
driven by tests/js/helper_bot.js) against the sandbox's farm animals (docs/sandbox-life.md).
Each test gives the bot a floor of its own high in the sky."""

from __future__ import annotations

from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.waiting import eventually
from tests.world_harness import HELPER, HelperBot, give, teleport

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(150),
    pytest.mark.xdist_group("bot_husbandry"),
]

SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""
SKY = 150
R = 8
"""A floor reaches R blocks each way from its middle."""


def stage(world: EmbeddedWorld, helper: HelperBot, n: int) -> tuple[int, int]:
    """A stone floor at SKY - 1 round (x, z), its air cleared above, no mobs anywhere, the bot at
    its middle and seeing it."""
    x, z = 40 * n - 100, -300
    world.op("remove_mobs")
    world.op("fill", x1=x - R, y1=SKY - 1, z1=z - R, x2=x + R, y2=SKY - 1, z2=z + R)
    world.op("fill", x1=x - R, y1=SKY, z1=z - R, x2=x + R, y2=SKY + 2, z2=z + R, block="air")
    teleport(world, HELPER, x + 0.5, SKY, z + 0.5)
    helper.sees([(x, SKY - 1, z), (x + R, SKY - 1, z + R)], "stone")
    return x, z


def spawn(world: EmbeddedWorld, helper: HelperBot, name: str, dx: float, dz: float = 0) -> int:
    """One ``name`` at (dx, dz) from the bot, once the sandbox has adopted it and the bot's
    client knows it."""
    [mob] = world.op("spawn_mob", player=HELPER, name=name, dx=dx, dz=dz)["ids"]
    eventually(lambda: world.op("animal", mob=mob).get("alive"), 10, f"the {name} adopted")
    eventually(
        lambda: any(e["id"] == mob for e in helper.snapshot()["entities"]),
        10,
        f"the bot sees the {name}",
    )
    return int(mob)


def animal(world: EmbeddedWorld, mob: int) -> dict[str, Any]:
    return dict(world.op("animal", mob=mob))


def test_the_bot_breeds_two_cows_and_sees_their_calf(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    stage(sandbox, helper, 0)
    give(sandbox, helper, {"wheat": 4})
    cows = [spawn(sandbox, helper, "cow", dx=4, dz=-2), spawn(sandbox, helper, "cow", dx=4, dz=2)]

    done = helper.act("breed", names=["pig", "cow"], radius=12.0, timeout=90)

    assert done["ok"], f"the breeding failed: {done}"
    assert (done["species"], done["fed"], done["baby"]) == ("cow", 2, True)
    [birth] = sandbox.op("husbandry_stats")["bred"]
    assert sorted(birth["parents"]) == sorted(cows)
    assert animal(sandbox, birth["baby"])["baby"] is True
    assert sandbox.op("inventory", player=HELPER) == {"wheat": 2}

    again = helper.act("breed", names=["cow"], radius=12.0, timeout=30)  # both in their cooldown

    assert not again["ok"] and "no two adult cow" in again["error"], again
    assert sandbox.op("inventory", player=HELPER) == {"wheat": 2}


def test_breeding_without_food_says_so(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    stage(sandbox, helper, 1)
    give(sandbox, helper, {"carrot": 1})
    spawn(sandbox, helper, "cow", dx=3)

    done = helper.act("breed", names=["cow"], radius=12.0, timeout=30)

    assert not done["ok"] and done["error"].startswith("no food held for cow"), done


def test_the_bot_shears_a_sheep_and_picks_up_its_wool(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    stage(sandbox, helper, 2)
    give(sandbox, helper, {"shears": 1})
    sheep = spawn(sandbox, helper, "sheep", dx=5)
    sandbox.op("set_animal", mob=sheep, colour="white", sheared=False)

    done = helper.act("shear", radius=12.0, timeout=60)

    assert done["ok"], f"the shearing failed: {done}"
    assert animal(sandbox, sheep)["sheared"] is True
    [cut] = sandbox.op("husbandry_stats")["sheared"]
    assert done["wool"] == cut["count"] and 1 <= done["wool"] <= 3
    held = sandbox.op("inventory", player=HELPER)
    assert held.get("white_wool") == cut["count"] and "shears" in held

    again = helper.act("shear", radius=12.0, timeout=30)  # the only sheep is shorn

    assert not again["ok"] and again["error"].startswith("no woolly adult sheep"), again


def test_the_bot_lures_two_cows_along_a_walk_too_long_to_keep_up_with_into_a_pen(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 3)
    # a causeway 8 blocks wide running 30 blocks west, a pen of fences at its end (x - 31 ..
    # x - 25) with a gap in its east side: a walk of 28 blocks, which a cow tempted at 2.7
    # blocks a second loses a sprinting bot on (it follows only within 10 blocks)
    w = x - 32
    sandbox.op("fill", x1=w, y1=SKY - 1, z1=z - 4, x2=x, y2=SKY - 1, z2=z + 4)
    sandbox.op("fill", x1=w, y1=SKY, z1=z - 4, x2=x, y2=SKY + 2, z2=z + 4, block="air")
    sandbox.op("fill", x1=w + 1, y1=SKY, z1=z - 3, x2=w + 7, y2=SKY, z2=z + 3, block="oak_fence")
    sandbox.op("fill", x1=w + 2, y1=SKY, z1=z - 2, x2=w + 6, y2=SKY, z2=z + 2, block="air")
    sandbox.op("set_block", x=w + 7, y=SKY, z=z, block="air")
    helper.sees([(w, SKY - 1, z)], "stone")
    helper.sees([(w + 7, SKY, z - 1), (w + 1, SKY, z + 3)], "oak_fence")
    give(sandbox, helper, {"wheat": 1})
    cows = [spawn(sandbox, helper, "cow", dx=4, dz=-3), spawn(sandbox, helper, "cow", dx=5, dz=3)]

    done = helper.act("lure", names=["cow"], x=w + 3.5, y=float(SKY), z=z + 0.5, timeout=120)

    assert done["ok"], f"the lure failed: {done}"
    assert done["followed"] == 2, done

    def penned(mob: int) -> bool:
        pos = animal(sandbox, mob)["pos"]
        return bool(w + 2 <= pos["x"] < w + 7 and z - 2 <= pos["z"] < z + 3)

    eventually(lambda: all(penned(c) for c in cows), 10, "both cows in the pen")
