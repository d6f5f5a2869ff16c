"""Which food the bot eats: the order of preference, and what it keeps. Pure."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["FOOD_PRIORITY", "KEPT_FOOD", "NEVER_EATEN", "STARVING_ONLY", "best_food", "food_held"]

FOOD_PRIORITY = (
    "golden_carrot", "cooked_porkchop", "cooked_beef", "cooked_mutton", "cooked_salmon",
    "baked_potato", "cooked_chicken", "cooked_rabbit", "cooked_cod", "cooked_fish", "bread",
    "pumpkin_pie", "mushroom_stew", "rabbit_stew", "beetroot_soup", "honey_bottle", "apple",
    "carrot", "melon_slice", "melon", "sweet_berries", "glow_berries", "cookie", "dried_kelp",
    "beetroot", "potato", "porkchop", "beef", "mutton", "rabbit", "salmon", "cod", "chicken",
    "tropical_fish", "golden_apple", "enchanted_golden_apple",
)  # fmt: skip
"""Best first: food points and saturation, raw meat after cooked, golden apples kept for last.
The foods of every version (1.12's ``cooked_fish`` and ``melon``, 1.17's glow berries):
``tests/fast/policy/reflex/test_food.py`` holds this list, :data:`STARVING_ONLY` and
:data:`NEVER_EATEN` to minecraft-data's foods of every version in the matrix."""
STARVING_ONLY = (
    "rotten_flesh", "spider_eye", "poisonous_potato", "pufferfish", "fish", "suspicious_stew",
    "chorus_fruit",
)  # fmt: skip
"""Eaten only when food is at 6 or below and nothing else is left: they poison or hunger
(1.12's raw ``fish`` may be a pufferfish, its kind is in the metadata), a suspicious stew's
effect is chance's, a chorus fruit throws the eater somewhere near."""
NEVER_EATEN = ("ominous_bottle", "cake", "melon_block", "carrots", "potatoes")
"""minecraft-data foods the bot never eats from its inventory: a bad omen (a raid on the next
village), and blocks (a cake is eaten placed; the others are 1.8's crop and melon blocks)."""
KEPT_FOOD = ("golden_apple", "enchanted_golden_apple")
"""Never eaten just to top up before dark."""


def best_food(items: Mapping[str, int], food: int) -> str | None:
    """The food to eat from ``items`` at ``food`` points: the first held of
    :data:`FOOD_PRIORITY`, else (at 6 or below) one of :data:`STARVING_ONLY`; None: nothing."""
    for name in FOOD_PRIORITY:
        if items.get(name, 0) > 0:
            return name
    if food <= 6:
        for name in STARVING_ONLY:
            if items.get(name, 0) > 0:
                return name
    return None


def food_held(items: Mapping[str, int]) -> int:
    """Pieces of food in ``items`` the bot would eat before dark (not golden apples, not the
    starving-only ones)."""
    return sum(items.get(name, 0) for name in FOOD_PRIORITY if name not in KEPT_FOOD)
