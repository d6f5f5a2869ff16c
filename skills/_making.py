"""The shared engine of the gathering and crafting skills: start the next step toward holding
an item (:mod:`pepa.game.steps` plans it afresh from the inventory each time).

The caller (the curriculum) runs the skill again until the inventory shows the goal.
"""

from __future__ import annotations

from pepa.game.crafting import SMELTING, CraftingError
from pepa.game.steps import (
    COAL_BLOCKS,
    DIAMOND_BLOCKS,
    DIAMOND_LEVEL,
    IRON_BLOCKS,
    STONE_BLOCKS,
    book_for,
    next_step_for,
    smelting_fuel,
    wood_to_hold,
)
from pepa.world.view import WorldView
from skills._base import Link, Started, started
from skills.nav import EXPLORE

__all__ = ["GRASS", "next_step", "run_step"]

GRASS = ("grass", "fern", "tall_grass", "large_fern")
"""The plants that drop wheat seeds."""


def next_step(item: str, count: int, world: WorldView) -> tuple[str, str, int] | None:
    """(skill, item, count) to do next toward holding ``count`` of ``item``; None when held."""
    return next_step_for(item, count, world.inventory.items, world.version)


def run_step(
    link: Link, item: str, count: int, world: WorldView, *, under_cover: bool = False
) -> Started:
    """Start the next step toward ``count`` of ``item`` (an instant success when held).

    ``under_cover``: by night in the shelter (the night plan admits only steps that can go on
    there, :func:`pepa.policy.reflex.night.works_under_cover`): stone and iron are dug from the
    sealed pocket, the held table or furnace is placed in it and dug back up."""
    try:
        step = next_step(item, count, world)
    except (CraftingError, KeyError) as exc:
        return Started(action_id=None, ok=False, detail=f"cannot make {item}: {exc}")
    if step is None:
        return Started(action_id=None)
    skill, what, n = step
    if under_cover and skill == "gather.wood":  # the night plan admitted it on other items
        return Started(action_id=None, ok=False, detail="wood waits for the morning")
    if skill == "gather.wood":  # every log and stem that grows in the server's version
        logs = list(book_for(world.version).logs)
        wood = wood_to_hold(n, world.inventory.items)
        return started(
            link.act("gather", names=logs, count=wood, radius=48.0, drops=logs), "gather wood"
        )
    if skill == "gather.stone":
        stone = link.act("gather", names=STONE_BLOCKS, count=n, radius=32.0,
                         drops=["cobblestone"], under_cover=under_cover)  # fmt: skip
        return started(stone, "gather stone")
    if skill == "gather.iron":
        iron = link.act("gather", names=IRON_BLOCKS, count=n, radius=32.0, drops=IRON_BLOCKS,
                        under_cover=under_cover)  # fmt: skip
        return started(iron, "gather iron")
    if skill == "gather.coal":
        coal = link.act("gather", names=COAL_BLOCKS, count=n, radius=32.0, drops=["coal"],
                        under_cover=under_cover)  # fmt: skip
        return started(coal, "gather coal")
    if skill == "gather.diamond":
        if under_cover:  # the miner's staircase and tunnels are its own: not from a shelter
            return Started(action_id=None, ok=False, detail="diamonds wait for the morning")
        mine = link.act("mine", names=DIAMOND_BLOCKS, count=n, level=DIAMOND_LEVEL,
                        drops=["diamond"], radius=24.0)  # fmt: skip
        return started(mine, "mine diamonds")
    if skill == "farm.tend":  # wheat grows on the home's field: its own milestone tends it
        return Started(action_id=None, ok=False, detail="waiting: wheat grows on the farm")
    if skill == "gather.seeds":  # grass and ferns drop a seed one time in eight
        seeds = link.act("gather", names=list(GRASS), count=n, radius=32.0, drops=["wheat_seeds"])
        return started(seeds, "gather seeds")
    if skill == "gather.wool":  # a sheep's wool: shorn with shears, else with its death
        if not any(e.name == "sheep" and e.distance <= 32.0 for e in world.animals):
            return EXPLORE.run(link, {}, world)  # none in sight: look farther; then hunt
        if world.inventory.count("shears"):
            return started(link.act("shear", radius=32.0), "shear a sheep")
        return started(link.act("hunt", names=["sheep"], radius=48.0), "hunt sheep for wool")
    if skill == "gather.water":
        return started(link.act("scoop", radius=48.0), "scoop water")
    if skill.startswith("smelt."):
        fuel = smelting_fuel(world.inventory.items)
        if fuel is None:
            return Started(action_id=None, ok=False, detail=f"no fuel to smelt {what}")
        smelt = link.act("smelt", item=SMELTING[what], count=n, fuel=fuel,
                         under_cover=under_cover)  # fmt: skip
        return started(smelt, f"smelt {what}")
    return started(link.act("craft", item=what, times=n, under_cover=under_cover), f"craft {what}")
