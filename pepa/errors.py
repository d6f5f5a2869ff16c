"""The exception tree of pepa.

Every exception pepa raises on purpose derives from :class:`PepaError`, so a
caller can catch pepa's refusals without catching its bugs. The classes of
general use live here; the others live next to the code that raises them.
Columns: the class, the module that defines it, what it means.
``tests/test_errors.py`` checks this tree against the code, so a new subclass
must be drawn here.

::

    PepaError                 pepa.errors              root of everything pepa raises on purpose
    ├── ConfigError           pepa.errors              bad flag, env value or .env line (exit 2)
    ├── LockError             pepa.errors              another daemon holds the state directory
    ├── StateDirError         pepa.statedir            state dir not safely this user's (exit 2)
    ├── HandoverError         pepa.daemon.handover     config too large, or no pipe to read it
    ├── SupervisionError      pepa.errors              the actor runtime
    │   ├── ActorUnavailable  pepa.errors              no running instance behind a stable name
    │   ├── AskTimeout        pepa.errors              an ask got no reply before its deadline
    │   ├── ActorCrashed      pepa.errors              the actor died before answering an ask
    │   └── SupervisorGaveUp  pepa.errors              restart intensity exceeded: escalate
    ├── ProtocolError         pepa.errors              malformed IPC line, unknown type, no field
    │   └── LineTooLong       pepa.errors              an over-long line (the connection closes)
    ├── IpcServerError        pepa.ipc._socketfile     the socket cannot be bound or served
    ├── IpcClientError        pepa.ipc.client          no daemon answers, or it hung up
    ├── WorldError            pepa.world.node          Node, its packages or the server won't run
    ├── LlmError              pepa.llm._base           an LLM call failed (one line saying why)
    │   ├── LlmUnavailable    pepa.llm._base           no model, command missing or server down
    │   ├── LlmTimeout        pepa.llm._base           no complete reply before the deadline
    │   ├── LlmCancelled      pepa.llm._base           the caller cancelled the call
    │   └── ReplyRejected     pepa.llm.validate        a reply that failed validation
    ├── KnowledgeError        pepa.knowledge.database  the knowledge base can't be opened/written
    ├── ProposalError         pepa.proposals           an id that names no pending proposal
    ├── ProposeError          pepa.propose             apply refused (repo, dirty tree, approval)
    ├── PostgresError         pepa.fleet.postgres      the fleet's PostgreSQL won't set up or start
    └── DashboardError        tui.app                  the dashboard cannot start (no terminal)

``AskTimeout`` is also a :class:`TimeoutError` and ``IpcClientError`` also a
:class:`ConnectionError`, so code that knows only the standard library still
catches them.
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
