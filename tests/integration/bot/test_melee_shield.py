"""Critical hits and the shield in fights: the real ``pepa start`` daemon against the survival
sandbox, whose server counts crits (``life_stats.crits``, mobs.js) and shield blocks
(``hazards.shieldBlocks``, combat.js)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.waiting import eventually
from tests.world_harness import own_daemon, server_player, teleport

BOT = "pepa_bot"

FLOOR_Y = 140
"""The arena: a stone floor at FLOOR_Y - 1 high in the sky, 25 x 25 blocks, nothing on it (no
cover from a skeleton: the policy charges it behind the shield)."""

HALF = 12

WALL = 3
"""The arena's walls: no mob backs off its edge and the bot charging after it does not fall to
its death (which would cost it the shield)."""


@pytest.fixture(scope="module")
def arena() -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    """The survival sandbox at noon, natural spawning off, one daemon for the module, the
    bot on a floor in the sky."""
    with own_daemon(time=6000) as (world, daemon):
        world.op("fill", x1=-HALF, y1=FLOOR_Y - 1, z1=-HALF, x2=HALF, y2=FLOOR_Y - 1, z2=HALF)
        top = FLOOR_Y + WALL - 1
        for a, b in ((-HALF - 1, HALF + 1), (HALF + 1, -HALF - 1)):  # two sides at a time
            world.op("fill", x1=a, y1=FLOOR_Y - 1, z1=-HALF - 1, x2=a, y2=top, z2=HALF + 1)
            world.op("fill", x1=-HALF - 1, y1=FLOOR_Y - 1, z1=b, x2=HALF + 1, y2=top, z2=b)
        yield world, daemon


@pytest.fixture
def fresh(arena: tuple[EmbeddedWorld, Daemon]) -> EmbeddedWorld:
    """The arena with no mobs, the bot at full health and food, holding nothing."""
    world, _ = arena
    world.op("remove_mobs")
    # the server's position, not only the op's: a move packet the client sent before it
    # took the teleport can put it back for a moment, and mobs spawn round that position
    teleport(world, BOT, 0.5, FLOOR_Y, 0.5)
    world.op("clear_inventory", player=BOT)
    world.op("set_health", player=BOT, hp=20)
    world.op("set_food", player=BOT, food=20, saturation=5)
    return world


def alive(world: EmbeddedWorld, name: str) -> list[dict[str, Any]]:
    return list(world.op("life_mobs", name=name))


@pytest.mark.integration
@pytest.mark.xdist_group("melee_shield")
@pytest.mark.timeout(120)
def test_with_a_stone_sword_the_bot_lands_crits_on_a_zombie_and_kills_it(
    fresh: EmbeddedWorld,
) -> None:
    world = fresh
    world.op("give", player=BOT, item="stone_sword", slot=36)
    crits = world.op("life_stats")["crits"]
    zombie: list[int] = []

    def on_the_floor() -> bool:  # spawned round where the server has the bot: on the floor
        world.op("remove_mobs", name="zombie")
        zombie[:] = world.op("spawn_mob", player=BOT, name="zombie", dx=3)["ids"]
        state = world.op("life_mob", mob=zombie[0])
        return bool(state["alive"] and abs(state["position"]["y"] - FLOOR_Y) < 2)

    # by night: at noon the zombie burns, and would die in the end with no blow of the bot
    world.op("set_time", time=18000, cycle=False)
    try:
        eventually(on_the_floor, 10, "a zombie spawned on the arena's floor")
        eventually(
            lambda: not world.op("life_mob", mob=zombie[0])["alive"], 60, "the bot to kill it"
        )
    finally:
        world.op("set_time", time=6000, cycle=False)
    assert world.op("life_stats")["crits"] > crits


@pytest.mark.integration
@pytest.mark.xdist_group("melee_shield")
@pytest.mark.timeout(150)
def test_a_shield_in_the_off_hand_blocks_a_skeletons_arrows(fresh: EmbeddedWorld) -> None:
    """The skeleton backs off and burns at noon: another one comes at 8 blocks whenever none
    is left, and the bot is healed below 13 (at 12 it would flee), until an arrow hits the
    shield. The new one comes on the arena's side of the bot: 8 blocks east of a bot that had
    chased one to the east wall (or fled there) is beyond the wall, where a skeleton falls
    from the sky (CI once spent the 90 s so)."""
    world = fresh
    world.op("give", player=BOT, item="shield", slot=45)  # the off hand
    blocked = world.op("hazards", player=BOT)["shieldBlocks"]

    def on_the_shield() -> bool:
        if not alive(world, "skeleton"):
            bot = server_player(world, BOT)
            west = bot is not None and bot["position"]["x"] > 0
            world.op("spawn_mob", player=BOT, name="skeleton", dx=-8 if west else 8)
        state = world.op("hazards", player=BOT)
        if state["health"] < 13:
            world.op("set_health", player=BOT, hp=20)
        return bool(state["shieldBlocks"] > blocked)

    eventually(on_the_shield, 90, "an arrow on the bot's shield")
