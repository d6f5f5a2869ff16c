"""survive.surface: swim up for air until the head is out of the water and the air is full."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started


def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
    return None if world.head_in_water else "the head is not under water"


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(link.act("surface"), "surface")


SKILL = Skill(
    id="survive.surface",
    description="Swim up for air (to the nearest water open to the sky) until the air is full.",
    coach_may_dispatch=False,
    precondition=_precondition,
    runner=_run,
)
