"""The exception tree of pepa.

Every exception pepa raises on purpose derives from :class:`PepaError`, so a
caller can catch pepa's refusals without catching its bugs. The classes of
general use live here; the others live next to the code that raises them.
Columns: the class, the module that defines it, what it means.
``tests/fast/base/test_errors.py`` checks this tree against the code, so a new subclass
must be drawn here.

::

    PepaError                 pepa.base.errors               root of what pepa raises on purpose
    ├── ConfigError           pepa.base.errors               bad flag, env value, .env line (exit 2)
    ├── LockError             pepa.base.errors               another daemon holds the state dir
    ├── StateDirError         pepa.base.dirs                 state dir not safely ours (exit 2)
    ├── HandoverError         pepa.daemon.handover           config too large, or no pipe
    ├── SupervisionError      pepa.base.errors               the actor runtime
    │   ├── ActorUnavailable  pepa.base.errors               no instance behind a stable name
    │   ├── AskTimeout        pepa.base.errors               no reply before the ask's deadline
    │   ├── ActorCrashed      pepa.base.errors               the actor died before answering
    │   └── SupervisorGaveUp  pepa.base.errors               restart intensity exceeded
    ├── ProtocolError         pepa.base.errors               malformed IPC line, type or field
    │   └── LineTooLong       pepa.base.errors               an over-long line (connection closes)
    ├── IpcServerError        pepa.ipc._socketfile           the socket cannot be bound or served
    ├── IpcClientError        pepa.ipc.client                no daemon answers, or it hung up
    ├── WorldError            pepa.base.node                 Node, its packages, a server won't run
    ├── ActionCallError       pepa.link.actions              a call that does not fit its action
    ├── BlueprintError        pepa.game.blueprints           a blueprint not in the format
    ├── LlmError              pepa.llm._base                 an LLM call failed (one line: why)
    │   ├── LlmUnavailable    pepa.llm._base                 no model, no command, server down
    │   ├── LlmTimeout        pepa.llm._base                 no whole reply before the deadline
    │   ├── LlmCancelled      pepa.llm._base                 the caller cancelled the call
    │   └── ReplyRejected     pepa.policy.coach.validate     a reply that failed validation
    ├── KnowledgeError        pepa.state.knowledge.database  the base can't be opened or written
    ├── ProposalError         pepa.state.proposals           no pending proposal has that id
    ├── ProposeError          pepa.cli.propose.rules         apply refused (repo, tree, approval)
    ├── PostgresError         pepa.fleet.postgres            the fleet's PostgreSQL won't start
    └── DashboardError        tui.app                        no terminal for the dashboard

``AskTimeout`` is also a :class:`TimeoutError`, ``IpcClientError`` also a
:class:`ConnectionError` and ``ActionCallError`` also a :class:`TypeError`, so code that
knows only the standard library still catches them.
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
