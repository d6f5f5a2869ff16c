"""food.hunt: hunt the nearest farm animal for its meat; with none in sight, go and look."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, always, started
from skills.nav import EXPLORE

ANIMALS = ("cow", "pig", "sheep", "chicken", "rabbit", "mooshroom")
"""Animals whose drops are food (vanilla loot tables)."""
RADIUS = 32.0


def animal_in_sight(world: WorldView) -> bool:
    """Whether an animal that drops food is within :data:`RADIUS` blocks."""
    return any(e.name in ANIMALS and e.distance <= RADIUS for e in world.animals)


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    if not animal_in_sight(world):
        return EXPLORE.run(link, args, world)  # one step of searching; the next run hunts
    return started(link.act("hunt", names=list(ANIMALS), radius=RADIUS), "hunt")


SKILL = Skill(
    id="food.hunt",
    description="Hunt the nearest cow, pig, sheep or chicken for its meat (searching if none).",
    coach_may_dispatch=True,
    precondition=always,
    runner=_run,
)
