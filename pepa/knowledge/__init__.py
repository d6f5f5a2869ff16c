"""The bot's knowledge base: Pony ORM on SQLite, owned by the knowledge actor's thread."""

from __future__ import annotations

from pepa.knowledge.store import (
    DeathRecord,
    KnowledgeError,
    KnowledgeStore,
    LessonRecord,
    PoiRecord,
)

__all__ = ["DeathRecord", "KnowledgeError", "KnowledgeStore", "LessonRecord", "PoiRecord"]
