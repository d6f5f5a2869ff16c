"""Waiting on a condition with a deadline: the one way tests wait (never a bare sleep)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from pepa.runtime import ActorStateChanged

__all__ = ["eventually", "poll"]


def poll(check: Callable[[], Any], timeout: float, every: float = 0.1) -> Any:
    """Call ``check`` every ``every`` s until it returns something truthy (returned) or
    ``timeout`` s have passed (None: for a wait whose end by time is an outcome, not a failure)."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            return None
        pause.wait(every)


def eventually(check: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    """Poll ``check`` every 0.1 s until it returns something truthy; return that."""
    result = poll(check, timeout)
    if result is None:
        raise AssertionError(f"timed out after {timeout:g}s waiting for {what or check}")
    return result


class Recorder:
    """Collects events from a bus listener; tests wait on it, never sleep."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def wait_for(
        self, predicate: Callable[[Any], bool], timeout: float = 10.0, *, count: int = 1
    ) -> list[Any]:
        """Wait until ``count`` recorded events match ``predicate``; return them."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [e for e in self.events if predicate(e)]
                if len(found) >= count:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        f"timed out waiting for {count} matching event(s); "
                        f"saw {self.events[-20:]!r}"
                    )
                self._cond.wait(remaining)

    def states(self, name: str) -> list[str]:
        """States published for actor ``name`` so far."""
        with self._cond:
            return [
                e.state for e in self.events if isinstance(e, ActorStateChanged) and e.name == name
            ]

    def wait_state(self, name: str, state: str, timeout: float = 10.0, *, count: int = 1) -> None:
        """Wait until actor ``name`` has entered ``state`` ``count`` times."""
        self.wait_for(
            lambda e: isinstance(e, ActorStateChanged) and e.name == name and e.state == state,
            timeout,
            count=count,
        )
