"""The bot's knowledge: the knowledge base (Pony ORM on SQLite or PostgreSQL, written only
by the knowledge actor's thread) and the pure policy that actor consults (docs/knowledge.md)."""

from __future__ import annotations

from pepa.state.knowledge.store import (
    DeathRecord,
    KnowledgeError,
    KnowledgeStore,
    LessonRecord,
    PoiRecord,
)

__all__ = ["DeathRecord", "KnowledgeError", "KnowledgeStore", "LessonRecord", "PoiRecord"]
