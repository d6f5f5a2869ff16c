"""acquire-food: hunt the nearest farm animal for its meat; with none in sight, go and look."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skills._base import Link, Skill, Started, always, started
from skills.nav import EXPLORE

ANIMALS = ("cow", "pig", "sheep", "chicken", "rabbit", "mooshroom")
"""Animals whose drops are food (vanilla loot tables)."""
RADIUS = 32.0


def animal_in_sight(world: Mapping[str, Any]) -> bool:
    """Whether an animal that drops food is within :data:`RADIUS` blocks."""
    return any(
        entity.get("name") in ANIMALS and (entity.get("distance") or RADIUS + 1) <= RADIUS
        for entity in world.get("animals") or []
    )


def _run(link: Link, args: Mapping[str, Any]) -> Started:
    if not animal_in_sight(args.get("world") or {}):
        return EXPLORE.run(link, args)  # one step of searching; the next run hunts
    return started(link.hunt(list(ANIMALS), RADIUS), "hunt")


SKILL = Skill(
    id="acquire-food",
    description="Hunt the nearest cow, pig, sheep or chicken for its meat (searching if none).",
    coach_may_dispatch=True,
    precondition=always,
    run=_run,
    wants_world=True,
)
