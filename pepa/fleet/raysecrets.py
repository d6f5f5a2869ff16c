"""A fleet's secrets on Ray: never an actor's argument, read on each node.

Ray keeps an actor's arguments in its control store (the GCS) for the
cluster's life, and hands them to every process that starts the actor. So a
group's payload (:func:`group_payload`) carries its bots' configurations with
every secret set to None, and the names of the secrets each bot needs. A
secret is the AuthMe password, the OpenAI key, the database URL, and the
OpenAI or wiki URL when it carries credentials (as :mod:`pepa.base.childenv`
judges them).

The node fills them in (:func:`fill_secrets`) from, in this order:

1. the secrets file, ``<server root>/fleet-secrets.json``, that the supervisor
   writes on its own machine for the nodes there (:func:`write_secrets`: a
   temporary file created 0600 with ``O_EXCL | O_NOFOLLOW``, then renamed in
   place) and removes when the fleet ends. It is read only as a regular file of
   the node's own user with no bit for group or others, never through a link
   (``O_NOFOLLOW``, then ``fstat`` on what was opened:
   :func:`pepa.state.files.read_bounded`); anything else is refused with one
   line. It counts only for the run whose id the payload names: a file another
   run left is passed over;
2. the node's own environment, as its raylet was started with: ``MC_PASSWORD``,
   ``OPENAI_API_KEY``, ``PEPA_DB_URL``, ``PEPA_OPENAI_URL``, ``PEPA_WIKI_URL``,
   checked as ``pepa start`` checks them.

A secret found in neither refuses the group's configuration, with one line
naming the variable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from pepa.base.childenv import is_secret
from pepa.base.errors import ConfigError
from pepa.daemon.config import Config, config_from_json
from pepa.daemon.values import db_url_of, password_of, url_of, wiki_url_of
from pepa.state.files import SchemaError, read_bounded, write_atomic

__all__ = [
    "SECRETS_FILE",
    "SECRET_FIELDS",
    "fill_secrets",
    "group_payload",
    "read_secrets",
    "secrets_of",
    "write_secrets",
]

SECRETS_FILE = "fleet-secrets.json"
"""The secrets file's name in the server's folder."""
SECRET_FIELDS: dict[str, str] = {
    "password": "MC_PASSWORD",
    "openai_key": "OPENAI_API_KEY",
    "db_url": "PEPA_DB_URL",
    "openai_url": "PEPA_OPENAI_URL",
    "wiki_url": "PEPA_WIKI_URL",
}
"""The settings that may hold a secret, each with the variable that gives it on a node."""
MAX_BYTES = 1 << 20
"""The largest secrets file read."""
HOW = "docs/fleet.md, 'Secrets on the nodes'"

_CHECK: dict[str, Callable[[Any], Any]] = {
    "password": password_of,
    "openai_key": lambda value: str(value) or None,
    "db_url": db_url_of,
    "openai_url": url_of,
    "wiki_url": wiki_url_of,
}


def secrets_of(config: Config) -> dict[str, str]:
    """The secret settings of ``config`` that are set: field name to value."""
    found = {}
    for name, var in SECRET_FIELDS.items():
        value = getattr(config, name)
        if value and is_secret(var, value):
            found[name] = value
    return found


def group_payload(
    configs: Iterable[Config], *, run: str, secrets_file: Path, **extra: Any
) -> dict[str, Any]:
    """A group's actor argument: ``extra``, and its bots' configurations without a secret.

    ``secrets`` names, per bot, the settings its node must fill in; ``run`` and
    ``secrets_file`` say which file holds them on the supervisor's machine.
    """
    bots, needs = [], {}
    for config in configs:
        values = config.to_json()
        held = secrets_of(config)
        for name in held:
            values[name] = None
        bots.append(values)
        if held:
            needs[config.username] = sorted(held)
    return {**extra, "bots": bots, "secrets": needs, "run": run, "secrets_file": str(secrets_file)}


def write_secrets(path: Path, run: str, configs: Iterable[Config]) -> bool:
    """The bots' secrets written to ``path`` (0600) for the nodes on this machine; whether there
    were any (none: no file, and one a killed run left is removed)."""
    bots = {config.username: found for config in configs if (found := secrets_of(config))}
    if not bots:
        path.unlink(missing_ok=True)
        return False
    try:
        write_atomic(path, orjson.dumps({"run": run, "bots": bots}))
    except OSError as exc:
        raise ConfigError(f"cannot write the fleet's secrets file {path}: {exc}") from exc
    return True


def read_secrets(path: Path, run: str) -> dict[str, dict[str, str]] | None:
    """Each bot's secrets from the file at ``path`` written for ``run``; None when there is no
    such file (or one of another run).

    Raises :class:`ConfigError` for a file that is not safely this user's (a link, not a
    regular file, another owner, a mode with bits for group or others) or not readable.
    """
    try:  # O_NOFOLLOW, then fstat on what was opened: no link, no swap after a check
        data = read_bounded(path, MAX_BYTES, private=True)
    except FileNotFoundError:
        return None
    except SchemaError as exc:
        raise ConfigError(f"secrets file {path}: {exc}; refused ({HOW})") from exc
    except OSError as exc:
        raise ConfigError(f"secrets file {path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        content = orjson.loads(data)
        if content.get("run") != run:
            return None
        bots = content["bots"]
        return {str(bot): {str(k): str(v) for k, v in held.items()} for bot, held in bots.items()}
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"secrets file {path}: not a secrets file of pepa fleet ({exc})") from exc


def fill_secrets(payload: Mapping[str, Any], environ: Mapping[str, str]) -> list[Config]:
    """The group's configurations, each with the secrets its payload names filled in from the
    secrets file, else from ``environ``; :class:`ConfigError` for one found in neither."""
    needs: Mapping[str, list[str]] = payload.get("secrets") or {}
    path = Path(payload["secrets_file"])
    from_file = read_secrets(path, str(payload["run"])) if needs else None
    configs = []
    for values in payload["bots"]:
        values = dict(values)
        name = str(values["username"])
        held = (from_file or {}).get(name, {})
        for field in needs.get(name, ()):
            if field not in SECRET_FIELDS:
                raise ConfigError(f"{name}: {field!r} is not a secret setting")
            var = SECRET_FIELDS[field]
            if field in held:
                values[field] = held[field]
            elif environ.get(var):
                values[field] = _CHECK[field](environ[var])
            else:
                raise ConfigError(
                    f"{name} needs {var}: there is no secrets file {path} on this node "
                    f"and no {var} in its environment ({HOW})"
                )
        configs.append(config_from_json(values))
    return configs
