"""Logging: stdout, a daily file under the state folder, a ring buffer, the bus.

Every log record goes to stdout and ``logs/YYYY-MM-DD.log``; records at INFO
and above also go into a ring buffer (the ``recentLogs`` of a ``hello``) and
onto the bus as :class:`LogRecorded`, which the IPC actor sends to clients.

Bounds: the same warning (logger and message template) passes at most
``REPEAT_LIMIT`` times per ``REPEAT_PERIOD`` seconds, then one line counts what
was suppressed (:class:`RepeatFilter`); the daily file never follows a
symlink, is 0600 in a 0700 folder, and stops growing at the log cap until the
next day (:class:`DailyFileHandler`). Old files are pruned by
``pepa.state.retention``.
"""

from __future__ import annotations

import atexit
import errno
import logging
import os
import re
import stat
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO, cast

from pepa.base.dirs import MIB, open_folder
from pepa.base.threads import BOT_MARK, bot_of, thread_name

__all__ = [
    "BOT_MARK",
    "REPEAT_EXEMPT",
    "REPEAT_LIMIT",
    "REPEAT_PERIOD",
    "BotFilter",
    "BotFormatter",
    "BusHandler",
    "DailyFileHandler",
    "LogRecorded",
    "RepeatFilter",
    "RepeatLimiter",
    "RingBuffer",
    "bot_handlers",
    "bot_of",
    "configure",
    "record_to_event",
    "thread_name",
]

logger = logging.getLogger(__name__)

REPEAT_LIMIT = 5
"""The same warning or error passes this many times per :data:`REPEAT_PERIOD`."""
REPEAT_PERIOD = 60.0
"""Seconds of one rate-limit window."""
_REPEAT_KEYS = 1000  # windows tracked at once; the oldest is closed early beyond it
REPEAT_EXEMPT = ("pepa.runtime._actor", "pepa.runtime._supervisor")
"""Loggers never rate-limited: crash, restart and give-up reports, already bounded by each
supervisor's restart intensity, and the one record of which actor failed how."""
_VERDICT = "_pepa_repeat_verdict"  # set on a record once decided, so every handler agrees
_PLACEHOLDER = re.compile(r"%(\([^)]*\))?[-#0 +]*(\*|\d+)?(\.(\*|\d+))?[diouxXeEfFgGcrsa%]")
_active_repeats: RepeatFilter | None = None  # the filter configure() installed

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
_LEVELS = {
    "DEBUG": "debug",
    "INFO": "info",
    "WARNING": "warn",
    "ERROR": "error",
    "CRITICAL": "error",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class LogRecorded:
    """A log record worth showing to dashboards."""

    ts: float
    """Unix time of the record."""
    level: str
    """``debug``, ``info``, ``warn`` or ``error``."""
    source: str
    """The logger name, shortened (``pepa.actors.reflex`` → ``reflex``)."""
    text: str
    """The formatted message."""
    details: dict[str, Any] | None = None
    """Structured extras (the exception, for errors)."""


def record_to_event(record: logging.LogRecord) -> LogRecorded:
    """Turn a log record into the event the socket carries."""
    details: dict[str, Any] | None = None
    if record.exc_info and record.exc_info[1] is not None:
        details = {"exception": repr(record.exc_info[1])}
    source = record.name.removeprefix("pepa.").removeprefix("actors.")
    return LogRecorded(
        ts=record.created,
        level=_LEVELS.get(record.levelname, record.levelname.lower()),
        source=source,
        text=record.getMessage(),
        details=details,
    )


class BotFilter(logging.Filter):
    """Passes the records of one bot's threads (``bot``), or with ``bot=""`` those of no bot."""

    def __init__(self, bot: str) -> None:
        super().__init__()
        self.bot = bot

    def filter(self, record: logging.LogRecord) -> bool:
        return bot_of(record.threadName or "") == self.bot


class RingBuffer(logging.Handler):
    """Keeps the last ``capacity`` records as events."""

    def __init__(self, capacity: int = 200) -> None:
        super().__init__(logging.INFO)
        self._events: deque[LogRecorded] = deque(maxlen=capacity)

    def emit(self, record: logging.LogRecord) -> None:
        self._events.append(record_to_event(record))

    def recent(self) -> list[LogRecorded]:
        """Oldest first."""
        return list(self._events)


class BusHandler(logging.Handler):
    """Publishes records on the bus; guards against re-entry from its own delivery.

    It shares the repeat filter :func:`configure` installed, so a flood of one
    warning never floods the socket either.
    """

    def __init__(self, publish: Any) -> None:
        super().__init__(logging.INFO)
        self._publish = publish
        self._local = threading.local()
        if _active_repeats is not None:
            self.addFilter(_active_repeats)

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._local, "busy", False):
            return
        self._local.busy = True
        try:
            self._publish(record_to_event(record))
        finally:
            self._local.busy = False


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
        verdict = record.__dict__.get(_VERDICT)
        if verdict is not None:
            return bool(verdict)
        limited = record.levelno >= logging.WARNING and record.name not in self.exempt
        with self._lock:
            now = self._clock()
            if limited:
                allow, closed = self.limiter.check(_repeat_key(record), now)
            else:
                allow, closed = True, self.limiter.roll(now)
        record.__dict__[_VERDICT] = allow
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
        summary.__dict__[_VERDICT] = True
        summary.threadName = thread_name("repeats", bot)  # the bot whose messages these were
        target.handle(summary)


