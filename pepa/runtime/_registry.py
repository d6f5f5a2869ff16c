"""Stable names for actors that come and go.

A supervised actor is addressed by its name through an :class:`ActorHandle`.
The registry maps each name to the instance currently serving it, so a caller
keeps one handle across any number of restarts:

- ``tell`` to a running actor goes to its mailbox; while the actor is being
  restarted it waits in a bounded per-name buffer and reaches the new instance
  first thing, in order.
- ``ask`` waits (within its timeout) for an instance to serve the name, then
  for the answer. It never waits past its deadline.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

import pykka

from pepa.base.errors import ActorCrashed, ActorUnavailable, AskTimeout, PepaError
from pepa.runtime._messages import Call, Query

R = TypeVar("R")

__all__ = ["DEFAULT_ASK_TIMEOUT", "ActorHandle", "Registry"]

logger = logging.getLogger(__name__)

DEFAULT_ASK_TIMEOUT = 5.0
"""Seconds an ask waits when the caller names no timeout."""

PENDING_LIMIT = 10_000
"""Tells buffered per name while its actor restarts; the oldest go first beyond it."""

NameState = Literal["running", "restarting", "stopped"]


@dataclass(slots=True)
class _Entry:
    ref: pykka.ActorRef[Any] | None = None
    state: NameState = "restarting"
    pending: deque[Any] = field(default_factory=deque)
    dropped: int = 0


class Registry:
    """Thread-safe map from stable names to the instance serving each."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._entries: dict[str, _Entry] = {}

    def handle(self, name: str) -> ActorHandle:
        """A handle for ``name``; the name need not be bound yet."""
        return ActorHandle(name, self)

    def names(self) -> list[str]:
        """Every name the registry knows, in registration order."""
        with self._cond:
            return list(self._entries)

    def state(self, name: str) -> NameState | None:
        """The state of ``name``, None when the name was never registered."""
        with self._cond:
            entry = self._entries.get(name)
            return entry.state if entry else None

    def current(self, name: str) -> pykka.ActorRef[Any] | None:
        """The instance serving ``name`` now, if any."""
        with self._cond:
            entry = self._entries.get(name)
            return entry.ref if entry and entry.state == "running" else None

    # -- called by supervisors and dying actors ---------------------------------

    def bind(self, name: str, ref: pykka.ActorRef[Any]) -> None:
        """Make ``ref`` serve ``name``; buffered tells are delivered to it first."""
        with self._cond:
            entry = self._entries.setdefault(name, _Entry())
            entry.ref = ref
            entry.state = "running"
            while entry.pending:
                message = entry.pending.popleft()
                try:
                    ref.tell(message)
                except pykka.ActorDeadError:
                    entry.pending.appendleft(message)
                    entry.state = "restarting"
                    entry.ref = None
                    break
            self._cond.notify_all()

    def unbind(self, name: str, ref: pykka.ActorRef[Any] | None, state: NameState) -> None:
        """Detach ``ref`` (if it still serves ``name``) and mark the name ``state``.

        ``restarting`` keeps buffering tells for the next instance; ``stopped``
        drops the buffer, and later tells raise :class:`ActorUnavailable`.
        """
        dropped = 0
        with self._cond:
            entry = self._entries.setdefault(name, _Entry())
            if entry.ref is not None and entry.ref is not ref:
                return  # another (newer) instance serves the name: not ours to change
            entry.ref = None
            entry.state = state
            if state == "stopped" and entry.pending:
                dropped = len(entry.pending)
                entry.pending.clear()
            self._cond.notify_all()
        if dropped:  # logged outside the lock: log handlers publish on the bus, which tells
            logger.warning("%s stopped with %d undelivered message(s); dropped", name, dropped)

    def redeliver(self, name: str, messages: list[Any]) -> None:
        """Put tells salvaged from a crashed mailbox at the front of the buffer."""
        if not messages:
            return
        with self._cond:
            entry = self._entries.setdefault(name, _Entry())
            if entry.state == "running" and entry.ref is not None:
                overflow = sum(self._tell_locked(entry, message) for message in messages)
            else:
                entry.pending.extendleft(reversed(messages))
                overflow = self._trim(entry)
        self._warn_overflow(name, overflow)

    # -- used by handles ------------------------------------------------------

    def tell(self, name: str, message: Any) -> None:
        """Deliver ``message`` to ``name`` without waiting for anything."""
        with self._cond:
            entry = self._entries.get(name)
            if entry is None or entry.state == "stopped":
                raise ActorUnavailable(f"no actor named {name!r} is running")
            overflow = self._tell_locked(entry, message)
        self._warn_overflow(name, overflow)

    def _tell_locked(self, entry: _Entry, message: Any) -> int:
        """Deliver or buffer; returns how many old messages the buffer dropped."""
        if entry.state == "running" and entry.ref is not None:
            try:
                entry.ref.tell(message)
                return 0
            except pykka.ActorDeadError:
                entry.ref = None
                entry.state = "restarting"
        entry.pending.append(message)
        return self._trim(entry)

    @staticmethod
    def _trim(entry: _Entry) -> int:
        overflow = len(entry.pending) - PENDING_LIMIT
        for _ in range(max(0, overflow)):
            entry.pending.popleft()
        entry.dropped += max(0, overflow)
        return max(0, overflow)

    @staticmethod
    def _warn_overflow(name: str, overflow: int) -> None:
        # never under the lock: a log handler publishes on the bus, and the bus tells
        if overflow:
            logger.warning(
                "%s is restarting and its buffer is full; dropped %d oldest message(s)",
                name,
                overflow,
            )

    def resolve(self, name: str, deadline: float) -> pykka.ActorRef[Any]:
        """Wait until an instance serves ``name`` or the monotonic ``deadline`` passes."""
        with self._cond:
            while True:
                entry = self._entries.get(name)
                if entry is not None and entry.state == "running" and entry.ref is not None:
                    return entry.ref
                if entry is not None and entry.state == "stopped":
                    raise ActorUnavailable(f"no actor named {name!r} is running")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AskTimeout(f"{name} is not running (still restarting?)")
                self._cond.wait(remaining)


