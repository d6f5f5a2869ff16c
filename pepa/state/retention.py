"""Retention: how long the bot keeps what it writes, and which old files go.

A long-running bot writes without end: chat lines, death bundles and danger
points in the knowledge base, ``reflections/<ts>.md`` reports and daily
``logs/YYYY-MM-DD.log`` files. A :class:`RetentionPolicy` bounds them: a
window of days for everything, and a cap on the bytes of log files.

The choosers (:func:`logs_to_prune`, :func:`reflections_to_prune`) are pure:
they take names, dates, sizes and the clock as values. The executors
(:func:`prune_logs`, :func:`prune_reflections`) read one folder and unlink
what the choosers picked. They never follow a symlink: the folder is opened
with ``O_NOFOLLOW`` and only regular files directly in it are counted or
removed, and only files named as pepa names them.

The rules for log files:

- a file dated more than ``days`` days before today goes;
- then, while the files left are over ``log_max_bytes`` together, the oldest
  goes first;
- today's file (and any dated after today, after a clock change) is never
  removed and never truncated; :class:`pepa.base.logs.DailyFileHandler` stops
  appending to it once it alone reaches the cap, until the day changes.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from pepa.base.dirs import MIB, open_folder

__all__ = [
    "DEFAULT_DAYS",
    "DEFAULT_LOG_MAX_MB",
    "PRUNE_EVERY",
    "DatedFile",
    "RetentionPolicy",
    "log_day",
    "logs_to_prune",
    "prune_logs",
    "prune_reflections",
    "reflection_time",
    "reflections_to_prune",
]

logger = logging.getLogger(__name__)

DEFAULT_DAYS = 30
"""Days of chat, death bundles, danger points, reflections, logs (``PEPA_RETENTION_DAYS``)."""
DEFAULT_LOG_MAX_MB = 200
"""MiB of daily log files kept (``PEPA_LOG_MAX_MB``)."""
PRUNE_EVERY = 24 * 3600.0
"""Seconds between two prunes of a running daemon (one also runs at start)."""

_LOG_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.log$")
_REFLECTION_NAME = re.compile(r"^(\d{8})-(\d{6})\.md$")


@dataclass(frozen=True, slots=True, kw_only=True)
class RetentionPolicy:
    """What a bot keeps: ``days`` of everything, at most ``log_max_bytes`` of logs."""

    days: int = DEFAULT_DAYS
    log_max_bytes: int = DEFAULT_LOG_MAX_MB * MIB

    def __post_init__(self) -> None:
        if self.days < 1:
            raise ValueError(f"retention days must be at least 1, got {self.days}")
        if self.log_max_bytes < 1:
            raise ValueError(f"log cap must be positive, got {self.log_max_bytes}")

    def cutoff(self, now: datetime) -> datetime:
        """Rows and reports older than this go."""
        return now - timedelta(days=self.days)

    def describe(self) -> str:
        """The policy in a few words, for logs."""
        return f"{self.days} days, {self.log_max_bytes / MIB:g} MiB of logs"


@dataclass(frozen=True, slots=True, kw_only=True)
class DatedFile:
    """A log file as the chooser sees it."""

    name: str
    day: date
    size: int


def log_day(name: str) -> date | None:
    """The day of ``YYYY-MM-DD.log``; None for any other name."""
    match = _LOG_NAME.match(name)
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def reflection_time(name: str) -> datetime | None:
    """The (UTC) time of ``YYYYmmdd-HHMMSS.md``; None for any other name."""
    match = _REFLECTION_NAME.match(name)
    if match is None:
        return None
    try:
        return datetime.strptime(match[1] + match[2], "%Y%m%d%H%M%S")
    except ValueError:
        return None


def logs_to_prune(files: Sequence[DatedFile], *, today: date, policy: RetentionPolicy) -> list[str]:
    """Names of the log files to remove, oldest first (see the module docstring)."""
    oldest_kept = today - timedelta(days=policy.days)
    ordered = sorted(files, key=lambda f: (f.day, f.name))
    drop = [f for f in ordered if f.day < oldest_kept]
    keep = [f for f in ordered if f.day >= oldest_kept]
    total = sum(f.size for f in keep)
    for f in keep:
        if total <= policy.log_max_bytes or f.day >= today:
            break
        drop.append(f)
        total -= f.size
    return [f.name for f in drop]


def reflections_to_prune(
    names: Iterable[str], *, now: datetime, policy: RetentionPolicy
) -> list[str]:
    """Names of the reflection reports older than the window (``now`` in UTC), oldest first."""
    cutoff = policy.cutoff(now)
    dated = [(at, name) for name in names if (at := reflection_time(name)) is not None]
    return [name for at, name in sorted(dated) if at < cutoff]


# --------------------------------------------------------------------------- on disk


def _regular_files(dir_fd: int) -> dict[str, int]:
    """``{name: size}`` of the regular files directly in the folder (symlinks skipped)."""
    found: dict[str, int] = {}
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISREG(st.st_mode):
                found[entry.name] = st.st_size
    return found


def _unlink_all(dir_fd: int, names: Sequence[str], folder: Path) -> list[str]:
    removed = []
    for name in names:
        try:
            os.unlink(name, dir_fd=dir_fd)
        except FileNotFoundError:
            continue
        except OSError as exc:
            logger.warning("cannot prune %s: %s", folder / name, exc)
            continue
        removed.append(name)
    return removed


def prune_logs(folder: Path, *, today: date, policy: RetentionPolicy) -> list[str]:
    """Remove the log files :func:`logs_to_prune` picks in ``folder``; their names."""
    dir_fd = open_folder(folder)
    if dir_fd is None:
        return []
    try:
        files = [
            DatedFile(name=name, day=day, size=size)
            for name, size in _regular_files(dir_fd).items()
            if (day := log_day(name)) is not None
        ]
        return _unlink_all(dir_fd, logs_to_prune(files, today=today, policy=policy), folder)
    finally:
        os.close(dir_fd)


def prune_reflections(folder: Path, *, now: datetime, policy: RetentionPolicy) -> list[str]:
    """Remove the reports :func:`reflections_to_prune` picks in ``folder``; their names."""
    dir_fd = open_folder(folder)
    if dir_fd is None:
        return []
    try:
        names = reflections_to_prune(_regular_files(dir_fd), now=now, policy=policy)
        return _unlink_all(dir_fd, names, folder)
    finally:
        os.close(dir_fd)
