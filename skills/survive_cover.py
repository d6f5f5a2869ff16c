"""survive.cover: walk to the nearest cell no archer sees, within a few blocks (the JS side
searches the loaded blocks; it fails at once when there is none)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started

RADIUS = 6.0
"""Blocks from the bot the search goes (a second or two of walking)."""


def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
    # an empty list: the archers the JS side sees (spotted before any snapshot: no positions)
    return None if args.get("from") is not None else "no archer to hide from"


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    sources = [(float(p[0]), float(p[1]), float(p[2])) for p in args["from"]]
    avoid = [(float(p[0]), float(p[1])) for p in args.get("avoid") or []]
    radius = float(args.get("radius") or RADIUS)
    return started(link.act("cover", sources=sources, radius=radius, avoid=avoid), "cover")


SKILL = Skill(
    id="survive.cover",
    description="Walk behind cover from the skeletons shooting at the bot (6 blocks at most).",
    coach_may_dispatch=False,
    precondition=_precondition,
    runner=_run,
)
