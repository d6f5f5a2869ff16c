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

Text from outside (chat, kick reasons, names, lesson text another bot wrote)
often reaches a message: every handler shows control characters escaped
(``\n`` as ``\\n``, ESC as ``\\x1b``; :func:`escape_controls`), so such text
can neither forge a line nor send a terminal escape. Tracebacks, and the thread dumps
of :data:`RAW_LOGGERS`, stay as they are.
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
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from pepa.base.dirs import MIB, open_folder
from pepa.base.repeats import RepeatFilter
from pepa.base.threads import BOT_MARK, bot_of, thread_name

__all__ = [
    "BOT_MARK",
    "RAW_LOGGERS",
    "BotFilter",
    "BotFormatter",
    "BusHandler",
    "CleanFormatter",
    "DailyFileHandler",
    "LogRecorded",
    "RingBuffer",
    "bot_handlers",
    "bot_of",
    "configure",
    "escape_controls",
    "record_to_event",
    "thread_name",
]

logger = logging.getLogger(__name__)

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


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
"""Every control character but the tab."""


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = {"\n": "\\n", "\r": "\\r"}.get(char)
    return named or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def escape_controls(text: str) -> str:
    """``text`` on one line with its control characters escaped (``\x1b[2J`` → ``\\x1b[2J``)."""
    return _CONTROL.sub(_escape, text)


RAW_LOGGERS = frozenset({"pykka"})
"""Loggers whose messages keep their lines: pykka's thread dumps (SIGUSR1), tracebacks by
design, which hold no text from outside but thread names (pepa's own)."""


class CleanFormatter(logging.Formatter):
    """:data:`FORMAT` (or ``fmt``) with the message's control characters escaped (but for
    :data:`RAW_LOGGERS`)."""

    def __init__(self, fmt: str = FORMAT) -> None:
        super().__init__(fmt)

    def formatMessage(self, record: logging.LogRecord) -> str:
        if record.name in RAW_LOGGERS:
            return super().formatMessage(record)
        message = record.message
        record.message = escape_controls(message)
        try:
            return super().formatMessage(record)
        finally:
            record.message = message


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
        text=record.getMessage()
        if record.name in RAW_LOGGERS
        else escape_controls(record.getMessage()),
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
        self.setFormatter(CleanFormatter())
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


class BotFormatter(CleanFormatter):
    """:data:`FORMAT` with the bot a record is from (``[miner1]``), for a fleet worker's own
    lines, where the records of all its bots meet."""

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
    console.setFormatter(BotFormatter() if tag_bots else CleanFormatter())
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
