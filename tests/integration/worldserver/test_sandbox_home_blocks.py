"""A home's beds and doors in the survival sandbox (docs/sandbox.md "Beds and doors"); its
chests are test_sandbox_chests.py's.

On the real server, with the bot's own JS module (tests/js/helper_bot.js): beds and doors placed
by the player, both halves, facing the way it looks; a bed refused when its head has no room;
either half broken taking the other, one item dropped; a placed bed slept in at night; a door
opened and closed by a right-click, walked through only open, iron not opened by hand; a mob's
path through an open door and never a closed one (life/path.js through node); a zombie kept
out by a closed door and let in by an open one. Each test stands the helper on a stone floor
of its own high in the sky.
"""

from __future__ import annotations

from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests import stages
from tests.js import run_node
from tests.waiting import eventually, poll
from tests.world_harness import HelperBot, block, give, server_player

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(120),
    pytest.mark.xdist_group("sandbox_home_blocks"),  # one world for the module, on one worker
]

SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""
HELPER = "homer"
SKY = 160


def stage(world: EmbeddedWorld, helper: HelperBot, n: int) -> tuple[int, int]:
    """A stone floor at SKY - 1 round (x, z), the place of test ``n``, its air cleared above, the
    bot standing at its middle and seeing it."""
    x, z = 40 * n - 200, -260
    stages.floor(world, helper, x, z, sky=SKY)
    return x, z


def state(world: EmbeddedWorld, x: int, y: int, z: int) -> tuple[str, dict[str, Any]]:
    """The block at a cell and its state's properties, on the server."""
    found = world.op("block_at", x=x, y=y, z=z)
    return found["name"], dict(found["properties"] or {})


def dropped(world: EmbeddedWorld, x: float, z: float) -> dict[str, int]:
    """The items lying on the ground within 3 blocks of (x, z), by name."""
    items: dict[str, int] = {}
    for e in world.op("entities"):
        p = e["position"]
        if "item" in e and abs(p["x"] - x) <= 3 and abs(p["z"] - z) <= 3:
            items[e["item"]] = items.get(e["item"], 0) + e["count"]
    return items


def held(world: EmbeddedWorld) -> dict[str, int]:
    return dict(world.op("inventory", player=HELPER))


# --- beds -------------------------------------------------------------------------------------


def test_a_placed_bed_lies_from_the_cell_clicked_the_way_the_player_looks(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 0)
    give(sandbox, helper, {"red_bed": 1, "blue_bed": 1})

    # the player at (x, z) looks north at the floor 2 cells away, then east
    assert helper.place("red_bed", x, SKY - 1, z - 2, (0, 1, 0)) is True
    assert helper.place("blue_bed", x + 2, SKY - 1, z, (0, 1, 0)) is True

    def bed(part: str, facing: str) -> dict[str, Any]:
        return {"part": part, "facing": facing, "occupied": False}

    assert state(sandbox, x, SKY, z - 2) == ("red_bed", bed("foot", "north"))
    assert state(sandbox, x, SKY, z - 3) == ("red_bed", bed("head", "north"))
    assert state(sandbox, x + 2, SKY, z) == ("blue_bed", bed("foot", "east"))
    assert state(sandbox, x + 3, SKY, z) == ("blue_bed", bed("head", "east"))
    assert held(sandbox) == {}


def test_a_bed_whose_head_has_no_room_is_refused_and_kept(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 1)
    sandbox.op("set_block", x=x, y=SKY, z=z - 3, block="stone")  # where the head would go
    give(sandbox, helper, {"red_bed": 1})
    helper.sees([(x, SKY, z - 3)], "stone")

    refused = helper.place("red_bed", x, SKY - 1, z - 2, (0, 1, 0))

    assert refused is not True and "refused" in refused, refused  # told at once, not timed out
    assert block(sandbox, x, SKY, z - 2) == "air"
    assert held(sandbox) == {"red_bed": 1}


def test_breaking_a_beds_head_takes_its_foot_and_drops_one_bed(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 2)
    # 3 blocks off: out of the 1.75 blocks within which the player would pick the drop up
    sandbox.op("place_bed", x=x, y=SKY, z=z - 3, facing="north", color="lime")
    helper.sees([(x, SKY, z - 4)], "lime_bed")

    helper.dig(x, SKY, z - 4)  # the head

    eventually(lambda: block(sandbox, x, SKY, z - 3) == "air", 10, "the foot gone")
    assert block(sandbox, x, SKY, z - 4) == "air"
    assert eventually(lambda: dropped(sandbox, x, z - 3), 10, "the drop") == {"lime_bed": 1}


