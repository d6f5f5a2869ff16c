"""The store's writer: every write (and read) the knowledge actor makes on the knowledge base.

One :class:`StoreWriter` per knowledge actor, used only on its thread. It
opens the SQLite file or the PostgreSQL database of :class:`KnowledgeStore`
and turns each failure into one warning naming what failed: a database that
cannot be opened, or breaks later (a full disk, a dropped table, a server
gone), costs the bot its memory, never the actor. Without a store every call
answers "nothing" (None, an empty list).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from pepa.state.knowledge.records import LessonDraft
from pepa.state.knowledge.seeding import seed
from pepa.state.knowledge.store import DeathRecord, KnowledgeError, KnowledgeStore, LessonRecord

__all__ = ["StoreWriter"]

logger = logging.getLogger(__name__)

T = TypeVar("T")


class StoreWriter:
    """The knowledge base as the knowledge actor writes it: failures are warnings."""

    def __init__(self, store: KnowledgeStore | None = None) -> None:
        self.store = store
        """The open store; None when it could not be opened."""

    @classmethod
    def open(cls, path: Path, url: str | None = None, bot: str = "") -> StoreWriter:
        """The store at ``url`` (a fleet's PostgreSQL, shared as ``bot``) or the SQLite file
        ``path``."""
        try:
            store = (KnowledgeStore(url=url, bot=bot) if url else KnowledgeStore(path)).open()
        except KnowledgeError as exc:
            logger.warning("no knowledge base this time (the bot plays on): %s", exc)
            return cls(None)
        return cls(store)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()

    def run(self, what: str, action: Callable[[KnowledgeStore], T]) -> T | None:
        """``action(store)``; a failing database costs a warning saying ``what``, not the actor."""
        if self.store is None:
            return None
        try:
            return action(self.store)
        except Exception as exc:  # Pony/sqlite/psycopg errors of every kind: keep playing
            logger.warning("knowledge base: %s failed (the bot plays on): %s", what, exc)
            return None

    # -- deaths and lessons --------------------------------------------------------------

    def record_death(
        self, reason: str, position: Mapping[str, float] | None, bundle: Mapping[str, Any],
        cause: Mapping[str, Any] | None = None,
    ) -> DeathRecord | None:  # fmt: skip
        """A death with its cause, bundle and a danger place; None when it could not be stored."""
        return self.run(
            "storing a death",
            lambda s: s.record_death(reason=reason, position=position, bundle=bundle, cause=cause),
        )

    def add_postmortem(self, death_id: int, *, backend: str, cause: str, analysis: str) -> None:
        self.run(
            "storing a post-mortem",
            lambda s: s.add_postmortem(death_id, backend=backend, cause=cause, analysis=analysis),
        )

    def learn(self, draft: LessonDraft, source: str) -> LessonRecord | None:
        """Store a lesson (again: more confidence); the stored lesson."""
        return self.run("storing a lesson", lambda s: s.add_lesson(draft, source=source))

    def grade(
        self, skill: str, hostile: str, verdict: str, *, success: bool, signature: str = ""
    ) -> LessonRecord | None:
        """An applied lesson's outcome; the graded lesson (None: no such lesson)."""
        return self.run(
            "grading a lesson",
            lambda s: s.grade_lesson(skill, hostile, verdict, success=success, signature=signature),
        )

    def decay(self, since: datetime, now: datetime, active: float) -> list[LessonRecord]:
        """Stale lessons lose confidence (:meth:`KnowledgeStore.decay_lessons`); those of them that
        were in force (at or above ``active``)."""
        return self.run("decaying lessons", lambda s: s.decay_lessons(since, now, active)) or []

    def lessons(self, min_confidence: float, limit: int | None = None) -> list[LessonRecord]:
        """Lessons at or above a confidence, most confident first (the first ``limit``)."""
        found = self.run("reading lessons", lambda s: s.lessons(min_confidence, limit))
        return found or []

    def lessons_by_id(self, ids: Iterable[int]) -> list[LessonRecord]:
        """The lessons of these rows that exist, in one query."""
        return self.run("reading shared lessons", lambda s: s.lessons_by_id(ids)) or []

    def learning(
        self, min_confidence: float
    ) -> tuple[dict[str, int], list[tuple[datetime, str]], int]:
        """Deaths per cause, (when, why) of the last 5 deaths, lessons at or above
        ``min_confidence``."""
        return self.run(
            "reading what was learned",
            lambda s: (s.deaths_by_cause(), s.recent_deaths(5), s.count_lessons(min_confidence)),
        ) or ({}, [], 0)

    def death_places(self, limit: int) -> list[tuple[float, float]]:
        """(x, z) of the last deaths, newest first; none when the base cannot be read."""
        return self.run("reading death places", lambda s: s.death_places(limit)) or []

    def deaths_since(self, since: datetime) -> list[tuple[DeathRecord, str]]:
        """Deaths after ``since`` (UTC), each with its first post-mortem's cause."""
        return self.run("reading deaths", lambda s: s.deaths_since(since)) or []

    # -- the rest of the bot's life ------------------------------------------------------

    def log_chat(self, speaker: str | None, direction: str, text: str) -> None:
        self.run(
            "logging chat",
            lambda s: s.log_chat(speaker=speaker, direction=direction, text=text),
        )

    def record_skill(self, skill: str, ok: bool, seconds: float) -> None:
        self.run("recording a skill run", lambda s: s.record_skill(skill, ok, seconds))

    def describe(self, topic: str) -> str | None:
        """What the local tables say about ``topic`` (a recipe, a block, a mob)."""
        return self.run("describing a topic", lambda s: s.describe(topic))

    def seed(self, version: str, data_root: Path | None) -> bool | None:
        """Recipes, blocks and mobs of ``version`` from minecraft-data, once per version.

        None: another bot sharing the base is seeding it now
        (:func:`~pepa.state.knowledge.seeding.seed`); the caller tries again later. False
        after an error, which is logged: play on."""
        if self.store is None or data_root is None:
            return False
        try:
            seeded = seed(self.store, version, data_root)
        except Exception as exc:  # minecraft-data missing or odd, or the database broke: play on
            logger.warning("cannot seed the knowledge base for %s: %s", version, exc)
            return False
        if seeded:
            logger.info("knowledge base seeded from minecraft-data %s", version)
        return seeded

    def prune(self, before: datetime) -> dict[str, int]:
        """Forget chat, death bundles and danger places older than ``before`` (errors raise:
        the caller reports them with the other parts of a prune)."""
        return {} if self.store is None else self.store.prune(before=before)
