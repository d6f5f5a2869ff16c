"""Where a knowledge base lives: its URL read as Pony's and psycopg2's arguments, and the lock
a fleet's bots take to create a shared base's tables one at a time."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, urlsplit

from pepa.base.errors import PepaError
from pepa.base.urls import redact_url

__all__ = ["OPEN_LOCK", "KnowledgeError", "bind_arguments", "opening_alone", "psycopg2_arguments"]

OPEN_LOCK = 0x9E9A0BE1
"""PostgreSQL advisory lock held while a bot creates or upgrades a shared base's tables."""


class KnowledgeError(PepaError):
    """The knowledge base cannot be opened or written."""


def bind_arguments(url: str) -> dict[str, Any]:
    """Pony's ``bind`` arguments for ``sqlite:///path`` or ``postgresql://user:pw@host:port/db``."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        if not parts.path:
            raise KnowledgeError(f"no file in database URL {url!r}")
        return {"provider": "sqlite", "filename": parts.path, "create_db": True}
    if parts.scheme in ("postgres", "postgresql"):
        database = parts.path.lstrip("/")
        if not database or not parts.hostname:
            raise KnowledgeError(f"database URL {redact_url(url)!r} needs a host and a database")
        arguments: dict[str, Any] = {
            "provider": "postgres", "host": parts.hostname, "port": parts.port or 5432,
            "database": unquote(database), "user": unquote(parts.username or "postgres"),
            "connect_timeout": 10,
        }  # fmt: skip
        if parts.password:
            arguments["password"] = unquote(parts.password)
        return arguments
    raise KnowledgeError(
        f"unsupported database URL {redact_url(url)!r}: use sqlite:///path or postgresql://..."
    )


def psycopg2_arguments(url: str) -> dict[str, Any]:
    """``psycopg2.connect`` arguments for a ``postgresql://`` URL (a connection beside Pony's:
    an advisory lock held while opening, a LISTEN)."""
    arguments = bind_arguments(url)
    return {
        "host": arguments["host"], "port": arguments["port"], "dbname": arguments["database"],
        "user": arguments["user"], "password": arguments.get("password"),
        "connect_timeout": arguments["connect_timeout"],
    }  # fmt: skip


@contextmanager
def opening_alone(url: str) -> Iterator[None]:
    """Hold PostgreSQL's advisory lock :data:`OPEN_LOCK` on a connection of its own: creating
    the tables of a new base twice at once fails in one of the two (a fleet's bots start
    together)."""
    import psycopg2

    connection = psycopg2.connect(**psycopg2_arguments(url))
    try:
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", (OPEN_LOCK,))
        yield
    finally:
        connection.close()  # the lock goes with the session
