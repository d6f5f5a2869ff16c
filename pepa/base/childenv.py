"""The environment pepa hands to the processes it starts: never a pepa secret.

Every child inherits its parent's environment, and every grandchild too: the
worker, the JS bridge's Node under it, ``pi``, git, the embedded world's Node.
The secrets pepa reads from the environment (the AuthMe password, the OpenAI
key, the database URL) live in the resolved :class:`~pepa.daemon.config.Config`
once it is built, so the processes pepa starts get an environment without
them; the worker receives the configuration through a pipe
(:mod:`pepa.daemon.handover`), never an environment variable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

__all__ = ["SECRET_ENV", "URL_ENV", "is_secret", "scrub_environ", "scrubbed"]

SECRET_ENV = frozenset({"MC_PASSWORD", "OPENAI_API_KEY", "PEPA_DB_URL", "PEPA_WORKER_CONFIG"})
"""Variables that hold a secret: the config's password, openai_key and db_url (and the
old way of handing the worker its configuration, should a shell still carry it)."""
URL_ENV = frozenset({"PEPA_OPENAI_URL", "PEPA_WIKI_URL"})
"""URL settings: dropped too when they carry credentials (``https://user:pass@host``)."""


def _has_credentials(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return True  # unparseable: keep nothing we cannot judge
    return parts.password is not None or "@" in parts.netloc


def is_secret(name: str, value: str) -> bool:
    """Whether the variable ``name=value`` must not reach a child process."""
    return name in SECRET_ENV or (name in URL_ENV and _has_credentials(value))


def scrubbed(environ: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """A copy of ``environ`` (default ``os.environ``) without secrets, plus ``extra``."""
    source = os.environ if environ is None else environ
    env = {name: value for name, value in source.items() if not is_secret(name, value)}
    env.update(extra)
    return env


def scrub_environ() -> list[str]:
    """Remove the secrets from this process's own environment; the names removed."""
    removed = [name for name, value in os.environ.items() if is_secret(name, value)]
    for name in removed:
        os.environ.pop(name, None)
    return sorted(removed)
