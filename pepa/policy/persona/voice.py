"""The bot's own voice: short Russian lines for the moments of its life. Pure.

The persona says a line on death and respawn, when it starts a major skill,
on a milestone, a threat, dusk and dawn, and when a player comes near. It is
a character, not a logger, so it speaks rarely: at least :data:`MIN_GAP`
seconds between two lines, at most :data:`PER_HOUR` lines in any hour, and the
same moment not again within :data:`SAME_MOMENT_GAP`. These cooldowns are kept in
``persona.json`` beside the other memory files (:mod:`pepa.state.persona`: the persona actor
saves :meth:`Voice.saved` after each line and restores it at start) so that a crash loop
cannot turn into chat spam (which is what gets a bot kicked). :func:`moment_of` says which
events are such moments; the caller passes the time in (``now``, wall-clock seconds).
"""

# ruff: noqa: RUF001 - the lines are Russian on purpose
from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pepa.runtime.events import (
    ActivityChanged,
    DawnBroke,
    Died,
    DuskFell,
    HostileSpotted,
    PlayerSpotted,
    Respawned,
)

__all__ = [
    "LINES",
    "MAJOR_SKILLS",
    "MIN_GAP",
    "PER_HOUR",
    "THREAT_REMARK_RADIUS",
    "Voice",
    "line_for",
    "moment_of",
]

logger = logging.getLogger(__name__)

MIN_GAP = 60.0
"""Seconds between two persona lines, at least."""
PER_HOUR = 8
"""Persona lines in any rolling hour, at most."""
SAME_MOMENT_GAP = 600.0
"""Seconds before the same moment (``threat:creeper`` …) is remarked on again."""

LINES: dict[str, tuple[str, ...]] = {
    "death": ("ой... я умер", "эх, не повезло", "ладно, ещё раз"),
    "respawn": ("я снова здесь", "вернулся, продолжаю"),
    "skill:gather.wood": ("пошёл за деревом", "нужно нарубить дров"),
    "skill:gather.stone": ("иду за камнем", "пора копать камень"),
    "skill:craft": ("мастерю {detail}", "сделаю {detail}"),
    "skill:survive.sleep": ("пора спать", "иду в кровать"),
    "skill:survive.eat": ("проголодался, ем {detail}",),
    "skill:survive.flee": ("убегаю!", "лучше уйти отсюда"),
    "skill:combat.attack-nearest": ("получай, {detail}!", "защищаюсь"),
    "skill:survive.escape": ("застрял, выбираюсь",),
    "milestone": ("готово: {detail}", "ура, {detail}"),
    "threat:creeper": ("ох, криперы, прячусь", "крипер! отхожу"),
    "threat": ("{detail} рядом, осторожно", "вижу {detail}"),
    "dusk": ("темнеет, скоро монстры", "вечереет"),
    "dawn": ("утро, можно работать", "рассвело"),
    "player": ("привет, {detail}!", "о, {detail} пришёл"),
}
"""Moment → the lines the persona picks from in turn; ``{detail}`` is filled in."""
THREAT_REMARK_RADIUS = 16.0
"""Hostiles farther than this are not worth a word."""
MAJOR_SKILLS = (
    "gather.", "craft.", "survive.sleep", "survive.eat", "survive.flee", "survive.escape",
    "combat.attack-nearest", "base.place-chest", "food.hunt",
)  # fmt: skip
"""Skills whose start the persona remarks on (not every step and glance)."""


def moment_of(
    event: object, bot: str, fellows: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """The moment (and its detail) an event of the bot's life is, or None if it is not one.
    ``fellows``: the other bots of its fleet, whom it never greets (lowercase names)."""
    match event:
        case ActivityChanged(skill=str() as skill) if skill.startswith(MAJOR_SKILLS):
            skill_id, _, detail = skill.partition(" ")
            return f"skill:{skill_id}", detail or skill_id.partition(".")[2]
        case Died():
            return "death", ""
        case Respawned():
            return "respawn", ""
        case HostileSpotted(name=name, distance=distance) if distance <= THREAT_REMARK_RADIUS:
            return ("threat:creeper" if name == "creeper" else "threat"), name
        case DuskFell():
            return "dusk", ""
        case DawnBroke():
            return "dawn", ""
        case PlayerSpotted(name=name) if name != bot and name.lower() not in fellows:
            return "player", name
    return None


def line_for(moment: str, detail: str = "", turn: int = 0) -> str | None:
    """The line for a moment (``skill:craft`` falls back on ``skill:`` prefixes), or None."""
    choices = LINES.get(moment)
    if choices is None and ":" in moment:
        head, _, rest = moment.partition(":")
        choices = LINES.get(f"{head}:{rest.split('.')[0]}") or LINES.get(head)
    if not choices:
        return None
    return choices[turn % len(choices)].format(detail=detail or "что-то")


@dataclass(slots=True, kw_only=True)
class Voice:
    """When the persona may speak; times are wall-clock seconds (they outlive the process)."""

    last: float = float("-inf")
    recent: deque[float] = field(default_factory=deque)
    moments: dict[str, float] = field(default_factory=dict)
    turns: int = 0

    @classmethod
    def restore(cls, saved: Mapping[str, Any] | None) -> Voice:
        """The cooldowns :meth:`saved` gave (checked by ``persona.json``'s schema), or fresh
        ones for None."""
        if saved is None:
            return cls()
        return cls(
            last=saved["last"],
            recent=deque(sorted(saved["recent"])),
            moments=dict(saved["moments"]),
            turns=saved.get("turns", 0),
        )

    def saved(self) -> dict[str, Any]:
        """The cooldowns as ``persona.json`` keeps them."""
        return {
            "last": self.last,
            "recent": list(self.recent),
            "moments": self.moments,
            "turns": self.turns,
        }

    def speak(self, moment: str, detail: str, now: float) -> str | None:
        """The line to say for ``moment`` at ``now``, or None when the persona must keep quiet.

        A line said changes the cooldowns: the caller saves :meth:`saved` then."""
        while self.recent and now - self.recent[0] >= 3600.0:
            self.recent.popleft()
        if now - self.last < MIN_GAP or len(self.recent) >= PER_HOUR:
            return None
        key = f"{moment}:{detail}" if moment in ("threat", "player") else moment
        if now - self.moments.get(key, float("-inf")) < SAME_MOMENT_GAP:
            return None
        line = line_for(moment, detail, self.turns)
        if line is None:
            return None
        self.last = now
        self.recent.append(now)
        self.moments[key] = now
        self.moments = {k: t for k, t in self.moments.items() if now - t < SAME_MOMENT_GAP}
        self.turns += 1
        return line
