"""The exception tree of pepa.

::

    PepaError                     root of everything pepa raises on purpose
    ├── ConfigError               bad flag, environment value or .env line (exit code 2)
    ├── LockError                 another daemon holds the state directory
    ├── SupervisionError          the actor runtime
    │   ├── ActorUnavailable      no running instance behind a stable name
    │   ├── AskTimeout            an ask got no reply before its deadline
    │   ├── ActorCrashed          the actor died before answering an ask
    │   └── SupervisorGaveUp      restart intensity exceeded: escalate to the parent
    └── ProtocolError             a malformed IPC line, unknown type or missing field
        └── LineTooLong           a line over the size limit (the connection closes)
"""

from __future__ import annotations

__all__ = [
    "ActorCrashed",
    "ActorUnavailable",
    "AskTimeout",
    "ConfigError",
    "LineTooLong",
    "LockError",
    "PepaError",
    "ProtocolError",
    "SupervisionError",
    "SupervisorGaveUp",
]


class PepaError(Exception):
    """Root of every error pepa raises on purpose."""


class ConfigError(PepaError):
    """A flag, environment variable or .env line that cannot be used."""


class LockError(PepaError):
    """Another daemon already holds the state directory."""


class SupervisionError(PepaError):
    """A failure of the actor runtime seen by a caller."""


class ActorUnavailable(SupervisionError):
    """No running instance stands behind a stable actor name."""


class AskTimeout(SupervisionError, TimeoutError):
    """An ask got no reply before its deadline."""


class ActorCrashed(SupervisionError):
    """The actor crashed (or was replaced) before it answered an ask."""


class SupervisorGaveUp(SupervisionError):
    """A supervisor exceeded its restart intensity and escalates to its parent."""


class ProtocolError(PepaError):
    """A malformed IPC line, an unknown type or a missing field."""


class LineTooLong(ProtocolError):
    """An IPC line longer than the limit; the connection is closed."""
