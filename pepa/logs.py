"""Logging: stdout, a daily file under the state folder, a ring buffer, the bus.

Every log record goes to stdout and ``logs/YYYY-MM-DD.log``; records at INFO
and above also go into a ring buffer (the ``recentLogs`` of a ``hello``) and
onto the bus as :class:`LogRecorded`, which the IPC actor sends to clients.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, TextIO

from pepa.events import LogRecorded

__all__ = ["BusHandler", "DailyFileHandler", "RingBuffer", "configure", "record_to_event"]

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
_LEVELS = {
    "DEBUG": "debug",
    "INFO": "info",
    "WARNING": "warn",
    "ERROR": "error",
    "CRITICAL": "error",
}


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
    """Publishes records on the bus; guards against re-entry from its own delivery."""

    def __init__(self, publish: Any) -> None:
        super().__init__(logging.INFO)
        self._publish = publish
        self._local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._local, "busy", False):
            return
        self._local.busy = True
        try:
            self._publish(record_to_event(record))
        finally:
            self._local.busy = False


class DailyFileHandler(logging.Handler):
    """Appends to ``<folder>/YYYY-MM-DD.log``, switching files at local midnight."""

    def __init__(self, folder: Path) -> None:
        super().__init__(logging.DEBUG)
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._day = ""
        self._stream: TextIO | None = None
        self.setFormatter(logging.Formatter(FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            day = time.strftime("%Y-%m-%d", time.localtime(record.created))
            if day != self._day or self._stream is None:
                if self._stream is not None:
                    self._stream.close()
                self._stream = open(self.folder / f"{day}.log", "a", encoding="utf-8")  # noqa: SIM115
                self._day = day
            self._stream.write(self.format(record) + "\n")
            self._stream.flush()
        except Exception:
            self.handleError(record)

    def close(self) -> None:
        self.acquire()
        try:
            if self._stream is not None:
                self._stream.close()
                self._stream = None
        finally:
            self.release()
        super().close()


def configure(
    *, logs_dir: Path | None, level: int = logging.INFO, stream: TextIO | None = None
) -> RingBuffer:
    """Install stdout (+ daily file) handlers on the root logger; return the ring buffer."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    root.setLevel(logging.DEBUG)
    console = logging.StreamHandler(stream or sys.stdout)
    console.setLevel(level)
    console.setFormatter(logging.Formatter(FORMAT))
    root.addHandler(console)
    if logs_dir is not None:
        root.addHandler(DailyFileHandler(logs_dir))
    ring = RingBuffer()
    root.addHandler(ring)
    for noisy in ("pykka", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return ring
