"""Knobs: the survival policy's numbers that lessons may turn, each whitelisted and bounded. Pure.

A lesson changes a decision in one of two ways: by advice on a skill
(``avoid`` a fight, run the whitelisted alternative instead; chain.py) or by
turning a knob of the policy. A knob lesson is an ordinary lesson whose
skill is ``knob.<name>``, verdict ``tune`` and alternative the signed change
(``+3``); it is recalled by situation like any other (a creeper's keep-away
distance learned from one explosion applies near creepers in fights like
that one). :func:`tuning` reads the knobs for the present, each the default
plus the heaviest confident change, clamped to the knob's bounds: no lesson
can make the policy leave them, whatever wrote it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "KNOBS",
    "KNOB_PREFIX",
    "TUNE",
    "Knob",
    "Tuning",
    "knob_skill",
    "parse_change",
    "tuning",
]

TUNE = "tune"
"""The verdict of a knob lesson."""
_CHANGE = re.compile(r"^[+-]\d{1,4}(\.\d{1,2})?$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Knob:
    """One number of the policy a lesson may move, within bounds."""

    default: float
    low: float
    high: float
    mob: str | None
    """The hostile it is about (recalled as if that mob were the nearest), "" for none, None for
    the present's own nearest hostile (a knob of every fight: lessons about fights with the
    mob at hand are recalled)."""
    doc: str


KNOBS: dict[str, Knob] = {
    "creeper_keep": Knob(
        default=0.0, low=0.0, high=10.0, mob="creeper",
        doc="blocks the bot keeps from a creeper: nearer, it backs off instead of striking "
        "(0: it strikes one in reach and backs off after, the default policy)",
    ),
    "eat_below": Knob(
        default=16.0, low=16.0, high=19.0, mob="",
        doc="food below which the bot eats when nothing more urgent runs",
    ),
    "air_below": Knob(
        default=8.0, low=8.0, high=18.0, mob="",
        doc="air (0 to 20, each point 0.75 s) at or below which the bot, its head under "
        "water, swims up for more",
    ),
    "fight_margin": Knob(
        default=0.0, low=0.0, high=8.0, mob=None,
        doc="health the bot wants beyond the policy's own before taking on the nearest "
        "hostile (melee or archer): short of it, it flees instead",
    ),
    "crowd": Knob(
        default=0.0, low=-2.0, high=0.0, mob=None,
        doc="change to how many hostiles near make the bot flee (never below two: one "
        "hostile alone is the fight margin's business)",
    ),
    "dusk_lead": Knob(
        default=0.0, low=0.0, high=3000.0, mob="",
        doc="ticks before dusk (12000) the bot starts for its bed or shelter (a game day is "
        "24000 ticks)",
    ),
    "fight_food": Knob(
        default=0.0, low=0.0, high=20.0, mob=None,
        doc="food below which the bot eats while the nearest hostile is near but not yet close "
        "(over 6 blocks): a full bar heals in the fight (0: it does not)",
    ),
    "night_food": Knob(
        default=0.0, low=0.0, high=8.0, mob="",
        doc="pieces of food the bot wants in its bag before dusk: short of them it hunts in "
        "the 3000 ticks before the night plan begins (0: no stocking up)",
    ),
    "gear_first": Knob(
        default=0.0, low=0.0, high=1.0, mob="",
        doc="1: the plan's armour and shield milestones are handed out before its other open "
        "milestones (0: in the plan's order)",
    ),
}  # fmt: skip
"""Every knob a lesson may turn (the whitelist)."""


KNOB_PREFIX = "knob."
"""What the skill of a knob lesson starts with (``knob.creeper_keep``)."""


def knob_skill(name: str) -> str:
    """The skill of a lesson that turns knob ``name``."""
    return f"{KNOB_PREFIX}{name}"


def parse_change(name: str, text: str) -> float | None:
    """A lesson's change to knob ``name`` (``+3``, ``-0.5``), None when either is not valid."""
    knob = KNOBS.get(name)
    if knob is None or not isinstance(text, str) or not _CHANGE.match(text):
        return None
    change = float(text)
    span = knob.high - knob.low
    return change if math.isfinite(change) and abs(change) <= span else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Tuning:
    """The knobs' values for one decision."""

    creeper_keep: float = KNOBS["creeper_keep"].default
    eat_below: float = KNOBS["eat_below"].default
    air_below: float = KNOBS["air_below"].default
    fight_margin: float = KNOBS["fight_margin"].default
    crowd: float = KNOBS["crowd"].default
    dusk_lead: float = KNOBS["dusk_lead"].default
    gear_first: float = KNOBS["gear_first"].default
    night_food: float = KNOBS["night_food"].default
    fight_food: float = KNOBS["fight_food"].default
    turned: tuple[tuple[str, Any], ...] = ()
    """``(knob, lesson key)`` of each knob a lesson moved (for the log and the advice's
    outcome)."""

    def lesson(self, name: str) -> Any:
        """The key of the lesson that moved knob ``name``, None when it keeps its default."""
        return next((key for knob, key in self.turned if knob == name), None)


def tuning(
    recalled: Callable[[str, str | None], Iterable[tuple[str, float, str, Any]]],
    threshold: float,
    names: Iterable[str] = KNOBS,
) -> Tuning:
    """Each knob of ``names`` at its default plus the heaviest ``tune`` lesson recalled at
    ``threshold`` or more, clamped to its bounds (the other knobs keep their defaults);
    ``recalled(skill, mob)`` yields ``(verdict, weight, change, key)`` heaviest first (``mob``
    None: the present's own)."""
    values: dict[str, float] = {}
    turned: list[tuple[str, Any]] = []
    for name in names:
        knob = KNOBS[name]
        value = knob.default
        for verdict, weight, change, key in recalled(knob_skill(name), knob.mob):
            delta = parse_change(name, change) if verdict == TUNE else None
            if delta is not None and weight >= threshold:
                value = min(knob.high, max(knob.low, knob.default + delta))
                turned.append((name, key))
                break
        values[name] = value
    return Tuning(**values, turned=tuple(turned))
