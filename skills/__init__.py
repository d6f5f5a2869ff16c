"""The skill library: everything the bot knows how to do, by id.

A new skill is one module here that defines a :class:`~skills._base.Skill`
and one line in :data:`REGISTRY` (see docs/survival.md).
"""

from __future__ import annotations

from collections.abc import Callable

from pepa.base.errors import PepaError
from skills import (
    acquire_food,
    base_home,
    base_storage,
    combat_approach,
    combat_attack_nearest,
    farm,
    farm_breed,
    gather,
    gear_wear,
    nav,
    place_chest,
    survive_cover,
    survive_eat,
    survive_escape,
    survive_flee,
    survive_shelter,
    survive_sleep,
    survive_surface,
)
from skills._base import Link, Skill, Started
from skills.craft import craft_skill
from skills.smelt import smelt_skill

__all__ = [
    "ALIASES",
    "FAMILIES",
    "REGISTRY",
    "Link",
    "Skill",
    "Started",
    "canonical",
    "get",
    "has_family",
    "known",
]

REGISTRY: dict[str, Skill] = {
    skill.id: skill
    for skill in (
        combat_attack_nearest.SKILL,
        combat_approach.SKILL,
        survive_flee.SKILL,
        survive_cover.SKILL,
        survive_eat.SKILL,
        survive_sleep.SKILL,
        survive_shelter.SKILL,
        survive_surface.SKILL,
        survive_escape.ESCAPE,
        survive_escape.PILLAR_UP,
        survive_escape.DIG_OUT,
        nav.GOTO,
        nav.FOLLOW,
        nav.EXPLORE,
        gather.WOOD,
        gather.STONE,
        gather.IRON,
        gather.COAL,
        gather.DIAMOND,
        gather.WATER,
        gather.WOOL,
        farm_breed.BREED,
        gear_wear.SKILL,
        place_chest.SKILL,
        base_home.BUILD,
        base_home.GO,
        base_home.LEAVE,
        base_storage.STORE,
        base_storage.FETCH,
        gather.WOOL,
        gather.SEEDS,
        acquire_food.SKILL,
        farm.SKILL,
    )
}
"""Every skill the reflex chain, the watchdog and the coach may start."""

FAMILIES: dict[str, Callable[[str], Skill | None]] = {"craft": craft_skill, "smelt": smelt_skill}
"""Skill families by prefix: ``craft.<item>`` for every item a recipe makes, ``smelt.<item>``
for every item a furnace makes."""
ALIASES: dict[str, str] = {
    "explore": "nav.explore",
    "place-chest": "base.place-chest",
    "acquire-food": "food.hunt",
}
"""Ids from before every id was ``domain.verb``: old plans, tasks and lessons still resolve."""

_made: dict[str, Skill] = {}


def canonical(skill_id: str) -> str:
    """The current id for ``skill_id`` (an old id's new name; any other id unchanged)."""
    return ALIASES.get(skill_id, skill_id)


def has_family(prefix: str) -> bool:
    """Whether ``<prefix>.<anything>`` names skills (``craft``)."""
    return prefix in FAMILIES


def known(skill_id: str) -> bool:
    """Whether a skill by that id (or an old alias) exists: ``craft.<item>`` only for an item
    a recipe makes; a registry that cannot tell (no recipes) counts as no."""
    try:
        get(skill_id)
    except (KeyError, ValueError, OSError, PepaError):  # unknown, or no recipes to tell
        return False
    return True


def get(skill_id: str) -> Skill:
    """The skill with that id (or an old alias of it); KeyError names the known ones."""
    skill_id = canonical(skill_id)
    if skill_id in REGISTRY:
        return REGISTRY[skill_id]
    if skill_id in _made:
        return _made[skill_id]
    prefix, _, rest = skill_id.partition(".")
    family = FAMILIES.get(prefix)
    skill = family(skill_id) if family is not None and rest else None
    if skill is None:
        known = ", ".join(sorted(REGISTRY) + [f"{p}.<item>" for p in FAMILIES])
        raise KeyError(f"unknown skill {skill_id!r}; known: {known}")
    _made[skill_id] = skill
    return skill
