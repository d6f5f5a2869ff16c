"""smelt.<item>: make an item in a furnace (iron ingots from iron ore), getting what it needs.

One family of skills: ``smelt.iron_ingot``. Each run does the next step (a
stone pickaxe, the ore, the furnace, fuel, the smelt) planned from the
inventory of the moment, as ``craft.<item>`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.game.crafting import SMELTING
from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, always
from skills._making import run_step


def smelt_skill(skill_id: str) -> Skill | None:
    """The skill for ``smelt.<item>``, or None when no furnace recipe makes that item."""
    item = skill_id.removeprefix("smelt.")
    if item not in SMELTING:
        return None

    def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
        cover = bool(args.get("under_cover"))
        return run_step(link, item, int(args.get("count") or 1), world, under_cover=cover)

    return Skill(
        id=skill_id,
        description=f"Smelt {item.replace('_', ' ')} in a furnace (placed and taken back).",
        coach_may_dispatch=True,
        precondition=always,
        runner=_run,
    )
