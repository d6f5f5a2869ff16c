"""base.build-home, base.go-home, base.leave-home: a house from a blueprint, and its door.

``base.build-home`` gets what its blueprint (:mod:`pepa.game.blueprints`, ``hut`` unless
``args["blueprint"]`` names another) takes, one step a run, then builds: building blocks
(cobblestone, dug), torches, a door of the wood it holds most of, a bed (wool from sheep),
chests, a furnace and a crafting table; then ``settle`` chooses open flat ground near water
within :data:`SITE_RADIUS` and builds there. Every run but the last is a step on its way
(``Started.step``): only the build reaches the milestone. The curriculum then names the cell
inside the door ``home`` (``locations.json``), and the reflex tells the bridge (``set_home``):
the pathfinder never breaks the house for a path and walks through its door.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pepa.game import blueprints
from pepa.game.crafting import held, is_planks
from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, always, started
from skills._making import run_step

__all__ = ["BUILD", "GO", "LEAVE", "shopping"]

BLUEPRINT = "hut"
SITE_RADIUS = 24
FLOOR_SLACK = 8
"""Floor blocks held beyond the walls and the roof: a site's floor is mostly its own ground."""
SHELTER_STOCK = 16
"""Cobblestone or dirt held before the surface work: a night's shelter takes up to 10 blocks,
and the stone for the walls comes last."""
STONE_SLACK = 12
"""Cobblestone dug beyond what the house takes: the nights' shelters and pillars on the way
use some, which would send the bot back down for a few more."""
WOODS = ("oak", "spruce", "birch", "jungle", "acacia", "dark_oak")


def _wood(items: Mapping[str, int]) -> str:
    """The wood the bot holds most of (logs and planks), oak with none."""
    amount = {w: items.get(f"{w}_log", 0) * 4 + items.get(f"{w}_planks", 0) for w in WOODS}
    best = max(WOODS, key=lambda w: amount[w])
    return best if amount[best] else "oak"


def shopping(bp: blueprints.Blueprint, items: Mapping[str, int]) -> list[tuple[str, int]]:
    """What to hold before building ``bp``, in the order it is got: (item, count to hold). A
    shelter's stock of blocks (:data:`SHELTER_STOCK`) first; what takes wood and wool next, on
    the surface; the rest of the stone last, dug down to, with :data:`STONE_SLACK` more than the
    house takes (a stone pit is no place to look for trees from, and a few blocks used for a
    night's shelter must not send the bot back down)."""
    need = blueprints.needs(bp)
    out: list[tuple[str, int]] = []
    stock = items.get("cobblestone", 0) + items.get("dirt", 0)
    if stock < SHELTER_STOCK:  # the nights meanwhile: a shelter's blocks
        out.append(("cobblestone", items.get("cobblestone", 0) + SHELTER_STOCK - stock))
    for role, item in (("door", f"{_wood(items)}_door"), ("bed", "white_bed")):
        if need.get(role) and not any(items.get(n, 0) for n in bp.materials.get(role, ())):
            out.append((item, need[role]))
    for name, count in need.items():
        if name not in bp.materials and held(name, items) < count:
            out.append((name, count))
    walls = set(bp.materials.get("wall", ())) | set(bp.materials.get("roof", ()))
    blocks = need.get("wall", 0) + need.get("roof", 0) + min(FLOOR_SLACK, need.get("floor", 0))
    have = sum(items.get(n, 0) for n in walls if not is_planks(n))  # planks go into the crafts
    if have < blocks:
        out.append(("cobblestone", items.get("cobblestone", 0) + blocks - have + STONE_SLACK))
    if len(out) == 2 and out[0][0] == out[1][0]:  # only stone to get: all of it at once
        del out[0]
    return out


def _build(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    try:
        bp = blueprints.load(str(args.get("blueprint") or BLUEPRINT))
    except blueprints.BlueprintError as exc:
        return Started(action_id=None, ok=False, detail=str(exc))
    wanted = shopping(bp, world.inventory.items)
    if wanted:
        item, count = wanted[0]
        return dataclasses.replace(run_step(link, item, count, world), step=True)
    cells = [cell.as_js() for cell in blueprints.cells(bp)]
    return started(link.act("settle", radius=SITE_RADIUS, cells=cells), f"build a {bp.name}")


BUILD = Skill(
    id="base.build-home",
    description="Get what a house takes, build it on flat ground near water, make it home.",
    coach_may_dispatch=True,
    precondition=always,
    runner=_build,
)


def _go(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(link.act("go_home"), "go home")


def _leave(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(link.act("leave_home"), "leave home")


GO = Skill(
    id="base.go-home",
    description="Walk home, in through its door.",
    coach_may_dispatch=True,
    precondition=always,
    runner=_go,
)
LEAVE = Skill(
    id="base.leave-home",
    description="Walk out of the home through its door.",
    coach_may_dispatch=True,
    precondition=always,
    runner=_leave,
)
