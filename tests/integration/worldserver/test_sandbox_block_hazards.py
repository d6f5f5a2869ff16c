"""Blocks that hurt in the survival sandbox, and traps, through a real mineflayer client.

Magma blocks, cactus, sweet berry bushes, campfires and wither roses (with the
Wither effect) from ``pepa/worldserver/js/plugins/hazards.js``, the pit and
gravel traps of ``pepa/worldserver/js/plugins/traps.js``
(docs/sandbox-life.md "Damage and hazards"), each through the damage funnel
with its vanilla death message. One seeded sandbox and one player, ``alice``,
for the module; each test plays on its own stone floor high above the terrain.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pepa.base.node import WorldError
from pepa.worldserver.process import EmbeddedWorld
from tests.integration.worldserver.sandbox_alice import (
    NAME,
    command,
    feet,
    first_hurt,
    fresh_floor,
    hazards,
    me,
    unhurt,
)
from tests.waiting import eventually
from tests.world_harness import Player, teleport

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(60),
    pytest.mark.xdist_group("sandbox_block_hazards"),  # one world for the module, on one worker
]


SANDBOX = {"time": 6000}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped."""

BERRY_BUSH = 14962
"""minecraft-data 1.16.5: sweet_berry_bush's first state, age 0 (its only property)."""
CAMPFIRE = 14898
"""minecraft-data 1.16.5: campfire's first state; its default, + 3, is lit."""
CAMPFIRE_UNLIT = 7
"""campfire's state + 7: facing north, not lit, no signal fire, not waterlogged."""


@pytest.fixture(scope="module")
def module_alice(sandbox: EmbeddedWorld) -> Iterator[Player]:
    player = Player(sandbox, NAME)
    yield player
    player.close()


_arenas = iter(range(100))


@pytest.fixture
def alice(sandbox: EmbeddedWorld, module_alice: Player) -> Player:
    """Alice alive, healthy, standing, alone and on a fresh floor of her own."""
    return fresh_floor(sandbox, module_alice, next(_arenas), wither=0)


def last_damage(sandbox: EmbeddedWorld) -> dict[str, Any]:
    """The last blow alice took (the ``hazards`` op's ``lastDamage``)."""
    hit = hazards(sandbox)["lastDamage"]
    assert hit is not None
    return dict(hit)


def ticks(sandbox: EmbeddedWorld, n: int) -> None:
    """Wait until the sandbox has ticked ``n`` more times."""
    start = hazards(sandbox)["tick"]
    eventually(lambda: hazards(sandbox)["tick"] >= start + n, 10, f"{n} ticks")


def hurts_since(player: Player, start: int) -> list[float]:
    return [e["health"] for e in player.since(start) if e["type"] == "health" and e["health"] < 20]


def death_message(player: Player, start: int, timeout: float = 15) -> str:
    """The text of the first system chat line after ``start`` that says alice died."""
    event = player.wait_for(
        lambda e: e["type"] == "chat" and e.get("from") is None and e["text"].startswith(NAME),
        timeout,
        start,
    )
    return str(event["text"])


def unhurt_for(sandbox: EmbeddedWorld, player: Player, n: int = 30) -> None:
    """Alice takes no damage in the next ``n`` ticks."""
    before = hazards(sandbox)["lastDamage"]
    mark = player.mark()
    ticks(sandbox, n)
    assert hazards(sandbox)["lastDamage"] == before
    assert me(sandbox)["health"] == 20
    assert not hurts_since(player, mark)


def set_state(
    sandbox: EmbeddedWorld, at: tuple[int, int, int], block: str, state: tuple[int, int]
) -> None:
    """Set ``block`` at ``at`` in state ``first + data`` (``state``: its first state and the
    offset), not its default: the console's /setblock, which sets the state minStateId + data
    a moment after the command returns."""
    x, y, z = at
    first, data = state
    sandbox.op("command", text=f"setblock {x} {y} {z} {block} {data}")
    eventually(
        lambda: sandbox.op("block_at", x=x, y=y, z=z)["stateId"] == first + data,
        5,
        f"the {block} there",
    )


def die_by(sandbox: EmbeddedWorld, player: Player) -> str:
    """Let the next blow of the hazard alice is in kill her; the death message it gets."""
    mark = player.mark()
    sandbox.op("set_health", player=NAME, hp=1)
    return death_message(player, mark)


