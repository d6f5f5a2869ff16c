"""The knowledge base on a real SQLite file and a real PostgreSQL server: schema, migrations,
seeding, deaths, places, chat, lessons."""

from __future__ import annotations

from pepa.state.knowledge import KnowledgeStore
from tests.pg_server import PostgresServer
from tests.store_cases import *  # noqa: F403 - every store case, collected here on PostgreSQL
from tests.store_cases import TABLES, schema_1


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
            schema_1(cursor.execute)
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