def test_a_bed_the_player_placed_is_slept_in_at_night(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 3)
    give(sandbox, helper, {"white_bed": 1})
    assert helper.place("white_bed", x + 2, SKY - 1, z, (0, 1, 0)) is True
    sandbox.op("set_time", time=18000, cycle=False)
    try:
        done = helper.act("sleep", x=x + 2, y=SKY, z=z)
        assert done["ok"], f"the sleep failed: {done}"
        # the only player asleep: after 100 ticks the morning comes (fixes/beds.js)
        eventually(lambda: sandbox.op("ping")["time"] % 24000 < 1000, 20, "the morning")
    finally:
        sandbox.op("set_time", time=6000, cycle=False)


# --- doors ------------------------------------------------------------------------------------


def set_door(world: EmbeddedWorld, x: int, z: int, name: str, door: dict[str, Any]) -> None:
    """Both halves of a door in this state at (x, SKY, z), by the world's op."""
    for half, y in (("lower", SKY), ("upper", SKY + 1)):
        world.op("set_block", x=x, y=y, z=z, block=name, properties={**door, "half": half})


def walled(world: EmbeddedWorld, x: int, z: int) -> None:
    """A stone wall two high along z, x - 6 .. x + 6, with a gap for a door at x."""
    world.op("fill", x1=x - 6, y1=SKY, z1=z, x2=x + 6, y2=SKY + 1, z2=z)
    world.op("fill", x1=x, y1=SKY, z1=z, x2=x, y2=SKY + 1, z2=z, block="air")


def test_a_placed_door_stands_two_high_and_opens_and_closes_on_a_click(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 4)
    walled(sandbox, x, z - 2)
    give(sandbox, helper, {"oak_door": 1})
    helper.sees([(x + 1, SKY, z - 2)], "stone")

    assert helper.place("oak_door", x, SKY - 1, z - 2, (0, 1, 0)) is True

    door = {"facing": "north", "hinge": "left", "open": False, "powered": False}
    assert state(sandbox, x, SKY, z - 2) == ("oak_door", {**door, "half": "lower"})
    assert state(sandbox, x, SKY + 1, z - 2) == ("oak_door", {**door, "half": "upper"})
    assert held(sandbox) == {}
    helper.click(x, SKY + 1, z - 2, (0, 0, 1), use=False)  # the upper half opens both
    eventually(lambda: state(sandbox, x, SKY, z - 2)[1]["open"], 10, "the door open")
    assert state(sandbox, x, SKY + 1, z - 2)[1]["open"] is True
    helper.click(x, SKY, z - 2, (0, 0, 1), use=False)
    eventually(lambda: not state(sandbox, x, SKY + 1, z - 2)[1]["open"], 10, "the door shut")
    assert state(sandbox, x, SKY, z - 2)[1]["open"] is False


def test_the_player_walks_through_an_open_door_and_not_a_closed_one(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 5)
    walled(sandbox, x, z - 2)
    door = {"facing": "north", "hinge": "left", "open": False, "powered": False}
    set_door(sandbox, x, z - 2, "oak_door", door)
    helper.sees([(x, SKY, z - 2), (x, SKY + 1, z - 2)], "oak_door")

    # closed, its panel along the cell's south side (z - 1 - 3/16 .. z - 1) stops the player's
    # 0.6-wide box with its middle at z - 0.7
    stopped = helper.walk(x + 0.5, z - 3.5, 3000)
    assert z - 0.75 < stopped["z"] < z - 0.65, stopped
    helper.click(x, SKY, z - 2, (0, 0, 1), use=False)
    eventually(lambda: state(sandbox, x, SKY, z - 2)[1]["open"], 10, "the door open")
    eventually(lambda: (helper.state(x, SKY, z - 2) or {}).get("open"), 10, "the client told")
    through = helper.walk(x + 0.5, z - 3.5, 3000)
    assert through["z"] < z - 3.2, through