class DailyFileHandler(logging.Handler):
    """Appends to ``<folder>/YYYY-MM-DD.log``, switching files at local midnight.

    It never follows a symlink: the folder (created 0700) is opened once with
    ``O_NOFOLLOW`` and each day's file is opened relative to it with
    ``O_NOFOLLOW``; a symlink, FIFO or anything but a regular file at that
    name is refused with one warning (to the other handlers), and that day's
    records go only to them. Files are 0600. Once a day's file reaches
    ``max_bytes`` it gets one last line saying so and nothing more until the
    next day (the records still reach stdout and the socket).
    """

    def __init__(self, folder: Path, *, max_bytes: int | None = None) -> None:
        super().__init__(logging.DEBUG)
        self.folder = folder
        self.max_bytes = max_bytes
        self._day = ""
        self._stream: BinaryIO | None = None
        self._size = 0
        self._dir_fd: int | None = None
        self._dir_error = ""
        self.setFormatter(logging.Formatter(FORMAT))
        try:
            self._dir_fd = _private_folder(folder)
        except OSError as exc:
            self._dir_error = f"cannot use the log folder {folder}: {exc.strerror or exc}"

    def emit(self, record: logging.LogRecord) -> None:
        try:
            day = time.strftime("%Y-%m-%d", time.localtime(record.created))
            if day != self._day:
                self._switch(day)
            stream = self._stream
            if stream is None:
                return
            data = (self.format(record) + "\n").encode("utf-8", "replace")
            if self.max_bytes is not None and self._size + len(data) > self.max_bytes:
                self._stream = None
                note = (
                    f"{time.strftime('%Y-%m-%d %H:%M:%S')} this file reached the log cap of "
                    f"{self.max_bytes / MIB:g} MiB; nothing more is written to it today\n"
                )
                stream.write(note.encode())
                stream.close()
                return
            stream.write(data)
            stream.flush()
            self._size += len(data)
        except Exception:
            self.handleError(record)

    def _switch(self, day: str) -> None:
        """Close the old day's file and open ``day``'s, or refuse it with one warning."""
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        self._day = day  # set first: the warning below re-enters emit() for the same day
        name = f"{day}.log"
        if self._dir_fd is None:
            if self._dir_error:
                error, self._dir_error = self._dir_error, ""
                logger.warning("not writing log files: %s", error)
            return
        try:
            self._stream, self._size = _open_log(self._dir_fd, name)
        except OSError as exc:
            logger.warning(
                "not writing %s (logging goes on elsewhere): %s",
                self.folder / name,
                exc.strerror or exc,
            )
            return
        if self.max_bytes is not None and self._size >= self.max_bytes:
            self._stream.close()  # already full (a restart the same day)
            self._stream = None

    def close(self) -> None:
        self.acquire()
        try:
            if self._stream is not None:
                self._stream.close()
                self._stream = None
            if self._dir_fd is not None:
                os.close(self._dir_fd)
                self._dir_fd = None
        finally:
            self.release()
        super().close()


