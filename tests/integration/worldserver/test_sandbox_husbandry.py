"""Farm animals in the survival sandbox (docs/sandbox-life.md, "Animals" and "Husbandry"), on
the real server: ``plugins/husbandry.js`` (a player's clicks on animals and fence gates),
``life/herd.js`` (tempting, breeding, eating grass) and the 1.5-block fences of
``life/blocks.js`` and ``life/path.js``. A helper bot (``tests/js/helper_bot.js``) holds the
food or the shears and clicks; each test stands it on a floor of its own high in the sky."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.js import run_node
from tests.waiting import eventually, poll
from tests.world_harness import HELPER, HelperBot, server_player, teleport

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(120),
    pytest.mark.xdist_group("sandbox_husbandry"),  # one world for the module, on one worker
]

SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""
SKY = 160
R = 7
"""A stage's floor reaches R blocks each way from its middle."""


def stage(world: EmbeddedWorld, helper: HelperBot, n: int, floor: str = "stone") -> tuple[int, int]:
    """A floor of ``floor`` at SKY - 1 round (x, z), the place of test ``n``, its air cleared
    above, no mobs anywhere, the bot empty-handed at its middle and seeing it. The tests take
    their places in order, each 40 blocks from the last: a client teleported far and back may
    keep a stale chunk of a place."""
    x, z = 40 * n - 200, 300
    world.op("remove_mobs")
    world.op("fill", x1=x - R, y1=SKY - 1, z1=z - R, x2=x + R, y2=SKY - 1, z2=z + R, block=floor)
    world.op("fill", x1=x - R, y1=SKY, z1=z - R, x2=x + R, y2=SKY + 2, z2=z + R, block="air")
    world.op("clear_inventory", player=HELPER)
    teleport(world, HELPER, x + 0.5, SKY, z + 0.5)
    helper.sees([(x, SKY - 1, z), (x + R, SKY - 1, z + R)], floor)
    return x, z


def hold(world: EmbeddedWorld, item: str, count: int = 1) -> None:
    """``count`` of ``item`` in the helper's hand (the first hotbar slot, the one it holds)."""
    world.op("give", player=HELPER, item=item, count=count, slot=36)


def spawn(world: EmbeddedWorld, name: str, dx: float, dz: float = 0, **more: Any) -> int:
    """One ``name`` at (dx, dz) from the helper: its id, once the sandbox has adopted it."""
    [mob] = world.op("spawn_mob", player=HELPER, name=name, dx=dx, dz=dz, **more)["ids"]
    eventually(lambda: animal(world, mob).get("alive"), 10, f"the {name} adopted")
    return int(mob)


def animal(world: EmbeddedWorld, mob: int) -> dict[str, Any]:
    return dict(world.op("animal", mob=mob))


def helper_at(world: EmbeddedWorld) -> dict[str, float]:
    player = server_player(world, HELPER)
    assert player is not None
    return dict(player["position"])


def apart(a: dict[str, float], b: dict[str, float]) -> float:
    return math.dist((a["x"], a["y"], a["z"]), (b["x"], b["y"], b["z"]))


def held(world: EmbeddedWorld) -> dict[str, int]:
    return dict(world.op("inventory", player=HELPER))


@pytest.fixture
def scaled(sandbox: EmbeddedWorld) -> Iterator[EmbeddedWorld]:
    """The husbandry timers 1000 times faster for the test (24000 ticks of growth in 24)."""
    sandbox.op("husbandry_scale", factor=1000)
    yield sandbox
    sandbox.op("husbandry_scale", factor=1)


@pytest.fixture
def straight(sandbox: EmbeddedWorld) -> Iterator[EmbeddedWorld]:
    """Path finding off for the test: mobs walk straight at their goals."""
    sandbox.op("paths", on=False)
    yield sandbox
    sandbox.op("paths", on=True)


GATE = r"""
const registry = require('prismarine-registry')('1.16.5')
const Block = require('prismarine-block')(registry)
console.log(JSON.stringify(Block.fromStateId(Number(process.argv[1]), 0).getProperties()))
"""


def gate(world: EmbeddedWorld, x: int, y: int, z: int) -> dict[str, Any]:
    """The fence gate at a cell: its properties (open, facing ...), as the server holds it."""
    at = world.op("block_at", x=x, y=y, z=z)
    assert at["name"] == "oak_fence_gate", at
    return dict(run_node(GATE, str(at["stateId"])))


# --- tempting ------------------------------------------------------------------------------


