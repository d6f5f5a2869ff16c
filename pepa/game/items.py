"""What items do in a fight: the attack damage of the weapons the bot fights with and the armour
points of what it wears (vanilla 1.16.5; minecraft-data has neither figure).

The JS twin is ``pepa/game/js/items.js`` (read by the world server's damage,
``pepa/worldserver/js/life/combat.js``, and the bot's swings, ``pepa/link/js/melee.js``): the
same figures, with attack speeds, every tool and armour toughness; the bot equips only swords and
axes, the weapons here. ``tests/fast/game/test_items.py`` holds the two to the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["ARMOUR_POINTS", "ATTACK_DAMAGE", "FIST", "armour_points", "weapon_damage"]

ATTACK_DAMAGE: Mapping[str, float] = {
    "netherite_sword": 8, "diamond_sword": 7, "iron_sword": 6, "stone_sword": 5,
    "golden_sword": 4, "wooden_sword": 4,
    "netherite_axe": 10, "diamond_axe": 9, "iron_axe": 9, "stone_axe": 9,
    "golden_axe": 7, "wooden_axe": 7,
}  # fmt: skip
"""Attack damage of the weapons, the fist's 1 included (vanilla 1.16.5 ItemTier + SwordItem 3
/ AxeItem); axes hit harder but recharge slower."""
FIST = 1.0
"""Attack damage of a bare hand (and of anything that is not a weapon)."""

ARMOUR_POINTS: Mapping[str, int] = {
    "leather_helmet": 1, "leather_chestplate": 3, "leather_leggings": 2, "leather_boots": 1,
    "golden_helmet": 2, "golden_chestplate": 5, "golden_leggings": 3, "golden_boots": 1,
    "chainmail_helmet": 2, "chainmail_chestplate": 5, "chainmail_leggings": 4,
    "chainmail_boots": 1,
    "iron_helmet": 2, "iron_chestplate": 6, "iron_leggings": 5, "iron_boots": 2,
    "diamond_helmet": 3, "diamond_chestplate": 8, "diamond_leggings": 6, "diamond_boots": 3,
    "netherite_helmet": 3, "netherite_chestplate": 8, "netherite_leggings": 6,
    "netherite_boots": 3, "turtle_helmet": 2,
}  # fmt: skip
"""Armour points of each worn piece (vanilla 1.16.5 ArmorMaterial damage reduction amounts)."""


def weapon_damage(items: Iterable[str]) -> float:
    """The attack damage of the best weapon among ``items`` (:data:`FIST` when none is)."""
    return max((ATTACK_DAMAGE[name] for name in items if name in ATTACK_DAMAGE), default=FIST)


def armour_points(worn: Iterable[str]) -> int:
    """Armour points of the pieces ``worn`` (a full iron set: 15)."""
    return sum(ARMOUR_POINTS.get(name, 0) for name in worn)