def test_a_magma_block_burns_a_player_standing_on_it_but_not_a_crouching_one(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = feet(sandbox)
    mark = alice.mark()
    sandbox.op("set_block", x=x, y=y - 1, z=z, block="magma_block")
    assert first_hurt(alice, mark) == 19
    assert last_damage(sandbox)["type"] == "hotFloor"

    # vanilla MagmaBlock.stepOn: not for one stepping carefully (crouching)
    command(alice, "control", state="sneak", on=True)
    eventually(lambda: hazards(sandbox)["flags"] == 0x02, 5, "alice crouching")
    eventually(lambda: unhurt(sandbox), 5, "the 10 ticks of hurt immunity to pass")
    sandbox.op("set_health", player=NAME, hp=20)
    unhurt_for(sandbox, alice)

    mark = alice.mark()
    command(alice, "control", state="sneak", on=False)
    assert first_hurt(alice, mark) == 19
    assert die_by(sandbox, alice) == "alice discovered the floor was lava"


def test_a_cactus_pricks_a_player_touching_its_cell_and_not_one_beside_it(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = feet(sandbox)
    # alice in the middle of her cell: her 0.6-wide box is 0.2 short of the cactus's cell
    sandbox.op("set_block", x=x + 1, y=y, z=z, block="cactus")
    unhurt_for(sandbox, alice)

    # her box's side on the cell's face is no touch (vanilla deflates the box: a player beside
    # a cactus on the floor below is not pricked)
    teleport(sandbox, alice, x + 0.7, y, z + 0.5)
    unhurt_for(sandbox, alice)
    # her box into the cell, as far as the cactus's collision (1/16 inside its cell) lets a
    # player press: it pricks (vanilla CactusBlock.entityInside)
    mark = alice.mark()
    teleport(sandbox, alice, x + 0.75, y, z + 0.5)
    assert first_hurt(alice, mark) == 19
    assert last_damage(sandbox)["type"] == "cactus"
    assert die_by(sandbox, alice) == "alice was pricked to death"


def test_a_grown_sweet_berry_bush_pricks_a_moving_player_only(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = feet(sandbox)
    # age 0 (the default state) pricks nobody, moving or not
    sandbox.op("set_block", x=x, y=y, z=z, block="sweet_berry_bush")
    mark = alice.mark()
    for side in (0.3, 0.7, 0.3, 0.5):
        teleport(sandbox, alice, x + side, y, z + 0.5)
        ticks(sandbox, 2)
    assert not hurts_since(alice, mark)
    assert me(sandbox)["health"] == 20

    # age 3 pricks one moving in it by 0.003 blocks or more a tick, not one standing still
    set_state(sandbox, (x, y, z), "sweet_berry_bush", (BERRY_BUSH, 3))
    unhurt_for(sandbox, alice)
    mark = alice.mark()
    teleport(sandbox, alice, x + 0.3, y, z + 0.5)
    assert first_hurt(alice, mark) == 19
    assert last_damage(sandbox)["type"] == "sweetBerryBush"

    eventually(lambda: unhurt(sandbox), 5, "the 10 ticks of hurt immunity to pass")
    sandbox.op("set_health", player=NAME, hp=1)
    mark = alice.mark()
    sandbox.op("teleport", player=NAME, x=x + 0.7, y=y, z=z + 0.5)
    assert death_message(alice, mark) == "alice was poked to death by a sweet berry bush"


def test_a_lit_campfire_burns_a_player_in_it_and_an_unlit_one_does_not(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = feet(sandbox)
    mark = alice.mark()
    sandbox.op("set_block", x=x, y=y, z=z, block="campfire")  # the default state is lit
    assert first_hurt(alice, mark) == 19
    assert last_damage(sandbox)["type"] == "inFire"

    set_state(sandbox, (x, y, z), "campfire", (CAMPFIRE, CAMPFIRE_UNLIT))
    eventually(lambda: unhurt(sandbox), 5, "the 10 ticks of hurt immunity to pass")
    sandbox.op("set_health", player=NAME, hp=20)
    unhurt_for(sandbox, alice)

    # vanilla CampfireBlock fireDamage: a soul campfire 2
    mark = alice.mark()
    sandbox.op("set_block", x=x, y=y, z=z, block="soul_campfire")
    assert first_hurt(alice, mark) == 18
    assert last_damage(sandbox)["type"] == "inFire"
    assert die_by(sandbox, alice) == "alice went up in flames"


def test_a_wither_rose_withers_and_wither_hurts_every_40_ticks(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = feet(sandbox)
    # vanilla WitherRoseBlock.entityInside: Wither I renewed to 40 ticks each tick in the rose;
    # MobEffect WITHER hurts at the multiples of 40 left, so in the rose every tick
    mark = alice.mark()
    sandbox.op("set_block", x=x, y=y, z=z, block="wither_rose")
    assert first_hurt(alice, mark) == 19
    state = hazards(sandbox)
    assert state["lastDamage"]["type"] == "wither"
    assert 0 < state["wither"] <= 40
    sandbox.op("set_block", x=x, y=y, z=z, block="air")
    out = hazards(sandbox)["tick"]
    eventually(lambda: hazards(sandbox)["wither"] == 0, 5, "the Wither effect to run out")
    assert last_damage(sandbox)["tick"] < out  # none after the rose

    # 80 ticks of Wither I: a hit at 80 left and one at 40, no more
    eventually(lambda: unhurt(sandbox), 5, "the 10 ticks of hurt immunity to pass")
    sandbox.op("set_health", player=NAME, hp=20)
    mark = alice.mark()
    assert hazards(sandbox, wither=80)["wither"] == 80
    assert first_hurt(alice, mark) == 19
    first = last_damage(sandbox)
    assert first["type"] == "wither"
    second = eventually(
        lambda: (hit := last_damage(sandbox))["tick"] != first["tick"] and hit, 5, "the second hit"
    )
    assert (second["type"], second["tick"] - first["tick"]) == ("wither", 40)
    eventually(lambda: hazards(sandbox)["wither"] == 0, 5, "the Wither effect to run out")
    assert last_damage(sandbox) == second
    assert me(sandbox)["health"] == 18

    eventually(lambda: unhurt(sandbox), 5, "the 10 ticks of hurt immunity to pass")
    sandbox.op("set_health", player=NAME, hp=1)
    mark = alice.mark()
    hazards(sandbox, wither=40)
    assert death_message(alice, mark) == "alice withered away"


def test_a_pit_trap_drops_the_player_onto_the_floor_below(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = feet(sandbox)
    tx, depth = x + 3, 10
    sandbox.op("set_block", x=tx, y=y, z=z, block="stone_pressure_plate")
    sandbox.op("fill", x1=tx - 1, y1=y - depth - 1, z1=z - 1, x2=tx + 1, y2=y - depth - 1, z2=z + 1)
    trap = sandbox.op("trap", x=tx, y=y, z=z, effect="pit", depth=depth)["id"]
    assert sandbox.op("traps")["armed"] == [
        {"id": trap, "x": tx, "y": y, "z": z, "effect": "pit", "depth": depth}
    ]

    mark = alice.mark()
    sandbox.op("teleport", player=NAME, x=tx + 0.5, y=y, z=z + 0.5)  # onto the plate
    eventually(lambda: me(sandbox)["position"]["y"] == y - depth, 10, "alice at the bottom")
    # ceil(fall distance - 3) of a 10-block drop (the landing move's drop not counted)
    assert 20 - first_hurt(alice, mark) in (6, 7)
    assert last_damage(sandbox)["type"] == "fall"
    traps = sandbox.op("traps")
    assert traps["armed"] == []
    (fired,) = [t for t in traps["fired"] if t["id"] == trap]
    assert (fired["player"], fired["effect"]) == (NAME, "pit")
    assert sandbox.op("block_at", x=tx, y=y, z=z)["name"] == "air"
    assert sandbox.op("block_at", x=tx + 1, y=y - 1, z=z - 1)["name"] == "air"


def test_a_gravel_trap_buries_the_player(sandbox: EmbeddedWorld, alice: Player) -> None:
    x, y, z = feet(sandbox)
    tx = x + 3
    sandbox.op("set_block", x=tx, y=y, z=z, block="tripwire")
    trap = sandbox.op("trap", x=tx, y=y, z=z, effect="gravel")["id"]

    mark = alice.mark()
    sandbox.op("teleport", player=NAME, x=tx + 0.5, y=y, z=z + 0.5)  # onto the tripwire
    assert first_hurt(alice, mark) == 19
    assert last_damage(sandbox)["type"] == "inWall"
    for dy in range(4):
        assert sandbox.op("block_at", x=tx, y=y + dy, z=z)["name"] == "gravel"
    assert sandbox.op("block_at", x=tx - 1, y=y + 1, z=z + 1)["name"] == "gravel"
    (fired,) = [t for t in sandbox.op("traps")["fired"] if t["id"] == trap]
    assert (fired["player"], fired["effect"]) == (NAME, "gravel")
    sandbox.op("fill", x1=tx - 1, y1=y, z1=z - 1, x2=tx + 1, y2=y + 3, z2=z + 1, block="air")


def test_bad_trap_arguments_are_errors_and_clear_traps_disarms(
    sandbox: EmbeddedWorld, module_alice: Player
) -> None:
    good = {"x": 0, "y": 100, "z": 0, "effect": "pit"}
    bad: list[tuple[dict[str, Any], str]] = [
        ({"x": "a"}, "x must be an integer"),
        ({"z": 1.5}, "z must be an integer"),
        ({"y": None}, "y must be an integer"),
        ({"y": 300}, "y must be 0 to 255"),
        ({"effect": "boom"}, "effect must be one of pit, gravel"),
        ({"depth": 100}, "depth must be 2 to 60"),
        ({"depth": 1}, "depth must be 2 to 60"),
        ({"y": 5, "depth": 10}, "would go below y 0"),
        ({"player": "nobody"}, "no such player"),
    ]
    armed = sandbox.op("traps")["armed"]
    for change, message in bad:
        with pytest.raises(WorldError, match=message):
            sandbox.op("trap", **{**good, **change})
    assert sandbox.op("traps")["armed"] == armed
    sandbox.op("clear_traps")

    trap = sandbox.op("trap", **good, depth=5, player=NAME)["id"]
    with pytest.raises(WorldError, match=f"trap {trap} is already armed at 0,100,0"):
        sandbox.op("trap", **good)
    assert sandbox.op("clear_traps") == {"cleared": 1}
    assert sandbox.op("traps")["armed"] == []
    assert sandbox.op("ping")["pong"]
