"""The next step toward holding an item, planned afresh from the inventory; the recipe book of
each game version (minecraft-data's, loaded once).

A craft can take many steps (logs → planks → table → sticks → pickaxe; ore → furnace →
ingot); the making skills (``skills/_making.py``) run only the next one each time, so a
restart, a pre-emption or a lost item never leaves a stale plan behind, and the night plan
(:mod:`pepa.policy.reflex.night`) asks whether that step can go on in a shelter.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from pepa.base.node import node_modules
from pepa.game.crafting import (
    IRON_PICKAXES,
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

__all__ = [
    "COAL_BLOCKS",
    "DEFAULT_VERSION",
    "DIAMOND_BLOCKS",
    "DIAMOND_LEVEL",
    "IRON_BLOCKS",
    "STONE_BLOCKS",
    "book_for",
    "next_step_for",
    "recipes",
    "smelting_fuel",
    "wood_to_hold",
]

STONE_BLOCKS = ["stone", "cobblestone"]
"""What the stone gatherer digs (stone drops cobblestone with a pickaxe)."""

IRON_BLOCKS = ["iron_ore"]
"""What the iron gatherer digs (iron ore drops itself with a stone pickaxe or better)."""

COAL_BLOCKS = ["coal_ore"]
"""What the coal gatherer digs (coal ore drops coal with any pickaxe)."""

DIAMOND_BLOCKS = ["diamond_ore"]
"""What the diamond miner digs (diamond ore drops a diamond with an iron pickaxe or better)."""

DIAMOND_LEVEL = 12
"""The feet's y of the diamond miner's tunnels (vanilla 1.16.5: diamond ore at y 0-15, lava
in the caves' floors up to y 10): the tunnel's floor at y 11, over the lava."""

DEFAULT_VERSION = "1.16.5"
"""The version whose recipes plan for a server whose own minecraft-data does not know."""


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
    for skill in ("gather.diamond", "gather.iron", "gather.coal", "gather.water", "gather.stone"):
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
