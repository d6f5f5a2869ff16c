"""What the knowledge base knows of the game and the wiki, for an operator's ``what`` and the
wiki lookups (``pepa/state/knowledge/wiki.py``): a line about a mob, block or item from the
tables minecraft-data filled, and the cached wiki pages."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pony import orm

from pepa.state.knowledge.wikitext import CachedPage

__all__ = ["Reference"]


class Reference:
    """The reference part of :class:`~pepa.state.knowledge.store.KnowledgeStore`."""

    e: Mapping[str, Any]
    """The store's Pony entities, by name."""

    @orm.db_session
    def describe(self, topic: str) -> str | None:
        """One line about a mob, block or item from the local tables, or None when they miss."""
        name = "_".join(topic.lower().split())
        mob = self.e["MobIntel"].get(name=name)
        if mob is not None:
            kind = "hostile" if mob.hostile else "not hostile"
            verdict = f"; {mob.verdict}: {mob.note}" if mob.verdict else ""
            return f"{name}: {mob.category or 'mob'}, {kind}{verdict}"
        block = self.e["BlockIntel"].get(name=name)
        recipe = orm.select(r for r in self.e["RecipeRow"] if r.result == name).first()
        parts = []
        if block is not None:
            tools = ", ".join(block.harvest_tools[:3]) or "any tool"
            drops = ", ".join(block.drops[:3]) or "nothing"
            parts.append(f"block, hardness {block.hardness}, needs {tools}, drops {drops}")
        if recipe is not None:
            needs = ", ".join(f"{n} {item}" for item, n in dict(recipe.ingredients).items())
            table = " at a crafting table" if recipe.needs_table else ""
            parts.append(f"made from {needs}{table} (makes {recipe.count})")
        return f"{name}: " + "; ".join(parts) if parts else None

    @orm.db_session
    def wiki_page(self, title: str) -> CachedPage | None:
        """The cached wiki page of a normalised title (``Iron_Ingot``), or None."""
        row = self.e["WikiPage"].get(title=title)
        if row is None:
            return None
        return CachedPage(
            title=row.title, etag=row.etag or None, body=row.body, fetched_at=row.fetched_at
        )

    @orm.db_session
    def save_wiki_page(self, title: str, etag: str | None, body: str, fetched_at: datetime) -> None:
        """Store a fetched page, or the new ``fetched_at`` of one the wiki said is unchanged."""
        row = self.e["WikiPage"].get(title=title)
        if row is None:
            self.e["WikiPage"](title=title, etag=etag or "", body=body, fetched_at=fetched_at)
        else:
            row.set(etag=etag or "", body=body, fetched_at=fetched_at)
