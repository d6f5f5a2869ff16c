"""nav.goto, nav.follow, explore: moving around."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, always, started


def _target(world: WorldView, args: Mapping[str, Any]) -> str | None:
    return None if args.get("operator") or args.get("to") else "nowhere to go"


def _goto(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    if args.get("operator"):
        return started(link.goto_player(str(args["operator"]), 2.0), "goto")
    to = args["to"]
    return started(link.goto(to["x"], to["y"], to["z"], float(args.get("reach", 1.0))), "goto")


def _follow(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(link.follow(str(args["operator"]), 2.0), "follow")


def _explore(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    here = world.position.as_dict() if world.position else None
    origin = args.get("from") or here or {"x": 0.0, "y": 64.0, "z": 0.0}
    rng = random.Random(args.get("seed"))
    return started(
        link.goto(
            origin["x"] + rng.uniform(-24, 24), origin["y"], origin["z"] + rng.uniform(-24, 24), 2.0
        ),
        "explore",
    )


GOTO = Skill(
    id="nav.goto",
    description="Walk to a player or a position.",
    coach_may_dispatch=True,
    precondition=_target,
    runner=_goto,
)
FOLLOW = Skill(
    id="nav.follow",
    description="Stay within two blocks of a player until told to stay.",
    coach_may_dispatch=False,
    precondition=_target,
    runner=_follow,
)
EXPLORE = Skill(
    id="nav.explore",
    description="Walk to a random spot up to 24 blocks away.",
    coach_may_dispatch=True,
    precondition=always,
    runner=_explore,
)
