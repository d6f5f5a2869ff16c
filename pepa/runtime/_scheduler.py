"""One timer thread for the whole runtime.

Actors have no clock of their own; they ask the scheduler to ``tell`` them a
message later. Callbacks run on the scheduler thread and must only enqueue
(``tell``) — never block.

A callback that raises is logged (with its name and, for a periodic one, its
interval and how many times in a row it failed) and never stops the thread; a
periodic callback is rescheduled whether it raised or not, so a heartbeat can
never stop silently. Only cancelling its handle ends it.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

__all__ = ["Scheduler", "TimerHandle"]

logger = logging.getLogger(__name__)


class TimerHandle:
    """A scheduled callback that can still be cancelled."""

    __slots__ = ("cancelled", "due")

    def __init__(self, due: float) -> None:
        self.due = due
        self.cancelled = False

    def cancel(self) -> None:
        """Prevent the callback from running, if it has not run yet."""
        self.cancelled = True


class Scheduler:
    """A heap of due callbacks served by one daemon thread."""

    def __init__(self, name: str = "pepa-scheduler") -> None:
        self._name = name
        self._heap: list[tuple[float, int, TimerHandle, Callable[[], None]]] = []
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._thread: threading.Thread | None = None

    def start(self) -> Scheduler:
        """Start the timer thread; returns self for chaining."""
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()
        return self

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        """Run ``callback`` on the scheduler thread after ``delay`` seconds."""
        due = time.monotonic() + max(0.0, delay)
        handle = TimerHandle(due)
        with self._cond:
            heapq.heappush(self._heap, (due, next(self._counter), handle, callback))
            self._cond.notify()
        return handle

    def call_every(self, interval: float, callback: Callable[[], None]) -> TimerHandle:
        """Run ``callback`` every ``interval`` seconds until the handle is cancelled.

        A run that raises is logged and the next one still comes.
        """
        handle = TimerHandle(time.monotonic() + interval)
        failures = [0]

        def tick() -> None:
            if handle.cancelled:
                return
            try:
                callback()
                failures[0] = 0
            except BaseException:  # SystemExit too: nothing may end a periodic timer
                failures[0] += 1
                logger.exception(
                    "periodic callback %s (every %gs) failed (%d in a row); it runs again",
                    _name(callback),
                    interval,
                    failures[0],
                )
            inner = self.call_later(interval, tick)
            handle.due = inner.due

        self._push(handle, tick)
        return handle

    def _push(self, handle: TimerHandle, callback: Callable[[], None]) -> None:
        with self._cond:
            heapq.heappush(self._heap, (handle.due, next(self._counter), handle, callback))
            self._cond.notify()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the thread; pending callbacks never run."""
        with self._cond:
            self._stopped = True
            self._heap.clear()
            self._cond.notify()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and (not self._heap or self._heap[0][0] > time.monotonic()):
                    wait = self._heap[0][0] - time.monotonic() if self._heap else None
                    self._cond.wait(wait)
                if self._stopped:
                    return
                _, _, handle, callback = heapq.heappop(self._heap)
            if handle.cancelled:
                continue
            try:
                callback()
            except BaseException:  # SystemExit too: this thread serves every timer
                logger.exception("scheduled callback %s failed", _name(callback))


def _name(callback: Callable[[], None]) -> str:
    """``module.qualname`` of a callback, for the log."""
    module = getattr(callback, "__module__", None) or "?"
    return f"{module}.{getattr(callback, '__qualname__', repr(callback))}"
