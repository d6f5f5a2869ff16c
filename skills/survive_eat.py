"""survive.eat: eat the best food in the inventory."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started


def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
    item = args.get("item")
    if not item or world.inventory.count(str(item)) <= 0:
        return f"no {item or 'food'} in the inventory"
    return None


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(link.act("eat", item=str(args["item"])), "eat")


SKILL = Skill(
    id="survive.eat",
    description="Eat the best food in the inventory (32 ticks; food and saturation rise).",
    coach_may_dispatch=True,
    precondition=_precondition,
    runner=_run,
)
