"""The shared engine of the gathering and crafting skills: the next step toward holding an item.

A craft can take many steps (logs → planks → table → sticks → pickaxe; ore →
furnace → ingot); each
run of a making skill performs only the next one, planned afresh from what
the inventory holds now, so a restart, a pre-emption or a lost item never
leaves a stale plan behind. The caller (the curriculum) runs the skill again
until the inventory shows the goal.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from pepa.base.node import node_modules
from pepa.game.crafting import (
    IRON_PICKAXES,
    SMELTING,
    WOOD_STOCK,
    CraftingError,
    Recipes,
    Step,
    gatherer,
    held,
    is_planks,
    is_wood,
    plan_craft,
    prerequisites,
)
from pepa.world.view import WorldView
from skills._base import Link, Started, started

__all__ = [
    "WOOD_STOCK",
    "book_for",
    "next_step",
    "next_step_for",
    "recipes",
    "run_step",
    "smelting_fuel",
    "wood_to_hold",
]

STONE_BLOCKS = ["stone", "cobblestone"]
"""What the stone gatherer digs (stone drops cobblestone with a pickaxe)."""
IRON_BLOCKS = ["iron_ore"]
"""What the iron gatherer digs (iron ore drops itself with a stone pickaxe or better)."""
DEFAULT_VERSION = "1.16.5"


@functools.cache
def recipes(version: str = DEFAULT_VERSION) -> Recipes:
    """minecraft-data's recipes for a version (loaded once)."""
    root: Path = node_modules() / "minecraft-data" / "minecraft-data" / "data"
    return Recipes.load(version, root)


def book_for(version: str | None) -> Recipes:
    """The recipes of the server's version; the default version's when it has none."""
    if version:
        try:
            return recipes(version)
        except (OSError, KeyError, ValueError, CraftingError):
            pass  # a version minecraft-data does not know: the default book still plans
    return recipes(DEFAULT_VERSION)


def next_step(item: str, count: int, world: WorldView) -> tuple[str, str, int] | None:
    """(skill, item, count) to do next toward holding ``count`` of ``item``; None when held."""
    return next_step_for(item, count, world.inventory.items, world.version)


def next_step_for(
    item: str, count: int, items: Mapping[str, int], version: str | None
) -> tuple[str, str, int] | None:
    """:func:`next_step` from an inventory and the server's version (the night plan asks it
    whether a craft's next step can go on in the shelter)."""
    missing = count - held(item, items)
    if missing <= 0:
        return None
    book = book_for(version)
    skill = gatherer(item)
    if skill is not None:
        before = prerequisites(skill, items, book)
        return _first(before, items) if before else (skill, item, count)
    steps = plan_craft(item, items, book, count=missing)
    for skill in ("gather.iron", "gather.stone"):
        if any(step.skill == skill for step in steps):
            before = prerequisites(skill, items, book)
            if before:
                return _first(before, items)
    return _first(steps, items) if steps else None


def _first(steps: Sequence[Step], items: Mapping[str, int]) -> tuple[str, str, int]:
    """The first step, covering all the plan's needs of its item in one go (gathering
    counts what to hold, crafting how many crafts)."""
    step = steps[0]
    total = sum(s.count for s in steps if s.skill == step.skill and s.item == step.item)
    if step.skill.startswith("gather."):
        return step.skill, step.item, held(step.item, items) + total
    return step.skill, step.item, total


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
        return started(
            link.gather(logs, wood_to_hold(n, world.inventory.items), 48.0, logs), "gather wood"
        )
    if skill == "gather.stone":
        stone = link.gather(STONE_BLOCKS, n, 32.0, ["cobblestone"], under_cover)
        return started(stone, "gather stone")
    if skill == "gather.iron":
        return started(link.gather(IRON_BLOCKS, n, 32.0, IRON_BLOCKS, under_cover), "gather iron")
    if skill.startswith("smelt."):
        fuel = smelting_fuel(world.inventory.items)
        if fuel is None:
            return Started(action_id=None, ok=False, detail=f"no fuel to smelt {what}")
        return started(link.smelt(SMELTING[what], n, fuel, under_cover), f"smelt {what}")
    return started(link.craft(what, n, under_cover), f"craft {what}")


def wood_to_hold(count: int, items: Mapping[str, int]) -> int:
    """Logs to hold after a chop asked for ``count``: from the stone tier on (a stone pickaxe
    or better held), at least enough for :data:`WOOD_STOCK`."""
    logs = held("oak_log", items)  # any wood
    if not any(items.get(p, 0) > 0 for p in IRON_PICKAXES):
        return count
    worth = logs + held("oak_planks", items) / 4 + items.get("stick", 0) / 8
    return max(count, logs + max(0, math.ceil(WOOD_STOCK - worth)))


def smelting_fuel(items: Mapping[str, int]) -> str | None:
    """The fuel to burn: coal or charcoal first (8 smelts a piece), then planks, then logs."""
    for name in ("coal", "charcoal"):
        if items.get(name, 0) > 0:
            return name
    planks = sorted(n for n, c in items.items() if is_planks(n) and c > 0)
    logs = sorted(n for n, c in items.items() if is_wood(n) and c > 0)
    return next(iter(planks + logs), None)
