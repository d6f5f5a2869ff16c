"""survive.shelter: wall the bot in for the night (into the ground, or with blocks it holds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, always, started


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(link.act("shelter"), "shelter")


SKILL = Skill(
    id="survive.shelter",
    description=(
        "Dig two blocks into the ground and roof it over, or wall in the spot with held dirt, "
        "cobblestone or planks; a torch inside when held."
    ),
    coach_may_dispatch=True,
    precondition=always,
    runner=_run,
)
