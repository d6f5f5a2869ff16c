"""The skill library: everything the bot knows how to do, by id.

A new skill is one module here that defines a :class:`~skills._base.Skill`
and one line in :data:`REGISTRY` (see docs/survival.md).
"""

from __future__ import annotations

from skills import (
    combat_attack_nearest,
    nav,
    survive_eat,
    survive_escape,
    survive_flee,
    survive_sleep,
)
from skills._base import Link, Skill, Started

__all__ = ["REGISTRY", "Link", "Skill", "Started", "get"]

REGISTRY: dict[str, Skill] = {
    skill.id: skill
    for skill in (
        combat_attack_nearest.SKILL,
        survive_flee.SKILL,
        survive_eat.SKILL,
        survive_sleep.SKILL,
        survive_escape.ESCAPE,
        survive_escape.PILLAR_UP,
        survive_escape.DIG_OUT,
        nav.GOTO,
        nav.FOLLOW,
        nav.EXPLORE,
    )
}
"""Every skill the reflex chain, the watchdog and the coach may start."""


def get(skill_id: str) -> Skill:
    """The skill with that id; KeyError names the known ones."""
    try:
        return REGISTRY[skill_id]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise KeyError(f"unknown skill {skill_id!r}; known: {known}") from None
