"""Where a knowledge base lives: its URL read as Pony's and psycopg2's arguments, and the lock
a fleet's bots take to create a shared base's tables one at a time."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import SplitResult, parse_qs, unquote, urlsplit

from pepa.base.errors import PepaError
from pepa.base.urls import redact_url

__all__ = [
    "OPEN_LOCK",
    "QUERY_OPTIONS",
    "KnowledgeError",
    "bind_arguments",
    "opening_alone",
    "psycopg2_arguments",
]

OPEN_LOCK = 0x9E9A0BE1
"""PostgreSQL advisory lock held while a bot creates or upgrades a shared base's tables."""


class KnowledgeError(PepaError):
    """The knowledge base cannot be opened or written."""


QUERY_OPTIONS = frozenset(
    {
        "sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "sslpassword",
        "application_name", "target_session_attrs", "host", "port", "user", "password",
    }
)  # fmt: skip
"""libpq's options a ``postgresql://`` URL may carry in its query (``?sslmode=verify-full``);
``host`` there only as a Unix socket's folder (an absolute path)."""


def bind_arguments(url: str) -> dict[str, Any]:
    """Pony's ``bind`` arguments for ``sqlite:///path`` or ``postgresql://user:pw@host:port/db``.

    A PostgreSQL URL's query options (:data:`QUERY_OPTIONS`) are passed on to
    libpq; any other option is refused with one line, never dropped in silence
    (a dropped ``sslmode`` would connect without the checks it asks for).
    """
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        if not parts.path:
            raise KnowledgeError(f"no file in database URL {url!r}")
        return {"provider": "sqlite", "filename": parts.path, "create_db": True}
    if parts.scheme in ("postgres", "postgresql"):
        return _postgres_arguments(url, parts)
    raise KnowledgeError(
        f"unsupported database URL {redact_url(url)!r}: use sqlite:///path or postgresql://..."
    )


def _postgres_arguments(url: str, parts: SplitResult) -> dict[str, Any]:
    try:
        query = parse_qs(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
        port = parts.port
    except ValueError as exc:
        raise KnowledgeError(f"database URL {redact_url(url)!r} is not valid: {exc}") from None
    unknown = sorted(set(query) - QUERY_OPTIONS)
    if unknown:
        raise KnowledgeError(
            f"database URL {redact_url(url)!r}: option {', '.join(unknown)} is not supported "
            f"(supported: {', '.join(sorted(QUERY_OPTIONS))})"
        )
    options = {name: values[-1] for name, values in query.items()}
    socket_dir = options.pop("host", "")
    if socket_dir and not socket_dir.startswith("/"):
        raise KnowledgeError(
            f"database URL {redact_url(url)!r}: host= in the query must be a socket's folder "
            "(an absolute path); put a host name before the path"
        )
    database = parts.path.lstrip("/")
    host = socket_dir or parts.hostname
    if not database or not host:
        raise KnowledgeError(f"database URL {redact_url(url)!r} needs a host and a database")
    try:
        port = int(options.pop("port", port or 5432))
    except ValueError:
        raise KnowledgeError(f"database URL {redact_url(url)!r}: port is not a number") from None
    arguments: dict[str, Any] = {
        "provider": "postgres", "host": host, "port": port, "database": unquote(database),
        "user": options.pop("user", None) or unquote(parts.username or "postgres"),
        "connect_timeout": 10,
    }  # fmt: skip
    password = options.pop("password", None) or (unquote(parts.password) if parts.password else "")
    if password:
        arguments["password"] = password
    arguments.update(options)
    return arguments


def psycopg2_arguments(url: str) -> dict[str, Any]:
    """``psycopg2.connect`` arguments for a ``postgresql://`` URL (a connection beside Pony's:
    an advisory lock held while opening, a LISTEN)."""
    arguments = bind_arguments(url)
    arguments.pop("provider")
    arguments["dbname"] = arguments.pop("database")
    return arguments


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
