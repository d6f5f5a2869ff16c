"""What the bot carries and what it stores in its chests. Pure.

It always carries its tools, weapons and armour, its food, light, buckets, seeds and workshop,
and a stack of building blocks for a night's shelter (:data:`KEEP_BLOCKS`); anything else is
:func:`surplus`, stored when it is home (sorted: building blocks in one chest, the rest in
another, :func:`sort_of`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["BLOCKS", "KEEP_BLOCKS", "sort_of", "surplus"]

KEPT = re.compile(
    r"_(pickaxe|axe|shovel|hoe|sword|helmet|chestplate|leggings|boots)$"
    r"|^(shield|shears|torch|bucket|water_bucket|lava_bucket|wheat_seeds|crafting_table|furnace)$"
)
"""What the bot always carries: its tools, weapons and armour, light, buckets and workshop."""
FOOD = frozenset(
    ("cooked_beef", "cooked_porkchop", "cooked_mutton", "cooked_chicken", "bread", "baked_potato",
     "apple", "carrot", "beef", "porkchop", "mutton", "chicken", "cooked_cod", "cooked_salmon",
     "potato", "beetroot", "sweet_berries", "melon_slice", "golden_apple", "cookie",
     "pumpkin_pie", "cod", "salmon")
)  # fmt: skip
"""Food is carried (the eat reflex's list, and what else is edible without harm)."""
BLOCKS = re.compile(
    r"^(cobblestone|dirt|stone|gravel|sand|andesite|diorite|granite|netherrack|cobbled_deepslate)$"
    r"|_(planks|log|wood)$"
)
"""Building blocks: stored in a chest of their own."""
KEEP_BLOCKS = 32
"""Cobblestone and dirt kept in the bag (the rest stored): a shelter takes up to 10."""


def sort_of(item: str) -> str:
    """``blocks`` or ``other``: which of the home's chests an item goes in."""
    return "blocks" if BLOCKS.search(item) else "other"


def surplus(items: Mapping[str, int]) -> dict[str, int]:
    """What the bot need not carry, by item: how many of each to store."""
    out: dict[str, int] = {}
    for name, n in items.items():
        if KEPT.search(name) or name in FOOD:
            continue
        keep = KEEP_BLOCKS if name in ("cobblestone", "dirt") else 0
        if n > keep:
            out[name] = n - keep
    return out