def _private_folder(folder: Path) -> int:
    """Create ``folder`` (0700) if needed; a no-follow descriptor of it, made 0700 if ours."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = open_folder(folder)
    if fd is None:
        raise FileNotFoundError(errno.ENOENT, "vanished", str(folder))
    try:
        st = os.fstat(fd)
        if st.st_uid != os.getuid():
            raise PermissionError(errno.EPERM, f"owned by uid {st.st_uid}, not by this user")
        if stat.S_IMODE(st.st_mode) != 0o700:
            os.fchmod(fd, 0o700)
    except OSError:
        os.close(fd)
        raise
    return fd


def _open_log(dir_fd: int, name: str) -> tuple[BinaryIO, int]:
    """Open ``name`` in the folder for appending, never through a symlink; (stream, size)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, 0o600, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "it is a symlink; refused") from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file; refused")
        if st.st_uid != os.getuid():
            raise OSError(errno.EPERM, f"it is owned by uid {st.st_uid}; refused")
        if stat.S_IMODE(st.st_mode) != 0o600:
            os.fchmod(fd, 0o600)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "ab"), st.st_size
    except BaseException:
        os.close(fd)
        raise


@atexit.register
def _report_suppressed_at_exit() -> None:
    """Runs before logging's own shutdown (registered later, so earlier in the LIFO order)."""
    if _active_repeats is not None:
        _active_repeats.flush(final=True)


class BotFormatter(logging.Formatter):
    """:data:`FORMAT` with the bot a record is from (``[miner1]``), for a fleet worker's own
    lines, where the records of all its bots meet."""

    def __init__(self) -> None:
        super().__init__(FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:
        bot = bot_of(record.threadName or "")
        text = super().formatMessage(record)
        return (
            text if not bot else text.replace(f" {record.name}: ", f" [{bot}] {record.name}: ", 1)
        )


def bot_handlers(bot: str, logs_dir: Path, *, max_file_bytes: int | None) -> list[logging.Handler]:
    """One bot's daily file and ring buffer (first in the list), taking only its own records
    (:class:`BotFilter`) and sharing the repeat filter :func:`configure` installed. The caller
    adds them to the root logger and removes them when the bot stops."""
    handlers: list[logging.Handler] = [
        RingBuffer(),
        DailyFileHandler(logs_dir, max_bytes=max_file_bytes),
    ]
    for handler in handlers:
        handler.addFilter(BotFilter(bot))
        if _active_repeats is not None:
            handler.addFilter(_active_repeats)
    return handlers


def configure(
    *,
    logs_dir: Path | None,
    level: int = logging.INFO,
    stream: TextIO | None = None,
    max_file_bytes: int | None = None,
    repeats: RepeatFilter | None = None,
    tag_bots: bool = False,
) -> RingBuffer:
    """Install stdout (+ daily file) handlers on the root logger; return the ring buffer.

    Every handler installed here, and every :class:`BusHandler` made after,
    shares one :class:`RepeatFilter` (``repeats``, or a default one).
    ``tag_bots``: the lines name the bot they are from (:class:`BotFormatter`).
    """
    global _active_repeats
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    root.setLevel(logging.DEBUG)
    _active_repeats = repeats or RepeatFilter()
    console = logging.StreamHandler(stream or sys.stdout)
    console.setLevel(level)
    console.setFormatter(BotFormatter() if tag_bots else logging.Formatter(FORMAT))
    handlers: list[logging.Handler] = [console]
    if logs_dir is not None:
        daily = DailyFileHandler(logs_dir, max_bytes=max_file_bytes)
        if tag_bots:
            daily.setFormatter(BotFormatter())
        handlers.append(daily)
    ring = RingBuffer()
    handlers.append(ring)
    for handler in handlers:
        handler.addFilter(_active_repeats)
        root.addHandler(handler)
    for noisy in ("pykka", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return ring