def test_an_iron_door_does_not_open_by_hand(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    x, z = stage(sandbox, helper, 6)
    door = {"facing": "north", "hinge": "left", "open": False, "powered": False}
    set_door(sandbox, x, z - 2, "iron_door", door)
    helper.sees([(x, SKY, z - 2)], "iron_door")
    mark = sandbox.op("ping")["tick"]

    helper.click(x, SKY, z - 2, (0, 0, 1), use=False)

    eventually(lambda: sandbox.op("ping")["tick"] >= mark + 10, 10, "10 server ticks")
    assert state(sandbox, x, SKY, z - 2)[1]["open"] is False


def test_breaking_a_doors_lower_half_takes_the_upper_and_drops_one_door(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 7)
    give(sandbox, helper, {"spruce_door": 2, "wooden_axe": 1, "stone_pickaxe": 1})
    assert helper.place("spruce_door", x, SKY - 1, z - 3, (0, 1, 0)) is True
    assert helper.place("spruce_door", x, SKY - 1, z + 3, (0, 1, 0)) is True

    helper.dig(x, SKY, z - 3, "wooden_axe")
    # the second one stands on stone dug out from under it: it falls off
    helper.dig(x, SKY - 1, z + 3, "stone_pickaxe")

    for cell in ((x, SKY, z - 3), (x, SKY + 1, z - 3), (x, SKY, z + 3), (x, SKY + 1, z + 3)):
        eventually(lambda cell=cell: block(sandbox, *cell) == "air", 10, f"the door gone at {cell}")
    assert eventually(lambda: dropped(sandbox, x, z - 3), 10, "the drop") == {"spruce_door": 1}
    fell = eventually(lambda: dropped(sandbox, x, z + 3).get("spruce_door"), 10, "the fallen door")
    assert fell == 1


# --- a zombie at the door ---------------------------------------------------------------------

ZOMBIE_PATHS = r"""
const path = require(require('path').join(process.env.SANDBOX, 'life', 'path.js'))
const registry = require('prismarine-registry')('1.16.5')
const Block = require('prismarine-block')(registry)
const door = (open) => Block.fromProperties('oak_door',
  { facing: 'north', half: 'lower', hinge: 'left', open, powered: false }, 0).stateId
const kind = (name, state) => path.classify(registry.blocksByName[name], state)
// a stone floor at y = 0, a wall along x = 0 two high with a door at z = 0 in state `state`
function world (state) {
  return (x, y, z) => {
    if (y === 0) return kind('stone')
    if (x === 0 && (y === 1 || y === 2)) return z === 0 ? kind('oak_door', state) : kind('stone')
    return kind('air')
  }
}
const run = (state) => path.findPath(world(state), { x: -5, y: 1, z: 0 }, { x: 5, y: 1, z: 0 },
  { width: 0.6, height: 1.95 })
const closed = run(door(false))
const open = run(door(true))
console.log(JSON.stringify({
  closed: { complete: closed.complete, nodes: closed.nodes },
  open: { complete: open.complete, nodes: open.nodes },
  kinds: [kind('oak_door', door(false)), kind('oak_door', door(true)), kind('oak_door')]
}))
"""


def test_a_mobs_path_goes_through_an_open_door_and_never_a_closed_one() -> None:
    found = run_node(ZOMBIE_PATHS)
    # closed, open, and with no state (its default, closed): TALL, OPEN, TALL
    assert found["kinds"] == [4, 0, 4]
    assert not found["closed"]["complete"]
    assert all(n["x"] < 0 for n in found["closed"]["nodes"])
    assert found["open"]["complete"]
    assert {"x": 0, "y": 1, "z": 0} in found["open"]["nodes"]


def test_a_zombie_is_kept_out_by_a_closed_door_and_comes_in_by_an_open_one(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 8)
    # a stone room round the player, x - 2 .. x + 2, z - 2 .. z + 2, roofed; the north wall
    # open at head height but for the door (the zombie sees in, and cannot climb in)
    sandbox.op("fill", x1=x - 2, y1=SKY, z1=z - 2, x2=x + 2, y2=SKY + 2, z2=z + 2)
    sandbox.op("fill", x1=x - 1, y1=SKY, z1=z - 1, x2=x + 1, y2=SKY + 1, z2=z + 1, block="air")
    sandbox.op("fill", x1=x - 1, y1=SKY + 1, z1=z - 2, x2=x + 1, y2=SKY + 1, z2=z - 2, block="air")
    door = {"facing": "north", "hinge": "left", "open": False, "powered": False}
    set_door(sandbox, x, z - 2, "oak_door", door)
    sandbox.op("set_health", player=HELPER, hp=20)
    sandbox.op("set_time", time=18000, cycle=False)  # no burning in the sun
    try:
        # off the door's line, so that it sees the player through the opening beside it
        zombie = sandbox.op("spawn_mob", player=HELPER, name="zombie", dx=2, dz=-5)["ids"][0]
        eventually(
            lambda: sandbox.op("life_mob", mob=zombie)["target"] == HELPER, 15, "the zombie to see"
        )

        def health() -> float:
            now = server_player(sandbox, HELPER)
            assert now is not None
            return float(now["health"])

        # it comes up to the door and stays outside
        eventually(
            lambda: sandbox.op("life_mob", mob=zombie)["position"]["z"] > z - 3.5, 20, "at the door"
        )
        assert poll(lambda: health() < 20, 8) is None, sandbox.op("life_mob", mob=zombie)
        assert sandbox.op("life_mob", mob=zombie)["position"]["z"] < z - 2

        set_door(sandbox, x, z - 2, "oak_door", {**door, "open": True})
        eventually(lambda: health() < 20, 30, "the zombie's hit through the open door")
        assert sandbox.op("life_mob", mob=zombie)["position"]["z"] > z - 2
    finally:
        sandbox.op("remove_mobs")
        sandbox.op("set_time", time=6000, cycle=False)
        sandbox.op("set_health", player=HELPER, hp=20)
