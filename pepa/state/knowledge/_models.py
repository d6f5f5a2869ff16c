"""Pony entities of the knowledge base, defined per Database (so each store has its own)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pony import orm

__all__ = ["COLUMNS", "SCHEMA_VERSION", "define", "utcnow"]

SCHEMA_VERSION = 5
"""Bumped when a table or column is added; migrations are additive only (:data:`COLUMNS`).
2: ``deaths.cause_kind`` and ``deaths.cause``; 3: ``lessons.signature``; 4: ``lessons.touched``;
5: ``deaths.bot`` (whose death, in a base a fleet shares)."""

COLUMNS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("deaths", "cause_kind", {"SQLite": "TEXT NOT NULL DEFAULT ''",
                              "PostgreSQL": "TEXT NOT NULL DEFAULT ''"}),
    ("deaths", "cause", {"SQLite": "JSON", "PostgreSQL": "JSONB"}),
    ("lessons", "signature", {"SQLite": "TEXT NOT NULL DEFAULT ''",
                              "PostgreSQL": "TEXT NOT NULL DEFAULT ''"}),
    ("lessons", "touched", {"SQLite": "DATETIME", "PostgreSQL": "TIMESTAMP"}),
    ("deaths", "bot", {"SQLite": "TEXT NOT NULL DEFAULT ''",
                       "PostgreSQL": "TEXT NOT NULL DEFAULT ''"}),
)  # fmt: skip
"""Columns added since schema 1: (table, column, its type by Pony dialect), as Pony itself
would declare them; :meth:`KnowledgeStore.open` adds those an older file lacks."""


def utcnow() -> datetime:
    """Naive UTC now (what the columns store)."""
    return datetime.now(UTC).replace(tzinfo=None)


def define(db: orm.Database) -> dict[str, Any]:
    """Declare every entity on ``db``; returns them by name."""

    class Meta(db.Entity):
        _table_ = "meta"
        key = orm.PrimaryKey(str)
        value = orm.Required(str)

    class Lesson(db.Entity):
        _table_ = "lessons"
        skill = orm.Required(str, index=True)
        situation = orm.Required(str)
        hostile = orm.Optional(str, index=True)
        verdict = orm.Required(str)  # avoid | prefer | note
        alternative = orm.Optional(str)
        text = orm.Required(str)
        confidence = orm.Required(float, default=0.5)
        applied = orm.Required(int, default=0)
        source = orm.Required(str, default="seed")
        created = orm.Required(datetime, default=utcnow)
        signature = orm.Optional(str)  # pepa.policy.reflex.situation.Situation; '' before schema 3
        touched = orm.Optional(datetime)  # last learned again or graded; None: since created
        orm.composite_index(skill, hostile)

    class RecipeRow(db.Entity):
        _table_ = "recipes"
        result = orm.Required(str, index=True)
        count = orm.Required(int)
        ingredients = orm.Required(orm.Json)
        needs_table = orm.Required(bool)

    class MobIntel(db.Entity):
        _table_ = "mob_intel"
        name = orm.PrimaryKey(str)
        category = orm.Optional(str)
        hostile = orm.Required(bool)
        verdict = orm.Optional(str)  # fight | flee | ignore
        note = orm.Optional(str)

    class BlockIntel(db.Entity):
        _table_ = "block_intel"
        name = orm.PrimaryKey(str)
        hardness = orm.Optional(float, nullable=True)
        harvest_tools = orm.Required(orm.Json)
        drops = orm.Required(orm.Json)
        light = orm.Required(int, default=0)

    class Death(db.Entity):
        _table_ = "deaths"
        at = orm.Required(datetime, default=utcnow, index=True)
        reason = orm.Required(str)
        x = orm.Optional(float, nullable=True)
        y = orm.Optional(float, nullable=True)
        z = orm.Optional(float, nullable=True)
        last_skill = orm.Optional(str)
        last_hostile = orm.Optional(str)
        hostile_distance = orm.Optional(float, nullable=True)
        hp = orm.Optional(float, nullable=True)
        food = orm.Optional(int, nullable=True)
        bundle = orm.Required(orm.Json, lazy=True, optimistic=False)  # see record_death
        cause_kind = orm.Optional(str)  # pepa.world.death.KINDS; '' before schema 2
        cause = orm.Optional(orm.Json, nullable=True)  # DeathCause.as_dict(); null before 2
        bot = orm.Optional(str)  # whose, in a shared base; '' alone or before 5
        postmortems = orm.Set("PostMortem")

    class PostMortem(db.Entity):
        _table_ = "postmortems"
        death = orm.Required(Death)
        backend = orm.Required(str)
        cause = orm.Required(str)
        analysis = orm.Required(str)
        created = orm.Required(datetime, default=utcnow)

    class Poi(db.Entity):
        _table_ = "poi"
        kind = orm.Required(str)
        cell_x = orm.Required(int)
        cell_z = orm.Required(int)
        x = orm.Required(float)
        y = orm.Required(float)
        z = orm.Required(float)
        note = orm.Optional(str)
        created = orm.Required(datetime, default=utcnow)
        orm.composite_index(cell_x, cell_z)

    class WikiPage(db.Entity):
        _table_ = "wiki_pages"
        title = orm.PrimaryKey(str)
        etag = orm.Optional(str)
        body = orm.Required(orm.LongStr)
        fetched_at = orm.Required(datetime)

    class ChatLine(db.Entity):
        _table_ = "chat_log"
        at = orm.Required(datetime, default=utcnow, index=True)
        speaker = orm.Optional(str)
        direction = orm.Required(str)  # in | out
        text = orm.Required(str)
        intent = orm.Optional(str)

    class CodeChange(db.Entity):
        _table_ = "code_changes"
        at = orm.Required(datetime, default=utcnow)
        proposal = orm.Required(str)
        branch = orm.Optional(str)
        outcome = orm.Required(str)
        diff_hash = orm.Optional(str)

    class SkillMetric(db.Entity):
        _table_ = "skill_metrics"
        skill = orm.PrimaryKey(str)
        ok = orm.Required(int, default=0)
        failed = orm.Required(int, default=0)
        total_seconds = orm.Required(float, default=0.0)

    return {
        "Meta": Meta, "Lesson": Lesson, "RecipeRow": RecipeRow, "MobIntel": MobIntel,
        "BlockIntel": BlockIntel, "Death": Death, "PostMortem": PostMortem, "Poi": Poi,
        "WikiPage": WikiPage, "ChatLine": ChatLine, "CodeChange": CodeChange,
        "SkillMetric": SkillMetric,
    }  # fmt: skip
