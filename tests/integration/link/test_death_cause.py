"""Why the bot died, on the real survival sandbox: bot_helper.js (tests/js/helper_bot.js, no
daemon) through a fall, a zombie, lava, and another player's death message that is not the
bot's. Each scenario on a stone floor of its own high above the terrain."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.waiting import eventually
from tests.world_harness import HelperBot, Player, feet, server_player, teleport

BOT = "fallen_bot"

OTHER = "alice_lava"

FLOOR_Y = 120
"""Each scenario stands on a stone floor at FLOOR_Y - 1 of its own, high above the terrain."""


SANDBOX = {"time": 18000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): midnight (a zombie does not burn), the clock
stopped, no mobs."""


@pytest.fixture
def helper(sandbox: EmbeddedWorld) -> Iterator[HelperBot]:
    """A fresh client for each death: one that died and respawned in an earlier test carried
    that into the next (its blows classified as generic, a fire still burning) once the
    module's tests really shared a worker (pytest-xdist's groups had been lost before)."""
    bot = HelperBot(sandbox, BOT)
    yield bot
    bot.close()


_floors = iter(range(20))


def floor(
    sandbox: EmbeddedWorld, who: str, hp: float = 20, food: int = 20, saturation: float = 5
) -> tuple[float, float]:
    """A fresh 7 x 7 floor of its own; ``who`` in its middle at ``hp``, no longer spawn
    invulnerable. Returns its centre."""
    n = next(_floors)
    bx, bz = 40 * (n % 4) - 60, 40 * (n // 4) - 60
    sandbox.op("remove_mobs")
    sandbox.op("fill", x1=bx - 3, y1=FLOOR_Y - 1, z1=bz - 3, x2=bx + 3, y2=FLOOR_Y - 1, z2=bz + 3)
    x, z = bx + 0.5, bz + 0.5
    teleport(sandbox, who, x, FLOOR_Y, z)
    # a drop of a block and a half onto it: the client falls only once it has the chunk
    # (mineflayer runs no physics in an unloaded one) and then sees what is placed there
    sandbox.op("teleport", player=who, x=x, y=FLOOR_Y + 1.5, z=z)
    eventually(lambda: landed(sandbox, who), 30, f"{who} standing on the floor")
    sandbox.op("set_health", player=who, hp=hp)
    sandbox.op("set_food", player=who, food=food, saturation=saturation)
    sandbox.op("hazards", player=who, invulnerable=0, fire=-20)  # not burning from a last death
    return x, z


def landed(sandbox: EmbeddedWorld, who: str) -> bool:
    player = server_player(sandbox, who)
    return player is not None and abs(player["position"]["y"] - FLOOR_Y) < 0.01


def death_after(helper: HelperBot, mark: int, timeout: float = 30.0) -> dict[str, Any]:
    """The helper's next death event; the respawn that follows comes after it."""
    death = helper.wait_for(lambda e: e["type"] == "death", timeout, mark)
    respawn = helper.wait_for(lambda e: e["type"] == "respawn", timeout, mark)
    events = helper.events[mark:]
    assert events.index(respawn) > events.index(death), "the respawn went out before the death"
    return dict(death["cause"])


@pytest.mark.integration
@pytest.mark.timeout(120)
@pytest.mark.xdist_group("death_cause")  # one world for the module
def test_a_fall_of_forty_blocks_is_a_fall(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    x, z = floor(sandbox, BOT)
    mark = helper.mark()
    sandbox.op("teleport", player=BOT, x=x, y=FLOOR_Y + 40, z=z)
    cause = death_after(helper, mark)
    assert cause["key"] in ("death.fell.accident.generic", "death.attack.fall"), cause
    assert cause["args"] == [BOT]
    last = cause["sources"][-1]
    assert last["kind"] == "fall" and last["fall"] >= 20, cause
    assert last["amount"] > 0 and last["ago"] <= 1.0


@pytest.mark.integration
@pytest.mark.timeout(120)
@pytest.mark.xdist_group("death_cause")
def test_a_zombie_beside_a_weak_bot_with_no_weapon_kills_it_as_a_mob(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    floor(sandbox, BOT, hp=2, food=17, saturation=0)  # no healing: one blow kills
    mark = helper.mark()
    sandbox.op("spawn_mob", player=BOT, name="zombie", dx=2)
    cause = death_after(helper, mark, timeout=60)
    assert cause["key"] == "death.attack.mob", cause
    assert cause["args"] == [BOT, "zombie"]
    assert cause["killer"] == "zombie"
    assert cause["text"] == f"{BOT} was slain by Zombie"
    assert (cause["sources"][-1]["kind"], cause["sources"][-1]["by"]) == ("mob", "zombie"), cause
    sandbox.op("remove_mobs")


@pytest.mark.integration
@pytest.mark.timeout(120)
@pytest.mark.xdist_group("death_cause")
def test_lava_at_the_feet_is_lava(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    floor(sandbox, BOT, hp=3)
    x, y, z = feet(sandbox, BOT)
    mark = helper.mark()
    sandbox.op("set_block", x=x, y=y, z=z, block="lava")
    cause = death_after(helper, mark)
    sandbox.op("set_block", x=x, y=y, z=z, block="air")
    assert cause["key"] == "death.attack.lava", cause
    assert cause["sources"][-1]["kind"] == "lava", cause


@pytest.mark.integration
@pytest.mark.timeout(120)
@pytest.mark.xdist_group("death_cause")
def test_another_players_death_message_is_not_the_bots(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    """The bot is killed with no message of its own (the test op goes round the damage funnel),
    and alice dies in lava while the bot still waits for one: hers is not taken."""
    alice = Player(sandbox, OTHER)
    try:
        floor(sandbox, OTHER, hp=1)
        floor(sandbox, BOT)
        x, y, z = feet(sandbox, OTHER)
        mark, seen = helper.mark(), alice.mark()
        sandbox.op("kill", player=BOT)
        sandbox.op("set_block", x=x, y=y, z=z, block="lava")
        alice.wait_for(
            lambda e: e["type"] == "chat" and "tried to swim in lava" in e.get("text", ""),
            start=seen,
        )
        # the premise: her message went out while the bot was still waiting for its own
        assert not any(e["type"] == "death" for e in helper.events[mark:]), "the bot did not wait"
        cause = death_after(helper, mark)
        sandbox.op("set_block", x=x, y=y, z=z, block="air")
    finally:
        alice.close()
    assert (cause["key"], cause["text"], cause["args"]) == (None, None, []), cause
    assert cause["killer"] != OTHER
    assert [s["kind"] for s in cause["sources"]] == ["generic"]
