"""The same warning or error logged at most :data:`REPEAT_LIMIT` times per
:data:`REPEAT_PERIOD` seconds, then one line counting what was suppressed
(:class:`RepeatFilter`, installed by :func:`pepa.base.logs.configure` on every handler)."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import cast

from pepa.base.threads import bot_of, thread_name

__all__ = ["REPEAT_EXEMPT", "REPEAT_LIMIT", "REPEAT_PERIOD", "RepeatFilter", "RepeatLimiter"]

REPEAT_LIMIT = 5
"""The same warning or error passes this many times per :data:`REPEAT_PERIOD`."""

REPEAT_PERIOD = 60.0
"""Seconds of one rate-limit window."""

_REPEAT_KEYS = 1000  # windows tracked at once; the oldest is closed early beyond it

REPEAT_EXEMPT = ("pepa.runtime._actor", "pepa.runtime._supervisor")
"""Loggers never rate-limited: crash, restart and give-up reports, already bounded by each
supervisor's restart intensity, and the one record of which actor failed how."""

VERDICT = "_pepa_repeat_verdict"
"""Set on a record once decided, so every handler agrees."""

_PLACEHOLDER = re.compile(r"%(\([^)]*\))?[-#0 +]*(\*|\d+)?(\.(\*|\d+))?[diouxXeEfFgGcrsa%]")


@dataclass(slots=True)
class _Window:
    start: float
    passed: int = 0
    suppressed: int = 0


class RepeatLimiter:
    """Which repeats of a key pass: at most ``limit`` per window of ``period`` seconds. Pure.

    A key's window opens with its first occurrence and closes ``period``
    seconds later; :meth:`roll` closes the windows that ended and reports how
    much each suppressed. At most ``max_keys`` windows are open; beyond that
    the oldest is closed early (so distinct messages cannot grow it).
    """

    def __init__(
        self, limit: int = REPEAT_LIMIT, period: float = REPEAT_PERIOD, max_keys: int = _REPEAT_KEYS
    ) -> None:
        if limit < 1 or period <= 0 or max_keys < 1:
            raise ValueError("limit, period and max_keys must be positive")
        self.limit = limit
        self.period = period
        self.max_keys = max_keys
        self._windows: OrderedDict[Hashable, _Window] = OrderedDict()

    def check(self, key: Hashable, now: float) -> tuple[bool, list[tuple[Hashable, int]]]:
        """Whether this occurrence of ``key`` passes, and the windows that closed by ``now``."""
        closed = self.roll(now)
        window = self._windows.get(key)
        if window is None:
            if len(self._windows) >= self.max_keys:
                old_key, old = self._windows.popitem(last=False)
                if old.suppressed:
                    closed.append((old_key, old.suppressed))
            window = self._windows[key] = _Window(start=now)
        if window.passed < self.limit:
            window.passed += 1
            return True, closed
        window.suppressed += 1
        return False, closed

    def close_all(self) -> list[tuple[Hashable, int]]:
        """Close every window, ended or not (at exit): ``(key, suppressed)`` of those hiding any."""
        closed = [(key, w.suppressed) for key, w in self._windows.items() if w.suppressed]
        self._windows.clear()
        return closed

    def roll(self, now: float) -> list[tuple[Hashable, int]]:
        """Close the windows that ended by ``now``: ``(key, suppressed)`` of those that hid any."""
        closed: list[tuple[Hashable, int]] = []
        while self._windows:
            key, window = next(iter(self._windows.items()))
            if now - window.start < self.period:
                break  # windows are kept in the order they opened
            del self._windows[key]
            if window.suppressed:
                closed.append((key, window.suppressed))
        return closed


def _repeat_key(record: logging.LogRecord) -> tuple[str, str, str]:
    """The logger, the message template and the bot (each bot's repeats apart: a fleet worker
    hosts several); a template of placeholders only (``"%s"``) says nothing by itself, so its
    formatted text stands in for it."""
    template = str(record.msg)
    bot = bot_of(record.threadName or "")
    if not any(c.isalpha() for c in _PLACEHOLDER.sub("", template)):
        return record.name, record.getMessage()[:200], bot
    return record.name, template, bot


class RepeatFilter(logging.Filter):
    """Rate-limits repeated warnings and errors across every handler it is attached to.

    The key is the logger name and the message template (``record.msg``), so
    ``"chat queue full; dropped: %s"`` counts as one message whatever it
    dropped (a template of placeholders only is keyed by its text). Records
    below WARNING, and those of the ``exempt`` loggers, always pass. The
    verdict is stored on the record, so handlers sharing the filter agree and
    count it once. When a
    window closes having hidden K records, one WARNING ``suppressed K similar
    messages …`` goes to the same logger; it is written when the next record of
    any kind passes after the window ended.
    """

    def __init__(
        self,
        limit: int = REPEAT_LIMIT,
        period: float = REPEAT_PERIOD,
        *,
        clock: Callable[[], float] = time.monotonic,
        exempt: tuple[str, ...] = REPEAT_EXEMPT,
    ) -> None:
        super().__init__()
        self.limiter = RepeatLimiter(limit, period)
        self.exempt = exempt
        self._clock = clock
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        verdict = record.__dict__.get(VERDICT)
        if verdict is not None:
            return bool(verdict)
        limited = record.levelno >= logging.WARNING and record.name not in self.exempt
        with self._lock:
            now = self._clock()
            if limited:
                allow, closed = self.limiter.check(_repeat_key(record), now)
            else:
                allow, closed = True, self.limiter.roll(now)
        record.__dict__[VERDICT] = allow
        for key, count in closed:  # outside the lock: the summary passes through this filter
            self._report(key, count)
        return allow

    def flush(self, *, final: bool = False) -> None:
        """Report the windows that have ended (also done by the next record that passes);
        ``final``: every window, so nothing suppressed goes unreported at exit."""
        with self._lock:
            closed = self.limiter.close_all() if final else self.limiter.roll(self._clock())
        for key, count in closed:
            self._report(key, count)

    def _report(self, key: Hashable, count: int) -> None:
        name, template, bot = cast(tuple[str, str, str], key)
        target = logging.getLogger(name)
        summary = target.makeRecord(
            name,
            logging.WARNING,
            __file__,
            0,
            "suppressed %d similar messages in %g s: %s",
            (count, self.limiter.period, str(template)[:200]),
            None,
        )
        summary.__dict__[VERDICT] = True
        summary.threadName = thread_name("repeats", bot)  # the bot whose messages these were
        target.handle(summary)
