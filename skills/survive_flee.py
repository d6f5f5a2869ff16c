"""survive.flee: run away from the hostiles, by the most open ground the JS side can find."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started, xyz


def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
    return None if args.get("to") or args.get("from") is not None else "no place to flee to"


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    sources = args.get("from")
    if sources is not None:  # bot_helper.js picks the heading by open ground and sprints;
        # with no positions (a hostile spotted before any snapshot) it uses the ones it sees
        points = [(float(p[0]), float(p[1])) for p in sources]
        distance = float(args.get("distance") or 16.0)
        return started(link.act("flee", sources=points, distance=distance), "flee")
    # the coach's form: straight to a point, by the pathfinder
    return started(link.act("goto", **xyz(args["to"]), reach=2.0), "flee")


SKILL = Skill(
    id="survive.flee",
    description="Sprint away from the hostiles over open ground (16 blocks; 8 to back off).",
    coach_may_dispatch=True,
    precondition=_precondition,
    runner=_run,
)
