"""survive.flee: run to a point away from the hostiles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started


def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
    return None if args.get("to") else "no place to flee to"


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    to = args["to"]
    return started(link.goto(to["x"], to["y"], to["z"], 2.0), "flee")


SKILL = Skill(
    id="survive.flee",
    description="Run sixteen blocks directly away from the nearby hostiles.",
    coach_may_dispatch=True,
    precondition=_precondition,
    runner=_run,
)
