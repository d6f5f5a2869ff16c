"""The knowledge base on a real SQLite file and a real PostgreSQL server: schema, migrations,
seeding, deaths, places, chat, lessons."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pony import orm

from pepa.state.knowledge import KnowledgeError, KnowledgeStore
from pepa.state.knowledge._models import COLUMNS, SCHEMA_VERSION, utcnow
from pepa.state.knowledge.records import LessonDraft
from pepa.state.knowledge.seeding import seed
from pepa.state.knowledge.store import bind_arguments, redact_url
from tests.js import minecraft_data
from tests.pg_server import PostgresServer

TABLES = {
    "meta", "lessons", "recipes", "mob_intel", "block_intel", "deaths", "postmortems", "poi",
    "wiki_pages", "chat_log", "code_changes", "skill_metrics",
}  # fmt: skip


def test_every_table_exists_in_wal_mode_with_a_schema_version(tmp_path: Path) -> None:
    store = KnowledgeStore(tmp_path / "knowledge.db").open()
    store.close()
    with sqlite3.connect(tmp_path / "knowledge.db") as raw:
        tables = {
            row[0] for row in raw.execute("select name from sqlite_master where type='table'")
        }
        mode = raw.execute("PRAGMA journal_mode").fetchone()[0]
    assert tables >= TABLES
    assert mode == "wal"
    assert store.meta("schema_version") == str(SCHEMA_VERSION)


def test_opening_again_is_idempotent_and_keeps_the_rows(tmp_path: Path) -> None:
    first = KnowledgeStore(tmp_path / "knowledge.db").open()
    first.log_chat(speaker="alice", direction="in", text="hi")
    first.close()
    again = KnowledgeStore(tmp_path / "knowledge.db").open()
    assert again.counts()["chat_log"] == 1
    again.close()


def test_seeding_comes_from_minecraft_data_once(store: KnowledgeStore) -> None:
    assert seed(store, "1.16.5", minecraft_data()) is True
    counts = store.counts()
    assert counts["recipes"] > 1000 and counts["block_intel"] > 700 and counts["mob_intel"] > 50
    assert counts["lessons"] >= 5
    assert seed(store, "1.16.5", minecraft_data()) is False
    assert store.counts() == counts


def test_a_second_version_adds_no_second_seed_lessons_and_grading_still_works(
    store: KnowledgeStore,
) -> None:
    seed(store, "1.16.5", minecraft_data())
    lessons = store.counts()["lessons"]
    seed(store, "1.18.2", minecraft_data())  # a fleet's shared database, or an upgraded server
    assert store.counts()["lessons"] == lessons
    from pepa.state.knowledge.records import LessonDraft

    twice = LessonDraft(
        skill="combat.attack-nearest", situation="seed", hostile="creeper", verdict="avoid",
        alternative="survive.flee", text="an older file's duplicate", confidence=0.6,
    )  # fmt: skip
    with orm.db_session:  # what an older pepa left: the same seed once per version
        store.e["Lesson"](
            **{
                k: getattr(twice, k)
                for k in (
                    "skill",
                    "situation",
                    "hostile",
                    "verdict",
                    "alternative",
                    "text",
                    "confidence",
                )
            }
        )
    graded = store.grade_lesson("combat.attack-nearest", "creeper", "avoid", success=True)
    assert graded is not None and graded.applied == 1
    assert store.add_lesson(twice, source="offline").confidence >= 0.7


def test_a_death_is_stored_with_its_bundle_and_leaves_a_danger_poi(store: KnowledgeStore) -> None:
    bundle = {
        "last_skill": "combat.attack-nearest zombie",
        "hp": 0,
        "food": 12,
        "last_hostile": {"name": "zombie", "distance": 1.5},
        "snapshots": [{"hp": 3}],
    }
    death = store.record_death(
        reason="killed near zombie", position={"x": 100.0, "y": 5.0, "z": -40.0}, bundle=bundle
    )
    assert (death.last_hostile, death.hostile_distance) == ("zombie", 1.5)
    assert store.deaths()[0].id == death.id
    near = store.pois_near(101.0, -41.0, 5.0, kind="danger")
    assert len(near) == 1 and near[0].note == "died: killed near zombie"
    assert store.pois_near(300.0, 300.0, 5.0) == []


def test_places_are_found_across_cell_borders(store: KnowledgeStore) -> None:
    store.add_poi("water", {"x": 15.5, "y": 5.0, "z": 15.5}, "pond")
    assert [p.note for p in store.pois_near(16.5, 16.5, 3.0)] == ["pond"]


def test_skill_runs_add_up(store: KnowledgeStore) -> None:
    store.record_skill("survive.eat", True, 1.6)
    store.record_skill("survive.eat", False, 0.4)
    assert store.skill_metrics() == {"survive.eat": {"ok": 1, "failed": 1, "mean_seconds": 1.0}}


def test_a_database_that_cannot_be_opened_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "knowledge.db").mkdir()
    with pytest.raises(KnowledgeError, match="cannot open"):
        KnowledgeStore(tmp_path / "knowledge.db").open()


def test_a_lesson_learned_again_grows_more_confident(store: KnowledgeStore) -> None:
    from pepa.state.knowledge.records import LessonDraft

    draft = LessonDraft(
        skill="combat.attack-nearest", situation="hostile nearby", hostile="zombie",
        verdict="avoid", alternative="survive.flee", text="flee zombies", confidence=0.7,
    )  # fmt: skip
    first = store.add_lesson(draft, source="offline")
    again = store.add_lesson(draft, source="offline")
    assert (first.confidence, again.confidence) == (pytest.approx(0.7), pytest.approx(0.8))
    assert [x.text for x in store.lessons(min_confidence=0.75)] == ["flee zombies"]


def test_an_applied_lesson_is_graded_by_its_outcome(store: KnowledgeStore) -> None:
    from pepa.state.knowledge.records import LessonDraft

    draft = LessonDraft(
        skill="combat.attack-nearest", situation="hostile nearby", hostile="zombie",
        verdict="avoid", alternative="survive.flee", text="flee zombies", confidence=0.7,
    )  # fmt: skip
    store.add_lesson(draft, source="offline")
    held = store.grade_lesson("combat.attack-nearest", "zombie", "avoid", success=True)
    assert held is not None and (held.confidence, held.applied) == (pytest.approx(0.75), 1)
    failed = store.grade_lesson("combat.attack-nearest", "zombie", "avoid", success=False)
    assert failed is not None and (failed.confidence, failed.applied) == (pytest.approx(0.6), 2)
    assert store.grade_lesson("combat.attack-nearest", "creeper", "avoid", success=True) is None


def test_the_same_tables_exist_in_postgres_and_opening_again_keeps_rows(
    postgres: PostgresServer,
) -> None:
    import psycopg2

    url = postgres.create_database("tables")
    first = KnowledgeStore(url=url).open()
    first.log_chat(speaker="alice", direction="in", text="hi")
    first.close()
    again = KnowledgeStore(url=url).open()  # a second bot of the fleet, or a restart
    assert again.counts()["chat_log"] == 1
    again.close()
    connection = psycopg2.connect(
        host="127.0.0.1", port=postgres.port, user="pepa", dbname="tables"
    )
    try:
        with connection.cursor() as cursor:
            cursor.execute("select tablename from pg_tables where schemaname = 'public'")
            tables = {row[0] for row in cursor.fetchall()}
    finally:
        connection.close()
    assert tables >= TABLES


def test_database_urls_are_parsed_and_never_leak_a_password(tmp_path: Path) -> None:
    pg = bind_arguments("postgresql://bot:s%40cret@db.local:6543/fleet")
    assert pg == {
        "provider": "postgres", "host": "db.local", "port": 6543, "database": "fleet",
        "user": "bot", "password": "s@cret", "connect_timeout": 10,
    }  # fmt: skip
    assert bind_arguments(f"sqlite://{tmp_path}/k.db")["filename"] == f"{tmp_path}/k.db"
    assert redact_url("postgresql://bot:secret@h/db") == "postgresql://bot:***@h/db"
    with pytest.raises(
        KnowledgeError, match=re.escape("unsupported database URL 'mysql://u:***@h/db'")
    ):
        bind_arguments("mysql://u:pw@h/db")
    with pytest.raises(KnowledgeError, match="needs a host and a database"):
        bind_arguments("postgresql://bot@h/")


def test_an_unreachable_postgres_is_one_clear_error_without_the_password() -> None:
    with pytest.raises(
        KnowledgeError, match=re.escape("cannot open postgresql://bot:***@127.0.0.1:1/x")
    ) as info:
        KnowledgeStore(url="postgresql://bot:hunter2@127.0.0.1:1/x").open()
    assert "hunter2" not in str(info.value)


def test_a_relative_path_is_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # `pepa start` with the default ./state
    store = KnowledgeStore(Path("state") / "knowledge.db").open()
    store.close()
    assert (tmp_path / "state" / "knowledge.db").exists()


FALL = {
    "kind": "fall", "key": "death.fell.accident.generic", "text": "pepa_bot fell from a high place",
    "killer": None,
    "sources": [{"kind": "fall", "by": None, "amount": 20.0, "ago": 0.0, "fall": 31.5}],
}  # fmt: skip


def test_a_death_keeps_its_cause(store: KnowledgeStore) -> None:
    store.record_death(reason="fell 32 blocks", position=None, bundle={}, cause=FALL)
    store.record_death(reason="died", position=None, bundle={})  # no cause known
    fell, other = store.deaths()[1], store.deaths()[0]
    assert (fell.cause_kind, fell.cause) == ("fall", FALL)
    assert (other.cause_kind, other.cause) == ("unknown", None)


def _schema_1(execute: Any) -> None:
    """Take a database back to schema 1: the columns added since, dropped."""
    for table, column, _ in COLUMNS:
        execute(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
    execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")


def test_a_schema_1_file_is_upgraded_in_place_and_keeps_its_deaths(tmp_path: Path) -> None:
    path = tmp_path / "knowledge.db"
    old = KnowledgeStore(path).open()
    old.record_death(reason="killed near zombie", position={"x": 1, "y": 2, "z": 3}, bundle={})
    old.close()
    with closing(sqlite3.connect(path)) as raw:
        _schema_1(raw.execute)
        raw.commit()
    again = KnowledgeStore(path).open()
    try:
        before = again.deaths()[0]
        assert (before.reason, before.cause_kind, before.cause) == ("killed near zombie", "", None)
        again.record_death(reason="fell 32 blocks", position=None, bundle={}, cause=FALL)
        assert again.deaths()[0].cause == FALL
        assert again.meta("schema_version") == str(SCHEMA_VERSION)
    finally:
        again.close()


def test_a_schema_1_postgres_database_is_upgraded_in_place(postgres: PostgresServer) -> None:
    import psycopg2

    url = postgres.create_database("upgrade")
    old = KnowledgeStore(url=url).open()
    old.record_death(reason="drowned", position=None, bundle={})
    old.close()
    connection = psycopg2.connect(
        host="127.0.0.1", port=postgres.port, user="pepa", dbname="upgrade"
    )
    try:
        with connection.cursor() as cursor:
            _schema_1(cursor.execute)
        connection.commit()
    finally:
        connection.close()
    again = KnowledgeStore(url=url).open()
    try:
        assert again.deaths()[0].cause_kind == ""
        again.record_death(reason="fell 32 blocks", position=None, bundle={}, cause=FALL)
        assert again.deaths()[0].cause == FALL
    finally:
        again.close()


def test_lessons_that_stop_mattering_decay_and_those_confirmed_or_seeded_do_not(
    store: KnowledgeStore,
) -> None:
    def lesson(skill: str, confidence: float) -> LessonDraft:
        return LessonDraft(
            skill=skill, situation="s", hostile="zombie", verdict="avoid",
            alternative="survive.flee", text=skill, confidence=confidence,
        )  # fmt: skip

    for skill in ("stale", "graded", "fresh"):
        store.add_lesson(lesson(skill, 0.7), source="offline")
    now = utcnow()  # what the store stamps a lesson learned again with

    @orm.db_session
    def age(skill: str, created: datetime, touched: datetime | None = None) -> None:
        row = orm.select(x for x in store.e["Lesson"] if x.skill == skill).first()
        row.created, row.touched = created, touched

    age("stale", now - timedelta(days=5))  # 4 days past its day of grace
    age("graded", now - timedelta(days=5), touched=now - timedelta(hours=2))
    age("fresh", now - timedelta(hours=20))
    seeds = {x.text: x.confidence for x in store.lessons() if x.source == "seed"}
    fallen = store.decay_lessons(now - timedelta(days=30), now, active=0.6)
    assert [x.skill for x in fallen] == ["stale"]
    by_skill = {x.skill: x.confidence for x in store.lessons() if x.source == "offline"}
    assert by_skill == {"stale": pytest.approx(0.5), "graded": 0.7, "fresh": 0.7}
    assert {x.text: x.confidence for x in store.lessons() if x.source == "seed"} == seeds
    # the next decay counts from the last one only: half a day on, half a day's loss; a lesson
    # out of force is no longer the chain's (not announced), and a minute's loss is not rounded;
    # "fresh" is past its day of grace by then (8 hours' loss), "graded" not yet
    again = store.decay_lessons(now, now + timedelta(hours=12), active=0.6)
    assert [(x.skill, round(x.confidence, 4)) for x in again] == [("fresh", 0.6833)]
    stale = next(x for x in store.lessons() if x.skill == "stale")
    assert stale.confidence == pytest.approx(0.475)
    late = now + timedelta(hours=12)
    store.decay_lessons(late, late + timedelta(minutes=1), active=0.6)
    stale = next(x for x in store.lessons() if x.skill == "stale")
    assert stale.confidence == pytest.approx(0.475 - 0.05 / 1440)
    # learned again, the clock starts anew
    store.add_lesson(lesson("stale", 0.7), source="offline")
    later = store.decay_lessons(now, now + timedelta(hours=13), active=0.6)
    assert [x.skill for x in later] == ["fresh"]