def test_a_cow_follows_a_player_holding_wheat_and_not_one_holding_nothing(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    stage(sandbox, helper, 0)
    cow = spawn(sandbox, "cow", dx=6)

    # empty-handed: never tempted
    assert poll(lambda: animal(sandbox, cow)["goal"] == "tempt", 4) is None

    hold(sandbox, "wheat")
    eventually(lambda: animal(sandbox, cow)["tempter"] == HELPER, 10, "the cow tempted")
    near = eventually(
        lambda: apart(animal(sandbox, cow)["pos"], helper_at(sandbox)) < 3.0, 15, "the cow close"
    )
    assert near
    # it stops short of her (TemptGoal: 2.5 blocks), it does not walk into her
    assert apart(animal(sandbox, cow)["pos"], helper_at(sandbox)) > 1.5

    hold(sandbox, "dirt")  # the wheat put away
    eventually(lambda: animal(sandbox, cow)["goal"] != "tempt", 5, "the cow no longer tempted")


# --- breeding and growing up ----------------------------------------------------------------


def test_two_fed_cows_make_a_calf_that_is_a_baby_and_grows_up_at_a_scaled_clock(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    stage(sandbox, helper, 1)
    hold(sandbox, "wheat", 4)
    mother, father = spawn(sandbox, "cow", dx=2, dz=-1), spawn(sandbox, "cow", dx=2, dz=1)

    helper.interact(mother)
    helper.interact(father)

    eventually(lambda: held(sandbox) == {"wheat": 2}, 10, "one wheat eaten by each cow")
    births = eventually(lambda: sandbox.op("husbandry_stats")["bred"], 30, "a calf born")
    [birth] = births
    assert sorted(birth["parents"]) == sorted([mother, father]) and birth["name"] == "cow"
    calf = animal(sandbox, birth["baby"])
    assert calf["alive"] and calf["name"] == "cow" and calf["baby"] is True
    assert calf["age"] <= -23000  # born at -24000
    for parent in (mother, father):
        state = animal(sandbox, parent)
        assert state["inLove"] is False and 5000 < state["cooldown"] <= 6000, state

    sandbox.op("husbandry_scale", factor=1000)
    try:
        eventually(lambda: animal(sandbox, calf["id"])["baby"] is False, 10, "the calf grown up")
        assert animal(sandbox, mother)["cooldown"] == 0
    finally:
        sandbox.op("husbandry_scale", factor=1)


def test_a_cow_in_its_breeding_cooldown_eats_nothing_and_falls_in_no_love(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    stage(sandbox, helper, 2)
    hold(sandbox, "wheat", 3)
    parent = spawn(sandbox, "cow", dx=2, ai=False)
    sandbox.op("set_animal", mob=parent, age=6000)  # a parent's cooldown
    ready = spawn(sandbox, "cow", dx=-2, ai=False)

    helper.interact(parent)
    helper.interact(ready)

    eventually(lambda: animal(sandbox, ready)["inLove"], 10, "the ready cow in love")
    assert held(sandbox) == {"wheat": 2}  # the ready cow's one only
    assert animal(sandbox, parent)["inLove"] is False


def test_a_cow_in_love_that_is_hurt_leaves_love(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    stage(sandbox, helper, 3)
    hold(sandbox, "wheat")
    cow = spawn(sandbox, "cow", dx=2, ai=False)
    helper.interact(cow)
    eventually(lambda: animal(sandbox, cow)["inLove"], 10, "the cow in love")

    sandbox.op("hurt_mob", mob=cow, damage=1)

    assert animal(sandbox, cow)["inLove"] is False


def test_wheat_fed_to_a_calf_ages_it_by_a_tenth(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    stage(sandbox, helper, 4)
    hold(sandbox, "wheat", 2)
    calf = spawn(sandbox, "cow", dx=2, ai=False, baby=True)
    sandbox.op("set_animal", mob=calf, age=-20000)

    helper.interact(calf)

    grown = eventually(lambda: animal(sandbox, calf)["age"] > -19000, 10, "the calf older")
    assert grown
    # 10 % of the 1000 s it had left, in whole seconds: 99 or 100 s, about 2000 ticks
    assert -18100 <= animal(sandbox, calf)["age"] <= -17500
    assert animal(sandbox, calf)["baby"] is True and held(sandbox) == {"wheat": 1}


# --- wool -----------------------------------------------------------------------------------


def test_shears_on_a_sheep_drop_its_colours_wool_shear_it_and_wear_the_shears(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    stage(sandbox, helper, 5)
    hold(sandbox, "shears")
    sheep = spawn(sandbox, "sheep", dx=1, ai=False)  # its wool falls within the pickup reach
    sandbox.op("set_animal", mob=sheep, colour="black", sheared=False)

    helper.interact(sheep)

    eventually(lambda: animal(sandbox, sheep)["sheared"], 10, "the sheep sheared")
    [cut] = sandbox.op("husbandry_stats")["sheared"]
    assert cut["mob"] == sheep and cut["item"] == "black_wool" and 1 <= cut["count"] <= 3
    assert cut["shearsUsed"] == 1
    eventually(lambda: held(sandbox).get("black_wool") == cut["count"], 10, "the wool picked up")

    helper.interact(sheep)  # a sheared sheep has nothing more to give

    assert poll(lambda: len(sandbox.op("husbandry_stats")["sheared"]) > 1, 2) is None


def test_a_sheared_sheep_eats_grass_and_grows_its_wool_back(
    sandbox: EmbeddedWorld, helper: HelperBot, scaled: EmbeddedWorld
) -> None:
    x, z = stage(sandbox, helper, 6, floor="grass_block")
    sheep = spawn(sandbox, "sheep", dx=3)
    sandbox.op("set_animal", mob=sheep, sheared=True)

    eventually(lambda: not animal(sandbox, sheep)["sheared"], 20, "the wool grown back")

    eaten = [e for e in sandbox.op("husbandry_stats")["eaten"] if e["mob"] == sheep]
    assert eaten, "the wool grew back without the sheep eating"
    at = eaten[0]["at"]
    assert at["y"] == SKY - 1 and abs(at["x"] - x) <= R and abs(at["z"] - z) <= R
    assert sandbox.op("block_at", **at)["name"] == "dirt"


# --- pens -----------------------------------------------------------------------------------


CLOSED = {"open": False, "in_wall": False, "powered": False}
"""A fence gate's state but its facing: closed (a state's properties not given are their first
value: open, for a gate)."""


def pen(world: EmbeddedWorld, x: int, z: int) -> tuple[int, int, int]:
    """A ring of oak fences round (x, z), 7 x 7 (a 5 x 5 inside), with a closed gate in its
    east side: the gate's cell."""
    world.op("fill", x1=x - 3, y1=SKY, z1=z - 3, x2=x + 3, y2=SKY, z2=z + 3, block="oak_fence")
    world.op("fill", x1=x - 2, y1=SKY, z1=z - 2, x2=x + 2, y2=SKY, z2=z + 2, block="air")
    closed = {**CLOSED, "facing": "east"}
    world.op("set_block", x=x + 3, y=SKY, z=z, block="oak_fence_gate", properties=closed)
    return x + 3, SKY, z


def test_a_cow_cannot_leave_a_fence_pen_until_a_click_opens_its_gate(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 7)
    gx, gy, gz = pen(sandbox, x, z)
    teleport(sandbox, HELPER, x + 7.5, SKY, z + 0.5)  # outside, east of the gate
    helper.sees([(gx, gy, gz)], "oak_fence_gate")
    cow = spawn(sandbox, "cow", dx=-7)  # in the middle of the pen
    hold(sandbox, "wheat")
    eventually(lambda: animal(sandbox, cow)["tempter"] == HELPER, 10, "the cow tempted")

    def out() -> bool:
        pos = animal(sandbox, cow)["pos"]
        return bool(abs(pos["x"] - (x + 0.5)) > 3.2 or abs(pos["z"] - (z + 0.5)) > 3.2)

    assert poll(out, 8) is None, f"the cow got out: {animal(sandbox, cow)}"

    helper.click(gx, gy, gz, (1, 0, 0), use=False)  # a right click on its outer face

    eventually(lambda: gate(sandbox, gx, gy, gz)["open"], 10, "the gate open")
    eventually(out, 30, "the cow out through the gate")


def test_a_click_on_an_open_gate_closes_it_and_opening_turns_it_to_face_away(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 8)
    closed = {**CLOSED, "facing": "west"}
    sandbox.op("set_block", x=x + 2, y=SKY, z=z, block="oak_fence_gate", properties=closed)
    helper.sees([(x + 2, SKY, z)], "oak_fence_gate")

    helper.click(x + 2, SKY, z, (-1, 0, 0), use=False)  # the bot looks east at it, it faced her

    eventually(lambda: gate(sandbox, x + 2, SKY, z)["open"], 10, "the gate open")
    assert gate(sandbox, x + 2, SKY, z)["facing"] == "east"  # turned to open away from her

    helper.click(x + 2, SKY, z, (-1, 0, 0), use=False)

    eventually(lambda: not gate(sandbox, x + 2, SKY, z)["open"], 10, "the gate closed")


def test_a_cow_walking_straight_at_a_tempting_player_does_not_jump_a_fence(
    sandbox: EmbeddedWorld, helper: HelperBot, straight: EmbeddedWorld
) -> None:
    x, z = stage(sandbox, helper, 9)
    sandbox.op("fill", x1=x + 2, y1=SKY, z1=z - R, x2=x + 2, y2=SKY, z2=z + R, block="oak_fence")
    teleport(sandbox, HELPER, x + 5.5, SKY, z + 0.5)
    helper.sees([(x + 2, SKY, z)], "oak_fence")
    cow = spawn(sandbox, "cow", dx=-6)  # west of the fence, 6 blocks from the bot
    hold(sandbox, "wheat")
    eventually(lambda: animal(sandbox, cow)["tempter"] == HELPER, 10, "the cow tempted")
    eventually(lambda: animal(sandbox, cow)["pos"]["x"] > x + 1, 10, "the cow at the fence")

    assert poll(lambda: animal(sandbox, cow)["pos"]["x"] > x + 2, 6) is None, animal(sandbox, cow)
