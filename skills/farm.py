"""farm.tend: make or tend the wheat field at (x, z) with the ``farm`` action: the held water
bucket poured at its centre when there is no water there, its cells tilled with a held hoe, its
ripe wheat harvested and picked up, its empty farmland planted (docs/survival.md "Farming").

The bot's world view holds no blocks, so the precondition cannot see a field: it asks for a hoe
and seeds held, or the caller's word (``field: True``) that the field at (x, z) is there already,
which needs neither (the harvest gives the seeds to replant).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started

SEEDS = "wheat_seeds"
SIZE = 5
"""The field's side by default: 24 cells round the water (a wooden hoe tills 59)."""


def _ready(world: WorldView, args: Mapping[str, Any]) -> str | None:
    if args.get("x") is None or args.get("z") is None:
        return "no field given: x and z"
    if args.get("field"):
        return None
    seeds = str(args.get("seeds") or SEEDS)
    hoe = any(name.endswith("_hoe") for name in world.inventory)
    if hoe and world.inventory.count(seeds) > 0:
        return None
    return f"no hoe and {seeds} held, and no field known at the place given"


def _tend(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(
        link.act(
            "farm",
            x=math.floor(float(args["x"])),  # the block a position is in
            z=math.floor(float(args["z"])),
            size=int(args.get("size") or SIZE),
            seeds=str(args.get("seeds") or SEEDS),
        ),
        "tend the field",
    )


SKILL = Skill(
    id="farm.tend",
    description="Till, plant and reap wheat round water at x, z.",
    coach_may_dispatch=True,
    precondition=_ready,
    runner=_tend,
)