class ActorHandle:
    """A stable reference to a supervised actor, valid across its restarts."""

    __slots__ = ("_registry", "name")

    def __init__(self, name: str, registry: Registry) -> None:
        self.name = name
        self._registry = registry

    def __repr__(self) -> str:
        return f"ActorHandle({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ActorHandle) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def tell(self, message: Any) -> None:
        """Send ``message``; never blocks. Raises ActorUnavailable if the actor is gone."""
        self._registry.tell(self.name, message)

    def ask(self, message: Any, timeout: float = DEFAULT_ASK_TIMEOUT) -> Any:
        """Send ``message`` and wait at most ``timeout`` seconds for the answer.

        Raises :class:`AskTimeout` past the deadline, :class:`ActorCrashed` if
        the actor died before answering (the original exception is chained),
        :class:`ActorUnavailable` if no actor serves the name any more.
        """
        deadline = time.monotonic() + timeout
        while True:
            ref = self._registry.resolve(self.name, deadline)
            try:
                future = ref.ask(message, block=False)
                break
            except pykka.ActorDeadError:
                continue  # died before the message was queued: safe to try the next one
        try:
            return future.get(timeout=max(0.0, deadline - time.monotonic()))
        except pykka.Timeout as exc:
            raise AskTimeout(
                f"{self.name} did not answer {type(message).__name__} within {timeout:g}s"
            ) from exc
        except PepaError:
            raise
        except pykka.ActorDeadError as exc:
            raise ActorCrashed(f"{self.name} stopped before answering") from exc
        except Exception as exc:
            raise ActorCrashed(
                f"{self.name} crashed handling {type(message).__name__}: {exc!r}"
            ) from exc

    def request(self, query: Query[R], timeout: float = DEFAULT_ASK_TIMEOUT) -> R:
        """Ask ``query`` and return its typed answer (the errors of :meth:`ask`)."""
        return cast(R, self.ask(query, timeout=timeout))

    def call(
        self, method: str, *args: Any, timeout: float = DEFAULT_ASK_TIMEOUT, **kwargs: Any
    ) -> Any:
        """Run the actor's public ``method`` with the arguments; answer its result."""
        return self.ask(Call(method=method, args=args, kwargs=kwargs), timeout=timeout)

    def proxy(self, timeout: float = DEFAULT_ASK_TIMEOUT) -> _HandleProxy:
        """An object whose method calls become asks (``handle.proxy().status()``)."""
        return _HandleProxy(self, timeout)


class _HandleProxy:
    __slots__ = ("_handle", "_timeout")

    def __init__(self, handle: ActorHandle, timeout: float) -> None:
        self._handle = handle
        self._timeout = timeout

    def __getattr__(self, method: str) -> Any:
        if method.startswith("_"):
            raise AttributeError(method)

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._handle.call(method, *args, timeout=self._timeout, **kwargs)

        return call
