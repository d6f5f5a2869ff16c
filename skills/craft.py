"""craft.<item>: make an item from minecraft-data's recipes, at a crafting table when needed.

One family of skills: ``craft.wooden_pickaxe``, ``craft.oak_planks`` … Each run
does the next step (gather, craft an ingredient, place a table, craft the
item) planned from the inventory of the moment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.game.steps import recipes
from pepa.world.view import WorldView
from skills._base import Link, Skill, Started
from skills._making import run_step


def craft_skill(skill_id: str) -> Skill | None:
    """The skill for ``craft.<item>``, or None when no recipe makes that item."""
    item = skill_id.removeprefix("craft.")
    if item not in recipes().by_result:
        return None

    def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
        cover = bool(args.get("under_cover"))
        return run_step(link, item, int(args.get("count") or 1), world, under_cover=cover)

    def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
        return None

    return Skill(
        id=skill_id,
        description=f"Make {item.replace('_', ' ')} (gathering and crafting what it needs).",
        coach_may_dispatch=True,
        precondition=_precondition,
        runner=_run,
    )
