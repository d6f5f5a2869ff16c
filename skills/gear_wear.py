"""gear.wear: put on the best armour held and a shield in the off-hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started

ARMOUR = ("_helmet", "_chestplate", "_leggings", "_boots")


def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
    # the inventory's counts include what is worn: only pieces beyond those are to put on
    spare = [
        n
        for n in world.inventory
        if (n.endswith(ARMOUR) or n == "shield") and world.inventory.count(n) > world.worn.count(n)
    ]
    return None if spare else "no armour or shield to put on"


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(link.act("wear"), "wear")


SKILL = Skill(
    id="gear.wear",
    description="Put on the best armour held and hold a shield in the off-hand.",
    coach_may_dispatch=True,
    precondition=_precondition,
    runner=_run,
)
