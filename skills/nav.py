"""nav.goto, nav.follow, explore: moving around."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, always, started, xyz


def _target(world: WorldView, args: Mapping[str, Any]) -> str | None:
    return None if args.get("operator") or args.get("to") else "nowhere to go"


def _goto(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    if args.get("operator"):
        return started(link.act("goto_player", name=str(args["operator"]), reach=2.0), "goto")
    reach = float(args.get("reach", 1.0))
    return started(link.act("goto", **xyz(args["to"]), reach=reach), "goto")


def _follow(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(link.act("follow", name=str(args["operator"]), reach=2.0), "follow")


def _explore(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    here = world.position.as_dict() if world.position else None
    origin = args.get("from") or here or {"x": 0.0, "y": 64.0, "z": 0.0}
    rng = random.Random(args.get("seed"))
    x, y, z = (float(origin[axis]) for axis in "xyz")
    to = {"x": x + rng.uniform(-24, 24), "y": y, "z": z + rng.uniform(-24, 24)}
    return started(link.act("goto", **to, reach=2.0), "explore")


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
