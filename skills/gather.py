"""gather.wood, gather.stone, gather.coal, gather.iron and gather.diamond: dig until the
inventory holds enough; gather.water: fill a held bucket at the nearest water source;
gather.wool: shear the nearest woolly sheep with held shears, else hunt one.

``gather.stone`` and ``gather.coal`` with no pickaxe first make a wooden one (gather wood,
planks, sticks, a table), ``gather.iron`` a stone one, ``gather.diamond`` an iron one: each
run does the next step of that. Diamonds are mined deep, by the ``mine`` action's staircase
and tunnels under its rules (docs/mining.md). With ``under_cover`` (the night plan, from a
shelter, a fit pickaxe held: ``night.works_under_cover``) stone and iron are dug from where the
bot stands, down and along under its roof, never on the surface.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.game.crafting import held
from pepa.game.steps import IRON_BLOCKS, STONE_BLOCKS
from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, always, started
from skills._making import run_step
from skills.nav import EXPLORE

SHEEP_RADIUS = 16.0
"""How far a sheep to shear may be (blocks); a hunt looks twice as far."""


def _wood(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return run_step(link, "oak_log", int(args.get("count") or 4), world)


def _iron(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    count = int(args.get("count") or 3)
    if args.get("under_cover"):
        return _under_cover(link, IRON_BLOCKS, "iron_ore", count, world)
    return run_step(link, "iron_ore", count, world)


def _stone(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    count = int(args.get("count") or 3)
    if args.get("under_cover"):
        return _under_cover(link, STONE_BLOCKS, "cobblestone", count, world)
    return run_step(link, "cobblestone", count, world)


def _coal(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return run_step(link, "coal", int(args.get("count") or 4), world)


def _diamond(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return run_step(link, "diamond", int(args.get("count") or 3), world)


def _has_bucket(world: WorldView, args: Mapping[str, Any]) -> str | None:
    return None if "bucket" in world.inventory else "no empty bucket held"


def _water(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return started(link.act("scoop", radius=48.0), "scoop water")


def _wool(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    if "shears" in world.inventory:
        return started(link.act("shear", radius=SHEEP_RADIUS), "shear a sheep")
    if not any(e.name == "sheep" and e.distance <= 2 * SHEEP_RADIUS for e in world.animals):
        return EXPLORE.run(link, args, world)  # one step of searching; the next run hunts
    return started(link.act("hunt", names=["sheep"], radius=2 * SHEEP_RADIUS), "hunt a sheep")


def _under_cover(link: Link, blocks: list[str], drop: str, count: int, world: WorldView) -> Started:
    """Dig ``blocks`` from where the bot stands until it holds ``count`` of ``drop``."""
    if held(drop, world.inventory.items) >= count:
        return Started(action_id=None)
    return started(
        link.act("gather", names=blocks, count=count, radius=8.0, drops=[drop], under_cover=True),
        f"mine {drop}",
    )


WOOD = Skill(
    id="gather.wood",
    description=(
        "Chop the nearest trees until holding enough logs (default 4, and a stock of 8 for"
        " the night's crafts)."
    ),
    coach_may_dispatch=True,
    precondition=always,
    runner=_wood,
)
STONE = Skill(
    id="gather.stone",
    description="Mine stone for cobblestone (default 3); makes a wooden pickaxe first if needed.",
    coach_may_dispatch=True,
    precondition=always,
    runner=_stone,
)
IRON = Skill(
    id="gather.iron",
    description=(
        "Mine iron ore (default 3; below y 64, dug down to); makes a stone pickaxe first if needed."
    ),
    coach_may_dispatch=True,
    precondition=always,
    runner=_iron,
)
COAL = Skill(
    id="gather.coal",
    description="Mine coal ore for coal (default 4); makes a wooden pickaxe first if needed.",
    coach_may_dispatch=True,
    precondition=always,
    runner=_coal,
)
DIAMOND = Skill(
    id="gather.diamond",
    description=(
        "Mine diamonds (default 3) by a staircase down to y 12 and tunnels, with the deep-mining"
        " rules; makes an iron pickaxe first if needed."
    ),
    coach_may_dispatch=True,
    precondition=always,
    runner=_diamond,
)
WATER = Skill(
    id="gather.water",
    description="Fill a held empty bucket at the nearest water source (within 48 blocks).",
    coach_may_dispatch=True,
    precondition=_has_bucket,
    runner=_water,
)
WOOL = Skill(
    id="gather.wool",
    description="Shear a sheep with held shears, else hunt one.",
    coach_may_dispatch=True,
    precondition=always,
    runner=_wool,
)


def _seeds(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    return run_step(link, "wheat_seeds", int(args.get("count") or 6), world)


SEEDS = Skill(
    id="gather.seeds",
    description="Get wheat seeds (default 6) from the grass near by.",
    coach_may_dispatch=True,
    precondition=always,
    runner=_seeds,
)
