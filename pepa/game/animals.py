"""Farm animals' food (vanilla 1.16.5 ``AnimalEntity.isFood``): what each breeds and grows on.

The JS has the same table once (``pepa/game/js/animals.js``), which the world server's
husbandry and the bot's ``breed`` and ``lure`` go by.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["FARM_ANIMALS", "FOOD", "food_held"]

FOOD: Mapping[str, tuple[str, ...]] = {
    "cow": ("wheat",),
    "sheep": ("wheat",),
    "pig": ("carrot", "potato", "beetroot"),
    "chicken": ("wheat_seeds", "melon_seeds", "pumpkin_seeds", "beetroot_seeds"),
}
"""Each animal's food, as the world's animals take it."""
FARM_ANIMALS: tuple[str, ...] = tuple(FOOD)
"""The animals that breed."""


def food_held(names: Iterable[str], inventory: Mapping[str, int]) -> list[str]:
    """The animals of ``names`` whose food ``inventory`` (item name → count) holds some of."""
    return [
        name for name in names if any(inventory.get(item, 0) > 0 for item in FOOD.get(name, ()))
    ]
