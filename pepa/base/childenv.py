"""The environment pepa hands to the processes it starts: never a pepa secret.

Every child inherits its parent's environment, and every grandchild too: the
worker, the JS bridge's Node under it, ``pi``, git, the embedded world's Node.
The secrets pepa reads from the environment (the AuthMe password, the OpenAI
key, the database URL) live in the resolved :class:`~pepa.daemon.config.Config`
once it is built, so the processes pepa starts get an environment without
them, nor Ray's cluster token; the worker receives the configuration through a pipe
(:mod:`pepa.daemon.handover`), never an environment variable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

__all__ = [
    "DEBUG_ENV",
    "NODE_DEBUG_FLAG",
    "SECRET_ENV",
    "URL_ENV",
    "is_secret",
    "scrub_environ",
    "scrubbed",
]

SECRET_ENV = frozenset(
    {"MC_PASSWORD", "OPENAI_API_KEY", "PEPA_DB_URL", "PEPA_WORKER_CONFIG", "RAY_AUTH_TOKEN"}
)
"""Variables that hold a secret: the config's password, openai_key and db_url, the Ray
cluster's token (``pepa fleet --ray``: whoever holds it runs code on every node; a Ray worker
has read it by the time a group scrubs its own environment), and the old way of handing the
worker its configuration, should a shell still carry it."""
DEBUG_ENV = frozenset({"DEBUG", "NODE_DEBUG", "NODE_DEBUG_NATIVE"})
"""Node's debug switches: under ``DEBUG=minecraft-protocol`` or ``prismarine-auth`` the bot's
Node prints packets, tokens and the ``/login`` password into the logs. A child gets ``DEBUG``
only from :data:`NODE_DEBUG_FLAG`, never from the shell pepa was started in."""
NODE_DEBUG_FLAG = "PEPA_NODE_DEBUG"
"""``PEPA_NODE_DEBUG=minecraft-protocol``: ``DEBUG`` for pepa's Node children, asked on purpose
(what it prints may hold secrets)."""
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


def _kept(name: str, value: str) -> bool:
    """Whether a child inherits ``name=value``: no secret, no debug switch of Node's."""
    return not is_secret(name, value) and name not in DEBUG_ENV


def _asked_debug(source: Mapping[str, str]) -> dict[str, str]:
    """``DEBUG`` for Node children, when :data:`NODE_DEBUG_FLAG` asks for it."""
    asked = source.get(NODE_DEBUG_FLAG, "")
    return {"DEBUG": asked} if asked else {}


def scrubbed(environ: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """A copy of ``environ`` (default ``os.environ``) without secrets and Node's debug switches
    (``DEBUG`` only as :data:`NODE_DEBUG_FLAG` asks), plus ``extra``."""
    source = os.environ if environ is None else environ
    env = {name: value for name, value in source.items() if _kept(name, value)}
    env.update(_asked_debug(source))
    env.update(extra)
    return env


def scrub_environ() -> list[str]:
    """Remove the secrets and Node's debug switches from this process's own environment (its
    children, the JS bridge's Node first, inherit it); the names removed."""
    removed = [name for name, value in os.environ.items() if not _kept(name, value)]
    for name in removed:
        os.environ.pop(name, None)
    os.environ.update(_asked_debug(os.environ))
    return sorted(removed)
