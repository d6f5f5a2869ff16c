"""farm.tend: make or tend the wheat field by (x, z) with the ``farm`` action: round water there
(the held water bucket poured when there is none; without one, the water near by with the most
ground round it), its cells tilled with a held hoe, its ripe wheat harvested and picked up, its
empty farmland planted (docs/survival.md "Farming"). The curriculum gives the home's place.

Its steps, one a run (``Started.step``): a wooden hoe when none is held; seeds from the grass
when it holds neither seeds nor wheat (a field planted and not yet harvested has taken them
all). A run that planted or found crops growing, and harvested none, ends ``waiting``: the
curriculum rests the milestone while the wheat grows.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started
from skills._making import GRASS, run_step

SEEDS = "wheat_seeds"
SIZE = 5
"""The field's side by default: 24 cells round the water (a wooden hoe tills 59)."""
SEED_STOCK = 6
"""Seeds gathered for a first field (grass drops one in eight)."""


def _ready(world: WorldView, args: Mapping[str, Any]) -> str | None:
    if args.get("x") is None or args.get("z") is None:
        return "no field given: x and z"
    return None


def _tend(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    seeds = str(args.get("seeds") or SEEDS)
    items = world.inventory.items
    if not any(name.endswith("_hoe") for name in items):
        return dataclasses.replace(run_step(link, "wooden_hoe", 1, world), step=True)
    if not items.get(seeds) and not items.get("wheat") and not args.get("field"):
        gather = link.act("gather", names=list(GRASS), count=SEED_STOCK, radius=32.0,
                          drops=[seeds])  # fmt: skip
        return started(gather, "gather seeds", step=True)
    return started(
        link.act(
            "farm",
            x=math.floor(float(args["x"])),  # the block a position is in
            z=math.floor(float(args["z"])),
            size=int(args.get("size") or SIZE),
            seeds=seeds,
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
