"""Alice in the survival sandbox: the player the damage and block-hazard modules hurt, each
test on a fresh stone floor of its own high above the terrain, and what they read of her."""

from __future__ import annotations

from typing import Any

from pepa.worldserver.process import EmbeddedWorld
from tests.waiting import eventually
from tests.world_harness import Player, server_player, teleport

NAME = "alice"
FLOOR_Y = 100
"""Where players stand: on a stone floor at FLOOR_Y - 1, open sky, nothing in the way."""


def fresh_floor(sandbox: EmbeddedWorld, alice: Player, n: int, **reset: Any) -> Player:
    """Alice alive, healthy, empty-handed, alone and standing still on floor ``n`` (24 blocks
    apart, all within 50 blocks of the origin), hurt immunity and spawn invulnerability past;
    ``reset``: more of the ``hazards`` op to set (``wither=0``)."""
    sandbox.op("remove_mobs")
    eventually(lambda: me(sandbox)["health"] > 0, 15, "alice to respawn")
    sandbox.op("clear_inventory", player=NAME)
    sandbox.op("set_food", player=NAME, food=17, saturation=0)  # no regeneration, no starvation
    sandbox.op("set_health", player=NAME, hp=20)
    sandbox.op("hazards", player=NAME, air=300, fire=-20, **reset)
    x, z = 24 * (n % 5 - 2), 24 * (n // 5 - 1)
    sandbox.op("fill", x1=x - 6, y1=FLOOR_Y - 1, z1=z - 6, x2=x + 14, y2=FLOOR_Y - 1, z2=z + 6)
    teleport(sandbox, alice, x + 0.5, FLOOR_Y, z + 0.5)
    eventually(
        lambda: hazards(sandbox)["fall"] == 0 and me(sandbox)["health"] == 20, 5, "a still alice"
    )
    eventually(lambda: unhurt(sandbox), 5, "the 10 ticks of hurt immunity to pass")
    eventually(
        lambda: hazards(sandbox)["invulnerable"] == 0, 5, "the spawn invulnerability to pass"
    )
    return alice


def me(sandbox: EmbeddedWorld) -> dict[str, Any]:
    player = server_player(sandbox, NAME)
    assert player is not None
    return player


def hazards(sandbox: EmbeddedWorld, **set_: Any) -> dict[str, Any]:
    return dict(sandbox.op("hazards", player=NAME, **set_))


def unhurt(sandbox: EmbeddedWorld) -> bool:
    """No hurt immunity left from the last blow (vanilla: 10 ticks)."""
    state = hazards(sandbox)
    return state["lastDamage"] is None or state["tick"] - state["lastDamage"]["tick"] >= 10


def command(player: Player, op: str, **args: Any) -> None:
    """Send one of operator.js's survival commands."""
    player._send({"op": op, **args})


def feet(sandbox: EmbeddedWorld) -> tuple[int, int, int]:
    here = me(sandbox)["position"]
    return int(here["x"] // 1), int(here["y"] // 1), int(here["z"] // 1)


def first_hurt(player: Player, start: int, timeout: float = 15) -> float:
    """The health of the first update below 20 after ``start``."""
    event = player.wait_for(lambda e: e["type"] == "health" and e["health"] < 20, timeout, start)
    return float(event["health"])
