"""The knowledge base of one server: Pony ORM on SQLite (``knowledge.db``, WAL mode) or PostgreSQL.

With a ``postgresql://`` URL the same models live in a shared server, so a
fleet of bots shares its lessons.

Only the knowledge actor's thread calls a :class:`KnowledgeStore`; callers
get plain dataclasses, never Pony entities. Opening is idempotent and
additive: missing tables are created, the schema version row is written,
nothing is ever dropped.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable, Mapping
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
from pony import orm

from pepa.base.urls import redact_url
from pepa.state.knowledge._models import COLUMNS, SCHEMA_VERSION, define, utcnow
from pepa.state.knowledge.database import KnowledgeError, bind_arguments, opening_alone
from pepa.state.knowledge.records import (
    DeathRecord,
    LessonRecord,
    PoiRecord,
    death_record,
    lesson_record,
)
from pepa.state.knowledge.reference import Reference

__all__ = [
    "DeathRecord",
    "KnowledgeError",
    "KnowledgeStore",
    "LessonRecord",
    "PoiRecord",
    "bind_arguments",
    "redact_url",
]

logger = logging.getLogger(__name__)

CELL = 16
"""POIs are indexed by 16x16 cells of x and z."""

GRADE_UP = 0.05
"""Confidence a lesson gains each time following it went well."""
GRADE_DOWN = 0.15
"""Confidence it loses when the bot died following it (bad advice must fade fast)."""
MIN_CONFIDENCE, MAX_CONFIDENCE = 0.05, 0.95
DECAY_GRACE = timedelta(days=1)
"""A learned lesson neither learned again nor graded this long starts to decay."""
DECAY_PER_DAY = 0.05
"""Confidence a stale lesson loses a day: one learned once (0.7) stops acting (below 0.6) two
days after its day of grace; one confirmed to the cap (0.95), seven days after."""
LESSON_CHANNEL = "pepa_lessons"
"""PostgreSQL's channel for lessons written or graded: ``NOTIFY pepa_lessons, '<bot>:<id>'``
at the commit, heard by every other bot sharing the base (:mod:`pepa.state.knowledge.shared`)."""


class KnowledgeStore(Reference):
    """Open with :meth:`open`; every method runs in its own db_session."""

    def __init__(self, path: Path | None = None, *, url: str | None = None, bot: str = "") -> None:
        if (path is None) == (url is None):
            raise ValueError("give a SQLite path or a database URL, not both")
        self.path = path
        self.url = url
        self.bot = bot
        """Whose base this is, in a base several bots share (a PostgreSQL ``url``): its deaths
        are stored and counted as its own, its lessons announced as from it. "": one bot's."""
        self.db = orm.Database()
        self.e = define(self.db)
        self.shared = False
        """On PostgreSQL: lessons are announced on :data:`LESSON_CHANNEL` as they change."""

    @property
    def where(self) -> str:
        """The database for messages: the file, or the URL without its password."""
        return str(self.path) if self.path is not None else redact_url(self.url or "")

    def open(self) -> KnowledgeStore:
        """Create or upgrade the database (idempotent); raises KnowledgeError."""
        try:
            if self.path is not None:
                self._bind_sqlite(self.path)
                self._create()
            else:
                self.db.bind(**bind_arguments(self.url or ""))
                with opening_alone(self.url or ""):  # a fleet's bots open a new base together
                    self._create()
            self.shared = self.db.provider.dialect == "PostgreSQL"
            if self.shared and self._superuser():
                logger.warning(
                    "knowledge base %s: the bot logs in as a superuser, which can run programs "
                    "on the database's machine; give it a role of its own (docs/fleet.md)",
                    self.where,
                )
        except Exception as exc:  # Pony raises many kinds; all mean "cannot use it"
            raise KnowledgeError(f"cannot open {self.where}: {exc}") from exc
        return self

    @orm.db_session
    def _superuser(self) -> bool:
        """Whether this connection's role is a PostgreSQL superuser."""
        rows = self.db.select("rolsuper FROM pg_roles WHERE rolname = current_user")
        return bool(rows and rows[0])

    def _create(self) -> None:
        self._add_columns()
        self.db.generate_mapping(create_tables=True)
        with orm.db_session:
            self.set_meta("schema_version", str(SCHEMA_VERSION))

    def _add_columns(self) -> None:
        """Upgrade an older database in place: add the :data:`COLUMNS` its tables lack.

        Before the mapping, which checks every column; a table that does not
        exist yet is left to ``create_tables``.
        """
        dialect = self.db.provider.dialect
        with orm.db_session:
            for table, column, types in COLUMNS:
                if dialect == "SQLite":
                    have = self.db.select(f"name from pragma_table_info('{table}')")
                else:
                    have = self.db.select(
                        "column_name from information_schema.columns "
                        "where table_schema = current_schema() and table_name = $table"
                    )
                if have and column not in have:
                    self.db.execute(f'ALTER TABLE "{table}" ADD COLUMN "{column}" {types[dialect]}')
                    logger.info("knowledge base %s: added %s.%s", self.where, table, column)

    def _bind_sqlite(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # WAL is a property of the file: set it outside Pony's transactions, once
        with closing(sqlite3.connect(path)) as raw:
            raw.execute("PRAGMA journal_mode=WAL")
        # Pony resolves a relative file name against its caller's module, not the cwd
        self.db.bind(provider="sqlite", filename=str(path.resolve()), create_db=True)

    def close(self) -> None:
        """Release the connection."""
        if self.db.provider is not None:
            self.db.disconnect()

    def set_meta(self, key: str, value: str) -> None:
        """Write a meta value, inside the caller's db_session."""
        meta = self.e["Meta"]
        row = meta.get(key=key)
        if row is None:
            meta(key=key, value=value)
        else:
            row.value = value

    @orm.db_session
    def meta(self, key: str) -> str | None:
        """A meta value (``schema_version``, ``seeded:<version>``)."""
        row = self.e["Meta"].get(key=key)
        return None if row is None else str(row.value)

    @orm.db_session
    def counts(self) -> dict[str, int]:
        """Rows per table, for status and tests."""
        return {entity._table_: orm.count(e for e in entity) for entity in self.e.values()}

    # -- deaths and places ---------------------------------------------------------------

    @orm.db_session
    def record_death(self, *, reason: str, position: Mapping[str, float] | None,
                     bundle: Mapping[str, Any],
                     cause: Mapping[str, Any] | None = None) -> DeathRecord:  # fmt: skip
        """Store a death with its cause and context bundle and mark the place dangerous."""
        last = bundle.get("last_hostile") or {}
        row = self.e["Death"](
            reason=reason,
            bot=self.bot,
            cause_kind=str((cause or {}).get("kind") or "unknown"),
            cause=json.loads(json.dumps(cause, default=str)) if cause is not None else None,
            x=position.get("x") if position else None,
            y=position.get("y") if position else None,
            z=position.get("z") if position else None,
            last_skill=str(bundle.get("last_skill") or ""),
            last_hostile=str(last.get("name") or ""),
            hostile_distance=last.get("distance"),
            hp=bundle.get("hp"),
            food=bundle.get("food"),
            bundle={},  # written below as text: Pony wraps a Json value for change tracking, node
        )  # by node (two thirds of a death's 35 ms for 150 snapshots)
        if position:
            self._add_poi("danger", position, f"died: {reason}")
        orm.flush()
        values = {
            "text": orjson.dumps(bundle, default=str, option=orjson.OPT_NON_STR_KEYS).decode(),
            "ident": row.id,
        }
        self.db.execute('UPDATE "deaths" SET "bundle" = $text WHERE "id" = $ident', {}, values)
        return death_record(row)

    @orm.db_session
    def deaths_by_cause(self) -> dict[str, int]:
        """Deaths per cause kind; deaths stored before causes were kept count as ``unknown``."""
        who = self._who
        rows = orm.select(
            (d.cause_kind, orm.count(d)) for d in self.e["Death"] if who == "" or d.bot == who
        )
        counts: dict[str, int] = {}
        for kind, n in rows:
            counts[kind or "unknown"] = counts.get(kind or "unknown", 0) + n
        return counts

    @orm.db_session
    def death_places(self, limit: int) -> list[tuple[float, float]]:
        """(x, z) of the last ``limit`` deaths with a place, newest first."""
        rows = orm.select(d for d in self.e["Death"] if d.x is not None).order_by(
            lambda d: orm.desc(d.id)
        )
        return [(row.x, row.z) for row in rows[:limit]]

    def _lesson_row(self, skill: str, hostile: str, verdict: str, signature: str) -> Any:
        """The lesson of that identity, or None. Not ``get()``: an older file may hold
        duplicates (seeds once per version). A generator query: Pony translates it once."""
        return orm.select(
            x for x in self.e["Lesson"]
            if x.skill == skill and x.hostile == hostile and x.verdict == verdict
            and x.signature == signature
        ).first()  # fmt: skip

    @orm.db_session
    def recent_deaths(self, limit: int) -> list[tuple[datetime, str]]:
        """(when, why) of the last ``limit`` deaths, newest first (no bundle read: a bundle is
        150 snapshots)."""
        who = self._who
        rows = orm.select(
            (d.id, d.at, d.reason) for d in self.e["Death"] if who == "" or d.bot == who
        ).order_by(-1)
        return [(at, reason) for _, at, reason in rows[:limit]]

    @orm.db_session
    def count_lessons(self, min_confidence: float) -> int:
        """Lessons at or above a confidence."""
        return int(orm.count(x for x in self.e["Lesson"] if x.confidence >= min_confidence))

    @orm.db_session
    def deaths(self, limit: int = 20) -> list[DeathRecord]:
        """The latest deaths, newest first."""
        query = orm.select(d for d in self.e["Death"]).order_by(lambda d: orm.desc(d.id))
        return [death_record(row) for row in query[:limit]]

    @orm.db_session
    def deaths_since(self, since: datetime) -> list[tuple[DeathRecord, str]]:
        """Deaths after ``since`` (UTC), oldest first, each with its first post-mortem's cause."""
        who = self._who
        rows = orm.select(
            d for d in self.e["Death"] if d.at > since and (who == "" or d.bot == who)
        ).order_by(lambda d: d.id)
        found = []
        for row in rows:
            causes = orm.select(p for p in self.e["PostMortem"] if p.death == row)
            first = causes.order_by(lambda p: p.id).first()
            found.append((death_record(row), first.cause if first is not None else row.reason))
        return found

    @orm.db_session
    def add_poi(self, kind: str, position: Mapping[str, float], note: str = "") -> None:
        """Remember a place."""
        self._add_poi(kind, position, note)

    def _add_poi(self, kind: str, position: Mapping[str, float], note: str) -> None:
        x, y, z = float(position["x"]), float(position["y"]), float(position["z"])
        self.e["Poi"](
            kind=kind, cell_x=int(x // CELL), cell_z=int(z // CELL), x=x, y=y, z=z, note=note
        )

    @orm.db_session
    def pois_near(
        self, x: float, z: float, radius: float, kind: str | None = None
    ) -> list[PoiRecord]:
        """Places within ``radius`` blocks (x/z), using the cell index."""
        lo_x, hi_x = int((x - radius) // CELL), int((x + radius) // CELL)
        lo_z, hi_z = int((z - radius) // CELL), int((z + radius) // CELL)
        rows = orm.select(
            p for p in self.e["Poi"]
            if p.cell_x >= lo_x and p.cell_x <= hi_x and p.cell_z >= lo_z and p.cell_z <= hi_z
        )  # fmt: skip
        return [
            PoiRecord(kind=p.kind, x=p.x, y=p.y, z=p.z, note=p.note)
            for p in rows
            if (kind is None or p.kind == kind) and (p.x - x) ** 2 + (p.z - z) ** 2 <= radius**2
        ]

    # -- post-mortems and lessons ------------------------------------------------------

    @orm.db_session
    def postmortems(self, death_id: int) -> list[tuple[str, str, str]]:
        """(backend, cause, analysis) of every analysis of one death, oldest first."""
        rows = orm.select(p for p in self.e["PostMortem"] if p.death.id == death_id)
        return [(p.backend, p.cause, p.analysis) for p in rows.order_by(lambda p: p.id)]

    @orm.db_session
    def add_postmortem(self, death_id: int, *, backend: str, cause: str, analysis: str) -> None:
        """The analysis of one death."""
        death = self.e["Death"][death_id]
        self.e["PostMortem"](death=death, backend=backend, cause=cause, analysis=analysis)

    @orm.db_session
    def add_lesson(self, draft: Any, *, source: str) -> LessonRecord:
        """Store a lesson; the same (skill, hostile, verdict, situation signature) again raises
        its confidence."""
        lesson = self.e["Lesson"]
        signature = getattr(draft, "signature", "")
        row = self._lesson_row(draft.skill, draft.hostile, draft.verdict, signature)
        if row is None:
            row = lesson(
                skill=draft.skill, situation=draft.situation, hostile=draft.hostile,
                verdict=draft.verdict, alternative=draft.alternative, text=draft.text,
                confidence=draft.confidence, source=source, signature=signature,
            )  # fmt: skip
        else:
            row.confidence = min(MAX_CONFIDENCE, max(row.confidence, draft.confidence) + 0.1)
            row.text = draft.text
            row.touched = utcnow()
        orm.flush()
        self._announce(row.id)
        return lesson_record(row)

    @orm.db_session
    def grade_lesson(
        self, skill: str, hostile: str, verdict: str, *, success: bool, signature: str = ""
    ) -> LessonRecord | None:
        """An applied lesson's outcome: count it, and move its confidence up or down."""
        row = self._lesson_row(skill, hostile, verdict, signature)
        if row is None:
            return None
        row.applied += 1
        step = GRADE_UP if success else -GRADE_DOWN
        row.confidence = round(min(MAX_CONFIDENCE, max(MIN_CONFIDENCE, row.confidence + step)), 3)
        row.touched = utcnow()
        orm.flush()
        self._announce(row.id)
        return lesson_record(row)

    @orm.db_session
    def decay_lessons(self, since: datetime, now: datetime, active: float) -> list[LessonRecord]:
        """Lessons that stopped mattering lose confidence: each learned one (not a seed) neither
        learned again nor graded for :data:`DECAY_GRACE` loses :data:`DECAY_PER_DAY` a day for
        the time between ``since`` (the last decay) and ``now``, down to the floor. Returns the
        lessons that were at or above ``active`` (the chain's) and lost some: the chain hears of
        each, so its copy (recalled at coarser levels too) decays as well."""
        stale = now - DECAY_GRACE
        last = self.e["Meta"].get(key="decayed_at")  # a shared base decays once, whoever does
        if last is not None:
            since = max(since, datetime.fromisoformat(last.value))
        self.set_meta("decayed_at", now.isoformat())
        rows = orm.select(
            x for x in self.e["Lesson"]
            if x.source != "seed" and x.confidence > MIN_CONFIDENCE and x.created < stale
            and (x.touched is None or x.touched < stale)
        )  # fmt: skip
        decayed = []
        for row in rows:
            start = max(since, (row.touched or row.created) + DECAY_GRACE)
            days = (now - start).total_seconds() / 86400
            if days <= 0:
                continue
            before = row.confidence  # not rounded: a reflection's share of a day is small
            row.confidence = max(MIN_CONFIDENCE, before - DECAY_PER_DAY * days)
            if before >= active:
                decayed.append(lesson_record(row))
                self._announce(row.id)
        orm.flush()
        return decayed

    @orm.db_session
    def lesson(self, lesson_id: int) -> LessonRecord | None:
        """One lesson by its row (an announcement from another bot), or None."""
        row = self.e["Lesson"].get(id=lesson_id)
        return None if row is None else lesson_record(row)

    @orm.db_session
    def lessons_by_id(self, ids: Iterable[int]) -> list[LessonRecord]:
        """The lessons of these rows that exist (announcements from other bots), in one query."""
        wanted = sorted(set(ids))
        if not wanted:
            return []
        rows = orm.select(x for x in self.e["Lesson"] if x.id in wanted).order_by(lambda x: x.id)
        return [lesson_record(row) for row in rows]

    @property
    def _who(self) -> str:
        """The bot whose deaths a query counts: this one in a shared base, else "" (all)."""
        return self.bot if self.shared else ""

    def _announce(self, lesson_id: int) -> None:
        """Tell the other bots of a shared base that a lesson changed (sent at the commit)."""
        if self.shared:
            self.db.execute(
                "SELECT pg_notify($channel, $payload)",
                {},
                {"channel": LESSON_CHANNEL, "payload": f"{self.bot}:{lesson_id}"},
            )

    @orm.db_session
    def lessons_for(self, skill: str, hostile: str) -> list[LessonRecord]:
        """The lessons about ``skill`` against ``hostile`` (indexed), most confident first."""
        rows = orm.select(
            x for x in self.e["Lesson"] if x.skill == skill and x.hostile == hostile
        ).order_by(lambda x: orm.desc(x.confidence))
        return [lesson_record(row) for row in rows]

    @orm.db_session
    def lessons(self, min_confidence: float = 0.0, limit: int | None = None) -> list[LessonRecord]:
        """Lessons at or above a confidence, most confident first (the first ``limit``)."""
        rows = orm.select(x for x in self.e["Lesson"] if x.confidence >= min_confidence)
        ordered = rows.order_by(lambda x: (orm.desc(x.confidence), x.id))
        chosen = ordered[:limit] if limit is not None else ordered
        return [lesson_record(row) for row in chosen]

    # -- chat and skills ------------------------------------------------------------------

    @orm.db_session
    def log_chat(self, *, speaker: str | None, direction: str, text: str) -> None:
        """One chat line in or out."""
        self.e["ChatLine"](speaker=speaker or "", direction=direction, text=text[:1000])

    @orm.db_session
    def record_skill(self, skill: str, ok: bool, seconds: float) -> None:
        """One finished skill run, counted in one statement: bots sharing a base count the same
        skill's row, and a read-then-write lost their counts to each other (seen in a fleet of
        32: "duplicate key" and "updated outside of current transaction", the run not counted).
        """
        counts = {"skill": skill, "done": int(ok), "failed": int(not ok),
                  "spent": max(0.0, seconds)}  # fmt: skip
        self.db.execute(
            'INSERT INTO "skill_metrics" ("skill", "ok", "failed", "total_seconds") '
            "VALUES ($skill, $done, $failed, $spent) "
            'ON CONFLICT ("skill") DO UPDATE SET "ok" = "skill_metrics"."ok" + excluded."ok", '
            '"failed" = "skill_metrics"."failed" + excluded."failed", '
            '"total_seconds" = "skill_metrics"."total_seconds" + excluded."total_seconds"',
            {},
            counts,
        )

    @orm.db_session
    def skill_metrics(self) -> dict[str, dict[str, float]]:
        """``{skill: {ok, failed, mean_seconds}}``."""
        return {
            m.skill: {
                "ok": m.ok,
                "failed": m.failed,
                "mean_seconds": round(m.total_seconds / max(1, m.ok + m.failed), 2),
            }
            for m in orm.select(m for m in self.e["SkillMetric"])
        }

    # -- retention (pepa/state/retention.py) ---------------------------------------------------

    @orm.db_session
    def prune(self, *, before: datetime) -> dict[str, int]:
        """Forget what is older than ``before`` (UTC); how many rows each part lost.

        Chat lines and danger points go; a death keeps its row and post-mortems
        (the counts and lessons built on them) but its context bundle, the bulk
        of the row, is emptied. Lessons, recipes, intel and wiki pages stay.
        """
        e = self.e
        chat = orm.select(c for c in e["ChatLine"] if c.at < before).delete(bulk=True)
        danger = orm.select(
            p for p in e["Poi"] if p.kind == "danger" and p.created < before
        ).delete(bulk=True)
        bundles = 0
        for death in orm.select(d for d in e["Death"] if d.at < before):
            if death.bundle:
                death.bundle = {}
                bundles += 1
        return {"chat_lines": int(chat), "death_bundles": bundles, "danger_points": int(danger)}

    # -- code changes (`pepa propose apply`, a separate process) -------------------------

    @orm.db_session
    def record_code_change(
        self, *, proposal: str, branch: str, outcome: str, diff_hash: str = ""
    ) -> int:
        """One ``pepa propose apply`` (applied, no-change or failed); the row's id.

        Called by the CLI process, not the knowledge actor: a short second
        writer on the same file, which SQLite's WAL mode allows.
        """
        row = self.e["CodeChange"](
            proposal=proposal, branch=branch, outcome=outcome, diff_hash=diff_hash
        )
        orm.flush()
        return int(row.id)
