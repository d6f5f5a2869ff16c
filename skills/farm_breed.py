"""farm.breed: feed two adults of a species whose food the bot holds (the ``breed`` action), so
a young one is born and the herd grows; with no two of them in sight, go and look."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.game.animals import FARM_ANIMALS, FOOD, food_held
from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started
from skills.nav import EXPLORE

RADIUS = 16.0
"""How far the adults may be (blocks)."""


def _species(world: WorldView, args: Mapping[str, Any]) -> list[str]:
    """The asked animals (``names``, else every farm animal) whose food is held."""
    return food_held(args.get("names") or FARM_ANIMALS, world.inventory.items)


def _food_held(world: WorldView, args: Mapping[str, Any]) -> str | None:
    if _species(world, args):
        return None
    wanted = args.get("names") or FARM_ANIMALS
    food = sorted({item for name in wanted for item in FOOD.get(name, ())})
    return f"no food held to breed {'/'.join(wanted)} ({', '.join(food)})"


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    names = _species(world, args)
    if sum(e.name in names and e.distance <= RADIUS for e in world.animals) < 2:
        return EXPLORE.run(link, args, world)  # one step of searching; the next run breeds
    return started(link.act("breed", names=names, radius=RADIUS), "breed")


BREED = Skill(
    id="farm.breed",
    description="Feed two adult farm animals their food so a young one is born.",
    coach_may_dispatch=True,
    precondition=_food_held,
    runner=_run,
)
