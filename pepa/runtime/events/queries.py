"""Typed asks between actors: each names what it asks and the type of its answer.

``self.peer("knowledge").request(ActiveLessons())`` returns
``tuple[ActiveLesson, ...]`` to mypy; the serving actor answers in its
``on_message`` (``case ActiveLessons(): return …``). A method name in a
string (``call("active_lessons")``) is what these replace: grep and mypy can
follow a class.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pepa.runtime import Query

__all__ = [
    "ActiveLesson",
    "ActiveLessons",
    "DeathPlaces",
    "Learning",
    "LearningSummary",
    "ProposalIds",
    "Proposals",
    "Reflect",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ActiveLesson:
    """A lesson confident enough for the reflex chain to act on."""

    skill: str
    hostile: str
    verdict: str
    alternative: str
    confidence: float
    signature: str = ""
    """The situation the lesson is about (``Situation.signature``), empty: any."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ActiveLessons(Query[tuple[ActiveLesson, ...]]):
    """Knowledge: the lessons the reflex chain acts on (confidence ≥ 0.6)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeathPlaces(Query[tuple[tuple[float, float], ...]]):
    """Knowledge: (x, z) of the last places the bot died, newest first (the watchdog steers the
    pathfinder round them)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProposalIds:
    """The proposals waiting for an operator, and those approved."""

    pending: tuple[str, ...]
    approved: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Proposals(Query[ProposalIds]):
    """Knowledge: the ids of pending and approved proposals."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reflect(Query[Path | None]):
    """Knowledge: reflect now on the window since the last reflection; the report's path
    (None when it could not be written)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LearningSummary:
    """What the bot has learned, for people: the dashboard's learning view, ``pepa status``."""

    deaths: int = 0
    """Deaths stored in the knowledge base."""
    deaths_by_cause: tuple[tuple[str, int], ...] = ()
    """(cause kind, deaths), most first (:data:`pepa.world.death.KINDS`)."""
    recent_deaths: tuple[str, ...] = ()
    """The last deaths, newest first: ``12:03 slain by zombie``."""
    lessons_in_force: int = 0
    """Lessons the reflex chain acts on (confidence at or above ``ACT_ON``)."""
    recent_lessons: tuple[str, ...] = ()
    """Lessons learned or graded in the last hour, newest first:
    ``12:04 held: avoid combat.attack-nearest vs zombie → 0.75``."""
    lessons_by_subject: tuple[tuple[str, int], ...] = ()
    """Lessons in force by what they are about: ``block``, ``mob``, ``action``, and ``place``
    (places of death walked around)."""
    hazards: tuple[str, ...] = ()
    """The block and mob lessons in force, strongest first: ``magma_block: standing on 0.85``."""
    near_misses: int = 0
    """Near-misses (a large loss of health survived) since the daemon started."""
    recent_near_misses: tuple[str, ...] = ()
    """The last near-misses, newest first: ``12:04 lost 9 to contact from cactus (touching)``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Learning(Query[LearningSummary]):
    """Knowledge: what the bot has learned (also published as ``LearningChanged``)."""
