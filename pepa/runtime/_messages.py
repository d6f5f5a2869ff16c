"""Messages of the supervision protocol.

Children report to their supervisor with ``ChildStarted`` and ``ChildExited``;
the supervisor pings children with ``Ping``; ``Call`` carries a proxy call
through the actor's own crash path; ``InjectFault`` is the fault-injection
command (only honoured when the runtime runs with fault injection on).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

__all__ = [
    "ActorStateChanged",
    "Call",
    "ChildExited",
    "ChildStarted",
    "Direct",
    "FaultKind",
    "InjectFault",
    "Ping",
    "Query",
]

FaultKind = Literal["crash", "hang", "poison"]
ExitReason = Literal["normal", "crash", "start-failed"]


R = TypeVar("R")


class Query(Generic[R]):
    """An ask whose answer has type ``R``: ``handle.request(ActiveLessons())`` is typed.

    Subclasses are frozen dataclasses named for what they ask; the actor that
    serves one answers it from ``on_message`` (``case ActiveLessons(): return …``).
    mypy follows the answer's type, and grep finds every asker and the server.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Direct:
    """A message for one instance, not for the name: never passed on to a successor.

    Supervisor reports and timer ticks travel wrapped in it, so that a
    restarted actor never inherits its predecessor's stale reports or timers.
    """

    message: Any
    """The wrapped message, handled as if sent plainly."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping:
    """Heartbeat ask from a supervisor; answered with the actor's name."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """A proxy call: run a public method of the actor and answer its result."""

    method: str
    """Name of the public method to run."""
    args: tuple[Any, ...] = ()
    """Positional arguments."""
    kwargs: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InjectFault:
    """Make the receiving actor fail on purpose (fault injection only)."""

    kind: FaultKind
    """``crash`` raises in the handler, ``hang`` blocks it, ``poison`` feeds it garbage."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChildStarted:
    """A child finished ``on_start`` and serves messages."""

    name: str
    """Stable name of the child."""
    generation: int
    """Which incarnation of the child this is (1 for the first start)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChildExited:
    """A child instance ended: normally, by a crash, or failing to start."""

    name: str
    """Stable name of the child."""
    generation: int
    """Which incarnation ended."""
    reason: ExitReason
    """``normal``, ``crash`` or ``start-failed``."""
    detail: str = ""
    """The exception, in one line, for crashes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ActorStateChanged:
    """Published on the bus whenever a supervised actor changes state.

    The IPC actor forwards it to clients as an ``actor`` event.
    """

    name: str
    """Stable name of the actor."""
    state: str
    """``starting``, ``running``, ``restarting``, ``hung``, ``stopped`` or ``failed``."""
    restarts: int
    """How many times this actor was restarted since the worker started."""
    reason: str = ""
    """Why the state changed (the exception for crashes), empty when routine."""
