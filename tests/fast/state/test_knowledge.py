"""The knowledge base on a real SQLite file and a real PostgreSQL server: schema, migrations,
seeding, deaths, places, chat, lessons."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from pepa.state.knowledge import KnowledgeError, KnowledgeStore
from pepa.state.knowledge._models import SCHEMA_VERSION
from pepa.state.knowledge.database import psycopg2_arguments
from pepa.state.knowledge.store import bind_arguments, redact_url
from tests.store_cases import *  # noqa: F403 - every store case, collected here on SQLite
from tests.store_cases import TABLES, schema_1


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


def test_a_database_that_cannot_be_opened_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "knowledge.db").mkdir()
    with pytest.raises(KnowledgeError, match="cannot open"):
        KnowledgeStore(tmp_path / "knowledge.db").open()


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


def test_a_database_url_s_tls_options_reach_the_driver_and_others_are_refused() -> None:
    url = "postgresql://bot:pw@db.example:5433/fleet?sslmode=verify-full&sslrootcert=/etc/ca.pem"
    pg = bind_arguments(url)
    assert (pg["sslmode"], pg["sslrootcert"], pg["host"]) == (
        "verify-full",
        "/etc/ca.pem",
        "db.example",
    )
    assert psycopg2_arguments(url)["sslmode"] == "verify-full"
    socket_url = "postgresql://owner@/pepa?host=%2Fvar%2Ftmp%2Fpg&port=5999"
    assert {k: bind_arguments(socket_url)[k] for k in ("host", "port", "user")} == {
        "host": "/var/tmp/pg",
        "port": 5999,
        "user": "owner",
    }
    with pytest.raises(KnowledgeError, match="option sslmodee is not supported") as refused:
        bind_arguments("postgresql://bot:pw@h/db?sslmodee=require&password=hunter2")
    assert "hunter2" not in str(refused.value) and "pw@" not in str(refused.value)
    with pytest.raises(KnowledgeError, match="socket's folder"):
        bind_arguments("postgresql://bot@h/db?host=evil.example")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql://h/db?sslmode=require&password=hunter2",
            "postgresql://h/db?sslmode=require&password=***",
        ),
        ("postgresql://u:pw@h/db?sslpassword=hunter2", "postgresql://u:***@h/db?sslpassword=***"),
        ("postgresql://u@[broken/db?password=hunter2", "postgresql://***@[broken/db?password=***"),
        ("postgresql://u@h/db?sslmode=verify-full", "postgresql://u@h/db?sslmode=verify-full"),
    ],
)
def test_a_credential_in_a_url_s_query_is_masked_in_logs(url: str, shown: str) -> None:
    assert redact_url(url) == shown


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


def test_a_schema_1_file_is_upgraded_in_place_and_keeps_its_deaths(tmp_path: Path) -> None:
    path = tmp_path / "knowledge.db"
    old = KnowledgeStore(path).open()
    old.record_death(reason="killed near zombie", position={"x": 1, "y": 2, "z": 3}, bundle={})
    old.close()
    with closing(sqlite3.connect(path)) as raw:
        schema_1(raw.execute)
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
