"""survive.sleep: walk to the nearest bed and sleep through the night."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started


def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
    return None if args.get("bed") else "no bed nearby"


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    bed = args["bed"]
    return started(link.act("sleep", x=int(bed["x"]), y=int(bed["y"]), z=int(bed["z"])), "sleep")


SKILL = Skill(
    id="survive.sleep",
    description="Walk to the nearest bed within 16 blocks and sleep until morning.",
    coach_may_dispatch=True,
    precondition=_precondition,
    runner=_run,
)
