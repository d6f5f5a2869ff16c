"""Lessons another bot wrote, heard as they are written (PostgreSQL's LISTEN/NOTIFY).

A fleet's bots share one knowledge base (docs/fleet.md). Every lesson a bot
stores, grades or decays is announced at its commit on
:data:`~pepa.state.knowledge.store.LESSON_CHANNEL` as ``<bot>:<lesson id>``
(:meth:`KnowledgeStore._announce`). Each knowledge actor keeps a
:class:`LessonListener`: a thread with a connection of its own that LISTENs
and hands every payload from another bot to the actor, which reads that
lesson and tells its own reflex chain. A listener that loses its connection
connects again (backoff to :data:`MAX_BACKOFF` s); lessons written meanwhile
are in the base, and the chain reads them all at its next start.
"""

from __future__ import annotations

import logging
import select
import threading
from collections.abc import Callable

import psycopg2
import psycopg2.extensions

from pepa.base.threads import thread_name
from pepa.state.knowledge.database import psycopg2_arguments
from pepa.state.knowledge.store import LESSON_CHANNEL

__all__ = ["LessonListener", "parse_payload"]

logger = logging.getLogger(__name__)

MAX_BACKOFF = 10.0
POLL = 1.0
"""Seconds between two looks at the closing flag while nothing is said."""


def parse_payload(payload: str) -> tuple[str, int] | None:
    """``miner:12`` → ``("miner", 12)``; None for anything else (never trusted further)."""
    bot, sep, ident = payload.rpartition(":")
    if not sep or not ident.isdigit() or len(payload) > 64:
        return None
    return bot, int(ident)


class LessonListener:
    """Hears :data:`LESSON_CHANNEL` on a thread of its own; ``on_lesson(bot, id)`` for each."""

    def __init__(self, url: str, on_lesson: Callable[[str, int], None]) -> None:
        self._connect_arguments = psycopg2_arguments(url)
        self._on_lesson = on_lesson
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
                ready, _, _ = select.select([conn], [], [], POLL)
                if not ready:
                    continue
                conn.poll()
                while conn.notifies:
                    note = conn.notifies.pop(0)
                    found = parse_payload(note.payload)
                    if found is None:
                        logger.warning(
                            "an announcement not from pepa ignored: %r", note.payload[:80]
                        )
                        continue
                    self._on_lesson(*found)
        finally:
            conn.close()
