"""Lessons another bot wrote, heard as they are written (PostgreSQL's LISTEN/NOTIFY).

A fleet's bots share one knowledge base (docs/fleet.md). Every lesson a bot
stores, grades or decays is announced at its commit on
:data:`~pepa.state.knowledge.store.LESSON_CHANNEL` as ``<bot>:<lesson id>``
(:meth:`KnowledgeStore._announce`). Each knowledge actor keeps a
:class:`LessonListener`: a thread with a connection of its own that LISTENs
and hands the lessons announced to the actor, which reads them and tells its
own reflex chain. A listener that loses its connection connects again
(backoff to :data:`MAX_BACKOFF` s); lessons written meanwhile are in the
base, and the chain reads them all at its next start.

Announcements are not trusted to be few: anyone who can connect to the base
can ``NOTIFY``. The listener gathers the lesson ids it hears into one set
(a lesson announced ten times is read once) of at most :data:`MAX_PENDING`
ids, and hands the set over at most once every :data:`HAND_OVER_EVERY`
seconds. Ids beyond the bound are not kept: the hand-over then says it
overflowed, and the actor reads the lessons in force again instead (a
flood cannot hide a real lesson). So a flood costs the actor a
bounded number of reads, whatever its size.
"""

from __future__ import annotations

import logging
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg2
import psycopg2.extensions

from pepa.base.threads import thread_name
from pepa.state.knowledge.database import psycopg2_arguments
from pepa.state.knowledge.store import LESSON_CHANNEL

__all__ = ["HAND_OVER_EVERY", "MAX_PENDING", "Heard", "LessonListener", "parse_payload"]

logger = logging.getLogger(__name__)

MAX_BACKOFF = 10.0
POLL = 1.0
"""Seconds between two looks at the closing flag while nothing is said."""
MAX_PENDING = 256
"""Lesson ids gathered between two hand-overs, at most."""
HAND_OVER_EVERY = 0.5
"""Seconds between two hand-overs to the actor, at least."""


@dataclass(frozen=True, slots=True)
class Heard:
    """What the listener heard since its last hand-over."""

    lessons: dict[int, str] = field(default_factory=dict)
    """Lesson id → the bot that announced it last."""
    overflowed: bool = False
    """More lessons were announced than :data:`MAX_PENDING`: read those in force again."""


def parse_payload(payload: str) -> tuple[str, int] | None:
    """``miner:12`` → ``("miner", 12)``; None for anything else (never trusted further)."""
    bot, sep, ident = payload.rpartition(":")
    if not sep or not ident.isdigit() or len(payload) > 64:
        return None
    return bot, int(ident)


class LessonListener:
    """Hears :data:`LESSON_CHANNEL` on a thread of its own; ``on_lessons(heard)`` with the
    lessons announced since the last call, at most every :data:`HAND_OVER_EVERY` seconds."""

    def __init__(self, url: str, on_lessons: Callable[[Heard], None]) -> None:
        self._connect_arguments = psycopg2_arguments(url)
        self._on_lessons = on_lessons
        self._pending: dict[int, str] = {}
        self._dropped = 0
        self._ignored = 0
        self._handed = 0.0
        """When the last hand-over was (monotonic)."""
        self._closing = threading.Event()
        self._listening = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=thread_name("pepa-lessons"), daemon=True
        )

    def start(self) -> LessonListener:
        self._thread.start()
        return self

    def wait_listening(self, timeout: float) -> bool:
        """Until the first LISTEN is in place (for tests and the actor's start)."""
        return self._listening.wait(timeout)

    def close(self, timeout: float = 5.0) -> None:
        self._closing.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        backoff = 0.5
        while not self._closing.is_set():
            try:
                self._listen()
                backoff = 0.5
            except psycopg2.Error as exc:
                self._listening.clear()
                logger.warning(
                    "lessons of the other bots: connection lost (%s); again in %.1fs",
                    str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
                    backoff,
                )
                if self._closing.wait(backoff):
                    return
                backoff = min(MAX_BACKOFF, backoff * 2)

    def _listen(self) -> None:
        conn = psycopg2.connect(**self._connect_arguments)
        try:
            conn.set_isolation_level(psycopg2.extensions.ISOLATION_LEVEL_AUTOCOMMIT)
            with conn.cursor() as cursor:
                cursor.execute(f"LISTEN {LESSON_CHANNEL}")
            self._listening.set()
            while not self._closing.is_set():
                busy = self._pending or self._dropped or self._ignored
                wait = max(0.0, self._due() - time.monotonic()) if busy else POLL
                ready, _, _ = select.select([conn], [], [], min(POLL, wait))
                if ready:
                    conn.poll()
                    while conn.notifies:
                        self._gather(conn.notifies.pop(0).payload)
                busy = self._pending or self._dropped or self._ignored
                if busy and time.monotonic() >= self._due():
                    self._hand_over()
        finally:
            conn.close()

    def _due(self) -> float:
        return self._handed + HAND_OVER_EVERY

    def _gather(self, payload: str) -> None:
        found = parse_payload(payload)
        if found is None:
            if not self._ignored:
                logger.warning("an announcement not from pepa ignored: %r", payload[:80])
            self._ignored += 1
            return
        bot, ident = found
        if ident in self._pending or len(self._pending) < MAX_PENDING:
            self._pending[ident] = bot
        else:
            self._dropped += 1

    def _hand_over(self) -> None:
        heard = Heard(self._pending, overflowed=self._dropped > 0)
        self._pending = {}
        if self._ignored > 1:
            logger.warning("%d more announcements not from pepa ignored", self._ignored - 1)
        self._ignored = 0
        if self._dropped:
            logger.warning(
                "lessons of the other bots: %d announcements beyond %d in %.1fs (a flood?); "
                "the lessons in force are read again instead", self._dropped, MAX_PENDING,
                HAND_OVER_EVERY,
            )  # fmt: skip
            self._dropped = 0
        self._handed = time.monotonic()
        if heard.lessons or heard.overflowed:
            self._on_lessons(heard)
