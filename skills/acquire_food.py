"""acquire-food: hunt the nearest farm animal for its meat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skills._base import Link, Skill, Started, started

ANIMALS = ("cow", "pig", "sheep", "chicken", "rabbit", "mooshroom")
"""Animals whose drops are food (vanilla loot tables)."""
RADIUS = 32.0


def _precondition(world: Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
    for entity in world.get("entities") or []:
        if entity.get("name") in ANIMALS and (entity.get("distance") or RADIUS + 1) <= RADIUS:
            return None
    return f"no {'/'.join(ANIMALS)} within {RADIUS:g} blocks"


def _run(link: Link, args: Mapping[str, Any]) -> Started:
    return started(link.hunt(list(ANIMALS), RADIUS), "hunt")


SKILL = Skill(
    id="acquire-food",
    description="Hunt the nearest cow, pig, sheep or chicken and pick up its meat.",
    coach_may_dispatch=True,
    precondition=_precondition,
    run=_run,
)
