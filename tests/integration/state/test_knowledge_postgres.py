"""The knowledge base on a real SQLite file and a real PostgreSQL server: schema, migrations,
seeding, deaths, places, chat, lessons."""

from __future__ import annotations

from typing import Any

from pepa.state.knowledge import KnowledgeStore
from pepa.state.knowledge._models import COLUMNS
from tests.pg_server import PostgresServer
from tests.store_cases import (  # noqa: F401 - the store cases, collected here on PostgreSQL
    test_a_death_is_stored_with_its_bundle_and_leaves_a_danger_poi,
    test_a_death_keeps_its_cause,
    test_a_lesson_learned_again_grows_more_confident,
    test_a_second_version_adds_no_second_seed_lessons_and_grading_still_works,
    test_an_applied_lesson_is_graded_by_its_outcome,
    test_lessons_that_stop_mattering_decay_and_those_confirmed_or_seeded_do_not,
    test_places_are_found_across_cell_borders,
    test_seeding_comes_from_minecraft_data_once,
    test_skill_runs_add_up,
    test_the_store_forgets_old_chat_bundles_and_danger_points_and_keeps_the_rest,
)

TABLES = {
    "meta", "lessons", "recipes", "mob_intel", "block_intel", "deaths", "postmortems", "poi",
    "wiki_pages", "chat_log", "code_changes", "skill_metrics",
}  # fmt: skip


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


FALL = {
    "kind": "fall", "key": "death.fell.accident.generic", "text": "pepa_bot fell from a high place",
    "killer": None,
    "sources": [{"kind": "fall", "by": None, "amount": 20.0, "ago": 0.0, "fall": 31.5}],
}  # fmt: skip


def _schema_1(execute: Any) -> None:
    """Take a database back to schema 1: the columns added since, dropped."""
    for table, column, _ in COLUMNS:
        execute(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
    execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")


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
