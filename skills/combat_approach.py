"""combat.approach: close in on a hostile (an archer) until it is in reach; the chain swings.

The walk is a charge (the ``charge`` action): unlike a goto it leaves the off-hand shield's
guard on, so an archer drawing its bow stops the bot behind the raised shield for the shot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started, xyz

REACH = 3.0
"""Blocks from the target where the walk ends: inside the chain's attack radius (4)."""


def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
    return None if isinstance(args.get("to"), Mapping) else "no target to close in on"


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    to = args["to"]
    return started(link.act("charge", **xyz(to), reach=REACH), "approach")


SKILL = Skill(
    id="combat.approach",
    description="Close in on a hostile (a skeleton) until it is in reach.",
    coach_may_dispatch=False,
    precondition=_precondition,
    runner=_run,
)
