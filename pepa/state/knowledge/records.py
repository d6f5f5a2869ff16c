"""What the knowledge base hands out: plain, frozen records built from Pony rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = [
    "DeathRecord",
    "LessonDraft",
    "LessonRecord",
    "PoiRecord",
    "death_record",
    "lesson_record",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class DeathRecord:
    """One death as stored."""

    id: int
    at: datetime
    reason: str
    position: dict[str, float] | None
    last_skill: str
    last_hostile: str
    hostile_distance: float | None
    cause_kind: str = ""
    """One of :data:`pepa.world.death.KINDS`; empty for a death stored before schema 2."""
    cause: dict[str, Any] | None = None
    """:meth:`pepa.world.death.DeathCause.as_dict`; None before schema 2."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PoiRecord:
    """A point of interest."""

    kind: str
    x: float
    y: float
    z: float
    note: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LessonRecord:
    """A lesson as the reflex chain consults it."""

    skill: str
    hostile: str
    verdict: str
    alternative: str
    confidence: float
    text: str
    applied: int = 0
    source: str = ""
    signature: str = ""
    """The situation it is about (``Situation.signature``); empty: its hostile anywhere."""
    id: int = 0
    """Its row (0: not stored)."""


def lesson_record(row: Any) -> LessonRecord:
    """A ``lessons`` row as a record."""
    return LessonRecord(
        skill=row.skill, hostile=row.hostile, verdict=row.verdict, alternative=row.alternative,
        confidence=row.confidence, text=row.text, applied=row.applied, source=row.source,
        signature=row.signature, id=row.id,
    )  # fmt: skip


def death_record(row: Any) -> DeathRecord:
    """A ``deaths`` row as a record."""
    position = None if row.x is None else {"x": row.x, "y": row.y, "z": row.z}
    return DeathRecord(
        id=row.id, at=row.at, reason=row.reason, position=position,
        last_skill=row.last_skill, last_hostile=row.last_hostile,
        hostile_distance=row.hostile_distance, cause_kind=row.cause_kind, cause=row.cause,
    )  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class LessonDraft:
    """A lesson to store: what a post-mortem, a reflection or another bot concluded."""

    skill: str
    situation: str
    hostile: str
    verdict: str
    alternative: str
    text: str
    confidence: float
    signature: str = ""
    """The situation it is about (``Situation.signature``); empty: its hostile anywhere."""
