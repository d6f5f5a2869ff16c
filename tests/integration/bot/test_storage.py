"""The bot's chest actions on the real sandbox server (docs/survival.md "Chests").

The bot's own JS module (tests/js/helper_bot.js drives bot_helper.js) walks to a chest and
stores what it holds but the items it keeps, or only the ones named; fetches some back and is
told when the chest has none; looks in; fills a chest and is told what did not fit; fails
clearly where there is no chest or one that cannot open; and stops when told to. Each test
stands the bot on a stone floor of its own high in the sky, the chest some blocks away.
"""

from __future__ import annotations

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests import stages
from tests.waiting import eventually
from tests.world_harness import HelperBot, give

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(120),
    pytest.mark.xdist_group("storage"),  # one world for the module, on one worker
]

SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""
HELPER = "keeper"
SKY = 160


def stage(world: EmbeddedWorld, helper: HelperBot, n: int, dx: int = 6) -> tuple[int, int, int]:
    """A stone floor at SKY - 1, the place of test ``n``, the bot at its middle and a chest on
    it ``dx`` blocks east (out of reach: the bot walks); the chest's cell."""
    x, z = 40 * n - 200, 300
    stages.floor(world, helper, x, z, sky=SKY, half=8)
    world.op("set_block", x=x + dx, y=SKY, z=z, block="chest")
    helper.sees([(x + dx, SKY, z)], "chest")
    return x + dx, SKY, z


def held(world: EmbeddedWorld) -> dict[str, int]:
    return dict(world.op("inventory", player=HELPER))


def chest(world: EmbeddedWorld, at: tuple[int, int, int]) -> dict[str, int] | None:
    x, y, z = at
    found = world.op("chest", x=x, y=y, z=z)
    return None if found is None else dict(found)


def test_store_puts_in_everything_held_but_what_it_keeps(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, y, z = at = stage(sandbox, helper, 0)
    kit = {"dirt": 30, "cobblestone": 12, "oak_log": 4, "wooden_pickaxe": 1, "bread": 3, "torch": 8}
    give(sandbox, helper, kit)

    keep = {"wooden_pickaxe": 1, "bread": 3, "torch": 8, "dirt": 10}
    done = helper.act("store", x=x, y=y, z=z, keep=keep)

    assert done["ok"], done
    assert done["stored"] == {"dirt": 20, "cobblestone": 12, "oak_log": 4}
    assert done["contents"] == chest(sandbox, at) == {"dirt": 20, "cobblestone": 12, "oak_log": 4}
    assert held(sandbox) == keep
    assert done["chest"] == {"x": x, "y": y, "z": z}


def test_store_puts_in_only_the_items_named(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    x, y, z = at = stage(sandbox, helper, 1)
    give(sandbox, helper, {"dirt": 5, "cobblestone": 7, "iron_ingot": 2})

    done = helper.act("store", x=x, y=y, z=z, items=["cobblestone", "iron_ingot", "diamond"])

    assert done["ok"], done
    assert done["stored"] == {"cobblestone": 7, "iron_ingot": 2}
    assert chest(sandbox, at) == {"cobblestone": 7, "iron_ingot": 2}
    assert held(sandbox) == {"dirt": 5}


def test_fetch_takes_up_to_count_and_says_when_the_chest_has_none(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, y, z = at = stage(sandbox, helper, 2)
    give(sandbox, helper, {"coal": 20, "oak_planks": 10})
    assert helper.act("store", x=x, y=y, z=z)["ok"]

    some = helper.act("fetch", x=x, y=y, z=z, item="coal", count=15)
    rest = helper.act("fetch", x=x, y=y, z=z, item="coal", count=15)  # only 5 left
    none = helper.act("fetch", x=x, y=y, z=z, item="coal", count=1)

    assert (some["ok"], some["taken"]) == (True, 15)
    assert some["contents"] == {"coal": 5, "oak_planks": 10}
    assert (rest["ok"], rest["taken"], rest["contents"]) == (True, 5, {"oak_planks": 10})
    assert not none["ok"] and none["error"] == f"no coal in the chest at {x} {y} {z}", none
    assert held(sandbox) == {"coal": 20}
    assert chest(sandbox, at) == {"oak_planks": 10}


def test_look_in_reads_a_chest_and_leaves_it_as_it_was(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, y, z = at = stage(sandbox, helper, 3)
    empty = helper.act("look_in", x=x, y=y, z=z)
    give(sandbox, helper, {"apple": 6, "stick": 9})
    assert helper.act("store", x=x, y=y, z=z, items=["apple"])["ok"]

    done = helper.act("look_in", x=x, y=y, z=z)

    assert (empty["ok"], empty["contents"]) == (True, {})
    assert (done["ok"], done["contents"]) == (True, {"apple": 6})
    assert chest(sandbox, at) == {"apple": 6}
    assert held(sandbox) == {"stick": 9}


def test_a_full_chest_takes_what_fits_and_says_what_did_not(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, y, z = at = stage(sandbox, helper, 4, dx=2)
    sandbox.op("clear_inventory", player=HELPER)
    for _ in range(27):  # 27 stacks: as many as the chest's 27 slots take
        sandbox.op("give", player=HELPER, item="dirt", count=64)
    sandbox.op("give", player=HELPER, item="oak_log", count=5)
    counts = {"dirt": 27 * 64, "oak_log": 5}
    eventually(lambda: helper.snapshot()["inventory"]["counts"] == counts, 20, "the stacks held")

    done = helper.act("store", x=x, y=y, z=z)

    # the dirt first (it lies in the first slots), then the logs find no room
    assert not done["ok"], done
    assert done["error"] == f"the chest at {x} {y} {z} is full: no room for 5 oak_log"
    assert (done["stored"], done["left"]) == ({"dirt": 27 * 64}, {"oak_log": 5})
    assert done["contents"] == chest(sandbox, at) == {"dirt": 27 * 64}
    assert held(sandbox) == {"oak_log": 5}


def test_without_a_chest_that_opens_the_actions_say_so(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, y, z = stage(sandbox, helper, 5, dx=2)
    give(sandbox, helper, {"dirt": 3})
    nothing = helper.act("store", x=x, y=y, z=z + 1)
    sandbox.op("set_block", x=x, y=y + 1, z=z, block="stone")  # a lid that cannot open
    helper.sees([(x, y + 1, z)], "stone")
    shut = helper.act("look_in", x=x, y=y, z=z)

    assert not nothing["ok"] and nothing["error"] == f"no chest at {x} {y} {z + 1} (air)", nothing
    assert not shut["ok"], shut
    assert shut["error"] == f"the chest at {x} {y} {z} cannot open: stone on top of it"
    assert held(sandbox) == {"dirt": 3}


def test_a_stop_ends_a_store_on_its_way(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    x, y, z = at = stage(sandbox, helper, 6, dx=8)
    give(sandbox, helper, {"dirt": 3})

    started = helper.start("store", x=x, y=y, z=z)
    eventually(lambda: helper.goal() is not None, 10, "the walk under way")
    helper.call("stop")
    done = helper.finished(started, 20)

    assert (done["ok"], done["error"]) == (False, "stopped"), done
    assert chest(sandbox, at) == {}
    assert held(sandbox) == {"dirt": 3}
