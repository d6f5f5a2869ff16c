"""gather.wood and gather.stone: dig until the inventory holds enough.

``gather.stone`` with no pickaxe first makes a wooden one (gather wood,
planks, sticks, a table): each run does the next step of that.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, always
from skills._making import run_step


def _wood(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return run_step(link, "oak_log", int(args.get("count") or 4), world)


def _stone(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return run_step(link, "cobblestone", int(args.get("count") or 3), world)


WOOD = Skill(
    id="gather.wood",
    description="Chop the nearest trees until holding enough logs (default 4).",
    coach_may_dispatch=True,
    precondition=always,
    runner=_wood,
)
STONE = Skill(
    id="gather.stone",
    description="Mine stone for cobblestone (default 3); makes a wooden pickaxe first if needed.",
    coach_may_dispatch=True,
    precondition=always,
    runner=_stone,
)
